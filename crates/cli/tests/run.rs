//! `tangle run`: scripts (exit 0 / 1 / 2 and amber-like reports) and shaders with buffers
//! from the command line (hex and JSON output).

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn tangle() -> Command {
    Command::cargo_bin("tangle").unwrap()
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

const AFFINE: &str = "crates/run/tests/data/affine.spvasm";

fn out(o: &assert_cmd::assert::Assert) -> (String, String) {
    let o = o.get_output();
    (
        String::from_utf8(o.stdout.clone()).unwrap(),
        String::from_utf8(o.stderr.clone()).unwrap(),
    )
}

/// A script running the affine shader (out = in * 3 + 10) that expects `expect`.
fn affine_script(dir: &Path, expect: &str) -> PathBuf {
    let path = dir.join("affine.amber");
    let text = format!(
        "#!amber\nSHADER compute s SPIRV-ASM TARGET_ENV spv1.3\n{}END\n\
         BUFFER in DATA_TYPE uint32 DATA 1 2 3 4 END\n\
         BUFFER out DATA_TYPE uint32 SIZE 4 FILL 0\n\
         BUFFER counter DATA_TYPE uint32 SIZE 1 FILL 0\n\
         BUFFER pc DATA_TYPE uint32 DATA 10 END\n\
         PIPELINE compute p\n  ATTACH s\n\
         BIND BUFFER in AS storage DESCRIPTOR_SET 0 BINDING 0\n\
         BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 1\n\
         BIND BUFFER counter AS storage DESCRIPTOR_SET 0 BINDING 2\n\
         BIND BUFFER pc AS push_constant\nEND\n\
         RUN p 1 1 1\n{expect}\n",
        std::fs::read_to_string(repo(AFFINE)).unwrap()
    );
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_passing_script_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let path = affine_script(dir.path(), "EXPECT out IDX 0 EQ 13 16 19 22");
    let a = tangle().arg("run").arg(&path).arg("-v").assert().code(0);
    let (stdout, _) = out(&a);
    assert!(stdout.contains("PASS (1 RUN, 1 EXPECT)"), "{stdout}");
    assert!(stdout.contains("subgroup size 32"), "{stdout}");
}

#[test]
fn a_failing_script_exits_1_and_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let path = affine_script(dir.path(), "EXPECT out IDX 0 EQ 13 16 20 22");
    let a = tangle().arg("run").arg(&path).assert().code(1);
    let (stdout, stderr) = out(&a);
    assert!(stdout.contains("FAIL"), "{stdout}");
    let text = std::fs::read_to_string(&path).unwrap();
    let line = text.lines().position(|l| l.starts_with("EXPECT")).unwrap() + 1;
    assert!(
        stderr.contains(&format!("Line {line}: 19 == 20 fails at value 2")),
        "{stderr}"
    );
    // The known-wrong semantics are selectable, and the schedule does not change results.
    tangle()
        .args(["run", "--schedule", "random:7"])
        .arg(affine_script(dir.path(), "EXPECT out IDX 0 EQ 13 16 19 22"))
        .assert()
        .code(0);
}

#[test]
fn a_bad_script_exits_2_with_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.amber");
    std::fs::write(&path, "#!amber\nBUFFER b DATA_TYPE uint32 SIZE x FILL 0\n").unwrap();
    let a = tangle().arg("run").arg(&path).assert().code(2);
    let (_, stderr) = out(&a);
    assert!(stderr.contains("bad.amber:2:"), "{stderr}");
    tangle()
        .args(["run", "--schedule", "sometimes"])
        .arg(&path)
        .assert()
        .code(2);
    tangle()
        .args(["run", "--buffer", "0:0=4"])
        .arg(&path)
        .assert()
        .code(2);
}

#[test]
fn several_scripts_get_a_summary_and_the_worst_status() {
    let dir = tempfile::tempdir().unwrap();
    let good = affine_script(dir.path(), "EXPECT out IDX 0 EQ 13");
    let good_copy = dir.path().join("good.amber");
    std::fs::copy(&good, &good_copy).unwrap();
    let bad = affine_script(dir.path(), "EXPECT out IDX 0 EQ 14");
    let a = tangle()
        .arg("run")
        .arg(&good_copy)
        .arg(&bad)
        .assert()
        .code(1);
    let (stdout, _) = out(&a);
    assert!(
        stdout.contains("Summary: 1 pass, 1 fail, 0 refused"),
        "{stdout}"
    );
}

