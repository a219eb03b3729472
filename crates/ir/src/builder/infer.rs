//! Result types that the operation and its operand types determine, so that builders need
//! not spell them out. Operations whose result type is a free choice (conversions, bitcasts,
//! composite construction, access chains, variables, `undef`, ...) give
//! [`InferError::NeedsType`]: pass the type explicitly for those.

use crate::entity::EntityVec;
use crate::module::{Func, Function};
use crate::ops::{AtomicOp, GroupOp, Op, PlainOp};
use crate::types::{Type, TypeData, TypeTable};

/// Why no result type could be inferred.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InferError {
    /// The operation does not determine its result type; give it explicitly.
    #[error("`{0}` does not determine its result type; give it explicitly")]
    NeedsType(&'static str),
    /// The operands do not fit the operation (too few, or of the wrong kind).
    #[error("`{0}`: the operands do not determine a result type")]
    BadOperands(&'static str),
}

/// The result type of `op` applied to operands of types `args`: `Ok(None)` for an operation
/// without a result. May intern a type (a bool vector for a vector comparison).
pub fn result_type(
    types: &mut TypeTable,
    funcs: &EntityVec<Func, Function>,
    op: &Op,
    args: &[Type],
) -> Result<Option<Type>, InferError> {
    let name = op.mnemonic();
    if !op.has_result() {
        return Ok(None);
    }
    let bad = || InferError::BadOperands(name);
    let arg = |k: usize| args.get(k).copied().ok_or_else(bad);
    let bool_like = |types: &mut TypeTable, like: Type| -> Type {
        let b = types.bool();
        match types.get(like) {
            TypeData::Vector { count, .. } => {
                let count = *count;
                types.intern(TypeData::Vector { elem: b, count })
            }
            _ => b,
        }
    };
    let ty = match op {
        Op::Plain(p) => {
            use PlainOp::*;
            match p {
                IEqual
                | INotEqual
                | UGreaterThan
                | SGreaterThan
                | UGreaterThanEqual
                | SGreaterThanEqual
                | ULessThan
                | SLessThan
                | ULessThanEqual
                | SLessThanEqual
                | FOrdEqual
                | FUnordEqual
                | FOrdNotEqual
                | FUnordNotEqual
                | FOrdLessThan
                | FUnordLessThan
                | FOrdGreaterThan
                | FUnordGreaterThan
                | FOrdLessThanEqual
                | FUnordLessThanEqual
                | FOrdGreaterThanEqual
                | FUnordGreaterThanEqual
                | IsNan
                | IsInf => bool_like(types, arg(0)?),
                Any | All => types.bool(),
                Select => arg(1)?,
                Dot => types.scalar_of(arg(0)?),
                VectorExtractDynamic => types.element(arg(0)?, None).ok_or_else(bad)?,
                SNegate | FNegate | IAdd | FAdd | ISub | FSub | IMul | FMul | UDiv | SDiv
                | FDiv | UMod | SRem | SMod | FRem | FMod | VectorTimesScalar
                | ShiftRightLogical | ShiftRightArithmetic | ShiftLeftLogical | BitwiseOr
                | BitwiseXor | BitwiseAnd | Not | BitFieldInsert | BitFieldSExtract
                | BitFieldUExtract | BitReverse | BitCount | LogicalEqual | LogicalNotEqual
                | LogicalOr | LogicalAnd | LogicalNot | VectorInsertDynamic | CopyObject => arg(0)?,
                _ => return Err(InferError::NeedsType(name)),
            }
        }
        Op::CompositeExtract(ix) => {
            let mut t = arg(0)?;
            for &i in ix {
                t = types.element(t, Some(i)).ok_or_else(bad)?;
            }
            t
        }
        Op::CompositeInsert(_) => arg(1)?,
        Op::Load(_) => types.pointer(arg(0)?).ok_or_else(bad)?.1,
        Op::Atomic { op, .. } => {
            debug_assert!(*op != AtomicOp::Store);
            types.pointer(arg(0)?).ok_or_else(bad)?.1
        }
        Op::Call(f) => funcs.get(*f).ok_or_else(bad)?.ret,
        Op::Phi(_) => arg(0)?,
        Op::Group { op: g, .. } => {
            use GroupOp::*;
            match g {
                Elect | All | Any | AllEqual | InverseBallot | BallotBitExtract => types.bool(),
                Ballot => {
                    let u = types.u32();
                    types.intern(TypeData::Vector { elem: u, count: 4 })
                }
                BallotBitCount | BallotFindLsb | BallotFindMsb => types.u32(),
                _ => arg(0)?,
            }
        }
        _ => return Err(InferError::NeedsType(name)),
    };
    Ok(Some(ty))
}
