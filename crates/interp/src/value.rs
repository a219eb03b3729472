//! Values, memory layout, and the per-invocation operations (plain ops, GLSL.std.450).
//!
//! Written independently of any other simulator in the workspace, so that each can catch the
//! other's mistakes.

use tangle_ir::glsl::GlslOp;
use tangle_ir::{PlainOp, Type, TypeData, TypeTable};

/// A value held by one invocation.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// A boolean.
    Bool(bool),
    /// An integer or float scalar: its bit pattern, zero-extended to 64 bits.
    Bits(u64),
    /// A vector, array or struct.
    Comp(Vec<Val>),
    /// A pointer: a memory region and a byte offset into it.
    Ptr {
        /// The region.
        mem: u32,
        /// The byte offset.
        off: u64,
    },
}

impl Val {
    /// The bit pattern of a scalar (booleans as 0/1).
    pub fn bits(&self) -> u64 {
        match self {
            Val::Bits(b) => *b,
            Val::Bool(b) => u64::from(*b),
            _ => 0,
        }
    }

    /// The truth of a boolean.
    pub fn truth(&self) -> bool {
        match self {
            Val::Bool(b) => *b,
            Val::Bits(b) => *b != 0,
            _ => false,
        }
    }
}

/// A failure of a per-invocation operation: an unsupported case or undefined behaviour.
#[derive(Clone, Debug)]
pub enum OpFail {
    /// Not implemented by the interpreter.
    Unsupported(String),
    /// The operation's result is undefined by the specification.
    Undefined(String),
}

pub(crate) type OpResult = Result<Val, OpFail>;

fn unsupported<T>(what: impl Into<String>) -> Result<T, OpFail> {
    Err(OpFail::Unsupported(what.into()))
}

/// All-ones mask of `w` bits.
pub fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// Sign-extends the low `w` bits.
pub fn sext(b: u64, w: u32) -> i64 {
    if w >= 64 {
        b as i64
    } else {
        let s = 64 - w;
        ((b << s) as i64) >> s
    }
}

/// The scalar kind of a type, for arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// `bool`.
    Bool,
    /// An integer of this width.
    Int(u32),
    /// A float of this width.
    Float(u32),
}

/// The scalar kind of `ty` (of its components for a vector).
pub fn scalar(types: &TypeTable, ty: Type) -> Option<Scalar> {
    match types.get(types.scalar_of(ty)) {
        TypeData::Bool => Some(Scalar::Bool),
        TypeData::Int { width, .. } => Some(Scalar::Int(u32::from(*width))),
        TypeData::Float { width } => Some(Scalar::Float(u32::from(*width))),
        _ => None,
    }
}

/// A float scalar as f64 (exact for f32 and f64).
pub fn to_f(b: u64, w: u32) -> Result<f64, OpFail> {
    match w {
        32 => Ok(f64::from(f32::from_bits(b as u32))),
        64 => Ok(f64::from_bits(b)),
        _ => unsupported(format!("f{w} arithmetic")),
    }
}

/// An f64 rounded to a float of width `w` (round to nearest even).
pub fn from_f(x: f64, w: u32) -> Result<u64, OpFail> {
    match w {
        32 => Ok(u64::from((x as f32).to_bits())),
        64 => Ok(x.to_bits()),
        _ => unsupported(format!("f{w} arithmetic")),
    }
}

/// Applies `f` to every component (scalars are one component).
fn lift(vals: &[&Val], f: &mut dyn FnMut(&[&Val]) -> OpResult) -> OpResult {
    if let Some(Val::Comp(first)) = vals.first() {
        let n = first.len();
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let comps: Vec<&Val> = vals
                .iter()
                .map(|v| match v {
                    Val::Comp(c) => &c[i],
                    other => *other,
                })
                .collect();
            out.push(f(&comps)?);
        }
        Ok(Val::Comp(out))
    } else {
        f(vals)
    }
}

/// Binary float arithmetic in width `w`: computed in f64 and rounded once, which is exact
/// IEEE f32 arithmetic for + - * / (double rounding is innocuous for these, since f64 has
/// more than 2·24+2 bits of significand).
fn fbin(a: u64, b: u64, w: u32, f: impl Fn(f64, f64) -> f64) -> Result<u64, OpFail> {
    from_f(f(to_f(a, w)?, to_f(b, w)?), w)
}

