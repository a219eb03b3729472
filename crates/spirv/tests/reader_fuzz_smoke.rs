//! Mutation smoke run of the binary reader: at least 10,000 mutated modules, derived from
//! valid ones, must each give a module or a typed error — never a panic or a hang. Modules
//! that read are also verified and, when valid, written back, so those stages see odd
//! input too. (The coverage-guided version is `crates/spirv/fuzz`, target `read_binary`.)

use std::path::Path;

use tangle_spirv::reader::read_words;

/// xorshift64*: a fixed, seedable stream of pseudo-random numbers for reproducible runs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn seeds() -> Vec<Vec<u32>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ir/tests/filetests");
    let mut out = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for p in paths
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "tir"))
    {
        let Ok(m) = tangle_ir::text::parse(&std::fs::read_to_string(p).unwrap()) else {
            continue;
        };
        if tangle_ir::verify::verify(&m).is_ok() {
            out.push(tangle_spirv::writer::write(&m));
        }
    }
    assert!(out.len() >= 2, "need valid seed modules");
    out
}

fn mutate(rng: &mut Rng, words: &mut Vec<u32>) {
    for _ in 0..1 + rng.below(4) {
        let n = words.len();
        match rng.below(7) {
            0 => {
                let i = rng.below(n);
                words[i] ^= 1 << rng.below(32);
            }
            1 => {
                let i = rng.below(n);
                words[i] = rng.next() as u32;
            }
            2 => {
                // Small values are ids, counts and enumerants: the interesting ones.
                let i = rng.below(n);
                words[i] = rng.below(64) as u32;
            }
            3 => words.truncate(rng.below(n + 1)),
            4 => {
                let i = rng.below(n + 1);
                words.insert(i, rng.next() as u32);
            }
            5 if n > 1 => {
                words.remove(rng.below(n));
            }
            _ => {
                // Change an instruction's word count (high half of a word).
                let i = 5 + rng.below(n.saturating_sub(5).max(1));
                if i < n {
                    words[i] = (words[i] & 0xffff) | ((rng.below(12) as u32) << 16);
                }
            }
        }
        if words.is_empty() {
            break;
        }
    }
}

#[test]
fn ten_thousand_mutated_modules_never_panic() {
    let seeds = seeds();
    let mut rng = Rng(0x7a9e_17b3_5eed_0001);
    let (mut read, mut valid) = (0, 0);
    for round in 0..10_000 {
        let mut words = seeds[round % seeds.len()].clone();
        mutate(&mut rng, &mut words);
        if let Ok(module) = read_words(&words) {
            read += 1;
            if tangle_ir::verify::verify(&module).is_ok() {
                valid += 1;
                let _ = tangle_spirv::writer::write(&module);
            }
            let _ = tangle_ir::text::print(&module);
        }
    }
    // Mutation must produce both kinds of outcome, or it is not exercising anything.
    assert!(read > 0 && read < 10_000, "read {read} of 10000");
    eprintln!("mutated modules: 10000, read: {read}, valid after reading: {valid}");
}
