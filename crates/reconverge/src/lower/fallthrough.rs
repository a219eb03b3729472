//! Divergent switch fallthrough: the reference's `FallthroughPolicy::Independent` made
//! robust by code, not by the schedule.
//!
//! The lowering implements `Independent`: lanes that fall through from one case into the
//! next run it apart from the lanes that switched to it directly. Sent through the same
//! blocks, both kinds of lanes would be kept apart only by the schedule: on hardware (and
//! under the barrier machine's `strict` and the other fair policies) groups merge only where
//! a barrier releases them, but a scheduler that merges groups standing at one point (the
//! machine's `opportunistic`, or hardware free to run them together) runs them as one
//! tangle, the `Merge` policy's. A barrier cannot keep groups apart, only make them wait,
//! so [`split_divergent_fallthroughs`] gives the fallthrough lanes their own program
//! points: before placement, each case of a divergent switch that falls into the next
//! branches instead into a copy of the rest of its fallthrough chain (the fallen-into case
//! and, when that falls through again, the next, and so on), which leaves to wherever the
//! originals leave to. The copies lie in the falling case's construct (they are dominated
//! by it), so the function stays structured; values the copies define are merged with the
//! originals by SSA repair. [`divergent_fallthroughs`] lists the switches that need it.

use std::collections::BTreeMap;
use tangle_ir::hash::{FxHashMap, FxHashSet};

use tangle_ir::analysis::ConstructTree;
use tangle_ir::cfg::{Cfg, DomTree};
use tangle_ir::{Block, Func, Function, InstData, Module, Op, Operand, Terminator, Value};

use crate::Uniformity;

/// The divergent switches (function, header block) of `module` in which some case can fall
/// through into another, as an execution can reach them (after promoting variables, as
/// the lowering does). The lowering copies their fallen-into cases
/// ([`split_divergent_fallthroughs`]).
pub fn divergent_fallthroughs(module: &Module) -> Vec<(Func, Block)> {
    let mut m = module.clone();
    super::promote_all(&mut m);
    let uniformity = Uniformity::analyse(&m);
    let mut out = Vec::new();
    for (fid, func) in m.funcs.iter() {
        let Some(u) = uniformity.function(fid) else {
            continue;
        };
        out.extend(
            divergent_switches(func, |b| u.branch_is_uniform(b))
                .into_iter()
                .map(|b| (fid, b)),
        );
    }
    out
}

/// The switch headers of `func` whose branch is not uniform (by `uniform`) and in which
/// some reachable case falls through into another.
fn divergent_switches(func: &Function, uniform: impl Fn(Block) -> bool) -> Vec<Block> {
    let candidates: Vec<Block> = func
        .layout
        .iter()
        .copied()
        .filter(|&b| matches!(func.blocks[b].term, Terminator::Switch { .. }) && !uniform(b))
        .collect();
    if candidates.is_empty() {
        return Vec::new();
    }
    let tree = ConstructTree::new(func);
    let dom = DomTree::new(func, &Cfg::new(func));
    candidates
        .into_iter()
        .filter(|&b| {
            dom.is_reachable(b)
                && tree
                    .executable_case_fallthrough(func, &dom, b)
                    .iter()
                    .any(|(_, into)| into.is_some())
        })
        .collect()
}

/// Gives the fallthrough lanes of every divergent switch of `m` their own copy of the cases
/// they fall into (module doc). `uniformity` is the analysis of `m` as it is; returns
/// whether anything changed (the caller then analyses the result again). Each split
/// recomputes the function's constructs, so the cost grows with the number of divergent
/// switches with fallthrough, and the code with the length of their chains (a chain of
/// `k` cases falling through gets `k(k-1)/2` case copies).
pub fn split_divergent_fallthroughs(m: &mut Module, uniformity: &Uniformity) -> bool {
    let mut changed = false;
    for (fid, func) in m.funcs.iter_mut() {
        let Some(u) = uniformity.function(fid) else {
            continue;
        };
        if func.layout.is_empty() {
            continue;
        }
        // Switch headers known divergent; copies of one are divergent too.
        let mut divergent: FxHashSet<Block> = func
            .layout
            .iter()
            .copied()
            .filter(|&b| {
                matches!(func.blocks[b].term, Terminator::Switch { .. }) && !u.branch_is_uniform(b)
            })
            .collect();
        let mut split: FxHashSet<Block> = FxHashSet::default();
        // Each split leaves its switch without an executable fallthrough; the guard keeps
        // a switch that would not lose it from being split forever.
        while let Some(h) = divergent_switches(func, |b| !divergent.contains(&b))
            .into_iter()
            .find(|h| !split.contains(h))
        {
            split_switch(func, h, &mut divergent);
            split.insert(h);
        }
        if !split.is_empty() {
            func.layout_in_reverse_post_order();
            changed = true;
        }
    }
    changed
}

