//! The static rules of convergence-control tokens (LLVM's `ConvergentOperations.rst`,
//! "Static Rules", and the rules stated with each intrinsic), collected with their
//! locations:
//!
//! - placement: `conv_entry` at most once, only in a convergent function, in the entry
//!   block before any other convergent operation there; `conv_loop` before any other
//!   convergent operation of its block; a convergence-control operand only on a convergent
//!   operation and only a token that a token operation defined;
//! - mixing: no function holds both controlled and uncontrolled convergent operations;
//! - cycles (`tokens/cycles.rs`): the closed-path rules, checked on cycles, each violation
//!   with a witness closed path;
//! - regions (`tokens/regions.rs`): convergence regions nest.
//!
//! Whether an operand is present at all where the operation needs one (`conv_loop`) or must
//! have none (`conv_entry`, `conv_anchor`) is a typing rule (`typing/tangle.rs`).

mod cycles;
mod regions;

use super::{Location, Point, Rule, Sink};
use crate::cfg::{Cfg, DomTree};
use crate::hash::FxHashMap;
use crate::module::{Block, Func, Function, Inst, Module, Value, ValueDef};
use crate::ops::{Op, TangleOp};

/// Whether instruction `inst` of `func` is a convergent operation in LLVM's sense: a token
/// operation, an operation with a convergence-control operand, a call of a convergent
/// function, or any other operation the table marks convergent (subgroup operations,
/// control barriers, warp barriers).
pub fn is_convergent_inst(module: &Module, func: &Function, inst: Inst) -> bool {
    let data = &func.insts[inst];
    if data.conv.is_some() {
        return true;
    }
    match data.op {
        Op::Call(callee) => module.funcs.get(callee).is_some_and(|c| c.convergent),
        ref op => op.is_convergent(),
    }
}

/// The token operation of an instruction, if it is one.
pub fn token_op(func: &Function, inst: Inst) -> Option<TangleOp> {
    match func.insts[inst].op {
        Op::Tangle(t @ (TangleOp::ConvEntry | TangleOp::ConvAnchor | TangleOp::ConvLoop)) => {
            Some(t)
        }
        _ => None,
    }
}

/// Where a token is defined and used, found once for the cycle and region checks.
pub(crate) struct TokenSites {
    /// Every token-defining instruction of a reachable block: (block, index, inst, value).
    pub(crate) defs: Vec<Site>,
    /// Every use as a convergence-control operand in a reachable block.
    pub(crate) uses: Vec<UseSite>,
}

/// An instruction's position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Site {
    pub(crate) block: Block,
    pub(crate) index: usize,
    pub(crate) inst: Inst,
}

/// A use of a token.
#[derive(Clone, Copy, Debug)]
pub(crate) struct UseSite {
    pub(crate) at: Site,
    /// The token used.
    pub(crate) token: Value,
    /// Where the token is defined.
    pub(crate) def: Site,
}

fn at(f: Func, func: &Function, s: Site) -> Location {
    Location {
        func: Some(f),
        block: Some(s.block),
        point: Some(Point::Inst(s.index)),
        value: func.insts[s.inst].result,
    }
}

/// Checks every token rule of function `f`.
pub(super) fn check(
    module: &Module,
    f: Func,
    func: &Function,
    cfg: &Cfg,
    dom: &DomTree,
    sink: &mut Sink,
) {
    let Some(sites) = placement(module, f, func, dom, sink) else {
        return;
    };
    mixing(module, f, func, sink);
    // Without a token use there is no path or region to check (and no cycle analysis to
    // pay for on the large token-free functions SPIR-V gives).
    if sites.uses.is_empty() {
        return;
    }
    cycles::check(f, func, cfg, dom, &sites, sink);
    regions::check(f, func, cfg, dom, &sites, sink);
}

