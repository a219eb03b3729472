//! The corpus check: our own CUDA and PTX kernels (tests/corpus/), compiled by nvcc/ptxas for
//! every supported SM at test time, disassembled by nvdisasm and by tangle.
//!
//! For every instruction word: `exact` when tangle's text equals nvdisasm's and assembling
//! nvdisasm's text (with the word's control annotation) gives back the word; `refused` when
//! tangle declines to decode or encode it; `wrong` otherwise. Wrong must be zero; the exact
//! fraction must not drop below the floor reached so far.
//!
//! `cargo test -p tangle-sass --test corpus -- --nocapture` prints the coverage table.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::thread;

use tangle_oracle::{require, Oracle, Tool};
use tangle_sass::{cubin, decode, encode, normalize, Arch, Control, Word};

/// The smallest exact fraction accepted on every SM (raise it as coverage grows).
const EXACT_FLOOR: f64 = 0.99;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("corpus")
}

/// Compiles every corpus source for `arch`; returns the cubins' bytes.
fn compile(nvcc: &Oracle, ptxas: &Oracle, arch: Arch, dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut sources: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("cu" | "ptx")))
        .collect();
    sources.sort();
    for src in sources {
        let stem = src.file_stem().unwrap().to_string_lossy().into_owned();
        let cubin = dir.join(format!("{stem}_{}.cubin", arch.number()));
        let sm = format!("sm_{}", arch.number());
        if src.extension().unwrap() == "cu" {
            nvcc.run_ok([
                "-cubin".as_ref(),
                format!("-arch={sm}").as_ref(),
                "-O3".as_ref(),
                "-o".as_ref(),
                cubin.as_os_str(),
                src.as_os_str(),
            ]);
        } else {
            ptxas.run_ok([
                format!("-arch={sm}").as_ref(),
                "-o".as_ref(),
                cubin.as_os_str(),
                src.as_os_str(),
            ]);
        }
        out.push((stem, std::fs::read(&cubin).unwrap()));
    }
    out
}

/// nvdisasm's text per instruction of a raw-word file, by index.
fn nvdisasm_raw(nvdisasm: &Oracle, arch: Arch, words: &[Word], dir: &Path) -> Vec<String> {
    let path = dir.join(format!("all_{}.bin", arch.number()));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    let text = nvdisasm.run_ok([
        "-b".as_ref(),
        arch.nvdisasm_name().as_ref(),
        path.as_os_str(),
    ]);
    let mut out = vec![String::new(); words.len()];
    for line in text.lines() {
        let l = line.trim_start();
        let Some(rest) = l.strip_prefix("/*") else {
            continue;
        };
        let Some((addr, inst)) = rest.split_once("*/") else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr, 16) else {
            continue;
        };
        out[(addr / 16) as usize] = normalize(inst).to_string();
    }
    out
}

#[derive(Default, Debug, Clone)]
struct Tally {
    exact: usize,
    refused: usize,
    wrong: usize,
    refused_ops: BTreeMap<String, usize>,
    wrongs: Vec<String>,
}

fn check_arch(arch: Arch, nvcc: &Oracle, ptxas: &Oracle, nvdisasm: &Oracle) -> Tally {
    let dir = tangle_oracle::scratch_dir();
    let mut words = Vec::new();
    for (stem, bytes) in compile(nvcc, ptxas, arch, dir.path()) {
        let c = cubin::read(&bytes).unwrap_or_else(|e| panic!("{stem}: {e}"));
        assert_eq!(c.arch, Some(arch), "{stem}: header says sm_{}", c.sm);
        for f in c.functions {
            words.extend(f.words);
        }
    }
    let theirs = nvdisasm_raw(nvdisasm, arch, &words, dir.path());
    let mut t = Tally::default();
    for (i, (&w, text)) in words.iter().zip(&theirs).enumerate() {
        let addr = 16 * i as u64;
        let key = {
            let s = text.split(' ').find(|s| !s.starts_with('@')).unwrap_or("");
            format!("{} {:#05x}", s, w.get(0, 12))
        };
        let ours = match decode(arch, w, addr) {
            Ok(inst) => inst.text(),
            Err(_) => {
                t.refused += 1;
                *t.refused_ops.entry(key).or_default() += 1;
                continue;
            }
        };
        if ours != *text {
            t.wrong += 1;
            t.wrongs.push(format!(
                "{arch} {addr:#06x} {w}: nvdisasm `{text}` tangle `{ours}`"
            ));
            continue;
        }
        match encode(arch, text, Control::decode(w), addr) {
            Ok(back) if back == w => t.exact += 1,
            Ok(back) => {
                t.wrong += 1;
                t.wrongs.push(format!(
                    "{arch} {addr:#06x} `{text}`: word {w}, assembled {back}"
                ));
            }
            Err(e) => {
                t.refused += 1;
                *t.refused_ops
                    .entry(format!("{key} (asm: {e})"))
                    .or_default() += 1;
            }
        }
    }
    t
}

#[test]
fn corpus_disassembles_and_assembles_like_nvdisasm() {
    let name = "corpus_disassembles_and_assembles_like_nvdisasm";
    let (Some(nvcc), Some(ptxas), Some(nvdisasm)) = (
        require(Tool::Nvcc, name),
        require(Tool::Ptxas, name),
        require(Tool::Nvdisasm, name),
    ) else {
        return;
    };
    let results: Vec<(Arch, Tally)> = thread::scope(|s| {
        let handles: Vec<_> = Arch::ALL
            .iter()
            .map(|&arch| {
                let (nvcc, ptxas, nvdisasm) = (&nvcc, &ptxas, &nvdisasm);
                s.spawn(move || (arch, check_arch(arch, nvcc, ptxas, nvdisasm)))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    println!("SASS corpus coverage (instructions: exact / refused / wrong)");
    println!(
        "{:<6} {:>7} {:>8} {:>8} {:>6} {:>8}",
        "arch", "total", "exact", "refused", "wrong", "exact%"
    );
    for (arch, t) in &results {
        let total = t.exact + t.refused + t.wrong;
        println!(
            "{:<6} {:>7} {:>8} {:>8} {:>6} {:>7.2}%",
            arch.to_string(),
            total,
            t.exact,
            t.refused,
            t.wrong,
            100.0 * t.exact as f64 / total as f64
        );
    }
    for (arch, t) in &results {
        let mut ops: Vec<_> = t.refused_ops.iter().collect();
        ops.sort_by(|a, b| b.1.cmp(a.1));
        let shown: Vec<String> = ops
            .iter()
            .take(80)
            .map(|(k, n)| format!("{k} x{n}"))
            .collect();
        println!("{arch} most refused: {}", shown.join(", "));
    }
    let mut failed = Vec::new();
    for (arch, t) in &results {
        for w in t.wrongs.iter().take(20) {
            println!("WRONG {w}");
        }
        let total = t.exact + t.refused + t.wrong;
        let frac = t.exact as f64 / total as f64;
        if t.wrong > 0 {
            failed.push(format!("{arch}: {} wrong", t.wrong));
        }
        if frac < EXACT_FLOOR {
            failed.push(format!(
                "{arch}: exact {frac:.4} below the floor {EXACT_FLOOR}"
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("; "));
}
