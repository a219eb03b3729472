//! Reads LLVM IR text into tangle's IR (`docs/tokens.md`, "LLVM IR"). Errors carry the
//! `line:column` of what could not be read; the module that comes back has not been
//! verified (`tangle validate` does that, so a `.ll` file that breaks a token rule reads
//! fine and then fails verification, as with `opt`).

mod ast;
mod build;
mod lexer;
mod parse;

pub use lexer::Pos;

/// Why a text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}:{}: {message}", pos.line, pos.col)]
pub struct ReadError {
    /// Where.
    pub pos: Pos,
    /// What.
    pub message: String,
}

impl ReadError {
    pub(crate) fn at(pos: Pos, message: impl Into<String>) -> Self {
        ReadError {
            pos,
            message: message.into(),
        }
    }
}

/// Reads a module of LLVM IR text.
pub fn read(text: &str) -> Result<tangle_ir::Module, ReadError> {
    let toks = lexer::lex(text)?;
    let ast = parse::Parser::new(toks).module()?;
    build::build(&ast)
}