#[test]
fn a_directory_runs_every_script_and_the_summary_separates_refused() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let good = affine_script(&sub, "EXPECT out IDX 0 EQ 13");
    std::fs::rename(&good, sub.join("a_good.amber")).unwrap();
    let bad = affine_script(&sub, "EXPECT out IDX 0 EQ 14");
    std::fs::rename(&bad, sub.join("b_bad.amber")).unwrap();
    // Refused: an OpenCL C shader (out of scope), at its line and column.
    std::fs::write(
        dir.path().join("c_refused.amber"),
        "#!amber
SHADER compute k OPENCL-C
END
",
    )
    .unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a script").unwrap();
    let a = tangle().arg("run").arg(dir.path()).assert().code(2);
    let (stdout, stderr) = out(&a);
    assert!(
        stdout.contains("Summary: 1 pass, 1 fail, 1 refused"),
        "{stdout}"
    );
    assert!(stdout.contains("a_good.amber: PASS"), "{stdout}");
    assert!(
        stderr.contains("c_refused.amber:2:18: unsupported"),
        "{stderr}"
    );
    // An empty directory is a usage error.
    let empty = tempfile::tempdir().unwrap();
    let a = tangle().arg("run").arg(empty.path()).assert().code(2);
    assert!(out(&a).1.contains("holds no .amber file"));
}

#[test]
fn help_states_the_exit_codes() {
    for args in [&["--help"][..], &["run", "--help"]] {
        let a = tangle().args(args).assert().code(0);
        let (stdout, _) = out(&a);
        assert!(stdout.contains("Exit status"), "{stdout}");
        assert!(
            stdout.contains("2  the input could not be read"),
            "{stdout}"
        );
    }
}

#[test]
fn a_shader_runs_with_buffers_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.bin");
    let words: Vec<u8> = (1u32..=8).flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&input, words).unwrap();
    let pc = dir.path().join("pc.bin");
    std::fs::write(&pc, 100u32.to_le_bytes()).unwrap();
    let a = tangle()
        .args([
            "run",
            "--workgroups",
            "2,1,1",
            "--spec",
            "0=5",
            "--format",
            "json",
        ])
        .arg(repo(AFFINE))
        .arg("--buffer")
        .arg(format!("0:0={}", input.display()))
        .args([
            "--buffer",
            "0:1=32",
            "--buffer",
            "0:2=4",
            "--push-constants",
        ])
        .arg(&pc)
        .assert()
        .code(0);
    let (stdout, _) = out(&a);
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["local_size"], serde_json::json!([4, 1, 1]));
    let buffers = json["buffers"].as_array().unwrap();
    let hex_of = |binding: u64| {
        buffers.iter().find(|b| b["binding"] == binding).unwrap()["hex"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // out[x] = in[x] * 5 + 100 = 105, 110, ... 140; the counter saw 8 invocations.
    let want: String = (1u32..=8)
        .flat_map(|i| (i * 5 + 100).to_le_bytes())
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(hex_of(1), want);
    assert_eq!(hex_of(2), "08000000");

    // The hex form, with the trace asked for (this shader has no subgroup operations).
    let a = tangle()
        .args(["run", "--trace", "--subgroup-size", "4"])
        .arg(repo(AFFINE))
        .args([
            "--buffer", "0:0=16", "--buffer", "0:1=16", "--buffer", "0:2=4",
        ])
        .arg("--push-constants")
        .arg(&pc)
        .assert()
        .code(0);
    let (stdout, _) = out(&a);
    assert!(stdout.contains("subgroup size 4"), "{stdout}");
    assert!(
        stdout.contains("# set 0 binding 1: 16 bytes\n00000000: 64 00 00 00 64 00 00 00  64 00"),
        "{stdout}"
    );
    assert!(
        stdout.contains("# trace: 0 subgroup operations"),
        "{stdout}"
    );
}

#[test]
fn shader_mode_refuses_what_does_not_fit() {
    let run = |extra: &[&str]| {
        let a = tangle()
            .arg("run")
            .arg(repo(AFFINE))
            .args(extra)
            .assert()
            .code(2);
        out(&a).1
    };
    let all = [
        "--buffer", "0:0=16", "--buffer", "0:1=16", "--buffer", "0:2=4",
    ];
    let err = run(&all[..4]);
    assert!(err.contains("--buffer 0:2"), "{err}");
    let err = run(&all);
    assert!(err.contains("push constants"), "{err}");
    let err = run(&[&all[..], &["--spec", "0=-1x"]].concat());
    assert!(err.contains("SpecId 0"), "{err}");
    let err = run(&[&all[..], &["--spec", "9=1"]].concat());
    assert!(
        err.contains("no specialization constant with SpecId 9"),
        "{err}"
    );
    let err = run(&["--subgroup-size", "48"]);
    assert!(err.contains("power of two"), "{err}");
    let err = run(&["--workgroups", "0,1,1"]);
    assert!(err.contains("--workgroups"), "{err}");
}

#[test]
fn a_shader_that_runs_out_of_budget_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let pc = dir.path().join("pc.bin");
    std::fs::write(&pc, 1u32.to_le_bytes()).unwrap();
    let a = tangle()
        .args(["run", "--step-budget", "2"])
        .arg(repo(AFFINE))
        .args([
            "--buffer", "0:0=16", "--buffer", "0:1=16", "--buffer", "0:2=4",
        ])
        .arg("--push-constants")
        .arg(&pc)
        .assert()
        .code(1);
    let (_, stderr) = out(&a);
    assert!(stderr.contains("step budget of 2 exhausted"), "{stderr}");
}

