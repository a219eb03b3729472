//! The text form of the IR: [`print()`] writes it, [`parse`] reads it back, and
//! `print(parse(print(m))) == print(m)` for every module.
//!
//! The grammar is documented in `docs/ir.md`.

mod lexer;
mod parse;
mod print;

pub use lexer::Pos;
pub use parse::{parse, ParseError, TEXT_INDEX_LIMIT};
pub use print::{print, type_ref};
