//! Which scopes get a convergence barrier, per lowering scheme.
//!
//! `Scheme::Scopes` asks, bottom-up, whether the lanes that enter a scope together can
//! reach its exit apart; only then does it need a barrier. Lanes split only at divergent
//! branches, and a needed inner scope heals the splits inside it (its participants all meet
//! at its sync) but splits its lanes again by where they go on (its dispatch). So, in the
//! scope's region with every needed inner scope collapsed to one node whose successors are
//! its exits, a scope is needed when some split node has two different successors from
//! which the scope's exit can be reached. Loop back edges are followed, so a loop whose lanes
//! leave in different iterations needs its break scope (temporal divergence). Then, top
//! down, a needed scope is *elided* when every place its lanes go to runs, through blocks
//! with nothing observable and plain `br`s, straight into the sync of the nearest scope
//! around it that keeps its barrier (or, in an entry point, to the end: lanes that exit
//! block nobody).
//!
//! `Scheme::NakStyle` follows Mesa NAK's rules on the same uniformity analysis,
//! `Scheme::EveryDivergent` gives every divergent construct a barrier, and the baseline
//! keeps seed 000's placement (divergent ifs and loops, no continue barrier).

use std::collections::BTreeSet;
use tangle_ir::hash::{FxHashMap, FxHashSet};

use tangle_ir::cfg::{Cfg, DomTree};
use tangle_ir::{Block, Function, Merge, Op, PlainOp, Terminator};

use super::scopes::{ScopeId, ScopeKind, ScopeTree, ROOT};
use super::Scheme;
use crate::FunctionUniformity;

/// Where an edge that leaves a scope goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    /// A block.
    Block(Block),
    /// The function's return (of a function that is not an entry point).
    Return,
}

/// The facts placement reads: the scope tree, reachability, the uniformity verdicts and the
/// places each scope's lanes leave it for.
pub struct Facts<'a> {
    /// The function.
    pub func: &'a Function,
    /// Its scopes.
    pub tree: &'a ScopeTree,
    /// Its uniformity verdicts.
    pub uniformity: &'a FunctionUniformity,
    /// Whether it is an entry point (its return is an exit).
    pub is_entry: bool,
    /// Its control-flow graph.
    pub cfg: Cfg,
    /// Its dominator tree (the rewrite's plan walks it too).
    pub dom: DomTree,
    /// Blocks reachable from the entry.
    pub reachable: FxHashSet<Block>,
    /// Per scope, the targets of the edges (and returns) that leave it.
    pub exits: Vec<BTreeSet<Target>>,
}

impl<'a> Facts<'a> {
    /// Gathers the facts of `func`.
    pub fn new(
        func: &'a Function,
        tree: &'a ScopeTree,
        uniformity: &'a FunctionUniformity,
        is_entry: bool,
    ) -> Self {
        let cfg = Cfg::new(func);
        let dom = DomTree::new(func, &cfg);
        let reachable: FxHashSet<Block> = dom.rpo().iter().copied().collect();
        let mut exits = vec![BTreeSet::new(); tree.len()];
        for &a in dom.rpo() {
            for t in distinct(cfg.succs(a)) {
                for s in tree.left_by_edge(a, t) {
                    exits[s.0 as usize].insert(Target::Block(t));
                }
            }
            if !is_entry && is_return(&func.blocks[a].term) {
                for s in tree.around(a) {
                    exits[s.0 as usize].insert(Target::Return);
                }
            }
        }
        Facts {
            func,
            tree,
            uniformity,
            is_entry,
            cfg,
            dom,
            reachable,
            exits,
        }
    }

    fn divergent(&self, b: Block) -> bool {
        !self.uniformity.branch_is_uniform(b) && distinct(self.cfg.succs(b)).len() > 1
    }
}

