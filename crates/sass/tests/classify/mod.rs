//! The word check shared by the corpus tests (`corpus.rs`, `generated.rs`): nvdisasm's text
//! for a raw-word file, and each word classified as *exact* (tangle prints nvdisasm's text
//! and assembling that text with the word's control annotation gives the word back),
//! *refused* (tangle declines to decode or to encode it) or *wrong* (anything else), with
//! the typed round trip of every decoded word.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use tangle_oracle::Oracle;
use tangle_sass::{decode, encode, normalize, same_but_unprinted, Arch, Control, Word};

use crate::typed_check;

/// nvdisasm's text per instruction of a raw-word file, by index (one nvdisasm call).
pub fn nvdisasm_raw(nvdisasm: &Oracle, arch: Arch, words: &[Word], dir: &Path) -> Vec<String> {
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

/// The outcome of checking a list of words.
#[derive(Default, Debug, Clone)]
pub struct WordTally {
    /// Words printed and assembled exactly as nvdisasm.
    pub exact: usize,
    /// Words tangle declines to decode or encode.
    pub refused: usize,
    /// Words printed differently from nvdisasm, or assembled to another word.
    pub wrong: usize,
    /// Refused words by key (`MNEMONIC 0xOPC`, with the assembler's error when it is the
    /// assembler that refused).
    pub refused_ops: BTreeMap<String, usize>,
    /// The refused words' keys without the assembler's error.
    pub refused_keys: BTreeMap<String, usize>,
    /// One example word per refused key: `(word, nvdisasm's text)`.
    pub refused_example: BTreeMap<String, (Word, String)>,
    /// A description of every wrong word.
    pub wrongs: Vec<String>,
    /// Decoded words that round-trip through the typed form.
    pub typed_ok: usize,
    /// Decoded words that do not.
    pub typed_fail: Vec<String>,
}

impl WordTally {
    /// Every word checked.
    pub fn total(&self) -> usize {
        self.exact + self.refused + self.wrong
    }
    /// The exact fraction (1 for no words).
    pub fn exact_fraction(&self) -> f64 {
        if self.total() == 0 {
            1.0
        } else {
            self.exact as f64 / self.total() as f64
        }
    }
}

/// The refusal key of a word: nvdisasm's base mnemonic and the opcode bits 0-11, with
/// ` NaN` added when nvdisasm prints a NaN immediate (`+QNAN`, `-SNAN`): such text cannot
/// carry the NaN's payload, so only the canonical word of each NaN text can be exact and
/// the others are refused by design (`docs/sass.md`, "Text").
pub fn key(w: Word, text: &str) -> String {
    let m = text.split(' ').find(|s| !s.starts_with('@')).unwrap_or("");
    let base = m.split('.').next().unwrap_or("");
    let nan = if is_nan_text(text) { " NaN" } else { "" };
    format!("{} {:#05x}{nan}", base, w.get(0, 12))
}

/// Whether nvdisasm's text shows a NaN immediate, whose payload it does not print.
fn is_nan_text(text: &str) -> bool {
    text.contains("QNAN") || text.contains("SNAN")
}

/// Checks `words` (at addresses 16 * index) against nvdisasm's `theirs`.
///
/// A word whose text assembles to another word that differs only in bits the text does
/// not show (a NaN payload, an unprinted descriptor register other than UR4, a silent
/// modifier such as DEPBAR's bit 87: `same_but_unprinted`, `docs/sass.md`, "Text") is
/// exact when nvdisasm prints the assembled word as the same text, at the same address:
/// those bits are the only thing the text does not carry, and word -> typed -> word keeps
/// them (checked for every word).
pub fn check_words(
    nvdisasm: &Oracle,
    dir: &Path,
    arch: Arch,
    words: &[Word],
    theirs: &[String],
    t: &mut WordTally,
) {
    let mut canonical = Vec::new();
    for (i, (&w, text)) in words.iter().zip(theirs).enumerate() {
        let addr = 16 * i as u64;
        let k = key(w, text);
        let ours = match decode(arch, w, addr) {
            Ok(inst) => {
                match typed_check::typed_round_trip(arch, w, addr) {
                    Ok(()) => t.typed_ok += 1,
                    Err(e) => t.typed_fail.push(format!("{arch} {addr:#06x} {w}: {e}")),
                }
                inst.text()
            }
            Err(_) => {
                t.refused += 1;
                *t.refused_ops.entry(k.clone()).or_default() += 1;
                *t.refused_keys.entry(k.clone()).or_default() += 1;
                t.refused_example.entry(k).or_insert((w, text.clone()));
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
            Ok(back) if same_but_unprinted(arch, w, back, addr) => {
                canonical.push((w, back, text.clone(), addr))
            }
            Ok(back) => {
                t.wrong += 1;
                t.wrongs.push(format!(
                    "{arch} {addr:#06x} `{text}`: word {w}, assembled {back}"
                ));
            }
            Err(e) => {
                t.refused += 1;
                *t.refused_ops.entry(format!("{k} (asm: {e})")).or_default() += 1;
                *t.refused_keys.entry(k.clone()).or_default() += 1;
                t.refused_example.entry(k).or_insert((w, text.clone()));
            }
        }
    }
    if canonical.is_empty() {
        return;
    }
    // One nvdisasm call on the assembled words, each at its original word's address.
    let top = canonical.iter().map(|c| c.3).max().unwrap_or(0);
    // Padding: NOP (every SM prints it).
    let nop = Word::from_halves(0x0000_0000_0000_7918, 0x000f_c000_0000_0000);
    let mut file = vec![nop; (top / 16 + 1) as usize];
    for (_, back, _, addr) in &canonical {
        file[(*addr / 16) as usize] = *back;
    }
    let texts = nvdisasm_raw(nvdisasm, arch, &file, dir);
    for (w, back, text, addr) in canonical {
        let again = &texts[(addr / 16) as usize];
        if *again == text && (w.0 ^ back.0) >> 105 == 0 {
            t.exact += 1;
        } else {
            t.wrong += 1;
            t.wrongs.push(format!(
                "{arch} {addr:#06x} `{text}`: word {w}, assembled {back}, which nvdisasm prints `{again}`"
            ));
        }
    }
}

/// A refusal list (`tests/<file>`: `key<TAB>reason` lines, `#` comments): `key -> reason`.
pub fn refusal_list(file: &str) -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (k, why) = line
            .split_once('\t')
            .unwrap_or_else(|| panic!("{}:{}: expected `key<TAB>reason`", path.display(), n + 1));
        assert!(
            !why.trim().is_empty(),
            "{}:{}: no reason",
            path.display(),
            n + 1
        );
        out.insert(k.to_string(), why.to_string());
    }
    out
}
