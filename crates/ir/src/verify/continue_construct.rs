//! A loop's back-edge block must structurally post-dominate its continue target (SPIR-V
//! 2.11): every path from the continue target to a function exit, in the structured graph,
//! passes through the back-edge block, so the continue construct can only be left by the
//! back edge.

use std::collections::HashSet;

use super::{Location, Point, Rule, Sink};
use crate::cfg::Cfg;
use crate::module::{Block, Func, Function};

/// Checks one loop: `header`'s continue target `cont` and its single back-edge block
/// `back_edge`. `scfg` is the structured graph (merge and continue edges added).
pub(super) fn check(
    f: Func,
    func: &Function,
    scfg: &Cfg,
    header: Block,
    cont: Block,
    back_edge: Block,
    sink: &mut Sink,
) {
    if cont == back_edge {
        return;
    }
    // Search from the continue target without passing the back-edge block; reaching a block
    // with no successor (a return, kill or unreachable) is a path around it.
    let mut seen = HashSet::from([back_edge]);
    let mut stack = vec![cont];
    while let Some(b) = stack.pop() {
        if !seen.insert(b) {
            continue;
        }
        if func.blocks[b].term.successors().is_empty() {
            sink.report(
                Rule::Structure,
                Location {
                    func: Some(f),
                    block: Some(back_edge),
                    point: Some(Point::Terminator),
                    value: None,
                },
                format!(
                    "back-edge block {back_edge} of loop {header} does not structurally post-dominate the continue target {cont}: {b} is reached from it without passing {back_edge}"
                ),
            );
            return;
        }
        stack.extend(scfg.succs(b).iter().copied());
    }
}
