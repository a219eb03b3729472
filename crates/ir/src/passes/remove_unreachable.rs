//! Unreachable-block removal: drops the blocks the entry does not reach, and their
//! incomings from the phis of blocks that stay. In a structured function, the merge blocks
//! and continue targets named by reachable headers stay (SPIR-V needs them even when nothing
//! branches to them), emptied: a continue target branches back to its header, a merge
//! block ends in `unreachable`. A phi incoming from such a block whose value is gone gets an
//! `undef` of its type.

use crate::hash::FxHashSet;

use crate::builder::InsertAt;
use crate::cfg::{reverse_post_order, Cfg};
use crate::module::{Block, Function, Merge, Operand, Terminator, ValueDef};
use crate::ops::{Op, PlainOp};

/// Removes unreachable blocks; returns whether any was removed.
pub fn run(func: &mut Function) -> bool {
    let cfg = Cfg::new(func);
    let reachable: FxHashSet<Block> = reverse_post_order(func, &cfg).into_iter().collect();
    // Structured: the merge blocks and continue targets of reachable headers stay, emptied.
    let mut kept_unreachable: Vec<(Block, Option<Block>)> = Vec::new();
    for &h in &func.layout {
        if !reachable.contains(&h) {
            continue;
        }
        match func.blocks[h].merge {
            Some(Merge::Selection { merge, .. }) => kept_unreachable.push((merge, None)),
            Some(Merge::Loop {
                merge,
                continue_target,
                ..
            }) => {
                kept_unreachable.push((merge, None));
                kept_unreachable.push((continue_target, Some(h)));
            }
            None => {}
        }
    }
    kept_unreachable.retain(|(b, _)| !reachable.contains(b));
    let removed: Vec<Block> = func
        .layout
        .iter()
        .copied()
        .filter(|b| !reachable.contains(b) && !kept_unreachable.iter().any(|k| k.0 == *b))
        .collect();
    let mut changed = !removed.is_empty();
    for &b in &removed {
        func.remove_block(b);
    }
    // A kept unreachable block ends as SPIR-V expects one to: a continue target branches
    // back to its header, anything else is `unreachable`.
    for (b, header) in kept_unreachable {
        let term = header.map_or(Terminator::Unreachable, Terminator::Branch);
        let data = &func.blocks[b];
        if data.insts.is_empty() && data.merge.is_none() && data.term == term {
            continue;
        }
        for i in std::mem::take(&mut func.blocks[b].insts) {
            if let Some(r) = func.insts[i].result {
                func.values[r].def = ValueDef::Unused;
            }
        }
        let old = std::mem::replace(&mut func.blocks[b].term, term);
        func.blocks[b].merge = None;
        for s in old.successors() {
            if header != Some(s) && func.layout.contains(&s) {
                func.remove_phi_pred(s, b);
            }
        }
        changed = true;
    }
    if changed {
        patch_dangling_uses(func);
    }
    changed
}

/// Gives every use of a value without a definition an `undef` of its type, and removes
/// phis left without incomings.
fn patch_dangling_uses(func: &mut Function) {
    let dead = |func: &Function, o: &Operand| matches!(o, Operand::Value(v) if func.values[*v].def == ValueDef::Unused);
    for b in func.layout.clone() {
        for phi in func.phis(b) {
            if func.insts[phi].args.is_empty() {
                let r = func.insts[phi].result.expect("a phi has a result");
                let u = undef_at(func, InsertAt::AfterPhis(b), r);
                func.replace_all_uses(r, Operand::Value(u));
                func.remove_inst(phi);
            }
        }
    }
    for b in func.layout.clone() {
        for i in func.blocks[b].insts.clone() {
            for k in 0..func.insts[i].args.len() {
                let a = func.insts[i].args[k];
                if !dead(func, &a) {
                    continue;
                }
                let Operand::Value(v) = a else { continue };
                let at = match &func.insts[i].op {
                    Op::Phi(preds) => InsertAt::End(preds[k]),
                    _ => InsertAt::Before(i),
                };
                let u = undef_at(func, at, v);
                func.insts[i].args[k] = Operand::Value(u);
            }
        }
        let uses_dead = func.blocks[b].term.operands().iter().any(|o| dead(func, o));
        if uses_dead {
            let Some(Operand::Value(v)) = func.blocks[b].term.operands().into_iter().next() else {
                continue;
            };
            let u = Operand::Value(undef_at(func, InsertAt::End(b), v));
            match &mut func.blocks[b].term {
                Terminator::CondBranch { cond, .. } => *cond = u,
                Terminator::Switch { selector, .. } => *selector = u,
                Terminator::ReturnValue(r) => *r = u,
                _ => {}
            }
        }
    }
}

/// Inserts an `undef` with the type of `like` at `at`.
fn undef_at(func: &mut Function, at: InsertAt, like: crate::module::Value) -> crate::module::Value {
    let ty = func.values[like].ty;
    func.insert_inst(at, Op::Plain(PlainOp::Undef), Vec::new(), Some(ty))
        .1
        .expect("undef has a result")
}
