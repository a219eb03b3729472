//! Parse errors, each with the line and column (both 1-based) of the token at fault.

use std::fmt;

/// A 1-based line and column in the script text (columns count characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Pos {
    /// Line, starting at 1.
    pub line: u32,
    /// Column, starting at 1.
    pub column: u32,
}

impl Pos {
    /// A position from a line and column.
    pub fn new(line: u32, column: u32) -> Self {
        Pos { line, column }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Why a script was rejected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ErrorKind {
    /// The first line is not `#!amber`.
    #[error("the script must start with `#!amber`")]
    MissingHeader,
    /// A command or option that AmberScript has but this crate does not implement, or one
    /// AmberScript does not have at all.
    #[error("unsupported command: {0}")]
    Unsupported(String),
    /// Something other than what the grammar allows here.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What the grammar allows.
        expected: String,
        /// What the script has (`end of line`, `end of file` or the token in backquotes).
        found: String,
    },
    /// A name that was never declared.
    #[error("unknown {kind} `{name}`")]
    Unknown {
        /// `shader`, `buffer`, `pipeline`, `virtual file`.
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// A name declared twice.
    #[error("{kind} `{name}` is already declared")]
    Duplicate {
        /// `shader`, `buffer`, `pipeline`, `virtual file`.
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// A number that cannot be read, or does not fit the type it is for.
    #[error("invalid {what}: `{text}`")]
    BadNumber {
        /// What the number is for (`uint32 value`, `workgroup count`, ...).
        what: String,
        /// The token.
        text: String,
    },
    /// A block (`SHADER`, `PIPELINE`, `DATA`, `REPEAT`, ...) without its `END`.
    #[error("`{0}` block has no END")]
    MissingEnd(String),
    /// Any other semantic error, in words.
    #[error("{0}")]
    Invalid(String),
}

/// A parse error: what went wrong and where.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{pos}: {kind}")]
pub struct AmberError {
    /// Position of the offending token (or of the block opener for a missing `END`).
    pub pos: Pos,
    /// What went wrong.
    pub kind: ErrorKind,
}

impl AmberError {
    /// An error at `pos`.
    pub fn new(pos: Pos, kind: ErrorKind) -> Self {
        AmberError { pos, kind }
    }
}
