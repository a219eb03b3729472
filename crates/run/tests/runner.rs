//! The AmberScript runner's commands and the emulated device, on a SPIR-V assembly shader
//! (`data/affine.spvasm`: `out[x] = in[x] * K + pc.add`, `K` = SpecId 0 (default 3), and an
//! atomic counter), so that these tests need no external tool.

use tangle_amber::FailureKind;
mod common;
use common::failures;
use tangle_run::{run_script, Event, Report, ScriptError, ScriptErrorKind, ScriptOptions};

const AFFINE: &str = include_str!("data/affine.spvasm");

/// A script with the affine shader, buffers `in` (1, 2, ... 8), `out` (8 zeros), `counter`
/// and `pc` (10), and `pipeline` text inserted before `commands`.
fn script(pipelines: &str, commands: &str) -> String {
    format!(
        "#!amber\nDEVICE_FEATURE SubgroupSizeControl.subgroupSizeControl\n\
         DEVICE_FEATURE SubgroupSizeControl.computeFullSubgroups\n\
         SHADER compute affine SPIRV-ASM TARGET_ENV spv1.3\n{AFFINE}END\n\
         BUFFER in DATA_TYPE uint32 SIZE 8 SERIES_FROM 1 INC_BY 1\n\
         BUFFER out DATA_TYPE uint32 SIZE 8 FILL 0\n\
         BUFFER saved DATA_TYPE uint32 SIZE 8 FILL 0\n\
         BUFFER counter DATA_TYPE uint32 SIZE 1 FILL 0\n\
         BUFFER pc DATA_TYPE uint32 DATA 10 END\n\
         {pipelines}\n{commands}\n"
    )
}

fn pipeline(name: &str, extra: &str) -> String {
    format!(
        "PIPELINE compute {name}\n  ATTACH affine{extra}\n\
         BIND BUFFER in AS storage DESCRIPTOR_SET 0 BINDING 0\n\
         BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 1\n\
         BIND BUFFER counter AS storage DESCRIPTOR_SET 0 BINDING 2\n\
         BIND BUFFER pc AS push_constant\nEND\n"
    )
}

fn run(text: &str) -> Result<Report, ScriptError> {
    run_with(text, ScriptOptions::default())
}

fn run_with(text: &str, options: ScriptOptions) -> Result<Report, ScriptError> {
    let parsed = tangle_amber::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    run_script(&parsed, &options)
}

fn subgroup_sizes(report: &Report) -> Vec<u32> {
    report
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Ran { subgroup_size, .. } => Some(*subgroup_size),
            _ => None,
        })
        .collect()
}

#[test]
fn buffers_persist_across_runs_with_push_constants_specialization_copy_and_repeat() {
    let text = script(
        &(pipeline("seven", "\n  ATTACH affine SPECIALIZE 0 AS uint32 7").replacen(
            "  ATTACH affine\n",
            "",
            1,
        ) + &pipeline("plain", "")),
        // in * 7 + 10 = 17, 24, ..., 66; three runs of 8 invocations count 24.
        "REPEAT 3\n  RUN seven 2 1 1\nEND\n\
         EXPECT out IDX 0 EQ 17 24 31 38 45 52 59 66\n\
         EXPECT counter IDX 0 EQ 24\n\
         COPY out TO saved\n\
         RUN plain 2 1 1\n\
         EXPECT out IDX 0 EQ 13 16 19 22 25 28 31 34\n\
         EXPECT saved IDX 0 EQ 17 24 31 38 45 52 59 66\n\
         EXPECT counter IDX 0 EQ 32\n\
         EXPECT saved EQ_BUFFER saved\n",
    );
    let report = run(&text).unwrap();
    assert!(report.passed(), "{}", failures(&report).join("\n"));
    assert_eq!(report.counts(), (4, 6, 0));
}

