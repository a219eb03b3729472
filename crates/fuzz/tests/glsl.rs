//! A sample of generated programs written as GLSL, compiled by glslang (an independent
//! front end), read back and run on the reference interpreter, gives the mask oracle's
//! buffers — the same results as the program's own SPIR-V.

use tangle_fuzz::compare::run_reference;
use tangle_fuzz::glsl::to_glsl;
use tangle_fuzz::mask::simulate;
use tangle_fuzz::{generate, GenConfig};
use tangle_interp::Variant;

#[test]
fn glsl_through_glslang_agrees_with_the_mask_oracle() {
    if let Err(e) = tangle_spirv::glslang::find_glslang() {
        assert!(!tangle_oracle::oracles_mandatory(), "glslang: {e}");
        eprintln!("SKIPPED glsl_through_glslang_agrees_with_the_mask_oracle: {e}");
        return;
    }
    for seed in 0..40 {
        let nesting = 2 + (seed % 5) as u32;
        let program = generate(
            seed,
            GenConfig {
                nesting,
                size_budget: 30,
            },
        );
        let src = to_glsl(&program);
        let compiled = tangle_spirv::glslang::compile(&src, "fuzz.comp", "vulkan1.2")
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{src}"));
        let mut m = tangle_spirv::reader::read_binary(&compiled.spirv)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{src}"));
        assert!(compiled.maximal_reconvergence);
        tangle_spirv::glslang::with_maximal_reconvergence(&mut m);
        tangle_ir::verify::verify(&m).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{src}"));
        for size in [4, 32] {
            let want = simulate(&program, size);
            let got = run_reference(&m, size, want.words.len(), Variant::Maximal)
                .unwrap_or_else(|e| panic!("seed {seed} size {size}: {e}\n{src}"));
            assert!(
                got == want.words,
                "seed {seed} size {size}: glslang's SPIR-V disagrees with the mask oracle\n{src}"
            );
        }
    }
}
