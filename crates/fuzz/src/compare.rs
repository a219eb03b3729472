//! Running a program on both oracles and comparing the output buffers.

use tangle_interp::{Config, Interpreter, Variant};
use tangle_ir::Module;

use crate::ast::{Program, INPUT};
use crate::build::build_module;
use crate::mask::{simulate_in, Fallthrough, MaskScratch};

/// Which way the two oracles disagreed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    /// The reference interpreter failed to run the program.
    #[error("subgroup size {subgroup_size}: the reference interpreter failed: {message}")]
    RefError {
        /// The subgroup size.
        subgroup_size: u32,
        /// The interpreter's error, as text.
        message: String,
    },
    /// The buffers differ; the first differing word is named.
    #[error(
        "subgroup size {subgroup_size}: word {word} (record {record}, invocation {invocation}): \
         reference {reference:#x}, mask {mask:#x}"
    )]
    Words {
        /// The subgroup size.
        subgroup_size: u32,
        /// The first differing word.
        word: usize,
        /// Its record number.
        record: usize,
        /// Its invocation.
        invocation: usize,
        /// The reference interpreter's word.
        reference: u32,
        /// The mask simulator's word.
        mask: u32,
    },
}

impl Mismatch {
    /// The subgroup size the disagreement shows at.
    pub fn subgroup_size(&self) -> u32 {
        match self {
            Mismatch::RefError { subgroup_size, .. } | Mismatch::Words { subgroup_size, .. } => {
                *subgroup_size
            }
        }
    }
}

