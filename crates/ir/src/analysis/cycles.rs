//! Cycle nesting for any control-flow graph, irreducible ones included, in the spirit of
//! LLVM's `CycleInfo`.
//!
//! Definitions (over the blocks reachable from the entry):
//! - the outermost cycles are the strongly connected components of the graph that contain
//!   an edge (more than one block, or one block with an edge to itself);
//! - the *entries* of a cycle are its blocks with a predecessor outside it (and the function
//!   entry, if the cycle contains it);
//! - the *header* is the entry visited first by a depth-first search from the function
//!   entry that takes successors in terminator operand order (fixing the search makes the
//!   result deterministic);
//! - the cycles nested in a cycle `C` are the cycles, by the same definition, of the graph
//!   made of `C`'s blocks without its header.
//!
//! A cycle is *reducible* when its header is its only entry (a natural loop).

use super::graph::{strongly_connected, Rows};
use crate::cfg::Cfg;
use crate::entity::SecondaryMap;
use crate::module::{Block, Function};

/// A cycle's index in [`CycleInfo`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CycleId(pub u32);

/// One cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycle {
    /// The entry visited first by the depth-first search.
    pub header: Block,
    /// Every entry (the header first, then by depth-first preorder).
    pub entries: Vec<Block>,
    /// Every block of the cycle, nested cycles' blocks included, in depth-first preorder.
    pub blocks: Vec<Block>,
    /// The cycle it is nested in.
    pub parent: Option<CycleId>,
    /// The cycles nested directly in it, by their headers' preorder.
    pub children: Vec<CycleId>,
    /// 1 for an outermost cycle.
    pub depth: u32,
}

impl Cycle {
    /// Whether the header is the only entry.
    pub fn is_reducible(&self) -> bool {
        self.entries.len() == 1
    }
}

/// The cycles of a function and their nesting.
#[derive(Clone, Debug)]
pub struct CycleInfo {
    cycles: Vec<Cycle>,
    top_level: Vec<CycleId>,
    innermost: SecondaryMap<Block, Option<CycleId>>,
    preorder: Vec<Block>,
}

impl CycleInfo {
    /// Computes the cycles of `func` over the graph `cfg`.
    pub fn new(func: &Function, cfg: &Cfg) -> Self {
        let preorder = dfs_preorder(func, cfg);
        let mut index = SecondaryMap::with_capacity(usize::MAX, func.blocks.len());
        for (i, &b) in preorder.iter().enumerate() {
            index.set(b, i);
        }
        let n = preorder.len();
        // Compressed rows, not a vector per block (docs/lowering-speed.md, round 4).
        let mut succs = Rows::with_capacity(n, n + n / 2);
        for &b in &preorder {
            succs.push_row(cfg.succs(b).iter().map(|&s| *index.get(s)));
        }
        let preds = succs.reversed(|_| true);
        let mut info = CycleInfo {
            cycles: Vec::new(),
            top_level: Vec::new(),
            innermost: SecondaryMap::with_capacity(None, func.blocks.len()),
            preorder,
        };
        // Work list of (member blocks, ascending, parent cycle). Each list's components are
        // found on the subgraph of its members alone, renumbered 0..k, so the work is the
        // sum of the cycles' sizes, not the function's size once per cycle.
        let mut work: Vec<(Vec<usize>, Option<CycleId>)> = vec![((0..n).collect(), None)];
        let mut local = vec![usize::MAX; n];
        while let Some((members, parent)) = work.pop() {
            for (i, &v) in members.iter().enumerate() {
                local[v] = i;
            }
            let mut sub = Rows::with_capacity(members.len(), members.len() + members.len() / 2);
            for &v in &members {
                sub.push_row(
                    succs
                        .row(v)
                        .iter()
                        .map(|&s| local[s as usize])
                        .filter(|&s| s != usize::MAX),
                );
            }
            for &v in &members {
                local[v] = usize::MAX;
            }
            let k = members.len();
            let starts: Vec<usize> = (0..k).collect();
            let mut found = Vec::new();
            for comp in strongly_connected(&sub, &vec![true; k], &starts) {
                let mut comp: Vec<usize> = comp.into_iter().map(|i| members[i]).collect();
                let is_cycle = comp.len() > 1 || succs.row(comp[0]).contains(&(comp[0] as u32));
                if !is_cycle {
                    continue;
                }
                comp.sort_unstable();
                let inside = |v: usize| comp.binary_search(&v).is_ok();
                let entries: Vec<usize> = comp
                    .iter()
                    .copied()
                    .filter(|&v| v == 0 || preds.row(v).iter().any(|&p| !inside(p as usize)))
                    .collect();
                let header = entries[0];
                let id = CycleId(info.cycles.len() as u32);
                let depth = parent.map_or(1, |p| info.cycles[p.0 as usize].depth + 1);
                for &v in &comp {
                    info.innermost.set(info.preorder[v], Some(id));
                }
                info.cycles.push(Cycle {
                    header: info.preorder[header],
                    entries: entries.iter().map(|&v| info.preorder[v]).collect(),
                    blocks: comp.iter().map(|&v| info.preorder[v]).collect(),
                    parent,
                    children: Vec::new(),
                    depth,
                });
                found.push((header, id));
                let inner: Vec<usize> = comp.iter().copied().filter(|&v| v != header).collect();
                work.push((inner, Some(id)));
            }
            found.sort_unstable();
            let ids = found.into_iter().map(|(_, id)| id).collect();
            match parent {
                Some(p) => info.cycles[p.0 as usize].children = ids,
                None => info.top_level = ids,
            }
        }
        info
    }

