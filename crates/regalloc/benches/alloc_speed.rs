//! Allocation speed in values per second on large random functions (thousands of blocks'
//! worth of instructions), with the hardware's register files and with tight limits that
//! force spilling in every class. `cargo bench -p tangle-regalloc --bench alloc_speed`.

// criterion_group! generates an undocumented function.
#![allow(missing_docs)]

#[path = "../tests/common/mod.rs"]
mod common;

use common::{random_function, Shape, TIGHT};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use tangle_regalloc::{allocate, Limits};

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("allocate");
    group.sample_size(10);
    for (name, blocks, limits) in [
        ("hardware", 200, Limits::HARDWARE),
        ("hardware", 800, Limits::HARDWARE),
        ("tight", 200, TIGHT),
    ] {
        let func = random_function(7, Shape::mixed(blocks, 40, 20), &limits);
        group.throughput(Throughput::Elements(func.values.len() as u64));
        let id = BenchmarkId::new(name, format!("{} values", func.values.len()));
        group.bench_with_input(id, &func, |b, func| {
            b.iter(|| allocate(func, &limits).expect("allocates"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
