//! Bad inputs: each is refused with the exact line:column and error kind. No oracle needed.

use tangle_spirv::asm::{assemble, AsmError, AsmErrorKind as K, AsmOptions};

fn err(text: &str) -> AsmError {
    match assemble(text, AsmOptions::default()) {
        Ok(words) => panic!("{text:?} was accepted: {words:08x?}"),
        Err(e) => e,
    }
}

fn at(text: &str, line: u32, column: u32) -> K {
    let e = err(text);
    assert_eq!((e.line, e.column), (line, column), "{text:?}: {e}");
    assert!(
        e.to_string().starts_with(&format!("{line}:{column}: ")),
        "{e}"
    );
    e.kind
}

const PRELUDE: &str = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n";

#[test]
fn unknown_opcode() {
    assert_eq!(
        at("OpCapability Shader\n  OpFrobnicate %x\n", 2, 3),
        K::UnknownOpcode("OpFrobnicate".into())
    );
}

#[test]
fn unknown_enumerant() {
    let k = at(&format!("{PRELUDE}OpCapability Shaders\n"), 3, 14);
    assert_eq!(
        k,
        K::UnknownEnumerant {
            kind: "Capability".into(),
            name: "Shaders".into()
        }
    );
    assert!(k.to_string().contains("Capability"), "{k}");
}

#[test]
fn enumerant_given_as_a_number() {
    assert!(matches!(
        at("OpMemoryModel Logical 1\n", 1, 23),
        K::UnknownEnumerant { .. }
    ));
}

#[test]
fn unknown_bitmask_bit() {
    let k = at("OpLoopMerge %m %c Unroll|Sometimes\n", 1, 19);
    assert_eq!(
        k,
        K::UnknownEnumerant {
            kind: "LoopControl".into(),
            name: "Unroll|Sometimes".into()
        }
    );
}

#[test]
fn missing_operand_at_end_of_input() {
    let k = at("OpMemoryModel Logical", 1, 22);
    assert_eq!(
        k,
        K::MissingOperand {
            opcode: "OpMemoryModel".into(),
            expected: "MemoryModel".into(),
            found: "the end of the input".into()
        }
    );
}

#[test]
fn missing_operand_before_next_instruction() {
    let k = at(
        "%u = OpTypeInt 32 0\n%a = OpConstant %u\n%b = OpUndef %u\n",
        3,
        1,
    );
    assert!(
        matches!(k, K::MissingOperand { ref found, .. } if found == "the next instruction"),
        "{k}"
    );
}

#[test]
fn missing_enumerant_parameter() {
    // LocalSize takes three literals.
    let k = at(
        "OpExecutionMode %main LocalSize 8 8\nOpCapability Shader\n",
        2,
        1,
    );
    assert!(
        matches!(k, K::MissingOperand { ref expected, .. } if expected == "LiteralInteger"),
        "{k}"
    );
    // SpecId takes one.
    assert!(matches!(
        at("OpDecorate %x SpecId\n", 2, 1),
        K::MissingOperand { .. }
    ));
}

#[test]
fn too_many_operands() {
    let k = at("OpMemoryModel Logical GLSL450 GLSL450\n", 1, 31);
    assert_eq!(k, K::ExpectedInstruction("GLSL450".into()));
}

#[test]
fn missing_result_id() {
    assert_eq!(
        at("  OpTypeVoid\n", 1, 3),
        K::MissingResultId("OpTypeVoid".into())
    );
}

#[test]
fn result_id_on_instruction_without_result() {
    let k = at("%x = OpCapability Shader\n", 1, 6);
    assert_eq!(
        k,
        K::UnexpectedResultId {
            opcode: "OpCapability".into(),
            id: "x".into()
        }
    );
}

#[test]
fn missing_equals_after_result_id() {
    assert_eq!(
        at("%a OpTypeVoid\n", 1, 4),
        K::ExpectedEquals("`OpTypeVoid`".into())
    );
    assert_eq!(
        at("%a = OpTypeVoid\n%b\n", 3, 1),
        K::ExpectedEquals("the end of the input".into())
    );
}

#[test]
fn id_without_percent_and_invalid_ids() {
    assert_eq!(
        at("OpDecorate x Location 1\n", 1, 12),
        K::ExpectedId("x".into())
    );
    assert_eq!(at("OpName %a-b \"x\"\n", 1, 8), K::InvalidId("a-b".into()));
    assert_eq!(
        at("%x = OpTypeVoid\n%y = OpTypePointer Function %\n", 2, 29),
        K::InvalidId("".into())
    );
}

#[test]
fn literal_that_is_not_a_number() {
    let k = at("OpDecorate %x Offset 1.5\n", 1, 22);
    assert_eq!(
        k,
        K::BadLiteral {
            expected: "a 32-bit unsigned integer".into(),
            found: "1.5".into()
        }
    );
}

#[test]
fn integer_out_of_range_for_its_type() {
    let text = "%s = OpTypeInt 16 1\n%c = OpConstant %s 32768\n";
    let k = at(text, 2, 20);
    assert_eq!(
        k,
        K::IntegerOutOfRange {
            expected: "a 16-bit signed integer".into(),
            found: "32768".into()
        }
    );
    let k = at("%u = OpTypeInt 8 0\n%c = OpConstant %u -1\n", 2, 20);
    assert!(matches!(k, K::IntegerOutOfRange { .. }), "{k}");
}