/// The successors of a block without repeats, in order.
pub fn distinct(succs: &[Block]) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::with_capacity(succs.len());
    for &s in succs {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// Whether a terminator returns from the function.
pub fn is_return(t: &Terminator) -> bool {
    matches!(t, Terminator::Return | Terminator::ReturnValue(_))
}

/// Decides, per scope (by index), whether it gets a barrier under `scheme`.
pub fn place(facts: &Facts<'_>, scheme: Scheme) -> Vec<bool> {
    let n = facts.tree.len();
    let mut on = vec![false; n];
    match scheme {
        Scheme::Scopes => {
            let mut needed = vec![false; n];
            let ids: Vec<ScopeId> = facts.tree.ids().collect();
            for &s in ids.iter().rev() {
                needed[s.0 as usize] = if s == ROOT && facts.is_entry {
                    false
                } else {
                    needs_barrier(facts, s, &needed)
                };
            }
            on.clone_from(&needed);
            for &s in &ids {
                let kind = facts.tree.get(s).kind;
                if s != ROOT
                    && kind != ScopeKind::LoopContinue
                    && on[s.0 as usize]
                    && can_elide(facts, s, &on)
                {
                    on[s.0 as usize] = false;
                }
            }
        }
        Scheme::NakStyle | Scheme::EveryDivergent | Scheme::Baseline => {
            for s in facts.tree.ids() {
                let scope = facts.tree.get(s);
                let Some(h) = scope.header else { continue };
                on[s.0 as usize] = match (scope.kind, scheme) {
                    // NIR turns a switch into a ladder of ifs before NAK sees it; lanes
                    // of one divergent switch can reach its merge apart through a single
                    // predecessor (a fallthrough), so the real-merge test is for ifs only.
                    (ScopeKind::Selection, Scheme::NakStyle) => {
                        let is_switch =
                            matches!(facts.func.blocks[h].term, Terminator::Switch { .. });
                        facts.divergent(h)
                            && (is_switch || real_merge(facts, scope.exit))
                            && !parent_will_sync(facts, s, &on)
                    }
                    (ScopeKind::Selection, _) => facts.divergent(h),
                    (ScopeKind::LoopContinue, Scheme::Baseline) => false,
                    (ScopeKind::LoopBreak | ScopeKind::LoopContinue, _) => {
                        loop_is_divergent(facts, h)
                    }
                    (ScopeKind::Root, _) => false,
                };
            }
            if !facts.is_entry && scheme != Scheme::Baseline {
                on[ROOT.0 as usize] = needs_barrier(facts, ROOT, &on);
            }
        }
    }
    on
}

/// A node of a scope's collapsed graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Node {
    Block(Block),
    Scope(ScopeId),
    /// The scope's exit.
    Exit,
    /// Somewhere outside the scope other than its exit.
    Out,
}

