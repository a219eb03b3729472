//! The analyses against brute-force definitions on random graphs: post-dominance by path
//! search with blocks removed, cycles by mutual reachability, constructs by structural
//! dominance computed by path search. `TANGLE_ANALYSIS_CASES` raises the number of graphs.

mod common;

use std::collections::{BTreeSet, HashSet};

use tangle_ir::analysis::{ConstructKind, ConstructTree, CycleInfo, PostDomNode, PostDomTree};
use tangle_ir::cfg::{reverse_post_order, Cfg};
use tangle_ir::{Block, Function, Merge, Terminator};

fn cases(default: usize) -> usize {
    std::env::var("TANGLE_ANALYSIS_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Blocks reachable from `from` in `succs` without passing `removed` (`from` itself counts
/// only if reached again when `nonempty`).
fn reach(
    succs: &dyn Fn(Block) -> Vec<Block>,
    from: Block,
    removed: Option<Block>,
    nonempty: bool,
) -> HashSet<Block> {
    let mut seen = HashSet::new();
    let mut stack = if nonempty { succs(from) } else { vec![from] };
    while let Some(b) = stack.pop() {
        if Some(b) == removed || !seen.insert(b) {
            continue;
        }
        stack.extend(succs(b));
    }
    seen
}

fn check_post_dominators(f: &Function) -> usize {
    let cfg = Cfg::new(f);
    let rpo = reverse_post_order(f, &cfg);
    let pdt = PostDomTree::new(f, &cfg);
    // The exit edges by the definition: blocks without successors, then the first block in
    // reverse post-order of each sink component of the blocks that cannot reach an exit.
    let exits: Vec<Block> = rpo
        .iter()
        .copied()
        .filter(|&b| cfg.succs(b).is_empty())
        .collect();
    let succ = |b: Block| cfg.succs(b).to_vec();
    let reaches_exit = |b: Block, extra: &[Block]| {
        let r = reach(&succ, b, None, false);
        exits.iter().chain(extra).any(|e| r.contains(e))
    };
    let stuck: Vec<Block> = rpo
        .iter()
        .copied()
        .filter(|&b| !reaches_exit(b, &[]))
        .collect();
    let mut fake = Vec::new();
    for &b in &stuck {
        let from_b = reach(&succ, b, None, false);
        let comp: Vec<Block> = from_b
            .iter()
            .copied()
            .filter(|&w| reach(&succ, w, None, false).contains(&b))
            .collect();
        let terminal = from_b.iter().all(|w| comp.contains(w));
        let first = *rpo.iter().find(|x| comp.contains(x)).unwrap();
        if terminal && first == b {
            fake.push(b);
        }
    }
    let mut got = pdt.fake_exit_blocks().to_vec();
    got.sort();
    fake.sort();
    assert_eq!(got, fake, "fake exit edges");
    let to_exit: Vec<Block> = exits.iter().chain(&fake).copied().collect();
    // a post-dominates b iff b reaches no exit edge once a is removed.
    let pdom = |a: Block, b: Block| {
        a == b || {
            let r = reach(&succ, b, Some(a), false);
            !to_exit.iter().any(|e| r.contains(e))
        }
    };
    let mut checked = 0;
    for &a in &rpo {
        for &b in &rpo {
            assert_eq!(
                pdt.block_post_dominates(a, b),
                pdom(a, b),
                "post-dominance of {b} by {a}"
            );
            checked += 1;
        }
        assert!(pdt.post_dominates(PostDomNode::VirtualExit, PostDomNode::Block(a)));
        assert!(!pdt.post_dominates(PostDomNode::Block(a), PostDomNode::VirtualExit));
        // The immediate post-dominator: the strict post-dominator all others post-dominate.
        let strict: Vec<Block> = rpo
            .iter()
            .copied()
            .filter(|&x| x != a && pdom(x, a))
            .collect();
        let expect = strict
            .iter()
            .copied()
            .find(|&x| strict.iter().all(|&y| pdom(y, x)))
            .map_or(PostDomNode::VirtualExit, PostDomNode::Block);
        assert_eq!(pdt.ipdom(a), Some(expect), "ipdom of {a}");
    }
    checked
}

/// Checks the cycles within `set` (the blocks of a parent cycle without its header, or every
/// reachable block) against mutual reachability; returns the cycles checked.
fn check_cycles_in(
    f: &Function,
    cfg: &Cfg,
    info: &CycleInfo,
    set: &BTreeSet<Block>,
    got: &[tangle_ir::analysis::CycleId],
    preorder: &[Block],
) -> usize {
    let succ = |b: Block| -> Vec<Block> {
        cfg.succs(b)
            .iter()
            .copied()
            .filter(|s| set.contains(s))
            .collect()
    };
    let mut expected: Vec<BTreeSet<Block>> = Vec::new();
    for &b in set {
        let from_b = reach(&succ, b, None, true);
        if !from_b.contains(&b) {
            continue;
        }
        let comp: BTreeSet<Block> = from_b
            .iter()
            .copied()
            .filter(|&w| reach(&succ, w, None, true).contains(&b))
            .collect();
        if !expected.contains(&comp) {
            expected.push(comp);
        }
    }
    let found: Vec<BTreeSet<Block>> = got
        .iter()
        .map(|&c| info.cycle(c).blocks.iter().copied().collect())
        .collect();
    let mut e = expected.clone();
    let mut g = found.clone();
    e.sort();
    g.sort();
    assert_eq!(g, e, "cycles of {set:?}");
    let mut n = 0;
    for &c in got {
        let cycle = info.cycle(c);
        let blocks: BTreeSet<Block> = cycle.blocks.iter().copied().collect();
        let entries: Vec<Block> = preorder
            .iter()
            .copied()
            .filter(|&b| blocks.contains(&b))
            .filter(|&b| {
                Some(b) == f.entry()
                    || cfg
                        .preds(b)
                        .iter()
                        .any(|p| !blocks.contains(p) && preorder.contains(p))
            })
            .collect();
        assert_eq!(cycle.entries, entries, "entries of {c:?}");
        assert_eq!(
            cycle.header, entries[0],
            "the header is the entry found first"
        );
        assert_eq!(cycle.is_reducible(), entries.len() == 1);
        for &b in &cycle.blocks {
            assert!(info.contains(c, b));
        }
        let mut inner = blocks.clone();
        inner.remove(&cycle.header);
        for &child in &cycle.children {
            assert_eq!(info.cycle(child).parent, Some(c));
            assert_eq!(info.cycle(child).depth, cycle.depth + 1);
        }
        n += 1 + check_cycles_in(f, cfg, info, &inner, &cycle.children, preorder);
    }
    n
}

/// Depth-first preorder by recursion (the analysis uses an explicit stack).
fn preorder(f: &Function, cfg: &Cfg) -> Vec<Block> {
    fn visit(cfg: &Cfg, b: Block, out: &mut Vec<Block>) {
        out.push(b);
        for &s in cfg.succs(b) {
            if !out.contains(&s) {
                visit(cfg, s, out);
            }
        }
    }
    let mut out = Vec::new();
    visit(cfg, f.entry().unwrap(), &mut out);
    out
}

#[test]
fn post_dominators_and_cycles_match_brute_force_on_random_graphs() {
    let mut rng = fastrand::Rng::with_seed(0x9e37_79b9);
    let (mut pairs, mut cycles, mut irreducible, mut infinite) = (0, 0, 0, 0);
    let n_graphs = cases(3000);
    for _ in 0..n_graphs {
        let n = rng.usize(1..12);
        let shape = common::random_shape(&mut rng, n, true);
        let (m, fid) = common::shape_function(&shape);
        let f = &m.funcs[fid];
        pairs += check_post_dominators(f);
        let cfg = Cfg::new(f);
        let info = CycleInfo::new(f, &cfg);
        let pre = preorder(f, &cfg);
        assert_eq!(info.preorder(), &pre[..]);
        let all: BTreeSet<Block> = pre.iter().copied().collect();
        cycles += check_cycles_in(f, &cfg, &info, &all, info.top_level(), &pre);
        irreducible += info.cycles().filter(|(_, c)| !c.is_reducible()).count();
        for &b in &pre {
            let depth = info.cycles().filter(|(_, c)| c.blocks.contains(&b)).count() as u32;
            assert_eq!(info.depth(b), depth, "cycle depth of {b}");
        }
        infinite += usize::from(!PostDomTree::new(f, &cfg).fake_exit_blocks().is_empty());
    }
    println!(
        "{n_graphs} graphs: {pairs} post-dominance pairs, {cycles} cycles ({irreducible} irreducible), {infinite} graphs with infinite loops"
    );
    assert!(irreducible > n_graphs / 20 && infinite > n_graphs / 20);
}

/// Structural dominance by path search: `a` dominates `b` iff `b` is unreachable from the
/// entry once `a` is removed.
fn structural_dominance(f: &Function) -> impl Fn(Block, Block) -> bool + '_ {
    let scfg = Cfg::structured(f);
    let entry = f.entry().unwrap();
    let succ = move |b: Block| scfg.succs(b).to_vec();
    let reachable = reach(&succ, entry, None, false);
    move |a: Block, b: Block| {
        reachable.contains(&b) && (a == b || !reach(&succ, entry, Some(a), false).contains(&b))
    }
}

fn print_func(f: &Function) -> String {
    let mut m = common::module().0;
    m.funcs.push(f.clone());
    tangle_ir::text::print(&m)
}

fn check_constructs(f: &Function) -> usize {
    let sdom = structural_dominance(f);
    let blocks: Vec<Block> = f.layout.clone();
    let set = |entry: Block, not: &[Block]| -> BTreeSet<Block> {
        blocks
            .iter()
            .copied()
            .filter(|&b| sdom(entry, b) && !not.iter().any(|&n| sdom(n, b)))
            .collect()
    };
    // (kind, entry) -> blocks, by the specification's definitions.
    let mut expected = Vec::new();
    for &h in &blocks {
        match f.blocks[h].merge {
            Some(Merge::Selection { merge, .. }) => {
                expected.push((ConstructKind::Selection, h, set(h, &[merge])));
                if let Terminator::Switch { default, cases, .. } = &f.blocks[h].term {
                    let mut seen = HashSet::new();
                    for t in std::iter::once(*default).chain(cases.iter().map(|c| c.1)) {
                        if t != merge && seen.insert(t) {
                            expected.push((ConstructKind::Case, t, set(t, &[merge])));
                        }
                    }
                }
            }
            Some(Merge::Loop {
                merge,
                continue_target,
                ..
            }) => {
                let cont = set(continue_target, &[merge]);
                let lp: BTreeSet<Block> = set(h, &[merge]).difference(&cont).copied().collect();
                expected.push((ConstructKind::Loop, h, lp));
                expected.push((ConstructKind::Continue, continue_target, cont));
            }
            None => {}
        }
    }
    let tree = ConstructTree::new(f);
    let mut got: Vec<_> = tree
        .iter()
        .map(|(_, c)| {
            (
                c.kind,
                c.entry,
                c.blocks.iter().copied().collect::<BTreeSet<_>>(),
            )
        })
        .collect();
    expected.sort();
    got.sort();
    assert_eq!(got, expected, "constructs");
    // Nesting: the parent is the smallest other region containing this one's.
    let region = |id| tree.region(id).into_iter().collect::<BTreeSet<Block>>();
    for (id, c) in tree.iter() {
        let mine = region(id);
        let smallest = tree
            .iter()
            .filter(|&(o, _)| o != id && region(o).is_superset(&mine))
            .map(|(o, _)| region(o).len())
            .min();
        assert_eq!(
            c.parent.map(|p| region(p).len()),
            smallest,
            "parent of {c:?}"
        );
        if let Some(p) = c.parent {
            assert!(region(p).is_superset(&mine) && tree.get(p).children.contains(&id));
        }
    }
    // The innermost construct of a block holds it, and no construct inside it does.
    for &b in &blocks {
        let holding: Vec<_> = tree
            .iter()
            .filter(|(_, c)| c.contains(b))
            .map(|(id, _)| id)
            .collect();
        match tree.innermost(b) {
            None => assert!(holding.is_empty()),
            Some(i) => {
                assert!(tree.get(i).contains(b));
                let ri = region(i);
                for o in holding {
                    let ro = region(o);
                    assert!(
                        o == i || !(ri.is_superset(&ro) && ri != ro),
                        "{b}: {o:?} is inside {i:?}"
                    );
                }
            }
        }
    }
    // Fallthrough: a case construct falls through to a case target its blocks branch to.
    for &h in &blocks {
        let cases = tree.case_fallthrough(f, h);
        let targets: Vec<Block> = cases.iter().map(|c| c.0).collect();
        for (t, into) in cases {
            let mine = set(t, &[f.blocks[h].merge.unwrap().merge_block()]);
            let expect = targets.iter().copied().find(|&t2| {
                t2 != t
                    && !mine.contains(&t2)
                    && mine
                        .iter()
                        .any(|&b| f.blocks[b].term.successors().contains(&t2))
            });
            assert_eq!(into, expect, "fallthrough of case {t} of {h}");
        }
    }
    // The interpreter's definition today (`crates/interp/src/construct.rs`): `from` falls
    // into `to` when a path leads from one to the other avoiding the header, the merge and
    // the other targets. On valid functions it must agree with the construct tree's
    // executable fallthroughs (the specification's also count unreachable blocks).
    let cfg = Cfg::new(f);
    let dom = tangle_ir::cfg::DomTree::new(f, &cfg);
    for &h in &blocks {
        let Some(Merge::Selection { merge, .. }) = f.blocks[h].merge else {
            continue;
        };
        if !dom.is_reachable(h) {
            continue;
        }
        let cases = tree.cases(h);
        let targets: Vec<Block> = cases.iter().map(|&c| tree.get(c).entry).collect();
        let pairs = tree.executable_case_fallthrough(f, &dom, h);
        assert_eq!(pairs.iter().map(|p| p.0).collect::<Vec<_>>(), targets);
        for &case in &cases {
            let from = tree.get(case).entry;
            let into = tree.executable_fallthrough_targets(f, &dom, case);
            assert!(pairs.contains(&(from, into.first().copied())));
            for &to in targets.iter().filter(|&&t| t != from) {
                let avoid = |b: Block| b == h || b == merge || (targets.contains(&b) && b != to);
                let succ = |b: Block| -> Vec<Block> {
                    f.blocks[b]
                        .term
                        .successors()
                        .into_iter()
                        .filter(|&s| !avoid(s) || s == to)
                        .collect()
                };
                let path = reach(&succ, from, None, true).contains(&to);
                assert_eq!(
                    into.contains(&to),
                    path,
                    "{from} into {to} in the switch of {h}\n{}",
                    print_func(f)
                );
            }
        }
    }
    tree.len()
}

#[test]
fn construct_tree_matches_the_definitions_on_random_structured_functions() {
    let mut rng = fastrand::Rng::with_seed(0x5eed_c0de);
    let n_funcs = cases(2000);
    let (mut constructs, mut fallthroughs) = (0, 0);
    for _ in 0..n_funcs {
        let size = rng.usize(1..25);
        let (m, fid) = common::random_structured(&mut rng, size);
        if let Err(e) = tangle_ir::verify::verify(&m) {
            panic!("{e}\n{}", tangle_ir::text::print(&m));
        }
        let f = &m.funcs[fid];
        constructs += check_constructs(f);
        let tree = ConstructTree::new(f);
        fallthroughs += f
            .layout
            .iter()
            .flat_map(|&h| tree.case_fallthrough(f, h))
            .filter(|c| c.1.is_some())
            .count();
    }
    println!(
        "{n_funcs} structured functions: {constructs} constructs, {fallthroughs} fallthroughs"
    );
    assert!(fallthroughs > n_funcs / 20);
}
