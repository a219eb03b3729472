//! Typed-instruction throughput: encoding a [`MachInst`] straight through its form's fields,
//! and decoding words into typed instructions, over every form's ptxas sample.
//!
//! `cargo bench -p tangle-sass --bench typed` prints instructions per second for each SM.

use std::hint::black_box;
use std::time::Instant;

use tangle_sass::{decode_typed, forms, Arch, Control, MachInst, Word};

fn main() {
    for arch in Arch::ALL {
        let insts: Vec<(MachInst, Word)> = forms::all()
            .iter()
            .filter(|f| f.on(arch))
            .filter_map(|f| {
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
                Some((decode_typed(arch, w, 0).ok()?, w))
            })
            .collect();
        let rounds = 200_000 / insts.len().max(1) + 1;
        let n = rounds * insts.len();
        let start = Instant::now();
        for _ in 0..rounds {
            for (inst, w) in &insts {
                let back = black_box(inst).encode(arch, 0).expect("sample encodes");
                assert_eq!(back, *w);
            }
        }
        let enc = n as f64 / start.elapsed().as_secs_f64();
        let start = Instant::now();
        for _ in 0..rounds {
            for (_, w) in &insts {
                black_box(decode_typed(arch, black_box(*w), 0).expect("sample decodes"));
            }
        }
        let dec = n as f64 / start.elapsed().as_secs_f64();
        println!(
            "{arch}: {n} instructions ({} forms): {enc:.0} typed encodes/s, {dec:.0} typed decodes/s",
            insts.len()
        );
    }
}
