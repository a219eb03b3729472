//! The control-flow rewrite: given which scopes keep a barrier, every edge that leaves a
//! scope with a barrier goes to that scope's sync block instead, and from there, after the
//! `bar_sync`, on to the next scope's sync (the cascade) or to its own target. Which way a
//! lane goes after a sync is decided by the *escape register*: an ordinary `u32` that every
//! such edge sets to a code naming its final target, read by the sync's dispatch (a `br_if`
//! or `switch`), with phis where paths meet (made by SSA repair). A loop whose break scope
//! keeps a barrier gets a preheader that opens it.
//!
//! Values are carried by SSA repair: a phi's incoming from a moved edge becomes a copy at
//! the edge's source, and the phi takes that variable from the block that now enters it;
//! values whose definition no longer dominates a use (new paths through a shared sync) are
//! mended. The baseline instead leaves a scope early with `bar_break` and jumps straight to
//! the target (seed 000's first design).

use std::collections::{BTreeMap, BTreeSet};
use tangle_ir::hash::FxHashMap;

use tangle_ir::builder::{FunctionBuilder, InsertAt};
use tangle_ir::cfg::{Cfg, DomTree};
use tangle_ir::{
    Block, Func, Module, Op, Operand, PlainOp, TangleOp, Terminator, Type, TypeData, Value,
    ValueDef,
};

use super::placement::{distinct, is_return, Facts, Target};
use super::scopes::{ScopeId, ScopeKind};
use super::LowerError;

/// A block an edge passes on its way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Hop {
    /// The sync block of a scope.
    Sync(ScopeId),
    /// The preheader of a loop, whose break scope it opens.
    Pre(ScopeId),
}

/// Where a hop goes next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Next {
    Hop(Hop),
    Target(Target),
}

/// One way out of a hop: (hop, next hop, escape code that takes it).
type HopWay = (Hop, Next, u32);

/// Every hop's ways out: (hop, next hop, escape code) triples, sorted and without
/// repeats, so each hop's ways, and each way's codes, are consecutive. One array instead
/// of a map of maps of sets: those took a heap node per hop and per way, scattered, read
/// back again when freed (docs/lowering-speed.md).
struct HopWays {
    ways: Vec<HopWay>,
    /// Per hop: how many different next hops it has.
    fan_out: FxHashMap<Hop, usize>,
}

impl HopWays {
    fn new(mut ways: Vec<HopWay>) -> Self {
        ways.sort_unstable();
        ways.dedup();
        let mut fan_out: FxHashMap<Hop, usize> = FxHashMap::default();
        for w in ways.chunk_by(|x, y| x.0 == y.0 && x.1 == y.1) {
            *fan_out.entry(w[0].0).or_default() += 1;
        }
        HopWays { ways, fan_out }
    }

    /// How many different next hops `h` has (0 for a hop no edge takes).
    fn fan_out(&self, h: Hop) -> usize {
        self.fan_out.get(&h).copied().unwrap_or(0)
    }

    /// The hops, in order.
    fn hops(&self) -> impl Iterator<Item = Hop> + '_ {
        self.ways.chunk_by(|x, y| x.0 == y.0).map(|w| w[0].0)
    }
}

/// One edge (or return) the rewrite moves.
#[derive(Clone, Debug)]
struct Edge {
    src: Block,
    target: Target,
    /// Scopes the edge leaves by `bar_break` (the baseline).
    breaks: Vec<ScopeId>,
    hops: Vec<Hop>,
}

/// What the rewrite needs, computed from the facts before the function is edited.
pub struct Plan {
    func: Func,
    edges: Vec<Edge>,
    /// Blocks whose terminator becomes `exit` (kills, and returns of an entry point).
    exit_sites: Vec<Block>,
    /// Scopes that need a `bar_set`, with their kind and header.
    opened: Vec<(ScopeId, ScopeKind, Option<Block>)>,
    /// The baseline's early returns: `bar_break` every scope before returning.
    return_breaks: Vec<(Block, Vec<ScopeId>)>,
    /// The nesting depth of every scope opened.
    depth: FxHashMap<ScopeId, u32>,
}

