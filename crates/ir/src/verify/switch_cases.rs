//! The rules for case constructs of a structured switch (SPIR-V 2.11): a case construct
//! falls through to at most one other case construct, at most one case construct falls
//! through to any case construct, and a case that falls through must immediately precede
//! its successor in the switch's target list (looking through the default, as spirv-val
//! does).

use crate::hash::FxHashSet;
use std::collections::BTreeMap;

use super::{Location, Point, Rule, Sink};
use crate::analysis::ConstructTree;
use crate::cfg::{Cfg, DomTree};
use crate::module::{Block, Func, Function, Merge, Terminator};

/// Checks every structured switch of `func`. `sdom` is the structural dominator tree and
/// `tree` the constructs computed from it.
pub(super) fn check(
    f: Func,
    func: &Function,
    cfg: &Cfg,
    sdom: &DomTree,
    tree: &ConstructTree,
    sink: &mut Sink,
) {
    let at = |b: Block| Location {
        func: Some(f),
        block: Some(b),
        point: Some(Point::Terminator),
        value: None,
    };
    for &h in &func.layout {
        let block = &func.blocks[h];
        let (Terminator::Switch { default, cases, .. }, Some(Merge::Selection { merge, .. })) =
            (&block.term, block.merge)
        else {
            continue;
        };
        if !sdom.is_reachable(h) {
            continue;
        }
        // Targets in operand order: the default first, as in the instruction.
        let targets: Vec<Block> = std::iter::once(*default)
            .chain(cases.iter().map(|(_, t)| *t))
            .collect();
        let case_targets: FxHashSet<Block> =
            targets.iter().copied().filter(|&t| t != merge).collect();
        let mut falls_to: BTreeMap<Block, Block> = BTreeMap::new();
        let mut fallen_into: BTreeMap<Block, Vec<Block>> = BTreeMap::new();
        for case in tree.cases(h) {
            let c = tree.get(case);
            let (t, blocks) = (c.entry, &c.blocks);
            let mut exits: Vec<Block> = Vec::new();
            for &b in blocks {
                for &s in cfg.succs(b) {
                    if s != t && !c.contains(s) && case_targets.contains(&s) && !exits.contains(&s)
                    {
                        exits.push(s);
                    }
                }
            }
            if exits.len() > 1 {
                sink.report(
                    Rule::Structure,
                    at(h),
                    format!(
                        "the case construct of {t} falls through to both {} and {}; a case may fall through to at most one other",
                        exits[0], exits[1]
                    ),
                );
            }
            if let Some(&next) = exits.first() {
                falls_to.insert(t, next);
                fallen_into.entry(next).or_default().push(t);
            }
        }
        for (target, sources) in &fallen_into {
            if sources.len() > 1 {
                sink.report(
                    Rule::Structure,
                    at(h),
                    format!(
                        "the case constructs of {} and {} both fall through to {target}; at most one may",
                        sources[0], sources[1]
                    ),
                );
            }
        }
        // Ordering: a case that falls through to T2 (directly, or through a default that
        // falls through to T2) must immediately precede T2 among the targets, duplicates of
        // its own target skipped.
        let mut checked = FxHashSet::default();
        for (i, &t) in targets.iter().enumerate() {
            if i == 0 || t == merge || !checked.insert(t) {
                continue;
            }
            let Some(&direct) = falls_to.get(&t) else {
                continue;
            };
            let next = if direct == *default {
                match falls_to.get(default) {
                    Some(&n) => n,
                    None => continue,
                }
            } else {
                direct
            };
            let mut j = i;
            while j + 1 < targets.len() && targets[j + 1] == t {
                j += 1;
            }
            if targets.get(j + 1) != Some(&next) {
                sink.report(
                    Rule::Structure,
                    at(h),
                    format!(
                        "the case construct of {t} falls through to {next} but does not immediately precede it in the switch's target list"
                    ),
                );
            }
        }
    }
}
