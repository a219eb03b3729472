//! Explicitly laid out workgroup memory (`WorkgroupMemoryExplicitLayoutKHR`) and
//! `OpCopyMemory`, on a hand-written shader whose expected values are derived by hand: every
//! `Workgroup` variable of a `Block` type aliases the same memory from offset 0, on the
//! reference and on the barrier machine (the lowered engine) under every policy.

use tangle_run::Event;
mod common;
use common::{failures, run, words};

/// Eight invocations write `10 * i` into word `i` of the whole block `%whole` (32 bytes);
/// after a workgroup barrier, invocation 0 copies the block `%high` (whose array starts at
/// byte 16 of the same memory) into `out` with `OpCopyMemory`, and the zero-initialized
/// block `%zero` (bytes 32..48, beyond `%whole`) into `tail`.
const SHADER: &str = "\
OpCapability Shader
OpCapability WorkgroupMemoryExplicitLayoutKHR
OpExtension \"SPV_KHR_workgroup_memory_explicit_layout\"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %index %whole %high %zero %out %tail
OpExecutionMode %main LocalSize 8 1 1
OpDecorate %index BuiltIn LocalInvocationIndex
OpDecorate %arr8 ArrayStride 4
OpDecorate %arr4 ArrayStride 4
OpDecorate %whole_t Block
OpMemberDecorate %whole_t 0 Offset 0
OpDecorate %high_t Block
OpMemberDecorate %high_t 0 Offset 16
OpDecorate %zero_t Block
OpMemberDecorate %zero_t 0 Offset 32
OpDecorate %out_t Block
OpMemberDecorate %out_t 0 Offset 0
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 0
OpDecorate %tail DescriptorSet 0
OpDecorate %tail Binding 1
OpDecorate %whole Aliased
OpDecorate %high Aliased
OpDecorate %zero Aliased
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%c0 = OpConstant %uint 0
%c2 = OpConstant %uint 2
%c4 = OpConstant %uint 4
%c8 = OpConstant %uint 8
%c10 = OpConstant %uint 10
%c264 = OpConstant %uint 264
%arr8 = OpTypeArray %uint %c8
%arr4 = OpTypeArray %uint %c4
%whole_t = OpTypeStruct %arr8
%high_t = OpTypeStruct %arr4
%zero_t = OpTypeStruct %arr4
%out_t = OpTypeStruct %arr4
%in_uint = OpTypePointer Input %uint
%wg_whole = OpTypePointer Workgroup %whole_t
%wg_high = OpTypePointer Workgroup %high_t
%wg_zero = OpTypePointer Workgroup %zero_t
%wg_uint = OpTypePointer Workgroup %uint
%wg_arr4 = OpTypePointer Workgroup %arr4
%sb_out = OpTypePointer StorageBuffer %out_t
%sb_arr4 = OpTypePointer StorageBuffer %arr4
%null_zero = OpConstantNull %zero_t
%index = OpVariable %in_uint Input
%whole = OpVariable %wg_whole Workgroup
%high = OpVariable %wg_high Workgroup
%zero = OpVariable %wg_zero Workgroup %null_zero
%out = OpVariable %sb_out StorageBuffer
%tail = OpVariable %sb_out StorageBuffer
%main = OpFunction %void None %fn
%entry = OpLabel
%i = OpLoad %uint %index
%slot = OpAccessChain %wg_uint %whole %c0 %i
%v = OpIMul %uint %i %c10
OpStore %slot %v
OpControlBarrier %c2 %c2 %c264
%first = OpIEqual %bool %i %c0
OpSelectionMerge %done None
OpBranchConditional %first %copy %done
%copy = OpLabel
%dst = OpAccessChain %sb_arr4 %out %c0
%src = OpAccessChain %wg_arr4 %high %c0
OpCopyMemory %dst %src
%tail_arr = OpAccessChain %sb_arr4 %tail %c0
%zero_arr = OpAccessChain %wg_arr4 %zero %c0
OpCopyMemory %tail_arr %zero_arr Aligned 4
OpBranch %done
%done = OpLabel
OpReturn
OpFunctionEnd
";

fn script(shader: &str) -> String {
    format!(
        "#!amber\nSHADER compute s SPIRV-ASM TARGET_ENV spv1.4\n{shader}END\n\
         BUFFER out DATA_TYPE uint32 SIZE 4 FILL 99\n\
         BUFFER tail DATA_TYPE uint32 SIZE 4 FILL 99\n\
         PIPELINE compute p\n  ATTACH s\n\
         \x20 BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 0\n\
         \x20 BIND BUFFER tail AS storage DESCRIPTOR_SET 0 BINDING 1\nEND\n\
         RUN p 1 1 1\nEXPECT out IDX 0 EQ 40 50 60 70\nEXPECT tail IDX 0 EQ 0 0 0 0\n"
    )
}

#[test]
fn workgroup_blocks_alias_one_memory_and_copy_memory_copies() {
    let report = run(&script(SHADER), false).unwrap();
    assert!(report.passed(), "{}", failures(&report).join("\n"));
    assert_eq!(words(&report, "out"), [40, 50, 60, 70]);
    assert_eq!(words(&report, "tail"), [0, 0, 0, 0]);
}

