//! Mutation smoke run of the binary reader: at least 10,000 mutated modules, derived from
//! valid ones, go through `reader::fuzz::check` (a module or a positioned error, never a
//! panic; what reads prints and re-parses; what verifies writes back and reads again). The
//! coverage-guided version is `crates/spirv/fuzz`, target `read_binary`.

use std::path::Path;

use tangle_spirv::reader::read_words;

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
        // Seeds: the valid filetests SPIR-V can express (not the lowered ones, which the
        // writer refuses).
        if tangle_ir::verify::verify(&m).is_ok() {
            if let Ok(words) = tangle_spirv::writer::write(&m) {
                out.push(words);
            }
        }
    }
    assert!(out.len() >= 2, "need valid seed modules");
    out
}

fn mutate(rng: &mut fastrand::Rng, words: &mut Vec<u32>) {
    for _ in 0..1 + rng.usize(..4) {
        let n = words.len();
        match rng.usize(..7) {
            0 => {
                let i = rng.usize(..n);
                words[i] ^= 1 << rng.usize(..32);
            }
            1 => {
                let i = rng.usize(..n);
                words[i] = rng.u32(..);
            }
            2 => {
                // Small values are ids, counts and enumerants: the interesting ones.
                let i = rng.usize(..n);
                words[i] = rng.usize(..64) as u32;
            }
            3 => words.truncate(rng.usize(..n + 1)),
            4 => {
                let i = rng.usize(..n + 1);
                words.insert(i, rng.u32(..));
            }
            5 if n > 1 => {
                words.remove(rng.usize(..n));
            }
            _ => {
                // Change an instruction's word count (high half of a word).
                let i = 5 + rng.usize(..n.saturating_sub(5).max(1));
                if i < n {
                    words[i] = (words[i] & 0xffff) | ((rng.usize(..12) as u32) << 16);
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
    let mut rng = fastrand::Rng::with_seed(0x7a9e_17b3_5eed_0001);
    let (mut read, mut valid) = (0, 0);
    for round in 0..10_000 {
        let mut words = seeds[round % seeds.len()].clone();
        mutate(&mut rng, &mut words);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        tangle_spirv::reader::fuzz::check(&bytes);
        if let Ok(module) = read_words(&words) {
            read += 1;
            if tangle_ir::verify::verify(&module).is_ok() {
                valid += 1;
            }
        }
    }
    // Mutation must produce both kinds of outcome, or it is not exercising anything.
    assert!(read > 0 && read < 10_000, "read {read} of 10000");
    eprintln!("mutated modules: 10000, read: {read}, valid after reading: {valid}");
}

/// Inputs on which rspirv's parser panicked, found by `cargo fuzz run -s none read_binary`:
/// each must now be a positioned error.
#[test]
fn fuzzer_findings_are_errors() {
    let findings: &[&[u8]] = &[
        // OpSpecConstantOp around OpSpecConstantOp.
        &[
            3, 2, 35, 7, 0, 0, 1, 0, 7, 0, 253, 3, 58, 34, 42, 0, 3, 2, 35, 7, 0, 0, 1, 0, 52, 0,
            7, 0, 0, 7, 253, 34, 58, 3, 42, 33, 52, 0, 0, 0, 8, 1, 0, 0, 0, 0, 33, 0, 0, 1, 186, 0,
        ],
    ];
    for input in findings {
        tangle_spirv::reader::fuzz::check(input);
        let err = tangle_spirv::reader::read_binary(input).unwrap_err();
        assert!(err.pos.is_some(), "{err}");
    }
}
