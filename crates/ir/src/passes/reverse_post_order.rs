//! Lays a function's blocks out in reverse post-order.
//!
//! Reverse post-order puts every block after its dominators, which is SPIR-V's block-order
//! rule, and keeps a loop's body between its header and its exit as far as the graph
//! allows, which is what a back end laying out fall-through code wants. The depth-first
//! search visits successors in terminator operand order, so the result is deterministic.
//! Blocks the entry does not reach keep their relative order and go after the others; the
//! entry block stays first. Nothing but the layout changes, so a structured function stays
//! structured.

use crate::cfg::{reverse_post_order, Cfg};
use crate::hash::FxHashSet;
use crate::module::Function;

/// Reorders `func.layout`; returns whether the order changed.
pub fn run(func: &mut Function) -> bool {
    let cfg = Cfg::new(func);
    let mut order = reverse_post_order(func, &cfg);
    let reached: FxHashSet<_> = order.iter().copied().collect();
    order.extend(func.layout.iter().copied().filter(|b| !reached.contains(b)));
    if order == func.layout {
        return false;
    }
    func.layout = order;
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::{Block, Terminator};
    use crate::types::TypeTable;

    /// Every permutation of a layout, by Heap's algorithm.
    fn permutations(items: &[Block]) -> Vec<Vec<Block>> {
        fn heap(k: usize, a: &mut Vec<Block>, out: &mut Vec<Vec<Block>>) {
            if k <= 1 {
                out.push(a.clone());
                return;
            }
            for i in 0..k {
                heap(k - 1, a, out);
                let j = if k % 2 == 0 { i } else { 0 };
                a.swap(j, k - 1);
            }
        }
        let mut a = items.to_vec();
        let mut out = Vec::new();
        heap(a.len(), &mut a, &mut out);
        out
    }

    /// Whether every block reachable from the entry comes after every block that dominates
    /// it, with dominance computed by brute force: `d` dominates `b` when `b` is not
    /// reachable from the entry once `d` is removed.
    fn dominators_first(func: &Function) -> bool {
        let entry = func.layout[0];
        let reach = |skip: Option<Block>| {
            let mut seen = FxHashSet::default();
            let mut stack = vec![entry];
            while let Some(b) = stack.pop() {
                if Some(b) == skip || !seen.insert(b) {
                    continue;
                }
                stack.extend(func.blocks[b].term.successors());
            }
            seen
        };
        let all = reach(None);
        let pos = |b: Block| func.layout.iter().position(|x| *x == b).unwrap();
        for &b in &all {
            for &d in &all {
                if d != b && d != entry && !reach(Some(d)).contains(&b) && pos(d) > pos(b) {
                    return false;
                }
            }
        }
        true
    }

    #[test]
    fn every_layout_of_small_graphs_ends_with_dominators_first() {
        // Five blocks with two successors each drawn from a fixed pseudo-random sequence:
        // loops, irreducible cycles and unreachable blocks all occur.
        let mut types = TypeTable::new();
        let void = types.void();
        let mut seed = 0x2545_f491_u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        let mut checked = 0;
        for _ in 0..60 {
            let mut func = Function::new(None, void);
            let blocks: Vec<Block> = (0..5).map(|_| func.add_block()).collect();
            for &b in &blocks {
                let (s, t) = (next() % 6, next() % 6);
                func.blocks[b].term = match (s, t) {
                    (5, _) => Terminator::Return,
                    (s, 5) => Terminator::Branch(blocks[s as usize]),
                    (s, t) => Terminator::Switch {
                        selector: crate::module::Operand::Const(crate::module::Const::from_u32(0)),
                        default: blocks[s as usize],
                        cases: vec![(1, blocks[t as usize])],
                    },
                };
            }
            let entry = blocks[0];
            for mut layout in permutations(&blocks[1..]) {
                layout.insert(0, entry);
                func.layout = layout.clone();
                run(&mut func);
                assert_eq!(func.layout[0], entry);
                let mut sorted = func.layout.clone();
                sorted.sort();
                assert_eq!(sorted, blocks, "a permutation of the blocks");
                assert!(dominators_first(&func), "{:?}", func.layout);
                // A second run changes nothing.
                let once = func.layout.clone();
                assert!(!run(&mut func));
                assert_eq!(func.layout, once);
                checked += 1;
            }
        }
        assert_eq!(checked, 60 * 24);
    }
}
