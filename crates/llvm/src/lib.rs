//! LLVM IR text (`.ll`) in and out, for the subset that token-annotated code needs
//! (`docs/tokens.md`, "LLVM IR"): [`write`] prints a module as LLVM IR that LLVM's `opt`
//! reads, and [`read`] parses such text into tangle's IR with typed errors at
//! `line:column`. [`mapping`] holds the correspondence both follow.

pub mod mapping;
pub mod read;
pub mod write;

pub use read::{read, read_with_map, ReadError, SourceMap};
pub use write::{write, WriteError};
