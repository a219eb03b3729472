//! One entry point for every per-lane value instruction: what an engine calls for each lane
//! of the lanes executing an instruction that only computes a value from its operands.

use tangle_ir::{Op, PlainOp, Type, TypeTable};

use crate::value::{self, OpFail, OpResult, Poison, Val};

/// Whether `op` is a per-lane value instruction [`eval`] computes (everything but memory,
/// subgroup, call, barrier and phi instructions).
#[inline]
pub fn is_value_op(op: &Op) -> bool {
    match op {
        Op::Plain(p) => *p != PlainOp::AccessChain,
        Op::Glsl(_) | Op::CompositeExtract(_) | Op::CompositeInsert(_) | Op::VectorShuffle(_) => {
            true
        }
        _ => false,
    }
}

/// Computes a per-lane value instruction for one lane: `rty` is the result type, `atys`
/// the operand types, `args` the lane's operand values. Undefined operand components give
/// undefined result components (see [`value::Poison`]); results SPIR-V leaves undefined are
/// undefined values born [`value::Born::Here`], which the engine stamps with its position.
#[inline]
pub fn eval(types: &TypeTable, op: &Op, rty: Type, atys: &[Type], args: &[Val]) -> OpResult {
    match op {
        Op::Plain(PlainOp::AccessChain) => Err(OpFail::Unsupported(
            "access_chain is a memory instruction (memory::access_chain)".into(),
        )),
        Op::Plain(p) => value::plain(types, *p, rty, atys, args),
        Op::Glsl(g) => value::glsl(types, *g, rty, atys, args),
        Op::CompositeExtract(idx) => value::composite_extract(&args[0], idx)
            .ok_or_else(|| OpFail::Undefined("composite index out of range".into())),
        Op::CompositeInsert(idx) => value::composite_insert(&args[1], idx, args[0].clone())
            .ok_or_else(|| OpFail::Undefined("composite index out of range".into())),
        Op::VectorShuffle(sel) => vector_shuffle(&args[0], &args[1], sel),
        other => Err(OpFail::Unsupported(format!(
            "{} is not a per-lane value instruction",
            other.mnemonic()
        ))),
    }
}

/// `vector_shuffle`: components of `a` then `b` by index; 0xFFFFFFFF gives an undefined
/// component ("no source").
pub fn vector_shuffle(a: &Val, b: &Val, sel: &[u32]) -> OpResult {
    let (Val::Comp(a), Val::Comp(b)) = (a, b) else {
        return Err(OpFail::Unsupported("shuffle of non-vectors".into()));
    };
    let all: Vec<&Val> = a.iter().chain(b.iter()).collect();
    sel.iter()
        .map(|s| {
            if *s == u32::MAX {
                Ok(Poison::here(
                    "vector shuffle component 0xFFFFFFFF has no source",
                ))
            } else {
                all.get(*s as usize)
                    .map(|v| (*v).clone())
                    .ok_or(OpFail::Undefined("shuffle selector".into()))
            }
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Val::Comp)
}
