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
        .args(["--semantics", "no-continue-reconvergence", "--jobs", "2"])
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
        .args(["fuzz", "--engines", "ref,gpu"])
        .assert()
        .code(2);
    tangle().args(["fuzz", "--engines", "ref"]).assert().code(2);
    tangle().args(["fuzz", "--shard", "3/3"]).assert().code(2);
    tangle().args(["fuzz", "--shard", "x"]).assert().code(2);
}

#[test]
fn shards_run_as_separate_processes_and_merge() {
    let dir = tempfile::tempdir().unwrap();
    let mut outs = Vec::new();
    for i in 0..3 {
        let out = dir.path().join(format!("shard{i}"));
        let done = tangle()
            .args(["fuzz", "--seeds", "0..31", "--subgroup-sizes", "4,32"])
            .args(["--shard", &format!("{i}/3"), "--out"])
            .arg(&out)
            .assert()
            .success();
        let text = String::from_utf8(done.get_output().stdout.clone()).unwrap();
        // Seeds 0..31 split by residue mod 3: 11, 10, 10.
        let expect = if i == 0 { 11 } else { 10 };
        assert!(
            text.starts_with(&format!("{expect} programs, 0 mismatches")),
            "{text}"
        );
        outs.push(out);
    }
    let merged = tangle()
        .args(["fuzz", "merge"])
        .args(&outs)
        .assert()
        .success();
    let text = String::from_utf8(merged.get_output().stdout.clone()).unwrap();
    assert!(text.starts_with("31 programs, 0 mismatches, "), "{text}");
    assert!(text.trim_end().ends_with("(3 shards)"), "{text}");
    // A campaign over another seed range merges with these.
    let more = dir.path().join("more");
    tangle()
        .args([
            "fuzz",
            "--seeds",
            "31..36",
            "--subgroup-sizes",
            "4",
            "--out",
        ])
        .arg(&more)
        .assert()
        .success();
    let merged = tangle()
        .args(["fuzz", "merge"])
        .args(&outs)
        .arg(&more)
        .assert()
        .success();
    let text = String::from_utf8(merged.get_output().stdout.clone()).unwrap();
    assert!(text.starts_with("36 programs, 0 mismatches, "), "{text}");
    // The same shard twice is refused; so is a file that is not a report.
    tangle()
        .args(["fuzz", "merge"])
        .args([&outs[0], &outs[0]])
        .assert()
        .code(2);
    let bogus = dir.path().join("bogus.json");
    std::fs::write(&bogus, "{\"x\": 1}").unwrap();
    tangle()
        .args(["fuzz", "merge"])
        .arg(&bogus)
        .assert()
        .code(2);
}

