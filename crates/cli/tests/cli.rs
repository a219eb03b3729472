//! Command-line behaviour that every later subcommand builds on.

use assert_cmd::Command;

fn tangle() -> Command {
    Command::cargo_bin("tangle").unwrap()
}

#[test]
fn version_names_the_tool() {
    let out = tangle().arg("--version").assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(text.trim(), format!("tangle {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn unknown_subcommand_is_a_usage_error() {
    tangle().arg("frobnicate").assert().code(2);
}

#[test]
fn missing_argument_is_a_usage_error() {
    tangle().arg("ir").assert().code(2);
}

#[test]
fn unimplemented_subcommands_fail_and_say_so() {
    for args in [
        vec!["run", "x.amber"],
        vec!["disasm", "x.cubin"],
        vec!["asm", "x.sass", "--arch", "sm_90", "-o", "x.bin"],
    ] {
        let out = tangle().args(&args).assert().code(2);
        let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(err.contains("not implemented yet"), "{args:?}: {err}");
    }
}
