//! Lowering speed on generated entry points of about 10,000 to 100,000 instructions: a
//! long run of units, each a loop with a divergent `if` that ballots and a divergent break,
//! then a divergent `if`/`else` with a ballot in each arm, with a variable carried through
//! them (promoted to phis). Throughput is in instructions, so a linear pass shows the same
//! rate at every size (`cargo bench -p tangle-reconverge --bench lower`; figures in
//! docs/lowering-speed.md). The test-mode run in CI (`cargo test`, unoptimized) takes
//! the two smaller sizes only.

// criterion's macros define undocumented public functions.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use tangle_reconverge::{lower_module, LowerOptions};

mod generated;
use generated::generated;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("lower");
    g.sample_size(10);
    // About 17 instructions per unit: 10k, 25k, 50k and 100k instructions.
    let benchmarking = std::env::args().any(|a| a == "--bench");
    let sizes: &[usize] = match benchmarking {
        true => &[588, 1470, 2940, 5880],
        false => &[588, 1470],
    };
    for &units in sizes {
        let (module, insts) = generated(units);
        tangle_ir::verify::verify(&module).expect("the generated module verifies");
        g.throughput(Throughput::Elements(insts as u64));
        g.bench_with_input(BenchmarkId::new("scopes", insts), &module, |bch, m| {
            bch.iter(|| lower_module(std::hint::black_box(m), &LowerOptions::default()).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
