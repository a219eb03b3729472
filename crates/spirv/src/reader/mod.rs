//! Reads SPIR-V binary modules into tangle's IR.
//!
//! Every problem with the input is a [`ReadError`] naming the word offset and instruction
//! index where it was found. Modules that read fine may still break rules; the IR verifier
//! (`tangle_ir::verify`) reports those.

mod binary;
mod check;
mod decode;
mod function;
pub mod fuzz;
mod module;
pub mod origins;
mod types;

pub use origins::{Origin, OriginOpcode, Origins};

use std::fmt;

use tangle_ir::Module;

/// Where in a binary module a problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// The offset, in 32-bit words from the start of the module, of the instruction (or of the
    /// header word) at fault.
    pub word: usize,
    /// The index of the instruction (from 0, not counting the header), when the problem is in
    /// one.
    pub index: Option<usize>,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.index {
            Some(i) => write!(f, "word {} (instruction {i})", self.word),
            None => write!(f, "word {}", self.word),
        }
    }
}

/// What is wrong with the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadErrorKind {
    /// The module ends in the middle of the header or of an instruction.
    Truncated(String),
    /// The header is not a SPIR-V header we read (magic number, version).
    BadHeader(String),
    /// An opcode that SPIR-V does not define.
    UnknownOpcode(u16),
    /// An instruction whose operands do not follow the grammar.
    Malformed(String),
    /// An id that is used but never defined.
    UndefinedId(u32),
    /// An id defined twice.
    Redefined(u32),
    /// A declaration SPIR-V allows only once: a non-aggregate type, a decoration on one target.
    Duplicate(String),
    /// An id of the wrong kind (e.g. a value where a type is needed).
    WrongId {
        /// The id.
        id: u32,
        /// What was needed.
        expected: &'static str,
    },
    /// A capability tangle does not support (see `docs/spirv-frontend.md`).
    UnsupportedCapability(spirv::Capability),
    /// A valid SPIR-V feature tangle does not support yet.
    Unsupported(String),
    /// An instruction that may not appear where it does.
    Misplaced(String),
}

impl fmt::Display for ReadErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadErrorKind::Truncated(s) => write!(f, "truncated module: {s}"),
            ReadErrorKind::BadHeader(s) => write!(f, "bad header: {s}"),
            ReadErrorKind::UnknownOpcode(op) => write!(f, "unknown opcode {op}"),
            ReadErrorKind::Malformed(s) => write!(f, "malformed instruction: {s}"),
            ReadErrorKind::UndefinedId(id) => write!(f, "id %{id} is never defined"),
            ReadErrorKind::Redefined(id) => write!(f, "id %{id} is defined twice"),
            ReadErrorKind::Duplicate(s) => write!(f, "duplicate declaration: {s}"),
            ReadErrorKind::WrongId { id, expected } => {
                write!(f, "id %{id} is not {expected}")
            }
            ReadErrorKind::UnsupportedCapability(c) => {
                write!(f, "capability {c:?} is not supported")
            }
            ReadErrorKind::Unsupported(s) => write!(f, "not supported: {s}"),
            ReadErrorKind::Misplaced(s) => write!(f, "misplaced instruction: {s}"),
        }
    }
}

/// A problem reading a SPIR-V module.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ReadError {
    /// What is wrong.
    pub kind: ReadErrorKind,
    /// Where, when it is known.
    pub pos: Option<Position>,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pos {
            Some(p) => write!(f, "{p}: {}", self.kind),
            None => write!(f, "{}", self.kind),
        }
    }
}

/// The capabilities tangle reads.
pub const SUPPORTED_CAPABILITIES: &[spirv::Capability] = &[
    spirv::Capability::Shader,
    spirv::Capability::Matrix,
    spirv::Capability::DenormPreserve,
    spirv::Capability::SignedZeroInfNanPreserve,
    spirv::Capability::RoundingModeRTE,
    spirv::Capability::VulkanMemoryModel,
    spirv::Capability::VulkanMemoryModelDeviceScope,
    spirv::Capability::Int8,
    spirv::Capability::Int16,
    spirv::Capability::Int64,
    spirv::Capability::Int64Atomics,
    spirv::Capability::Float16,
    spirv::Capability::Float64,
    spirv::Capability::GroupNonUniform,
    spirv::Capability::GroupNonUniformVote,
    spirv::Capability::GroupNonUniformArithmetic,
    spirv::Capability::GroupNonUniformBallot,
    spirv::Capability::GroupNonUniformShuffle,
    spirv::Capability::GroupNonUniformShuffleRelative,
    spirv::Capability::GroupNonUniformClustered,
    spirv::Capability::GroupNonUniformQuad,
    spirv::Capability::StorageBuffer8BitAccess,
    spirv::Capability::UniformAndStorageBuffer8BitAccess,
    spirv::Capability::StoragePushConstant8,
    spirv::Capability::StorageBuffer16BitAccess,
    spirv::Capability::UniformAndStorageBuffer16BitAccess,
    spirv::Capability::StoragePushConstant16,
    spirv::Capability::WorkgroupMemoryExplicitLayoutKHR,
    spirv::Capability::VariablePointers,
    spirv::Capability::VariablePointersStorageBuffer,
    spirv::Capability::ShaderNonUniform,
];

/// Reads a binary SPIR-V module (little-endian bytes).
pub fn read_binary(bytes: &[u8]) -> Result<Module, ReadError> {
    read_binary_with_origins(bytes).map(|(module, _)| module)
}

/// Reads a binary SPIR-V module, and where each IR instruction came from in it (for
/// messages that name SPIR-V ids and source lines).
pub fn read_binary_with_origins(bytes: &[u8]) -> Result<(Module, Origins), ReadError> {
    let raw = binary::parse(bytes)?;
    check::check(&raw)?;
    module::lower(&raw)
}

/// Reads a binary SPIR-V module given as words.
pub fn read_words(words: &[u32]) -> Result<Module, ReadError> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    read_binary(&bytes)
}