/// Evaluates a plain operation for one invocation.
///
/// `rty` is the result type, `atys` the operand types.
pub fn plain(types: &TypeTable, op: PlainOp, rty: Type, atys: &[Type], args: &[Val]) -> OpResult {
    use PlainOp as P;
    let rs = scalar(types, rty);
    let a0s = atys.first().and_then(|t| scalar(types, *t));
    let refs: Vec<&Val> = args.iter().collect();
    let iw = |s: Option<Scalar>| match s {
        Some(Scalar::Int(w)) | Some(Scalar::Float(w)) => w,
        _ => 32,
    };
    let rw = iw(rs);
    let aw = iw(a0s);
    let m = mask(rw);
    match op {
        P::CopyObject => Ok(args[0].clone()),
        P::Undef => Ok(zero(types, rty)),
        P::IAdd => lift(&refs, &mut |v| {
            Ok(Val::Bits(v[0].bits().wrapping_add(v[1].bits()) & m))
        }),
        P::ISub => lift(&refs, &mut |v| {
            Ok(Val::Bits(v[0].bits().wrapping_sub(v[1].bits()) & m))
        }),
        P::IMul => lift(&refs, &mut |v| {
            Ok(Val::Bits(v[0].bits().wrapping_mul(v[1].bits()) & m))
        }),
        P::SNegate => lift(&refs, &mut |v| {
            Ok(Val::Bits(v[0].bits().wrapping_neg() & m))
        }),
        P::UDiv | P::UMod => lift(&refs, &mut |v| {
            let (a, b) = (v[0].bits(), v[1].bits());
            if b == 0 {
                return Err(OpFail::Undefined("integer division by zero".into()));
            }
            Ok(Val::Bits(if op == P::UDiv { a / b } else { a % b }))
        }),
        P::SDiv | P::SRem | P::SMod => lift(&refs, &mut |v| {
            let (a, b) = (sext(v[0].bits(), rw), sext(v[1].bits(), rw));
            if b == 0 {
                return Err(OpFail::Undefined("integer division by zero".into()));
            }
            if b == -1 && a == sext(1u64 << (rw - 1), rw) {
                return Err(OpFail::Undefined("signed division overflow".into()));
            }
            let r = match op {
                P::SDiv => a / b,
                P::SRem => a % b,
                _ => {
                    let r = a % b;
                    if r != 0 && ((r < 0) != (b < 0)) {
                        r + b
                    } else {
                        r
                    }
                }
            };
            Ok(Val::Bits(r as u64 & m))
        }),
        P::FAdd => lift(&refs, &mut |v| {
            Ok(Val::Bits(fbin(v[0].bits(), v[1].bits(), rw, |a, b| a + b)?))
        }),
        P::FSub => lift(&refs, &mut |v| {
            Ok(Val::Bits(fbin(v[0].bits(), v[1].bits(), rw, |a, b| a - b)?))
        }),
        P::FMul => lift(&refs, &mut |v| {
            Ok(Val::Bits(fbin(v[0].bits(), v[1].bits(), rw, |a, b| a * b)?))
        }),
        P::FDiv => lift(&refs, &mut |v| {
            Ok(Val::Bits(fbin(v[0].bits(), v[1].bits(), rw, |a, b| a / b)?))
        }),
        P::FRem => lift(&refs, &mut |v| {
            Ok(Val::Bits(fbin(v[0].bits(), v[1].bits(), rw, |a, b| a % b)?))
        }),
        P::FMod => lift(&refs, &mut |v| {
            Ok(Val::Bits(fbin(v[0].bits(), v[1].bits(), rw, |a, b| {
                let r = a % b;
                if r != 0.0 && ((r < 0.0) != (b < 0.0)) {
                    r + b
                } else {
                    r
                }
            })?))
        }),
        P::FNegate => lift(&refs, &mut |v| {
            Ok(Val::Bits(v[0].bits() ^ (1u64 << (rw - 1))))
        }),
        P::VectorTimesScalar => {
            let s = args[1].bits();
            lift(&[&args[0]], &mut |v| {
                Ok(Val::Bits(fbin(v[0].bits(), s, rw, |a, b| a * b)?))
            })
        }
        P::ShiftLeftLogical | P::ShiftRightLogical | P::ShiftRightArithmetic => {
            lift(&refs, &mut |v| {
                let sh = v[1].bits();
                if sh >= u64::from(rw) {
                    return Err(OpFail::Undefined("shift by at least the bit width".into()));
                }
                let a = v[0].bits();
                Ok(Val::Bits(
                    match op {
                        P::ShiftLeftLogical => a << sh,
                        P::ShiftRightLogical => a >> sh,
                        _ => (sext(a, rw) >> sh) as u64,
                    } & m,
                ))
            })
        }
        P::BitwiseAnd => lift(&refs, &mut |v| Ok(Val::Bits(v[0].bits() & v[1].bits()))),
        P::BitwiseOr => lift(&refs, &mut |v| Ok(Val::Bits(v[0].bits() | v[1].bits()))),
        P::BitwiseXor => lift(&refs, &mut |v| Ok(Val::Bits(v[0].bits() ^ v[1].bits()))),
        P::Not => lift(&refs, &mut |v| Ok(Val::Bits(!v[0].bits() & m))),
        P::BitCount => lift(&refs, &mut |v| {
            Ok(Val::Bits(u64::from((v[0].bits() & mask(aw)).count_ones())))
        }),
        P::BitReverse => lift(&refs, &mut |v| {
            Ok(Val::Bits(v[0].bits().reverse_bits() >> (64 - rw)))
        }),
        P::BitFieldUExtract | P::BitFieldSExtract => lift(&refs, &mut |v| {
            let (base, off, cnt) = (v[0].bits(), v[1].bits(), v[2].bits());
            if off + cnt > u64::from(rw) {
                return Err(OpFail::Undefined("bit field outside the operand".into()));
            }
            if cnt == 0 {
                return Ok(Val::Bits(0));
            }
            let f = (base >> off) & mask(cnt as u32);
            Ok(Val::Bits(if op == P::BitFieldSExtract {
                sext(f, cnt as u32) as u64 & m
            } else {
                f
            }))
        }),
        P::BitFieldInsert => lift(&refs, &mut |v| {
            let (base, ins, off, cnt) = (v[0].bits(), v[1].bits(), v[2].bits(), v[3].bits());
            if off + cnt > u64::from(rw) {
                return Err(OpFail::Undefined("bit field outside the operand".into()));
            }
            let fm = mask(cnt as u32) << off;
            Ok(Val::Bits(((base & !fm) | ((ins << off) & fm)) & m))
        }),
        P::LogicalAnd => lift(&refs, &mut |v| Ok(Val::Bool(v[0].truth() && v[1].truth()))),
        P::LogicalOr => lift(&refs, &mut |v| Ok(Val::Bool(v[0].truth() || v[1].truth()))),
        P::LogicalEqual => lift(&refs, &mut |v| Ok(Val::Bool(v[0].truth() == v[1].truth()))),
        P::LogicalNotEqual => lift(&refs, &mut |v| Ok(Val::Bool(v[0].truth() != v[1].truth()))),
        P::LogicalNot => lift(&refs, &mut |v| Ok(Val::Bool(!v[0].truth()))),
        P::Any | P::All => {
            let comps = match &args[0] {
                Val::Comp(c) => c.clone(),
                v => vec![v.clone()],
            };
            Ok(Val::Bool(if op == P::Any {
                comps.iter().any(Val::truth)
            } else {
                comps.iter().all(Val::truth)
            }))
        }
        P::Select => {
            if let (Val::Comp(c), Val::Comp(_), Val::Comp(_)) = (&args[0], &args[1], &args[2]) {
                let _ = c;
                lift(&refs, &mut |v| {
                    Ok(if v[0].truth() {
                        v[1].clone()
                    } else {
                        v[2].clone()
                    })
                })
            } else if args[0].truth() {
                Ok(args[1].clone())
            } else {
                Ok(args[2].clone())
            }
        }
        P::IEqual
        | P::INotEqual
        | P::UGreaterThan
        | P::UGreaterThanEqual
        | P::ULessThan
        | P::ULessThanEqual
        | P::SGreaterThan
        | P::SGreaterThanEqual
        | P::SLessThan
        | P::SLessThanEqual => lift(&refs, &mut |v| {
            let (a, b) = (v[0].bits(), v[1].bits());
            let (sa, sb) = (sext(a, aw), sext(b, aw));
            Ok(Val::Bool(match op {
                P::IEqual => a == b,
                P::INotEqual => a != b,
                P::UGreaterThan => a > b,
                P::UGreaterThanEqual => a >= b,
                P::ULessThan => a < b,
                P::ULessThanEqual => a <= b,
                P::SGreaterThan => sa > sb,
                P::SGreaterThanEqual => sa >= sb,
                P::SLessThan => sa < sb,
                _ => sa <= sb,
            }))
        }),
        P::FOrdEqual
        | P::FUnordEqual
        | P::FOrdNotEqual
        | P::FUnordNotEqual
        | P::FOrdLessThan
        | P::FUnordLessThan
        | P::FOrdGreaterThan
        | P::FUnordGreaterThan
        | P::FOrdLessThanEqual
        | P::FUnordLessThanEqual
        | P::FOrdGreaterThanEqual
        | P::FUnordGreaterThanEqual => lift(&refs, &mut |v| {
            let (a, b) = (to_f(v[0].bits(), aw)?, to_f(v[1].bits(), aw)?);
            let unord = a.is_nan() || b.is_nan();
            let ordered = matches!(
                op,
                P::FOrdEqual
                    | P::FOrdNotEqual
                    | P::FOrdLessThan
                    | P::FOrdGreaterThan
                    | P::FOrdLessThanEqual
                    | P::FOrdGreaterThanEqual
            );
            if unord {
                return Ok(Val::Bool(!ordered));
            }
            Ok(Val::Bool(match op {
                P::FOrdEqual | P::FUnordEqual => a == b,
                P::FOrdNotEqual | P::FUnordNotEqual => a != b,
                P::FOrdLessThan | P::FUnordLessThan => a < b,
                P::FOrdGreaterThan | P::FUnordGreaterThan => a > b,
                P::FOrdLessThanEqual | P::FUnordLessThanEqual => a <= b,
                _ => a >= b,
            }))
        }),
        P::IsNan => lift(&refs, &mut |v| {
            Ok(Val::Bool(to_f(v[0].bits(), aw)?.is_nan()))
        }),
        P::IsInf => lift(&refs, &mut |v| {
            Ok(Val::Bool(to_f(v[0].bits(), aw)?.is_infinite()))
        }),
        P::UConvert => lift(&refs, &mut |v| Ok(Val::Bits(v[0].bits() & m))),
        P::SConvert => lift(&refs, &mut |v| {
            Ok(Val::Bits(sext(v[0].bits(), aw) as u64 & m))
        }),
        P::FConvert => lift(&refs, &mut |v| {
            Ok(Val::Bits(from_f(to_f(v[0].bits(), aw)?, rw)?))
        }),
        P::ConvertSToF => lift(&refs, &mut |v| {
            Ok(Val::Bits(from_f(sext(v[0].bits(), aw) as f64, rw)?))
        }),
        P::ConvertUToF => lift(&refs, &mut |v| {
            Ok(Val::Bits(from_f(v[0].bits() as f64, rw)?))
        }),
        P::ConvertFToS => lift(&refs, &mut |v| {
            let x = to_f(v[0].bits(), aw)?.trunc();
            let (lo, hi) = (-(2f64.powi(rw as i32 - 1)), 2f64.powi(rw as i32 - 1));
            if x.is_nan() || x < lo || x >= hi {
                return Err(OpFail::Undefined(
                    "float to signed conversion out of range".into(),
                ));
            }
            Ok(Val::Bits(x as i64 as u64 & m))
        }),
        P::ConvertFToU => lift(&refs, &mut |v| {
            let x = to_f(v[0].bits(), aw)?.trunc();
            if x.is_nan() || x < 0.0 || x >= 2f64.powi(rw as i32) {
                return Err(OpFail::Undefined(
                    "float to unsigned conversion out of range".into(),
                ));
            }
            Ok(Val::Bits(x as u64 & m))
        }),
        P::Bitcast => {
            if matches!(args[0], Val::Comp(_)) != matches!(types.get(rty), TypeData::Vector { .. })
            {
                return unsupported("bitcast between a vector and a scalar");
            }
            Ok(args[0].clone())
        }
        P::Dot => {
            let (Val::Comp(a), Val::Comp(b)) = (&args[0], &args[1]) else {
                return unsupported("dot of non-vectors");
            };
            // Accumulated in order, each step rounded to the result width.
            let mut acc = from_f(0.0, rw)?;
            for (x, y) in a.iter().zip(b) {
                let p = fbin(x.bits(), y.bits(), rw, |a, b| a * b)?;
                acc = fbin(acc, p, rw, |a, b| a + b)?;
            }
            Ok(Val::Bits(acc))
        }
        P::CompositeConstruct => {
            if let TypeData::Vector { .. } = types.get(rty) {
                let mut out = Vec::new();
                for a in args {
                    match a {
                        Val::Comp(c) => out.extend(c.iter().cloned()),
                        v => out.push(v.clone()),
                    }
                }
                Ok(Val::Comp(out))
            } else {
                Ok(Val::Comp(args.to_vec()))
            }
        }
        P::VectorExtractDynamic => {
            let Val::Comp(c) = &args[0] else {
                return unsupported("extract from a non-vector");
            };
            c.get(args[1].bits() as usize)
                .cloned()
                .ok_or_else(|| OpFail::Undefined("vector index out of range".into()))
        }
        P::VectorInsertDynamic => {
            let Val::Comp(mut c) = args[0].clone() else {
                return unsupported("insert into a non-vector");
            };
            let i = args[2].bits() as usize;
            if i >= c.len() {
                return Err(OpFail::Undefined("vector index out of range".into()));
            }
            c[i] = args[1].clone();
            Ok(Val::Comp(c))
        }
        P::IAddCarry | P::ISubBorrow | P::UMulExtended | P::SMulExtended => lift(&refs, &mut |v| {
            let (a, b) = (v[0].bits(), v[1].bits());
            let w = aw;
            let (lo, hi) = match op {
                P::IAddCarry => {
                    let s = u128::from(a) + u128::from(b);
                    (s as u64 & mask(w), u64::from((s >> w) != 0))
                }
                P::ISubBorrow => (a.wrapping_sub(b) & mask(w), u64::from(b > a)),
                P::UMulExtended => {
                    let p = u128::from(a) * u128::from(b);
                    (p as u64 & mask(w), (p >> w) as u64 & mask(w))
                }
                _ => {
                    let p = i128::from(sext(a, w)) * i128::from(sext(b, w));
                    (p as u64 & mask(w), (p >> w) as u64 & mask(w))
                }
            };
            Ok(Val::Comp(vec![Val::Bits(lo), Val::Bits(hi)]))
        })
        .map(|v| {
            if matches!(args[0], Val::Comp(_)) {
                transpose_pair(v)
            } else {
                v
            }
        }),
        P::AccessChain => unsupported("access_chain outside the memory model"),
        #[allow(unreachable_patterns)]
        other => unsupported(format!("plain op {}", other.name())),
    }
}

