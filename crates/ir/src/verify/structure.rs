//! Structured control flow (SPIR-V 2.11) where merge annotations exist, and the tightened
//! rules of `SPV_KHR_maximal_reconvergence`.
//!
//! Constructs follow the specification's definitions: a selection construct is every block
//! its header dominates and its merge block does not; a loop's continue construct is every
//! block its continue target dominates and its merge does not; the loop construct is the rest
//! of what the header dominates.

use crate::hash::{FxHashMap, FxHashSet};

use super::{Location, Point, Rule, Sink};
use crate::analysis::{ConstructId, ConstructKind, ConstructTree, PostDomTree};
use crate::cfg::{Cfg, DomTree};
use crate::module::{Block, Func, Function, Merge, Module, Terminator};

struct Construct {
    /// Its node in the construct tree, which answers which blocks its region holds (a hash
    /// set of the region per construct cost as much as the rest of the verifier on large
    /// functions; docs/lowering-speed.md, round 4).
    id: ConstructId,
    header: Block,
    merge: Block,
    /// The continue target of a loop.
    cont: Option<Block>,
}

pub(super) fn check(
    module: &Module,
    f: Func,
    func: &Function,
    cfg: &Cfg,
    dom: &DomTree,
    sink: &mut Sink,
) {
    let at = |b: Block| Location {
        func: Some(f),
        block: Some(b),
        point: Some(Point::Terminator),
        value: None,
    };
    let scfg = Cfg::structured(func);
    let sdom = DomTree::new(func, &scfg);
    let mut merge_of: FxHashMap<Block, Block> = FxHashMap::default();
    let mut continue_targets: FxHashSet<Block> = FxHashSet::default();
    let mut loop_headers: FxHashSet<Block> = FxHashSet::default();
    let mut switch_targets: FxHashSet<Block> = FxHashSet::default();
    let mut constructs = Vec::new();

    for &h in &func.layout {
        let block = &func.blocks[h];
        if let Terminator::Switch { default, cases, .. } = &block.term {
            switch_targets.insert(*default);
            switch_targets.extend(cases.iter().map(|(_, t)| *t));
        }
        let Some(merge) = block.merge else { continue };
        let m = merge.merge_block();
        match (&merge, &block.term) {
            (
                Merge::Selection { .. },
                Terminator::CondBranch { .. } | Terminator::Switch { .. },
            ) => {}
            (Merge::Loop { .. }, Terminator::Branch(_) | Terminator::CondBranch { .. }) => {}
            (Merge::Selection { .. }, _) => sink.report(
                Rule::Structure,
                at(h),
                "a selection merge must precede a conditional branch or switch",
            ),
            (Merge::Loop { .. }, _) => sink.report(
                Rule::Structure,
                at(h),
                "a loop merge must precede a branch or conditional branch",
            ),
        }
        if m == h {
            sink.report(
                Rule::Structure,
                at(h),
                "a header cannot be its own merge block",
            );
        }
        if let Some(other) = merge_of.insert(m, h) {
            sink.report(
                Rule::Structure,
                at(h),
                format!("{m} is already the merge block of {other}"),
            );
        }
        if sdom.is_reachable(h) && sdom.is_reachable(m) && !sdom.dominates(h, m) {
            sink.report(
                Rule::Structure,
                at(h),
                format!("header {h} does not structurally dominate its merge block {m}"),
            );
        }
        if let Merge::Loop {
            continue_target, ..
        } = merge
        {
            loop_headers.insert(h);
            continue_targets.insert(continue_target);
            if continue_target == m {
                sink.report(
                    Rule::Structure,
                    at(h),
                    "a loop's merge block and continue target must differ",
                );
            }
            if sdom.is_reachable(continue_target) && !sdom.dominates(h, continue_target) {
                sink.report(
                    Rule::Structure,
                    at(h),
                    format!(
                        "loop header {h} does not dominate its continue target {continue_target}"
                    ),
                );
            }
        }
    }

    // Selection and loop constructs from the shared construct tree; a loop's region takes
    // in its continue construct, as edges from it to the merge or header are its exits.
    let tree = ConstructTree::with_structural_dominators(func, &sdom);
    // Each selection or loop construct's index in `constructs`, by construct id.
    let mut index_of: Vec<Option<usize>> = vec![None; tree.len()];
    for (id, c) in tree.iter() {
        if matches!(c.kind, ConstructKind::Selection | ConstructKind::Loop) {
            index_of[id.0 as usize] = Some(constructs.len());
            constructs.push(Construct {
                id,
                header: c.header,
                merge: c.merge,
                cont: c.continue_target,
            });
        }
    }

    // The selection and loop constructs that contain `b`, innermost last (the tree's
    // regions around `b` are in creation order, outer before inner).
    let around = |b: Block| {
        tree.regions_around(b)
            .iter()
            .filter_map(|id| index_of[id.0 as usize])
    };
    // Whether `t` is a merge block or continue target of a construct containing `b`.
    let structured_exit = |b: Block, t: Block| {
        around(b).any(|k| constructs[k].merge == t || constructs[k].cont == Some(t))
    };

    // Back edges and unstructured conditional branches. Back edges are found among the
    // blocks reachable in the structured graph, as spirv-val finds them: a continue target
    // that no branch reaches still gives its loop the back edge it branches along.
    let mut back_edges: FxHashMap<Block, Vec<Block>> = FxHashMap::default();
    for &b in sdom.rpo() {
        let block = &func.blocks[b];
        for &s in cfg.succs(b) {
            if sdom.dominates(s, b) {
                back_edges.entry(s).or_default().push(b);
                if !loop_headers.contains(&s) {
                    sink.report(
                        Rule::Structure,
                        at(b),
                        format!("back edge {b} -> {s} does not target a loop header"),
                    );
                } else if let Some(Merge::Loop {
                    continue_target, ..
                }) = func.blocks[s].merge
                {
                    if !sdom.dominates(continue_target, b) {
                        sink.report(
                            Rule::Structure,
                            at(b),
                            format!("back edge {b} -> {s} does not come from the continue construct of {s}"),
                        );
                    }
                }
            }
        }
        if block.merge.is_none() && dom.is_reachable(b) {
            match &block.term {
                Terminator::Switch { .. } => {
                    sink.report(
                        Rule::Structure,
                        at(b),
                        "a switch must be preceded by a selection merge",
                    );
                }
                Terminator::CondBranch {
                    if_true, if_false, ..
                } if if_true != if_false
                    && !structured_exit(b, *if_true)
                    && !structured_exit(b, *if_false) =>
                {
                    sink.report(
                        Rule::Structure,
                        at(b),
                        "a conditional branch outside a header must have a break or continue target",
                    );
                }
                _ => {}
            }
        }
    }
    let mut spdom: Option<PostDomTree> = None;
    for &h in &loop_headers {
        let edges = back_edges.get(&h).map_or(&[][..], Vec::as_slice);
        if dom.is_reachable(h) && edges.len() != 1 {
            sink.report(
                Rule::Structure,
                at(h),
                format!(
                    "loop header {h} is the target of {} back edges; it needs exactly one",
                    edges.len()
                ),
            );
        }
        if let (
            [back_edge],
            Some(Merge::Loop {
                continue_target, ..
            }),
        ) = (edges, func.blocks[h].merge)
        {
            let pdom = spdom.get_or_insert_with(|| PostDomTree::new(func, &scfg));
            super::continue_construct::check(
                f,
                func,
                &scfg,
                pdom,
                (h, continue_target, *back_edge),
                sink,
            );
        }
    }
    super::switch_cases::check(f, func, cfg, &sdom, &tree, sink);

    // Edges that leave a construct must go to a merge block or continue target of a
    // construct that contains the branch.
    for &b in dom.rpo() {
        for &s in cfg.succs(b) {
            if dom.dominates(s, b) {
                continue;
            }
            // Entering a construct anywhere but at its header.
            for c in around(s)
                .map(|k| &constructs[k])
                .filter(|c| !tree.region_contains(c.id, b) && s != c.header)
            {
                sink.report(
                    Rule::Structure,
                    at(b),
                    format!(
                        "branch {b} -> {s} enters the construct of {} without going through its header",
                        c.header
                    ),
                );
            }
            for c in around(b)
                .map(|k| &constructs[k])
                .filter(|c| !tree.region_contains(c.id, s))
            {
                let allowed = s == c.merge || structured_exit(b, s);
                if !allowed {
                    sink.report(
                        Rule::Structure,
                        at(b),
                        format!(
                            "branch {b} -> {s} leaves the construct of {} without going to a merge block or continue target",
                            c.header
                        ),
                    );
                }
            }
        }
    }

    // Conditional branches with equal targets: forbidden from SPIR-V 1.6, and under
    // maximal reconvergence.
    let maximal = module.maximal_reconvergence_applies(f);
    for &b in &func.layout {
        if let Terminator::CondBranch {
            if_true, if_false, ..
        } = &func.blocks[b].term
        {
            if if_true == if_false {
                if maximal {
                    sink.report(
                        Rule::MaximalReconvergence,
                        at(b),
                        "the two targets of a conditional branch must differ under maximal reconvergence",
                    );
                } else if module.version >= (1, 6) {
                    sink.report(
                        Rule::Structure,
                        at(b),
                        "the two targets of a conditional branch must differ from SPIR-V 1.6",
                    );
                }
            }
        }
    }
    if maximal {
        for &b in dom.rpo() {
            if cfg.preds(b).len() > 1
                && !loop_headers.contains(&b)
                && !merge_of.contains_key(&b)
                && !continue_targets.contains(&b)
                && !switch_targets.contains(&b)
            {
                sink.report(
                    Rule::MaximalReconvergence,
                    at(b),
                    format!(
                        "{b} has {} predecessors but is not a loop header, merge block, continue target or switch target",
                        cfg.preds(b).len()
                    ),
                );
            }
        }
    }
}
