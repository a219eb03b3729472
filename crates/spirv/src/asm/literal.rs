//! Number literals as spirv-as reads them.
//!
//! Integers: optional `+`/`-`, then `0x`/`0X` hexadecimal, a leading `0` for octal, or
//! decimal. Floats: C-style decimal (`1`, `-.5e-1`; no `inf`/`nan`) or hexadecimal floats
//! with a mandatory lowercase `p` exponent (`-0x1.8p+1`), which is how spirv-dis prints
//! infinities, NaNs, subnormals and every 16-bit float.

/// A parsed integer: sign, magnitude (saturated) and whether it was written in hex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Int {
    pub negative: bool,
    /// `None` when the magnitude exceeds `u64`.
    pub magnitude: Option<u64>,
    pub hex: bool,
}

pub(crate) fn parse_int(word: &str) -> Option<Int> {
    let (negative, rest) = match word.as_bytes().first()? {
        b'-' => (true, &word[1..]),
        b'+' => (false, &word[1..]),
        _ => (false, word),
    };
    let (digits, radix, hex) =
        if let Some(h) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
            (h, 16, true)
        } else if rest.len() > 1 && rest.starts_with('0') {
            (&rest[1..], 8, false)
        } else {
            (rest, 10, false)
        };
    if digits.is_empty() {
        return None;
    }
    let mut magnitude = Some(0u64);
    for c in digits.chars() {
        let d = c.to_digit(radix)?;
        magnitude = magnitude
            .and_then(|m| m.checked_mul(u64::from(radix)))
            .and_then(|m| m.checked_add(u64::from(d)));
    }
    Some(Int {
        negative,
        magnitude,
        hex,
    })
}

/// Why a typed integer literal was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntError {
    Syntax,
    NegativeUnsigned,
    OutOfRange,
}

/// Encodes `word` as an integer of `width` bits (1..=64) into words, low word first;
/// narrower signed values are sign-extended to 32 bits, unsigned ones zero-extended.
pub(crate) fn encode_int(word: &str, width: u32, signed: bool) -> Result<Vec<u32>, IntError> {
    let int = parse_int(word).ok_or(IntError::Syntax)?;
    if width > 64 {
        return Err(IntError::OutOfRange);
    }
    let mag = int.magnitude.ok_or(IntError::OutOfRange)?;
    if width == 0 {
        // spirv-as's ranges for a zero-width type: 0, and -1 when signed.
        return match (signed, int.negative, mag) {
            (_, _, 0) => Ok(vec![0]),
            (false, true, _) => Err(IntError::NegativeUnsigned),
            (true, true, 1) => Ok(vec![u32::MAX]),
            _ => Err(IntError::OutOfRange),
        };
    }
    let max_unsigned: u64 = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let half: u64 = 1u64 << (width - 1);
    let bits: u64 = if !signed {
        if int.negative {
            return Err(IntError::NegativeUnsigned);
        }
        if mag > max_unsigned {
            return Err(IntError::OutOfRange);
        }
        mag
    } else if int.negative {
        if mag > half {
            return Err(IntError::OutOfRange);
        }
        mag.wrapping_neg() & max_unsigned
    } else {
        let limit = if int.hex { max_unsigned } else { half - 1 };
        if mag > limit {
            return Err(IntError::OutOfRange);
        }
        mag
    };
    // Signed values are sign-extended to the words they fill (to 64 bits for 33..64).
    let extended = if signed && bits & half != 0 {
        bits | !max_unsigned
    } else {
        bits
    };
    Ok(if width <= 32 {
        vec![extended as u32]
    } else {
        vec![extended as u32, (extended >> 32) as u32]
    })
}

/// IEEE formats the assembler writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FloatFormat {
    pub mantissa_bits: u32,
    pub exponent_bits: u32,
}

impl FloatFormat {
    pub fn for_width(width: u32) -> Option<Self> {
        match width {
            16 => Some(Self {
                mantissa_bits: 10,
                exponent_bits: 5,
            }),
            32 => Some(Self {
                mantissa_bits: 23,
                exponent_bits: 8,
            }),
            64 => Some(Self {
                mantissa_bits: 52,
                exponent_bits: 11,
            }),
            _ => None,
        }
    }
    fn width(self) -> u32 {
        1 + self.mantissa_bits + self.exponent_bits
    }
}

