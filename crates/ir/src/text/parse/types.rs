//! Type references (`u32`, `ptr<SC, T>`, `tN`), type declarations and scalar literals.

use spirv::StorageClass;

use super::{entity_index, enum_named, err, item_string, item_u32, parse_uint, PResult, Parser};
use crate::entity::EntityRef;
use crate::text::lexer::Tok;
use crate::types::{MatrixLayout, Member, MemberFlag, Type, TypeData, TypeTable};

impl Parser {
    pub(super) fn type_ref(&mut self) -> PResult<Type> {
        let (name, pos) = self.ident("a type")?;
        if let Some(n) = entity_index(&name, Type::PREFIX) {
            let ty = Type::from_u32(n);
            if !self.module.types.contains(ty) {
                return err(pos, format!("type {ty} is not defined"));
            }
            return Ok(ty);
        }
        if name == "ptr" {
            self.expect_punct('<')?;
            let (sc, scpos) = self.ident("a storage class")?;
            let storage = enum_named::<StorageClass>(&sc, scpos, "storage class")?;
            self.expect_punct(',')?;
            let pointee = self.type_ref()?;
            self.expect_punct('>')?;
            return Ok(self
                .module
                .types
                .intern(TypeData::Pointer { storage, pointee }));
        }
        match scalar_or_vector(&mut self.module.types, &name) {
            Some(ty) => Ok(ty),
            None => err(pos, format!("unknown type `{name}`")),
        }
    }

