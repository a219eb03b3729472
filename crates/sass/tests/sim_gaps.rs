//! Words ptxas 13.5 emits for the `ptxas` fuzz engine's CUDA kernels, the simulator's probes
//! and its sweep of ordinary CUDA code (`crates/sim/tests/sweep.rs`) that the decoder once
//! refused (the simulator stopped at them), each with nvdisasm 13.5's text; when nvdisasm
//! is installed each is checked against it live too. They must decode to that text and
//! assemble back to the same word.

use tangle_oracle::{require, scratch_dir, Tool};
use tangle_sass::{decode, encode, Arch, Control, Word};

/// (arch, word, nvdisasm's text).
const WORDS: [(Arch, &str, &str); 55] = [
    // An indirect call (k_icall's function-pointer table); first, so its target is 0x10.
    (
        Arch::Sm75,
        "0x0000000002007344 0x021fea0003c00000",
        "CALL.REL.NOINC R2 0x10",
    ),
    (
        Arch::Sm90,
        "0x0000000002007344 0x021fea0003c00000",
        "CALL.REL.NOINC R2 0x10",
    ),
    // SM75 stores through a uniform register added to the address.
    (
        Arch::Sm75,
        "0x0000000502007986 0x000fe2000c10e104",
        "STG.E.U8.SYS [R2.64+UR4], R5",
    ),
    (
        Arch::Sm75,
        "0x00000402ff007986 0x000fe2000c10e904",
        "STG.E.SYS [UR4+0x4], R2",
    ),
    // Float division's range check.
    (
        Arch::Sm75,
        "0x0000000502007302 0x008e620000000000",
        "FCHK P0, R2, R5",
    ),
    (
        Arch::Sm75,
        "0x4040000002007902 0x004e260000000000",
        "FCHK P0, R2, 3",
    ),
    (
        Arch::Sm90,
        "0x0000000300007302 0x004e620000000000",
        "FCHK P0, R0, R3",
    ),
    // FSEL with an absolute source (fmodf, powf).
    (
        Arch::Sm75,
        "0x4000000405057208 0x000fe20004000000",
        "FSEL R5, R5, |R4|, !P0",
    ),
    (
        Arch::Sm90,
        "0x4000000807077208 0x000fe40004000000",
        "FSEL R7, R7, |R8|, !P0",
    ),
    // Double precision with constant and uniform sources (sinf, exp, pow).
    (
        Arch::Sm75,
        "0x0080020004047a28 0x001e120000000000",
        "DMUL R4, R4, c[0x2][0x8]",
    ),
    (
        Arch::Sm86,
        "0x0080020004047a28 0x001e140000000000",
        "DMUL R4, R4, c[0x2][0x8]",
    ),
    (
        Arch::Sm90,
        "0x0000000604047c28 0x001fd40008000000",
        "DMUL R4, R4, UR6",
    ),
    (
        Arch::Sm75,
        "0x0080000006087a2b 0x001e100000000002",
        "DFMA R8, R6, c[0x2][0x0], R2",
    ),
    (
        Arch::Sm75,
        "0x008000000c12762b 0x001e080000000012",
        "DFMA R18, R12, R18, c[0x2][0x0]",
    ),
    (
        Arch::Sm90,
        "0x8000000606087c2b 0x000fe20008000002",
        "DFMA R8, R6, -UR6, R2",
    ),
    (
        Arch::Sm90,
        "0x00000006120c7c2b 0x000fe20008000014",
        "DFMA R12, R18, UR6, R20",
    ),
    // Double division's Newton step, B negated.
    (
        Arch::Sm75,
        "0x3ff000000a0c742b 0x001e100000000802",
        "DFMA R12, R10, -R2, 1",
    ),
    (
        Arch::Sm90,
        "0x3ff000001008742b 0x001fd00000000802",
        "DFMA R8, R16, -R2, 1",
    ),
    // The reciprocal of a double constant.
    (
        Arch::Sm75,
        "0x4008000000077908 0x000e220000001800",
        "MUFU.RCP64H R7, 3",
    ),
    (
        Arch::Sm90,
        "0x4008000000037908 0x000e220000001800",
        "MUFU.RCP64H R3, 3",
    ),
    // SM90's add-then-clamp (k_jt, double division's exponent).
    (
        Arch::Sm90,
        "0xb960000009087446 0x000fc80007800908",
        "VIADDMNMX R8, R9, -R8, 0xb9600000, !PT",
    ),
    // __int2float_rz.
    (
        Arch::Sm86,
        "0x0000000200077245 0x004fca000020d400",
        "I2FP.F32.S32.RZ R7, R2",
    ),
    // __nanosleep.
    (
        Arch::Sm75,
        "0x000000640000795d 0x000fe40003a00000",
        "NANOSLEEP.WARP 0x64",
    ),
    (
        Arch::Sm80,
        "0x000000640000795d 0x000fe20003800000",
        "NANOSLEEP 0x64",
    ),
    (
        Arch::Sm90,
        "0x000000640000795d 0x000fea0003800000",
        "NANOSLEEP 0x64",
    ),
    // Shared compare-and-swap and compare-and-store (float and 64-bit shared atomics).
    (
        Arch::Sm75,
        "0x000000080009738d 0x000e240001800009",
        "ATOMS.CAST.SPIN R9, [R0], R8, R9",
    ),
    (
        Arch::Sm75,
        "0x0000000600ff738d 0x008fe80000000007",
        "ATOMS.CAS RZ, [R0], R6, R7",
    ),
    (
        Arch::Sm90,
        "0x000000040906738d 0x000e640001800406",
        "ATOMS.CAST.SPIN.64 R6, [R9], R4, R6",
    ),
    (
        Arch::Sm90,
        "0x0000000403ff738d 0x0081e40000000406",
        "ATOMS.CAS.64 RZ, [R3], R4, R6",
    ),
    // 64-bit global compare-and-swap.
    (
        Arch::Sm75,
        "0x0000000408ff73a9 0x008fe200001f4506",
        "ATOMG.E.CAS.64.STRONG.GPU PT, RZ, [R8], R4, R6",
    ),
    (
        Arch::Sm86,
        "0x0000000408ff73a9 0x008fe200001ee506",
        "ATOMG.E.CAS.64.STRONG.GPU PT, RZ, [R8], R4, R6",
    ),
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
    // Found by the sweep's second pass.
    (
        Arch::Sm75,
        "0x8000000404087208 0x001fe20004000000",
        "FSEL R8, R4, -R4, !P0",
    ),
    (
        Arch::Sm75,
        "0x80000004ff077e21 0x000fc60008010100",
        "FADD.FTZ R7, -RZ, -UR4",
    ),
    (
        Arch::Sm75,
        "0x00800c0014167629 0x001e100000000100",
        "DADD R22, -R20, c[0x2][0x30]",
    ),
    (
        Arch::Sm90,
        "0x0000000606087e2b 0x000fe20008000008",
        "DFMA R8, R6, R8, UR6",
    ),
    (
        Arch::Sm90,
        "0xb96000000b067446 0x0c0fe40007800910",
        "VIADDMNMX R6, R11.reuse, -R16.reuse, 0xb9600000, !PT",
    ),
    // Shared addresses scaled by 8 and 16 (64-bit shared arrays).
    (
        Arch::Sm75,
        "0x000000ff0b009388 0x000fe80000008a00",
        "@!P1 STS.64 [R11.X8], RZ",
    ),
    (
        Arch::Sm86,
        "0x000000ff0b009388 0x0001e80000008a00",
        "@!P1 STS.64 [R11.X8], RZ",
    ),
    (
        Arch::Sm90,
        "0x000000ff0b009388 0x000fe8000000ca00",
        "@!P1 STS.64 [R11.X16], RZ",
    ),
    // Found by the sweep's third pass.
    (
        Arch::Sm75,
        "0xbeffffff07077808 0x000fe40004800100",
        "FSEL R7, -R7, -0.4999999701976776123, !P1",
    ),
    (
        Arch::Sm75,
        "0x0000000606057208 0x000fe40004800100",
        "FSEL R5, -R6, R6, !P1",
    ),
    (
        Arch::Sm75,
        "0x0000000400027d08 0x000e240008001000",
        "MUFU.RCP R2, UR4",
    ),
    (
        Arch::Sm75,
        "0x0000000205ff738c 0x004fe800040004ff",
        "ATOMS.EXCH.64 RZ, [R5], R2",
    ),
    (
        Arch::Sm90,
        "0x000000060c167e29 0x000fe20008000100",
        "DADD R22, -R12, UR6",
    ),
    // The warp-aggregated shared increment.
    (
        Arch::Sm86,
        "0x00000000ffff7f8c 0x000fe4000d00003f",
        "ATOMS.POPC.INC.32 RZ, [URZ]",
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
