//! Control-flow graph queries: successors, predecessors, reverse post-order, dominators,
//! and call-graph reachability.

use std::collections::HashSet;

use crate::entity::{EntityRef, SecondaryMap};
use crate::module::{Block, Func, Function, Merge, Module};
use crate::ops::Op;

/// Successors and predecessors of every block in a function's layout.
#[derive(Clone, Debug)]
pub struct Cfg {
    succs: SecondaryMap<Block, Vec<Block>>,
    preds: SecondaryMap<Block, Vec<Block>>,
}

impl Cfg {
    /// The graph of `func` (edges from terminators only; merge annotations are not edges).
    pub fn new(func: &Function) -> Self {
        Self::build(func, false)
    }

    /// The *structured* graph of `func`: the terminator edges plus an edge from every header
    /// to its merge block and (for loops) continue target. Dominance on this graph is the
    /// SPIR-V specification's structural dominance, which defines constructs.
    pub fn structured(func: &Function) -> Self {
        Self::build(func, true)
    }

    fn build(func: &Function, merge_edges: bool) -> Self {
        let mut succs = SecondaryMap::with_default(Vec::new());
        let mut preds: SecondaryMap<Block, Vec<Block>> = SecondaryMap::with_default(Vec::new());
        for &b in &func.layout {
            let mut out = func.blocks[b].term.successors();
            if merge_edges {
                match func.blocks[b].merge {
                    Some(Merge::Selection { merge, .. }) => out.push(merge),
                    Some(Merge::Loop {
                        merge,
                        continue_target,
                        ..
                    }) => {
                        out.push(merge);
                        out.push(continue_target);
                    }
                    None => {}
                }
            }
            out.dedup();
            let mut seen = HashSet::new();
            out.retain(|s| seen.insert(*s));
            for &s in &out {
                let mut p = preds.get(s).clone();
                p.push(b);
                preds.set(s, p);
            }
            succs.set(b, out);
        }
        Cfg { succs, preds }
    }

    /// The distinct successors of `b`, in terminator operand order.
    pub fn succs(&self, b: Block) -> &[Block] {
        self.succs.get(b)
    }

    /// The distinct predecessors of `b`, in layout order.
    pub fn preds(&self, b: Block) -> &[Block] {
        self.preds.get(b)
    }
}

/// The blocks reachable from the entry, in reverse post-order of a depth-first search that
/// visits successors in terminator operand order.
pub fn reverse_post_order(func: &Function, cfg: &Cfg) -> Vec<Block> {
    let Some(entry) = func.entry() else {
        return Vec::new();
    };
    let mut visited = HashSet::new();
    let mut post = Vec::new();
    // Iterative DFS: (block, next successor index).
    let mut stack = vec![(entry, 0usize)];
    visited.insert(entry);
    while let Some((b, i)) = stack.pop() {
        let succs = cfg.succs(b);
        if i < succs.len() {
            stack.push((b, i + 1));
            let s = succs[i];
            if visited.insert(s) {
                stack.push((s, 0));
            }
        } else {
            post.push(b);
        }
    }
    post.reverse();
    post
}

/// The dominator tree of the blocks reachable from the entry (Cooper, Harvey and Kennedy's
/// iterative algorithm over reverse post-order).
#[derive(Clone, Debug)]
pub struct DomTree {
    rpo: Vec<Block>,
    rpo_index: SecondaryMap<Block, Option<usize>>,
    idom: Vec<usize>,
    /// The dominator tree by reverse post-order position, numbered so that `a` dominates
    /// `b` iff `a`'s interval contains `b`'s.
    tree: crate::analysis::graph::Intervals,
}

impl DomTree {
    /// Computes the dominator tree of `func`.
    pub fn new(func: &Function, cfg: &Cfg) -> Self {
        let rpo = reverse_post_order(func, cfg);
        let mut rpo_index = SecondaryMap::with_default(None);
        for (i, &b) in rpo.iter().enumerate() {
            rpo_index.set(b, Some(i));
        }
        const UNDEF: usize = usize::MAX;
        let mut idom = vec![UNDEF; rpo.len()];
        if !rpo.is_empty() {
            idom[0] = 0;
        }
        let mut changed = true;
        while changed {
            changed = false;
            for i in 1..rpo.len() {
                let mut new_idom = UNDEF;
                for &p in cfg.preds(rpo[i]) {
                    let Some(pi) = *rpo_index.get(p) else {
                        continue;
                    };
                    if idom[pi] == UNDEF {
                        continue;
                    }
                    new_idom = if new_idom == UNDEF {
                        pi
                    } else {
                        intersect(&idom, pi, new_idom)
                    };
                }
                if new_idom != idom[i] {
                    idom[i] = new_idom;
                    changed = true;
                }
            }
        }
        let parent: Vec<Option<usize>> = (0..rpo.len())
            .map(|i| (i > 0 && idom[i] != UNDEF).then(|| idom[i]))
            .collect();
        let tree = crate::analysis::graph::Intervals::new(&parent);
        DomTree {
            rpo,
            rpo_index,
            idom,
            tree,
        }
    }

    /// The blocks `b` immediately dominates.
    pub fn children(&self, b: Block) -> Vec<Block> {
        match *self.rpo_index.get(b) {
            Some(i) => self.tree.children[i].iter().map(|&c| self.rpo[c]).collect(),
            None => Vec::new(),
        }
    }