/// The output buffer the reference interpreter computes for `module` at `subgroup_size`,
/// with room for `words` words, under the semantics `variant`.
pub fn run_reference(
    module: &Module,
    subgroup_size: u32,
    words: usize,
    variant: Variant,
) -> Result<Vec<u32>, String> {
    let mut it = prepare(module, subgroup_size, variant)?;
    let bytes = run_prepared(&mut it, subgroup_size, words)?;
    Ok(bytes
        .chunks(4)
        .take(words)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// The reference interpreter's dispatch of `module`'s `main` under `variant`, without the
/// trace (prepared once per program: the subgroup size is set per run).
fn prepare(
    module: &Module,
    subgroup_size: u32,
    variant: Variant,
) -> Result<Interpreter<'_>, String> {
    let config = Config {
        subgroup_size,
        record_trace: false,
        variant,
        ..Config::default()
    };
    Interpreter::new(module, "main", config).map_err(|e| e.to_string())
}

/// Runs the prepared dispatch at `subgroup_size` with a zeroed output buffer of `words`
/// words (at least one) and the input buffer; the output buffer's bytes afterwards.
fn run_prepared(
    it: &mut Interpreter<'_>,
    subgroup_size: u32,
    words: usize,
) -> Result<Vec<u8>, String> {
    it.set_subgroup_size(subgroup_size)
        .map_err(|e| e.to_string())?;
    it.bind_buffer(0, 0, vec![0; words.max(1) * 4]);
    it.bind_buffer(0, 1, INPUT.iter().flat_map(|w| w.to_le_bytes()).collect());
    let mut outcome = it.run().map_err(|e| e.to_string())?;
    Ok(outcome.buffers.remove(&(0, 0)).unwrap_or_default())
}

/// Builds `program`, runs it on the reference interpreter (under `variant`; prepared once,
/// run at each size) and on the mask simulator at each subgroup size, and returns the first
/// disagreement. (A [`Comparer`] does the same with the mask simulator's vectors kept
/// between programs.)
pub fn compare(
    program: &Program,
    subgroup_sizes: &[u32],
    variant: Variant,
) -> Result<(), Mismatch> {
    Comparer::default().compare(program, subgroup_sizes, variant)
}

/// Compares programs one after another, keeping the mask simulator's vectors
/// ([`MaskScratch`]) from one program to the next: one per thread of a campaign.
#[derive(Default)]
pub struct Comparer {
    mask: MaskScratch,
}

impl Comparer {
    /// What [`compare`] says of `program`.
    pub fn compare(
        &mut self,
        program: &Program,
        subgroup_sizes: &[u32],
        variant: Variant,
    ) -> Result<(), Mismatch> {
        let module = build_module(program);
        let mut it = None;
        for &subgroup_size in subgroup_sizes {
            let ref_error = |message| Mismatch::RefError {
                subgroup_size,
                message,
            };
            let mask = simulate_in(
                &mut self.mask,
                program,
                subgroup_size,
                Fallthrough::Independent,
            );
            let it = match &mut it {
                Some(it) => it,
                None => it.insert(prepare(&module, subgroup_size, variant).map_err(ref_error)?),
            };
            let bytes = run_prepared(it, subgroup_size, mask.word_count()).map_err(ref_error)?;
            // The records against the buffer in place first (the common case: they agree);
            // on any difference the mask's buffer is laid out and searched word by word.
            let Err(bytes) = mask.check(bytes) else {
                continue;
            };
            if let Some(m) = first_difference(program, subgroup_size, &bytes, &mask.words()) {
                return Err(m);
            }
        }
        Ok(())
    }
}

/// The first word where the reference's `bytes` (zero where missing) and the mask
/// oracle's `words` differ, as a mismatch at `subgroup_size`.
fn first_difference(
    program: &Program,
    subgroup_size: u32,
    bytes: &[u8],
    words: &[u32],
) -> Option<Mismatch> {
    let word_at = |i: usize| {
        bytes
            .get(4 * i..4 * i + 4)
            .map_or(0, |c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
    };
    // The whole buffer at once first; on any difference the word-by-word search finds
    // the first one.
    let differs = || (0..words.len()).find(|&i| word_at(i) != words[i]);
    let word = (!same_words(bytes, words)).then(differs).flatten()?;
    let per_record = program.local_size as usize * crate::ast::RECORD_WORDS as usize;
    Some(Mismatch::Words {
        subgroup_size,
        word,
        record: word / per_record,
        invocation: word % per_record / crate::ast::RECORD_WORDS as usize,
        reference: word_at(word),
        mask: words[word],
    })
}

/// Whether `bytes` begins with `words` as little-endian words: what finding no word `i`
/// with `bytes[4i..4i + 4]` (zero where missing) different from `words[i]` says, in one
/// pass without an early exit, so the compiler can vectorize it. `false` when `bytes` is
/// shorter than the words (the word-by-word search then decides).
fn same_words(bytes: &[u8], words: &[u32]) -> bool {
    bytes.len() >= 4 * words.len()
        && bytes.chunks_exact(4).zip(words).fold(0, |diff, (c, w)| {
            diff | (u32::from_le_bytes([c[0], c[1], c[2], c[3]]) ^ w)
        }) == 0
}

#[cfg(test)]
mod tests {
    use super::same_words;

    /// The word-by-word search `compare` falls back to: the first word that differs.
    fn first_difference(bytes: &[u8], words: &[u32]) -> Option<usize> {
        let word_at = |i: usize| {
            bytes
                .get(4 * i..4 * i + 4)
                .map_or(0, |c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        };
        (0..words.len()).find(|&i| word_at(i) != words[i])
    }

    #[test]
    fn same_words_says_what_the_word_search_says() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut agreeing = 0;
        for _ in 0..2000 {
            let n = (next() % 9) as usize;
            // Small values, so that equal words are common.
            let words: Vec<u32> = (0..n).map(|_| (next() % 3) as u32).collect();
            let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            match next() % 5 {
                0 => bytes.truncate((next() as usize) % (bytes.len() + 1)),
                1 => bytes.extend((0..next() % 6).map(|_| next() as u8)),
                2 if !bytes.is_empty() => {
                    let i = (next() as usize) % bytes.len();
                    bytes[i] ^= 1 << (next() % 8);
                }
                _ => {}
            }
            let same = same_words(&bytes, &words);
            // Equal means no difference; a missing word may still read as its zero.
            if same {
                agreeing += 1;
                assert_eq!(
                    first_difference(&bytes, &words),
                    None,
                    "{bytes:?} {words:?}"
                );
            } else if bytes.len() >= 4 * words.len() {
                assert!(
                    first_difference(&bytes, &words).is_some(),
                    "{bytes:?} {words:?}"
                );
            }
        }
        assert!(
            agreeing > 500,
            "the generator makes agreeing buffers ({agreeing})"
        );
    }
}
