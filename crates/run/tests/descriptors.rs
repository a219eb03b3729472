//! Descriptor arrays (`BIND BUFFER_ARRAY`) and one buffer seen through two bindings, on
//! hand-written shaders whose expected values are derived by hand, on the reference and on
//! the barrier machine under every policy; and the bad inputs, refused at their position.

use tangle_run::{Event, Report};
mod common;
use common::{failures, run, words};

fn passes_everywhere(text: &str) -> Report {
    let lowered = run(text, true).unwrap();
    assert!(lowered.passed(), "{}", failures(&lowered).join("\n"));
    assert!(lowered
        .events
        .iter()
        .any(|e| matches!(e, Event::LoweredAgreed { .. })));
    let report = run(text, false).unwrap();
    assert!(report.passed(), "{}", failures(&report).join("\n"));
    report
}

/// `arr` is a descriptor array of two blocks `{ uint x; }` at binding 0; `idx` a block at
/// binding 1. The shader sets `arr[1].x = arr[0].x + 7` (constant indices), then
/// `idx.x = arr[idx.x].x` (a dynamic, uniform index).
const ARRAY_SHADER: &str = "\
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %blk Block
OpMemberDecorate %blk 0 Offset 0
OpDecorate %arr DescriptorSet 0
OpDecorate %arr Binding 0
OpDecorate %idx DescriptorSet 0
OpDecorate %idx Binding 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%c0 = OpConstant %uint 0
%c1 = OpConstant %uint 1
%c2 = OpConstant %uint 2
%c7 = OpConstant %uint 7
%blk = OpTypeStruct %uint
%blks = OpTypeArray %blk %c2
%sb_blks = OpTypePointer StorageBuffer %blks
%sb_blk = OpTypePointer StorageBuffer %blk
%sb_uint = OpTypePointer StorageBuffer %uint
%arr = OpVariable %sb_blks StorageBuffer
%idx = OpVariable %sb_blk StorageBuffer
%main = OpFunction %void None %fn
%entry = OpLabel
%p0 = OpAccessChain %sb_uint %arr %c0 %c0
%v0 = OpLoad %uint %p0
%v1 = OpIAdd %uint %v0 %c7
%p1 = OpAccessChain %sb_uint %arr %c1 %c0
OpStore %p1 %v1
%q = OpAccessChain %sb_uint %idx %c0
%i = OpLoad %uint %q
%pi = OpAccessChain %sb_uint %arr %i %c0
%vi = OpLoad %uint %pi
OpStore %q %vi
OpReturn
OpFunctionEnd
";

/// Element 0 is buffer `a`; element 1 is buffer `b` from byte 4 (`DESCRIPTOR_OFFSET 0 4`).
fn array_script(bind: &str) -> String {
    format!(
        "#!amber\nSHADER compute s SPIRV-ASM TARGET_ENV spv1.3\n{ARRAY_SHADER}END\n\
         BUFFER a DATA_TYPE uint32 DATA 5 END\n\
         BUFFER b DATA_TYPE uint32 DATA 0 0 END\n\
         BUFFER idx DATA_TYPE uint32 DATA 1 END\n\
         PIPELINE compute p\n  ATTACH s\n\
         \x20 {bind}\n\
         \x20 BIND BUFFER idx AS storage DESCRIPTOR_SET 0 BINDING 1\nEND\n\
         RUN p 1 1 1\nEXPECT b IDX 0 EQ 0 12\nEXPECT idx IDX 0 EQ 12\n"
    )
}

const ARRAY_BIND: &str =
    "BIND BUFFER_ARRAY a b AS storage DESCRIPTOR_SET 0 BINDING 0 DESCRIPTOR_OFFSET 0 4";

#[test]
fn a_descriptor_array_picks_its_element_by_constant_and_dynamic_index() {
    let report = passes_everywhere(&array_script(ARRAY_BIND));
    assert_eq!(words(&report, "a"), [5]);
    assert_eq!(words(&report, "b"), [0, 12]);
    assert_eq!(words(&report, "idx"), [12]);
}

/// The dynamic form gives one `OFFSET` per element: element 1 again starts at byte 4.
#[test]
fn a_dynamic_descriptor_array_adds_each_elements_offset() {
    let bind = "BIND BUFFER_ARRAY a b AS storage_dynamic DESCRIPTOR_SET 0 BINDING 0 OFFSET 0 4";
    let report = passes_everywhere(&array_script(bind));
    assert_eq!(words(&report, "b"), [0, 12]);
}

/// `buf` at binding 0 (a `uint[4]`) and, from byte 8, at binding 1 (one `uint`): the
/// shader writes 9 through binding 1, then reads it back through binding 0 and stores
/// 9 + 1 after it. Only shared memory gives `0 0 9 10`.
const ALIAS_SHADER: &str = "\
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %arr4 ArrayStride 4
OpDecorate %wide Block
OpMemberDecorate %wide 0 Offset 0
OpDecorate %one Block
OpMemberDecorate %one 0 Offset 0
OpDecorate %w DescriptorSet 0
OpDecorate %w Binding 0
OpDecorate %o DescriptorSet 0
OpDecorate %o Binding 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%c0 = OpConstant %uint 0
%c1 = OpConstant %uint 1
%c2 = OpConstant %uint 2
%c3 = OpConstant %uint 3
%c4 = OpConstant %uint 4
%c9 = OpConstant %uint 9
%arr4 = OpTypeArray %uint %c4
%wide = OpTypeStruct %arr4
%one = OpTypeStruct %uint
%sb_wide = OpTypePointer StorageBuffer %wide
%sb_one = OpTypePointer StorageBuffer %one
%sb_uint = OpTypePointer StorageBuffer %uint
%w = OpVariable %sb_wide StorageBuffer
%o = OpVariable %sb_one StorageBuffer
%main = OpFunction %void None %fn
%entry = OpLabel
%po = OpAccessChain %sb_uint %o %c0
OpStore %po %c9
%p2 = OpAccessChain %sb_uint %w %c0 %c2
%v = OpLoad %uint %p2
%v1 = OpIAdd %uint %v %c1
%p3 = OpAccessChain %sb_uint %w %c0 %c3
OpStore %p3 %v1
OpReturn
OpFunctionEnd
";