#[test]
fn the_barrier_machine_shares_the_blocks_too() {
    let report = run(&script(SHADER), true).unwrap();
    assert!(report.passed(), "{}", failures(&report).join("\n"));
    let agreed = report
        .events
        .iter()
        .filter(|e| matches!(e, Event::LoweredAgreed { .. }))
        .count();
    assert_eq!(agreed, 1, "the lowered engine ran the dispatch");
}

/// Without the aliasing, `%high` would be memory of its own that nobody wrote: the copy
/// would leave undefined bytes and the check would fail. Reading the bytes `%whole` left
/// unwritten (words 8.. of a larger block) is undefined, and reported as such.
#[test]
fn bytes_no_block_wrote_are_undefined() {
    let shader = SHADER
        .replace("%c0 %i\n", "%c0 %c0\n")
        .replace("%v = OpIMul %uint %i %c10", "%v = OpIMul %uint %c4 %c10");
    let report = run(&script(&shader), false).unwrap();
    assert!(!report.passed());
    assert!(
        report
            .events
            .iter()
            .any(|e| matches!(e, Event::ReadUndefined { buffer, .. } if buffer == "out")),
        "{:?}",
        report.events
    );
}

/// A copy between pointers to different types is refused, at the `OpCopyMemory`'s
/// instruction (counted here from the assembled words).
#[test]
fn copy_memory_between_different_types_is_refused_at_its_instruction() {
    let shader = SHADER.replace(
        "OpCopyMemory %tail_arr %zero_arr Aligned 4",
        "OpCopyMemory %tail %zero",
    );
    let words = tangle_spirv::assemble(
        &shader,
        tangle_spirv::AsmOptions::for_env(tangle_spirv::TargetEnv::from_name("spv1.4").unwrap()),
    )
    .unwrap();
    // The instruction index and word offset of the second OpCopyMemory (opcode 63).
    let (mut at, mut index, mut found) = (5, 0, Vec::new());
    while at < words.len() {
        if words[at] & 0xffff == 63 {
            found.push((at, index));
        }
        at += (words[at] >> 16) as usize;
        index += 1;
    }
    let (word, index) = found[1];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let err = tangle_spirv::reader::read_binary(&bytes).unwrap_err();
    assert_eq!(
        err.pos,
        Some(tangle_spirv::reader::Position {
            word,
            index: Some(index)
        }),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("OpCopyMemory between different pointee types"),
        "{err}"
    );
    let refused = run(&script(&shader), false).unwrap_err();
    assert_eq!(refused.exit_code(), 2);
    assert!(
        refused.to_string().contains("OpCopyMemory between"),
        "{refused}"
    );
}

/// `VariablePointers`: the copy's target chosen by `OpSelect` between the buffer's array and
/// the null pointer (`OpConstantNull`, the one pointer constant). `good` picks the array for
/// invocation 0; otherwise the copy goes through the null pointer, an out-of-bounds access
/// reported at the `OpCopyMemory`.
fn variable_pointer_shader(good: bool) -> String {
    let (a, b) = if good {
        ("%real", "%null_ptr")
    } else {
        ("%null_ptr", "%real")
    };
    SHADER
        .replace(
            "OpCapability Shader\n",
            "OpCapability Shader\nOpCapability VariablePointers\n",
        )
        .replace(
            "%null_zero = OpConstantNull %zero_t\n",
            "%null_zero = OpConstantNull %zero_t\n%null_ptr = OpConstantNull %sb_arr4\n",
        )
        .replace(
            "%dst = OpAccessChain %sb_arr4 %out %c0\n",
            &format!(
                "%real = OpAccessChain %sb_arr4 %out %c0\n\
                 %dst = OpSelect %sb_arr4 %first {a} {b}\n"
            ),
        )
}

#[test]
fn a_selected_pointer_and_the_null_pointer() {
    let report = run(&script(&variable_pointer_shader(true)), true).unwrap();
    assert!(report.passed(), "{}", failures(&report).join("\n"));
    assert_eq!(words(&report, "out"), [40, 50, 60, 70]);

    let report = run(&script(&variable_pointer_shader(false)), false).unwrap();
    let failed = report.events.iter().find_map(|e| match e {
        Event::RunFailed { error, origin, .. } => Some((error, origin)),
        _ => None,
    });
    let Some((error, Some(origin))) = failed else {
        panic!("the run must fail at an instruction: {:?}", report.events);
    };
    assert!(
        matches!(error, tangle_interp::InterpError::OutOfBounds { .. }),
        "{error}"
    );
    assert_eq!(origin.opcode.to_string(), "OpCopyMemory", "{error}");
}

/// A script that requires `VK_KHR_spirv_1_4` builds its shaders without `TARGET_ENV` for
/// SPIR-V 1.4 (as the CTS does); without the extension they are SPIR-V 1.3, whose entry
/// points may not list the blocks: the shader is invalid.
#[test]
fn vk_khr_spirv_1_4_makes_the_default_spirv_1_4() {
    let plain = script(SHADER).replace(" TARGET_ENV spv1.4", "");
    let with_ext = plain.replace("#!amber\n", "#!amber\nDEVICE_EXTENSION VK_KHR_spirv_1_4\n");
    let report = run(&with_ext, false).unwrap();
    assert!(report.passed(), "{}", failures(&report).join("\n"));
    let invalid = run(&plain, false).unwrap_err();
    assert_eq!(invalid.exit_code(), 1, "{invalid}");
    assert!(
        invalid.to_string().contains("in SPIR-V 1.3 and earlier"),
        "{invalid}"
    );
}
