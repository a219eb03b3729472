//! Convergence tokens on the command line: `.ll` input to `tangle validate` and `tangle
//! ir`, `--emit ll`, `--stage tokens` and the token passes in `--passes`.

use assert_cmd::Command;

fn tangle() -> Command {
    Command::cargo_bin("tangle").unwrap()
}

fn data(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn validate_reads_ll_and_reports_the_heart_rule_with_a_witness() {
    let out = tangle()
        .args(["validate", &data("irreducible_hearts.ll")])
        .assert()
        .code(1);
    let stderr = text(&out.get_output().stderr);
    assert!(stderr.contains("[tokens]"), "{stderr}");
    assert!(stderr.contains("closed path"), "{stderr}");
    assert!(
        stderr.contains("a heart stands only in the header of a reducible cycle"),
        "{stderr}"
    );
}

#[test]
fn unreadable_ll_is_exit_2_with_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.ll");
    std::fs::write(
        &path,
        "define void @f() {\n  %x = frobnicate i32 1\n  ret void\n}\n",
    )
    .unwrap();
    let out = tangle()
        .args(["validate", path.to_str().unwrap()])
        .assert()
        .code(2);
    let stderr = text(&out.get_output().stderr);
    assert!(stderr.contains("bad.ll:2:8:"), "{stderr}");
}

#[test]
fn stage_tokens_gives_seed_004_anchored_preheaders_and_emit_ll_writes_them() {
    let out = tangle()
        .args(["ir", &data("seed_004.tir"), "--stage", "tokens"])
        .assert()
        .success();
    let ir = text(&out.get_output().stdout);
    assert_eq!(ir.matches("conv_anchor").count(), 2, "{ir}");
    assert_eq!(ir.matches("conv_loop").count(), 2, "{ir}");
    let out = tangle()
        .args([
            "ir",
            &data("seed_004.tir"),
            "--stage",
            "tokens",
            "--emit",
            "ll",
        ])
        .assert()
        .success();
    let ll = text(&out.get_output().stdout);
    assert!(
        ll.contains("@llvm.experimental.convergence.anchor()"),
        "{ll}"
    );
    assert!(ll.contains("\"convergencectrl\"(token"), "{ll}");
    // The written text reads back and verifies.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seed_004.ll");
    std::fs::write(&path, &ll).unwrap();
    tangle()
        .args(["validate", path.to_str().unwrap()])
        .assert()
        .success();
}

#[test]
fn token_passes_run_from_passes() {
    let out = tangle()
        .args([
            "ir",
            &data("seed_004.tir"),
            "--passes",
            "infer-tokens-cfg,reverse-post-order",
            "--print-after",
            "infer-tokens-cfg",
        ])
        .assert()
        .success();
    let stderr = text(&out.get_output().stderr);
    assert!(stderr.contains("; IR after infer-tokens-cfg"), "{stderr}");
    assert!(stderr.contains("conv_entry"), "{stderr}");
}

fn repo(path: &str) -> String {
    format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn run_engine_tokens_passes_scripts_under_every_policy() {
    let out = tangle()
        .args(["run", "--engine", "tokens", "-v"])
        .arg(repo("examples/loop_break.amber"))
        .assert()
        .code(0);
    let stdout = text(&out.get_output().stdout);
    assert!(
        stdout.contains("tokens: 12 policies agree with the reference"),
        "{stdout}"
    );
    // The bundled rule scripts (GLSL): switch fallthrough and breaks by iteration.
    if tangle_oracle::require(tangle_oracle::Tool::Glslang, "tokens_rule_scripts").is_none() {
        return;
    }
    let out = tangle()
        .args(["run", "--engine", "tokens", "-v"])
        .arg(repo("tests/amber/rule_switch.amber"))
        .arg(repo("tests/amber/rule_break_by_iteration.amber"))
        .assert()
        .code(0);
    let stdout = text(&out.get_output().stdout);
    assert_eq!(
        stdout
            .matches("tokens: 12 policies agree with the reference")
            .count(),
        2,
        "{stdout}"
    );
}

#[test]
fn fuzz_engine_tokens_passes_a_few_programs() {
    let out = tangle()
        .args([
            "fuzz",
            "--engines",
            "ref,tokens",
            "--seeds",
            "0..6",
            "--subgroup-sizes",
            "4,32",
        ])
        .assert()
        .code(0);
    let stdout = text(&out.get_output().stdout);
    assert!(
        stdout.contains("tokens: 6 programs × 12 policies, 0 mismatches"),
        "{stdout}"
    );
}
