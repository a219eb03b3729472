//! Reads LLVM IR text into tangle's IR (`docs/tokens.md`, "LLVM IR"). Errors carry the
//! `line:column` of what could not be read; the module that comes back has not been
//! verified (`tangle validate` does that, so a `.ll` file that breaks a token rule reads
//! fine and then fails verification, as with `opt`).

mod ast;
mod build;
mod lexer;
mod parse;

use std::collections::HashMap;

use tangle_ir::module::{Block, Func, Value};
use tangle_ir::verify::{Location, Point};

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
    read_with_map(text).map(|(m, _)| m)
}

/// Reads a module of LLVM IR text, with where each of its functions, blocks, values and
/// instructions came from, so that the verifier's errors can name the text.
pub fn read_with_map(text: &str) -> Result<(tangle_ir::Module, SourceMap), ReadError> {
    let toks = lexer::lex(text)?;
    let ast = parse::Parser::new(toks).module()?;
    build::build(&ast)
}

/// Where the IR read from LLVM IR text came from: LLVM's names and positions.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    funcs: HashMap<Func, String>,
    blocks: HashMap<(Func, Block), String>,
    values: HashMap<(Func, Value), String>,
    insts: HashMap<(Func, Block, usize), Pos>,
    terms: HashMap<(Func, Block), Pos>,
}

impl SourceMap {
    /// The text's view of a verifier location: `line L, @f, %block, %value`, as far as
    /// the location goes.
    pub fn describe(&self, loc: &Location) -> Option<String> {
        let f = loc.func?;
        let mut parts = Vec::new();
        let pos = match (loc.block, loc.point) {
            (Some(b), Some(Point::Inst(k))) => self.insts.get(&(f, b, k)),
            (Some(b), Some(Point::Terminator)) => self.terms.get(&(f, b)),
            _ => None,
        };
        if let Some(p) = pos {
            parts.push(format!("line {}", p.line));
        }
        parts.push(format!("@{}", self.funcs.get(&f)?));
        if let Some(name) = loc.block.and_then(|b| self.blocks.get(&(f, b))) {
            parts.push(format!("block %{name}"));
        }
        if let Some(name) = loc.value.and_then(|v| self.values.get(&(f, v))) {
            parts.push(format!("%{name}"));
        }
        Some(parts.join(", "))
    }
}
