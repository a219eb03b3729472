//! The comparison can fail: the reference interpreter run under its known-wrong variants
//! disagrees with the mask oracle on some generated program (in the buffers, not as an
//! interpreter failure), and the first such seed is found within a small campaign.

use tangle_fuzz::campaign::{self, Campaign};
use tangle_fuzz::{GenConfig, Mismatch};
use tangle_interp::Variant;

/// The first seed (searched in chunks of 100, up to 1000) whose buffers differ under
/// `variant`.
fn first_caught(variant: Variant) -> Option<u64> {
    (0..10).find_map(|chunk| {
        let summary = campaign::run(&Campaign {
            seeds: chunk * 100..(chunk + 1) * 100,
            gen: GenConfig {
                nesting: 4,
                size_budget: 30,
            },
            nestings: Vec::new(),
            subgroup_sizes: vec![4, 32],
            variant,
            jobs: 2,
            shard: (0, 1),
        });
        eprintln!("{variant:?}: {summary}");
        // A wrong variant shows in the buffers, not as an interpreter failure.
        summary.mismatches.iter().find_map(|(seed, m)| {
            eprintln!("  seed {seed}: {m}");
            matches!(m, Mismatch::Words { .. }).then_some(*seed)
        })
    })
}

#[test]
fn no_continue_reconvergence_is_caught() {
    let seed = first_caught(Variant::NoContinueReconvergence);
    assert!(seed.is_some(), "no seed in 0..1000 shows the variant");
}

#[test]
fn break_not_split_by_iteration_is_caught() {
    let seed = first_caught(Variant::BreakNotSplitByIteration);
    assert!(seed.is_some(), "no seed in 0..1000 shows the variant");
}

#[test]
fn no_call_reconvergence_is_caught() {
    let seed = first_caught(Variant::NoCallReconvergence);
    assert!(seed.is_some(), "no seed in 0..1000 shows the variant");
}
