//! The static token rules by brute force, written apart from the verifier
//! (`tangle_ir::verify::tokens`), as the oracle it is compared with.
//!
//! A closed path visits a set of blocks that is strongly connected in the subgraph those
//! blocks induce (and has an edge), and every such set is the set of some closed path;
//! every closed-path rule depends only on which blocks a path visits. So enumerating the
//! subsets of the reachable blocks enumerates the closed paths up to what matters. Dominance
//! is by removal: `a` dominates `b` when `b` cannot be reached from the entry without `a`.
//! Regions are computed over program points (each instruction and each terminator) with
//! explicit searches.

use std::collections::{BTreeSet, HashSet, VecDeque};

use tangle_ir::module::{Block, Func, Function, Inst, Module, ValueDef};
use tangle_ir::ops::{Op, TangleOp};

/// One kind of static rule, as the brute-force oracle names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Broken {
    /// `conv_entry` twice, outside the entry block, after another convergent operation of
    /// its block, or in a non-convergent function.
    EntryPlacement,
    /// `conv_loop` after another convergent operation of its block.
    LoopPlacement,
    /// A token operand on a non-convergent operation, a missing or extra operand on a token
    /// operation, or a token operand not defined by a token operation.
    Operand,
    /// Controlled and uncontrolled convergent operations in one function.
    Mixing,
    /// Closed-path rule 1: a use other than `conv_loop` on a closed path without the
    /// token's definition.
    UseInCycle,
    /// Closed-path rules 2 and 3: two uses of tokens defined off a closed path on it.
    TwoHearts,
    /// Closed-path rule 4: a use on a closed path without its definition that does not
    /// dominate every block of the path.
    HeartDominance,
    /// Convergence regions that do not nest.
    Nesting,
}

/// Every rule kind function `f` breaks, by brute force. Blocks the entry does not reach
/// take part only in the placement and mixing rules. The closed paths are enumerated as
/// subsets of the reachable blocks, so this is for small graphs: it panics on more than 20
/// reachable blocks (a test oracle, not a checker for real code).
pub fn check(module: &Module, f: Func) -> BTreeSet<Broken> {
    let func = &module.funcs[f];
    let mut out = BTreeSet::new();
    let Some(entry) = func.entry() else {
        return out;
    };
    let g = Graph::new(func);
    let convergent = |i: Inst| -> bool {
        let d = &func.insts[i];
        d.conv.is_some()
            || match d.op {
                Op::Call(c) => module.funcs[c].convergent,
                Op::Group { .. } | Op::ControlBarrier { .. } => true,
                Op::Tangle(t) => !matches!(t, TangleOp::Exit),
                _ => false,
            }
    };
    let kind = |i: Inst| match func.insts[i].op {
        Op::Tangle(t @ (TangleOp::ConvEntry | TangleOp::ConvAnchor | TangleOp::ConvLoop)) => {
            Some(t)
        }
        _ => None,
    };
    // Placement, operands and mixing, over every block.
    let mut entries = 0;
    let (mut controlled, mut uncontrolled) = (false, false);
    for &b in &func.layout {
        let mut before = false;
        for &i in &func.blocks[b].insts {
            let d = &func.insts[i];
            match kind(i) {
                Some(TangleOp::ConvEntry) => {
                    entries += 1;
                    if entries > 1 || b != entry || before || !func.convergent {
                        out.insert(Broken::EntryPlacement);
                    }
                    if d.conv.is_some() {
                        out.insert(Broken::Operand);
                    }
                }
                Some(TangleOp::ConvAnchor) if d.conv.is_some() => {
                    out.insert(Broken::Operand);
                }
                Some(TangleOp::ConvLoop) => {
                    if before {
                        out.insert(Broken::LoopPlacement);
                    }
                    if d.conv.is_none() {
                        out.insert(Broken::Operand);
                    }
                }
                _ => {}
            }
            if let Some(t) = d.conv {
                let by_token_op =
                    matches!(func.values[t].def, ValueDef::Inst(x) if kind(x).is_some());
                let callee_ok = match d.op {
                    Op::Call(c) => module.funcs[c].convergent,
                    _ => true,
                };
                if !by_token_op || !callee_ok || !convergent(i) {
                    out.insert(Broken::Operand);
                }
            }
            let barrier = matches!(
                d.op,
                Op::Tangle(TangleOp::BarSet | TangleOp::BarSync | TangleOp::BarBreak)
            );
            if d.conv.is_some() || kind(i).is_some() {
                controlled = true;
            } else if convergent(i) && !barrier {
                uncontrolled = true;
            }
            before |= convergent(i);
        }
    }
    if controlled && uncontrolled {
        out.insert(Broken::Mixing);
    }
    if out.contains(&Broken::Operand) {
        return out;
    }
    // Token definitions and uses in reachable blocks, as (block, index).
    let mut defs = Vec::new();
    let mut uses = Vec::new();
    for &b in &g.blocks {
        for (k, &i) in func.blocks[b].insts.iter().enumerate() {
            if kind(i).is_some() {
                defs.push((i, (b, k)));
            }
            if let Some(t) = func.insts[i].conv {
                let ValueDef::Inst(d) = func.values[t].def else {
                    continue;
                };
                uses.push(((b, k), i, d));
            }
        }
    }
    let site_of = |d: Inst| defs.iter().find(|(x, _)| *x == d).map(|(_, s)| *s);
    closed_paths(&g, &uses, &site_of, &kind, &mut out);
    nesting(func, &g, &defs, &uses, &site_of, &mut out);
    out
}

