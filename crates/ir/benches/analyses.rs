//! Speed of the analyses and SSA repair on large functions: a structured function from the
//! builder's helpers (thousands of nested constructs) and a large random unstructured graph.

// criterion's macros define undocumented public functions.
#![allow(missing_docs)]

#[path = "../tests/common/mod.rs"]
mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tangle_ir::analysis::{ConstructTree, CycleInfo, PostDomTree, UseLists};
use tangle_ir::cfg::{Cfg, DomTree};

fn bench(c: &mut Criterion) {
    let mut rng = fastrand::Rng::with_seed(99);
    let (structured, sf) = common::random_structured(&mut rng, 20000);
    let sfunc = &structured.funcs[sf];
    eprintln!("structured function: {} blocks", sfunc.layout.len());
    let (shape_module, gf) = common::shape_function(&common::random_shape(&mut rng, 5000, false));
    let graph = &shape_module.funcs[gf];
    let mut g = c.benchmark_group("analyses");
    g.throughput(Throughput::Elements(sfunc.layout.len() as u64));
    g.bench_function("construct_tree", |b| {
        b.iter(|| ConstructTree::new(std::hint::black_box(sfunc)))
    });
    g.bench_function("verify_structured", |b| {
        b.iter(|| tangle_ir::verify::verify(std::hint::black_box(&structured)))
    });
    g.bench_function("use_lists", |b| {
        b.iter(|| UseLists::new(std::hint::black_box(sfunc)))
    });
    g.throughput(Throughput::Elements(graph.layout.len() as u64));
    let cfg = Cfg::new(graph);
    g.bench_function("dominators", |b| {
        b.iter(|| DomTree::new(graph, std::hint::black_box(&cfg)))
    });
    g.bench_function("post_dominators", |b| {
        b.iter(|| PostDomTree::new(graph, std::hint::black_box(&cfg)))
    });
    g.bench_function("cycles", |b| {
        b.iter(|| CycleInfo::new(graph, std::hint::black_box(&cfg)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
