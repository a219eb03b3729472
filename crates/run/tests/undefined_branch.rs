//! A branch on an undefined condition (`docs/run.md`): SPIR-V lets any path be taken, so
//! the runner runs the script again with every such lane taking the true side, then the
//! false side, and passes only when both pass. The shader branches on `OpUndef`; the true
//! side stores 1 into `out[0]` and 10 into `side[0]`, the false side 1 and 20 (so `out` does
//! not depend on the choice, `side` does). Checked on the reference and on the barrier
//! machine under every policy.

use tangle_run::lowered::{LoweredEngine, MachineEngine};
use tangle_run::{run_script, Event, Report, ScriptOptions};
mod common;
use common::failures;

const SHADER: &str = "\
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 4 1 1
OpDecorate %arr ArrayStride 4
OpDecorate %blk Block
OpMemberDecorate %blk 0 Offset 0
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 0
OpDecorate %side DescriptorSet 0
OpDecorate %side Binding 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%c0 = OpConstant %uint 0
%c1 = OpConstant %uint 1
%c4 = OpConstant %uint 4
%c10 = OpConstant %uint 10
%c20 = OpConstant %uint 20
%undef = OpUndef %bool
%arr = OpTypeArray %uint %c4
%blk = OpTypeStruct %arr
%sb_blk = OpTypePointer StorageBuffer %blk
%sb_uint = OpTypePointer StorageBuffer %uint
%out = OpVariable %sb_blk StorageBuffer
%side = OpVariable %sb_blk StorageBuffer
%main = OpFunction %void None %fn
%entry = OpLabel
%po = OpAccessChain %sb_uint %out %c0 %c0
%ps = OpAccessChain %sb_uint %side %c0 %c0
OpSelectionMerge %merge None
OpBranchConditional %undef %yes %no
%yes = OpLabel
OpStore %po %c1
OpStore %ps %c10
OpBranch %merge
%no = OpLabel
OpStore %po %c1
OpStore %ps %c20
OpBranch %merge
%merge = OpLabel
OpReturn
OpFunctionEnd
";

fn script(expects: &str) -> String {
    format!(
        "#!amber\nSHADER compute s SPIRV-ASM TARGET_ENV spv1.3\n{SHADER}END\n\
         BUFFER out DATA_TYPE uint32 SIZE 4 FILL 0\n\
         BUFFER side DATA_TYPE uint32 SIZE 4 FILL 0\n\
         PIPELINE compute p\n  ATTACH s\n\
         \x20 BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 0\n\
         \x20 BIND BUFFER side AS storage DESCRIPTOR_SET 0 BINDING 1\nEND\n\
         RUN p 1 1 1\n{expects}"
    )
}

fn run(text: &str, options: &ScriptOptions) -> Report {
    let parsed = tangle_amber::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    run_script(&parsed, options).unwrap_or_else(|e| panic!("{e}"))
}

fn lowered() -> ScriptOptions {
    let policies = tangle_sched::expand(
        "all",
        "barrier machine",
        &tangle_machine::SUPPORTED_POLICIES,
    )
    .expect("`all` expands");
    ScriptOptions {
        lowered: Some(LoweredEngine {
            engine: MachineEngine::Lowered(tangle_reconverge::Scheme::Scopes),
            policies,
        }),
        ..ScriptOptions::default()
    }
}

fn branch_event(report: &Report) -> (bool, bool) {
    match report.events.first() {
        Some(Event::UndefinedBranch {
            side, other_passed, ..
        }) => (*side, *other_passed),
        other => panic!("the report starts with the undefined branch: {other:?}"),
    }
}

/// `out` is 1 whichever side the lanes take: both runs pass, the true side's is shown.
#[test]
fn a_check_that_holds_on_both_sides_passes() {
    let text = script("EXPECT out IDX 0 EQ 1\n");
    for options in [ScriptOptions::default(), lowered()] {
        let report = run(&text, &options);
        assert!(report.passed(), "{}", failures(&report).join("\n"));
        assert_eq!(branch_event(&report), (true, true));
        assert_eq!(report.buffers["side"][0], 10, "the true side's buffers");
    }
}

/// `side` is 10 only on the true side: the false side's run fails and is the one shown,
/// its failure at the `EXPECT`'s line.
#[test]
fn a_check_that_depends_on_the_side_fails_on_the_other_side() {
    let text = script("EXPECT side IDX 0 EQ 10\n");
    let report = run(&text, &ScriptOptions::default());
    assert!(!report.passed());
    assert_eq!(branch_event(&report), (false, true));
    let expect_line = 1 + text.lines().position(|l| l.starts_with("EXPECT")).unwrap() as u32;
    let failed: Vec<u32> = report
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Failed(f) => Some(f.line),
            _ => None,
        })
        .collect();
    assert_eq!(failed, [expect_line]);
}

/// A caller that chooses the side itself gets that run alone, with no second run.
#[test]
fn a_chosen_side_runs_once() {
    let mut options = ScriptOptions::default();
    options.engine.undefined_branch = Some(false);
    let report = run(&script("EXPECT side IDX 0 EQ 20\n"), &options);
    assert!(report.passed(), "{}", failures(&report).join("\n"));
    assert!(!report
        .events
        .iter()
        .any(|e| matches!(e, Event::UndefinedBranch { .. })));
}
