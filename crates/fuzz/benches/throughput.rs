#![allow(missing_docs)]
//! End-to-end fuzzing throughput on one thread: generate a program, build its IR, run the
//! reference interpreter and the mask simulator, compare. Two configurations from issue 13:
//! nesting 4 at subgroup size 32, nesting 6 at subgroup size 64. Prints programs/s over a
//! fixed block of seeds once, then lets criterion time one block.

use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use tangle_fuzz::compare::Comparer;
use tangle_fuzz::{generate, GenConfig};
use tangle_interp::Variant;

/// Seeds per timed block.
const BLOCK: u64 = 50;

fn block(nesting: u32, subgroup_size: u32) {
    let mut comparer = Comparer::default();
    for seed in 0..BLOCK {
        let program = generate(
            seed,
            GenConfig {
                nesting,
                size_budget: 40,
            },
        );
        comparer
            .compare(&program, &[subgroup_size], Variant::Maximal)
            .expect("the oracles agree");
    }
}

fn bench(c: &mut Criterion) {
    for (nesting, size) in [(4, 32), (6, 64)] {
        let start = Instant::now();
        block(nesting, size);
        let rate = BLOCK as f64 / start.elapsed().as_secs_f64();
        println!("nesting {nesting} / subgroup {size}: {rate:.0} programs/s (one thread)");
        c.bench_function(&format!("fuzz_n{nesting}_s{size}_{BLOCK}_programs"), |b| {
            b.iter(|| block(nesting, size))
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
