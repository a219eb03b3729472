//! The machine form as the allocator's input (`tangle_regalloc::Function`): one value per
//! virtual register (same index), except the barriers that have registers of their own
//! (see [`super::Prepared::new`]), whose operands the allocator does not see; one
//! allocator instruction per machine instruction (body, then terminators), its uses in
//! operand order with the guard last, its defs in operand order; the last terminator is the
//! block's branch. Each allocator operand remembers which machine operand it came from, so
//! the registers can be written back ([`super::output`]).

use tangle_regalloc::{Block, BlockId, Def, Function, Inst, Phi, Use, ValueId};

use std::collections::HashMap;

use crate::error::CompileError;
use crate::mir::{MFunc, MOpnd, RegClass, VReg};

/// Where an allocator operand is in its machine instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Operand `opnds[i]` (a register definition or use, or a memory operand's base).
    Opnd(usize),
    /// The guard predicate.
    Guard,
}

/// The allocator's operands of one machine instruction.
#[derive(Clone, Debug, Default)]
pub struct OpMap {
    /// One per `Inst::uses` entry.
    pub uses: Vec<Slot>,
    /// One per `Inst::defs` entry.
    pub defs: Vec<Slot>,
}

/// The allocator's input and the operand maps.
#[derive(Clone, Debug)]
pub struct Input {
    /// The function given to the allocator.
    pub func: Function,
    /// `ops[block][inst]`, instructions numbered body first, then terminators.
    pub ops: Vec<Vec<OpMap>>,
}

/// The allocator's class of a machine register class.
pub fn class_of(c: RegClass) -> tangle_regalloc::RegClass {
    match c {
        RegClass::R => tangle_regalloc::RegClass::Gpr,
        RegClass::P => tangle_regalloc::RegClass::Pred,
        RegClass::Ur => tangle_regalloc::RegClass::UGpr,
        RegClass::Up => tangle_regalloc::RegClass::UPred,
        RegClass::B => tangle_regalloc::RegClass::Barrier,
    }
}

/// Builds the allocator's input from `mf` (SSA, critical edges split), leaving out the
/// operands of the `pinned` barriers.
pub fn build(mf: &MFunc, pinned: &HashMap<VReg, u16>) -> Result<Input, CompileError> {
    let mut func = Function::default();
    for info in &mf.vregs {
        func.new_value(class_of(info.class), info.width);
    }
    let preds = mf.preds();
    let mut ops = Vec::with_capacity(mf.blocks.len());
    for (bi, b) in mf.blocks.iter().enumerate() {
        let mut block = Block {
            preds: preds[bi].iter().map(|p| BlockId(p.0)).collect(),
            succs: b.succs().iter().map(|s| BlockId(s.0)).collect(),
            ..Block::default()
        };
        for phi in &b.phis {
            let srcs = preds[bi]
                .iter()
                .map(|p| {
                    phi.srcs
                        .iter()
                        .find(|(from, _)| from == p)
                        .map(|(_, v)| ValueId(v.0))
                        .ok_or_else(|| {
                            CompileError::Internal(format!(
                                ".B{bi}: phi {} has no source from {p}",
                                mf.reg_text(phi.dst.into())
                            ))
                        })
                })
                .collect::<Result<Vec<_>, _>>()?;
            block.phis.push(Phi {
                dst: ValueId(phi.dst.0),
                srcs,
            });
        }
        let count = b.insts.len() + b.term.len();
        let mut block_ops = Vec::with_capacity(count);
        for (k, i) in b.insts.iter().chain(&b.term).enumerate() {
            let mut inst = Inst {
                branch: k + 1 == count,
                early_clobber: is_pair_construction(i),
                ..Inst::default()
            };
            let mut map = OpMap::default();
            for (j, o) in i.opnds.iter().enumerate() {
                match *o {
                    MOpnd::Def(r) | MOpnd::Use { r, .. } if pinned.contains_key(&r.vreg) => {}
                    MOpnd::Def(r) => {
                        if r.sub.is_some() {
                            return Err(CompileError::Internal(format!(
                                ".B{bi} i{k} {}: a definition of one word of a tuple is not SSA",
                                mf.inst_text(i)
                            )));
                        }
                        inst.defs.push(Def::new(ValueId(r.vreg.0)));
                        map.defs.push(Slot::Opnd(j));
                    }
                    MOpnd::Use { r, .. } => {
                        inst.uses.push(Use::new(ValueId(r.vreg.0)));
                        map.uses.push(Slot::Opnd(j));
                    }
                    MOpnd::Mem { base: Some(v), .. } => {
                        inst.uses.push(Use::new(ValueId(v.0)));
                        map.uses.push(Slot::Opnd(j));
                    }
                    _ => {}
                }
            }
            if let Some((p, _)) = i.guard {
                inst.uses.push(Use::new(ValueId(p.0)));
                map.uses.push(Slot::Guard);
            }
            block.insts.push(inst);
            block_ops.push(map);
        }
        func.blocks.push(block);
        ops.push(block_ops);
    }
    Ok(Input { func, ops })
}

/// Whether `i` is a pair construction `MOV %rN:2, lo, hi`: one instruction in the machine
/// form, two `MOV`s once emitted (one per word), so the pair may share a register with
/// neither source (an early clobber).
fn is_pair_construction(i: &crate::mir::MInst) -> bool {
    i.op == tangle_sass::Op::Mov
        && matches!(
            i.opnds.as_slice(),
            [MOpnd::Def(_), MOpnd::Use { .. }, MOpnd::Use { .. }]
        )
}
