//! Running a program on both oracles and comparing the output buffers.

use tangle_interp::{Config, Interpreter, Variant};
use tangle_ir::Module;

use crate::ast::{Program, INPUT};
use crate::build::build_module;
use crate::mask::simulate;

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
/// disagreement.
pub fn compare(
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
        let mask = simulate(program, subgroup_size);
        let it = match &mut it {
            Some(it) => it,
            None => it.insert(prepare(&module, subgroup_size, variant).map_err(ref_error)?),
        };
        let bytes = run_prepared(it, subgroup_size, mask.words.len()).map_err(ref_error)?;
        let word_at = |i: usize| {
            bytes
                .get(4 * i..4 * i + 4)
                .map_or(0, |c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        };
        if let Some(word) = (0..mask.words.len()).find(|&i| word_at(i) != mask.words[i]) {
            let per_record = program.local_size as usize * crate::ast::RECORD_WORDS as usize;
            return Err(Mismatch::Words {
                subgroup_size,
                word,
                record: word / per_record,
                invocation: word % per_record / crate::ast::RECORD_WORDS as usize,
                reference: word_at(word),
                mask: mask.words[word],
            });
        }
    }
    Ok(())
}
