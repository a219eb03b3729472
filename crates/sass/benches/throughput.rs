//! SASS layer throughput, per SM, over every form's ptxas sample word (with a legal control
//! code): decoding and printing nvdisasm's text (`disasm`), encoding a typed [`MachInst`]
//! straight through its form's fields (`typed/<sm>/encode`), and decoding words into typed
//! instructions (`typed/<sm>/decode`).
//!
//! `cargo bench -p tangle-sass --bench throughput` measures; `cargo test` runs each once
//! (criterion's test mode) so CI keeps the bench working. Figures: docs/sass.md.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tangle_sass::{decode, decode_typed, forms, Arch, Control, MachInst, Word};

/// Every form's sample on `arch` that decodes, with guard PT and a plain control code.
fn samples(arch: Arch) -> Vec<Word> {
    forms::all()
        .iter()
        .filter(|f| f.on(arch))
        .map(|f| {
            let mut w = f.sample;
            w.set(12, 4, 7);
            Control {
                stall: 1,
                yield_bit: true,
                write_sb: None,
                read_sb: None,
                wait: 0,
                reuse: 0,
            }
            .encode(&mut w);
            w
        })
        .filter(|&w| decode(arch, w, 0).is_ok())
        .collect()
}

fn disasm(c: &mut Criterion) {
    let mut g = c.benchmark_group("disasm");
    for arch in Arch::ALL {
        let words = samples(arch);
        g.throughput(Throughput::Elements(words.len() as u64));
        g.bench_function(arch.to_string(), |b| {
            b.iter(|| {
                let mut bytes = 0usize;
                for (i, &w) in words.iter().enumerate() {
                    let inst = decode(arch, black_box(w), 16 * i as u64).expect("sample decodes");
                    bytes += inst.text().len();
                }
                black_box(bytes)
            })
        });
    }
    g.finish();
}

fn typed(c: &mut Criterion) {
    for arch in Arch::ALL {
        let insts: Vec<(MachInst, Word)> = samples(arch)
            .into_iter()
            .filter_map(|w| Some((decode_typed(arch, w, 0).ok()?, w)))
            .collect();
        let mut g = c.benchmark_group(format!("typed/{arch}"));
        g.throughput(Throughput::Elements(insts.len() as u64));
        g.bench_function("encode", |b| {
            b.iter(|| {
                for (inst, w) in &insts {
                    let back = black_box(inst).encode(arch, 0).expect("sample encodes");
                    assert_eq!(back, *w);
                }
            })
        });
        g.bench_function("decode", |b| {
            b.iter(|| {
                for (_, w) in &insts {
                    black_box(decode_typed(arch, black_box(*w), 0).expect("sample decodes"));
                }
            })
        });
        g.finish();
    }
}

criterion_group!(benches, disasm, typed);
criterion_main!(benches);