#[test]
fn bad_float_literal() {
    let k = at("%f = OpTypeFloat 32\n%c = OpConstant %f 1e40\n", 2, 20);
    assert_eq!(
        k,
        K::BadLiteral {
            expected: "a 32-bit float".into(),
            found: "1e40".into()
        }
    );
    let k = at("%f = OpTypeFloat 16\n%c = OpConstant %f nan\n", 2, 20);
    assert_eq!(
        k,
        K::BadLiteral {
            expected: "a 16-bit float".into(),
            found: "nan".into()
        }
    );
}

#[test]
fn constant_of_non_numeric_type() {
    let k = at("%b = OpTypeBool\n%c = OpConstant %b 1\n", 2, 20);
    assert_eq!(k, K::ConstantTypeNotNumeric("OpConstant".into()));
    assert_eq!(
        at("%c = OpSpecConstant %nothing 1\n", 1, 30),
        K::ConstantTypeNotNumeric("OpSpecConstant".into())
    );
}

#[test]
fn switch_selector_not_an_integer() {
    let text = "%f = OpTypeFloat 32\n%s = OpUndef %f\nOpSwitch %s %d 1 %a\n";
    assert_eq!(at(text, 3, 16), K::SwitchSelectorNotInteger);
}

#[test]
fn unterminated_and_malformed_strings() {
    assert_eq!(
        at("OpName %x \"abc\n", 1, 11),
        K::BadString("\"abc\n".into())
    );
    assert_eq!(
        at("OpName %x \"ab\"c\n", 1, 11),
        K::BadString("\"ab\"c".into())
    );
    assert_eq!(at("OpName %x main\n", 1, 11), K::BadString("main".into()));
}

#[test]
fn bad_immediates() {
    assert_eq!(at("!-1\n", 1, 1), K::BadImmediate("!-1".into()));
    assert_eq!(
        at("OpCapability !0x100000000\n", 1, 14),
        K::BadImmediate("!0x100000000".into())
    );
    assert_eq!(
        at("OpCapability !1 Shader\n", 1, 17),
        K::BadContextFreeOperand("Shader".into())
    );
    assert_eq!(at("%x = !5\n", 1, 6), K::ExpectedOpcode("`!5`".into()));
}

#[test]
fn extended_instruction_errors() {
    assert_eq!(
        at("%g = OpExtInstImport \"Foo.bar\"\n", 1, 22),
        K::UnknownExtInstSet("Foo.bar".into())
    );
    assert_eq!(
        at("%x = OpExtInst %t %g FAbs %a\n", 1, 19),
        K::NotExtInstSet("g".into())
    );
    let text = "%g = OpExtInstImport \"GLSL.std.450\"\n%x = OpExtInst %t %g Fabs %a\n";
    assert_eq!(
        at(text, 2, 22),
        K::UnknownExtInst {
            set: "GlslStd450".into(),
            name: "Fabs".into()
        }
    );
    // GLSL.std.450's FAbs takes exactly one operand.
    let text = "%g = OpExtInstImport \"GLSL.std.450\"\n%x = OpExtInst %t %g FAbs\n";
    assert!(matches!(at(text, 3, 1), K::MissingOperand { .. }));
}

#[test]
fn spec_constant_op_errors() {
    let text = "%u = OpTypeInt 32 0\n%c = OpSpecConstantOp %u IAdd2 %a %b\n";
    assert_eq!(
        at(text, 2, 26),
        K::UnknownSpecConstantOpcode("IAdd2".into())
    );
    // Written with its `Op`, the opcode starts a new instruction (as in spirv-as).
    let text = "%u = OpTypeInt 32 0\n%c = OpSpecConstantOp %u OpIAdd %a %b\n";
    assert!(matches!(at(text, 2, 26), K::MissingOperand { .. }));
}

#[test]
fn import_defined_twice() {
    let text = "%g = OpExtInstImport \"GLSL.std.450\"\n%g = OpExtInstImport \"OpenCL.std\"\n";
    assert_eq!(at(text, 2, 22), K::ImportRedefined("g".into()));
}

#[test]
fn type_defined_twice() {
    assert_eq!(
        at("%a = OpTypeVoid\n%a = OpTypeBool\n", 2, 16),
        K::TypeRedefined("a".into())
    );
}

#[test]
fn empty_input() {
    assert_eq!(at("", 1, 1), K::EmptyInput);
    // Whitespace and comments alone make a header-only module, as with spirv-as.
    assert_eq!(
        assemble(" ; nothing\n", AsmOptions::default())
            .unwrap()
            .len(),
        5
    );
}

#[test]
fn errors_come_from_the_first_bad_instruction_and_columns_count_bytes() {
    // The name before the error holds a two-byte character: columns are bytes.
    let text = "OpName %x \"\u{e9}\" OpCapability Nope\n";
    assert_eq!(
        at(text, 1, 29),
        K::UnknownEnumerant {
            kind: "Capability".into(),
            name: "Nope".into()
        }
    );
}

#[test]
fn ids_used_but_never_defined_are_accepted() {
    // An id with no defining instruction is a validator matter, as with spirv-as: it is
    // numbered like any other id and counts in the bound.
    let words = assemble("OpName %ghost \"g\"\n", AsmOptions::default()).unwrap();
    assert_eq!(words[3], 2, "bound");
    assert_eq!(&words[5..], &[0x0003_0005, 1, 0x67]);
}

#[test]
fn constants_of_fp8_types_are_not_supported() {
    let text = "%b = OpTypeFloat 8 Float8E4M3EXT\n%c = OpConstant %b 1.5\n";
    assert_eq!(at(text, 2, 20), K::UnsupportedFloatEncoding);
    assert_eq!(
        at("%b = OpTypeFloat 32 Foo\n", 1, 21),
        K::UnknownEnumerant {
            kind: "FPEncoding".into(),
            name: "Foo".into()
        }
    );
}