#[test]
fn merged_mismatches_fail_the_merge() {
    let dir = tempfile::tempdir().unwrap();
    let mut outs = Vec::new();
    for i in 0..2 {
        let out = dir.path().join(format!("shard{i}"));
        let code = tangle()
            .args([
                "fuzz",
                "--seeds",
                "0..200",
                "--subgroup-sizes",
                "4,32",
                "--jobs",
                "2",
            ])
            .args(["--semantics", "no-continue-reconvergence"])
            .args(["--shard", &format!("{i}/2"), "--out"])
            .arg(&out)
            .assert()
            .get_output()
            .status
            .code();
        // A shard exits 1 when it caught the variant, 0 when its seeds did not show it.
        assert!(matches!(code, Some(0 | 1)), "shard {i}: {code:?}");
        outs.push(out);
    }
    let merged = tangle()
        .args(["fuzz", "merge"])
        .args(&outs)
        .assert()
        .code(1);
    let err = String::from_utf8(merged.get_output().stderr.clone()).unwrap();
    assert!(err.contains("mismatch: seed "), "{err}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(outs[0].join("report.json")).unwrap())
            .unwrap();
    assert_eq!(report["shard"], serde_json::json!([0, 2]));
    assert_eq!(report["programs"], 100);
    // Every mismatch comes with a shrunk reproducer whose IR the parser reads back.
    let mut reproducers = 0;
    for out in &outs {
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap())
                .unwrap();
        for m in report["mismatches"].as_array().unwrap() {
            let stem = out.join(format!("seed-{}", m["seed"]));
            let tir = std::fs::read_to_string(stem.with_extension("tir")).unwrap();
            tangle_ir::text::parse(&tir).unwrap();
            let txt = std::fs::read_to_string(stem.with_extension("txt")).unwrap();
            assert!(txt.contains("shrunk (subgroup size"), "{txt}");
            assert!(stem.with_extension("spv").exists());
            assert!(stem.with_extension("comp").exists());
            // The assembly is the binary's text: it assembles back to the same instructions.
            let spv = std::fs::read(stem.with_extension("spv")).unwrap();
            let spvasm = std::fs::read_to_string(stem.with_extension("spvasm")).unwrap();
            let spv: Vec<u32> = spv
                .chunks_exact(4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                .collect();
            let raw = tangle_spirv::dis::DisOptions {
                raw_ids: true,
                ..tangle_spirv::dis::DisOptions::default()
            };
            let raw_text = tangle_spirv::dis::disassemble(&spv, raw).unwrap();
            let options = tangle_spirv::AsmOptions::default();
            assert_eq!(
                tangle_spirv::assemble(&spvasm, options).unwrap(),
                tangle_spirv::assemble(&raw_text, options).unwrap()
            );
            // The reproducer's script passes on the specification's semantics and fails
            // on the variant that was caught.
            if tangle_spirv::glslang::find_glslang().is_ok() {
                let amber = stem.with_extension("amber");
                tangle().arg("run").arg(&amber).assert().success();
                tangle()
                    .args(["run", "--semantics", "no-continue-reconvergence"])
                    .arg(&amber)
                    .assert()
                    .code(1);
            }
            reproducers += 1;
        }
    }
    assert!(reproducers > 0);
}

#[test]
fn generated_amber_scripts_pass_tangle_run_and_a_wrong_expect_fails() {
    use tangle_fuzz::{amber::to_amber, build::build_module, compare::run_reference};
    if let Err(e) = tangle_spirv::glslang::find_glslang() {
        assert!(!tangle_oracle::oracles_mandatory(), "glslang: {e}");
        eprintln!("SKIPPED generated_amber_scripts_pass_tangle_run: {e}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for seed in 0..6u64 {
        let program = tangle_fuzz::generate(seed, tangle_fuzz::GenConfig::default());
        let size = [4, 32, 64][seed as usize % 3];
        let words = tangle_fuzz::mask::simulate(&program, size).words;
        let module = build_module(&program);
        let mut expect =
            run_reference(&module, size, words.len(), tangle_interp::Variant::Maximal).unwrap();
        let path = dir.path().join(format!("seed{seed}.amber"));
        std::fs::write(&path, to_amber(&program, size, &expect)).unwrap();
        tangle().arg("run").arg(&path).assert().success();
        // A changed expectation is caught.
        expect[0] ^= 1;
        std::fs::write(&path, to_amber(&program, size, &expect)).unwrap();
        tangle().arg("run").arg(&path).assert().code(1);
    }
}

#[test]
fn the_lowered_engine_passes_under_every_policy_and_the_baseline_is_caught() {
    let out = tangle()
        .args(["fuzz", "--seeds", "0..12", "--nesting", "1..6"])
        .args(["--subgroup-sizes", "1,4,32,128", "--jobs", "2"])
        .args(["--engines", "ref,lowered", "--policies", "all"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.starts_with("lowered: 12 programs × 12 policies, 0 mismatches, "),
        "summary: {text}"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = tangle()
        .args(["fuzz", "--seeds", "40..60", "--subgroup-sizes", "4"])
        .args([
            "--engines",
            "ref,lowered-baseline",
            "--policies",
            "strict",
            "--out",
        ])
        .arg(dir.path())
        .assert()
        .code(1);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    let seed: u64 = err
        .split("mismatch: lowered-baseline: seed ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("stderr: {err}"));
    let report = std::fs::read_to_string(dir.path().join("lowered-baseline.json")).unwrap();
    assert!(report.contains(&format!("\"seed\": {seed}")), "{report}");
    let repro = dir.path().join(format!("lowered-baseline-seed-{seed}.tir"));
    let repro = std::fs::read_to_string(repro).unwrap();
    assert!(
        repro.contains("; lowered:") && repro.contains("bar_break"),
        "{repro}"
    );
}

#[test]
fn bad_policies_are_usage_errors() {
    tangle()
        .args([
            "fuzz",
            "--engines",
            "ref,lowered",
            "--policies",
            "realistic",
        ])
        .assert()
        .code(2);
    tangle()
        .args(["fuzz", "--engines", "ref,lowered", "--policies", "fair"])
        .assert()
        .code(2);
}

#[test]
fn the_ptxas_engine_refuses_other_subgroup_sizes_and_unknown_sms() {
    let out = tangle()
        .args(["fuzz", "--engines", "ref,ptxas", "--subgroup-sizes", "4"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("32"), "{err}");
    tangle()
        .args(["fuzz", "--engines", "ref,ptxas", "--arch", "sm_70"])
        .assert()
        .code(2);
}

#[test]
fn the_ptxas_engine_runs_through_the_command() {
    if tangle_oracle::require(
        tangle_oracle::Tool::Nvcc,
        "the_ptxas_engine_runs_through_the_command",
    )
    .is_none()
    {
        return;
    }
    let out = tangle()
        .args([
            "fuzz",
            "--seeds",
            "0..3",
            "--engines",
            "ref,ptxas",
            "--arch",
            "sm_80",
            "--subgroup-sizes",
            "32",
            "--policies",
            "round-robin",
        ])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        text.contains("ptxas: 3 programs, 3 runs") && text.contains("0 broken runs, 1 nvcc calls"),
        "{text}"
    );
}

#[test]
fn the_sass_engine_passes_a_small_campaign_with_its_summary() {
    let out = tangle()
        .args(["fuzz", "--engines", "ref,sass", "--seeds", "0..20"])
        .args(["--jobs", "2"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    // 20 programs on sm_86 under the simulator's 11 policies of `all`; the default sizes
    // are 4 and 32, so 20 runs at size 4 are counted as skipped.
    assert!(
        text.starts_with(
            "sass: 20 programs (sm_86) × 11 policies, 220 simulated runs agree, 0 mismatches, \
             20 program runs skipped at subgroup sizes other than 32, "
        ),
        "summary: {text}"
    );
    // Barrier-machine policies are left out visibly, the rest run; seeds rotate SMs.
    let out = tangle()
        .args(["fuzz", "--engines", "ref,sass", "--seeds", "0..5"])
        .args(["--subgroup-sizes", "32", "--arch-per-seed"])
        .args(["--policies", "strict,adversarial"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        text.starts_with("sass: 5 programs (one SM per seed) × 1 policies, 5 simulated runs"),
        "summary: {text}"
    );
    assert!(
        err.contains("does not run strict") && err.contains("run adversarial"),
        "{err}"
    );
    // A simulator policy the barrier machine lacks is fine without a lowered engine.
    let out = tangle()
        .args([
            "fuzz",
            "--engines",
            "ref,sass",
            "--seeds",
            "0..2",
            "--arch",
            "all",
        ])
        .args(["--subgroup-sizes", "32", "--policies", "realistic"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.starts_with(
            "sass: 2 programs (sm_75,sm_80,sm_86,sm_89,sm_90) × 1 policies, 10 simulated runs"
        ),
        "summary: {text}"
    );
}

#[test]
fn the_sass_engines_refuse_bad_arguments() {
    for args in [
        &["--subgroup-sizes", "4"][..],
        &["--arch", "sm_70"],
        &["--arch", "sm_75", "--arch-per-seed"],
        &["--policies", "strict"],
        &["--policies", "exhaustive"],
    ] {
        tangle()
            .args(["fuzz", "--engines", "ref,sass", "--seeds", "0..1"])
            .args(args)
            .assert()
            .code(2);
    }
    tangle()
        .args(["fuzz", "--engines", "ref,mask", "--arch-per-seed"])
        .assert()
        .code(2);
}

#[test]
fn the_sass_baseline_is_caught_through_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let out = tangle()
        .args(["fuzz", "--seeds", "0..40", "--subgroup-sizes", "32"])
        .args([
            "--engines",
            "ref,sass-baseline",
            "--policies",
            "adversarial",
        ])
        .args(["--jobs", "2", "--out"])
        .arg(dir.path())
        .assert()
        .code(1);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    let seed: u64 = err
        .split("mismatch: sass-baseline: seed ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("stderr: {err}"));
    let report = std::fs::read_to_string(dir.path().join("sass-baseline.json")).unwrap();
    assert!(report.contains(&format!("\"seed\": {seed}")), "{report}");
    let txt = dir.path().join(format!("sass-baseline-seed-{seed}.txt"));
    let txt = std::fs::read_to_string(txt).unwrap();
    assert!(txt.contains("shrunk: sm_86, policy adversarial"), "{txt}");
    let listing = dir.path().join(format!("sass-baseline-seed-{seed}.sass"));
    let listing = std::fs::read_to_string(listing).unwrap();
    assert!(
        listing.contains("BSSY") || listing.contains("WARPSYNC"),
        "{listing}"
    );
}

#[test]
fn cost_needs_both_compilers_engines() {
    let out = tangle()
        .args(["fuzz", "--engines", "ref,sass", "--cost", "unused.tsv"])
        .args(["--subgroup-sizes", "32"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("--cost") && err.contains("ptxas"), "{err}");
}

#[test]
fn cost_writes_one_row_per_program_and_sm_and_a_summary() {
    let name = "cost_writes_one_row_per_program_and_sm_and_a_summary";
    if tangle_oracle::require(tangle_oracle::Tool::Nvcc, name).is_none()
        || tangle_oracle::require(tangle_oracle::Tool::Ptxas, name).is_none()
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cost.tsv");
    let out = tangle()
        .args(["fuzz", "--seeds", "0..2", "--engines", "ref,sass,ptxas"])
        .args(["--arch", "sm_80", "--subgroup-sizes", "32"])
        .args(["--policies", "round-robin", "--cost"])
        .arg(&file)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(text.contains("cost: 2 rows (program × SM)"), "{text}");
    assert!(text.contains("tangle/ptxas geomean"), "{text}");
    let tsv = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<&str> = tsv.lines().collect();
    assert_eq!(lines.len(), 3, "{tsv}");
    assert!(
        lines[0].starts_with("seed\tnesting\tarch\ttangle_us"),
        "{tsv}"
    );
    assert!(lines[1].starts_with("0\t4\tsm_80\t"), "{tsv}");
}
