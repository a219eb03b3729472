//! A small executor of one invocation over any control-flow graph, structured or not, for
//! tests that compare a function before and after a rewrite (SSA repair, CFG passes). It
//! follows terminators and evaluates phis on the edge taken; it knows nothing about
//! constructs or reconvergence and shares no code with the interpreter, so it is an
//! independent check of control flow.
//!
//! It runs functions of scalar integers and booleans: integer arithmetic, bitwise and
//! shift operations, comparisons, logical operations, `select`, `copy`, `undef`, and
//! function-local variables with `load` and `store`. Anything else (other memory, calls,
//! subgroup operations) is refused with [`ExecError::Unsupported`].
//! Undefined behaviour (division by zero, over-wide shifts) yields an undefined value that
//! spreads; branching on one is [`ExecError::UndefinedBranch`].

use std::collections::HashMap;

use crate::entity::EntityRef;
use crate::module::{ConstValue, Function, Module, Operand, Terminator, Value};
use crate::ops::{Op, PlainOp};
use crate::types::TypeData;

/// A scalar value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// A boolean.
    Bool(bool),
    /// An integer's bit pattern, zero-extended to 64 bits.
    Int(u64),
    /// An undefined value (`undef`, or the result of undefined behaviour).
    Undef,
}

/// Why an execution stopped without a result.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExecError {
    /// More blocks were entered than the limit allows (perhaps an infinite loop).
    #[error("ran past the limit of {0} blocks")]
    StepLimit(u64),
    /// An operation or type this executor does not run.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A branch condition or switch selector was undefined.
    #[error("branch on an undefined value in {0}")]
    UndefinedBranch(String),
    /// Control reached `unreachable` or a kill.
    #[error("reached {0} in {1}")]
    Stopped(&'static str, String),
    /// The function is malformed (a value read before it is set, a missing phi incoming).
    #[error("malformed function: {0}")]
    Malformed(String),
}