/// The rules about where token operations stand and what may carry a token. Returns the
/// sites of reachable definitions and uses, or `None` when an operand is not a token that a
/// token operation defined (the path rules would be meaningless).
fn placement(
    module: &Module,
    f: Func,
    func: &Function,
    dom: &DomTree,
    sink: &mut Sink,
) -> Option<TokenSites> {
    let entry = func.entry()?;
    let mut def_site = FxHashMap::default();
    let mut entries = 0usize;
    let mut sound = true;
    for &b in &func.layout {
        let mut seen_convergent = false;
        for (k, &i) in func.blocks[b].insts.iter().enumerate() {
            let site = Site {
                block: b,
                index: k,
                inst: i,
            };
            let convergent = is_convergent_inst(module, func, i);
            match token_op(func, i) {
                Some(TangleOp::ConvEntry) => {
                    entries += 1;
                    if entries > 1 {
                        sink.report(
                            Rule::Tokens,
                            at(f, func, site),
                            "`conv_entry` may occur at most once in a function",
                        );
                    }
                    if !func.convergent {
                        sink.report(
                            Rule::Tokens,
                            at(f, func, site),
                            "`conv_entry` may occur only in a convergent function",
                        );
                    }
                    if b != entry {
                        sink.report(
                            Rule::Tokens,
                            at(f, func, site),
                            format!("`conv_entry` may occur only in the entry block {entry}"),
                        );
                    } else if seen_convergent {
                        sink.report(
                            Rule::Tokens,
                            at(f, func, site),
                            "`conv_entry` must precede every other convergent operation of its block",
                        );
                    }
                }
                Some(TangleOp::ConvLoop) if seen_convergent => sink.report(
                    Rule::Tokens,
                    at(f, func, site),
                    "`conv_loop` must precede every other convergent operation of its block",
                ),
                _ => {}
            }
            if token_op(func, i).is_some() {
                if let Some(v) = func.insts[i].result {
                    def_site.insert(v, site);
                }
            }
            if let Some(t) = func.insts[i].conv {
                let convergent_by_op = match func.insts[i].op {
                    Op::Call(c) => module.funcs.get(c).is_some_and(|c| c.convergent),
                    ref op => op.is_convergent(),
                };
                if !convergent_by_op {
                    sink.report(
                        Rule::Tokens,
                        at(f, func, site),
                        "a convergence-control operand is allowed only on a call of a convergent function or another convergent operation",
                    );
                }
                let from_token_op =
                    matches!(func.values[t].def, ValueDef::Inst(d) if token_op(func, d).is_some());
                if !from_token_op {
                    sound = false;
                    sink.report(
                        Rule::Tokens,
                        at(f, func, site),
                        format!("the convergence-control operand {t} is not defined by `conv_entry`, `conv_anchor` or `conv_loop`"),
                    );
                }
            }
            seen_convergent |= convergent;
        }
    }
    if !sound {
        return None;
    }
    let mut sites = TokenSites {
        defs: Vec::new(),
        uses: Vec::new(),
    };
    for &b in dom.rpo() {
        for (k, &i) in func.blocks[b].insts.iter().enumerate() {
            let site = Site {
                block: b,
                index: k,
                inst: i,
            };
            if token_op(func, i).is_some() {
                sites.defs.push(site);
            }
            if let Some(t) = func.insts[i].conv {
                let def = *def_site.get(&t)?;
                if !dom.is_reachable(def.block) {
                    continue;
                }
                sites.uses.push(UseSite {
                    at: site,
                    token: t,
                    def,
                });
            }
        }
    }
    Some(sites)
}

/// No function mixes controlled convergent operations (token operations and operations
/// with a convergence-control operand) with uncontrolled ones: each uncontrolled one in a
/// function that has a controlled one is an error. The warp-barrier operations do not
/// count as uncontrolled: the invocations they act on are named by their barrier operand
/// (data flow), not by control flow, so the lowering may leave them without a token.
fn mixing(module: &Module, f: Func, func: &Function, sink: &mut Sink) {
    let controlled = |i: Inst| func.insts[i].conv.is_some() || token_op(func, i).is_some();
    let all = || {
        func.layout.iter().flat_map(|&b| {
            func.blocks[b]
                .insts
                .iter()
                .enumerate()
                .map(move |(k, &i)| Site {
                    block: b,
                    index: k,
                    inst: i,
                })
        })
    };
    let Some(first) = all().find(|s| controlled(s.inst)) else {
        return;
    };
    for s in all() {
        let barrier = matches!(
            func.insts[s.inst].op,
            Op::Tangle(TangleOp::BarSet | TangleOp::BarSync | TangleOp::BarBreak)
        );
        if is_convergent_inst(module, func, s.inst) && !controlled(s.inst) && !barrier {
            let what = func.insts[s.inst].op.mnemonic();
            sink.report(
                Rule::Tokens,
                at(f, func, s),
                format!(
                    "uncontrolled convergent `{what}` in a function with controlled convergent operations (the first at {} #{})",
                    first.block, first.index
                ),
            );
        }
    }
}

/// A closed path through `through` (in order) inside the blocks `within`, as text
/// `b1 -> b2 -> b1`: the witness of a cycle rule. Each leg is a shortest path.
pub(crate) fn witness(cfg: &Cfg, within: &[Block], through: &[Block]) -> String {
    let mut through = through.to_vec();
    through.dedup();
    let mut path = vec![through[0]];
    let mut stops: Vec<Block> = through[1..].to_vec();
    stops.push(through[0]);
    for &to in &stops {
        let from = *path.last().unwrap_or(&to);
        let leg = shortest_path(cfg, within, from, to);
        path.extend(leg.into_iter().skip(1));
    }
    path.iter()
        .map(|b| b.to_string())
        .collect::<Vec<_>>()
        .join(" -> ")
}

/// The shortest path of at least one edge from `from` to `to` inside `within` (breadth
/// first), both ends included; `[from, to]` if there is none (never for a cycle's blocks).
fn shortest_path(cfg: &Cfg, within: &[Block], from: Block, to: Block) -> Vec<Block> {
    let mut parent: FxHashMap<Block, Block> = Default::default();
    let mut queue = std::collections::VecDeque::new();
    for &s in cfg.succs(from) {
        if within.contains(&s) && !parent.contains_key(&s) {
            parent.insert(s, from);
            queue.push_back(s);
        }
    }
    while let Some(b) = queue.pop_front() {
        if b == to {
            let mut path = vec![to];
            let mut cur = to;
            loop {
                let p = parent[&cur];
                path.push(p);
                if p == from {
                    break;
                }
                cur = p;
            }
            path.reverse();
            return path;
        }
        for &s in cfg.succs(b) {
            if within.contains(&s) && !parent.contains_key(&s) {
                parent.insert(s, b);
                queue.push_back(s);
            }
        }
    }
    vec![from, to]
}
