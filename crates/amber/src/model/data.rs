//! Value types of a script's data: scalar types, numbers and literals, data types and
//! their memory layouts.

use std::fmt;

/// A scalar component type, as AmberScript spells it (`int8` ... `uint64`, `float`, `double`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// `int8`
    I8,
    /// `int16`
    I16,
    /// `int32`
    I32,
    /// `int64`
    I64,
    /// `uint8`
    U8,
    /// `uint16`
    U16,
    /// `uint32`
    U32,
    /// `uint64`
    U64,
    /// `float16` (16-bit IEEE binary16)
    F16,
    /// `float` (32-bit IEEE)
    F32,
    /// `double` (64-bit IEEE)
    F64,
}

impl Scalar {
    /// Parses an AmberScript scalar type name.
    pub fn from_name(s: &str) -> Option<Scalar> {
        Some(match s {
            "int8" => Scalar::I8,
            "int16" => Scalar::I16,
            "int32" => Scalar::I32,
            "int64" => Scalar::I64,
            "uint8" => Scalar::U8,
            "uint16" => Scalar::U16,
            "uint32" => Scalar::U32,
            "uint64" => Scalar::U64,
            "float16" => Scalar::F16,
            "float" => Scalar::F32,
            "double" => Scalar::F64,
            _ => return None,
        })
    }

    /// The AmberScript name.
    pub fn name(self) -> &'static str {
        match self {
            Scalar::I8 => "int8",
            Scalar::I16 => "int16",
            Scalar::I32 => "int32",
            Scalar::I64 => "int64",
            Scalar::U8 => "uint8",
            Scalar::U16 => "uint16",
            Scalar::U32 => "uint32",
            Scalar::U64 => "uint64",
            Scalar::F16 => "float16",
            Scalar::F32 => "float",
            Scalar::F64 => "double",
        }
    }

    /// Size in bytes.
    pub fn size(self) -> usize {
        match self {
            Scalar::I8 | Scalar::U8 => 1,
            Scalar::I16 | Scalar::U16 | Scalar::F16 => 2,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
            Scalar::I64 | Scalar::U64 | Scalar::F64 => 8,
        }
    }

    /// `float16`, `float` or `double`.
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F16 | Scalar::F32 | Scalar::F64)
    }

    /// A signed integer type.
    pub fn is_signed_int(self) -> bool {
        matches!(self, Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64)
    }

    fn bits(self) -> u32 {
        self.size() as u32 * 8
    }

    /// The all-ones mask of this type's width.
    pub(crate) fn mask(self) -> u64 {
        if self.bits() == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits()) - 1
        }
    }

    /// Encodes a literal as this type's bit pattern (in the low bytes of the `u64`).
    ///
    /// Integers must lie in `[signed min, unsigned max]` of the width, so `-1` and
    /// `0xffffffff` are both accepted for `int32` and `uint32` alike (amber casts). A
    /// decimal integer for a float type is that number; a hex literal for a float type is
    /// the raw bit pattern. A decimal literal with a fraction part of zero (`0.0`, as in
    /// `FILL 0.0`, which amber accepts for integer buffers) is that integer; a fractional
    /// one for an integer type is refused (amber would truncate it silently).
    pub fn encode(self, lit: Literal) -> Option<u64> {
        match (self.is_float(), lit) {
            (false, Literal::Int(v)) => {
                let lo = -(1i128 << (self.bits() - 1));
                let hi = (1i128 << self.bits()) - 1;
                (lo..=hi).contains(&v).then_some((v as u64) & self.mask())
            }
            (false, Literal::Hex(v)) => (v & !self.mask() == 0).then_some(v),
            (false, Literal::Float(v)) if v.is_finite() && v.fract() == 0.0 => {
                self.encode(Literal::Int(v as i128))
            }
            (false, Literal::Float(_)) => None,
            (true, Literal::Hex(v)) => (v & !self.mask() == 0).then_some(v),
            (true, Literal::Int(v)) => Some(self.encode_f64(v as f64)),
            (true, Literal::Float(v)) => Some(self.encode_f64(v)),
        }
    }

    /// The bit pattern an `EXPECT` value stands for: as [`Scalar::encode`], except that a
    /// half is rounded to nearest from the value. amber compares a half in the buffer, widened,
    /// with the expected value as written; only buffer data goes through [`amber_f16`].
    pub fn encode_expected(self, literal: Literal) -> Option<u64> {
        match (self, literal) {
            (Scalar::F16, Literal::Int(v)) => {
                Some(u64::from(half::f16::from_f64(v as f64).to_bits()))
            }
            (Scalar::F16, Literal::Float(v)) => Some(u64::from(half::f16::from_f64(v).to_bits())),
            _ => self.encode(literal),
        }
    }

    /// The bit pattern of `v` converted to this float type: `F32` rounds to nearest, ties to
    /// even; `F16` goes as amber's parser takes it, through `float` (rounded to nearest) and
    /// then toward zero ([`amber_f16`]).
    pub fn encode_f64(self, v: f64) -> u64 {
        match self {
            Scalar::F16 => u64::from(amber_f16(v as f32)),
            Scalar::F32 => (v as f32).to_bits() as u64,
            Scalar::F64 => v.to_bits(),
            _ => v as i128 as u64 & self.mask(),
        }
    }

    /// Reads the value in the first `size()` bytes of `bytes` (little-endian).
    pub fn decode(self, bytes: &[u8]) -> Num {
        let mut b = [0u8; 8];
        b[..self.size()].copy_from_slice(&bytes[..self.size()]);
        self.from_bits(u64::from_le_bytes(b))
    }

    /// Interprets a bit pattern of this type.
    pub fn from_bits(self, bits: u64) -> Num {
        match self {
            Scalar::F16 => Num::Float(half::f16::from_bits(bits as u16).to_f64()),
            Scalar::F32 => Num::Float(f32::from_bits(bits as u32) as f64),
            Scalar::F64 => Num::Float(f64::from_bits(bits)),
            Scalar::I8 => Num::Int(bits as u8 as i8 as i128),
            Scalar::I16 => Num::Int(bits as u16 as i16 as i128),
            Scalar::I32 => Num::Int(bits as u32 as i32 as i128),
            Scalar::I64 => Num::Int(bits as i64 as i128),
            _ => Num::Int((bits & self.mask()) as i128),
        }
    }
}

