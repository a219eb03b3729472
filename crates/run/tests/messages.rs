//! Messages a user can act on: run-time errors name the SPIR-V instruction (`%28 = OpSDiv`)
//! and the script line of the GLSL source, glslang's compile errors name script lines, and
//! an extended instruction tangle does not run is refused by its name.

use tangle_oracle::Tool;
use tangle_run::{run_script, Event, ScriptOptions};

fn run(text: &str) -> Result<tangle_run::Report, tangle_run::ScriptError> {
    let parsed = tangle_amber::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    run_script(&parsed, &ScriptOptions::default())
}

/// Line 1 `#!amber`, line 2 a comment, line 3 `SHADER`, the GLSL from line 4: `main`'s
/// division is on line 8 of the script.
// Divides by the buffer's zero (an undefined value) and indexes with the result (the use
// that makes it observable, on the same line).
const DIVIDE: &str = "#!amber\n# divides by the buffer's zero\nSHADER compute s GLSL\n\
#version 430\nlayout(local_size_x = 1) in;\nlayout(binding = 0) buffer B { int v[]; } b;\n\
void main() {\n  b.v[7 / b.v[0]] = 1;\n}\nEND\n\
BUFFER buf DATA_TYPE int32 DATA 0 0 END\n\
PIPELINE compute p\n  ATTACH s\n  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n\
RUN p 1 1 1\n";

#[test]
fn run_time_errors_name_the_spirv_instruction_and_the_script_line() {
    if tangle_oracle::require(Tool::Glslang, "run_time_errors_name_the_spirv_instruction").is_none()
    {
        return;
    }
    let report = run(DIVIDE).unwrap();
    let Some(Event::RunFailed { error, origin, .. }) = report.events.last() else {
        panic!("{:?}", report.events);
    };
    let origin = origin.as_ref().expect("the module came from SPIR-V");
    assert_eq!(origin.opcode.to_string(), "OpAccessChain");
    assert_eq!(origin.line, Some(8));
    let text = tangle_run::run_error_message(error, Some(origin));
    let id = origin.id.unwrap();
    assert!(
        text.starts_with(&format!(
            "undefined value at %{id} = OpAccessChain, source line 8 (IR f0 "
        )),
        "{text}"
    );
    assert!(text.contains("integer division by zero"), "{text}");
}

#[test]
fn glslang_errors_name_script_lines() {
    if tangle_oracle::require(Tool::Glslang, "glslang_errors_name_script_lines").is_none() {
        return;
    }
    let bad = DIVIDE.replace("7 / b.v[0]", "7 / undeclared");
    let err = run(&bad).unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with("3:1: shader `s`"), "{text}");
    assert!(
        text.contains("ERROR: s:8: 'undeclared' : undeclared identifier"),
        "{text}"
    );
}

#[test]
fn extended_instructions_are_refused_by_name() {
    // GLSL.std.450 PackSnorm4x8 (54): tangle does not run it yet.
    let asm = "OpCapability Shader\n%1 = OpExtInstImport \"GLSL.std.450\"\n\
               OpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n\
               OpExecutionMode %main LocalSize 1 1 1\n\
               %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n\
               %uint = OpTypeInt 32 0\n%v4 = OpTypeVector %float 4\n\
               %f1 = OpConstant %float 1\n%v = OpConstantComposite %v4 %f1 %f1 %f1 %f1\n\
               %main = OpFunction %void None %fn\n%entry = OpLabel\n\
               %r = OpExtInst %uint %1 PackSnorm4x8 %v\nOpReturn\nOpFunctionEnd\n";
    let text = format!(
        "#!amber\nSHADER compute s SPIRV-ASM\n{asm}END\nPIPELINE compute p\n  ATTACH s\nEND\nRUN p 1 1 1\n"
    );
    let err = run(&text).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("GLSL.std.450 instruction PackSnorm4x8 (54)"),
        "{message}"
    );
    assert!(message.starts_with("2:1: shader `s`"), "{message}");
}
