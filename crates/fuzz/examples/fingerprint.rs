//! Prints, per seed and nesting, hashes of what the pipeline makes of the program: the
//! program form, the printed IR text of its module, and the mask oracle's buffer at each
//! subgroup size. Run before and after a change to the generator, the builder or the mask
//! oracle and compare the outputs: equal lines mean the same programs, the same IR and the
//! same buffers (`docs/fuzz.md`, "Throughput").
//!
//! `target/release/examples/fingerprint SEEDS [NESTING...]` (defaults 500 and 1..=8; the
//! subgroup sizes are 1, 4, 32, 64 and 128). With `FINGERPRINT_TEXT=1` the IR text itself
//! is printed instead of its hash.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use tangle_fuzz::build::build_module;
use tangle_fuzz::mask::simulate;
use tangle_fuzz::{generate, GenConfig};

/// A hash of `value` that is the same in every run (SipHash with fixed keys).
fn hash_of(value: &impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    value.hash(&mut h);
    h.finish()
}

fn main() {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numeric arguments: SEEDS [NESTING...]"))
        .collect();
    let seeds = args.first().copied().unwrap_or(500);
    let nestings: Vec<u32> = if args.len() > 1 {
        args[1..].to_vec()
    } else {
        (1..=8).collect()
    };
    let text = std::env::var_os("FINGERPRINT_TEXT").is_some();
    for &nesting in &nestings {
        for seed in 0..u64::from(seeds) {
            let program = generate(
                seed,
                GenConfig {
                    nesting,
                    size_budget: 40,
                },
            );
            let ir = tangle_ir::text::print(&build_module(&program));
            let masks: Vec<u64> = [1, 4, 32, 64, 128]
                .iter()
                .map(|&s| hash_of(&simulate(&program, s).words))
                .collect();
            let form = hash_of(&format!("{program:?}"));
            if text {
                println!(
                    "seed {seed} nesting {nesting}: program {form:016x} masks {masks:016x?}\n{ir}"
                );
            } else {
                let ir = hash_of(&ir);
                println!("seed {seed} nesting {nesting}: program {form:016x} ir {ir:016x} masks {masks:016x?}");
            }
        }
    }
}