/// A decoded number, for comparisons and messages.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// An integer of any width and signedness.
    Int(i128),
    /// A float (a `float` is widened exactly).
    Float(f64),
}

impl Num {
    /// As a double.
    pub fn as_f64(self) -> f64 {
        match self {
            Num::Int(v) => v as f64,
            Num::Float(v) => v,
        }
    }
}

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Num::Int(v) => write!(f, "{v}"),
            Num::Float(v) => write!(f, "{v:?}"),
        }
    }
}

/// The binary16 bits amber stores for the float `x`: the `float`'s sign, exponent and top ten
/// mantissa bits, so the mantissa is cut toward zero rather than rounded (amber's
/// `FloatToHexFloat16`), and the CTS's expected values assume exactly those inputs. Zero and
/// values below the smallest normal half flush to a signed zero (amber flushes the `float`'s
/// denormals and has no half subnormals); values beyond the largest half become the largest
/// half, as cutting toward zero gives (amber's exponent would overflow); infinities and NaNs
/// stay what they are.
pub fn amber_f16(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    if x.is_nan() {
        return sign | 0x7e00;
    }
    if x.is_infinite() {
        return sign | 0x7c00;
    }
    let exponent = ((bits >> 23) & 0xff) as i32 - 127;
    if exponent < -14 {
        return sign;
    }
    if exponent > 15 {
        return sign | 0x7bff;
    }
    sign | (((exponent + 15) as u16) << 10) | ((bits & 0x7f_ffff) >> 13) as u16
}

