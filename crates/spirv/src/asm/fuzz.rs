//! The assembler's fuzz check, shared by the cargo-fuzz target and the smoke test.

use super::{assemble, AsmOptions, TargetEnv};

/// Assembles `data` (as lossy UTF-8) with several option sets and checks what must hold for
/// any input: no panic, the same answer twice, a well-formed header on success and a
/// position inside the text on failure.
pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let lines = text.split('\n').count() as u32;
    for opts in [
        AsmOptions::default(),
        AsmOptions {
            preserve_numeric_ids: true,
            ..AsmOptions::for_env(TargetEnv::Vulkan1_1)
        },
    ] {
        let first = assemble(&text, opts);
        assert_eq!(first, assemble(&text, opts), "assembling is deterministic");
        match first {
            Ok(words) => {
                assert!(words.len() >= 5, "a module has a header");
                assert_eq!(words[0], spirv::MAGIC_NUMBER);
                assert_eq!(words[1], opts.target_env.version_word());
                assert_eq!(words[2], opts.generator);
                assert!(words[3] >= 1, "the bound is at least 1");
                assert_eq!(words[4], 0, "schema");
            }
            Err(e) => {
                assert!(e.line >= 1 && e.column >= 1, "{e}");
                assert!(e.line <= lines, "{e} is past the last line {lines}");
                let _ = e.to_string();
            }
        }
    }
}