fn is_decimal_float(word: &str) -> bool {
    let b = word.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - int_start;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let frac_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        digits += i - frac_start;
    }
    if digits == 0 {
        return false;
    }
    if i < b.len() && matches!(b[i], b'e' | b'E') {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return false;
        }
    }
    i == b.len()
}

/// Parses a hexadecimal float into the bits of `fmt`, truncating extra mantissa bits the way
/// spirv-as does (toward zero); an exponent one past the largest keeps the mantissa bits
/// (infinity or NaN), larger ones give infinity.
fn hex_float_bits(word: &str, fmt: FloatFormat) -> Option<u64> {
    let (negative, rest) = match word.as_bytes().first()? {
        b'-' => (true, &word[1..]),
        b'+' => (false, &word[1..]),
        _ => (false, word),
    };
    let rest = rest
        .strip_prefix("0x")
        .or_else(|| rest.strip_prefix("0X"))?;
    let (mantissa_text, exp_text) = rest.split_once('p')?;
    let (int_part, frac_part) = match mantissa_text.split_once('.') {
        Some((i, f)) => (i, f),
        None => (mantissa_text, ""),
    };
    if int_part.len() + frac_part.len() == 0 {
        return None;
    }
    let exp_digits = exp_text.strip_prefix(['+', '-']).unwrap_or(exp_text);
    if exp_digits.is_empty() || !exp_digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let exp_negative = exp_text.starts_with('-');
    let exp_mag: i64 = exp_digits
        .bytes()
        .fold(0i64, |acc, d| (acc * 10 + i64::from(d - b'0')).min(1 << 40));
    let mut exponent: i64 = if exp_negative { -exp_mag } else { exp_mag };
    // Accumulate up to 120 significant bits; drop (truncate) the rest.
    let mut mantissa: u128 = 0;
    for (idx, c) in int_part.chars().chain(frac_part.chars()).enumerate() {
        let d = c.to_digit(16)? as u128;
        let in_fraction = idx >= int_part.len();
        if mantissa >> 116 == 0 {
            mantissa = (mantissa << 4) | d;
            if in_fraction {
                exponent -= 4;
            }
        } else if !in_fraction {
            exponent += 4;
        }
    }
    let sign_bit = u64::from(negative) << (fmt.width() - 1);
    if mantissa == 0 {
        return Some(sign_bit);
    }
    let m = i64::from(fmt.mantissa_bits);
    let bias = (1i64 << (fmt.exponent_bits - 1)) - 1;
    let top = 127 - i64::from(mantissa.leading_zeros());
    let unbiased = top + exponent;
    let exp_all_ones = (1u64 << fmt.exponent_bits) - 1;
    // The mantissa bits below the leading one, truncated or widened to `m` bits.
    let fraction = |shift_to: i64| -> u64 {
        let shift = top - shift_to;
        let v = if shift >= 0 {
            mantissa >> shift
        } else {
            mantissa << (-shift)
        };
        (v as u64) & ((1u64 << m) - 1)
    };
    let bits = if unbiased > bias + 1 {
        exp_all_ones << fmt.mantissa_bits
    } else if unbiased == bias + 1 {
        (exp_all_ones << fmt.mantissa_bits) | fraction(m)
    } else if unbiased >= 1 - bias {
        (((unbiased + bias) as u64) << fmt.mantissa_bits) | fraction(m)
    } else {
        // Subnormal: value / 2^(1 - bias - m), truncated.
        let shift = (1 - bias - m) - exponent; // right shift of the raw mantissa
        if shift >= 128 {
            0
        } else if shift >= 0 {
            (mantissa >> shift) as u64
        } else {
            (mantissa << (-shift)) as u64
        }
    };
    Some(sign_bit | bits)
}

