//! `tangle compile` and `tangle run --engine sass`: SASS text, control annotations, the
//! machine form, cubins; a refused operation and a bad SM are input errors (exit 2); the
//! bundled example agrees with the reference on every SM through the SASS simulator.

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

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stdout.clone()).unwrap()
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stderr.clone()).unwrap()
}

#[test]
fn compile_prints_sass_for_every_sm() {
    for arch in ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90"] {
        let a = tangle()
            .args(["compile", "--arch", arch])
            .arg(repo("examples/loop_break.spvasm"))
            .assert()
            .code(0);
        let out = stdout(&a);
        // The loop's break scope: a barrier set before the loop, synced after it.
        assert!(out.contains("BSSY B0, "), "{arch}: {out}");
        assert!(out.contains("BSYNC B0 ;"), "{arch}: {out}");
        assert!(out.contains("VOTE.ANY R"), "{arch}: {out}");
        // The kernel's cubin as nvdisasm -c prints it.
        assert!(
            out.starts_with(&format!("\t.target\t{arch}\n")),
            "{arch}: {out}"
        );
        // SM75 clears a barrier before BSSY, as ptxas does; the others do not.
        assert_eq!(
            out.contains("BMOV.32.CLEAR RZ, B0"),
            arch == "sm_75",
            "{arch}"
        );
    }
}

#[test]
fn compile_writes_control_codes_the_machine_form_and_cubins() {
    let a = tangle()
        .args(["compile", "--arch", "sm_86", "--emit", "sass-control"])
        .arg(repo("examples/loop_break.spvasm"))
        .assert()
        .code(0);
    assert!(
        stdout(&a).contains("[B------:R-:W0:Y:S01] LDC.64 "),
        "{}",
        stdout(&a)
    );
    let a = tangle()
        .args([
            "compile",
            "--arch",
            "sm_86",
            "--emit",
            "ir",
            "--print-after",
            "regalloc",
        ])
        .arg(repo("examples/loop_break.spvasm"))
        .assert()
        .code(0);
    assert!(stdout(&a).contains(" = phi "), "{}", stdout(&a));
    // After allocation: physical registers, no phis.
    let after = stderr(&a);
    let after = after.split("; after regalloc").nth(1).unwrap_or_default();
    assert!(after.contains("BSSY B0"), "{after}");
    assert!(
        !after.contains(" = phi ") && !after.contains('%'),
        "{after}"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("k.cubin");
    tangle()
        .args(["compile", "--arch", "sm_90", "-o"])
        .arg(&out)
        .arg(repo("examples/loop_break.spvasm"))
        .assert()
        .code(0);
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(&bytes[..4], b"\x7fELF");
    // Our own disassembler reads the cubin back, and `--emit sass` prints the same listing.
    let a = tangle().arg("disasm").arg(&out).assert().code(0);
    assert!(stdout(&a).contains("BSSY B0"), "{}", stdout(&a));
    let e = tangle()
        .args(["compile", "--arch", "sm_90", "--emit", "sass"])
        .arg(repo("examples/loop_break.spvasm"))
        .assert()
        .code(0);
    assert_eq!(stdout(&e), stdout(&a));
    // And nvdisasm prints it byte for byte.
    let test = "compile_writes_control_codes_the_machine_form_and_cubins";
    if let Some(nvdisasm) = tangle_oracle::require(tangle_oracle::Tool::Nvdisasm, test) {
        assert_eq!(
            nvdisasm.run_ok(["-c".as_ref(), out.as_os_str()]),
            stdout(&a)
        );
    }
}

#[test]
fn compile_schedules_by_default_and_keeps_the_conservative_codes_on_request() {
    let text = |sched: &str| {
        let a = tangle()
            .args([
                "compile", "--arch", "sm_86", "--emit", "sass", "--sched", sched,
            ])
            .arg(repo("examples/loop_break.spvasm"))
            .assert()
            .code(0);
        stdout(&a)
    };
    let (list, none) = (text("list"), text("none"));
    // The same instructions, in another order within regions, with other control codes.
    let sorted = |t: &str| {
        let mut v: Vec<String> = t
            .lines()
            .map(|l| {
                let text = l.split_once("*/").map_or(l, |x| x.1).replace(".reuse", "");
                // The line's end (` ;` or `;`) follows the stall and yield bits.
                text.trim().trim_end_matches(';').trim_end().to_string()
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(sorted(&list), sorted(&none));
    assert_ne!(list, none);
    let a = tangle()
        .args(["compile", "--arch", "sm_86", "--sched", "fast"])
        .arg(repo("examples/loop_break.spvasm"))
        .assert()
        .code(2);
    assert!(
        stderr(&a).contains("--sched: no mode `fast`"),
        "{}",
        stderr(&a)
    );
}

#[test]
fn compile_refuses_what_it_does_not_cover_with_the_position() {
    let text = std::fs::read_to_string(repo("examples/loop_break.spvasm")).unwrap();
    // `i + 1` becomes a bit count, outside the selected subset.
    let bad = text.replace(
        "%37 = OpIAdd %uint %36 %int_1",
        "%37 = OpBitCount %uint %36",
    );
    assert_ne!(bad, text);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.spvasm");
    std::fs::write(&path, bad).unwrap();
    let a = tangle()
        .args(["compile", "--arch", "sm_86"])
        .arg(&path)
        .assert()
        .code(2);
    let err = stderr(&a);
    assert!(err.contains("`bit_count` is not supported"), "{err}");
    assert!(err.contains("main b"), "{err}");
    tangle()
        .args(["compile", "--arch", "sm_70"])
        .arg(repo("examples/loop_break.spvasm"))
        .assert()
        .code(2);
}

#[test]
fn run_engine_sass_agrees_on_every_sm_and_policy() {
    let a = tangle()
        .args([
            "run", "-v", "--engine", "sass", "--arch", "all", "--policy", "all",
        ])
        .arg(repo("examples/loop_break.amber"))
        .assert()
        .code(0);
    assert!(
        stdout(&a).contains("sass: 55 simulated runs (SMs x policies) agree with the reference"),
        "{}",
        stdout(&a)
    );
    tangle()
        .args(["run", "--engine", "sass", "--arch", "sm_70"])
        .arg(repo("examples/loop_break.amber"))
        .assert()
        .code(2);
}
