//! Values, memory layout, and the per-invocation operations (plain ops, GLSL.std.450).
//!
//! Written independently of any other simulator in the workspace, so that each can catch the
//! other's mistakes. Submodules: `float` (float widths and rounding), `arith` (integer and
//! float arithmetic, bit operations), `convert` (comparisons, conversions, logical and
//! composite plain ops), `layout` (memory layout, reads and writes), `glsl_std`
//! (GLSL.std.450).

use tangle_ir::{Type, TypeData, TypeTable};

mod arith;
mod convert;
mod float;
mod glsl_std;
mod layout;

pub use arith::plain;
pub(crate) use convert::{composite_extract, composite_insert};
pub(crate) use float::fbin;
pub use float::{f16_to_f32, f32_to_f16, fma, from_f, to_f};
pub use glsl_std::{glsl, glsl_split};
pub use layout::{array_stride, member_offset, read, size_align, write, zero};

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

pub(crate) fn unsupported<T>(what: impl Into<String>) -> Result<T, OpFail> {
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

impl Scalar {
    /// The width in bits (1 for `bool`).
    pub(crate) fn width(self) -> u32 {
        match self {
            Scalar::Int(w) | Scalar::Float(w) => w,
            Scalar::Bool => 1,
        }
    }
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

/// Applies `f` to every component (scalars are one component).
pub(crate) fn lift(vals: &[&Val], f: &mut dyn FnMut(&[&Val]) -> OpResult) -> OpResult {
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

/// The component width of a numeric type (32 where it is not a number), for other modules.
pub(crate) fn num_width_of(types: &TypeTable, ty: Type) -> u32 {
    num_width(types, ty)
}

/// The component width of a numeric type (32 where it is not a number).
fn num_width(types: &TypeTable, ty: Type) -> u32 {
    match scalar(types, ty) {
        Some(Scalar::Int(w)) | Some(Scalar::Float(w)) => w,
        _ => 32,
    }
}

/// The widths of a plain op's result and first operand (32 where they are not numbers).
fn op_widths(types: &TypeTable, rty: Type, atys: &[Type]) -> (u32, u32) {
    let aw = atys.first().map_or(32, |t| num_width(types, *t));
    (num_width(types, rty), aw)
}