/// Converts a finite `f32` to the bits of a 16-bit float, truncating the mantissa; `None`
/// when the exponent is too large.
fn f32_to_f16_truncating(v: f32) -> Option<u64> {
    let bits = v.to_bits();
    let sign = u64::from(bits >> 31) << 15;
    let exp = ((bits >> 23) & 0xff) as i32 - 127;
    let mant = bits & 0x7f_ffff;
    if v == 0.0 {
        return Some(sign);
    }
    if exp > 15 {
        return None;
    }
    if exp >= -14 {
        return Some(sign | (((exp + 15) as u64) << 10) | u64::from(mant >> 13));
    }
    // Subnormal half (or zero): (1.mant) * 2^exp / 2^-24.
    let full = u64::from(mant | 0x80_0000); // 1.mant scaled by 2^23
    let shift = 23 - (exp + 24); // right shift
    Some(sign | if shift >= 64 { 0 } else { full >> shift })
}

/// Encodes a literal for a bfloat16 type (`OpTypeFloat 16 BFloat16KHR`): hex floats as for
/// IEEE types, decimals through 32 bits with the low 16 bits dropped (as spirv-as does).
pub(crate) fn encode_bfloat16(word: &str) -> Option<u32> {
    let fmt = FloatFormat {
        mantissa_bits: 7,
        exponent_bits: 8,
    };
    if word.contains(['x', 'X']) {
        return hex_float_bits(word, fmt).map(|b| b as u32);
    }
    if !is_decimal_float(word) {
        return None;
    }
    let v = word.parse::<f32>().ok().filter(|v| v.is_finite())?;
    Some(v.to_bits() >> 16)
}

/// A 32-bit float written after an immediate word: spirv-as takes only words with a `.`
/// there (so not `1e3` or `0x1p+128`), then reads them like any 32-bit float literal.
pub(crate) fn context_free_float(word: &str) -> Option<u32> {
    if !word.contains('.') {
        return None;
    }
    encode_float(word, 32).map(|w| w[0])
}