/// Turns a vector of (lo, hi) pairs into a pair of vectors (extended-arithmetic results are
/// structs of two scalars or two vectors).
fn transpose_pair(v: Val) -> Val {
    let Val::Comp(items) = v else { return v };
    let mut lo = Vec::new();
    let mut hi = Vec::new();
    for i in items {
        if let Val::Comp(p) = i {
            lo.push(p[0].clone());
            hi.push(p[1].clone());
        }
    }
    Val::Comp(vec![Val::Comp(lo), Val::Comp(hi)])
}

/// The all-zero value of `ty` (also what `undef` reads as: a documented choice).
pub fn zero(types: &TypeTable, ty: Type) -> Val {
    match types.get(ty) {
        TypeData::Bool => Val::Bool(false),
        TypeData::Int { .. } | TypeData::Float { .. } => Val::Bits(0),
        TypeData::Vector { elem, count } => {
            Val::Comp(vec![zero(types, *elem); usize::from(*count)])
        }
        TypeData::Array { elem, len, .. } => Val::Comp(vec![zero(types, *elem); *len as usize]),
        TypeData::Struct { members, .. } => {
            Val::Comp(members.iter().map(|m| zero(types, m.ty)).collect())
        }
        TypeData::Pointer { .. } => Val::Ptr {
            mem: u32::MAX,
            off: 0,
        },
        _ => Val::Comp(Vec::new()),
    }
}

