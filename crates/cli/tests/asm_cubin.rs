//! `tangle asm --kernel`: hand-written SASS (`tests/data/sass/`) written as a cubin, then run
//! by `tangle sim` from that cubin under every policy, with the expected buffers worked out
//! by hand from the convergence-barrier rules (`../shared/barrier-semantics.md`); the same
//! cubins read by `tangle disasm` and, where the NVIDIA tools are installed, accepted by
//! nvdisasm and cuobjdump.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use tangle_oracle::{require, Tool};

fn tangle() -> Command {
    Command::cargo_bin("tangle").unwrap()
}

fn sass(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/sass")
        .join(name)
}

/// `tangle asm FILE --arch sm_86 --kernel NAME --param 8 -o DIR/NAME.cubin`.
fn assemble(dir: &Path, file: &Path, name: &str) -> PathBuf {
    assemble_for(dir, file, name, "sm_86")
}

/// `tangle asm FILE --arch ARCH --kernel NAME --param 8 -o DIR/NAME-ARCH.cubin`.
fn assemble_for(dir: &Path, file: &Path, name: &str, arch: &str) -> PathBuf {
    let out = dir.join(format!("{name}-{arch}.cubin"));
    tangle()
        .arg("asm")
        .arg(file)
        .args(["--arch", arch, "--kernel", name, "--param", "8", "-o"])
        .arg(&out)
        .assert()
        .success();
    out
}

/// The sm_86 text rewritten for `arch`: SM80 and SM89 read it as it is; SM75 spells the
/// global store `STG.E.SYS [R2+0x4]`; SM90 finds the parameters at 0x210 and stores
/// through the memory descriptor it loads from `c[0x0][0x208]`.
fn for_arch(text: &str, arch: &str) -> String {
    match arch {
        "sm_75" => text.replace("STG.E [R2.64", "STG.E.SYS [R2"),
        "sm_90" => text
            .replace("STG.E [R2.64", "STG.E desc[UR4][R2.64")
            .replace("c[0x0][0x160]", "c[0x0][0x210]")
            .replace(
                "S2R R0, SR_LANEID\n",
                "S2R R0, SR_LANEID\n        ULDC.64 UR4, c[0x0][0x208]\n",
            ),
        _ => text.to_string(),
    }
}

/// Each kernel written for every SM runs from its cubin to the buffers of the sm_86 run.
fn same_on_every_sm(dir: &Path, name: &str, bytes: usize, want: &[u32]) {
    let text = std::fs::read_to_string(sass(&format!("{name}.sass"))).unwrap();
    for arch in ["sm_75", "sm_80", "sm_89", "sm_90"] {
        let file = dir.join(format!("{name}-{arch}.sass"));
        std::fs::write(&file, for_arch(&text, arch)).unwrap();
        let cubin = assemble_for(dir, &file, name, arch);
        assert_eq!(simulate(dir, &cubin, bytes), want, "{arch}");
    }
}

/// Runs the cubin's kernel on one warp under every policy with a zeroed buffer of `bytes`
/// and returns the buffer as 32-bit words.
fn simulate(dir: &Path, cubin: &Path, bytes: usize) -> Vec<u32> {
    let out = dir.join("out");
    let run = tangle()
        .arg("sim")
        .arg(cubin)
        .args(["--arg", &format!("buf:zero:{bytes}"), "--policy", "all"])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&run.get_output().stdout).into_owned();
    assert!(!text.contains("differ"), "{text}");
    let b = std::fs::read(out.join("arg0.bin")).unwrap();
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Lanes whose index satisfies `f`, as a ballot.
fn ballot(f: impl Fn(u32) -> bool) -> u32 {
    (0..32).filter(|&l| f(l)).fold(0, |m, l| m | 1 << l)
}

#[test]
fn divergent_ballots_in_a_bssy_scope_run_from_our_cubin() {
    let dir = tempfile::tempdir().unwrap();
    let cubin = assemble(dir.path(), &sass("diverge_ballot.sass"), "diverge_ballot");
    let got = simulate(dir.path(), &cubin, 256);
    // Inside its branch a lane sees its parity class; after BSYNC B0, the whole warp.
    let mut want = Vec::new();
    for lane in 0..32 {
        want.push(ballot(|l| l % 2 == lane % 2));
        want.push(ballot(|_| true));
    }
    assert_eq!(got, want);
    same_on_every_sm(dir.path(), "diverge_ballot", 256, &want);
}

