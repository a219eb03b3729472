//! The block-order rule against its definition on random control-flow graphs.
//!
//! For thousands of random graphs (loops, irreducible cycles, unreachable blocks, switches)
//! and random layouts with the entry first, with dominance computed by brute force (`d`
//! dominates `b` when `b` cannot be reached from the entry without passing through `d`):
//! the verifier accepts the layout exactly when every reachable block comes after all its
//! dominators (the specification's wording), and it reports, like spirv-val, each block laid
//! out before its *immediate* dominator. The functions are lowered, so no structured rule
//! applies and the block order is the only rule a random graph can break.

use std::collections::HashSet;

use tangle_ir::text::parse;
use tangle_ir::verify::{verify, Rule};

/// Blocks reachable from block 0 when block `skip` is removed.
fn reachable(succs: &[Vec<usize>], skip: Option<usize>) -> HashSet<usize> {
    let mut seen = HashSet::new();
    let mut stack = vec![0];
    while let Some(b) = stack.pop() {
        if Some(b) == skip || !seen.insert(b) {
            continue;
        }
        stack.extend(succs[b].iter().copied());
    }
    seen
}

/// The strict dominators of every reachable block, by the definition.
fn strict_dominators(succs: &[Vec<usize>]) -> Vec<(usize, Vec<usize>)> {
    let all = reachable(succs, None);
    let mut out: Vec<(usize, Vec<usize>)> = all
        .iter()
        .map(|&b| {
            let doms = all
                .iter()
                .copied()
                .filter(|&d| d != b && (d == 0 || !reachable(succs, Some(d)).contains(&b)))
                .collect();
            (b, doms)
        })
        .collect();
    out.sort();
    out
}

/// Whether some reachable block comes before one of its dominators, and the blocks that
/// come before their immediate dominator (the strict dominator every other one dominates:
/// the one with the most strict dominators itself).
fn misplaced(succs: &[Vec<usize>], layout: &[usize]) -> (bool, Vec<usize>) {
    let pos = |b: usize| layout.iter().position(|x| *x == b).unwrap();
    let doms = strict_dominators(succs);
    let count = |d: usize| doms.iter().find(|(b, _)| *b == d).unwrap().1.len();
    let any = doms
        .iter()
        .any(|(b, ds)| ds.iter().any(|&d| pos(d) > pos(*b)));
    let before_idom = doms
        .iter()
        .filter(|(b, ds)| {
            let idom = ds.iter().copied().max_by_key(|&d| count(d));
            idom.is_some_and(|d| pos(d) > pos(*b))
        })
        .map(|(b, _)| *b)
        .collect();
    (any, before_idom)
}

#[test]
fn block_order_errors_match_brute_force_dominance() {
    let mut rng = fastrand::Rng::with_seed(0x0b10c0de);
    let (mut valid, mut invalid) = (0, 0);
    for _ in 0..3000 {
        let n = rng.usize(2..=7);
        let mut succs = Vec::new();
        let mut body = Vec::new();
        for _ in 0..n {
            let term = match rng.u8(0..4) {
                0 => (vec![], "return".to_string()),
                1 => {
                    let t = rng.usize(0..n);
                    (vec![t], format!("br b{t}"))
                }
                2 => {
                    let (t, f) = (rng.usize(0..n), rng.usize(0..n));
                    (vec![t, f], format!("br_if c1, b{t}, b{f}"))
                }
                _ => {
                    let (d, a, b) = (rng.usize(0..n), rng.usize(0..n), rng.usize(0..n));
                    (vec![d, a, b], format!("switch c0, b{d} [1: b{a}, 2: b{b}]"))
                }
            };
            succs.push(term.0);
            body.push(term.1);
        }
        let mut layout: Vec<usize> = (1..n).collect();
        rng.shuffle(&mut layout);
        layout.insert(0, 0);
        let mut text = String::from(
            "spirv 1.3\nmemory_model GLSL450\ncapability Shader\ntype t0 = void\n\
             type t1 = u32\ntype t2 = bool\nconst c0 u32 = 0\nconst c1 bool = true\n\
             entry GLCompute \"main\" f0 () [local_size 1 1 1]\nfn f0() -> void lowered {\n",
        );
        for &b in &layout {
            text.push_str(&format!("b{b}:\n  {}\n", body[b]));
        }
        text.push_str("}\n");
        let module = parse(&text).unwrap();
        let mut reported: Vec<usize> = match verify(&module) {
            Ok(()) => Vec::new(),
            Err(e) => {
                assert!(
                    e.0.iter().all(|x| x.rule == Rule::BlockOrder),
                    "only block order can break:\n{e}\n{text}"
                );
                e.0.iter()
                    .map(|x| x.loc.block.unwrap().as_u32() as usize)
                    .collect()
            }
        };
        reported.sort();
        let (any, expected) = misplaced(&succs, &layout);
        assert_eq!(reported, expected, "{text}");
        assert_eq!(any, !reported.is_empty(), "{text}");
        if !any {
            valid += 1;
        } else {
            invalid += 1;
        }
    }
    // Both outcomes occur often enough for the comparison to mean something.
    assert!(
        valid > 500 && invalid > 500,
        "{valid} valid, {invalid} invalid"
    );
}
