//! `tangle run --engine lowered`: every dispatch lowered and run on the barrier machine
//! under every policy against the reference interpreter, in scripts and in shader mode;
//! `--stats` prints the barrier operations; seed 000's baseline fails a bundled rule
//! script on a wrong buffer (exit 1); bad engine arguments are usage errors.

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

fn text(o: &assert_cmd::assert::Assert) -> (String, String) {
    let o = o.get_output();
    (
        String::from_utf8(o.stdout.clone()).unwrap(),
        String::from_utf8(o.stderr.clone()).unwrap(),
    )
}

#[test]
fn a_script_passes_lowered_under_every_policy_with_its_barrier_counts() {
    let a = tangle()
        .args(["run", "--engine", "lowered", "--stats"])
        .arg(repo("examples/loop_break.amber"))
        .assert()
        .code(0);
    let (stdout, _) = text(&a);
    assert!(
        stdout.contains("lowered (scopes): 12 policies agree with the reference"),
        "{stdout}"
    );
    assert!(stdout.contains("  adversarial: bar_set "), "{stdout}");
    assert!(stdout.contains("PASS (1 RUN, 1 EXPECT)"), "{stdout}");
}

#[test]
fn the_baseline_fails_a_bundled_rule_script_on_a_wrong_buffer() {
    if tangle_oracle::require(tangle_oracle::Tool::Glslang, "baseline_rule_script").is_none() {
        return;
    }
    let script = repo("tests/amber/rule_continue_target.amber");
    tangle()
        .args(["run", "--engine", "lowered"])
        .arg(&script)
        .assert()
        .code(0);
    let a = tangle()
        .args(["run", "--engine", "lowered", "--lowering", "baseline"])
        .arg(&script)
        .assert()
        .code(1);
    let (_, stderr) = text(&a);
    assert!(
        stderr.contains("lowered (baseline) (strict)") && stderr.contains("reference 0x"),
        "{stderr}"
    );
}

/// A structured shader: lanes below 5 take an `if` with a ballot; everyone ballots after.
const SHADER: &str = r#"spirv 1.3
memory_model GLSL450
capability Shader
capability GroupNonUniform
capability GroupNonUniformBallot

type t0 = void
type t1 = u32
type t2 = bool
type t3 = u32x4
type t4 = rtarray<u32> [stride 4]
type t5 = struct "Buf" { t4 [offset 0, name "data"] } [block]

const c0 u32 = 0
const c1 u32 = 5
const c2 bool = true

global g0 ptr<StorageBuffer, t5> [set 0, binding 0, name "out"]
global g1 ptr<Input, u32> [builtin LocalInvocationIndex]

entry GLCompute "main" f0 (g1) [local_size 8 1 1]

fn f0 "main"() -> void {
b0:
  v0 = load u32 g1
  v1 = ult bool v0, c1
  v6 = access_chain ptr<StorageBuffer, u32> g0, c0, v0
  selection_merge b2
  br_if v1, b1, b2
b1:
  v2 = group_ballot[subgroup] u32x4 c2
  v3 = composite_extract[0] u32 v2
  store v6, v3
  br b2
b2:
  v4 = group_ballot[subgroup] u32x4 c2
  v5 = composite_extract[0] u32 v4
  v7 = load u32 v6
  v8 = iadd u32 v7, v5
  store v6, v8
  return
}
"#;

#[test]
fn a_shader_runs_lowered_and_prints_its_barrier_counts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shader.tir");
    std::fs::write(&path, SHADER).unwrap();
    let a = tangle()
        .arg("run")
        .arg(&path)
        .args([
            "--buffer",
            "0:0=32",
            "--subgroup-size",
            "8",
            "--format",
            "json",
        ])
        .args([
            "--engine",
            "lowered",
            "--policy",
            "strict,adversarial,exhaustive",
            "--stats",
        ])
        .assert()
        .code(0);
    let (stdout, stderr) = text(&a);
    assert!(
        stderr.contains("lowered (scopes): 3 policies agree with the reference"),
        "{stderr}"
    );
    // One warp, one divergent `if`: one barrier set and the two groups' syncs.
    assert!(
        stderr.contains("strict: bar_set 1, bar_sync 2, bar_break 0, exit 1 (per warp)"),
        "{stderr}"
    );
    // Lanes 0..4 hold 0x1f + 0xff, the others 0xff.
    let want = "1e010000".repeat(5) + &"ff000000".repeat(3);
    assert!(stdout.contains(&want), "{stdout}");
}

#[test]
fn bad_engine_arguments_are_usage_errors() {
    let script = repo("examples/loop_break.amber");
    tangle()
        .args(["run", "--engine", "lowered", "--lowering", "nothing"])
        .arg(&script)
        .assert()
        .code(2);
    tangle()
        .args(["run", "--engine", "lowered", "--policy", "realistic"])
        .arg(&script)
        .assert()
        .code(2);
    tangle()
        .args(["run", "--engine", "sass", "--arch", "sm_70"])
        .arg(&script)
        .assert()
        .code(2);
}