/// Runs `func` of `module` with `args` for its parameters, entering at most `max_blocks`
/// blocks; returns the returned value (`None` for `return`) and the number of blocks
/// entered.
pub fn run(
    module: &Module,
    func: &Function,
    args: &[Scalar],
    max_blocks: u64,
) -> Result<(Option<Scalar>, u64), ExecError> {
    let mut vals: Vec<Option<Scalar>> = vec![None; func.values.len()];
    for (&p, &a) in func.params.iter().zip(args) {
        vals[p.index()] = Some(a);
    }
    let read = |vals: &[Option<Scalar>], o: Operand| -> Result<Scalar, ExecError> {
        match o {
            Operand::Value(v) => vals
                .get(v.index())
                .copied()
                .flatten()
                .ok_or_else(|| ExecError::Malformed(format!("{v} read before it is set"))),
            Operand::Const(c) => match &module.consts[c].value {
                ConstValue::Bool(b) => Ok(Scalar::Bool(*b)),
                ConstValue::Bits(b) => Ok(Scalar::Int(*b)),
                ConstValue::Undef => Ok(Scalar::Undef),
                other => Err(ExecError::Unsupported(format!("constant {other:?}"))),
            },
            Operand::Global(g) => Err(ExecError::Unsupported(format!("global {g}"))),
        }
    };
    // Function variables, by the value of their pointer.
    let mut mem: HashMap<Value, Scalar> = HashMap::new();
    let mut block = func
        .entry()
        .ok_or_else(|| ExecError::Malformed("no blocks".into()))?;
    let mut prev = None;
    let mut steps = 0u64;
    loop {
        steps += 1;
        if steps > max_blocks {
            return Err(ExecError::StepLimit(max_blocks));
        }
        let data = &func.blocks[block];
        // Phis read their incomings together, on the edge just taken.
        let mut phi_vals = Vec::new();
        for &i in &data.insts {
            let inst = &func.insts[i];
            let Op::Phi(preds) = &inst.op else { break };
            let p = prev.ok_or_else(|| ExecError::Malformed(format!("phi in entry {block}")))?;
            let k = preds.iter().position(|&b| b == p).ok_or_else(|| {
                ExecError::Malformed(format!("phi in {block} has no incoming from {p}"))
            })?;
            let r = inst
                .result
                .ok_or_else(|| ExecError::Malformed(format!("phi without a result in {block}")))?;
            phi_vals.push((r, read(&vals, inst.args[k])?));
        }
        for (r, v) in phi_vals {
            vals[r.index()] = Some(v);
        }
        for &i in &data.insts {
            let inst = &func.insts[i];
            let pointer = |mem: &HashMap<Value, Scalar>, o: Operand| match o {
                Operand::Value(p) if mem.contains_key(&p) => Ok(p),
                other => Err(ExecError::Unsupported(format!(
                    "memory access through {other}, not a function variable"
                ))),
            };
            let op = match &inst.op {
                Op::Phi(_) => continue,
                Op::Variable(_) => {
                    let r = result(inst, block)?;
                    let init = match inst.args.first() {
                        Some(&o) => read(&vals, o)?,
                        None => Scalar::Undef,
                    };
                    mem.insert(r, init);
                    continue;
                }
                Op::Load(_) => {
                    let r = result(inst, block)?;
                    let p = pointer(&mem, operand(inst, 0)?)?;
                    vals[r.index()] = Some(mem[&p]);
                    continue;
                }
                Op::Store(_) => {
                    let p = pointer(&mem, operand(inst, 0)?)?;
                    let x = read(&vals, operand(inst, 1)?)?;
                    mem.insert(p, x);
                    continue;
                }
                Op::Plain(op) => *op,
                other => return Err(ExecError::Unsupported(other.mnemonic().to_string())),
            };
            let r = result(inst, block)?;
            let width = int_width(module, func.values[r].ty);
            let a: Vec<Scalar> = inst
                .args
                .iter()
                .map(|&o| read(&vals, o))
                .collect::<Result<_, _>>()?;
            vals[r.index()] = Some(eval(op, &a, width)?);
        }
        let at = || block.to_string();
        prev = Some(block);
        block = match &data.term {
            Terminator::Branch(t) => *t,
            Terminator::CondBranch {
                cond,
                if_true,
                if_false,
            } => match read(&vals, *cond)? {
                Scalar::Bool(true) => *if_true,
                Scalar::Bool(false) => *if_false,
                _ => return Err(ExecError::UndefinedBranch(at())),
            },
            Terminator::Switch {
                selector,
                default,
                cases,
            } => match read(&vals, *selector)? {
                Scalar::Int(x) => cases
                    .iter()
                    .find(|(l, _)| *l == x)
                    .map_or(*default, |c| c.1),
                _ => return Err(ExecError::UndefinedBranch(at())),
            },
            Terminator::Return => return Ok((None, steps)),
            Terminator::ReturnValue(v) => return Ok((Some(read(&vals, *v)?), steps)),
            Terminator::Unreachable => return Err(ExecError::Stopped("unreachable", at())),
            Terminator::Kill | Terminator::TerminateInvocation => {
                return Err(ExecError::Stopped("a kill", at()))
            }
        };
    }
}

/// Operand `k` of `inst`, which must have it.
fn operand(inst: &crate::module::InstData, k: usize) -> Result<Operand, ExecError> {
    inst.args
        .get(k)
        .copied()
        .ok_or_else(|| ExecError::Malformed(format!("`{}` lacks operand {k}", inst.op.mnemonic())))
}

/// The result of `inst`, which must have one.
fn result(inst: &crate::module::InstData, block: crate::module::Block) -> Result<Value, ExecError> {
    inst.result.ok_or_else(|| {
        ExecError::Malformed(format!(
            "`{}` without a result in {block}",
            inst.op.mnemonic()
        ))
    })
}

/// The bit width of an integer type; 0 for anything else (a bool).
fn int_width(module: &Module, ty: crate::types::Type) -> u32 {
    match module.types.get(ty) {
        TypeData::Int { width, .. } => u32::from(*width),
        _ => 0,
    }
}

fn mask(x: u64, width: u32) -> u64 {
    if width >= 64 {
        x
    } else {
        x & ((1u64 << width) - 1)
    }
}