/// A number as written in the script.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Literal {
    /// A decimal integer, possibly negative.
    Int(i128),
    /// `0x...`: an integer, or the raw bits of a float.
    Hex(u64),
    /// A decimal number with a fraction or exponent (or `inf`/`nan`).
    Float(f64),
}

impl Literal {
    /// Reads a token as a number.
    pub fn parse(s: &str) -> Option<Literal> {
        // Every number opens with a sign, a digit, a `.`, or `inf`/`nan`'s first letter:
        // keywords (`EQ`, `TOLERANCE`, names) are refused without the reading below.
        match s.as_bytes().first() {
            Some(b'0'..=b'9' | b'+' | b'-' | b'.' | b'i' | b'n') => Self::parse_number(s),
            _ => None,
        }
    }

    /// [`Self::parse`] without its first-byte filter.
    fn parse_number(s: &str) -> Option<Literal> {
        let (neg, body) = match s.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, s.strip_prefix('+').unwrap_or(s)),
        };
        if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            let v = u64::from_str_radix(hex, 16).ok()?;
            return Some(if neg {
                Literal::Int(-(v as i128))
            } else {
                Literal::Hex(v)
            });
        }
        if !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit()) {
            // Up to 19 digits fit a u64 without overflow: the common case, without the
            // general i128 parser.
            let v: i128 = if body.len() <= 19 {
                i128::from(
                    body.bytes()
                        .fold(0u64, |acc, b| acc * 10 + u64::from(b - b'0')),
                )
            } else {
                body.parse().ok()?
            };
            return Some(Literal::Int(if neg { -v } else { v }));
        }
        let starts_ok = body.starts_with(|c: char| c.is_ascii_digit() || c == '.');
        if starts_ok || matches!(body, "inf" | "nan") {
            return s.parse::<f64>().ok().map(Literal::Float);
        }
        None
    }
}

/// The type of one buffer element: a scalar, a 2-, 3- or 4-component vector, or a matrix of
/// 2–4 such column vectors (`matCxR<...>`: C columns of R rows, as GLSL names them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DataType {
    /// Component type.
    pub scalar: Scalar,
    /// 1 for a scalar, 2–4 for `vecN<...>`; for a matrix, the rows (its column's size).
    pub components: u8,
    /// 1 for scalars and vectors; for a matrix, the columns.
    pub columns: u8,
}

impl DataType {
    /// A scalar or vector type of `components` components.
    pub fn vector(scalar: Scalar, components: u8) -> DataType {
        DataType {
            scalar,
            components,
            columns: 1,
        }
    }

    /// How many values (`DATA`, `EXPECT` list them one by one) one element holds.
    pub fn values_per_element(&self) -> usize {
        usize::from(self.components) * usize::from(self.columns)
    }

    /// Parses `int32`, `vec3<float>`, `mat2x3<float>`, ...
    pub fn from_name(s: &str) -> Option<DataType> {
        if let Some(rest) = s.strip_prefix("mat") {
            let b = rest.as_bytes();
            let dim = |c: u8| (b'2'..=b'4').contains(&c).then(|| c - b'0');
            let (columns, rows) = (dim(*b.first()?)?, dim(*b.get(2)?)?);
            if b.get(1) != Some(&b'x') {
                return None;
            }
            // The first three bytes are ASCII, so slicing after them is on a char boundary.
            let inner = rest[3..].strip_prefix('<')?.strip_suffix('>')?;
            let scalar = Scalar::from_name(inner)?;
            if !scalar.is_float() {
                return None;
            }
            return Some(DataType {
                scalar,
                components: rows,
                columns,
            });
        }
        if let Some(rest) = s.strip_prefix("vec") {
            let components = match rest.as_bytes().first()? {
                b'2' => 2,
                b'3' => 3,
                b'4' => 4,
                _ => return None,
            };
            // The first byte is an ASCII digit, so slicing after it is on a char boundary.
            let inner = rest[1..].strip_prefix('<')?.strip_suffix('>')?;
            return Some(DataType::vector(Scalar::from_name(inner)?, components));
        }
        Some(DataType::vector(Scalar::from_name(s)?, 1))
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.columns > 1 {
            write!(
                f,
                "mat{}x{}<{}>",
                self.columns,
                self.components,
                self.scalar.name()
            )
        } else if self.components == 1 {
            f.write_str(self.scalar.name())
        } else {
            write!(f, "vec{}<{}>", self.components, self.scalar.name())
        }
    }
}