    /// Whether `b` is reachable from the entry.
    pub fn is_reachable(&self, b: Block) -> bool {
        self.rpo_index.get(b).is_some()
    }

    /// The reachable blocks in reverse post-order.
    pub fn rpo(&self) -> &[Block] {
        &self.rpo
    }

    /// The position of `b` in reverse post-order.
    pub fn rpo_position(&self, b: Block) -> Option<usize> {
        *self.rpo_index.get(b)
    }

    /// The immediate dominator of `b` (none for the entry and unreachable blocks).
    pub fn idom(&self, b: Block) -> Option<Block> {
        let i = (*self.rpo_index.get(b))?;
        if i == 0 {
            None
        } else {
            Some(self.rpo[self.idom[i]])
        }
    }

    /// Whether `a` dominates `b` (every block dominates itself). Unreachable blocks dominate
    /// nothing and are dominated by nothing.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        let (Some(ai), Some(bi)) = (*self.rpo_index.get(a), *self.rpo_index.get(b)) else {
            return false;
        };
        self.tree.is_ancestor(ai, bi)
    }

    /// Whether `a` strictly dominates `b`.
    pub fn strictly_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.dominates(a, b)
    }
}

fn intersect(idom: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while a > b {
            a = idom[a];
        }
        while b > a {
            b = idom[b];
        }
    }
    a
}

/// The functions `func` calls directly, in first-call order.
pub fn callees(func: &Function) -> Vec<Func> {
    let mut out = Vec::new();
    for &b in &func.layout {
        for &i in &func.blocks[b].insts {
            if let Op::Call(f) = func.insts[i].op {
                if !out.contains(&f) {
                    out.push(f);
                }
            }
        }
    }
    out
}

/// Whether `to` is `from` or reachable from it through calls.
pub fn call_graph_reaches(module: &Module, from: Func, to: Func) -> bool {
    let mut seen = HashSet::new();
    let mut stack = vec![from];
    while let Some(f) = stack.pop() {
        if f == to {
            return true;
        }
        if !seen.insert(f) || !module.funcs.contains(f) {
            continue;
        }
        stack.extend(callees(&module.funcs[f]));
    }
    false
}

/// Functions in an order where every callee comes before its callers; `None` if the call
/// graph has a cycle (recursion, which SPIR-V forbids for shaders).
pub fn callee_first_order(module: &Module) -> Option<Vec<Func>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Active,
        Done,
    }
    let mut mark = vec![Mark::New; module.funcs.len()];
    let mut order = Vec::new();
    for root in module.funcs.keys() {
        if mark[root.index()] != Mark::New {
            continue;
        }
        let mut stack = vec![(root, 0usize)];
        mark[root.index()] = Mark::Active;
        while let Some((f, i)) = stack.pop() {
            let calls = callees(&module.funcs[f]);
            if i < calls.len() {
                stack.push((f, i + 1));
                let c = calls[i];
                if !module.funcs.contains(c) {
                    continue;
                }
                match mark[c.index()] {
                    Mark::Active => return None,
                    Mark::New => {
                        mark[c.index()] = Mark::Active;
                        stack.push((c, 0));
                    }
                    Mark::Done => {}
                }
            } else {
                mark[f.index()] = Mark::Done;
                order.push(f);
            }
        }
    }
    Some(order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse;

    fn func(body: &str) -> Function {
        let text = format!(
            "spirv 1.3\nmemory_model GLSL450\ncapability Shader\ntype t0 = void\ntype t1 = bool\n\
             const c0 bool = true\nfn f0() -> void {{\n{body}}}\n"
        );
        let m = parse(&text).unwrap();
        m.funcs[Func::from_u32(0)].clone()
    }

    #[test]
    fn dominance_in_a_diamond_inside_a_loop() {
        // b0 -> b1 (loop header) -> b2 -> {b3, b4} -> b5 -> b1 | b6; b7 is unreachable.
        let f = func(
            "b0:\n br b1\nb1:\n br b2\nb2:\n br_if c0, b3, b4\nb3:\n br b5\nb4:\n br b5\n\
             b5:\n br_if c0, b1, b6\nb6:\n return\nb7:\n return\n",
        );
        let cfg = Cfg::new(&f);
        let dom = DomTree::new(&f, &cfg);
        let b = Block::from_u32;
        assert_eq!(dom.idom(b(5)), Some(b(2)));
        assert_eq!(dom.idom(b(1)), Some(b(0)));
        assert!(dom.dominates(b(1), b(6)));
        assert!(dom.dominates(b(2), b(5)));
        assert!(!dom.dominates(b(3), b(5)));
        assert!(!dom.dominates(b(5), b(2)));
        assert!(dom.dominates(b(4), b(4)));
        assert!(!dom.strictly_dominates(b(4), b(4)));
        assert!(!dom.is_reachable(b(7)));
        assert!(!dom.dominates(b(0), b(7)));
        assert_eq!(cfg.preds(b(1)), &[b(0), b(5)]);
        assert_eq!(reverse_post_order(&f, &cfg)[0], b(0));
        let mut kids = dom.children(b(2));
        kids.sort();
        assert_eq!(kids, vec![b(3), b(4), b(5)]);
    }
}
