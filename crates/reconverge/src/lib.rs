//! tangle's reconvergence lowering (issue 14): the [`lower`] pass, and the *uniformity analysis* it rests on:
//! which SSA values hold one value per tangle and which branches never split a tangle, the
//! facts the lowering needs to give uniform control flow no barrier at all.
//!
//! Layout: [`uniformity`] runs the analysis over a module (the fixpoint, call summaries and
//! the public result); `values.rs` holds the per-instruction rules (which operations make
//! or keep a value uniform, loads and built-ins included); `memory.rs` the pointer roots
//! and which globals the module writes; `control.rs` what a divergent branch does to the
//! values after it (phis at joins, values leaving a loop with divergent exits, values
//! leaving a divergent switch); [`annotate`] prints the result as an annotated IR listing.
//! The rules and their justification are in
//! `docs/reconverge.md`.

mod control;
mod memory;
mod values;

pub mod annotate;
pub mod lower;
pub mod uniformity;

pub use annotate::annotate;
pub use lower::{lower_module, lower_module_owned, LowerError, LowerOptions, Scheme};
pub use uniformity::{FunctionUniformity, Uniformity};