#[test]
fn the_bundled_rule_scripts_pass_and_a_wrong_semantics_fails_one() {
    if tangle_oracle::require(tangle_oracle::Tool::Glslang, "bundled_rule_scripts").is_none() {
        return;
    }
    tangle()
        .arg("run")
        .arg(repo("tests/amber/rule_call_return.amber"))
        .arg(repo("tests/amber/rule_continue_target.amber"))
        .assert()
        .code(0);
    let a = tangle()
        .args(["run", "--semantics", "no-call-reconvergence"])
        .arg(repo("tests/amber/rule_call_return.amber"))
        .assert()
        .code(1);
    let (_, stderr) = out(&a);
    assert!(stderr.contains("Line "), "{stderr}");
}

#[test]
fn a_script_prints_its_trace_on_request() {
    let a = tangle()
        .args(["run", "--trace"])
        .arg(repo("examples/loop_break.amber"))
        .assert()
        .code(0);
    let (stdout, _) = out(&a);
    // One ballot, after the loop, by the whole subgroup.
    let trace: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("workgroup "))
        .collect();
    assert_eq!(trace.len(), 1, "{stdout}");
    assert!(
        trace[0].starts_with("workgroup 0,0,0 subgroup 0 f")
            && trace[0].ends_with(" mask 0xffffffff"),
        "{stdout}"
    );
}

/// `crates/run/tests/data/divide.spvasm` stores `100 / in[x]` for x in 0..4: with in = 0,
/// 1, 2, 5 the first word is undefined (division by zero), the others 100, 50, 20.
#[test]
fn undefined_bytes_print_as_question_marks_and_null() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.bin");
    let words: Vec<u8> = [0u32, 1, 2, 5]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    std::fs::write(&input, words).unwrap();
    let shader = repo("crates/run/tests/data/divide.spvasm");
    let run = |extra: &[&str]| {
        let mut c = tangle();
        c.args(["run", "--target-env", "spv1.3"])
            .args(extra)
            .arg(&shader)
            .arg("--buffer")
            .arg(format!("0:0={}", input.display()))
            .args(["--buffer", "0:1=16"]);
        c
    };
    let a = run(&[]).assert().code(0);
    let (stdout, _) = out(&a);
    assert!(
        stdout.contains("# set 0 binding 1: 16 bytes, 4 undefined (??)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("00000000: ?? ?? ?? ?? 64 00 00 00  32 00 00 00 14 00 00 00"),
        "{stdout}"
    );

    let a = run(&["--format", "json"]).assert().code(0);
    let (stdout, _) = out(&a);
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let out_buffer = json["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["binding"] == 1)
        .unwrap()
        .clone();
    assert_eq!(out_buffer["hex"], "????????640000003200000014000000");
    let bytes = out_buffer["bytes"].as_array().unwrap();
    assert!(bytes[..4].iter().all(serde_json::Value::is_null));
    assert_eq!(bytes[4], 100);
    // The input buffer is fully defined: no `bytes`.
    let in_buffer = json["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["binding"] == 0)
        .unwrap();
    assert!(in_buffer.get("bytes").is_none());

    // --strict-undefined stops at the division, status 1, naming it.
    let a = run(&["--strict-undefined"]).assert().code(1);
    let (_, stderr) = out(&a);
    assert!(stderr.contains("integer division by zero"), "{stderr}");
}

#[test]
fn shader_mode_run_time_errors_name_the_spirv_instruction_and_line() {
    if tangle_oracle::require(tangle_oracle::Tool::Glslang, "shader_mode_errors").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let shader = dir.path().join("divide.comp");
    // Line 5 divides by the buffer's first int, which is zero: an undefined value, which
    // --strict-undefined turns into an error.
    std::fs::write(
        &shader,
        "#version 430\nlayout(local_size_x = 1) in;\n\
         layout(binding = 0) buffer B { int v[]; } b;\nvoid main() {\n  b.v[1] = 7 / b.v[0];\n}\n",
    )
    .unwrap();
    let a = tangle()
        .arg("run")
        .arg(&shader)
        .args(["--buffer", "0:0=8", "--strict-undefined"])
        .assert()
        .code(1);
    let (_, stderr) = out(&a);
    assert!(stderr.contains("undefined value at %"), "{stderr}");
    assert!(
        stderr.contains(" = OpSDiv, source line 5 (IR f0 "),
        "{stderr}"
    );
    assert!(stderr.contains("integer division by zero"), "{stderr}");
}
