//! The maximal-reconvergence request written into SPIR-V words
//! (`glslang::with_maximal_reconvergence_words`), as spirv-opt must see it before
//! `SHADER_OPTIMIZATION` passes: equal to the module assembled with the request written by
//! hand, accepted by spirv-val, and written once however often it is applied.

use tangle_oracle::{require, scratch_dir, Tool};
use tangle_spirv::glslang::with_maximal_reconvergence_words;
use tangle_spirv::{assemble, AsmOptions, TargetEnv};

/// A shader with two entry points and an execution mode each, written without (`{EXT}` and
/// `{MODES}` empty) or with the request, in the places the function puts it.
const TEMPLATE: &str = "OpCapability Shader
OpCapability GroupNonUniform
{EXT}OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %a \"a\"
OpEntryPoint GLCompute %b \"b\"
{MODES}OpExecutionMode %a LocalSize 4 1 1
OpExecutionMode %b LocalSize 8 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%a = OpFunction %void None %fn
%la = OpLabel
OpReturn
OpFunctionEnd
%b = OpFunction %void None %fn
%lb = OpLabel
OpReturn
OpFunctionEnd
";

fn module(with_request: bool) -> Vec<u32> {
    let (ext, modes) = if with_request {
        (
            "OpExtension \"SPV_KHR_maximal_reconvergence\"\n",
            "OpExecutionMode %a MaximallyReconvergesKHR\nOpExecutionMode %b MaximallyReconvergesKHR\n",
        )
    } else {
        ("", "")
    };
    let text = TEMPLATE.replace("{EXT}", ext).replace("{MODES}", modes);
    assemble(&text, AsmOptions::for_env(TargetEnv::Universal(3))).unwrap()
}

#[test]
fn the_request_is_written_where_the_layout_puts_it() {
    let patched = with_maximal_reconvergence_words(&module(false));
    assert_eq!(patched, module(true));
}

#[test]
fn the_request_is_written_once() {
    let once = with_maximal_reconvergence_words(&module(false));
    assert_eq!(with_maximal_reconvergence_words(&once), once);
    assert_eq!(
        with_maximal_reconvergence_words(&module(true)),
        module(true)
    );
}

#[test]
fn spirv_val_accepts_the_patched_module() {
    let Some(val) = require(Tool::SpirvVal, "spirv_val_accepts_the_patched_module") else {
        return;
    };
    let patched = with_maximal_reconvergence_words(&module(false));
    let dir = scratch_dir();
    let path = dir.path().join("patched.spv");
    let bytes: Vec<u8> = patched.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    let out = val.run([
        std::ffi::OsStr::new("--target-env"),
        "vulkan1.1".as_ref(),
        path.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn words_that_are_not_a_module_come_back_unchanged() {
    assert_eq!(with_maximal_reconvergence_words(&[1, 2]), vec![1, 2]);
    // An instruction claiming more words than there are.
    let broken = [0x0723_0203, 0x0001_0300, 0, 8, 0, 0x00ff_0011];
    assert_eq!(with_maximal_reconvergence_words(&broken), broken.to_vec());
}