/// Plans the rewrite of function `func` (with `facts`) for the scopes in `on`.
pub fn plan(func: Func, facts: &Facts<'_>, on: &[bool], baseline: bool) -> Plan {
    let tree = facts.tree;
    let f = facts.func;
    let is_on = |s: &ScopeId| on[s.0 as usize];
    let dom = &facts.dom;
    let mut edges = Vec::new();
    let mut exit_sites = Vec::new();
    let mut return_breaks = Vec::new();
    for &a in dom.rpo() {
        for t in distinct(facts.cfg.succs(a)) {
            let left: Vec<ScopeId> = tree.left_by_edge(a, t).into_iter().filter(is_on).collect();
            let (mut hops, mut breaks) = (Vec::new(), Vec::new());
            if baseline {
                breaks = left.clone();
                if let Some(&last) = left.last() {
                    if tree.get(last).exit == Some(t) {
                        breaks.pop();
                        hops.push(Hop::Sync(last));
                    }
                }
            } else {
                hops = left.into_iter().map(Hop::Sync).collect();
            }
            if let Some((b, _)) = tree.loop_scopes(t) {
                if on[b.0 as usize] && !tree.contains(b, a) {
                    hops.push(Hop::Pre(b));
                }
            }
            if !hops.is_empty() || !breaks.is_empty() {
                edges.push(Edge {
                    src: a,
                    target: Target::Block(t),
                    breaks,
                    hops,
                });
            }
        }
        match &f.blocks[a].term {
            Terminator::Kill | Terminator::TerminateInvocation => exit_sites.push(a),
            t if is_return(t) && facts.is_entry => exit_sites.push(a),
            t if is_return(t) => {
                let around: Vec<ScopeId> = tree.around(a).into_iter().filter(is_on).collect();
                if baseline {
                    if !around.is_empty() {
                        return_breaks.push((a, around));
                    }
                } else if !around.is_empty() {
                    edges.push(Edge {
                        src: a,
                        target: Target::Return,
                        breaks: Vec::new(),
                        hops: around.into_iter().map(Hop::Sync).collect(),
                    });
                }
            }
            _ => {}
        }
    }
    // A scope is opened when something syncs or breaks it.
    let mut used = BTreeSet::new();
    for e in &edges {
        used.extend(e.breaks.iter().copied());
        used.extend(e.hops.iter().filter_map(|h| match h {
            Hop::Sync(s) => Some(*s),
            Hop::Pre(_) => None,
        }));
    }
    for (_, s) in &return_breaks {
        used.extend(s.iter().copied());
    }
    for e in &mut edges {
        e.hops.retain(|h| match h {
            Hop::Pre(b) => used.contains(b),
            Hop::Sync(_) => true,
        });
    }
    edges.retain(|e| !e.hops.is_empty() || !e.breaks.is_empty());
    let depth = used.iter().map(|&s| (s, tree.get(s).depth)).collect();
    let opened = used
        .into_iter()
        .map(|s| (s, tree.get(s).kind, tree.get(s).header))
        .collect();
    Plan {
        depth,
        func,
        edges,
        exit_sites,
        opened,
        return_breaks,
    }
}

