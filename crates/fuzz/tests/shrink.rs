//! Each known-wrong interpreter variant, once caught, shrinks to a reproducer of a few
//! statements that still fails under the variant and passes under the specification.

use tangle_fuzz::ast::count_stmts;
use tangle_fuzz::shrink::{shrink, well_formed};
use tangle_fuzz::{compare, generate, GenConfig, Mismatch, Program};
use tangle_interp::Variant;

fn config() -> GenConfig {
    GenConfig {
        nesting: 4,
        size_budget: 30,
    }
}

/// The first seed below 1000 whose program shows `variant`, and the subgroup size it shows at.
fn caught(variant: Variant) -> (Program, u32) {
    (0..1000)
        .find_map(|seed| {
            let p = generate(seed, config());
            match compare(&p, &[4, 32], variant) {
                Err(Mismatch::Words { subgroup_size, .. }) => Some((p, subgroup_size)),
                _ => None,
            }
        })
        .expect("some seed shows the variant")
}

fn size(p: &Program) -> usize {
    count_stmts(&p.body) + p.functions.iter().map(|f| count_stmts(f)).sum::<usize>()
}

fn check(variant: Variant) {
    let (program, subgroup_size) = caught(variant);
    let fails = |p: &Program| {
        matches!(
            compare(p, &[subgroup_size], variant),
            Err(Mismatch::Words { .. })
        )
    };
    let small = shrink(&program, fails, 20_000);
    assert!(well_formed(&small));
    assert!(fails(&small), "the reproducer still fails");
    assert_eq!(
        compare(&small, &[subgroup_size], Variant::Maximal),
        Ok(()),
        "the reproducer is right under the specification"
    );
    assert!(
        size(&small) <= 10,
        "{variant:?}: {} statements left of {}:\n{small:#?}",
        size(&small),
        size(&program)
    );
    eprintln!(
        "{variant:?}: {} statements shrunk to {} (local size {}, subgroup size {subgroup_size}):\n{small:#?}",
        size(&program),
        size(&small),
        small.local_size
    );
}

#[test]
fn no_continue_reconvergence_shrinks() {
    check(Variant::NoContinueReconvergence);
}

#[test]
fn no_call_reconvergence_shrinks() {
    check(Variant::NoCallReconvergence);
}

#[test]
fn break_not_split_by_iteration_shrinks() {
    check(Variant::BreakNotSplitByIteration);
}

#[test]
fn the_batched_shrinker_gives_the_sequential_result() {
    let variant = Variant::BreakNotSplitByIteration;
    let (program, subgroup_size) = caught(variant);
    let fails = |p: &Program| {
        matches!(
            compare(p, &[subgroup_size], variant),
            Err(Mismatch::Words { .. })
        )
    };
    let sequential = shrink(&program, fails, 20_000);
    for chunk in [1, 3, 16] {
        let mut calls = 0;
        let batched = tangle_fuzz::shrink::shrink_batched(
            &program,
            |part| {
                calls += 1;
                part.iter().position(fails)
            },
            chunk,
            20_000,
        );
        assert_eq!(batched, sequential, "chunk {chunk}");
        assert!(calls > 0);
    }
}
