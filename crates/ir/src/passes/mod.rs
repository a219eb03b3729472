//! Control-flow passes, one per file, each a plain `run` function that returns whether it
//! changed the function:
//!
//! | pass | lowered functions | structured functions |
//! |---|---|---|
//! | [`split_critical_edges`] | splits every critical edge | refuses (returns `false`) |
//! | [`remove_unreachable`] | removes blocks the entry does not reach | same, but keeps the merge blocks and continue targets that kept headers name |
//! | [`simplify_cfg`] | folds constant `br_if`, skips empty forwarding blocks, merges a block into its sole predecessor | refuses (returns `false`) |
//!
//! Structured functions are refused where a rewrite would have to re-derive merge
//! annotations (a split back edge no longer post-dominates its continue target; merging a
//! body block into its loop header gives one block two merges). Until functions carry their
//! form, a function counts as structured when any block has a merge annotation.

pub mod remove_unreachable;
pub mod simplify_cfg;
pub mod split_critical_edges;

use crate::module::Function;

/// Whether `func` is in structured form (has a merge annotation).
pub fn is_structured(func: &Function) -> bool {
    func.layout
        .iter()
        .any(|&b| func.blocks.get(b).is_some_and(|d| d.merge.is_some()))
}
