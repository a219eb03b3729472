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
fn asm_then_disasm_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("k.sass");
    let bin = dir.path().join("k.bin");
    let text = "\
/*0000*/ [B------:R-:W0:Y:S01] S2R R0, SR_TID.X ;
/*0010*/ [B0-----:R-:W-:-:S13] ISETP.GE.AND P0, PT, R0, 0x20, PT ;
/*0020*/ [B------:R-:W-:Y:S05] @P0 EXIT ;
/*0030*/ [B------:R-:W-:Y:S01] BSSY B0, 0x60 ;
/*0040*/ [B------:R-:W-:Y:S05] BRA 0x50 ;
/*0050*/ [B------:R-:W-:Y:S05] BSYNC B0 ;
/*0060*/ [B------:R-:W-:Y:S05] EXIT ;
";
    std::fs::write(&src, text).unwrap();
    tangle()
        .args([
            "asm",
            src.to_str().unwrap(),
            "--arch",
            "sm_90",
            "-o",
            bin.to_str().unwrap(),
        ])
        .assert()
        .success();
    assert_eq!(std::fs::read(&bin).unwrap().len(), 7 * 16);
    let out = tangle()
        .args([
            "disasm",
            bin.to_str().unwrap(),
            "--arch",
            "sm_90",
            "--control",
        ])
        .assert()
        .success();
    let printed = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(printed, text);
}

/// nvdisasm's cubin syntax (labels defined by `name:` lines, targets written `` `(label) ``)
/// assembles to the same words as the raw-word syntax with absolute targets.
#[test]
fn asm_reads_labels() {
    let dir = tempfile::tempdir().unwrap();
    let asm = |name: &str, text: &str| {
        let src = dir.path().join(format!("{name}.sass"));
        let bin = dir.path().join(format!("{name}.bin"));
        std::fs::write(&src, text).unwrap();
        tangle()
            .args([
                "asm",
                src.to_str().unwrap(),
                "--arch",
                "sm_86",
                "-o",
                bin.to_str().unwrap(),
            ])
            .assert()
            .success();
        std::fs::read(&bin).unwrap()
    };
    let labelled = asm(
        "labels",
        "\
\t.section\t.text.k,\"ax\",@progbits
        .type           k,@function
k:
.text.k:
        /*0000*/                   BSSY B0, `(.L_x_1) ;
        /*0010*/               @P0 BRA `(.L_x_0) ;
.L_x_0:
        /*0020*/                   BSYNC B0 ;
.L_x_1:
        /*0030*/                   EXIT ;
.L_x_2:
        /*0040*/                   BRA `(.L_x_2);
",
    );
    let absolute = asm(
        "absolute",
        "BSSY B0, 0x30 ;\n@P0 BRA 0x20 ;\nBSYNC B0 ;\nEXIT ;\nBRA 0x40 ;\n",
    );
    assert_eq!(labelled, absolute);
    let src = dir.path().join("bad.sass");
    std::fs::write(&src, "BRA `(.L_x_9) ;\n").unwrap();
    let out = tangle()
        .args(["asm", src.to_str().unwrap(), "--arch", "sm_86", "-o"])
        .arg(dir.path().join("bad.bin"))
        .assert()
        .code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("unknown label `.L_x_9`"), "{err}");
}

#[test]
fn disasm_of_raw_words_needs_an_arch() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("k.bin");
    std::fs::write(&bin, [0u8; 16]).unwrap();
    let out = tangle()
        .args(["disasm", bin.to_str().unwrap()])
        .assert()
        .code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("--arch"), "{err}");
}

#[test]
fn unknown_forms_are_named_not_guessed() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("k.bin");
    // Opcode bits 0xfff are no form of ours.
    let mut word = [0u8; 16];
    word[0] = 0xff;
    word[1] = 0x7f;
    std::fs::write(&bin, word).unwrap();
    let out = tangle()
        .args(["disasm", bin.to_str().unwrap(), "--arch", "sm_75"])
        .assert()
        .code(1);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("opcode bits 0xfff"), "{text}");
    let src = dir.path().join("k.sass");
    std::fs::write(&src, "FROB R1, R2 ;\n").unwrap();
    let out = tangle()
        .args([
            "asm",
            src.to_str().unwrap(),
            "--arch",
            "sm_75",
            "-o",
            bin.to_str().unwrap(),
        ])
        .assert()
        .code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("FROB"), "{err}");
}

fn example(name: &str) -> String {
    format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The README's first command: the bundled example validates, lowers to barrier operations,
/// and its AmberScript test passes on the interpreter and, lowered, on the barrier machine
/// under all 12 policies; it prints as IR that asks for maximal reconvergence and votes
/// after the loop.
#[test]
fn readme_main_job_on_the_bundled_example() {
    // The README's first command is exactly the one tested here.
    let readme = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"),
    )
    .unwrap();
    assert!(readme.contains(
        "\ncargo run -q -p tangle-cli -- validate examples/loop_break.spvasm && \
         cargo run -q -p tangle-cli -- compile examples/loop_break.spvasm --arch sm_86 && \
         cargo run -q -p tangle-cli -- run -v examples/loop_break.amber --engine sass --arch all --policy all\n"
    ));
    let path = example("loop_break.spvasm");
    tangle().args(["validate", &path]).assert().success();
    let out = tangle()
        .args(["compile", &path, "--arch", "sm_86"])
        .assert()
        .success();
    let sass = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    // The cubin as nvdisasm -c prints it.
    assert!(sass.starts_with("\t.target\tsm_86\n"), "{sass}");
    assert!(
        sass.contains("        /*0000*/                   "),
        "{sass}"
    );
    assert!(
        sass.contains("BSSY B0") && sass.contains("BSYNC B0") && sass.contains("VOTE.ANY"),
        "{sass}"
    );
    let out = tangle()
        .args([
            "run",
            "-v",
            &example("loop_break.amber"),
            "--engine",
            "sass",
            "--arch",
            "all",
            "--policy",
            "all",
        ])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("PASS (1 RUN, 1 EXPECT)"), "{text}");
    assert!(
        text.contains("55 simulated runs (SMs x policies) agree with the reference, no hazard"),
        "{text}"
    );
    let out = tangle().args(["ir", &path]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("[local_size 32 1 1, maximally_reconverges]"),
        "{text}"
    );
    assert!(text.contains("group_ballot[subgroup] u32x4"), "{text}");
    assert!(text.contains("loop_merge"), "{text}");
    // The IR it prints reads back and validates too.
    tangle()
        .args(["validate", "--kind", "ir", "-"])
        .write_stdin(text)
        .assert()
        .success();
}

#[test]
fn validate_reports_broken_rules_with_exit_1() {
    let text = std::fs::read_to_string(example("loop_break.spvasm"))
        .unwrap()
        .replace("OpLoopMerge %48 %47 None", "OpSelectionMerge %48 None");
    assert!(text.contains("OpSelectionMerge %48 None"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.spvasm");
    std::fs::write(&path, &text).unwrap();
    let out = tangle()
        .args(["validate", path.to_str().unwrap()])
        .assert()
        .code(1);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("[structure]"), "{err}");
}

#[test]
fn unreadable_input_is_exit_2_with_a_position() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.spv");
    std::fs::write(&path, [0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0]).unwrap();
    let out = tangle()
        .args(["validate", path.to_str().unwrap()])
        .assert()
        .code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("word 0"), "{err}");
    let out = tangle()
        .args(["ir", "--kind", "spvasm", "-"])
        .write_stdin("OpCapability Shader\n  OpBogus %1\n")
        .assert()
        .code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("-:2:3"), "{err}");
}
