//! Matrices in the front end (`docs/spirv-frontend.md`): a row-major and a column-major
//! matrix member read into laid-out matrix types, the access chain into the row-major
//! matrix's column given the strided column as pointee, the module verified, printed and
//! parsed as IR text, and written back so that spirv-val accepts it and it reads the same.

use tangle_ir::TypeData;
use tangle_oracle::{require, scratch_dir, Tool};
use tangle_spirv::reader::read_words;
use tangle_spirv::{assemble, AsmOptions, TargetEnv};

/// A column-major (stride 16) and a row-major (stride 8) `mat2x4` in one storage block, a
/// product, a transpose, scalings, and a store through the row-major matrix's column.
const SHADER: &str = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
OpMemberDecorate %S 0 ColMajor
OpMemberDecorate %S 0 Offset 0
OpMemberDecorate %S 0 MatrixStride 16
OpMemberDecorate %S 1 RowMajor
OpMemberDecorate %S 1 Offset 32
OpMemberDecorate %S 1 MatrixStride 8
OpDecorate %S Block
OpDecorate %s DescriptorSet 0
OpDecorate %s Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%f32 = OpTypeFloat 32
%int = OpTypeInt 32 1
%v2 = OpTypeVector %f32 2
%v4 = OpTypeVector %f32 4
%m2x4 = OpTypeMatrix %v4 2
%m4x2 = OpTypeMatrix %v2 4
%m4x4 = OpTypeMatrix %v4 4
%S = OpTypeStruct %m2x4 %m2x4
%pS = OpTypePointer StorageBuffer %S
%pm = OpTypePointer StorageBuffer %m2x4
%pv4 = OpTypePointer StorageBuffer %v4
%s = OpVariable %pS StorageBuffer
%i0 = OpConstant %int 0
%i1 = OpConstant %int 1
%half = OpConstant %f32 0.5
%main = OpFunction %void None %fn
%entry = OpLabel
%pc = OpAccessChain %pm %s %i0
%c = OpLoad %m2x4 %pc
%pr = OpAccessChain %pm %s %i1
%r = OpLoad %m2x4 %pr
%t = OpTranspose %m4x2 %r
%p = OpMatrixTimesMatrix %m4x4 %c %t
%q = OpMatrixTimesScalar %m4x4 %p %half
%col = OpCompositeExtract %v4 %q 1
%c2 = OpMatrixTimesScalar %m2x4 %c %half
%prow = OpAccessChain %pv4 %s %i1 %i1
OpStore %prow %col
OpStore %pc %c2
OpReturn
OpFunctionEnd
";

#[test]
fn laid_out_matrices_read_verify_print_and_write_back() {
    let env = TargetEnv::from_name("vulkan1.1").unwrap();
    let module = read_words(&assemble(SHADER, AsmOptions::for_env(env)).unwrap()).unwrap();
    let layouts: Vec<_> = module
        .types
        .iter()
        .filter_map(|(_, t)| match t {
            TypeData::Matrix {
                layout: Some(l), ..
            } => Some((l.stride, l.row_major)),
            _ => None,
        })
        .collect();
    assert_eq!(layouts, [(16, false), (8, true)]);
    assert!(module
        .types
        .iter()
        .any(|(_, t)| matches!(t, TypeData::StridedVector { stride: 8, .. })));
    tangle_ir::verify::verify(&module).unwrap();
    let text = tangle_ir::text::print(&module);
    assert!(text.contains("[stride 8, row_major]"), "{text}");
    assert!(text.contains("strided<f32x4> [stride 8]"), "{text}");
    let reparsed = tangle_ir::text::parse(&text).unwrap();
    assert_eq!(tangle_ir::text::print(&reparsed), text);
    let out = tangle_spirv::writer::write(&module).expect("writable");
    let again = read_words(&out).unwrap();
    assert_eq!(tangle_ir::text::print(&again), text);
    if let Some(val) = require(Tool::SpirvVal, "laid_out_matrices_write_back") {
        let dir = scratch_dir();
        let path = dir.path().join("m.spv");
        let bytes: Vec<u8> = out.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        val.run_ok([
            "--target-env".as_ref(),
            "vulkan1.1".as_ref(),
            path.as_os_str(),
        ]);
    }
}
