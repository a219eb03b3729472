//! Differential fuzzing against spirv-as: mutations of the hand-written corpus (deterministic
//! seed) are assembled by us and by spirv-as. Both must accept with the same words (generator
//! word aside) or both refuse at the same line and column. 1,000 cases by default (each starts a
//! spirv-as process); `TANGLE_ASM_DIFF_CASES` sets another count and `TANGLE_ASM_DIFF_SEED`
//! (0-255) another seed. A failure is shrunk by
//! proptest to a small input.

use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use tangle_oracle::{require, scratch_dir, Tool};
use tangle_spirv::asm::{assemble, AsmOptions};

mod asm_mutate;
use asm_mutate::{apply, corpus, mutation};

/// spirv-as reports a malformed result id (`%a.b = ...`) at the end of its instruction; we
/// report it at the id (see docs/spirv-asm.md). Such inputs are compared on acceptance only.
fn malformed_result_id(text: &str, line: u32, column: u32) -> bool {
    text.split('\n').nth(line as usize - 1).is_some_and(|l| {
        let rest = l.get(column as usize - 1..).unwrap_or("");
        // The assembler's white space: not Rust's (a vertical tab is part of a word).
        let mut words = rest.split([' ', '\t', '\r']).filter(|w| !w.is_empty());
        matches!((words.next(), words.next()), (Some(id), Some("=")) if id.starts_with('%'))
    })
}

/// Whether a word (a quoted string, or an escaped line break) spans lines. spirv-as counts
/// such a line break as a column, so its positions after the word are on the wrong line; we
/// count lines (see docs/spirv-asm.md). Such inputs are compared on acceptance only.
fn has_multiline_word(text: &str) -> bool {
    let (mut quoting, mut escaping, mut comment) = (false, false, false);
    for c in text.chars() {
        if comment {
            comment = c != '\n';
        } else if escaping {
            if c == '\n' {
                return true;
            }
            escaping = false;
        } else if c == '\\' {
            escaping = true;
        } else if c == '"' {
            quoting = !quoting;
        } else if quoting && c == '\n' {
            return true;
        } else if !quoting && c == ';' {
            comment = true;
        }
    }
    false
}

#[test]
fn mutated_corpus_matches_spirv_as() {
    let Some(tool) = require(Tool::SpirvAs, "mutated_corpus_matches_spirv_as") else {
        return;
    };
    let cases = std::env::var("TANGLE_ASM_DIFF_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let dir = scratch_dir();
    let (src, out) = (dir.path().join("in.spvasm"), dir.path().join("out.spv"));
    let texts = corpus();
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 2000,
        ..Config::default()
    };
    let seed = std::env::var("TANGLE_ASM_DIFF_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(11u8);
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let strategy = (
        0..texts.len(),
        proptest::collection::vec(mutation(), 1..4),
        proptest::bool::ANY,
    );
    let result = runner.run(&strategy, |(file, mutations, preserve)| {
        let mut input = texts[file].as_bytes().to_vec();
        for m in &mutations {
            input = apply(&input, m);
        }
        // spirv-as reads bytes and stops at a NUL; we read UTF-8 text.
        let Ok(text) = String::from_utf8(input) else {
            return Ok(());
        };
        if text.contains('\0') {
            return Ok(());
        }
        std::fs::write(&src, &text).unwrap();
        let _ = std::fs::remove_file(&out);
        let mut args = vec![src.to_str().unwrap(), "-o", out.to_str().unwrap()];
        if preserve {
            args.push("--preserve-numeric-ids");
        }
        let res = tool.run(&args);
        let opts = AsmOptions {
            preserve_numeric_ids: preserve,
            ..AsmOptions::default()
        };
        let ours = assemble(&text, opts);
        let stderr = String::from_utf8_lossy(&res.stderr);
        match (ours, res.status.success()) {
            (Ok(a), true) => {
                let bytes = std::fs::read(&out).unwrap();
                let b: Vec<u32> = bytes
                    .chunks(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                let same = a.len() == b.len()
                    && a.iter()
                        .zip(&b)
                        .enumerate()
                        .all(|(i, (x, y))| i == 2 || x == y);
                if !same {
                    let at = (0..a.len().max(b.len()))
                        .find(|&i| i != 2 && a.get(i) != b.get(i))
                        .unwrap_or(0);
                    let show =
                        |w: &[u32]| format!("{:08x?}", &w[at.min(w.len())..(at + 8).min(w.len())]);
                    return Err(TestCaseError::fail(format!(
                        "words differ from word {at}: ours {}, spirv-as {}\n--- input:\n{text}",
                        show(&a),
                        show(&b)
                    )));
                }
            }
            (Err(e), false) => {
                let theirs = stderr.strip_prefix("error: ").and_then(|m| {
                    let mut parts = m.splitn(3, ':');
                    let line: u32 = parts.next()?.trim().parse().ok()?;
                    let col: u32 = parts.next()?.trim().parse().ok()?;
                    Some((line, col))
                });
                if theirs != Some((e.line, e.column))
                    && !malformed_result_id(&text, e.line, e.column)
                    && !has_multiline_word(&text)
                    // spirv-as's position for a bad encoding given as an immediate is not
                    // meaningful (it points into the middle of the opcode).
                    && !stderr.contains("Invalid OpTypeFloat encoding")
                {
                    return Err(TestCaseError::fail(format!(
                        "ours {e}, spirv-as {stderr}\n--- input:\n{text}"
                    )));
                }
            }
            (Ok(_), false) => {
                return Err(TestCaseError::fail(format!(
                    "we accept, spirv-as says {stderr}\n--- input:\n{text}"
                )))
            }
            (Err(e), true) => {
                return Err(TestCaseError::fail(format!(
                    "we refuse ({e}), spirv-as accepts\n--- input:\n{text}"
                )))
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