#[test]
fn a_failing_expect_names_the_first_mismatch_and_the_script_goes_on() {
    let text = script(
        &pipeline("p", ""),
        "RUN p 2 1 1\n\
         EXPECT out IDX 4 EQ 16 99 22\n\
         EXPECT out IDX 0 EQ 13\n",
    );
    let report = run(&text).unwrap();
    assert!(!report.passed());
    assert_eq!(report.counts(), (1, 1, 1));
    let failure = report
        .events
        .iter()
        .find_map(|e| match e {
            Event::Failed(f) => Some(f.clone()),
            _ => None,
        })
        .unwrap();
    // in[2] * 3 + 10 = 19 at byte 8, where 99 was expected.
    let line = text.lines().position(|l| l.contains("IDX 4")).unwrap() + 1;
    assert_eq!(failure.line, line as u32);
    match failure.kind {
        FailureKind::Mismatch {
            value_index,
            element_index,
            byte_offset,
            expected,
            actual,
            ..
        } => {
            assert_eq!((value_index, element_index, byte_offset), (1, 2, 8));
            assert_eq!((expected.as_str(), actual.as_str()), ("99", "19"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn spirv_hex_shaders_run() {
    let words = tangle_spirv::assemble(
        AFFINE,
        tangle_spirv::AsmOptions::for_env(tangle_spirv::TargetEnv::Universal(3)),
    )
    .unwrap();
    let hex: String = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .map(|b| format!("{b:02x} "))
        .collect();
    let text = script(&pipeline("p", ""), "RUN p 2 1 1\nEXPECT out IDX 28 EQ 34\n").replace(
        &format!("SHADER compute affine SPIRV-ASM TARGET_ENV spv1.3\n{AFFINE}END"),
        &format!("SHADER compute affine SPIRV-HEX\n{hex}\nEND"),
    );
    let report = run(&text).unwrap();
    assert!(report.passed(), "{}", failures(&report).join("\n"));
    let bad = text.replacen("SPIRV-HEX\n", "SPIRV-HEX\n1ff ", 1);
    let err = run(&bad).unwrap_err();
    assert!(matches!(*err.kind, ScriptErrorKind::Shader { .. }), "{err}");
    assert_eq!(err.exit_code(), 2);
}

#[test]
fn the_device_picks_and_checks_subgroup_sizes() {
    let with = |control: &str| {
        script(
            &pipeline("p", &format!("\n  SUBGROUP affine\n{control}\n  END")),
            "RUN p 1 1 1\n",
        )
    };
    let size = |control: &str| subgroup_sizes(&run(&with(control)).unwrap());
    assert_eq!(size("    REQUIRED_SIZE 4"), [4]);
    assert_eq!(size("    REQUIRED_SIZE 4\n    FULLY_POPULATED on"), [4]);
    assert_eq!(size("    REQUIRED_SIZE MIN"), [32]);
    assert_eq!(size("    REQUIRED_SIZE 1"), [1]);
    // MIN and MAX are the reported range: NVIDIA's 32 only.
    assert_eq!(size("    REQUIRED_SIZE MAX"), [32]);
    assert_eq!(size("    REQUIRED_SIZE 128"), [128]);
    assert_eq!(size("    MIN_SIZE 64\n    MAX_SIZE 128"), [64]);
    assert_eq!(size("    MIN_SIZE 2\n    MAX_SIZE 8"), [8]);
    assert_eq!(size("    VARYING_SIZE on"), [32]);
    // The workgroup has 4 lanes: full subgroups of 8 cannot be made.
    let err = run(&with("    REQUIRED_SIZE 8\n    FULLY_POPULATED on")).unwrap_err();
    assert!(err.to_string().contains("FULLY_POPULATED"), "{err}");
    // Without a required size, x must be a multiple of subgroupSize (VUID-02759) or, when
    // the size may vary, of maxSubgroupSize (VUID-02758): both 32 on this device.
    let err = run(&with("    FULLY_POPULATED on")).unwrap_err();
    assert!(err.to_string().contains("subgroupSize (32)"), "{err}");
    let err = run(&with("    FULLY_POPULATED on\n    VARYING_SIZE on")).unwrap_err();
    assert!(
        err.to_string()
            .contains("maxSubgroupSize (the size may vary) (32)"),
        "{err}"
    );
    assert_eq!(size("    FULLY_POPULATED on\n    MAX_SIZE 4"), [4]);
    // The script's default comes from the device.
    let device = tangle_run::Device::with_default_subgroup_size(8).unwrap();
    let report = run_with(
        &script(&pipeline("p", ""), "RUN p 1 1 1\n"),
        ScriptOptions {
            device,
            ..ScriptOptions::default()
        },
    )
    .unwrap();
    assert_eq!(subgroup_sizes(&report), [8]);
    // A device of subgroup size 4 fills the 4-wide workgroup: FULLY_POPULATED holds.
    let device = tangle_run::Device::with_default_subgroup_size(4).unwrap();
    let report = run_with(
        &with("    FULLY_POPULATED on"),
        ScriptOptions {
            device,
            ..ScriptOptions::default()
        },
    )
    .unwrap();
    assert_eq!(subgroup_sizes(&report), [4]);
    assert!(tangle_run::Device::with_default_subgroup_size(3).is_err());
    assert!(tangle_run::Device::with_default_subgroup_size(256).is_err());
}

#[test]
fn dispatch_limits_are_the_devices() {
    let text = script(&pipeline("p", ""), "RUN p 2147483648 1 1\n");
    // The parser or the device refuses it; either way it never runs.
    match tangle_amber::parse(&text) {
        Err(_) => {}
        Ok(parsed) => {
            let err = run_script(&parsed, &ScriptOptions::default()).unwrap_err();
            assert!(
                err.to_string().contains("maxComputeWorkGroupCount"),
                "{err}"
            );
        }
    }
    let err = run(&script(&pipeline("p", ""), "RUN p 1 65536 1\n")).unwrap_err();
    assert!(
        err.to_string().contains("maxComputeWorkGroupCount[1]"),
        "{err}"
    );
}

#[test]
fn bindings_must_fit_the_shader() {
    let wrong_kind = script(&pipeline("p", ""), "RUN p 1 1 1\n")
        .replace("BIND BUFFER in AS storage", "BIND BUFFER in AS uniform");
    let err = run(&wrong_kind).unwrap_err();
    assert!(err.to_string().contains("bound as uniform"), "{err}");
    let missing = script(&pipeline("p", ""), "RUN p 1 1 1\n").replace(
        "BIND BUFFER counter AS storage DESCRIPTOR_SET 0 BINDING 2\n",
        "",
    );
    let err = run(&missing).unwrap_err();
    assert!(err.to_string().contains("set 0 binding 2"), "{err}");
    let no_pc = script(&pipeline("p", ""), "RUN p 1 1 1\n")
        .replace("BIND BUFFER pc AS push_constant\n", "");
    let err = run(&no_pc).unwrap_err();
    assert!(err.to_string().contains("push constants"), "{err}");
    let aliased = script(&pipeline("p", ""), "RUN p 1 1 1\n").replace(
        "BIND BUFFER counter AS storage",
        "BIND BUFFER out AS storage",
    );
    // One buffer at two bindings is no longer refused: both view one memory
    // (`tests/descriptors.rs` checks what that means).
    if let Err(e) = run(&aliased) {
        panic!("one buffer at two bindings runs: {e}");
    }
}

#[test]
fn a_run_that_fails_ends_the_script() {
    let text = script(&pipeline("p", ""), "RUN p 1 1 1\nEXPECT out IDX 0 EQ 13\n");
    let mut options = ScriptOptions::default();
    options.engine.step_budget = 3;
    let report = run_with(&text, options).unwrap();
    assert!(!report.passed());
    assert_eq!(report.events.len(), 1, "{:?}", report.events);
    assert!(
        failures(&report)[0].contains("step budget"),
        "{:?}",
        failures(&report)
    );
    // Too small a buffer: out of bounds, reported, not a panic.
    let small = text.replace(
        "BUFFER out DATA_TYPE uint32 SIZE 8 FILL 0",
        "BUFFER out DATA_TYPE uint32 SIZE 2 FILL 0",
    );
    let report = run(&small).unwrap();
    let fails = failures(&report);
    assert!(
        fails[0].contains("out-of-bounds")
            && fails[0].contains("of the buffer at set 0 binding 1 (8 bytes)"),
        "{fails:?}"
    );
}

#[test]
fn an_invalid_module_is_refused_with_status_1() {
    let invalid = include_str!("../../spirv/tests/invalid/mr_two_predecessors.spvasm");
    let text = format!(
        "#!amber\nSHADER compute bad SPIRV-ASM TARGET_ENV spv1.3\n{invalid}END\n\
         PIPELINE compute p\n  ATTACH bad\nEND\nRUN p 1 1 1\n"
    );
    let err = run(&text).unwrap_err();
    assert!(
        matches!(*err.kind, ScriptErrorKind::InvalidModule { .. }),
        "{err}"
    );
    assert_eq!(err.exit_code(), 1);
}

#[test]
fn float_results_with_a_uniform_buffer_vectors_and_tolerance() {
    let shader = include_str!("data/float.spvasm");
    // |(3,4)| = 5, |(6,8)| = 10, |(5,12)| = 13, |(8,15)| = 17, all exact in float;
    // times scale 1, 2, 3, 4 plus bias 0.5: 5.5, 20.5, 39.5, 68.5.
    // sin(0..3) = 0, 0.841471, 0.909297, 0.141120 (to 6 places).
    let text = format!(
        "#!amber\nSHADER compute s SPIRV-ASM TARGET_ENV spv1.3\n{shader}END\n\
         BUFFER params DATA_TYPE float DATA 1 2 3 4 0.5 END\n\
         BUFFER in DATA_TYPE vec2<float> DATA 3 4 6 8 5 12 8 15 END\n\
         BUFFER out DATA_TYPE float SIZE 4 FILL 0\n\
         BUFFER wave DATA_TYPE float SIZE 4 FILL 0\n\
         PIPELINE compute p\n  ATTACH s\n\
         BIND BUFFER params AS uniform DESCRIPTOR_SET 0 BINDING 0\n\
         BIND BUFFER in AS storage DESCRIPTOR_SET 0 BINDING 1\n\
         BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 2\n\
         BIND BUFFER wave AS storage DESCRIPTOR_SET 0 BINDING 3\nEND\n\
         RUN p 1 1 1\n\
         EXPECT out IDX 0 EQ 5.5 20.5 39.5 68.5\n\
         EXPECT wave IDX 0 TOLERANCE 0.000001 EQ 0 0.841471 0.909297 0.141120\n\
         EXPECT wave IDX 4 TOLERANCE 0.0001% EQ 0.841471\n\
         EXPECT wave IDX 8 TOLERANCE 0.0000001 EQ 0.909\n"
    );
    let report = run(&text).unwrap();
    let fails = failures(&report);
    // The last check's tolerance is too tight for 0.909: it must fail, and only it.
    assert_eq!(fails.len(), 1, "{fails:?}");
    assert!(fails[0].contains("0.909"), "{fails:?}");
    assert_eq!(report.counts(), (1, 3, 1));
}
