//! Words ptxas 13.5 emits for the `ptxas` fuzz engine's CUDA kernels that the decoder once
//! refused (the simulator stopped at them), each with nvdisasm 13.5's text; when nvdisasm
//! is installed each is checked against it live too. They must decode to that text and
//! assemble back to the same word.

use tangle_oracle::{require, scratch_dir, Tool};
use tangle_sass::{decode, encode, Arch, Control, Word};

/// (arch, word, nvdisasm's text).
const WORDS: [(Arch, &str, &str); 10] = [
    // __reduce_add_sync's fallback on SM80-89.
    (
        Arch::Sm80,
        "0x0000000900007348 0x000fea0003c00000",
        "WARPSYNC.EXCLUSIVE R9",
    ),
    (
        Arch::Sm86,
        "0x0000000900007348 0x000fea0003c00000",
        "WARPSYNC.EXCLUSIVE R9",
    ),
    (
        Arch::Sm89,
        "0x0000000900007348 0x000fea0003c00000",
        "WARPSYNC.EXCLUSIVE R9",
    ),
    // A shuffle with a register lane and a register clamp (sm_75's shuffle loops).
    (
        Arch::Sm75,
        "0x0000001306047389 0x00006200000e0004",
        "SHFL.IDX PT, R4, R6, R19, R4",
    ),
    (
        Arch::Sm86,
        "0x0000001306047389 0x00006200000e0004",
        "SHFL.IDX PT, R4, R6, R19, R4",
    ),
    (
        Arch::Sm90,
        "0x0000001306047389 0x00006200000e0004",
        "SHFL.IDX PT, R4, R6, R19, R4",
    ),
    // SM90: a negated uniform addend, and reuse flags on MOV's and R2UR's sources.
    (
        Arch::Sm90,
        "0x8000000410107c36 0x000fe20008000000",
        "VIADD R16, R16, -UR4",
    ),
    (
        Arch::Sm90,
        "0x0000001900187202 0x084fe40000000f00",
        "MOV R24, R25.reuse",
    ),
    (
        Arch::Sm86,
        "0x0000001900187202 0x084fe40000000f00",
        "MOV R24, R25.reuse",
    ),
    (
        Arch::Sm90,
        "0x00000000100472ca 0x041fe400000e0000",
        "R2UR UR4, R16.reuse",
    ),
];

#[test]
fn words_the_ptxas_fuzz_engine_needed_decode_as_nvdisasm_prints_them() {
    for (arch, word, text) in WORDS {
        let w = Word::parse_hex(word).unwrap();
        let inst = decode(arch, w, 0).unwrap_or_else(|e| panic!("{arch} {word}: {e}"));
        assert_eq!(inst.text(), text, "{arch} {word}");
        assert_eq!(
            encode(arch, text, Control::decode(w), 0).ok(),
            Some(w),
            "{arch} `{text}` assembles back"
        );
    }
    // R2UR's reuse bit is ignored by nvdisasm before SM90: the word stays refused there
    // rather than printed with a `.reuse` nvdisasm would not print.
    let w = Word::parse_hex("0x00000000020673c2 0x041fe400000e0000").unwrap();
    assert!(decode(Arch::Sm86, w, 0).is_err());
}

#[test]
fn the_gap_words_match_a_live_nvdisasm() {
    let Some(nvdisasm) = require(Tool::Nvdisasm, "the_gap_words_match_a_live_nvdisasm") else {
        return;
    };
    let dir = scratch_dir();
    // One nvdisasm call per SM: that SM's words one after the other.
    for arch in Arch::ALL {
        let mine: Vec<(&str, &str)> = WORDS
            .iter()
            .filter(|(a, _, _)| *a == arch)
            .map(|(_, w, t)| (*w, *t))
            .collect();
        if mine.is_empty() {
            continue;
        }
        let file = dir.path().join(format!("w{}.bin", arch.number()));
        let bytes: Vec<u8> = mine
            .iter()
            .flat_map(|(w, _)| Word::parse_hex(w).unwrap().to_le_bytes())
            .collect();
        std::fs::write(&file, bytes).unwrap();
        let out = nvdisasm.run_ok([
            "-b".to_string(),
            format!("SM{}", arch.number()),
            "-raw".to_string(),
            file.display().to_string(),
        ]);
        for (k, (word, text)) in mine.iter().enumerate() {
            let at = format!("/*{:04x}*/", k * 16);
            let line = out
                .lines()
                .find(|l| l.contains(&at))
                .unwrap_or_else(|| panic!("{arch} {word}: {out}"));
            let theirs = line
                .split("*/")
                .nth(1)
                .unwrap()
                .trim()
                .trim_end_matches(';')
                .trim();
            assert_eq!(theirs, *text, "{arch} {word}");
        }
    }
}
