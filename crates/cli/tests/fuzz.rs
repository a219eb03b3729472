//! `tangle fuzz`: a small campaign passes with its one-line summary, a known-wrong
//! semantics is caught (exit 1, the seed named), and bad arguments are usage errors.

use assert_cmd::Command;

fn tangle() -> Command {
    Command::cargo_bin("tangle").unwrap()
}

#[test]
fn small_campaign_passes_with_a_summary() {
    let out = tangle()
        .args(["fuzz", "--seeds", "0..40", "--nesting", "2..5"])
        .args(["--subgroup-sizes", "1,8,32,128", "--jobs", "2"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.starts_with("40 programs, 0 mismatches, "),
        "summary: {text}"
    );
    assert!(text.trim_end().ends_with("programs/s"), "summary: {text}");
}

#[test]
fn known_wrong_semantics_is_caught() {
    let out = tangle()
        .args(["fuzz", "--seeds", "0..200", "--subgroup-sizes", "4,32"])
        .args(["--semantics", "break-not-split-by-iteration", "--jobs", "2"])
        .assert()
        .code(1);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("mismatch: seed "), "stderr: {err}");
}

#[test]
fn bad_arguments_are_usage_errors() {
    tangle().args(["fuzz", "--seeds", "5"]).assert().code(2);
    tangle().args(["fuzz", "--nesting", "9"]).assert().code(2);
    tangle()
        .args(["fuzz", "--subgroup-sizes", "3"])
        .assert()
        .code(2);
    tangle()
        .args(["fuzz", "--engines", "ref,sass"])
        .assert()
        .code(2);
    tangle().args(["fuzz", "--engines", "ref"]).assert().code(2);
}
