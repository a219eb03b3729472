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
mod matrix;
mod poison;

pub use arith::plain;
pub use convert::{composite_extract, composite_insert};
pub(crate) use float::fbin;
pub use float::{f16_to_f32, f32_to_f16, fma, from_f, to_f};
pub use glsl_std::{glsl, glsl_split};
pub use layout::{array_stride, member_offset, read, size_align, write, zero, Region};
pub use poison::{first_poison, undef_like, Born, Poison};

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
    /// An undefined scalar (or pointer): see [`Poison`]. Composites hold it per component.
    Undef(std::sync::Arc<Poison>),
}

impl Val {
    /// The bit pattern of a scalar (booleans as 0/1), for per-lane ops whose operands the
    /// verifier types as scalars and `lift` has filtered for undefined components; other
    /// values give 0. Where a value decides control flow or addresses, engines use
    /// [`Val::scalar`] instead.
    #[inline]
    pub fn bits(&self) -> u64 {
        match self {
            Val::Bits(b) => *b,
            Val::Bool(b) => u64::from(*b),
            _ => 0,
        }
    }

    /// The bit pattern of a defined scalar (booleans as 0/1); an internal error for a
    /// composite, a pointer or an undefined value (callers check for poison first).
    #[inline]
    pub fn scalar(&self) -> Result<u64, OpFail> {
        match self {
            Val::Bits(b) => Ok(*b),
            Val::Bool(b) => Ok(u64::from(*b)),
            other => Err(OpFail::Internal(format!(
                "expected a defined scalar, found {other:?}"
            ))),
        }
    }

    /// The truth of a boolean (like [`Val::bits`], for checked operands).
    #[inline]
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
    /// Behaviour the specification leaves undefined (an error, unlike an undefined
    /// *result*, which is a [`Val::Undef`]).
    Undefined(String),
    /// The interpreter broke one of its own invariants (a value of the wrong shape where
    /// the verifier guarantees another): a bug to report, never a plausible value.
    Internal(String),
}

/// The result of a per-lane operation.
pub type OpResult = Result<Val, OpFail>;

pub(crate) fn unsupported<T>(what: impl Into<String>) -> Result<T, OpFail> {
    Err(OpFail::Unsupported(what.into()))
}

/// All-ones mask of `w` bits.
#[inline]
pub fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// Sign-extends the low `w` bits.
#[inline]
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

/// Runs `f` on references to `args`, kept on the stack for up to four operands (every
/// component-wise op has at most four), so an op on one lane allocates nothing.
#[inline]
pub(crate) fn with_refs<T>(args: &[Val], f: impl FnOnce(&[&Val]) -> T) -> T {
    static NONE: Val = Val::Bool(false);
    if args.len() <= 4 {
        let mut buf: [&Val; 4] = [&NONE; 4];
        for (b, a) in buf.iter_mut().zip(args) {
            *b = a;
        }
        f(&buf[..args.len()])
    } else {
        let v: Vec<&Val> = args.iter().collect();
        f(&v)
    }
}

/// Applies `f` to every component (scalars are one component). A component where some
/// operand is undefined is undefined (the first such operand's poison), without calling `f`.
#[inline]
pub(crate) fn lift(vals: &[&Val], f: &mut dyn FnMut(&[&Val]) -> OpResult) -> OpResult {
    let mut f = |comps: &[&Val]| match comps.iter().find_map(|v| v.poison()) {
        Some(p) => Ok(Val::Undef(p.clone())),
        None => f(comps),
    };
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

/// The component width of a scalar or vector type (1 for `bool`); an internal error for
/// a type without one (the verifier rules such operands out).
/// The component width of a numeric type, for engines (an internal error where it is not a
/// number).
pub fn num_width_of(types: &TypeTable, ty: Type) -> Result<u32, OpFail> {
    num_width(types, ty)
}

fn num_width(types: &TypeTable, ty: Type) -> Result<u32, OpFail> {
    match scalar(types, ty) {
        Some(s) => Ok(s.width()),
        None => Err(OpFail::Internal(format!(
            "type {ty} has no numeric component width"
        ))),
    }
}

/// The component widths a plain op works at: its result's and its first operand's. Ops
/// that only move values, pick between them or combine booleans need none (both 0, never
/// read); extended arithmetic (a struct result) works at its operands' width.
fn op_widths(
    types: &TypeTable,
    op: tangle_ir::PlainOp,
    rty: Type,
    atys: &[Type],
) -> Result<(u32, u32), OpFail> {
    use tangle_ir::PlainOp as P;
    if matches!(
        op,
        P::CopyObject
            | P::CompositeConstruct
            | P::Select
            | P::VectorExtractDynamic
            | P::VectorInsertDynamic
            | P::LogicalAnd
            | P::LogicalOr
            | P::LogicalEqual
            | P::LogicalNotEqual
            | P::LogicalNot
            | P::Any
            | P::All
            | P::Bitcast
            | P::Undef
            | P::AccessChain
    ) {
        return Ok((0, 0));
    }
    let aw = match atys.first() {
        Some(t) => num_width(types, *t)?,
        None => num_width(types, rty)?,
    };
    let rw = match op {
        P::IAddCarry | P::ISubBorrow | P::UMulExtended | P::SMulExtended => aw,
        _ => num_width(types, rty)?,
    };
    Ok((rw, aw))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::ballot_mask;

    /// Values of the wrong shape are internal errors, not plausible values.
    #[test]
    fn wrong_shapes_are_internal_errors() {
        assert!(matches!(
            Val::Comp(vec![Val::Bits(1)]).scalar(),
            Err(OpFail::Internal(_))
        ));
        assert!(matches!(
            Poison::here("x").scalar(),
            Err(OpFail::Internal(_))
        ));
        assert_eq!(Val::Bool(true).scalar().unwrap(), 1);
        assert!(matches!(
            ballot_mask(&Val::Bits(3)),
            Err(OpFail::Internal(_))
        ));
        let ballot = Val::Comp(vec![Val::Bits(5), Val::Bits(0), Val::Bits(1), Val::Bits(0)]);
        assert_eq!(ballot_mask(&ballot).unwrap(), 5 | 1 << 64);
        // An integer op on a struct type has no width to work at.
        let mut t = TypeTable::new();
        let s = t.intern(TypeData::Struct {
            members: vec![],
            block: false,
            buffer_block: false,
            name: None,
        });
        let r = plain(
            &t,
            tangle_ir::PlainOp::IAdd,
            s,
            &[s, s],
            &[Val::Bits(1), Val::Bits(2)],
        );
        assert!(matches!(r, Err(OpFail::Internal(_))), "{r:?}");
        // ... while a width-free op does not need one.
        let r = plain(
            &t,
            tangle_ir::PlainOp::CopyObject,
            s,
            &[s],
            &[Val::Comp(vec![])],
        );
        assert!(r.is_ok());
    }
}
