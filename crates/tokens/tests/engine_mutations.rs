//! The token engine's agreement with the reference can fail: tokens placed wrongly on the
//! fuzz generator's programs are caught by comparing the engine's buffers with the
//! reference interpreter's. Each mutation changes what `infer-tokens` placed, keeps the
//! module valid (programs where it would not verify are skipped), and must give a wrong
//! buffer on some program of a small seed range, while the unmutated tokens agree on every
//! program of that range:
//!
//! - `heart-to-anchor`: every loop heart becomes an anchor (iterations no longer counted:
//!   lanes of different outer iterations meet at an inner loop's anchor);
//! - `break-outer`: the operations of a loop's break blocks (in the loop construct, outside
//!   the cycle) take the loop's parent token instead of its heart (LLVM's cycle-based
//!   inference: lanes breaking in different iterations converge);
//! - `merge-heart`: the operations of a loop's merge block take the loop's heart instead of
//!   the parent token (the lanes that left in different iterations stay apart).

use std::collections::HashSet;

use tangle_fuzz::build::build_module;
use tangle_fuzz::lowered::{run_machine, run_reference_merging};
use tangle_fuzz::mask::simulate;
use tangle_fuzz::{generate, GenConfig};
use tangle_ir::module::{Block, Function, Merge, Module, Value};
use tangle_ir::ops::{Op, TangleOp};
use tangle_machine::{Convergence, Policy};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mutation {
    None,
    HeartToAnchor,
    BreakOuter,
    MergeHeart,
}

/// The heart (`conv_loop` result and its operand) at the top of loop header `h`.
fn heart(f: &Function, h: Block) -> Option<(Value, Value)> {
    f.blocks[h].insts.iter().find_map(|&i| {
        let d = &f.insts[i];
        (d.op == Op::Tangle(TangleOp::ConvLoop)).then(|| (d.result.unwrap(), d.conv.unwrap()))
    })
}

/// Whether `from` reaches `to` without entering `stop`.
fn reaches_avoiding(f: &Function, from: Block, to: Block, stop: Block) -> bool {
    let mut seen = HashSet::new();
    let mut work = vec![from];
    while let Some(b) = work.pop() {
        if b == to {
            return true;
        }
        if b == stop || !seen.insert(b) {
            continue;
        }
        work.extend(f.blocks[b].term.successors());
    }
    false
}

/// Applies `mutation` to the structured `module` whose tokens were inferred; whether it
/// changed anything.
fn mutate(module: &mut Module, mutation: Mutation) -> bool {
    let mut changed = false;
    for (_, f) in module.funcs.iter_mut() {
        let loops: Vec<(Block, Block)> = f
            .layout
            .iter()
            .filter_map(|&h| match f.blocks[h].merge {
                Some(Merge::Loop { merge, .. }) => Some((h, merge)),
                _ => None,
            })
            .collect();
        for (h, merge) in loops {
            let Some((token, parent)) = heart(f, h) else {
                continue;
            };
            let blocks: Vec<Block> = f.layout.clone();
            for b in blocks {
                let insts = f.blocks[b].insts.clone();
                for i in insts {
                    let d = &mut f.insts[i];
                    match mutation {
                        Mutation::HeartToAnchor if d.result == Some(token) => {
                            d.op = Op::Tangle(TangleOp::ConvAnchor);
                            d.conv = None;
                            changed = true;
                        }
                        Mutation::MergeHeart if b == merge && d.conv == Some(parent) => {
                            d.conv = Some(token);
                            changed = true;
                        }
                        _ => {}
                    }
                }
            }
            if mutation == Mutation::BreakOuter {
                let breaks: Vec<Block> = f
                    .layout
                    .iter()
                    .copied()
                    .filter(|&b| b != h && !reaches_avoiding(f, b, h, merge))
                    .collect();
                for b in breaks {
                    for i in f.blocks[b].insts.clone() {
                        let d = &mut f.insts[i];
                        if d.conv == Some(token) && d.op != Op::Tangle(TangleOp::ConvLoop) {
                            d.conv = Some(parent);
                            changed = true;
                        }
                    }
                }
            }
        }
    }
    changed
}

/// Whether the token engine, on `seed`'s program with `mutation` applied, gives the
/// reference's buffer at every size (`None`: the mutation changed nothing or broke
/// validity).
fn agrees(seed: u64, mutation: Mutation) -> Option<Result<(), String>> {
    let program = generate(
        seed,
        GenConfig {
            nesting: 2 + (seed % 3) as u32,
            size_budget: 30,
        },
    );
    let module = build_module(&program);
    let mut m = module.clone();
    tangle_tokens::infer::run(&mut m);
    if !mutate(&mut m, mutation) && mutation != Mutation::None {
        return None;
    }
    tangle_tokens::engine::drop_structure(&mut m);
    if tangle_ir::verify::verify(&m).is_err() {
        return None;
    }
    for size in [4, 32] {
        let words = simulate(&program, size).words.len();
        let want = run_reference_merging(&module, size, words).expect("the reference runs");
        let got = run_machine(&m, size, words, Policy::Strict, Convergence::Tokens);
        match got {
            Ok((w, _)) if w == want => {}
            Ok(_) => return Some(Err(format!("seed {seed}, size {size}: wrong buffer"))),
            Err(e) => return Some(Err(format!("seed {seed}, size {size}: {e}"))),
        }
    }
    Some(Ok(()))
}

const SEEDS: u64 = 150;

#[test]
fn the_inferred_tokens_agree_and_every_mutation_is_caught() {
    for seed in 0..SEEDS {
        if let Some(Err(e)) = agrees(seed, Mutation::None) {
            panic!("the inferred tokens disagree: {e}");
        }
    }
    for mutation in [
        Mutation::HeartToAnchor,
        Mutation::BreakOuter,
        Mutation::MergeHeart,
    ] {
        let (mut applied, mut caught) = (0, None);
        for seed in 0..SEEDS {
            match agrees(seed, mutation) {
                None => {}
                Some(Ok(())) => applied += 1,
                Some(Err(e)) => {
                    caught = Some(e);
                    break;
                }
            }
        }
        eprintln!("{mutation:?}: caught after {applied} agreeing programs: {caught:?}");
        assert!(caught.is_some(), "{mutation:?} is never caught");
    }
}
