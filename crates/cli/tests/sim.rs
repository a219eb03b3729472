//! `tangle sim` on hand-written SASS: exit 0 with buffers written back, 1 for a deadlock,
//! livelock or fault, 2 for bad input.

use assert_cmd::Command;

fn tangle() -> Command {
    Command::cargo_bin("tangle").unwrap()
}

/// Each lane stores its lane id + 7 to `out[lane]`.
const STORE: &str = "S2R R0, SR_LANEID
LDC.64 R2, c[0x0][0x160]
IADD3 R5, R0, 0x7, RZ
IMAD.WIDE.U32 R2, R0, 0x4, R2
STG.E [R2.64], R5
EXIT";

#[test]
fn sim_runs_sass_text_and_writes_the_buffers_back() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("k.sass");
    std::fs::write(&src, STORE).unwrap();
    let out = dir.path().join("out");
    let run = tangle()
        .arg("sim")
        .arg(&src)
        .args([
            "--arch",
            "sm_86",
            "--params",
            "8",
            "--arg",
            "buf:zero:128",
            "--policy",
            "all",
        ])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&run.get_output().stdout).into_owned();
    assert!(stdout.contains("adversarial: ok"), "{stdout}");
    let bytes = std::fs::read(out.join("arg0.bin")).unwrap();
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(words, (7..39).collect::<Vec<u32>>());
}

#[test]
fn sim_exits_1_on_a_deadlock_and_2_on_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("k.sass");
    std::fs::write(
        &src,
        "S2R R0, SR_LANEID\nISETP.GE.U32.AND P0, PT, R0, 0x10, PT\nBSSY B0, 0x60\n@P0 BRA 0x50\n\
         WARPSYNC 0xffffffff\nBSYNC B0\nEXIT",
    )
    .unwrap();
    let run = tangle()
        .arg("sim")
        .arg(&src)
        .args(["--arch", "sm_86"])
        .assert()
        .code(1);
    let stdout = String::from_utf8_lossy(&run.get_output().stdout).into_owned();
    assert!(stdout.contains("deadlock"), "{stdout}");
    // A missing argument, an unknown policy, a bad --arg, an unknown barrier model.
    for extra in [
        &["--params", "8"][..],
        &["--policy", "fastest"][..],
        &["--arg", "u16:3"][..],
        &["--barrier-model", "per-thread"][..],
    ] {
        tangle()
            .arg("sim")
            .arg(&src)
            .args(["--arch", "sm_86"])
            .args(extra)
            .assert()
            .code(2);
    }
}

#[test]
fn sim_explores_every_schedule_with_the_exhaustive_policy() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("race.sass");
    // Lanes 0 and 1 store different values to one word on the two sides of a branch.
    std::fs::write(
        &src,
        "S2R R0, SR_LANEID\nLDC.64 R2, c[0x0][0x160]\nISETP.NE.U32.AND P0, PT, R0, RZ, PT\n\
         IADD3 R5, R0, 0x1, RZ\n@P0 BRA 0x70\nSTG.E [R2.64], R5\nEXIT\nSTG.E [R2.64], R5\nEXIT",
    )
    .unwrap();
    let run = tangle()
        .arg("sim")
        .arg(&src)
        .args([
            "--arch",
            "sm_86",
            "--params",
            "8",
            "--arg",
            "buf:zero:4",
            "--block",
            "2",
        ])
        .args(["--policy", "exhaustive"])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&run.get_output().stdout).into_owned();
    assert!(
        stdout.contains("exhaustive: 2 schedules, 2 distinct outcome(s)"),
        "{stdout}"
    );
}

/// `STORE` for SM90 with the control codes a GPU needs (scoreboards on the variable-latency
/// reads, stalls before dependent reads), so it can run on real hardware too.
const STORE_SM90: &str = "[B------:R-:W-:-:S01] ULDC.64 UR4, c[0x0][0x208]
[B------:R-:W0:-:S01] S2R R0, SR_LANEID
[B------:R-:W1:-:S01] LDC.64 R2, c[0x0][0x210]
[B0-----:R-:W-:-:S01] IADD3 R5, R0, 0x7, RZ
[B-1----:R-:W-:-:S05] IMAD.WIDE.U32 R2, R0, 0x4, R2
[B------:R-:W-:-:S01] STG.E desc[UR4][R2.64], R5
[B------:R-:W-:-:S05] EXIT";

#[test]
fn sim_on_the_gpu_takes_cubins_only_and_names_a_missing_driver() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("k.sass");
    std::fs::write(&src, STORE_SM90).unwrap();
    let text = tangle()
        .arg("sim")
        .arg(&src)
        .args([
            "--arch",
            "sm_90",
            "--params",
            "8",
            "--arg",
            "buf:zero:128",
            "--gpu",
        ])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&text.get_output().stderr).into_owned();
    assert!(stderr.contains("cubins only"), "{stderr}");

    // A cubin: on a machine without a CUDA driver (CI) the run is refused with exit 2 and
    // says why; on a GPU machine of another SM likewise; on an SM90 GPU it runs.
    let cubin = dir.path().join("k.cubin");
    tangle()
        .arg("asm")
        .arg(&src)
        .args(["--arch", "sm_90", "--kernel", "store", "--param", "8", "-o"])
        .arg(&cubin)
        .assert()
        .success();
    let run = tangle()
        .arg("sim")
        .arg(&cubin)
        .args([
            "--arg",
            "buf:zero:128",
            "--gpu",
            "--against-sim",
            "--policy",
            "all",
        ])
        .assert();
    let out = run.get_output();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    match out.status.code() {
        Some(2) => assert!(
            stderr.contains("CUDA") || stderr.contains("the GPU"),
            "{stderr}"
        ),
        Some(0) => assert!(stdout.contains("equal the simulator's under"), "{stdout}"),
        other => panic!("exit {other:?}: {stdout}{stderr}"),
    }
}
