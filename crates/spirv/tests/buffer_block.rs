//! `BufferBlock` storage buffers (SPIR-V 1.0–1.3): read into the struct's `buffer_block`
//! flag, verified by storage-buffer (std430) layout rules, printed and parsed as IR text,
//! written back so that spirv-val accepts the result; refused in a SPIR-V 1.4 module, as
//! spirv-as and spirv-val refuse it.

use tangle_ir::TypeData;
use tangle_oracle::{require, scratch_dir, Tool};
use tangle_spirv::reader::{read_words, ReadErrorKind};
use tangle_spirv::{assemble, AsmOptions, TargetEnv};

/// A Vulkan 1.0 storage buffer of `float[]` (stride 4: std430; std140 would need 16) that
/// the shader doubles in place.
const SHADER: &str = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %gid
OpExecutionMode %main LocalSize 4 1 1
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %arr ArrayStride 4
OpMemberDecorate %Data 0 Offset 0
OpDecorate %Data BufferBlock
OpDecorate %data DescriptorSet 0
OpDecorate %data Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%uint = OpTypeInt 32 0
%int = OpTypeInt 32 1
%v3uint = OpTypeVector %uint 3
%pin = OpTypePointer Input %v3uint
%gid = OpVariable %pin Input
%arr = OpTypeRuntimeArray %float
%Data = OpTypeStruct %arr
%pData = OpTypePointer Uniform %Data
%pfloat = OpTypePointer Uniform %float
%data = OpVariable %pData Uniform
%int_0 = OpConstant %int 0
%two = OpConstant %float 2
%main = OpFunction %void None %fn
%entry = OpLabel
%id = OpLoad %v3uint %gid
%x = OpCompositeExtract %uint %id 0
%p = OpAccessChain %pfloat %data %int_0 %x
%v = OpLoad %float %p
%d = OpFMul %float %v %two
OpStore %p %d
OpReturn
OpFunctionEnd
";

fn words(env: TargetEnv, text: &str) -> Vec<u32> {
    assemble(text, AsmOptions::for_env(env)).unwrap()
}

#[test]
fn buffer_blocks_read_verify_print_and_write_back() {
    let module = read_words(&words(TargetEnv::Universal(0), SHADER)).unwrap();
    let flagged: Vec<_> = module
        .types
        .iter()
        .filter(|(_, t)| {
            matches!(
                t,
                TypeData::Struct {
                    buffer_block: true,
                    block: false,
                    ..
                }
            )
        })
        .collect();
    assert_eq!(flagged.len(), 1);
    tangle_ir::verify::verify(&module).unwrap();
    // The IR text keeps the flag.
    let text = tangle_ir::text::print(&module);
    assert!(text.contains("[buffer_block]"), "{text}");
    let reparsed = tangle_ir::text::parse(&text).unwrap();
    assert_eq!(tangle_ir::text::print(&reparsed), text);
    // Written back, it is the same kind of module, and spirv-val accepts it.
    let out = tangle_spirv::writer::write(&module).expect("writable");
    let again = read_words(&out).unwrap();
    assert_eq!(tangle_ir::text::print(&again), text);
    if let Some(val) = require(
        Tool::SpirvVal,
        "buffer_blocks_read_verify_print_and_write_back",
    ) {
        let dir = scratch_dir();
        let path = dir.path().join("bb.spv");
        let bytes: Vec<u8> = out.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        val.run_ok([
            "--target-env".as_ref(),
            "vulkan1.0".as_ref(),
            path.as_os_str(),
        ]);
    }
}

#[test]
fn a_buffer_block_is_not_a_block_elsewhere() {
    // Behind a StorageBuffer variable (SPIR-V 1.3), BufferBlock is not a Block.
    let text = SHADER
        .replace(
            "%pData = OpTypePointer Uniform",
            "%pData = OpTypePointer StorageBuffer",
        )
        .replace(
            "%pfloat = OpTypePointer Uniform",
            "%pfloat = OpTypePointer StorageBuffer",
        )
        .replace(
            "%data = OpVariable %pData Uniform",
            "%data = OpVariable %pData StorageBuffer",
        );
    let module = read_words(&words(TargetEnv::Universal(3), &text)).unwrap();
    let errors = tangle_ir::verify::verify(&module).unwrap_err();
    let all = errors
        .0
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        all.contains("a StorageBuffer variable must point to a Block struct"),
        "{all}"
    );
    // std140 does not apply: a uniform block with the same float[] would need stride 16.
    let uniform = SHADER.replace("OpDecorate %Data BufferBlock", "OpDecorate %Data Block");
    let module = read_words(&words(TargetEnv::Universal(0), &uniform)).unwrap();
    let all = tangle_ir::verify::verify(&module)
        .unwrap_err()
        .0
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(all.contains("uniform buffer layout rules"), "{all}");
}

#[test]
fn buffer_block_in_spirv_1_4_is_refused() {
    let mut w = words(TargetEnv::Universal(3), SHADER);
    w[1] = 0x0001_0400;
    let err = read_words(&w).unwrap_err();
    assert!(matches!(err.kind, ReadErrorKind::Malformed(_)), "{err}");
    assert!(
        err.to_string()
            .contains("BufferBlock requires SPIR-V 1.3 or earlier"),
        "{err}"
    );
    assert!(err.pos.is_some());
}

/// glslang `-g` puts an `OpLine` before each `OpFunction`, after the previous function's
/// end; spirv-val accepts that, and so does the reader.
#[test]
fn op_line_between_functions_is_read() {
    let text = SHADER.replace(
        "%main = OpFunction",
        "%file = OpString \"x.comp\"\nOpLine %file 3 0\n%main = OpFunction",
    );
    // OpString belongs with the debug section: move it there.
    let text = text.replace("%file = OpString \"x.comp\"\n", "").replace(
        "OpExecutionMode %main LocalSize 4 1 1\n",
        "OpExecutionMode %main LocalSize 4 1 1\n%file = OpString \"x.comp\"\n",
    );
    let two_functions = text.replace(
        "OpReturn\nOpFunctionEnd\n",
        "OpReturn\nOpFunctionEnd\nOpLine %file 9 0\n%other = OpFunction %void None %fn\n%e2 = OpLabel\nOpReturn\nOpFunctionEnd\n",
    );
    let module = read_words(&words(TargetEnv::Universal(0), &two_functions)).unwrap();
    assert_eq!(module.funcs.len(), 2);
}