fn signed(x: u64, width: u32) -> i64 {
    let shift = 64 - width.clamp(1, 64);
    ((x << shift) as i64) >> shift
}

/// Evaluates one plain operation; `width` is the result's integer width (0 for bool).
fn eval(op: PlainOp, a: &[Scalar], width: u32) -> Result<Scalar, ExecError> {
    use PlainOp::*;
    use Scalar::{Bool, Int};
    if op == PlainOp::Undef {
        return Ok(Scalar::Undef);
    }
    if a.contains(&Scalar::Undef) {
        return Ok(Scalar::Undef);
    }
    let int = |k: usize| match a[k] {
        Int(x) => Ok(x),
        _ => Err(ExecError::Malformed(format!(
            "`{}` needs integers",
            op.name()
        ))),
    };
    let boolean = |k: usize| match a[k] {
        Bool(x) => Ok(x),
        _ => Err(ExecError::Malformed(format!("`{}` needs bools", op.name()))),
    };
    // Comparisons have a bool result; their operands are zero-extended patterns of one
    // width, which compare correctly unsigned (signed comparisons are not supported).
    let w = if width == 0 { 32 } else { width };
    let out = match op {
        IAdd => Int(mask(int(0)?.wrapping_add(int(1)?), w)),
        ISub => Int(mask(int(0)?.wrapping_sub(int(1)?), w)),
        IMul => Int(mask(int(0)?.wrapping_mul(int(1)?), w)),
        SNegate => Int(mask(int(0)?.wrapping_neg(), w)),
        UDiv | UMod | SDiv | SRem | SMod if int(1)? == 0 => Scalar::Undef,
        UDiv => Int(int(0)? / int(1)?),
        UMod => Int(int(0)? % int(1)?),
        SDiv => Int(mask(
            signed(int(0)?, w).wrapping_div(signed(int(1)?, w)) as u64,
            w,
        )),
        SRem => Int(mask(
            signed(int(0)?, w).wrapping_rem(signed(int(1)?, w)) as u64,
            w,
        )),
        SMod => {
            let (x, y) = (signed(int(0)?, w), signed(int(1)?, w));
            let r = x.wrapping_rem(y);
            let r = if r != 0 && (r < 0) != (y < 0) {
                r + y
            } else {
                r
            };
            Int(mask(r as u64, w))
        }
        BitwiseAnd => Int(int(0)? & int(1)?),
        BitwiseOr => Int(int(0)? | int(1)?),
        BitwiseXor => Int(int(0)? ^ int(1)?),
        Not => Int(mask(!int(0)?, w)),
        ShiftLeftLogical | ShiftRightLogical | ShiftRightArithmetic if int(1)? >= u64::from(w) => {
            Scalar::Undef
        }
        ShiftLeftLogical => Int(mask(int(0)? << int(1)?, w)),
        ShiftRightLogical => Int(int(0)? >> int(1)?),
        ShiftRightArithmetic => Int(mask((signed(int(0)?, w) >> int(1)?) as u64, w)),
        IEqual => Bool(int(0)? == int(1)?),
        INotEqual => Bool(int(0)? != int(1)?),
        ULessThan => Bool(int(0)? < int(1)?),
        ULessThanEqual => Bool(int(0)? <= int(1)?),
        UGreaterThan => Bool(int(0)? > int(1)?),
        UGreaterThanEqual => Bool(int(0)? >= int(1)?),
        LogicalAnd => Bool(boolean(0)? && boolean(1)?),
        LogicalOr => Bool(boolean(0)? || boolean(1)?),
        LogicalEqual => Bool(boolean(0)? == boolean(1)?),
        LogicalNotEqual => Bool(boolean(0)? != boolean(1)?),
        LogicalNot => Bool(!boolean(0)?),
        Select => {
            if boolean(0)? {
                a[1]
            } else {
                a[2]
            }
        }
        CopyObject => a[0],
        _ => return Err(ExecError::Unsupported(op.name().to_string())),
    };
    Ok(out)
}