type Point = (Block, usize);

/// The reachable blocks and their edges.
struct Graph {
    entry: Block,
    blocks: Vec<Block>,
    succs: Vec<Vec<usize>>,
}

impl Graph {
    fn new(func: &Function) -> Self {
        let entry = func.layout[0];
        let mut blocks = vec![entry];
        let mut k = 0;
        while k < blocks.len() {
            for s in func.blocks[blocks[k]].term.successors() {
                if !blocks.contains(&s) {
                    blocks.push(s);
                }
            }
            k += 1;
        }
        let succs = blocks
            .iter()
            .map(|&b| {
                let mut v: Vec<usize> = func.blocks[b]
                    .term
                    .successors()
                    .iter()
                    .map(|s| blocks.iter().position(|x| x == s).unwrap_or(0))
                    .collect();
                v.dedup();
                v
            })
            .collect();
        Graph {
            entry,
            blocks,
            succs,
        }
    }

    fn index(&self, b: Block) -> usize {
        self.blocks.iter().position(|&x| x == b).unwrap_or(0)
    }

    /// Whether `b` is reachable from the entry when block `removed` is taken away.
    fn reachable_without(&self, removed: usize, b: usize) -> bool {
        if removed == 0 {
            return false;
        }
        let mut seen = vec![false; self.blocks.len()];
        let mut stack = vec![0];
        seen[0] = true;
        while let Some(x) = stack.pop() {
            for &s in &self.succs[x] {
                if s != removed && !seen[s] {
                    seen[s] = true;
                    stack.push(s);
                }
            }
        }
        seen[b]
    }

    fn dominates(&self, a: usize, b: usize) -> bool {
        a == b || !self.reachable_without(a, b)
    }

