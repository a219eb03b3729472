//! Disassembler throughput: decode + print every form's ptxas sample word, repeated.
//!
//! `cargo bench -p tangle-sass --bench disasm` prints words per second for each SM.

use std::hint::black_box;
use std::time::Instant;

use tangle_sass::{decode, forms, Arch, Control, Word};

fn main() {
    for arch in Arch::ALL {
        // Each form's sample with a legal control code (ptxas's default shape).
        let words: Vec<Word> = forms::all()
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
            .collect();
        let rounds = 200_000 / words.len().max(1) + 1;
        let start = Instant::now();
        let mut bytes = 0usize;
        for _ in 0..rounds {
            for (i, &w) in words.iter().enumerate() {
                let inst = decode(arch, black_box(w), 16 * i as u64).expect("sample decodes");
                bytes += black_box(inst.text()).len();
            }
        }
        let n = rounds * words.len();
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{arch}: {n} words ({} forms) in {secs:.3} s: {:.0} words/s decoded and printed ({bytes} bytes of text)",
            words.len(),
            n as f64 / secs
        );
    }
}
