//! `tangle ir --emit spvasm`: the module written back as SPIR-V, as spirv-dis prints it,
//! text that assembles to the module `--emit spirv` writes.

use assert_cmd::Command;

fn tangle() -> Command {
    Command::cargo_bin("tangle").unwrap()
}

fn repo(path: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

#[test]
fn spvasm_assembles_to_the_words_emit_spirv_writes() {
    let dir = tempfile::tempdir().unwrap();
    let spv = dir.path().join("m.spv");
    let input = repo("examples/loop_break.spvasm");
    tangle()
        .args(["ir", "--emit", "spirv", "-o"])
        .arg(&spv)
        .arg(&input)
        .assert()
        .success();
    let out = tangle()
        .args(["ir", "--emit", "spvasm"])
        .arg(&input)
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.starts_with("; SPIR-V\n; Version: "), "{text}");
    assert!(text.contains("OpLoopMerge"), "{text}");
    let bytes = std::fs::read(&spv).unwrap();
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    // Friendly names stand for ids one to one, so the text assembles to what the binary's
    // raw-id text assembles to (the assembler numbers ids in order of appearance).
    let raw = tangle_spirv::dis::DisOptions {
        raw_ids: true,
        ..tangle_spirv::dis::DisOptions::default()
    };
    let raw_text = tangle_spirv::dis::disassemble(&words, raw).unwrap();
    let options = tangle_spirv::AsmOptions::for_env(tangle_spirv::TargetEnv::Universal(3));
    let back = tangle_spirv::assemble(&text, options).unwrap();
    assert_eq!(back, tangle_spirv::assemble(&raw_text, options).unwrap());
    // And the raw-id text is the binary itself.
    let keep_ids = tangle_spirv::AsmOptions {
        preserve_numeric_ids: true,
        ..options
    };
    let exact = tangle_spirv::assemble(&raw_text, keep_ids).unwrap();
    assert_eq!(exact[3..], words[3..]);
}
