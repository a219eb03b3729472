//! Critical-edge splitting: an edge from a block with several successors to a block with
//! several predecessors gets a block of its own, so that code can be placed on the edge
//! (the lowering's barrier operations, phi copies). Refused on structured functions.

use crate::cfg::Cfg;
use crate::module::{Block, Function};

/// Splits every critical edge of a lowered function; returns whether any was split.
pub fn run(func: &mut Function) -> bool {
    if super::is_structured(func) {
        return false;
    }
    let cfg = Cfg::new(func);
    let edges: Vec<(Block, Block)> = func
        .layout
        .iter()
        .flat_map(|&b| cfg.succs(b).iter().map(move |&s| (b, s)))
        .filter(|&(b, s)| cfg.succs(b).len() > 1 && cfg.preds(s).len() > 1)
        .collect();
    for &(b, s) in &edges {
        func.split_edge(b, s);
    }
    !edges.is_empty()
}