/// Redirects every executable fallthrough of the switch in `header` into a copy of the
/// fallthrough chain it enters; copies of headers in `divergent` join it.
fn split_switch(func: &mut Function, header: Block, divergent: &mut FxHashSet<Block>) {
    let tree = ConstructTree::new(func);
    let dom = DomTree::new(func, &Cfg::new(func));
    let falls = tree.executable_case_fallthrough(func, &dom, header);
    let blocks_of: FxHashMap<Block, Vec<Block>> = tree
        .cases(header)
        .into_iter()
        .map(|id| (tree.get(id).entry, tree.get(id).blocks.clone()))
        .collect();
    let into: FxHashMap<Block, Block> = falls
        .iter()
        .filter_map(|&(c, t)| t.map(|t| (c, t)))
        .collect();
    let mut copies: BTreeMap<Value, Vec<Value>> = BTreeMap::new();
    for &(case, target) in &falls {
        let Some(target) = target else { continue };
        // The chain from `target`: its blocks and those of every case it falls on into.
        let mut chain = Vec::new();
        let mut at = Some(target);
        while let Some(c) = at {
            if chain.contains(&c) {
                break;
            }
            chain.push(c);
            at = into.get(&c).copied();
        }
        let region: Vec<Block> = chain
            .iter()
            .flat_map(|c| blocks_of.get(c).cloned().unwrap_or_default())
            .collect();
        let (bmap, vmap) = clone_region(func, &region);
        for (&b, &copy) in &bmap {
            if divergent.contains(&b) {
                divergent.insert(copy);
            }
        }
        for (&v, &copy) in &vmap {
            copies.entry(v).or_insert_with(|| vec![v]).push(copy);
        }
        // The falling case's blocks now enter the copy.
        for &b in blocks_of.get(&case).map_or(&[][..], Vec::as_slice) {
            func.retarget(b, target, bmap[&target]);
        }
    }
    drop_stale_phi_incomings(func);
    // A value defined in the chain and used past it (where the chain's blocks dominated the
    // use) now has two definitions.
    let groups: Vec<Vec<Value>> = copies.into_values().collect();
    tangle_ir::ssa_repair::repair_many(func, &groups);
}

/// Copies the blocks of `region` (instructions, merge annotations, terminators); edges
/// between them go between the copies, edges out of the region leave the copies for the
/// same blocks (whose phis take from each copy what they took from its original). Returns
/// the block and value maps.
fn clone_region(
    func: &mut Function,
    region: &[Block],
) -> (FxHashMap<Block, Block>, FxHashMap<Value, Value>) {
    let bmap: FxHashMap<Block, Block> = region.iter().map(|&b| (b, func.add_block())).collect();
    let mut vmap: FxHashMap<Value, Value> = FxHashMap::default();
    for &b in region {
        for &i in &func.blocks[b].insts {
            if let Some(r) = func.insts[i].result {
                let data = func.values[r].clone();
                vmap.insert(r, func.values.push(data));
            }
        }
    }
    let value = |v: Value| vmap.get(&v).copied().unwrap_or(v);
    let operand = |o: Operand| match o {
        Operand::Value(v) => Operand::Value(value(v)),
        other => other,
    };
    let block = |b: Block| bmap.get(&b).copied().unwrap_or(b);
    for &b in region {
        let copy = bmap[&b];
        let insts = func.blocks[b].insts.clone();
        let mut out = Vec::with_capacity(insts.len());
        for i in insts {
            let old = &func.insts[i];
            let op = match &old.op {
                Op::Phi(preds) => Op::Phi(preds.iter().map(|&p| block(p)).collect()),
                op => op.clone(),
            };
            let data = InstData {
                op,
                args: old.args.iter().map(|&a| operand(a)).collect(),
                result: old.result.map(value),
                conv: old.conv.map(value),
            };
            let ni = func.insts.push(data);
            if let Some(r) = func.insts[ni].result {
                func.values[r].def = tangle_ir::ValueDef::Inst(ni);
            }
            out.push(ni);
        }
        func.blocks[copy].insts = out.into();
        func.blocks[copy].merge = func.blocks[b].merge.map(|m| match m {
            tangle_ir::Merge::Selection { merge, control } => tangle_ir::Merge::Selection {
                merge: block(merge),
                control,
            },
            tangle_ir::Merge::Loop {
                merge,
                continue_target,
                control,
                params,
            } => tangle_ir::Merge::Loop {
                merge: block(merge),
                continue_target: block(continue_target),
                control,
                params,
            },
        });
        let term = match &func.blocks[b].term {
            Terminator::Branch(t) => Terminator::Branch(block(*t)),
            Terminator::CondBranch {
                cond,
                if_true,
                if_false,
            } => Terminator::CondBranch {
                cond: operand(*cond),
                if_true: block(*if_true),
                if_false: block(*if_false),
            },
            Terminator::Switch {
                selector,
                default,
                cases,
            } => Terminator::Switch {
                selector: operand(*selector),
                default: block(*default),
                cases: cases.iter().map(|&(k, t)| (k, block(t))).collect(),
            },
            Terminator::ReturnValue(v) => Terminator::ReturnValue(operand(*v)),
            other => other.clone(),
        };
        func.blocks[copy].term = term;
    }
    // Blocks outside the region that the region branches to take from the copies what they
    // took from the originals.
    for &b in region {
        let mut succs = func.blocks[b].term.successors();
        succs.dedup();
        for s in succs.into_iter().filter(|s| !bmap.contains_key(s)) {
            for phi in func.phis(s) {
                if let Some(v) = func.phi_incoming(phi, b) {
                    func.set_phi_incoming(phi, bmap[&b], operand(v));
                }
            }
        }
    }
    (bmap, vmap)
}

/// Removes every phi incoming whose block no longer branches to the phi's block.
fn drop_stale_phi_incomings(func: &mut Function) {
    let cfg = Cfg::new(func);
    for b in func.layout.clone() {
        for phi in func.phis(b) {
            let Op::Phi(preds) = &func.insts[phi].op else {
                continue;
            };
            let stale: Vec<Block> = preds
                .iter()
                .copied()
                .filter(|p| !cfg.preds(b).contains(p))
                .collect();
            for p in stale {
                func.remove_phi_incoming(phi, p);
            }
        }
    }
}