/// Whether lanes entering scope `s` together can reach its exit apart, given which scopes
/// inside it keep a barrier (`on`).
fn needs_barrier(facts: &Facts<'_>, s: ScopeId, on: &[bool]) -> bool {
    let tree = facts.tree;
    let exit = tree.get(s).exit;
    let node_of = |b: Block| -> Node {
        let mut outermost = None;
        let mut x = tree.innermost(b);
        while x != s {
            if on[x.0 as usize] {
                outermost = Some(x);
            }
            match tree.get(x).parent {
                Some(p) => x = p,
                None => break,
            }
        }
        outermost.map_or(Node::Block(b), Node::Scope)
    };
    let map = |t: Target| -> Node {
        match t {
            Target::Return if s == ROOT => Node::Exit,
            Target::Return => Node::Out,
            Target::Block(b) if !tree.contains(s, b) => {
                if Some(b) == exit {
                    Node::Exit
                } else {
                    Node::Out
                }
            }
            Target::Block(b) => node_of(b),
        }
    };
    // The collapsed graph: every node numbered in the order first seen (the exit is 0),
    // and the successors of the nodes the region's blocks stand for, node after node in
    // one array (`rows[k]`: node `k`'s range of `edges`, once expanded). A map of vectors
    // cost allocations per node, and this runs for every scope (docs/lowering.md,
    // "Speed", round 4).
    let mut number: FxHashMap<Node, u32> = FxHashMap::default();
    let mut nodes: Vec<Node> = Vec::new();
    let mut intern = |n: Node, nodes: &mut Vec<Node>| -> u32 {
        *number.entry(n).or_insert_with(|| {
            nodes.push(n);
            (nodes.len() - 1) as u32
        })
    };
    let exit_node = intern(Node::Exit, &mut nodes);
    let mut rows: Vec<Option<(u32, u32)>> = Vec::new();
    let mut edges: Vec<u32> = Vec::new();
    let mut splits: Vec<u32> = Vec::new();
    let mut targets: Vec<Target> = Vec::new();
    for b in tree.region(facts.func, s) {
        if !facts.reachable.contains(&b) {
            continue;
        }
        let node = node_of(b);
        let k = intern(node, &mut nodes) as usize;
        rows.resize(nodes.len(), None);
        if rows[k].is_some() {
            continue;
        }
        targets.clear();
        match node {
            Node::Scope(d) => targets.extend(facts.exits[d.0 as usize].iter().copied()),
            _ => {
                targets.extend(distinct(facts.cfg.succs(b)).into_iter().map(Target::Block));
                if !facts.is_entry && is_return(&facts.func.blocks[b].term) {
                    targets.push(Target::Return);
                }
            }
        }
        let start = edges.len();
        for &t in &targets {
            let m = intern(map(t), &mut nodes);
            if !edges[start..].contains(&m) {
                edges.push(m);
            }
        }
        let is_split = match node {
            Node::Scope(_) => edges.len() - start > 1,
            _ => facts.divergent(b),
        };
        if is_split {
            splits.push(k as u32);
        }
        rows.resize(nodes.len(), None);
        rows[k] = Some((start as u32, edges.len() as u32));
    }
    rows.resize(nodes.len(), None);
    let row = |k: usize| rows[k].map_or(&[][..], |(from, to)| &edges[from as usize..to as usize]);
    // Backward reachability to the exit, over the edges reversed (node after node).
    let n = nodes.len();
    let mut first = vec![0u32; n + 1];
    for k in 0..n {
        for &t in row(k) {
            first[t as usize + 1] += 1;
        }
    }
    for k in 0..n {
        first[k + 1] += first[k];
    }
    let mut fill = first.clone();
    let mut preds = vec![0u32; first[n] as usize];
    for k in 0..n {
        for &t in row(k) {
            preds[fill[t as usize] as usize] = k as u32;
            fill[t as usize] += 1;
        }
    }
    let mut reach = vec![false; n];
    reach[exit_node as usize] = true;
    let mut stack = vec![exit_node];
    while let Some(x) = stack.pop() {
        for &p in &preds[first[x as usize] as usize..first[x as usize + 1] as usize] {
            if !reach[p as usize] {
                reach[p as usize] = true;
                stack.push(p);
            }
        }
    }
    let apart = splits.iter().any(|&k| {
        row(k as usize)
            .iter()
            .filter(|&&m| reach[m as usize] && nodes[m as usize] != Node::Out)
            .count()
            > 1
    });
    // One iteration's lanes on their way out of the loop (a break block) must be done
    // before the next iteration's lanes can stand at the same point, or a scheduler that
    // merges groups at one point would run them as one tangle: when such a path does
    // something observable, the iteration needs its continue barrier too.
    let leaving_observably = tree.get(s).kind == ScopeKind::LoopContinue
        && !splits.is_empty()
        && (0..n).any(|k| {
            rows[k].is_some()
                && !reach[k]
                && match nodes[k] {
                    Node::Block(b) => !facts.func.blocks[b]
                        .insts
                        .iter()
                        .all(|&i| is_unobservable(&facts.func.insts[i].op)),
                    _ => true,
                }
        });
    apart || leaving_observably
}

/// Whether an instruction can run with the lanes apart without anyone seeing a difference:
/// no subgroup operation, call, barrier or memory write.
pub fn is_unobservable(op: &Op) -> bool {
    matches!(
        op,
        Op::Plain(_)
            | Op::CompositeExtract(_)
            | Op::CompositeInsert(_)
            | Op::VectorShuffle(_)
            | Op::ArrayLength(_)
            | Op::Load(_)
            | Op::Phi(_)
            | Op::Glsl(_)
    )
}

