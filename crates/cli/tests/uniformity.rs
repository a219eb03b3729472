//! `tangle ir --uniformity`: the uniformity analysis as an annotated listing.

use assert_cmd::Command;

fn tangle() -> Command {
    Command::cargo_bin("tangle").unwrap()
}

#[test]
fn the_listing_marks_values_branches_and_loops() {
    let input = format!(
        "{}/../ir/tests/filetests/loop_break.tir",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = tangle()
        .args(["ir", &input, "--uniformity"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    // Worked out by hand: the lane index is divergent, so is the break condition; the
    // counter stays uniform inside the loop (it is not read after it); the ballot after the
    // loop is one value for the reconverged tangle.
    for line in [
        "  v0 = load u32 g1  ; divergent",
        "  v1 = phi u32 [c0, b0], [v5, b3]  ; uniform",
        "  loop_merge b4, b3  ; divergent exits",
        "  br_if v2, b6, b5  ; divergent branch",
        "  v5 = iadd u32 v1, c1  ; uniform",
        "  v6 = group_ballot[subgroup] u32x4 v2  ; uniform",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "missing {line:?} in\n{text}"
        );
    }
}

#[test]
fn uniformity_does_not_go_with_spirv_output() {
    let input = format!(
        "{}/../ir/tests/filetests/loop_break.tir",
        env!("CARGO_MANIFEST_DIR")
    );
    tangle()
        .args([
            "ir",
            &input,
            "--uniformity",
            "--emit",
            "spirv",
            "-o",
            "/dev/null",
        ])
        .assert()
        .code(2);
}
