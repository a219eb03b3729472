//! SPIR-V's block order (section 2.16.1, "Order of blocks in a function"): every reachable
//! block appears in the layout after its dominators. spirv-val rejects a module that breaks
//! it ("Block ... appears in the binary before its dominator ..."), so the verifier checks it
//! in both forms; a reverse post-order layout always satisfies it.

use super::{Location, Rule, Sink};
use crate::cfg::DomTree;
use crate::entity::SecondaryMap;
use crate::module::{Block, Func, Function};

pub(super) fn check(f: Func, func: &Function, dom: &DomTree, sink: &mut Sink) {
    let mut position: SecondaryMap<Block, Option<usize>> = SecondaryMap::with_default(None);
    for (k, &b) in func.layout.iter().enumerate() {
        position.set(b, Some(k));
    }
    for (k, &b) in func.layout.iter().enumerate() {
        // Checking the immediate dominator decides validity: dominators form a chain, so
        // when every block follows its immediate dominator, every block follows all of
        // them. Like spirv-val, each block before its immediate dominator is reported.
        let Some(idom) = dom.idom(b) else { continue };
        if position.get(idom).is_some_and(|p| p > k) {
            sink.report(
                Rule::BlockOrder,
                Location {
                    func: Some(f),
                    block: Some(b),
                    point: None,
                    value: None,
                },
                format!("{b} appears before its dominator {idom}"),
            );
        }
    }
}