fn alias_script(second: &str) -> String {
    format!(
        "#!amber\nSHADER compute s SPIRV-ASM TARGET_ENV spv1.3\n{ALIAS_SHADER}END\n\
         BUFFER buf DATA_TYPE uint32 DATA 0 0 0 0 END\n\
         PIPELINE compute p\n  ATTACH s\n\
         \x20 BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0\n\
         \x20 {second}\nEND\n\
         RUN p 1 1 1\nEXPECT buf IDX 0 EQ 0 0 9 10\n"
    )
}

#[test]
fn one_buffer_at_two_bindings_is_one_memory() {
    let report = passes_everywhere(&alias_script(
        "BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 1 DESCRIPTOR_OFFSET 8",
    ));
    assert_eq!(words(&report, "buf"), [0, 0, 9, 10]);
}

/// Line and column (from 1) of the first `token` after the start of `bind` in `text`
/// (`None` for the end of that line).
fn position(text: &str, bind: &str, token: Option<&str>) -> (u32, u32) {
    let (n, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(bind))
        .expect("the binding is in the script");
    let start = line.find(bind).unwrap();
    let col = match token {
        Some(t) => start + bind.find(t).unwrap(),
        None => line.len(),
    };
    (n as u32 + 1, col as u32 + 1)
}

/// The parse errors of `BUFFER_ARRAY` name the token at fault: a missing per-element
/// value (at the end of the line), an unknown buffer, and a push-constant descriptor array.
#[test]
fn bad_buffer_arrays_are_refused_where_they_go_wrong() {
    let cases = [
        (
            "BIND BUFFER_ARRAY a b AS storage DESCRIPTOR_SET 0 BINDING 0 DESCRIPTOR_OFFSET 0",
            None,
            "descriptor offset",
        ),
        (
            "BIND BUFFER_ARRAY a nothing AS storage DESCRIPTOR_SET 0 BINDING 0",
            Some("nothing"),
            "nothing",
        ),
        (
            "BIND BUFFER_ARRAY a b AS push_constant DESCRIPTOR_SET 0 BINDING 0",
            Some("push_constant"),
            "descriptor array",
        ),
    ];
    for (bind, token, says) in cases {
        let text = array_script(bind);
        let e = tangle_amber::parse(&text).expect_err(bind);
        let (line, col) = position(&text, bind, token);
        assert_eq!((e.pos.line, e.pos.column), (line, col), "{bind}: {e}");
        assert!(e.to_string().contains(says), "{bind}: {e}");
    }
}

/// Bindings that do not fit the shader's descriptor array are refused at the binding (its
/// first buffer's name): one buffer for an array of two, and `BUFFER_ARRAY` where the
/// shader declares a single buffer.
#[test]
fn buffer_arrays_that_do_not_fit_the_shader_are_refused_at_the_binding() {
    let bind = "BIND BUFFER_ARRAY a AS storage DESCRIPTOR_SET 0 BINDING 0";
    let text = array_script(bind);
    let e = run(&text, false).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert_eq!(
        (e.pos.line, e.pos.column),
        position(&text, bind, Some("a AS")),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("descriptor array of 2 at set 0 binding 0, but the pipeline binds 1"),
        "{e}"
    );
    let e = run(
        &alias_script("BIND BUFFER_ARRAY buf buf AS storage DESCRIPTOR_SET 0 BINDING 1"),
        false,
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("declares a single buffer there"),
        "{e}"
    );
}

/// A view that stops before its buffer's end shares the whole buffer, so `OpArrayLength`
/// through it would count bytes past the range: refused, at the binding.
#[test]
fn array_length_through_a_short_shared_view_is_refused() {
    let shader = ALIAS_SHADER
        .replace(
            "%arr4 = OpTypeArray %uint %c4\n",
            "%arr4 = OpTypeRuntimeArray %uint\n",
        )
        .replace(
            "%v1 = OpIAdd %uint %v %c1\n",
            "%n = OpArrayLength %uint %w 0\n%v1 = OpIAdd %uint %v %n\n",
        );
    let text =
        alias_script("BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 1 DESCRIPTOR_OFFSET 8")
            .replace(ALIAS_SHADER, &shader);
    // Views to the end are exact: 9 + 4 words.
    let report = passes_everywhere(&text.replace("EQ 0 0 9 10", "EQ 0 0 9 13"));
    assert_eq!(words(&report, "buf"), [0, 0, 9, 13]);
    let short = text.replace("BINDING 0\n", "BINDING 0 DESCRIPTOR_RANGE 12\n");
    let e = run(&short, false).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("OpArrayLength"), "{e}");
}
