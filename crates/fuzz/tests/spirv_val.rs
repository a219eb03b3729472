//! A sample of generated programs, built as IR and written as SPIR-V, passes spirv-val
//! (an oracle nobody here wrote) for Vulkan 1.2 with maximal reconvergence.

use tangle_fuzz::{build::build_module, generate, GenConfig};
use tangle_oracle::{require, scratch_dir, Tool};

#[test]
fn generated_programs_pass_spirv_val() {
    let test = "generated_programs_pass_spirv_val";
    let Some(spirv_val) = require(Tool::SpirvVal, test) else {
        return;
    };
    let dir = scratch_dir();
    for seed in 0..60 {
        let nesting = 1 + (seed % 8) as u32;
        let program = generate(
            seed,
            GenConfig {
                nesting,
                size_budget: 40,
            },
        );
        let m = build_module(&program);
        let words = tangle_spirv::writer::write(&m)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", tangle_ir::text::print(&m)));
        let path = dir.path().join(format!("seed{seed}.spv"));
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        let out = spirv_val.run([
            "--target-env".as_ref(),
            "vulkan1.2".as_ref(),
            path.as_os_str(),
        ]);
        assert!(
            out.status.success(),
            "seed {seed}: spirv-val rejects the program: {}{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            tangle_ir::text::print(&m)
        );
    }
}
