//! `tangle ir --passes`, `--print-after`, `--print-after-all`, and the writer's refusal of
//! lowered functions on the command line.

use assert_cmd::Command;

fn tangle() -> Command {
    Command::cargo_bin("tangle").unwrap()
}

fn filetest(name: &str) -> String {
    format!(
        "{}/../ir/tests/filetests/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn passes_run_in_order_and_print_after_shows_the_named_one() {
    let input = filetest("pass_reverse_post_order.tir");
    let out = tangle()
        .args([
            "ir",
            &input,
            "--passes",
            "dead-code,reverse-post-order",
            "--print-after",
            "reverse-post-order",
        ])
        .assert()
        .success();
    let stdout = text(&out.get_output().stdout);
    let stderr = text(&out.get_output().stderr);
    // The final module, laid out b0, b2, b1, b3, b9 (see the filetest).
    let labels: Vec<&str> = stdout.lines().filter(|l| l.ends_with(':')).collect();
    assert_eq!(labels, ["b0:", "b2:", "b1:", "b3:", "b9:"]);
    assert!(
        stderr.starts_with("; IR after reverse-post-order\n"),
        "{stderr}"
    );
    assert!(!stderr.contains("after dead-code"), "{stderr}");
    assert_eq!(stderr.matches("; IR after").count(), 1);
    assert!(
        stderr.ends_with(&stdout),
        "the dump is the module after the pass"
    );
}

#[test]
fn print_after_all_dumps_every_pass_and_says_when_nothing_changed() {
    let input = filetest("pass_reverse_post_order.tir");
    let out = tangle()
        .args([
            "ir",
            &input,
            "--passes",
            "reverse-post-order,reverse-post-order",
            "--print-after-all",
        ])
        .assert()
        .success();
    let stderr = text(&out.get_output().stderr);
    let heads: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("; IR after"))
        .collect();
    assert_eq!(
        heads,
        [
            "; IR after reverse-post-order",
            "; IR after reverse-post-order (no change)"
        ]
    );
}

#[test]
fn bad_pass_lists_are_usage_errors_and_invalid_input_is_exit_1() {
    let input = filetest("pass_reverse_post_order.tir");
    let out = tangle()
        .args(["ir", &input, "--passes", "frobnicate"])
        .assert()
        .code(2);
    assert!(text(&out.get_output().stderr).contains("unknown pass `frobnicate`"));
    tangle()
        .args([
            "ir",
            &input,
            "--passes",
            "dead-code",
            "--print-after",
            "reverse-post-order",
        ])
        .assert()
        .code(2);
    let out = tangle()
        .args(["ir", &filetest("pass_errors.tir"), "--passes", "dead-code"])
        .assert()
        .code(1);
    assert!(text(&out.get_output().stderr).contains("v0 does not dominate this use"));
}

#[test]
fn writing_a_lowered_function_as_spirv_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("out.spv");
    let out = tangle()
        .args([
            "ir",
            &filetest("lowered_barriers.tir"),
            "--emit",
            "spirv",
            "-o",
            out_path.to_str().unwrap(),
        ])
        .assert()
        .code(1);
    assert!(
        text(&out.get_output().stderr).contains("type `token` has no SPIR-V form"),
        "{}",
        text(&out.get_output().stderr)
    );
    assert!(!out_path.exists());
}
