//! Removes instructions whose results nothing needs.
//!
//! Mark and sweep: an instruction is *live* when it has an effect besides its result
//! (stores, atomics, barriers, calls, subgroup operations, the tangle-only operations,
//! loads, variables) or when a live instruction, a terminator or a convergence-control
//! operand uses its result; everything else is removed. Marking from the roots removes dead
//! cycles of phis too, which counting uses would keep. Loads stay: a load may be volatile
//! or out of bounds, and removing it is not this pass's business. Subgroup operations stay
//! too: the interpreter's traces record every one, and the differential tests compare them.

use crate::hash::FxHashSet;

use crate::module::{Function, Inst, Operand, Value, ValueDef};
use crate::ops::Op;

/// Whether removing `op` (when its result is unused) cannot change what the program does.
fn removable(op: &Op) -> bool {
    matches!(
        op,
        Op::Plain(_)
            | Op::CompositeExtract(_)
            | Op::CompositeInsert(_)
            | Op::VectorShuffle(_)
            | Op::ArrayLength(_)
            | Op::Glsl(_)
            | Op::Phi(_)
    )
}

/// Removes dead instructions from `func`; returns whether it removed any.
pub fn run(func: &mut Function) -> bool {
    let mut live: FxHashSet<Inst> = FxHashSet::default();
    let mut work: Vec<Value> = Vec::new();
    for &b in &func.layout {
        let block = &func.blocks[b];
        for &i in &block.insts {
            let inst = &func.insts[i];
            if !removable(&inst.op) {
                live.insert(i);
                work.extend(uses(&inst.args, inst.conv));
            }
        }
        work.extend(uses(&block.term.operands(), None));
    }
    while let Some(v) = work.pop() {
        if let ValueDef::Inst(i) = func.values[v].def {
            if live.insert(i) {
                let inst = &func.insts[i];
                work.extend(uses(&inst.args, inst.conv));
            }
        }
    }
    let mut changed = false;
    for &b in &func.layout {
        let dead: Vec<Inst> = func.blocks[b]
            .insts
            .iter()
            .copied()
            .filter(|i| !live.contains(i))
            .collect();
        if dead.is_empty() {
            continue;
        }
        changed = true;
        func.blocks[b].insts.retain(|i| live.contains(i));
        for i in dead {
            if let Some(r) = func.insts[i].result {
                func.values[r].def = ValueDef::Unused;
            }
        }
    }
    changed
}

fn uses(args: &[Operand], conv: Option<Value>) -> impl Iterator<Item = Value> + '_ {
    args.iter()
        .filter_map(|a| match a {
            Operand::Value(v) => Some(*v),
            _ => None,
        })
        .chain(conv)
}
