//! Unreachable-block removal: drops the blocks the entry does not reach, and their
//! incomings from the phis of blocks that stay. In a structured function, the merge blocks
//! and continue targets named by kept headers stay (SPIR-V needs them even when nothing
//! branches to them). A kept block that used a removed value (only possible in kept
//! unreachable blocks, and phi incomings from them) gets an `undef` of its type instead.

use std::collections::HashSet;

use crate::builder::InsertAt;
use crate::cfg::{reverse_post_order, Cfg};
use crate::module::{Block, Function, Merge, Operand, Terminator, ValueDef};
use crate::ops::{Op, PlainOp};

/// Removes unreachable blocks; returns whether any was removed.
pub fn run(func: &mut Function) -> bool {
    let cfg = Cfg::new(func);
    let mut keep: HashSet<Block> = reverse_post_order(func, &cfg).into_iter().collect();
    if super::is_structured(func) {
        let mut work: Vec<Block> = keep.iter().copied().collect();
        while let Some(b) = work.pop() {
            let named = match func.blocks[b].merge {
                Some(Merge::Selection { merge, .. }) => vec![merge],
                Some(Merge::Loop {
                    merge,
                    continue_target,
                    ..
                }) => vec![merge, continue_target],
                None => Vec::new(),
            };
            for n in named {
                if keep.insert(n) {
                    work.push(n);
                }
            }
        }
    }
    let removed: Vec<Block> = func
        .layout
        .iter()
        .copied()
        .filter(|b| !keep.contains(b))
        .collect();
    if removed.is_empty() {
        return false;
    }
    for &b in &removed {
        func.remove_block(b);
    }
    patch_dangling_uses(func);
    true
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
