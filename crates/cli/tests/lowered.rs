//! `tangle ir --stage lowered`: the lowered text (which reads back), its Graphviz view and
//! its static barrier counts, per lowering scheme.

use assert_cmd::Command;

fn tangle() -> Command {
    Command::cargo_bin("tangle").unwrap()
}

fn input() -> String {
    format!(
        "{}/../ir/tests/filetests/loop_break.tir",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn stdout(args: &[&str]) -> String {
    let out = tangle()
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

#[test]
fn the_lowered_text_reads_back_and_verifies_in_lowered_form() {
    let text = stdout(&["ir", &input(), "--stage", "lowered"]);
    assert!(text.contains("lowered {"), "{text}");
    assert!(text.contains("bar_set barrier"), "{text}");
    let module = tangle_ir::text::parse(&text).unwrap();
    tangle_ir::verify::verify_as(&module, tangle_ir::Form::Lowered).unwrap();
    assert_eq!(tangle_ir::text::print(&module), text);
}

#[test]
fn stats_count_the_barrier_operations_per_scheme() {
    // Worked out by hand (crates/reconverge/tests/lower/loop_break.out): a loop left by a
    // divergent break needs only its break scope under tangle's scheme; NAK's placement
    // also syncs the continue target; the baseline breaks out of the if's barrier.
    let scopes = stdout(&["ir", &input(), "--stage", "lowered", "--stats"]);
    assert_eq!(
        scopes,
        "f0 \"main\": bar_set 1 bar_sync 1 bar_break 0 exit 1\ntotal: bar_set 1 bar_sync 1 bar_break 0 exit 1\n"
    );
    let nak = stdout(&[
        "ir",
        &input(),
        "--stage",
        "lowered",
        "--lowering",
        "nak",
        "--stats",
    ]);
    assert!(
        nak.starts_with("f0 \"main\": bar_set 2 bar_sync 2 bar_break 0"),
        "{nak}"
    );
    let base = stdout(&[
        "ir",
        &input(),
        "--stage",
        "lowered",
        "--lowering",
        "baseline",
        "--stats",
    ]);
    assert!(
        base.starts_with("f0 \"main\": bar_set 2 bar_sync 2 bar_break 1"),
        "{base}"
    );
    let structured = stdout(&["ir", &input(), "--stats"]);
    assert!(
        structured.starts_with("f0 \"main\": bar_set 0 bar_sync 0"),
        "{structured}"
    );
}

#[test]
fn dot_draws_barriers_and_divergent_edges() {
    let dot = stdout(&["ir", &input(), "--stage", "lowered", "--dot"]);
    assert!(dot.starts_with("digraph lowered {"), "{dot}");
    assert!(
        dot.contains("= bar_set") && dot.contains("bar_sync v"),
        "{dot}"
    );
    assert!(dot.contains("style=\"bold,dashed\", color=red"), "{dot}");
    assert!(dot.trim_end().ends_with('}'));
}

#[test]
fn bad_lowering_options_are_usage_errors() {
    tangle()
        .args(["ir", &input(), "--stage", "lowered", "--lowering", "bogus"])
        .assert()
        .code(2);
    tangle()
        .args(["ir", &input(), "--lowering", "nak"])
        .assert()
        .code(2);
    tangle()
        .args(["ir", &input(), "--stage", "lowered", "--dot", "--stats"])
        .assert()
        .code(2);
}