    pub(super) fn type_decl(&mut self) -> PResult<()> {
        let (n, _) =
            self.declared_in_order(Type::PREFIX, "a type name", self.module.types.len())?;
        self.expect_punct('=')?;
        let def_pos = self.pos();
        let data = match self.peek().tok.clone() {
            Tok::Ident(w) if w == "array" || w == "rtarray" => {
                self.bump();
                self.expect_punct('<')?;
                let elem = self.type_ref()?;
                let len = if w == "array" {
                    self.expect_punct(',')?;
                    Some(self.u32_lit()?)
                } else {
                    None
                };
                self.expect_punct('>')?;
                let mut stride = None;
                for item in self.items()? {
                    match item.word() {
                        Some("stride") => stride = Some(item_u32(&item, 1)?),
                        _ => return err(item.pos, "expected `stride N`"),
                    }
                }
                match len {
                    Some(len) => TypeData::Array { elem, len, stride },
                    None => TypeData::RuntimeArray { elem, stride },
                }
            }
            Tok::Ident(w) if w == "matrix" || w == "strided" => {
                self.bump();
                self.expect_punct('<')?;
                let inner = self.type_ref()?;
                let count = if w == "matrix" {
                    self.expect_punct(',')?;
                    Some(self.u32_lit()?)
                } else {
                    None
                };
                self.expect_punct('>')?;
                let (mut stride, mut major) = (None, None);
                for item in self.items()? {
                    match item.word() {
                        Some("stride") => stride = Some(item_u32(&item, 1)?),
                        Some("row_major") if count.is_some() => major = Some(true),
                        Some("col_major") if count.is_some() => major = Some(false),
                        _ => {
                            return err(item.pos, "expected `stride N`, `row_major` or `col_major`")
                        }
                    }
                }
                match (count, stride, major) {
                    (Some(n), stride, major) => {
                        let count = u8::try_from(n).ok().filter(|c| (2..=4).contains(c));
                        let Some(count) = count else {
                            return err(def_pos, format!("a matrix has 2 to 4 columns, not {n}"));
                        };
                        let layout = match (stride, major) {
                            (None, None) => None,
                            (Some(stride), Some(row_major)) => {
                                Some(MatrixLayout { stride, row_major })
                            }
                            _ => {
                                return err(
                                    def_pos,
                                    "a matrix layout needs both `stride N` and its majorness",
                                )
                            }
                        };
                        TypeData::Matrix {
                            column: inner,
                            count,
                            layout,
                        }
                    }
                    (None, Some(stride), _) => TypeData::StridedVector {
                        vector: inner,
                        stride,
                    },
                    (None, None, _) => return err(def_pos, "a strided vector needs `stride N`"),
                }
            }
            Tok::Ident(w) if w == "struct" => {
                self.bump();
                let name = match self.peek().tok {
                    Tok::Str(_) => Some(self.string()?),
                    _ => None,
                };
                self.expect_punct('{')?;
                let mut members = Vec::new();
                if !self.eat_punct('}') {
                    loop {
                        let ty = self.type_ref()?;
                        let mut m = Member {
                            ty,
                            offset: None,
                            flags: Vec::new(),
                            name: None,
                        };
                        for item in self.items()? {
                            match item.word() {
                                Some("offset") => m.offset = Some(item_u32(&item, 1)?),
                                Some("name") => m.name = Some(item_string(&item)?),
                                Some(w) => match MemberFlag::from_name(w) {
                                    Some(f) => m.flags.push(f),
                                    None => {
                                        return err(
                                            item.pos,
                                            format!("unknown member attribute `{w}`"),
                                        )
                                    }
                                },
                                None => return err(item.pos, "expected a member attribute"),
                            }
                        }
                        members.push(m);
                        if self.eat_punct('}') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                let (mut block, mut buffer_block) = (false, false);
                for item in self.items()? {
                    match item.word() {
                        Some("block") => block = true,
                        Some("buffer_block") => buffer_block = true,
                        _ => return err(item.pos, "expected `block` or `buffer_block`"),
                    }
                }
                TypeData::Struct {
                    members,
                    block,
                    buffer_block,
                    name,
                }
            }
            Tok::Ident(w) if w == "fn" => {
                self.bump();
                let params = self.parenthesized(Self::type_ref)?;
                self.expect_arrow()?;
                let ret = self.type_ref()?;
                TypeData::Function { ret, params }
            }
            _ => {
                let before = self.module.types.len();
                let ty = self.type_ref()?;
                if ty.index() != before {
                    return err(def_pos, format!("type t{n} repeats {ty}"));
                }
                return Ok(());
            }
        };
        if let Some(existing) = self.module.types.find(&data) {
            return err(def_pos, format!("type t{n} repeats {existing}"));
        }
        self.module.types.intern(data);
        Ok(())
    }
}

/// A scalar (`u32`, `f16`, `bool`, ...) or vector (`u32x4`) type by name.
pub(super) fn scalar_or_vector(types: &mut TypeTable, name: &str) -> Option<Type> {
    let (scalar, count) = match name.rsplit_once('x') {
        Some((s, n)) if !s.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && !n.is_empty() => {
            (s, Some(n.parse::<u8>().ok()?))
        }
        _ => (name, None),
    };
    let data = match scalar {
        "void" if count.is_none() => TypeData::Void,
        "token" if count.is_none() => TypeData::Token,
        "barrier" if count.is_none() => TypeData::Barrier,
        "bool" => TypeData::Bool,
        _ => {
            let (kind, width) = scalar.split_at(1);
            let width: u8 = width.parse().ok()?;
            match kind {
                "i" | "u" if matches!(width, 8 | 16 | 32 | 64) => TypeData::Int {
                    width,
                    signed: kind == "i",
                },
                "f" if matches!(width, 16 | 32 | 64) => TypeData::Float { width },
                _ => return None,
            }
        }
    };
    let elem = types.intern(data);
    match count {
        None => Some(elem),
        Some(count) if (2..=16).contains(&count) => {
            Some(types.intern(TypeData::Vector { elem, count }))
        }
        Some(_) => None,
    }
}

/// Parses a scalar literal of type `ty` into its zero-extended bit pattern.
pub(crate) fn parse_scalar(types: &TypeTable, ty: Type, text: &str) -> Result<u64, String> {
    let scalar = types.scalar_of(ty);
    match types.get(scalar) {
        TypeData::Int { width, signed } => {
            let w = u32::from(*width);
            let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            let (neg, digits) = match text.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, text),
            };
            let magnitude = parse_uint(digits).ok_or_else(|| format!("bad integer `{text}`"))?;
            if neg {
                let limit = 1u128 << (w - 1);
                if !*signed || u128::from(magnitude) > limit {
                    return Err(format!(
                        "`{text}` does not fit in {}",
                        type_name(types, scalar)
                    ));
                }
                Ok((magnitude as i64).wrapping_neg() as u64 & mask)
            } else {
                let fits = if *signed && !digits.starts_with("0x") {
                    u128::from(magnitude) < (1u128 << (w - 1))
                } else {
                    magnitude & !mask == 0
                };
                if !fits {
                    return Err(format!(
                        "`{text}` does not fit in {}",
                        type_name(types, scalar)
                    ));
                }
                Ok(magnitude)
            }
        }
        TypeData::Float { width } => {
            if let Some(hex) = text.strip_prefix("0x") {
                let bits =
                    u64::from_str_radix(hex, 16).map_err(|_| format!("bad float bits `{text}`"))?;
                if *width < 64 && bits >> width != 0 {
                    return Err(format!("`{text}` has more than {width} bits"));
                }
                return Ok(bits);
            }
            match width {
                32 => text
                    .parse::<f32>()
                    .map(|f| u64::from(f.to_bits()))
                    .map_err(|_| format!("bad float `{text}`")),
                64 => text
                    .parse::<f64>()
                    .map(f64::to_bits)
                    .map_err(|_| format!("bad float `{text}`")),
                _ => Err(format!(
                    "f{width} literals are written as raw bits (`0x...`)"
                )),
            }
        }
        _ => Err(format!("{} has no numeric literals", type_name(types, ty))),
    }
}

pub(super) fn type_name(types: &TypeTable, ty: Type) -> String {
    crate::text::print::type_ref(types, ty)
}
