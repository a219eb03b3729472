//! The fuzz engine `tokens` in a smoke campaign: every generated program, with its tokens
//! inferred and its structure dropped, gives on the token engine the reference's buffers
//! (with merging switch fallthrough) under every policy of `all` at subgroup sizes 1, 4,
//! 32 and 128, and under `exhaustive` at 4 lanes on smaller programs.
//! `TANGLE_TOKENS_SMOKE=N` runs N seeds instead of the smoke count; the campaign of
//! thousands is `tangle fuzz --engines ref,tokens` by hand (`docs/tokens.md`).

use tangle_fuzz::campaign::Campaign;
use tangle_fuzz::lowered::{run_lowered_campaign, LoweredCheck, MachineEngine};
use tangle_fuzz::GenConfig;
use tangle_interp::Variant;
use tangle_machine::{Policy, SUPPORTED_POLICIES};

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

#[test]
fn the_token_engine_passes_a_smoke_campaign_under_every_policy() {
    let n: u64 = std::env::var("TANGLE_TOKENS_SMOKE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(24);
    let check = LoweredCheck {
        engine: MachineEngine::Tokens,
        policies: tangle_sched::expand("all", "token engine", &SUPPORTED_POLICIES)
            .expect("`all` expands"),
    };
    let summary = run_lowered_campaign(&campaign(0..n, vec![1, 4, 32, 128]), &check);
    eprintln!("{summary}");
    assert_eq!(summary.programs, n);
    assert!(summary.mismatches.is_empty(), "{:?}", summary.mismatches);
    let exhaustive = LoweredCheck {
        engine: MachineEngine::Tokens,
        policies: vec![Policy::Exhaustive],
    };
    let mut small = campaign(0..n.min(20), vec![4]);
    small.gen.size_budget = 12;
    small.nestings = (1..=3).collect();
    let summary = run_lowered_campaign(&small, &exhaustive);
    eprintln!("{summary}");
    assert!(summary.mismatches.is_empty(), "{:?}", summary.mismatches);
}

/// The mask oracle's `Merge` mode against the reference interpreter's: equal buffers on
/// generated programs, among them the seeds whose elect loops in a case reached both ways
/// run longer under merging than apart (the 5,000-program campaign found them writing past
/// a buffer sized for the independent grouping).
#[test]
fn the_mask_oracle_under_merge_equals_the_reference_under_merge() {
    use tangle_fuzz::mask::{simulate, simulate_with, Fallthrough};
    let c = campaign(0..1, vec![]);
    let c = Campaign {
        gen: GenConfig {
            nesting: 4,
            size_budget: 40,
        },
        ..c
    };
    let mut longer = 0;
    for seed in (0..40).chain([122, 494, 687, 1655, 1868]) {
        let program = tangle_fuzz::generate(seed, c.config_of(seed));
        let module = tangle_fuzz::build::build_module(&program);
        for size in [1, 4, 32, 128] {
            let want = simulate_with(&program, size, Fallthrough::Merge);
            let got = tangle_fuzz::lowered::run_reference_merging(&module, size, want.words.len())
                .unwrap_or_else(|e| panic!("seed {seed} size {size}: {e}"));
            assert_eq!(got, want.words, "seed {seed} at subgroup size {size}");
            longer += (want.words.len() > simulate(&program, size).words.len()) as u32;
        }
    }
    assert!(longer > 0, "no program writes more records under Merge");
}