/// Encodes a float literal for a float type of `width` bits; `None` when it is not a valid
/// literal or does not fit.
pub(crate) fn encode_float(word: &str, width: u32) -> Option<Vec<u32>> {
    let fmt = FloatFormat::for_width(width)?;
    let bits = if word.contains("0x") || word.contains("0X") {
        hex_float_bits(word, fmt)?
    } else {
        if !is_decimal_float(word) {
            return None;
        }
        match width {
            16 => f32_to_f16_truncating(word.parse::<f32>().ok().filter(|v| v.is_finite())?)?,
            32 => u64::from(
                word.parse::<f32>()
                    .ok()
                    .filter(|v| v.is_finite())?
                    .to_bits(),
            ),
            _ => word
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())?
                .to_bits(),
        }
    };
    Some(if width == 64 {
        vec![bits as u32, (bits >> 32) as u32]
    } else {
        vec![bits as u32]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(encode_int("-1", 16, true), Ok(vec![0xffff_ffff]));
        assert_eq!(encode_int("0xffff", 16, true), Ok(vec![0xffff_ffff]));
        assert_eq!(encode_int("0x8000", 16, true), Ok(vec![0xffff_8000]));
        assert_eq!(encode_int("32768", 16, true), Err(IntError::OutOfRange));
        assert_eq!(encode_int("-32769", 16, true), Err(IntError::OutOfRange));
        assert_eq!(encode_int("65536", 16, false), Err(IntError::OutOfRange));
        assert_eq!(encode_int("-1", 32, false), Err(IntError::NegativeUnsigned));
        assert_eq!(
            encode_int("4294967295", 32, true),
            Err(IntError::OutOfRange)
        );
        assert_eq!(encode_int("0xffffffff", 32, true), Ok(vec![0xffff_ffff]));
        assert_eq!(encode_int("-2147483648", 32, true), Ok(vec![0x8000_0000]));
        assert_eq!(
            encode_int("-2", 64, true),
            Ok(vec![0xffff_fffe, 0xffff_ffff])
        );
        assert_eq!(
            encode_int("0x123456789", 64, true),
            Ok(vec![0x2345_6789, 1])
        );
        assert_eq!(
            encode_int("18446744073709551615", 64, false),
            Ok(vec![!0, !0])
        );
        assert_eq!(
            encode_int("18446744073709551616", 64, false),
            Err(IntError::OutOfRange)
        );
        assert_eq!(encode_int("010", 32, false), Ok(vec![8]));
        assert_eq!(encode_int("1e3", 32, false), Err(IntError::Syntax));
        assert_eq!(encode_int("5u", 32, false), Err(IntError::Syntax));
    }

    fn f(word: &str, width: u32) -> Option<Vec<u32>> {
        encode_float(word, width)
    }

    #[test]
    fn bfloat16() {
        assert_eq!(encode_bfloat16("1.5"), Some(0x3fc0));
        assert_eq!(encode_bfloat16("0x1.8p+1"), Some(0x4040));
        assert_eq!(encode_bfloat16("1.00390625"), Some(0x3f80));
        assert_eq!(encode_bfloat16("1.01171875"), Some(0x3f81));
        assert_eq!(encode_bfloat16("-2"), Some(0xc000));
        assert_eq!(encode_bfloat16("1e39"), None);
    }

    #[test]
    fn context_free_floats() {
        assert_eq!(context_free_float("1.5"), Some(0x3fc0_0000));
        assert_eq!(context_free_float("-0x1.8p-149"), Some(0x8000_0001));
        assert_eq!(context_free_float("0x1.p+128"), Some(0x7f80_0000));
        assert_eq!(context_free_float("0x1.8P+1"), None);
        assert_eq!(context_free_float("1e3"), None);
        assert_eq!(context_free_float("0x1p+128"), None);
        assert_eq!(context_free_float("3.5e38"), None);
        assert_eq!(context_free_float("1.5e-50"), Some(0));
    }

    #[test]
    fn floats_match_spirv_as() {
        assert_eq!(f("1.5", 32), Some(vec![0x3fc0_0000]));
        assert_eq!(f("-0x1.8p+1", 32), Some(vec![0xc040_0000]));
        assert_eq!(f("0x1p+128", 32), Some(vec![0x7f80_0000]));
        assert_eq!(f("-0x1.8p+128", 32), Some(vec![0xffc0_0000]));
        assert_eq!(f("0x1.000002p+128", 32), Some(vec![0x7f80_0001]));
        assert_eq!(f("0x1.8p+129", 32), Some(vec![0x7f80_0000]));
        assert_eq!(f("0x1.8p-140", 32), Some(vec![0x300]));
        assert_eq!(f("0x1p-149", 32), Some(vec![1]));
        assert_eq!(f("0x1p-150", 32), Some(vec![0]));
        assert_eq!(f("0x1.ffffffp+0", 32), Some(vec![0x3fff_ffff]));
        assert_eq!(f("0x.8p1", 32), Some(vec![0x3f80_0000]));
        assert_eq!(f("0x1.p1", 32), Some(vec![0x4000_0000]));
        assert_eq!(f("0x10p0", 32), Some(vec![0x4180_0000]));
        assert_eq!(f("0x1P+1", 32), None);
        assert_eq!(f("0x1p", 32), None);
        assert_eq!(f("0x7f800000", 32), None);
        assert_eq!(f("1e40", 32), None);
        assert_eq!(f("1e-50", 32), Some(vec![0]));
        assert_eq!(f("inf", 32), None);
        assert_eq!(f("16777217", 32), Some(vec![0x4b80_0000]));
        assert_eq!(f("-.5e-1", 32), Some(vec![0xbd4c_cccd]));
        assert_eq!(f("1.5", 16), Some(vec![0x3e00]));
        assert_eq!(f("65520", 16), Some(vec![0x7bff]));
        assert_eq!(f("70000", 16), None);
        assert_eq!(f("0x1p+16", 16), Some(vec![0x7c00]));
        assert_eq!(f("0x1.554p-2", 16), Some(vec![0x3555]));
        assert_eq!(f("0x1p-24", 16), Some(vec![0x0001]));
        assert_eq!(f("0.1", 64), Some(vec![0x9999_999a, 0x3fb9_9999]));
        assert_eq!(f("0x1.8p+1024", 64), Some(vec![0, 0x7ff8_0000]));
        assert_eq!(f("0x1.0000000000001p+0", 64), Some(vec![1, 0x3ff0_0000]));
    }
}
