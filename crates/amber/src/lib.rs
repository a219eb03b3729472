//! AmberScript (google/amber's test format, used by the Vulkan CTS) for compute pipelines.
//!
//! [`parse`] turns a script into a [`Script`]: shaders (text verbatim), buffers with their
//! element type and std430/std140 layout ([`Buffer::initial_bytes`]), pipelines with their
//! bindings, specialization constants and subgroup size control, and the ordered list of
//! [`Command`]s (`RUN`, `EXPECT`, `COPY`, `REPEAT`) a runner executes. [`check_expect`]
//! checks one `EXPECT` against buffer contents and reports the first mismatch as amber does.
//!
//! Anything outside the supported subset is an [`ErrorKind::Unsupported`] error with its
//! line and column, never silently skipped. See `docs/amber.md`.

pub mod error;
pub mod expect;
pub mod file_data;
mod lexer;
pub mod model;
mod parser;
pub mod suggest;
mod swar;

pub use error::{AmberError, ErrorKind, Pos};
pub use expect::{check_expect, ExpectFailure, FailureKind};
pub use file_data::file_initial_bytes;
pub use model::*;
pub use parser::parse;