/// Size and alignment of `ty` in memory. Explicit layout (offsets, strides) wins; types
/// without it (workgroup, private and function variables) get a natural packed layout:
/// scalars by width (`bool` as 4 bytes), vectors packed, arrays at their element size
/// rounded to its alignment, struct members in order at their alignment.
pub fn size_align(types: &TypeTable, ty: Type) -> (u64, u64) {
    match types.get(ty) {
        TypeData::Bool => (4, 4),
        TypeData::Int { width, .. } | TypeData::Float { width } => {
            let b = u64::from(*width) / 8;
            (b, b)
        }
        TypeData::Vector { elem, count } => {
            let (s, a) = size_align(types, *elem);
            (s * u64::from(*count), a)
        }
        TypeData::Array { elem, len, .. } => {
            let (_, a) = size_align(types, *elem);
            (array_stride(types, ty) * u64::from(*len), a)
        }
        TypeData::RuntimeArray { elem, .. } => (0, size_align(types, *elem).1),
        TypeData::Struct { members, .. } => {
            let mut end = 0;
            let mut al = 1;
            for (i, m) in members.iter().enumerate() {
                let (s, a) = size_align(types, m.ty);
                al = al.max(a);
                end = end.max(member_offset(types, ty, i) + s);
            }
            (end.div_ceil(al) * al, al)
        }
        TypeData::Pointer { .. } => (16, 8),
        _ => (0, 1),
    }
}

