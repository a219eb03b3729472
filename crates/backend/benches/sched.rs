#![allow(missing_docs)]
//! Scheduler time per instruction: the list scheduler and the control-code pass
//! (`tangle_backend::sched::schedule`) on the emitted code of fuzz programs (nesting 2-5)
//! for sm_86, timed per call with the instruction count as the throughput (criterion
//! prints instructions per second; its inverse is the time per instruction).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tangle_backend::{compile, CompileOptions, Sched};
use tangle_fuzz::build::build_module;
use tangle_fuzz::{generate, GenConfig};
use tangle_sass::{Arch, MachInst};

/// The emitted, unscheduled code of a few fuzz programs.
fn corpus() -> Vec<Vec<MachInst>> {
    (0..8u64)
        .map(|seed| {
            let program = generate(
                seed,
                GenConfig {
                    nesting: 2 + seed as u32 % 4,
                    ..GenConfig::default()
                },
            );
            let opts = CompileOptions {
                sched: Sched::None,
                ..CompileOptions::new(Arch::Sm86)
            };
            compile(&build_module(&program), "main", &opts)
                .expect("fuzz programs compile")
                .code
                .insts
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let corpus = corpus();
    let n: usize = corpus.iter().map(Vec::len).sum();
    let mut g = c.benchmark_group("sched");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("sm_86/list", |b| {
        b.iter(|| {
            for code in &corpus {
                let mut insts = code.clone();
                tangle_backend::sched::schedule(Arch::Sm86, &mut insts).expect("schedules");
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
