//! The post-dominator tree, rooted at a virtual exit.
//!
//! Every block without successors (`return`, `kill`, `unreachable`, ...) gets an edge to the
//! virtual exit. A function may have no such block, or blocks that cannot reach one (an
//! infinite loop): for each *terminal* strongly connected component of the blocks that
//! cannot reach the exit (one that no edge leaves), its first block in reverse post-order
//! gets an extra edge to the virtual exit, so that every reachable block post-dominates
//! itself and is post-dominated by the exit. The choice is deterministic and is part of the
//! definition the tests check.
//!
//! Only blocks reachable from the entry take part, as in [`DomTree`](crate::cfg::DomTree).

use super::graph::{immediate_dominators, strongly_connected, Intervals, Rows};
use crate::cfg::{reverse_post_order, Cfg};
use crate::entity::SecondaryMap;
use crate::module::{Block, Function};

/// A node of the post-dominator tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PostDomNode {
    /// A block of the function.
    Block(Block),
    /// The virtual exit that every exit block (and every infinite loop) leads to.
    VirtualExit,
}

/// The post-dominator tree of the blocks reachable from the entry.
#[derive(Clone, Debug)]
pub struct PostDomTree {
    /// Reachable blocks in reverse post-order; node `k = rpo.len()` is the virtual exit.
    rpo: Vec<Block>,
    node: SecondaryMap<Block, Option<usize>>,
    ipdom: Vec<Option<usize>>,
    intervals: Intervals,
    /// Blocks given an edge to the virtual exit because they are in an infinite loop.
    fake_exits: Vec<Block>,
}

impl PostDomTree {
    /// Computes the post-dominator tree of `func` over the graph `cfg` (pass
    /// [`Cfg::structured`] for SPIR-V's *structural* post-dominance).
    pub fn new(func: &Function, cfg: &Cfg) -> Self {
        let rpo = reverse_post_order(func, cfg);
        let k = rpo.len();
        let mut node = SecondaryMap::with_capacity(None, func.blocks.len());
        for (i, &b) in rpo.iter().enumerate() {
            node.set(b, Some(i));
        }
        let idx = |b: Block| {
            node.get(b)
                .expect("successor of a reachable block is reachable")
        };
        // The forward graph with the exit edges, as indices; the exit (node `k`) has no
        // successors. `fake` are the nodes given an extra edge to the exit.
        let forward = |fake: &[usize]| {
            let mut succs = Rows::with_capacity(k + 1, k + k / 2 + 1);
            for (v, &b) in rpo.iter().enumerate() {
                let out = cfg.succs(b);
                let extra = (out.is_empty() || fake.binary_search(&v).is_ok()).then_some(k);
                succs.push_row(out.iter().map(|&s| idx(s)).chain(extra));
            }
            succs.push_row([]);
            succs
        };
        let succs = forward(&[]);
        // The reversed graph; the exit's successors are the exit blocks in block order.
        let mut rev = succs.reversed(|_| true);
        // Blocks that cannot reach the exit, and the fake edges out of their sink components.
        let reaches = reaches_exit(&rev, k);
        let stuck: Vec<bool> = (0..=k).map(|v| v < k && !reaches[v]).collect();
        let mut fake_exits = Vec::new();
        if stuck.iter().any(|&s| s) {
            let order: Vec<usize> = (0..k).collect();
            for comp in strongly_connected(&succs, &stuck, &order) {
                let terminal = comp
                    .iter()
                    .all(|&v| succs.row(v).iter().all(|&s| comp.contains(&(s as usize))));
                if terminal {
                    let first = *comp.iter().min().expect("components are non-empty");
                    fake_exits.push(first);
                }
            }
            fake_exits.sort_unstable();
            rev = forward(&fake_exits).reversed(|_| true);
        }
        let ipdom = immediate_dominators(&rev, k);
        let intervals = Intervals::new(&ipdom);
        PostDomTree {
            fake_exits: fake_exits.iter().map(|&v| rpo[v]).collect(),
            rpo,
            node,
            ipdom,
            intervals,
        }
    }

    fn to_node(&self, i: usize) -> PostDomNode {
        if i == self.rpo.len() {
            PostDomNode::VirtualExit
        } else {
            PostDomNode::Block(self.rpo[i])
        }
    }

    fn index(&self, n: PostDomNode) -> Option<usize> {
        match n {
            PostDomNode::Block(b) => *self.node.get(b),
            PostDomNode::VirtualExit => Some(self.rpo.len()),
        }
    }

    /// Whether `b` takes part (is reachable from the entry).
    pub fn contains(&self, b: Block) -> bool {
        self.node.get(b).is_some()
    }

    /// The immediate post-dominator of `b`: a block, or the virtual exit. `None` for blocks
    /// unreachable from the entry.
    pub fn ipdom(&self, b: Block) -> Option<PostDomNode> {
        let i = (*self.node.get(b))?;
        self.ipdom[i].map(|p| self.to_node(p))
    }

    /// The immediate post-dominator of `b` when it is a block (not the virtual exit).
    pub fn ipdom_block(&self, b: Block) -> Option<Block> {
        match self.ipdom(b)? {
            PostDomNode::Block(p) => Some(p),
            PostDomNode::VirtualExit => None,
        }
    }

    /// Whether `a` post-dominates `b`: every path from `b` to the virtual exit passes
    /// through `a` (every node post-dominates itself).
    pub fn post_dominates(&self, a: PostDomNode, b: PostDomNode) -> bool {
        match (self.index(a), self.index(b)) {
            (Some(x), Some(y)) => self.intervals.is_ancestor(x, y),
            _ => false,
        }
    }

    /// Whether block `a` post-dominates block `b`.
    pub fn block_post_dominates(&self, a: Block, b: Block) -> bool {
        self.post_dominates(PostDomNode::Block(a), PostDomNode::Block(b))
    }

    /// The blocks `n` immediately post-dominates, in reverse post-order.
    pub fn children(&self, n: PostDomNode) -> Vec<Block> {
        match self.index(n) {
            Some(i) => self.intervals.children(i).map(|c| self.rpo[c]).collect(),
            None => Vec::new(),
        }
    }

    /// The blocks given an edge to the virtual exit because they sit in a loop that no exit
    /// follows (the first block, in reverse post-order, of each such sink component).
    pub fn fake_exit_blocks(&self) -> &[Block] {
        &self.fake_exits
    }
}

/// Which nodes reach `exit` (`preds`: the reversed graph).
fn reaches_exit(preds: &Rows, exit: usize) -> Vec<bool> {
    let mut seen = vec![false; preds.len()];
    seen[exit] = true;
    let mut stack = vec![exit];
    while let Some(v) = stack.pop() {
        for &p in preds.row(v) {
            let p = p as usize;
            if !seen[p] {
                seen[p] = true;
                stack.push(p);
            }
        }
    }
    seen
}
