//! Matrices (`docs/run.md`, `docs/interp.md`): types, explicit layouts of either majorness in
//! uniform (std140) and storage (std430) buffers, every matrix operation, `Determinant` and
//! `MatrixInverse`, and access chains into matrices, on a GLSL script whose expected values
//! are derived by hand in its comments; run on the reference and on the lowered program.
//! Bad matrix layouts are refused with their positions.

use tangle_oracle::Tool;
use tangle_run::{run_script, ScriptOptions};
mod common;
use common::failures;

const SCRIPT: &str = include_str!("data/matrices.amber");

#[test]
fn matrix_operations_and_layouts_match_hand_computed_values() {
    if tangle_oracle::require(Tool::Glslang, "matrix_operations_and_layouts").is_none() {
        return;
    }
    let parsed = tangle_amber::parse(SCRIPT).unwrap();
    let report = run_script(&parsed, &ScriptOptions::default()).unwrap();
    assert!(report.passed(), "{}", failures(&report).join("\n"));
    let w: Vec<f32> = report.buffers["w"]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(w, [0.0, 7.0, 0.0, 0.0, 0.0, 8.0, 9.0, 0.0]);
}

/// A storage block whose matrix member has no `MatrixStride`: spirv-val refuses it ("must be
/// explicitly laid out with MatrixStride"), and so does tangle's verifier. A `RowMajor` on a
/// member that holds no matrix is refused by the reader at the decoration.
#[test]
fn bad_matrix_layouts_are_refused() {
    let module = |member_decorations: &str, member: &str| {
        format!(
            "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
             OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n\
             OpDecorate %S Block\nOpMemberDecorate %S 0 Offset 0\n{member_decorations}\
             OpDecorate %var DescriptorSet 0\nOpDecorate %var Binding 0\n\
             %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%f32 = OpTypeFloat 32\n\
             %v2 = OpTypeVector %f32 2\n%m2 = OpTypeMatrix %v2 2\n\
             %S = OpTypeStruct {member}\n%ptr = OpTypePointer StorageBuffer %S\n\
             %var = OpVariable %ptr StorageBuffer\n\
             %main = OpFunction %void None %fn\n%l = OpLabel\nOpReturn\nOpFunctionEnd\n"
        )
    };
    let env =
        tangle_spirv::AsmOptions::for_env(tangle_spirv::TargetEnv::from_name("vulkan1.1").unwrap());
    // No MatrixStride: read, then refused by the layout rules.
    let text = module("OpMemberDecorate %S 0 ColMajor\n", "%m2");
    let words = tangle_spirv::assemble(&text, env).unwrap();
    let m = tangle_spirv::reader::read_words(&words).unwrap();
    let errors = tangle_ir::verify::verify(&m).unwrap_err().to_string();
    assert!(errors.contains("needs a MatrixStride"), "{errors}");
    // With a stride of 8 (two packed vec2 columns) it is valid.
    let text = module(
        "OpMemberDecorate %S 0 ColMajor\nOpMemberDecorate %S 0 MatrixStride 8\n",
        "%m2",
    );
    let words = tangle_spirv::assemble(&text, env).unwrap();
    tangle_ir::verify::verify(&tangle_spirv::reader::read_words(&words).unwrap()).unwrap();
    // A stride of 4 overlaps the columns: refused.
    let text = module(
        "OpMemberDecorate %S 0 ColMajor\nOpMemberDecorate %S 0 MatrixStride 4\n",
        "%m2",
    );
    let words = tangle_spirv::assemble(&text, env).unwrap();
    let errors = tangle_ir::verify::verify(&tangle_spirv::reader::read_words(&words).unwrap())
        .unwrap_err()
        .to_string();
    assert!(errors.contains("matrix with stride 4"), "{errors}");
    // RowMajor on a vector member: refused at the decoration (instruction 6, counted from 0).
    let text = module("OpMemberDecorate %S 0 RowMajor\n", "%v2");
    let words = tangle_spirv::assemble(&text, env).unwrap();
    let e = tangle_spirv::reader::read_words(&words)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("instruction 6") && e.contains("only members that hold matrices"),
        "{e}"
    );
}