#[test]
fn a_loop_left_with_break_runs_from_our_cubin() {
    let dir = tempfile::tempdir().unwrap();
    let cubin = assemble(dir.path(), &sass("loop_break.sass"), "loop_break");
    let got = simulate(dir.path(), &cubin, 512);
    let mut want = Vec::new();
    for lane in 0..32u32 {
        let trips = lane & 3;
        // The ballot after the last BSYNC B1 this lane passed: the lanes that ran that
        // iteration (index trips - 1), i.e. those with more than trips - 1 trips.
        let last = if trips == 0 {
            0
        } else {
            ballot(|l| (l & 3) >= trips)
        };
        let evens = if lane % 2 == 0 { trips } else { 0 };
        want.extend([trips, last, ballot(|_| true), evens]);
    }
    assert_eq!(got, want);
    same_on_every_sm(dir.path(), "loop_break", 512, &want);
}

#[test]
fn without_the_break_the_loop_deadlocks() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(sass("loop_break.sass")).unwrap();
    assert!(text.contains("@P0 BREAK B1"));
    let broken = dir.path().join("no_break.sass");
    std::fs::write(&broken, text.replace("@P0 BREAK B1", "NOP")).unwrap();
    let cubin = assemble(dir.path(), &broken, "no_break");
    let run = tangle()
        .arg("sim")
        .arg(&cubin)
        .args(["--arg", "buf:zero:512", "--policy", "all"])
        .assert()
        .code(1);
    let text = String::from_utf8_lossy(&run.get_output().stdout).into_owned();
    assert!(text.contains("deadlock"), "{text}");
    assert!(text.contains("BSYNC B1"), "{text}");
}

#[test]
fn tangle_disasm_and_the_nvidia_tools_read_our_cubins() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["diverge_ballot", "loop_break"] {
        let cubin = assemble(dir.path(), &sass(&format!("{name}.sass")), name);
        let run = tangle().arg("disasm").arg(&cubin).assert().success();
        let text = String::from_utf8_lossy(&run.get_output().stdout).into_owned();
        assert!(text.contains(&format!("{name}:")), "{text}");
        assert!(text.contains("BSYNC B0"), "{text}");
        let test = "tangle_disasm_and_the_nvidia_tools_read_our_cubins";
        if let (Some(nvdisasm), Some(cuobjdump)) = (
            require(Tool::Nvdisasm, test),
            require(Tool::Cuobjdump, test),
        ) {
            let listing = nvdisasm.run_ok(["-c".as_ref(), cubin.as_os_str()]);
            assert!(listing.contains("BSYNC B0"), "{listing}");
            // tangle's listing is nvdisasm's byte for byte, and cuobjdump's with --cuobjdump.
            assert_eq!(text, listing, "{name}: tangle disasm against nvdisasm -c");
            let run = tangle()
                .args(["disasm", "--cuobjdump"])
                .arg(&cubin)
                .assert()
                .success();
            let ours = String::from_utf8_lossy(&run.get_output().stdout).into_owned();
            let theirs = cuobjdump.run_ok(["-sass".as_ref(), cubin.as_os_str()]);
            assert_eq!(
                ours, theirs,
                "{name}: tangle disasm --cuobjdump against cuobjdump -sass"
            );
            let usage = cuobjdump.run_ok(["-res-usage".as_ref(), cubin.as_os_str()]);
            assert!(usage.contains(&format!("Function {name}:")), "{usage}");
        }
    }
}

#[test]
fn bad_cubin_requests_are_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("k.cubin");
    // The code reads its pointer at c[0x0][0x160], but no parameter is declared.
    let run = tangle()
        .arg("asm")
        .arg(sass("diverge_ballot.sass"))
        .args(["--arch", "sm_86", "--kernel", "k", "-o"])
        .arg(&out)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&run.get_output().stderr).into_owned();
    assert!(
        err.contains("0x10") && err.contains("c[0x0][0x160]"),
        "{err}"
    );
    // Kernel properties without a kernel.
    tangle()
        .arg("asm")
        .arg(sass("diverge_ballot.sass"))
        .args(["--arch", "sm_86", "--param", "8", "-o"])
        .arg(&out)
        .assert()
        .code(2);
    // A malformed parameter.
    tangle()
        .arg("asm")
        .arg(sass("diverge_ballot.sass"))
        .args(["--arch", "sm_86", "--kernel", "k", "--param", "8:3", "-o"])
        .arg(&out)
        .assert()
        .code(2);
}
