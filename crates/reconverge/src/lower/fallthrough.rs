//! Where the lowered form relies on the scheduler for the switch fallthrough policy.
//!
//! The lowering implements the reference's `FallthroughPolicy::Independent`: lanes that
//! fall through from one case into the next run it apart from the lanes that switched to
//! it directly. In the lowered form both kinds of lanes run the same blocks, and nothing
//! but the schedule keeps them apart: on hardware (and under the barrier machine's `strict`
//! and the other fair policies) groups merge only where a barrier releases them, but a
//! scheduler that merges groups standing at one point (the machine's `opportunistic`
//! stress policy) runs them as one tangle, which is the `Merge` policy's tangle. Keeping
//! them apart under such a scheduler would take a copy of the fallen-into case for the
//! fallthrough lanes (not done yet; docs/lowering.md). This lists the switches where
//! that can happen, so that tests can tell such runs apart.

use tangle_ir::analysis::ConstructTree;
use tangle_ir::cfg::{Cfg, DomTree};
use tangle_ir::{Block, Func, Module, Terminator};

use crate::Uniformity;

/// The divergent switches (function, header block) of `module` in which some case can fall
/// through into another, as an execution can reach them (after promoting variables, as
/// the lowering does).
pub fn divergent_fallthroughs(module: &Module) -> Vec<(Func, Block)> {
    let mut m = module.clone();
    super::promote_all(&mut m);
    let uniformity = Uniformity::analyse(&m);
    let mut out = Vec::new();
    for (fid, func) in m.funcs.iter() {
        let Some(u) = uniformity.function(fid) else {
            continue;
        };
        if func.layout.is_empty() {
            continue;
        }
        let tree = ConstructTree::new(func);
        let dom = DomTree::new(func, &Cfg::new(func));
        for &b in &func.layout {
            if !matches!(func.blocks[b].term, Terminator::Switch { .. })
                || u.branch_is_uniform(b)
                || !dom.is_reachable(b)
            {
                continue;
            }
            let falls = tree
                .executable_case_fallthrough(func, &dom, b)
                .iter()
                .any(|(_, into)| into.is_some());
            if falls {
                out.push((fid, b));
            }
        }
    }
    out
}
