//! CFG simplification of a lowered function, repeated until nothing changes:
//! - a `br_if` on a constant (or with equal targets) becomes a `br`;
//! - an empty block that only branches on is skipped: its predecessors branch straight to
//!   its target (unless a phi there would need two different values from one predecessor);
//! - a block whose sole predecessor branches only to it is merged into that predecessor;
//! - blocks left unreachable are removed.
//!
//! The blocks are then laid out in reverse post-order. Refused on structured functions.

use crate::cfg::Cfg;
use crate::entity::EntityVec;
use crate::module::{Const, ConstData, ConstValue, Function, Operand, Terminator};

/// Simplifies `func`; `consts` are the module's constants (to read branch conditions).
/// Returns whether anything changed.
pub fn run(func: &mut Function, consts: &EntityVec<Const, ConstData>) -> bool {
    if super::is_structured(func) {
        return false;
    }
    let mut changed = false;
    loop {
        let mut step = fold_branches(func, consts);
        step |= super::remove_unreachable::run(func);
        step |= skip_forwarding_block(func);
        step |= merge_into_predecessor(func);
        if !step {
            break;
        }
        changed = true;
    }
    let before = func.layout.clone();
    func.layout_in_reverse_post_order();
    changed || func.layout != before
}

/// Turns `br_if` on a constant, or with equal targets, into `br`.
fn fold_branches(func: &mut Function, consts: &EntityVec<Const, ConstData>) -> bool {
    let mut changed = false;
    for b in func.layout.clone() {
        let Terminator::CondBranch {
            cond,
            if_true,
            if_false,
        } = func.blocks[b].term
        else {
            continue;
        };
        let keep = if if_true == if_false {
            if_true
        } else {
            let Operand::Const(c) = cond else { continue };
            match consts.get(c) {
                Some(ConstData {
                    value: ConstValue::Bool(v),
                    spec: false,
                    ..
                }) => {
                    let (keep, drop) = if *v {
                        (if_true, if_false)
                    } else {
                        (if_false, if_true)
                    };
                    func.remove_phi_pred(drop, b);
                    keep
                }
                _ => continue,
            }
        };
        func.blocks[b].term = Terminator::Branch(keep);
        changed = true;
    }
    changed
}

/// Skips one empty forwarding block; returns whether it did.
fn skip_forwarding_block(func: &mut Function) -> bool {
    let cfg = Cfg::new(func);
    for &b in func.layout.iter().skip(1) {
        let Terminator::Branch(t) = func.blocks[b].term else {
            continue;
        };
        if t == b || !func.blocks[b].insts.is_empty() || cfg.preds(b).is_empty() {
            continue;
        }
        let preds = cfg.preds(b).to_vec();
        let phis = func.phis(t);
        if !phis.is_empty() && preds.iter().any(|p| cfg.preds(t).contains(p)) {
            continue;
        }
        // A phi without an incoming from `b` (invalid input) keeps `b`.
        if phis.iter().any(|&phi| func.phi_incoming(phi, b).is_none()) {
            continue;
        }
        for phi in phis {
            let Some(v) = func.remove_phi_incoming(phi, b) else {
                continue;
            };
            for &p in &preds {
                func.set_phi_incoming(phi, p, v);
            }
        }
        for &p in &preds {
            func.retarget(p, b, t);
        }
        return true;
    }
    false
}

/// Merges one block into its sole predecessor when that predecessor branches only to it;
/// returns whether it did.
fn merge_into_predecessor(func: &mut Function) -> bool {
    let cfg = Cfg::new(func);
    let entry = func.entry();
    for &b in &func.layout {
        let [p] = cfg.preds(b) else { continue };
        let p = *p;
        if Some(b) == entry || p == b || func.blocks[p].term != Terminator::Branch(b) {
            continue;
        }
        for phi in func.phis(b) {
            let Some(&v) = func.insts[phi].args.first() else {
                return false;
            };
            let r = func.insts[phi].result.expect("a phi has a result");
            func.replace_all_uses(r, v);
            func.remove_inst(phi);
        }
        let moved = std::mem::take(&mut func.blocks[b].insts);
        func.blocks[p].insts.extend(moved);
        let term = std::mem::replace(&mut func.blocks[b].term, Terminator::Unreachable);
        for s in term.successors() {
            func.rename_phi_pred(s, b, p);
        }
        func.blocks[p].term = term;
        func.remove_block(b);
        return true;
    }
    false
}
