//! Front-end throughput: SPIR-V words read into the IR per second, on a large generated
//! module (a compute shader with thousands of selection constructs, loads, stores and
//! arithmetic). Also the writer's speed on the same module, and the verifier's.

// criterion's macros define undocumented public functions.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// The IR text of a module with `n` if/else diamonds in one function.
fn big_module(n: usize) -> String {
    let mut s = String::from(
        "spirv 1.3\nmemory_model GLSL450\ncapability Shader\n\
         type t0 = void\ntype t1 = u32\ntype t2 = bool\n\
         type t3 = rtarray<u32> [stride 4]\ntype t4 = struct { t3 [offset 0] } [block]\n\
         const c0 u32 = 0\nconst c1 u32 = 1\nconst c2 u32 = 7\n\
         global g0 ptr<StorageBuffer, t4> [set 0, binding 0]\n\
         global g1 ptr<Input, u32> [builtin LocalInvocationIndex]\n\
         entry GLCompute \"main\" f0 (g1) [local_size 64 1 1]\n\
         fn f0 \"main\"() -> void {\nb0:\n  v0 = load u32 g1\n  v1 = access_chain ptr<StorageBuffer, u32> g0, c0, v0\n  br b1\n",
    );
    let mut v = 2;
    for i in 0..n {
        let (h, t, e, m) = (1 + 4 * i, 2 + 4 * i, 3 + 4 * i, 4 + 4 * i);
        let (a, c, x, y) = (v, v + 1, v + 2, v + 3);
        v += 4;
        s.push_str(&format!(
            "b{h}:\n  v{a} = load u32 v1\n  v{c} = ult bool v{a}, c2\n  selection_merge b{m}\n  br_if v{c}, b{t}, b{e}\n\
             b{t}:\n  v{x} = iadd u32 v{a}, c1\n  store v1, v{x}\n  br b{m}\n\
             b{e}:\n  v{y} = imul u32 v{a}, c2\n  store v1, v{y}\n  br b{m}\nb{m}:\n  br b{}\n",
            m + 1
        ));
    }
    s.push_str(&format!("b{}:\n  return\n}}\n", 1 + 4 * n));
    s
}

fn bench(c: &mut Criterion) {
    let module = tangle_ir::text::parse(&big_module(5000)).expect("generated IR parses");
    tangle_ir::verify::verify(&module).expect("generated IR is valid");
    let words = tangle_spirv::writer::write(&module).expect("a structured module writes");
    let mut g = c.benchmark_group("frontend");
    g.throughput(Throughput::Elements(words.len() as u64));
    g.bench_function("read_words", |b| {
        b.iter(|| tangle_spirv::reader::read_words(std::hint::black_box(&words)).unwrap())
    });
    g.bench_function("write", |b| {
        b.iter(|| tangle_spirv::writer::write(std::hint::black_box(&module)))
    });
    g.bench_function("verify", |b| {
        b.iter(|| tangle_ir::verify::verify(std::hint::black_box(&module)))
    });
    g.finish();
    if let Ok(path) = std::env::var("TANGLE_BENCH_DUMP") {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(path, bytes).unwrap();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
