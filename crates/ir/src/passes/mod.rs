//! Passes over one function, one per file, each a plain `run` function that returns whether
//! it changed the function. [`crate::pipeline`] registers them by name.
//!
//! | pass | lowered functions | structured functions |
//! |---|---|---|
//! | [`split_critical_edges`] | splits every critical edge | refuses (returns `false`) |
//! | [`remove_unreachable`] | removes blocks the entry does not reach | same, but keeps the merge blocks and continue targets that kept headers name |
//! | [`simplify_cfg`] | folds constant `br_if`, skips empty forwarding blocks, merges a block into its sole predecessor | refuses (returns `false`) |
//! | [`dead_code`] | removes unused instructions without effects | same |
//! | [`reverse_post_order`] | lays blocks out in reverse post-order | same |
//! | [`renumber`] | numbers instructions in layout order (unseen in the text) | same |
//!
//! Structured functions are refused where a rewrite would have to re-derive merge
//! annotations (a split back edge no longer post-dominates its continue target; merging a
//! body block into its loop header gives one block two merges).

pub mod dead_code;
pub mod remove_unreachable;
pub mod renumber;
pub mod reverse_post_order;
pub mod simplify_cfg;
pub mod split_critical_edges;

use crate::module::{Form, Function};

/// Whether `func` is in structured form, whose merge annotations a pass must keep valid.
pub fn is_structured(func: &Function) -> bool {
    func.form == Form::Structured
}