/// The byte stride of an array type.
pub fn array_stride(types: &TypeTable, ty: Type) -> u64 {
    match types.get(ty) {
        TypeData::Array { elem, stride, .. } | TypeData::RuntimeArray { elem, stride } => {
            match stride {
                Some(s) => u64::from(*s),
                None => {
                    let (s, a) = size_align(types, *elem);
                    s.div_ceil(a) * a
                }
            }
        }
        TypeData::Vector { elem, .. } => size_align(types, *elem).0,
        _ => 0,
    }
}

/// The byte offset of member `i` of a struct type.
pub fn member_offset(types: &TypeTable, ty: Type, i: usize) -> u64 {
    let TypeData::Struct { members, .. } = types.get(ty) else {
        return 0;
    };
    if let Some(o) = members[i].offset {
        return u64::from(o);
    }
    let mut off: u64 = 0;
    for (j, m) in members.iter().enumerate() {
        let (s, a) = size_align(types, m.ty);
        off = off.div_ceil(a) * a;
        if j == i {
            return off;
        }
        off += s;
    }
    off
}

/// Reads a value of type `ty` at `off`; `None` when it does not fit in `mem`.
pub fn read(types: &TypeTable, mem: &[u8], off: u64, ty: Type) -> Option<Val> {
    Some(match types.get(ty) {
        TypeData::Bool => Val::Bool(read_bits(mem, off, 4)? != 0),
        TypeData::Int { width, .. } | TypeData::Float { width } => {
            Val::Bits(read_bits(mem, off, u64::from(*width) / 8)?)
        }
        TypeData::Vector { elem, count } => {
            let st = array_stride(types, ty);
            let mut v = Vec::new();
            for i in 0..u64::from(*count) {
                v.push(read(types, mem, off + i * st, *elem)?);
            }
            Val::Comp(v)
        }
        TypeData::Array { elem, len, .. } => {
            let st = array_stride(types, ty);
            let mut v = Vec::new();
            for i in 0..u64::from(*len) {
                v.push(read(types, mem, off + i * st, *elem)?);
            }
            Val::Comp(v)
        }
        TypeData::Struct { members, .. } => {
            let mut v = Vec::new();
            for (i, m) in members.iter().enumerate() {
                v.push(read(types, mem, off + member_offset(types, ty, i), m.ty)?);
            }
            Val::Comp(v)
        }
        TypeData::Pointer { .. } => {
            let mem_id = read_bits(mem, off, 8)?;
            Val::Ptr {
                mem: mem_id as u32,
                off: read_bits(mem, off + 8, 8)?,
            }
        }
        _ => return None,
    })
}

fn read_bits(mem: &[u8], off: u64, n: u64) -> Option<u64> {
    let end = off.checked_add(n)?;
    let bytes = mem.get(off as usize..end as usize)?;
    let mut b = [0u8; 8];
    b[..n as usize].copy_from_slice(bytes);
    Some(u64::from_le_bytes(b))
}

fn write_bits(mem: &mut [u8], off: u64, n: u64, v: u64) -> Option<()> {
    let end = off.checked_add(n)?;
    let dst = mem.get_mut(off as usize..end as usize)?;
    dst.copy_from_slice(&v.to_le_bytes()[..n as usize]);
    Some(())
}

/// Writes `val` of type `ty` at `off`; `None` when it does not fit.
pub fn write(types: &TypeTable, mem: &mut [u8], off: u64, ty: Type, val: &Val) -> Option<()> {
    match (types.get(ty), val) {
        (TypeData::Bool, v) => write_bits(mem, off, 4, u64::from(v.truth())),
        (TypeData::Int { width, .. } | TypeData::Float { width }, v) => {
            write_bits(mem, off, u64::from(*width) / 8, v.bits())
        }
        (TypeData::Vector { elem, .. } | TypeData::Array { elem, .. }, Val::Comp(c)) => {
            let st = array_stride(types, ty);
            for (i, v) in c.iter().enumerate() {
                write(types, mem, off + i as u64 * st, *elem, v)?;
            }
            Some(())
        }
        (TypeData::Struct { members, .. }, Val::Comp(c)) => {
            for (i, (m, v)) in members.iter().zip(c).enumerate() {
                write(types, mem, off + member_offset(types, ty, i), m.ty, v)?;
            }
            Some(())
        }
        (TypeData::Pointer { .. }, Val::Ptr { mem: id, off: o }) => {
            write_bits(mem, off, 8, u64::from(*id))?;
            write_bits(mem, off + 8, 8, *o)
        }
        _ => None,
    }
}

