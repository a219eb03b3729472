//! The lowered engines in a smoke campaign: every generated program lowered by tangle's
//! scheme gives the reference's buffers on the barrier machine under every policy of
//! `all` (and `exhaustive` at 4 lanes), and seed 000's baseline is caught on a wrong
//! buffer (a wrong ballot or elect, not a deadlock), then shrunk to a smaller program that
//! still shows it. `TANGLE_LOWERED_SMOKE=N` runs N seeds instead of the smoke count.

use tangle_fuzz::ast::count_stmts;
use tangle_fuzz::campaign::Campaign;
use tangle_fuzz::lowered::{
    compare_lowered, run_lowered_campaign, shrink_lowered, LoweredCheck, LoweredMismatch,
    MachineEngine,
};
use tangle_fuzz::{generate, GenConfig};
use tangle_interp::Variant;
use tangle_machine::{Policy, SUPPORTED_POLICIES};
use tangle_reconverge::Scheme;

fn campaign(seeds: std::ops::Range<u64>, sizes: Vec<u32>) -> Campaign {
    Campaign {
        seeds,
        gen: GenConfig {
            nesting: 4,
            size_budget: 30,
        },
        nestings: (1..=6).collect(),
        subgroup_sizes: sizes,
        variant: Variant::Maximal,
        jobs: 2,
        shard: (0, 1),
    }
}

fn all() -> Vec<Policy> {
    tangle_sched::expand("all", "lowered", &SUPPORTED_POLICIES).expect("`all` expands")
}

#[test]
fn the_lowering_passes_a_smoke_campaign_under_every_policy() {
    let n: u64 = std::env::var("TANGLE_LOWERED_SMOKE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(24);
    let check = LoweredCheck {
        engine: MachineEngine::Lowered(Scheme::Scopes),
        policies: all(),
    };
    let summary = run_lowered_campaign(&campaign(0..n, vec![1, 4, 32, 128]), &check);
    eprintln!("{summary}");
    assert!(summary.mismatches.is_empty(), "{:?}", summary.mismatches);
    // And every interleaving at 4 lanes, on smaller programs: the search replays a run
    // for every choice point it backtracks to, so long programs outgrow a smoke test.
    let exhaustive = LoweredCheck {
        engine: MachineEngine::Lowered(Scheme::Scopes),
        policies: vec![Policy::Exhaustive],
    };
    let mut small = campaign(0..n.min(20), vec![4]);
    small.gen.size_budget = 12;
    small.nestings = (1..=3).collect();
    let summary = run_lowered_campaign(&small, &exhaustive);
    eprintln!("{summary}");
    assert!(summary.mismatches.is_empty(), "{:?}", summary.mismatches);
}

#[test]
fn the_baseline_is_caught_on_a_wrong_buffer_and_shrunk() {
    let check = LoweredCheck {
        engine: MachineEngine::Lowered(Scheme::Baseline),
        policies: all(),
    };
    let summary = run_lowered_campaign(&campaign(0..40, vec![4, 32]), &check);
    eprintln!("{summary}");
    let (seed, mismatch) = summary
        .mismatches
        .iter()
        .find(|(_, m)| matches!(m, LoweredMismatch::Words { .. }))
        .expect("the baseline gives a wrong buffer on some seed in 0..40");
    eprintln!("seed {seed}: {mismatch}");
    let program = generate(*seed, campaign(0..1, vec![]).config_of(*seed));
    let small = shrink_lowered(&program, mismatch, &check, 5_000);
    let again = compare_lowered(&small, &[mismatch.subgroup_size()], &check);
    eprintln!("shrunk: {again:?}\n{small:#?}");
    assert!(
        matches!(again, Err(LoweredMismatch::Words { .. })),
        "the shrunk program still shows a wrong buffer: {again:?}"
    );
    let size = |p: &tangle_fuzz::Program| {
        count_stmts(&p.body) + p.functions.iter().map(|f| count_stmts(f)).sum::<usize>()
    };
    eprintln!("{} statements shrunk to {}", size(&program), size(&small));
    assert!(size(&small) < size(&program), "shrinking made it smaller");
    // tangle's scheme passes the same program.
    let scopes = LoweredCheck {
        engine: MachineEngine::Lowered(Scheme::Scopes),
        policies: all(),
    };
    assert!(compare_lowered(&program, &[4, 32], &scopes).is_ok());
}
