//! Register counts against the lower bound. With 32-bit values only and registers to spare,
//! an SSA program's interference graph is chordal and allocation in dominance order reaches
//! the most values live at once exactly; the bound is computed here by brute force, apart
//! from the allocator's own liveness. With tuples the bound is only approached (alignment),
//! so the mixed corpus reports its excess (`docs/regalloc.md` has the figures:
//! `cargo test -p tangle-regalloc --test minimal -- --nocapture`).

mod common;

use common::brute::max_live_gpr_words;
use common::{random_function, Shape};
use tangle_regalloc::{allocate, check::check, Limits, RegClass};

fn cases() -> u64 {
    std::env::var("TANGLE_REGALLOC_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}

#[test]
fn scalar_functions_use_exactly_their_max_live() {
    let shape = Shape {
        scalar: true,
        ..Shape::mixed(10, 12, 60)
    };
    for seed in 0..cases() {
        let func = random_function(seed, shape, &Limits::HARDWARE);
        let alloc = allocate(&func, &Limits::HARDWARE).unwrap();
        check(&func, &Limits::HARDWARE, &alloc).unwrap();
        let bound = max_live_gpr_words(&func);
        assert_eq!(
            alloc.max_live.of(RegClass::Gpr),
            bound,
            "seed {seed}: the allocator's bound differs from brute force"
        );
        assert_eq!(
            alloc.regs_used.of(RegClass::Gpr),
            bound,
            "seed {seed}\n{func}"
        );
    }
}

#[test]
fn mixed_functions_stay_near_their_max_live() {
    let shape = Shape::mixed(10, 12, 60);
    let (mut used, mut bound, mut at_bound, mut worst, mut edits) =
        (0u64, 0u64, 0u64, 0u32, 0usize);
    let n = cases();
    for seed in 0..n {
        let func = random_function(seed, shape, &Limits::HARDWARE);
        let alloc = allocate(&func, &Limits::HARDWARE).unwrap();
        check(&func, &Limits::HARDWARE, &alloc).unwrap();
        let lower = max_live_gpr_words(&func);
        let got = alloc.regs_used.of(RegClass::Gpr);
        assert!(
            got >= lower,
            "seed {seed}: {got} registers is below the bound {lower}: the bound is wrong"
        );
        used += u64::from(got);
        edits += alloc.edits.len();
        bound += u64::from(lower);
        at_bound += u64::from(got == lower);
        worst = worst.max(got - lower);
    }
    println!(
        "mixed corpus, {n} functions: GPRs used {used} against max-live {bound} ({:.2}% over); {at_bound} at the bound; worst excess {worst}; {edits} moves and swaps",
        100.0 * (used as f64 - bound as f64) / bound as f64
    );
    assert!(
        used * 100 <= bound * 110,
        "more than 10% over the lower bound: {used} vs {bound}"
    );
}