/// Evaluates a GLSL.std.450 instruction for one invocation. Transcendental functions use
/// Rust's `f64` functions rounded to the result width (not correctly rounded in general;
/// differential tests must not compare their results bit-exactly across implementations).
pub fn glsl(types: &TypeTable, op: GlslOp, rty: Type, args: &[Val]) -> OpResult {
    use GlslOp as G;
    let refs: Vec<&Val> = args.iter().collect();
    let w = match scalar(types, rty) {
        Some(Scalar::Int(w)) | Some(Scalar::Float(w)) => w,
        _ => 32,
    };
    let f1 = |f: fn(f64) -> f64| {
        move |v: &[&Val]| -> OpResult { Ok(Val::Bits(from_f(f(to_f(v[0].bits(), w)?), w)?)) }
    };
    match op {
        G::FAbs => lift(&refs, &mut |v| Ok(Val::Bits(v[0].bits() & mask(w - 1)))),
        G::SAbs => lift(&refs, &mut |v| {
            Ok(Val::Bits(sext(v[0].bits(), w).unsigned_abs() & mask(w)))
        }),
        G::Floor => lift(&refs, &mut f1(f64::floor)),
        G::Ceil => lift(&refs, &mut f1(f64::ceil)),
        G::Trunc => lift(&refs, &mut f1(f64::trunc)),
        G::RoundEven => lift(&refs, &mut f1(f64::round_ties_even)),
        G::Fract => lift(&refs, &mut f1(|x| x - x.floor())),
        G::Sqrt => lift(&refs, &mut f1(f64::sqrt)),
        G::Sin => lift(&refs, &mut f1(f64::sin)),
        G::Cos => lift(&refs, &mut f1(f64::cos)),
        G::Exp => lift(&refs, &mut f1(f64::exp)),
        G::Exp2 => lift(&refs, &mut f1(f64::exp2)),
        G::Log => lift(&refs, &mut f1(f64::ln)),
        G::Log2 => lift(&refs, &mut f1(f64::log2)),
        G::UMin | G::UMax | G::SMin | G::SMax => lift(&refs, &mut |v| {
            let (a, b) = (v[0].bits(), v[1].bits());
            let pick_a = match op {
                G::UMin => a <= b,
                G::UMax => a >= b,
                G::SMin => sext(a, w) <= sext(b, w),
                _ => sext(a, w) >= sext(b, w),
            };
            Ok(Val::Bits(if pick_a { a } else { b }))
        }),
        G::FMin | G::FMax | G::NMin | G::NMax => lift(&refs, &mut |v| {
            let (a, b) = (to_f(v[0].bits(), w)?, to_f(v[1].bits(), w)?);
            // NaN operands: the other operand (the N* behaviour; documented for F* too).
            let r = if matches!(op, G::FMin | G::NMin) {
                a.min(b)
            } else {
                a.max(b)
            };
            Ok(Val::Bits(from_f(r, w)?))
        }),
        G::UClamp | G::SClamp => lift(&refs, &mut |v| {
            let (x, lo, hi) = (v[0].bits(), v[1].bits(), v[2].bits());
            Ok(Val::Bits(if op == G::UClamp {
                x.max(lo).min(hi)
            } else {
                sext(x, w).max(sext(lo, w)).min(sext(hi, w)) as u64 & mask(w)
            }))
        }),
        G::FClamp | G::NClamp => lift(&refs, &mut |v| {
            let (x, lo, hi) = (
                to_f(v[0].bits(), w)?,
                to_f(v[1].bits(), w)?,
                to_f(v[2].bits(), w)?,
            );
            Ok(Val::Bits(from_f(x.max(lo).min(hi), w)?))
        }),
        G::Fma => lift(&refs, &mut |v| {
            let (a, b, c) = (v[0].bits(), v[1].bits(), v[2].bits());
            Ok(Val::Bits(if w == 32 {
                let f = |x: u64| f32::from_bits(x as u32);
                u64::from(f(a).mul_add(f(b), f(c)).to_bits())
            } else {
                let f = |x: u64| f64::from_bits(x);
                f(a).mul_add(f(b), f(c)).to_bits()
            }))
        }),
        G::FindILsb => lift(&refs, &mut |v| {
            let x = v[0].bits();
            Ok(Val::Bits(if x == 0 {
                mask(w)
            } else {
                u64::from(x.trailing_zeros())
            }))
        }),
        G::FindUMsb | G::FindSMsb => lift(&refs, &mut |v| {
            let mut x = v[0].bits() & mask(w);
            if op == G::FindSMsb && sext(x, w) < 0 {
                x = !x & mask(w);
            }
            Ok(Val::Bits(if x == 0 {
                mask(w)
            } else {
                u64::from(63 - x.leading_zeros())
            }))
        }),
        G::Round => lift(&refs, &mut f1(f64::round)),
        G::FSign => lift(
            &refs,
            &mut f1(|x| {
                if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else {
                    x
                }
            }),
        ),
        G::SSign => lift(&refs, &mut |v| {
            Ok(Val::Bits(sext(v[0].bits(), w).signum() as u64 & mask(w)))
        }),
        G::Radians => lift(&refs, &mut f1(f64::to_radians)),
        G::Degrees => lift(&refs, &mut f1(f64::to_degrees)),
        G::Tan => lift(&refs, &mut f1(f64::tan)),
        G::Asin => lift(&refs, &mut f1(f64::asin)),
        G::Acos => lift(&refs, &mut f1(f64::acos)),
        G::Atan => lift(&refs, &mut f1(f64::atan)),
        G::Sinh => lift(&refs, &mut f1(f64::sinh)),
        G::Cosh => lift(&refs, &mut f1(f64::cosh)),
        G::Tanh => lift(&refs, &mut f1(f64::tanh)),
        G::Asinh => lift(&refs, &mut f1(f64::asinh)),
        G::Acosh => lift(&refs, &mut f1(f64::acosh)),
        G::Atanh => lift(&refs, &mut f1(f64::atanh)),
        G::InverseSqrt => lift(&refs, &mut f1(|x| 1.0 / x.sqrt())),
        G::Atan2 | G::Pow | G::Step | G::Ldexp => lift(&refs, &mut |v| {
            let a = to_f(v[0].bits(), w)?;
            let r = match op {
                G::Atan2 => a.atan2(to_f(v[1].bits(), w)?),
                G::Pow => a.powf(to_f(v[1].bits(), w)?),
                G::Step => {
                    if to_f(v[1].bits(), w)? < a {
                        0.0
                    } else {
                        1.0
                    }
                }
                _ => a * 2f64.powi(sext(v[1].bits(), 32) as i32),
            };
            Ok(Val::Bits(from_f(r, w)?))
        }),
        G::FMix | G::SmoothStep => lift(&refs, &mut |v| {
            let (a, b, c) = (
                to_f(v[0].bits(), w)?,
                to_f(v[1].bits(), w)?,
                to_f(v[2].bits(), w)?,
            );
            let r = if op == G::FMix {
                a * (1.0 - c) + b * c
            } else {
                let t = ((c - a) / (b - a)).clamp(0.0, 1.0);
                t * t * (3.0 - 2.0 * t)
            };
            Ok(Val::Bits(from_f(r, w)?))
        }),
        G::PackHalf2x16 => {
            let Val::Comp(c) = &args[0] else {
                return unsupported("packHalf2x16 of a scalar");
            };
            let lo = u64::from(f32_to_f16(f32::from_bits(c[0].bits() as u32)));
            let hi = u64::from(f32_to_f16(f32::from_bits(c[1].bits() as u32)));
            Ok(Val::Bits(lo | hi << 16))
        }
        G::UnpackHalf2x16 => {
            let b = args[0].bits();
            let h = |x: u64| Val::Bits(u64::from(f16_to_f32(x as u16).to_bits()));
            Ok(Val::Comp(vec![h(b & 0xffff), h(b >> 16 & 0xffff)]))
        }
        G::Length | G::Distance | G::Normalize | G::Cross | G::Reflect => {
            // The operands' width: the result's for vector results, and f32/f64 alike for
            // length and distance (taken from the first component's type via the result).
            let comps = |v: &Val| -> Result<Vec<f64>, OpFail> {
                match v {
                    Val::Comp(c) => c.iter().map(|x| to_f(x.bits(), w)).collect(),
                    x => Ok(vec![to_f(x.bits(), w)?]),
                }
            };
            let a = comps(&args[0])?;
            let b = if args.len() > 1 {
                comps(&args[1])?
            } else {
                Vec::new()
            };
            let len = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
            let out: Vec<f64> = match op {
                G::Length => vec![len(&a)],
                G::Distance => vec![len(&a
                    .iter()
                    .zip(&b)
                    .map(|(x, y)| x - y)
                    .collect::<Vec<_>>())],
                G::Normalize => {
                    let l = len(&a);
                    a.iter().map(|x| x / l).collect()
                }
                G::Cross => vec![
                    a[1] * b[2] - b[1] * a[2],
                    a[2] * b[0] - b[2] * a[0],
                    a[0] * b[1] - b[0] * a[1],
                ],
                _ => {
                    let d: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
                    a.iter().zip(&b).map(|(i, n)| i - 2.0 * d * n).collect()
                }
            };
            let vals: Vec<Val> = out
                .into_iter()
                .map(|x| from_f(x, w).map(Val::Bits))
                .collect::<Result<_, _>>()?;
            Ok(if matches!(types.get(rty), TypeData::Vector { .. }) {
                Val::Comp(vals)
            } else {
                vals.into_iter().next().unwrap_or(Val::Bits(0))
            })
        }
        #[allow(unreachable_patterns)]
        other => unsupported(format!("GLSL.std.450 {}", other.name())),
    }
}