/// Applies `plan` to its function in `module`; afterwards the function is in lowered form,
/// laid out in reverse post-order, with SSA repaired.
pub fn apply(module: &mut Module, plan: Plan) -> Result<(), LowerError> {
    let fid = plan.func;
    let u32_ty = module.types.u32();
    let bool_ty = module.types.bool();
    let barrier_ty = module.types.intern(TypeData::Barrier);
    let opaque: Vec<Type> = [TypeData::Token, TypeData::Barrier]
        .iter()
        .filter_map(|t| module.types.find(t))
        .collect();
    let mut b = FunctionBuilder::new(module, fid);
    let true_c = b.const_bool(true);
    let entry = b
        .function()
        .entry()
        .ok_or(LowerError::NoBody { func: fid })?;

    // Codes: the escape register names, for an edge, the last scope it syncs and which way
    // it goes from there: depth * stride + way. A dispatch reads its own scope's codes and
    // sends every other code on to the parent; the codes repeat across the function, so
    // the constants stay few.
    let last_sync = |e: &Edge| {
        e.hops
            .iter()
            .rposition(|h| matches!(h, Hop::Sync(_)))
            .map(|k| {
                let Hop::Sync(s) = e.hops[k] else {
                    unreachable!("a sync hop")
                };
                let after = e
                    .hops
                    .get(k + 1)
                    .map_or(Next::Target(e.target), |h| Next::Hop(*h));
                (s, after)
            })
    };
    let mut ways: FxHashMap<ScopeId, BTreeMap<Next, u32>> = FxHashMap::default();
    for e in &plan.edges {
        if let Some((s, after)) = last_sync(e) {
            let w = ways.entry(s).or_default();
            let n = w.len() as u32;
            w.entry(after).or_insert(n);
        }
    }
    let stride = ways.values().map(|w| w.len() as u32).max().unwrap_or(0) + 1;
    let code_of = |e: &Edge| {
        last_sync(e).map_or(0, |(s, after)| {
            plan.depth[&s] * stride + ways[&s][&after] + 1
        })
    };
    let mut ways_out: Vec<HopWay> = Vec::new();
    for e in &plan.edges {
        let code = code_of(e);
        for (k, h) in e.hops.iter().enumerate() {
            let to = match e.hops.get(k + 1) {
                Some(h2) => Next::Hop(*h2),
                None => Next::Target(e.target),
            };
            ways_out.push((*h, to, code));
        }
    }
    let next = HopWays::new(ways_out);
    let mut const_cache: FxHashMap<u32, Operand> = FxHashMap::default();
    let mut constant = |b: &mut FunctionBuilder<'_>, n: u32| {
        *const_cache.entry(n).or_insert_with(|| b.const_u32(n))
    };
    let needs_esc = |e: &Edge| e.hops.iter().any(|&h| next.fan_out(h) > 1);
    // How many edges end their way at each hop (the hop that then enters their target).
    let mut final_users: FxHashMap<Hop, usize> = FxHashMap::default();
    for e in &plan.edges {
        if let Some(h) = e.hops.last() {
            *final_users.entry(*h).or_default() += 1;
        }
    }

    // Open the scopes.
    let mut bar: FxHashMap<ScopeId, Value> = FxHashMap::default();
    let mut hop_block: FxHashMap<Hop, Block> = FxHashMap::default();
    for &(s, kind, header) in &plan.opened {
        let f = b.function_mut();
        let at = match (kind, header) {
            (ScopeKind::LoopBreak, Some(h)) => {
                let pre = f.add_block();
                f.blocks[pre].term = Terminator::Branch(h);
                hop_block.insert(Hop::Pre(s), pre);
                pre
            }
            (_, Some(h)) => h,
            (_, None) => entry,
        };
        let (_, v) = f.insert_inst(
            InsertAt::End(at),
            Op::Tangle(TangleOp::BarSet),
            Vec::new(),
            Some(barrier_ty),
        );
        bar.insert(s, v.expect("bar_set has a result"));
    }
    // Root's bar_set must come before a selection's at the entry block: both were appended
    // at its end in scope order, and the root is scope 0, so it already does.
    for h in next.hops() {
        if let Hop::Sync(s) = &h {
            let f = b.function_mut();
            let sync = f.add_block();
            f.insert_inst(
                InsertAt::End(sync),
                Op::Tangle(TangleOp::BarSync),
                vec![Operand::Value(bar[s])],
                None,
            );
            hop_block.insert(h, sync);
        }
    }
    let ret_block = if plan.edges.iter().any(|e| e.target == Target::Return) {
        Some(b.function_mut().add_block())
    } else {
        None
    };
    let block_of = |n: Next| -> Block {
        match n {
            Next::Hop(h) => hop_block[&h],
            Next::Target(Target::Block(t)) => t,
            Next::Target(Target::Return) => ret_block.expect("a return edge has its block"),
        }
    };

    // Split edges where one source needs more than one escape code or sends two edges to
    // one first hop, and wherever the baseline breaks.
    // Edge numbers by source block (then by number): one sorted array, not a vector per
    // source.
    let mut by_src: Vec<usize> = (0..plan.edges.len()).collect();
    by_src.sort_unstable_by_key(|&k| (plan.edges[k].src, k));
    let mut esc_defs: Vec<Value> = Vec::new();
    let mut ret_defs: Vec<Value> = Vec::new();
    // By the phi's result, not its instruction: the repair's groups (and so the numbers of
    // the phis it adds) follow this order, and instruction numbers change with
    // `passes::renumber`.
    let mut phi_vars: BTreeMap<Value, Vec<Value>> = BTreeMap::new();
    for list in by_src.chunk_by(|&x, &y| plan.edges[x].src == plan.edges[y].src) {
        let a = plan.edges[list[0]].src;
        let first: Vec<Option<Hop>> = list
            .iter()
            .map(|&k| plan.edges[k].hops.first().copied())
            .collect();
        let escs = list.iter().filter(|&&k| needs_esc(&plan.edges[k])).count();
        let shared_first = (1..first.len()).any(|i| first[..i].contains(&first[i]));
        let split = list.len() > 1 && (escs > 1 || shared_first)
            || list.iter().any(|&k| !plan.edges[k].breaks.is_empty());
        for &k in list {
            let e = &plan.edges[k];
            let to = e.hops.first().map_or_else(
                || match e.target {
                    Target::Block(t) => t,
                    Target::Return => unreachable!("a return edge always has a hop"),
                },
                |h| hop_block[h],
            );
            let src = match e.target {
                Target::Return => {
                    let value = match b.function().blocks[a].term {
                        Terminator::ReturnValue(v) => Some(v),
                        _ => None,
                    };
                    if let Some(v) = value {
                        let ty = b.operand_type(v);
                        let f = b.function_mut();
                        let (_, c) = f.insert_inst(
                            InsertAt::End(a),
                            Op::Plain(PlainOp::CopyObject),
                            vec![v],
                            Some(ty),
                        );
                        ret_defs.push(c.expect("copy has a result"));
                    }
                    b.function_mut().blocks[a].term = Terminator::Branch(to);
                    a
                }
                Target::Block(t) if split => {
                    let f = b.function_mut();
                    let mid = f.add_block();
                    f.blocks[mid].term = Terminator::Branch(to);
                    f.retarget(a, t, mid);
                    for &s in &e.breaks {
                        f.insert_inst(
                            InsertAt::End(mid),
                            Op::Tangle(TangleOp::BarBreak),
                            vec![Operand::Value(bar[&s]), true_c],
                            None,
                        );
                    }
                    mid
                }
                Target::Block(t) => {
                    b.function_mut().retarget(a, t, to);
                    a
                }
            };
            if needs_esc(e) {
                let code = constant(&mut b, code_of(e));
                let f = b.function_mut();
                let (_, v) = f.insert_inst(
                    InsertAt::End(src),
                    Op::Plain(PlainOp::CopyObject),
                    vec![code],
                    Some(u32_ty),
                );
                esc_defs.push(v.expect("copy has a result"));
            }
            if let Target::Block(t) = e.target {
                let f = b.function_mut();
                let last_hop = e.hops.last().copied();
                let alone = match last_hop {
                    // A preheader entered by this edge only: its phis just move.
                    Some(h @ Hop::Pre(_)) if e.hops.len() == 1 => final_users[&h] == 1,
                    None => true,
                    _ => false,
                };
                if alone {
                    let via = last_hop.map_or(src, |h| hop_block[&h]);
                    f.rename_phi_pred(t, a, via);
                    continue;
                }
                let last = hop_block[&last_hop.expect("hops are not empty")];
                for phi in f.phis(t) {
                    let Some(v) = f.remove_phi_incoming(phi, a) else {
                        continue;
                    };
                    let result = f.insts[phi].result.expect("a phi has a result");
                    let ty = f.values[result].ty;
                    let (_, c) = f.insert_inst(
                        InsertAt::End(src),
                        Op::Plain(PlainOp::CopyObject),
                        vec![v],
                        Some(ty),
                    );
                    let c = c.expect("copy has a result");
                    phi_vars.entry(result).or_default().push(c);
                    if f.phi_incoming(phi, last).is_none() {
                        f.set_phi_incoming(phi, last, Operand::Value(c));
                    }
                }
            }
        }
    }
    // Dispatches.
    let esc = esc_defs.first().copied();
    for hop_ways in next.ways.chunk_by(|x, y| x.0 == y.0) {
        let block = hop_block[&hop_ways[0].0];
        // (next hop, its codes), in order of next hop, codes increasing.
        let outs: Vec<(Next, &[HopWay])> = hop_ways
            .chunk_by(|x, y| x.1 == y.1)
            .map(|c| (c[0].1, c))
            .collect();
        let term = if outs.len() == 1 {
            Terminator::Branch(block_of(outs[0].0))
        } else {
            let esc = Operand::Value(esc.ok_or(LowerError::Internal {
                func: fid,
                message: "a dispatch without an escape register".into(),
            })?);
            // The default is the next hop with the most codes (the parent's sync).
            let &(default, _) = outs
                .iter()
                .max_by_key(|(n, c)| (c.len(), matches!(n, Next::Hop(_))))
                .expect("several next hops");
            let others: Vec<(Next, &[HopWay])> = outs
                .iter()
                .filter(|(n, _)| *n != default)
                .copied()
                .collect();
            if others.len() == 1 && others[0].1.len() == 1 {
                let code = constant(&mut b, others[0].1[0].2);
                let f = b.function_mut();
                let (_, cond) = f.insert_inst(
                    InsertAt::End(block),
                    Op::Plain(PlainOp::IEqual),
                    vec![esc, code],
                    Some(bool_ty),
                );
                Terminator::CondBranch {
                    cond: Operand::Value(cond.expect("ieq has a result")),
                    if_true: block_of(others[0].0),
                    if_false: block_of(default),
                }
            } else {
                let mut cases = Vec::new();
                for (n, cs) in &others {
                    for &(_, _, c) in cs.iter() {
                        cases.push((u64::from(c), block_of(*n)));
                    }
                }
                Terminator::Switch {
                    selector: esc,
                    default: block_of(default),
                    cases,
                }
            }
        };
        b.function_mut().blocks[block].term = term;
    }
    if let Some(r) = ret_block {
        let f = b.function_mut();
        f.blocks[r].term = match ret_defs.first() {
            Some(&v) => Terminator::ReturnValue(Operand::Value(v)),
            None => Terminator::Return,
        };
    }
    for (a, scopes) in &plan.return_breaks {
        for s in scopes {
            b.function_mut().insert_inst(
                InsertAt::End(*a),
                Op::Tangle(TangleOp::BarBreak),
                vec![Operand::Value(bar[s]), true_c],
                None,
            );
        }
    }
    for &a in &plan.exit_sites {
        let f = b.function_mut();
        f.insert_inst(
            InsertAt::End(a),
            Op::Tangle(TangleOp::Exit),
            vec![true_c],
            None,
        );
        f.blocks[a].term = Terminator::Unreachable;
    }

    let f = b.function_mut();
    f.form = tangle_ir::Form::Lowered;
    for blk in f.layout.clone() {
        f.blocks[blk].merge = None;
    }
    tangle_ir::passes::remove_unreachable::run(f);
    let groups: Vec<Vec<Value>> = phi_vars
        .values()
        .chain([&esc_defs, &ret_defs])
        .map(|defs| {
            defs.iter()
                .copied()
                .filter(|&v| !matches!(f.values[v].def, ValueDef::Unused))
                .collect::<Vec<Value>>()
        })
        .filter(|d| !d.is_empty())
        .collect();
    // The plan and the rewrite's maps are dead from here. Freed before the repair (where
    // the lowering's heap peaks), they leave less live and their memory, still in the
    // cache, serves the repair's own arrays (docs/lowering-speed.md, round 6).
    drop((plan, next, hop_block, bar, ways, final_users, by_src));
    drop((phi_vars, esc_defs, ret_defs));
    // From here on only phis and `undef`s are added: no edge changes, so one control-flow
    // graph and one dominator tree serve the repair and the final layout.
    let cfg = Cfg::new(f);
    let dom = DomTree::new(f, &cfg);
    // The values the rewrite left undominated (new paths through a shared sync) are found
    // and repaired in the same call, in the same scan of the function as the groups' uses
    // (a second scan read every instruction again, from memory on large functions;
    // docs/lowering-speed.md, round 5). The groups' repair rewrites only uses of the
    // groups' own values, so it neither breaks nor mends the dominance of any other value.
    // A token or barrier that no longer dominates its uses cannot be merged by a phi: that
    // would be a bug of the rewrite.
    let refuse = |f: &tangle_ir::Function, v: Value| opaque.contains(&f.values[v].ty);
    tangle_ir::ssa_repair::repair_many_mending_in(f, &cfg, &dom, &groups, &refuse).map_err(
        |v| LowerError::Internal {
            func: fid,
            message: format!("{v} is a token or barrier that no longer dominates its uses"),
        },
    )?;
    // Reverse post-order (what `layout_in_reverse_post_order` computes), unreachable
    // blocks after it in their old order.
    let mut order = dom.rpo().to_vec();
    order.extend(f.layout.iter().copied().filter(|&b| !dom.is_reachable(b)));
    f.layout = order;
    Ok(())
}
