//! The closed-path rules of tokens (LLVM's "Static Rules: Closed Paths"), checked on the
//! cycles of [`CycleInfo`]: every closed path that breaks a rule lies in a cycle that breaks
//! it too (`CycleTerminology.rst`), which the brute-force oracle in `tangle-tokens` checks
//! by enumerating closed paths. For a use `U` of token `T` defined by `D`, the cycles
//! that matter are those holding `U`'s block but not `D`'s:
//!
//! 1. only `conv_loop` may use `T` in such a cycle;
//! 2. and 3. such a cycle holds at most one use of a token defined outside it;
//! 4. `U`'s block dominates every block of such a cycle (so a heart stands only in the
//!    header of a reducible cycle).
//!
//! Each violation is reported once, at the largest such cycle, with a closed path through
//! the blocks concerned as its witness.

use crate::hash::FxHashSet;

use super::{at, witness, Site, TokenSites, UseSite};
use crate::analysis::{CycleId, CycleInfo};
use crate::cfg::{Cfg, DomTree};
use crate::module::{Func, Function};
use crate::ops::TangleOp;
use crate::verify::{Rule, Sink};

/// The largest cycle holding the use's block but not its token's definition.
fn outermost_without_def(info: &CycleInfo, u: &UseSite) -> Option<CycleId> {
    let mut found = None;
    let mut cur = info.innermost(u.at.block);
    while let Some(c) = cur {
        if info.contains(c, u.def.block) {
            break;
        }
        found = Some(c);
        cur = info.cycle(c).parent;
    }
    found
}

pub(super) fn check(
    f: Func,
    func: &Function,
    cfg: &Cfg,
    dom: &DomTree,
    sites: &TokenSites,
    sink: &mut Sink,
) {
    let info = CycleInfo::new(func, cfg);
    let is_loop = |s: Site| super::token_op(func, s.inst) == Some(TangleOp::ConvLoop);
    for u in &sites.uses {
        let Some(c) = outermost_without_def(&info, u) else {
            continue;
        };
        let blocks = &info.cycle(c).blocks;
        if !is_loop(u.at) {
            sink.report(
                Rule::Tokens,
                at(f, func, u.at),
                format!(
                    "{} is used in a cycle without its definition by an operation other than `conv_loop` (closed path {})",
                    u.token,
                    witness(cfg, blocks, &[u.at.block])
                ),
            );
        }
        if let Some(&x) = blocks.iter().find(|&&x| !dom.dominates(u.at.block, x)) {
            sink.report(
                Rule::Tokens,
                at(f, func, u.at),
                format!(
                    "a use of {} in a cycle without its definition must dominate every block of the cycle, and {} does not dominate {x} (closed path {}); a heart stands only in the header of a reducible cycle",
                    u.token,
                    u.at.block,
                    witness(cfg, blocks, &[u.at.block, x])
                ),
            );
        }
    }
    // Rules 2 and 3: at most one use of an outside token per cycle, reported once per pair
    // at the largest cycle that holds both.
    let mut reported: FxHashSet<(usize, usize)> = FxHashSet::default();
    let mut order: Vec<CycleId> = info.cycles().map(|(id, _)| id).collect();
    order.sort_by_key(|&c| info.cycle(c).depth);
    for c in order {
        let outside: Vec<usize> = sites
            .uses
            .iter()
            .enumerate()
            .filter(|(_, u)| info.contains(c, u.at.block) && !info.contains(c, u.def.block))
            .map(|(k, _)| k)
            .collect();
        if outside.len() < 2 {
            continue;
        }
        let (a, b) = (outside[0], outside[1]);
        if !reported.insert((a, b)) {
            continue;
        }
        let (ua, ub) = (&sites.uses[a], &sites.uses[b]);
        let what = if ua.token == ub.token {
            format!("two uses of {}", ua.token)
        } else {
            format!("uses of {} and {}", ua.token, ub.token)
        };
        sink.report(
            Rule::Tokens,
            at(f, func, ub.at),
            format!(
                "{what} (at {} #{} and {} #{}) in a cycle that holds neither definition (closed path {}); a cycle has at most one heart",
                ua.at.block,
                ua.at.index,
                ub.at.block,
                ub.at.index,
                witness(cfg, &info.cycle(c).blocks, &[ua.at.block, ub.at.block])
            ),
        );
    }
}