    /// Whether the blocks of `set` (a bit set over indices) hold a closed path visiting all
    /// of them: strongly connected in their induced subgraph, with an edge.
    fn is_closed_path(&self, set: u64) -> bool {
        let members: Vec<usize> = (0..self.blocks.len())
            .filter(|&i| set >> i & 1 == 1)
            .collect();
        let inside = |i: usize| set >> i & 1 == 1;
        if members.len() == 1 {
            return self.succs[members[0]].contains(&members[0]);
        }
        let reach = |forward: bool| -> usize {
            let mut seen = HashSet::from([members[0]]);
            let mut queue = VecDeque::from([members[0]]);
            while let Some(x) = queue.pop_front() {
                for y in 0..self.blocks.len() {
                    let edge = if forward {
                        self.succs[x].contains(&y)
                    } else {
                        self.succs[y].contains(&x)
                    };
                    if edge && inside(y) && seen.insert(y) {
                        queue.push_back(y);
                    }
                }
            }
            seen.len()
        };
        reach(true) == members.len() && reach(false) == members.len()
    }
}

/// The four closed-path rules over every closed path (every strongly connected set).
fn closed_paths(
    g: &Graph,
    uses: &[(Point, Inst, Inst)],
    site_of: &dyn Fn(Inst) -> Option<Point>,
    kind: &dyn Fn(Inst) -> Option<TangleOp>,
    out: &mut BTreeSet<Broken>,
) {
    let n = g.blocks.len();
    assert!(n <= 20, "the brute-force oracle is for small graphs");
    for set in 1u64..(1u64 << n) {
        if !g.is_closed_path(set) {
            continue;
        }
        let on = |b: Block| set >> g.index(b) & 1 == 1;
        // Uses on the path whose token is defined off it.
        let off: Vec<&(Point, Inst, Inst)> = uses
            .iter()
            .filter(|(at, _, d)| on(at.0) && site_of(*d).is_some_and(|s| !on(s.0)))
            .collect();
        for (at, user, _) in &off {
            if kind(*user) != Some(TangleOp::ConvLoop) {
                out.insert(Broken::UseInCycle);
            }
            let ub = g.index(at.0);
            if (0..n).any(|x| set >> x & 1 == 1 && !g.dominates(ub, x)) {
                out.insert(Broken::HeartDominance);
            }
        }
        if off.len() >= 2 {
            out.insert(Broken::TwoHearts);
        }
    }
}

/// Regions nest: computed over program points by explicit search.
fn nesting(
    func: &Function,
    g: &Graph,
    defs: &[(Inst, Point)],
    uses: &[(Point, Inst, Inst)],
    site_of: &dyn Fn(Inst) -> Option<Point>,
    out: &mut BTreeSet<Broken>,
) {
    // Program points: (block, k) for k in 0..=len (len is the terminator).
    let next = |p: Point| -> Vec<Point> {
        if p.1 < func.blocks[p.0].insts.len() {
            vec![(p.0, p.1 + 1)]
        } else {
            func.blocks[p.0]
                .term
                .successors()
                .into_iter()
                .map(|s| (s, 0))
                .collect()
        }
    };
    let search = |from: Point, avoid: Point, goal: &dyn Fn(Point) -> bool| -> bool {
        if from == avoid {
            return false;
        }
        let mut seen = HashSet::from([from]);
        let mut stack = vec![from];
        while let Some(p) = stack.pop() {
            if goal(p) {
                return true;
            }
            for q in next(p) {
                if q != avoid && seen.insert(q) {
                    stack.push(q);
                }
            }
        }
        false
    };
    let entry: Point = (g.entry, 0);
    for &(d1, dp) in defs {
        let my_uses: Vec<Point> = uses.iter().filter(|u| u.2 == d1).map(|u| u.0).collect();
        if my_uses.is_empty() {
            continue;
        }
        let in_region = |p: Point| -> bool {
            // Strictly dominated by the definition: not reachable from the entry without it.
            let dominated = p != dp && !search(entry, dp, &|q| q == p);
            dominated && search(p, dp, &|q| my_uses.contains(&q))
        };
        for (at, _, d2) in uses.iter().filter(|u| u.2 != d1) {
            if in_region(*at) && !site_of(*d2).is_some_and(&in_region) {
                out.insert(Broken::Nesting);
            }
        }
    }
}
