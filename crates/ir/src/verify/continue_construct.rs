//! A loop's back-edge block must structurally post-dominate its continue target (SPIR-V
//! 2.11): every path from the continue target to the function's exit, in the structured
//! graph, passes through the back-edge block, so the continue construct can only be left by
//! the back edge. Decided with the shared [`PostDomTree`] of the structured graph, whose
//! virtual exit also follows every infinite loop.

use crate::hash::FxHashSet;

use super::{Location, Point, Rule, Sink};
use crate::analysis::PostDomTree;
use crate::cfg::Cfg;
use crate::module::{Block, Func, Function};

/// Checks one loop: `(header, continue target, back-edge block)`. `scfg` is the structured
/// graph (merge and continue edges added) and `spdom` its post-dominator tree.
pub(super) fn check(
    f: Func,
    func: &Function,
    scfg: &Cfg,
    spdom: &PostDomTree,
    (header, cont, back_edge): (Block, Block, Block),
    sink: &mut Sink,
) {
    if !spdom.contains(cont) || spdom.block_post_dominates(back_edge, cont) {
        return;
    }
    // A witness for the message: a block reached from the continue target without passing
    // the back-edge block, where control leaves (an exit, or a loop that never returns).
    let mut seen = FxHashSet::from_iter([back_edge]);
    let mut stack = vec![cont];
    let mut witness = cont;
    while let Some(b) = stack.pop() {
        if !seen.insert(b) {
            continue;
        }
        if func.blocks[b].term.successors().is_empty() || spdom.fake_exit_blocks().contains(&b) {
            witness = b;
            break;
        }
        stack.extend(scfg.succs(b).iter().copied());
    }
    sink.report(
        Rule::Structure,
        Location {
            func: Some(f),
            block: Some(back_edge),
            point: Some(Point::Terminator),
            value: None,
        },
        format!(
            "back-edge block {back_edge} of loop {header} does not structurally post-dominate the continue target {cont}: {witness} is reached from it without passing {back_edge}"
        ),
    );
}
