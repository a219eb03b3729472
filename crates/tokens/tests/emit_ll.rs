//! `--emit ll` of whole shaders: the fuzz generator's programs, with tokens inferred and
//! their structure dropped (the token engine's form), are written as LLVM IR with their
//! interface (storage buffers, the invocation-index built-in, access chains) and LLVM 19's
//! verifier accepts every one — the tokens included.

use tangle_fuzz::build::build_module;
use tangle_fuzz::{generate, GenConfig};

#[test]
fn fuzz_programs_with_tokens_are_written_with_their_interface_and_opt_accepts_them() {
    let mut texts = Vec::new();
    for seed in 0..40 {
        let program = generate(
            seed,
            GenConfig {
                nesting: 1 + (seed % 4) as u32,
                size_budget: 30,
            },
        );
        let m = tangle_tokens::engine::for_engine(&build_module(&program)).expect("tokens verify");
        let text = tangle_llvm::write(&m).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert!(text.contains("external addrspace(1) global"), "{text}");
        assert!(text.contains("getelementptr"), "{text}");
        assert!(
            text.contains("llvm.experimental.convergence.entry"),
            "{text}"
        );
        texts.push((seed, text));
    }
    let Some(opt) = tangle_oracle::require(
        tangle_oracle::Tool::Opt,
        "fuzz_programs_with_tokens_are_written_with_their_interface_and_opt_accepts_them",
    ) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("tangle-emit-ll-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (seed, text) in texts {
        let path = dir.join(format!("seed-{seed}.ll"));
        std::fs::write(&path, &text).expect("write .ll");
        let out = opt.run([
            "-passes=verify".as_ref(),
            "-disable-output".as_ref(),
            path.as_os_str(),
        ]);
        assert!(
            out.status.success(),
            "seed {seed}: opt refuses it: {}\n{text}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