/// How elements are laid out in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// The default for `DATA_TYPE` buffers: a `vec3` takes the room of a `vec4`.
    Std430,
    /// Like std430, and every array element's stride is rounded up to 16 bytes.
    Std140,
    /// No padding at all: `FORMAT` buffers (`R32G32B32_SFLOAT` is 12 bytes).
    Packed,
}

/// Element type plus layout: everything needed to place a value in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ElementFormat {
    /// The element type.
    pub ty: DataType,
    /// The layout rule.
    pub layout: Layout,
}

impl ElementFormat {
    /// Bytes from one element to the next, padding included: for a matrix, its columns'
    /// stride (a column laid out as the vector it is) times the columns.
    pub fn stride(&self) -> usize {
        self.column_stride() * usize::from(self.ty.columns)
    }

    /// Bytes from one column to the next (the element stride of a scalar or vector).
    fn column_stride(&self) -> usize {
        let s = self.ty.scalar.size();
        let n = self.ty.components as usize;
        match self.layout {
            Layout::Packed => n * s,
            Layout::Std430 => {
                if n == 3 {
                    4 * s
                } else {
                    n * s
                }
            }
            Layout::Std140 => {
                let base = if n == 3 { 4 * s } else { n * s };
                base.div_ceil(16) * 16
            }
        }
    }

    /// Byte offset of the `i`-th value when values are listed component by component
    /// (as `DATA`, `FILL` and `EXPECT` list them), padding skipped.
    pub fn value_offset(&self, i: usize) -> usize {
        let rows = self.ty.components as usize;
        let n = self.ty.values_per_element();
        let (element, within) = (i / n, i % n);
        element * self.stride()
            + (within / rows) * self.column_stride()
            + (within % rows) * self.ty.scalar.size()
    }
}

#[cfg(test)]
mod tests {
    use super::Literal;

    /// The first-byte filter refuses only what the full reading refuses: every token of
    /// one to three characters from the bytes that open numbers and their neighbours, and
    /// longer numbers and near-numbers.
    #[test]
    fn literal_filter_refuses_only_non_numbers() {
        let chars = [
            "0", "9", "+", "-", ".", "i", "n", "f", "a", "x", "X", "e", "E", "N", "I", "/", ":",
            ",", " ", "\u{e9}",
        ];
        let mut tokens: Vec<String> = vec![
            "inf".into(),
            "-inf".into(),
            "nan".into(),
            "+nan".into(),
            "Inf".into(),
            "NaN".into(),
            "infinity".into(),
            ".5e3".into(),
            "0x1F".into(),
            "-0x8".into(),
            "12345678901234567890123".into(),
            "EQ".into(),
            String::new(),
        ];
        for a in chars {
            tokens.push(a.to_string());
            for b in chars {
                tokens.push(format!("{a}{b}"));
                for c in chars {
                    tokens.push(format!("{a}{b}{c}"));
                }
            }
        }
        for t in &tokens {
            let (filtered, full) = (Literal::parse(t), Literal::parse_number(t));
            // NaN is not equal to itself: compare what each reads as text.
            assert_eq!(format!("{filtered:?}"), format!("{full:?}"), "{t:?}");
        }
    }
}