/// Whether the nearest scope around `s` that keeps a barrier syncs right after `s`, with
/// nothing observable on the way from any place `s`'s lanes leave it for.
fn can_elide(facts: &Facts<'_>, s: ScopeId, on: &[bool]) -> bool {
    let tree = facts.tree;
    let mut q = tree.get(s).parent.unwrap_or(ROOT);
    while q != ROOT && !on[q.0 as usize] {
        q = tree.get(q).parent.unwrap_or(ROOT);
    }
    // Where the lanes end up once they reach the function's end.
    let end_ok = facts.is_entry || q != ROOT || on[ROOT.0 as usize];
    facts.exits[s.0 as usize].iter().all(|&t| {
        let mut at = match t {
            Target::Return => return end_ok,
            Target::Block(b) => b,
        };
        let mut seen = FxHashSet::default();
        loop {
            if q != ROOT && !tree.contains(q, at) {
                return true;
            }
            if !seen.insert(at) {
                return false;
            }
            let block = &facts.func.blocks[at];
            if block.merge.is_some()
                || !block
                    .insts
                    .iter()
                    .all(|&i| is_unobservable(&facts.func.insts[i].op))
            {
                return false;
            }
            match &block.term {
                Terminator::Branch(n) => at = *n,
                Terminator::Return | Terminator::ReturnValue(_) => return end_ok,
                Terminator::Kill | Terminator::TerminateInvocation | Terminator::Unreachable => {
                    return true
                }
                Terminator::CondBranch { .. } | Terminator::Switch { .. } => return false,
            }
        }
    })
}

/// NAK's "real merge": a merge block with more than one reachable predecessor.
fn real_merge(facts: &Facts<'_>, merge: Option<Block>) -> bool {
    merge.is_some_and(|m| {
        facts
            .cfg
            .preds(m)
            .iter()
            .filter(|p| facts.reachable.contains(p))
            .count()
            > 1
    })
}

/// NAK's check that the scope around selection `s` syncs right after it: the merge block
/// holds only phis and copies and branches straight out of a parent that syncs (or, for
/// a parent selection without a barrier, whose own parent does).
fn parent_will_sync(facts: &Facts<'_>, s: ScopeId, on: &[bool]) -> bool {
    let tree = facts.tree;
    let Some(m) = tree.get(s).exit else {
        return false;
    };
    let block = &facts.func.blocks[m];
    let moves_only = block.insts.iter().all(|&i| {
        matches!(
            facts.func.insts[i].op,
            Op::Phi(_) | Op::Plain(PlainOp::CopyObject)
        )
    });
    if !moves_only || block.merge.is_some() {
        return false;
    }
    let p = tree.get(s).parent.unwrap_or(ROOT);
    match &block.term {
        Terminator::Return | Terminator::ReturnValue(_) => facts.is_entry || on[ROOT.0 as usize],
        Terminator::Branch(t) if p != ROOT && !tree.contains(p, *t) => {
            if on[p.0 as usize] {
                true
            } else {
                tree.get(p).kind == ScopeKind::Selection && parent_will_sync(facts, p, on)
            }
        }
        _ => false,
    }
}

/// NAK's divergent loop: lanes may leave it apart (a divergent break, return or exit), or
/// reach its continue target apart (a continue under a divergent branch).
fn loop_is_divergent(facts: &Facts<'_>, h: Block) -> bool {
    if facts.uniformity.has_divergent_exits(h) {
        return true;
    }
    let Some((b, k)) = facts.tree.loop_scopes(h) else {
        return false;
    };
    let Some(Merge::Loop {
        merge,
        continue_target,
        ..
    }) = facts.func.blocks[h].merge
    else {
        return false;
    };
    jumps_divergently(facts, merge, b)
        || k.is_some_and(|k| jumps_divergently(facts, continue_target, k))
}

/// Whether some block of scope `s` branches to `target` under divergent control flow: its
/// own branch is divergent, or it lies in a selection with a divergent condition inside `s`
/// (NIR's divergent break and continue).
fn jumps_divergently(facts: &Facts<'_>, target: Block, s: ScopeId) -> bool {
    let tree = facts.tree;
    tree.region(facts.func, s).into_iter().any(|a| {
        if !facts.reachable.contains(&a) || !facts.cfg.succs(a).contains(&target) {
            return false;
        }
        if facts.divergent(a) {
            return true;
        }
        let mut x = tree.innermost(a);
        while x != s && x != ROOT {
            let scope = tree.get(x);
            if scope.kind == ScopeKind::Selection
                && scope.header.is_some_and(|h| facts.divergent(h))
            {
                return true;
            }
            x = scope.parent.unwrap_or(ROOT);
        }
        false
    })
}
