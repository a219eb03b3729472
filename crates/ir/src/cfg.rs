//! Control-flow graph queries: successors, predecessors, reverse post-order, dominators,
//! and call-graph reachability.

use crate::hash::FxHashSet;

use crate::entity::{EntityRef, SecondaryMap};
use crate::module::{Block, Func, Function, Merge, Module, Terminator};
use crate::ops::Op;

/// Successors and predecessors of every block in a function's layout, each list a slice of
/// one shared array (compressed rows): one allocation per graph rather than two per block,
/// and lists that lie together in memory, which keeps the walks over large functions in the
/// cache.
#[derive(Clone, Debug)]
pub struct Cfg {
    /// Per block index: where its successors start in `succ_list`, and how many.
    succ_at: Vec<(u32, u32)>,
    succ_list: Vec<Block>,
    /// Per block index: where its predecessors start in `pred_list`, and how many.
    pred_at: Vec<(u32, u32)>,
    pred_list: Vec<Block>,
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
        let mut n = func.blocks.len();
        let mut succ_at = vec![(0u32, 0u32); n];
        let mut succ_list: Vec<Block> = Vec::with_capacity(func.layout.len() * 2);
        let mut pred_count = vec![0u32; n];
        let mut out: Vec<Block> = Vec::new();
        for &b in &func.layout {
            out.clear();
            let mut add = |s: Block| {
                // Few successors: a scan dedups them without a set.
                if !out.contains(&s) {
                    out.push(s);
                }
            };
            match &func.blocks[b].term {
                Terminator::Branch(t) => add(*t),
                Terminator::CondBranch {
                    if_true, if_false, ..
                } => {
                    add(*if_true);
                    add(*if_false);
                }
                Terminator::Switch { default, cases, .. } => {
                    add(*default);
                    for (_, t) in cases {
                        add(*t);
                    }
                }
                _ => {}
            }
            if merge_edges {
                match func.blocks[b].merge {
                    Some(Merge::Selection { merge, .. }) => add(merge),
                    Some(Merge::Loop {
                        merge,
                        continue_target,
                        ..
                    }) => {
                        add(merge);
                        add(continue_target);
                    }
                    None => {}
                }
            }
            // Blocks named but not created (invalid input the verifier reports) still get
            // a row.
            let top = out
                .iter()
                .chain([&b])
                .map(|x| x.index() + 1)
                .max()
                .unwrap_or(0);
            if top > n {
                n = top;
                succ_at.resize(n, (0, 0));
                pred_count.resize(n, 0);
            }
            succ_at[b.index()] = (succ_list.len() as u32, out.len() as u32);
            for &s in &out {
                pred_count[s.index()] += 1;
            }
            succ_list.extend_from_slice(&out);
        }
        // Predecessors in layout order: rows by prefix sums, filled by a second pass.
        let mut pred_at = Vec::with_capacity(n);
        let mut total = 0u32;
        for &c in &pred_count {
            pred_at.push((total, 0u32));
            total += c;
        }
        let mut pred_list = vec![Block::from_u32(0); total as usize];
        for &b in &func.layout {
            let (at, len) = succ_at[b.index()];
            for &s in &succ_list[at as usize..(at + len) as usize] {
                let row = &mut pred_at[s.index()];
                pred_list[(row.0 + row.1) as usize] = b;
                row.1 += 1;
            }
        }
        Cfg {
            succ_at,
            succ_list,
            pred_at,
            pred_list,
        }
    }

    /// The distinct successors of `b`, in terminator operand order.
    pub fn succs(&self, b: Block) -> &[Block] {
        match self.succ_at.get(b.index()) {
            Some(&(at, len)) => &self.succ_list[at as usize..(at + len) as usize],
            None => &[],
        }
    }

    /// The distinct predecessors of `b`, in layout order.
    pub fn preds(&self, b: Block) -> &[Block] {
        match self.pred_at.get(b.index()) {
            Some(&(at, len)) => &self.pred_list[at as usize..(at + len) as usize],
            None => &[],
        }
    }
}

/// The blocks reachable from the entry, in reverse post-order of a depth-first search that
/// visits successors in terminator operand order.
pub fn reverse_post_order(func: &Function, cfg: &Cfg) -> Vec<Block> {
    let Some(entry) = func.entry() else {
        return Vec::new();
    };
    // Dense by block number: a hash set's random accesses cost a cache miss each on large
    // functions.
    let mut visited: SecondaryMap<Block, bool> =
        SecondaryMap::with_capacity(false, func.blocks.len());
    let mut post = Vec::with_capacity(func.layout.len());
    // Iterative DFS: (block, next successor index). A chain of blocks makes the stack as
    // deep as the function is long; reserving it up front spares the copies of growing it
    // (unused capacity is never touched).
    let mut stack = Vec::with_capacity(func.layout.len() + 1);
    stack.push((entry, 0usize));
    visited.set(entry, true);
    while let Some((b, i)) = stack.pop() {
        let succs = cfg.succs(b);
        if i < succs.len() {
            stack.push((b, i + 1));
            let s = succs[i];
            if !*visited.get(s) {
                visited.set(s, true);
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
        let mut rpo_index = SecondaryMap::with_capacity(None, func.blocks.len());
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

    /// The blocks `b` immediately dominates, in the order of [`DomTree::children`], without
    /// collecting them (walks of a subtree visit every block: a vector per block visited
    /// cost an allocation each).
    pub fn children_iter(&self, b: Block) -> impl Iterator<Item = Block> + '_ {
        let kids = self.rpo_index.get(b).map(|i| self.tree.children(i));
        kids.into_iter().flatten().map(|c| self.rpo[c])
    }

    /// The blocks `b` immediately dominates.
    pub fn children(&self, b: Block) -> Vec<Block> {
        match *self.rpo_index.get(b) {
            Some(i) => self.tree.children(i).map(|c| self.rpo[c]).collect(),
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
    let mut seen = FxHashSet::default();
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
