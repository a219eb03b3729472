//! 16-bit float immediates against nvdisasm: every one of the 65,536 bfloat16 patterns, as
//! the two immediates of `HFMA2.MMA.BF16_V2` on SM90, and every f16 pattern, as those of
//! `HFMA2.MMA` on SM80 (32,768 words each, one nvdisasm run each), must print as nvdisasm
//! prints it and assemble back to its word (a NaN to the canonical NaN of its class, which
//! prints the same).

mod classify;
mod typed_check;

use tangle_oracle::{require, Tool};
use tangle_sass::{decode, encode, Arch, Control, Word};

/// `HFMA2.MMA[.BF16_V2] R5, R0, hi, lo, R5` (ptxas's word for `fma.rn.bf16x2` with
/// constants; without bit 85, `hi_bits` 0, the f16 form).
fn word(hi: u16, lo: u16, hi_bits: u64) -> Word {
    Word::from_halves(
        0x0000_0000_0005_7835 | u64::from(lo) << 32 | u64::from(hi) << 48,
        0x000f_c000_0000_0005 | hi_bits,
    )
}

#[test]
fn every_bf16_immediate_prints_and_assembles_like_nvdisasm() {
    check_every_pattern(
        "every_bf16_immediate_prints_and_assembles_like_nvdisasm",
        Arch::Sm90,
        1 << 21,
    );
}

/// f16's negative zero prints `-0.0 ` too (the bit probe's finding on HFMA2.MMA).
#[test]
fn every_f16_immediate_prints_and_assembles_like_nvdisasm() {
    check_every_pattern(
        "every_f16_immediate_prints_and_assembles_like_nvdisasm",
        Arch::Sm80,
        0,
    );
}

fn check_every_pattern(name: &str, arch: Arch, hi_bits: u64) {
    let Some(nvdisasm) = require(Tool::Nvdisasm, name) else {
        return;
    };
    let words: Vec<Word> = (0..=u16::MAX / 2)
        .map(|k| word(2 * k, 2 * k + 1, hi_bits))
        .collect();
    let dir = tangle_oracle::scratch_dir();
    // nvdisasm's text per word (empty where it printed none), as the corpus tests read it.
    let theirs = classify::nvdisasm_raw(&nvdisasm, arch, &words, dir.path());
    let mut failures = Vec::new();
    for (k, (w, t)) in words.iter().zip(&theirs).enumerate() {
        let addr = 16 * k as u64;
        if t.is_empty() {
            failures.push(format!("{w}: nvdisasm printed nothing"));
            continue;
        }
        match decode(arch, *w, addr) {
            Ok(i) if i.text() == *t => {}
            Ok(i) => failures.push(format!("{w}: nvdisasm `{t}`, tangle `{}`", i.text())),
            Err(e) => failures.push(format!("{w}: nvdisasm `{t}`, refused: {e}")),
        }
        match encode(arch, t, Control::decode(*w), addr) {
            Ok(back) if back == *w => {}
            Ok(back)
                if t.contains("NAN") && decode(arch, back, addr).is_ok_and(|i| i.text() == *t) => {}
            Ok(back) => failures.push(format!("`{t}` assembles to {back}, not {w}")),
            Err(e) => failures.push(format!("`{t}` does not assemble: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures, first:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}
