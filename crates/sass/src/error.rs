//! Errors.

use thiserror::Error;

/// Everything that can go wrong while decoding, encoding, parsing or reading SASS.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SassError {
    /// An architecture name that is not one of sm_75, sm_80, sm_86, sm_89, sm_90.
    #[error("unknown architecture `{0}` (supported: sm_75, sm_80, sm_86, sm_89, sm_90)")]
    UnknownArch(String),
    /// A word that no form of the architecture explains bit for bit.
    #[error("unknown form on {arch}: opcode bits 0x{opcode:03x}{detail}")]
    UnknownForm {
        /// The architecture.
        arch: String,
        /// Bits 0-11 of the word.
        opcode: u16,
        /// What was close: the forms with this opcode and the bits that differ.
        detail: String,
    },
    /// Text that names an instruction form this crate does not know.
    #[error("line {line}: cannot encode `{text}` on {arch}: {why}")]
    CannotEncode {
        /// 1-based line number.
        line: usize,
        /// The instruction text.
        text: String,
        /// The architecture.
        arch: String,
        /// Why.
        why: String,
    },
    /// A typed instruction ([`crate::typed::MachInst`]) that its form cannot encode.
    #[error("cannot encode {name} on {arch}: {why}")]
    BadInst {
        /// The mnemonic with its modifiers.
        name: String,
        /// The architecture.
        arch: String,
        /// What is wrong, naming the operand by its position (0-based) where one is at fault.
        why: String,
    },
    /// Malformed text.
    #[error("line {line}:{col}: {msg}")]
    Parse {
        /// 1-based line number.
        line: usize,
        /// 1-based column.
        col: usize,
        /// What is wrong.
        msg: String,
    },
    /// A control annotation such as `[B------:R-:W0:Y:S04]` that does not parse.
    #[error("bad control annotation `{0}`: {1}")]
    BadControl(String, String),
    /// A raw-word file whose length is not a multiple of 16 bytes.
    #[error("raw SASS is {0} bytes long, not a multiple of 16")]
    RawLength(usize),
    /// A cubin that cannot be read.
    #[error("cannot read cubin: {0}")]
    Cubin(String),
}
