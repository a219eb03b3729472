//! Runs the throughput bench's work once, without criterion, for a profiler: generate,
//! build, both oracles and the comparison for seeds `0..SEEDS` (default 50, the bench's
//! block) at nesting `N` and subgroup size `S` (defaults 4 and 32), on one thread.
//!
//! `cargo build --release -p tangle-fuzz --example pipeline` and then e.g.
//! `valgrind --tool=callgrind target/release/examples/pipeline 4 32` (`docs/fuzz.md`,
//! "Throughput").

use tangle_fuzz::compare::Comparer;
use tangle_fuzz::{generate, GenConfig};
use tangle_interp::Variant;

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| {
            a.parse()
                .expect("numeric arguments: NESTING SUBGROUP SEEDS")
        })
        .collect();
    let nesting = args.first().copied().unwrap_or(4) as u32;
    let subgroup_size = args.get(1).copied().unwrap_or(32) as u32;
    let seeds = args.get(2).copied().unwrap_or(50);
    // One comparer for all programs, as a campaign's worker keeps one.
    let mut comparer = Comparer::default();
    for seed in 0..seeds {
        let program = generate(
            seed,
            GenConfig {
                nesting,
                size_budget: 40,
            },
        );
        if let Err(m) = comparer.compare(&program, &[subgroup_size], Variant::Maximal) {
            eprintln!("seed {seed}: {m}");
            std::process::exit(1);
        }
    }
    println!("{seeds} programs at nesting {nesting} / subgroup {subgroup_size} agree");
}
