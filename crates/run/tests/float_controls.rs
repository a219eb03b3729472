//! Float controls and the Vulkan memory model (`docs/interp.md`, `docs/spirv-frontend.md`):
//! a module under the Vulkan memory model with `DenormPreserve 16` and scoped memory access
//! operands runs, keeping an f16 subnormal; `DenormFlushToZero` is refused at its
//! instruction. Expected values derived by hand.

use tangle_oracle::Tool;
use tangle_run::{run_script, ScriptOptions};
mod common;
use common::failures;

const MODULE: &str = include_str!("data/float_controls_vulkan_model.spvasm");

fn words(text: &str) -> Vec<u32> {
    let env = tangle_spirv::TargetEnv::from_name("spv1.5").unwrap();
    tangle_spirv::assemble(text, tangle_spirv::AsmOptions::for_env(env)).unwrap()
}

/// 2^-24 (the smallest f16 subnormal) times 2 is 2^-23, kept under `DenormPreserve 16`;
/// converted to f32, stored with `MakePointerAvailable`, loaded back with
/// `MakePointerVisible` and doubled: 2^-22, bits 0x34800000 (exponent 127 - 22 = 105).
/// spirv-val accepts the module (when present).
#[test]
fn vulkan_memory_model_with_denorm_preserve_runs() {
    if let Some(val) = tangle_oracle::require(Tool::SpirvVal, "float_controls_validate") {
        let dir = tangle_oracle::scratch_dir();
        let path = dir.path().join("fc.spv");
        let bytes: Vec<u8> = words(MODULE).iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        val.run_ok([
            "--target-env".as_ref(),
            "vulkan1.2".as_ref(),
            path.as_os_str(),
        ]);
    }
    let text = format!(
        "#!amber\nSHADER compute fc SPIRV-ASM TARGET_ENV spv1.5\n{MODULE}END\n\
         BUFFER out DATA_TYPE uint32 DATA 7 END\n\
         PIPELINE compute p\n  ATTACH fc\n  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n\
         RUN p 1 1 1\nEXPECT out IDX 0 EQ 0x34800000\n"
    );
    let parsed = tangle_amber::parse(&text).unwrap();
    let report = run_script(&parsed, &ScriptOptions::default()).unwrap();
    assert!(report.passed(), "{}", failures(&report).join("\n"));
    assert_eq!(report.buffers["out"], 0x3480_0000u32.to_le_bytes());
}

/// Flushing subnormals is arithmetic the interpreter does not do: refused at the execution
/// mode (instruction 7, counted from 0), by name.
#[test]
fn flush_to_zero_is_refused_at_its_instruction() {
    // (The capability stays DenormPreserve: the reader refuses the DenormFlushToZero
    // capability by name at instruction 2 already; this shows the mode's own refusal.)
    let text = MODULE.replace("DenormPreserve 16", "DenormFlushToZero 16");
    let e = tangle_spirv::reader::read_words(&words(&text))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("instruction 7") && e.contains("DenormFlushToZero"),
        "{e}"
    );
}