    /// Every cycle, by id.
    pub fn cycles(&self) -> impl Iterator<Item = (CycleId, &Cycle)> {
        self.cycles
            .iter()
            .enumerate()
            .map(|(i, c)| (CycleId(i as u32), c))
    }

    /// The cycle with id `id`.
    pub fn cycle(&self, id: CycleId) -> &Cycle {
        &self.cycles[id.0 as usize]
    }

    /// The outermost cycles, by their headers' preorder.
    pub fn top_level(&self) -> &[CycleId] {
        &self.top_level
    }

    /// The innermost cycle containing `b`, if any.
    pub fn innermost(&self, b: Block) -> Option<CycleId> {
        *self.innermost.get(b)
    }

    /// How many cycles contain `b` (0 outside every cycle).
    pub fn depth(&self, b: Block) -> u32 {
        self.innermost(b).map_or(0, |c| self.cycle(c).depth)
    }

    /// Whether cycle `c` contains block `b` (directly or in a nested cycle).
    pub fn contains(&self, c: CycleId, b: Block) -> bool {
        let mut cur = self.innermost(b);
        while let Some(x) = cur {
            if x == c {
                return true;
            }
            cur = self.cycle(x).parent;
        }
        false
    }

    /// The blocks outside cycle `c` that a block of `c` branches to, in the order found.
    pub fn exit_blocks(&self, c: CycleId, cfg: &Cfg) -> Vec<Block> {
        let mut out = Vec::new();
        for &b in &self.cycle(c).blocks {
            for &s in cfg.succs(b) {
                if !self.contains(c, s) && !out.contains(&s) {
                    out.push(s);
                }
            }
        }
        out
    }

    /// The reachable blocks in the depth-first preorder that picks headers.
    pub fn preorder(&self) -> &[Block] {
        &self.preorder
    }
}

/// The blocks reachable from the entry in depth-first preorder, successors in operand order.
pub fn dfs_preorder(func: &Function, cfg: &Cfg) -> Vec<Block> {
    let Some(entry) = func.entry() else {
        return Vec::new();
    };
    // Dense by block number, and both lists reserved: a chain of blocks makes the stack as
    // deep as the function is long.
    let mut seen = SecondaryMap::with_capacity(false, func.blocks.len());
    seen.set(entry, true);
    let mut order = Vec::with_capacity(func.layout.len());
    order.push(entry);
    let mut stack = Vec::with_capacity(func.layout.len() + 1);
    stack.push((entry, 0usize));
    while let Some((b, i)) = stack.pop() {
        if let Some(&s) = cfg.succs(b).get(i) {
            stack.push((b, i + 1));
            if !std::mem::replace(seen.get_mut(s), true) {
                order.push(s);
                stack.push((s, 0));
            }
        }
    }
    order
}
