//! The two oracles (the reference interpreter on the built IR, the mask-stack simulator on
//! the program form) agree on generated programs at subgroup sizes 1–128; the IR verifies.

use tangle_fuzz::campaign::{self, Campaign};
use tangle_fuzz::{build::build_module, generate, GenConfig};
use tangle_interp::Variant;

const SIZES: [u32; 8] = [1, 2, 4, 8, 16, 32, 64, 128];

#[test]
fn generated_modules_verify() {
    for nesting in 1..=8 {
        for seed in 0..40 {
            let program = generate(
                seed,
                GenConfig {
                    nesting,
                    size_budget: 40,
                },
            );
            let m = build_module(&program);
            if let Err(e) = tangle_ir::verify::verify(&m) {
                panic!(
                    "seed {seed} nesting {nesting}: {e}\n{:#?}\n{}",
                    program,
                    tangle_ir::text::print(&m)
                );
            }
        }
    }
}

/// The CI smoke campaign: a few hundred programs, every subgroup size.
#[test]
fn smoke_campaign_has_no_mismatches() {
    let cases: u64 = std::env::var("TANGLE_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    for nesting in [2, 4, 6] {
        let summary = campaign::run(&Campaign {
            seeds: 0..cases / 3,
            gen: GenConfig {
                nesting,
                size_budget: 30,
            },
            nestings: Vec::new(),
            subgroup_sizes: SIZES.to_vec(),
            variant: Variant::Maximal,
            jobs: 2,
            shard: (0, 1),
        });
        if let Some((seed, m)) = summary.mismatches.first() {
            let program = generate(
                *seed,
                GenConfig {
                    nesting,
                    size_budget: 30,
                },
            );
            panic!("nesting {nesting}: {summary}; seed {seed}: {m}\n{program:#?}");
        }
        assert_eq!(summary.programs, cases / 3);
    }
}
