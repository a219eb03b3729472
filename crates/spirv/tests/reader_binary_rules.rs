//! Rules of the binary form that SPIR-V assembly cannot break (so `tests/invalid/` cannot
//! hold them): result ids of 0 or past the header's bound, stray high-order bits in narrow
//! literals, `OpNop` outside a function. Each is a word-level mutation of a valid module that
//! the reader must refuse with a positioned error, and that spirv-val refuses too.

use std::path::Path;

use tangle_oracle::{require, scratch_dir, Tool};
use tangle_spirv::reader::{read_words, ReadErrorKind};
use tangle_spirv::{assemble, AsmOptions, TargetEnv};

/// The valid base of `tests/invalid/`, with a 16-bit unsigned and a 16-bit signed constant.
fn base() -> Vec<u32> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/invalid/iadd_float_operand.spvasm"),
    )
    .unwrap()
    .replace("OpIAdd %uint %id %float_1", "OpIAdd %uint %id %uint_1")
    .replace(
        "OpCapability Shader\n",
        "OpCapability Shader\n               OpCapability Int16\n",
    )
    .replace(
        "       %bool = OpTypeBool\n",
        "       %bool = OpTypeBool\n     %ushort = OpTypeInt 16 0\n      %short = OpTypeInt 16 1\n   %ushort_7 = OpConstant %ushort 7\n   %short_m1 = OpConstant %short -1\n",
    );
    assemble(&text, AsmOptions::for_env(TargetEnv::Vulkan1_1)).unwrap()
}

/// The word offset of the first instruction with `opcode` (after the header).
fn find(words: &[u32], opcode: spirv::Op) -> usize {
    let mut w = 5;
    while w < words.len() {
        if words[w] & 0xffff == opcode as u32 {
            return w;
        }
        w += (words[w] >> 16) as usize;
    }
    panic!("no Op{opcode:?}");
}

/// The `k`th instruction with `opcode`.
fn find_nth(words: &[u32], opcode: spirv::Op, k: usize) -> usize {
    let mut w = 5;
    let mut seen = 0;
    while w < words.len() {
        if words[w] & 0xffff == opcode as u32 {
            if seen == k {
                return w;
            }
            seen += 1;
        }
        w += (words[w] >> 16) as usize;
    }
    panic!("no Op{opcode:?} #{k}");
}

/// Reads `words`, which must fail at word `at` with an error `matches` accepts; spirv-val
/// must refuse them too.
fn refused(words: &[u32], at: usize, matches: impl Fn(&ReadErrorKind) -> bool, test: &str) {
    let err = read_words(words).unwrap_err();
    assert!(matches(&err.kind), "{err}");
    assert_eq!(err.pos.map(|p| p.word), Some(at), "{err}");
    let Some(spirv_val) = require(Tool::SpirvVal, test) else {
        return;
    };
    let dir = scratch_dir();
    let path = dir.path().join("m.spv");
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    let out = spirv_val.run([
        "--target-env".as_ref(),
        "vulkan1.1".as_ref(),
        path.as_os_str(),
    ]);
    assert!(!out.status.success(), "spirv-val accepts it");
}

#[test]
fn the_base_reads_and_verifies() {
    let m = read_words(&base()).unwrap();
    tangle_ir::verify::verify(&m).unwrap();
}

#[test]
fn result_id_zero_is_refused() {
    let mut w = base();
    let at = find(&w, spirv::Op::TypeVoid);
    w[at + 1] = 0;
    let zero =
        |k: &ReadErrorKind| matches!(k, ReadErrorKind::Malformed(s) if s.contains("result id 0"));
    refused(&w, at, zero, "result_id_zero_is_refused");
}

#[test]
fn result_id_past_the_bound_is_refused() {
    let mut w = base();
    let at = find(&w, spirv::Op::TypeVoid);
    w[at + 1] = w[3];
    let past =
        |k: &ReadErrorKind| matches!(k, ReadErrorKind::Malformed(s) if s.contains("id bound"));
    refused(&w, at, past, "result_id_past_the_bound_is_refused");
}

#[test]
fn narrow_literals_with_stray_high_bits_are_refused() {
    let stray =
        |k: &ReadErrorKind| matches!(k, ReadErrorKind::Malformed(s) if s.contains("high-order"));
    let test = "narrow_literals_with_stray_high_bits_are_refused";
    // Unsigned: the high half must be zero.
    let mut w = base();
    let at = find_nth(&w, spirv::Op::Constant, 0);
    assert_eq!(w[at + 3], 7);
    w[at + 3] = 0x0001_0007;
    refused(&w, at, stray, test);
    // Signed: the high half must repeat the sign bit.
    let mut w = base();
    let at = find_nth(&w, spirv::Op::Constant, 1);
    assert_eq!(w[at + 3], 0xffff_ffff);
    w[at + 3] = 0x0000_ffff;
    refused(&w, at, stray, test);
}

#[test]
fn nop_outside_a_function_is_refused() {
    let mut w = base();
    let at = find(&w, spirv::Op::TypeVoid);
    w.insert(at, (1 << 16) | spirv::Op::Nop as u32);
    let misplaced = |k: &ReadErrorKind| matches!(k, ReadErrorKind::Misplaced(_));
    refused(&w, at, misplaced, "nop_outside_a_function_is_refused");
}
