//! Properties that need no oracle: decoding arbitrary words never panics, and every word
//! that decodes assembles back from its own text (with its control annotation) to itself.

use tangle_sass::{assemble_line, decode, forms, Arch, Control, Word};

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[test]
fn decoded_words_round_trip_through_their_text() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut decoded = 0;
    for arch in Arch::ALL {
        let samples: Vec<Word> = forms::all()
            .iter()
            .filter(|f| f.on(arch))
            .map(|f| f.sample)
            .collect();
        for i in 0..20_000u64 {
            // Half the words are samples with a few random bits flipped, half are random.
            let w = if i % 2 == 0 {
                let mut w = samples[(rng.next() % samples.len() as u64) as usize];
                for _ in 0..(rng.next() % 4) {
                    w.0 ^= 1u128 << (rng.next() % 128);
                }
                w
            } else {
                Word(rng.next() as u128 | (rng.next() as u128) << 64)
            };
            let addr = 16 * (rng.next() % 4096);
            let Ok(inst) = decode(arch, w, addr) else {
                continue;
            };
            decoded += 1;
            let line = format!("{} {}", Control::decode(w), inst.text());
            let back = assemble_line(arch, &line, 1, addr)
                .unwrap_or_else(|e| panic!("{arch} {w}: `{line}` does not assemble: {e}"))
                .expect("an instruction line");
            assert_eq!(back, w, "{arch}: `{line}`");
        }
    }
    assert!(decoded > 1000, "only {decoded} words decoded");
}

#[test]
fn garbage_text_is_an_error_not_a_panic() {
    let mut rng = Rng(42);
    let pieces = [
        "IADD3",
        "R1",
        ",",
        " ",
        "@P0",
        "[",
        "]",
        "c[0x0]",
        "0x10",
        "-",
        "|",
        ".X",
        "UR4",
        "desc[UR4]",
        "PT",
        "!",
        "+INF",
        "BRA",
        "LDG.E",
        ".64",
        "[B------:R-:W-:Y:S01]",
        "RZ.reuse",
        "~",
    ];
    for _ in 0..20_000 {
        let n = rng.next() % 8;
        let text: String = (0..n)
            .map(|_| pieces[(rng.next() % pieces.len() as u64) as usize])
            .collect();
        for arch in [Arch::Sm75, Arch::Sm90] {
            let _ = assemble_line(arch, &text, 1, 0);
        }
    }
}