/// f32 → f16 bits, rounding to nearest even (overflow to infinity, NaN kept quiet).
pub fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 255 {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 31 {
        return sign | 0x7c00;
    }
    let round = |half: u32, rem: u32, halfway: u32| {
        if rem > halfway || (rem == halfway && half & 1 == 1) {
            half + 1
        } else {
            half
        }
    };
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let r = round(m >> shift, m & ((1 << shift) - 1), 1 << (shift - 1));
        return sign | r as u16;
    }
    let half = ((e as u32) << 10) | (man >> 13);
    sign | round(half, man & 0x1fff, 0x1000) as u16
}

/// f16 bits → f32 (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = (h >> 10) & 0x1f;
    let man = u32::from(h & 0x3ff);
    if exp == 0 {
        return sign * man as f32 * 2f32.powi(-24);
    }
    let bits = (u32::from(h & 0x8000) << 16)
        | if exp == 31 {
            0x7f80_0000 | man << 13
        } else {
            (u32::from(exp) + 112) << 23 | man << 13
        };
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> (TypeTable, Type, Type, Type) {
        let mut t = TypeTable::new();
        let u = t.u32();
        let i = t.intern(TypeData::Int {
            width: 32,
            signed: true,
        });
        let f = t.intern(TypeData::Float { width: 32 });
        (t, u, i, f)
    }

    fn f(x: f32) -> Val {
        Val::Bits(u64::from(x.to_bits()))
    }

    #[test]
    fn integer_ops_wrap_and_sign() {
        let (t, u, i, _) = table();
        let m1 = Val::Bits(0xffff_ffff);
        assert_eq!(
            plain(&t, PlainOp::IAdd, u, &[u, u], &[m1.clone(), Val::Bits(2)]).unwrap(),
            Val::Bits(1)
        );
        assert_eq!(
            plain(
                &t,
                PlainOp::SDiv,
                i,
                &[i, i],
                &[Val::Bits(0xffff_fff9), Val::Bits(2)]
            )
            .unwrap(),
            Val::Bits(0xffff_fffd)
        );
        // smod takes the divisor's sign, srem the dividend's.
        assert_eq!(
            plain(
                &t,
                PlainOp::SMod,
                i,
                &[i, i],
                &[Val::Bits(0xffff_fff9), Val::Bits(3)]
            )
            .unwrap(),
            Val::Bits(2)
        );
        assert_eq!(
            plain(
                &t,
                PlainOp::SRem,
                i,
                &[i, i],
                &[Val::Bits(0xffff_fff9), Val::Bits(3)]
            )
            .unwrap(),
            Val::Bits(0xffff_ffff)
        );
        assert!(matches!(
            plain(&t, PlainOp::UDiv, u, &[u, u], &[m1.clone(), Val::Bits(0)]),
            Err(OpFail::Undefined(_))
        ));
        assert_eq!(
            plain(
                &t,
                PlainOp::ShiftRightArithmetic,
                i,
                &[i, u],
                &[m1, Val::Bits(4)]
            )
            .unwrap(),
            Val::Bits(0xffff_ffff)
        );
        assert_eq!(
            plain(
                &t,
                PlainOp::BitFieldSExtract,
                i,
                &[i, u, u],
                &[Val::Bits(0x80), Val::Bits(4), Val::Bits(4)]
            )
            .unwrap(),
            Val::Bits(0xffff_fff8)
        );
    }

    #[test]
    fn f32_arithmetic_is_ieee_single() {
        let (t, _, _, fl) = table();
        let r = plain(&t, PlainOp::FAdd, fl, &[fl, fl], &[f(0.1), f(0.2)]).unwrap();
        assert_eq!(r, f(0.1f32 + 0.2f32));
        let r = plain(&t, PlainOp::FDiv, fl, &[fl, fl], &[f(1.0), f(3.0)]).unwrap();
        assert_eq!(r, f(1.0f32 / 3.0f32));
        let r = plain(&t, PlainOp::FMod, fl, &[fl, fl], &[f(-1.0), f(3.0)]).unwrap();
        assert_eq!(r, f(2.0));
        let nan = f(f32::NAN);
        assert_eq!(
            plain(
                &t,
                PlainOp::FUnordEqual,
                t.find(&TypeData::Bool).unwrap_or(fl),
                &[fl, fl],
                &[nan.clone(), f(1.0)]
            )
            .unwrap(),
            Val::Bool(true)
        );
        assert_eq!(
            plain(&t, PlainOp::FOrdNotEqual, fl, &[fl, fl], &[nan, f(1.0)]).unwrap(),
            Val::Bool(false)
        );
    }

    #[test]
    fn half_conversions() {
        for (x, h) in [
            (1.0f32, 0x3c00u16),
            (-2.0, 0xc000),
            (65504.0, 0x7bff),
            (65520.0, 0x7c00),
            (5.960_464_5e-8, 0x0001),
            (0.1, 0x2e66),
        ] {
            assert_eq!(f32_to_f16(x), h, "{x}");
        }
        for h in [0u16, 1, 0x3ff, 0x400, 0x3c00, 0x7bff, 0xc000, 0x7c00] {
            assert_eq!(f32_to_f16(f16_to_f32(h)), h);
        }
    }

    #[test]
    fn explicit_layout_round_trips() {
        let (mut t, u, _, _) = table();
        let v3 = t.intern(TypeData::Vector { elem: u, count: 3 });
        let s = t.intern(TypeData::Struct {
            members: vec![
                tangle_ir::Member {
                    ty: v3,
                    offset: Some(0),
                    flags: vec![],
                    name: None,
                },
                tangle_ir::Member {
                    ty: u,
                    offset: Some(16),
                    flags: vec![],
                    name: None,
                },
            ],
            block: true,
            name: None,
        });
        let v = Val::Comp(vec![
            Val::Comp(vec![Val::Bits(1), Val::Bits(2), Val::Bits(3)]),
            Val::Bits(4),
        ]);
        let mut mem = vec![0u8; 20];
        write(&t, &mut mem, 0, s, &v).unwrap();
        assert_eq!(&mem[16..20], &4u32.to_le_bytes());
        assert_eq!(read(&t, &mem, 0, s).unwrap(), v);
        assert!(read(&t, &mem, 4, s).is_none());
    }
}
