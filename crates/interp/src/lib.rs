//! tangle's reference interpreter: runs a compute entry point of an IR module with the exact
//! tangle semantics of SPIR-V maximal reconvergence (`SPV_KHR_maximal_reconvergence`).
//!
//! The model (see `docs/interp.md`): every tangle carries a stack of *construct
//! instances* (selection, loop, loop iteration, call). An instance records its participants
//! (the lanes that entered it, minus those that escaped it or terminated) and the lanes
//! that have arrived at its reconvergence point. When every participant has arrived, the
//! arrivals continue as one tangle. Implementation-defined choices are named policies.
//!
//! Layout: [`Interpreter`] (`interpreter.rs`) prepares and runs a dispatch; `dispatch.rs`
//! sets up a workgroup's subgroups; `schedule.rs` picks tangles and handles barriers,
//! deadlock and the step budget; `exec.rs` and `terminator.rs` execute instructions and
//! terminators; `construct.rs` holds construct instances and reconvergence; `memory.rs`
//! loads, stores and atomics; `state.rs` the engine state, `slot.rs` how it holds one
//! lane's value. Per-invocation semantics (values,
//! undefined values, per-lane ops, subgroup ops, memory, built-ins, constants) are shared
//! with the other engines in `tangle-lanes`; only control flow is this crate's own.

/// Descriptors that view bound buffers, and descriptor arrays (shared: `tangle-lanes`).
pub use tangle_lanes::descriptors;
/// Subgroup operations (shared with other engines: `tangle-lanes`).
pub use tangle_lanes::group;
/// Values and per-lane ops (shared with other engines: `tangle-lanes`).
pub use tangle_lanes::value;

mod config;
mod construct;
mod decode;
mod dispatch;
mod error;
mod exec;
mod fast;
mod interpreter;
mod memory;
mod observe;
mod order;
mod phis;
mod recycle;
mod schedule;
mod short;
mod slot;
mod state;
mod terminator;
mod trace;

pub use config::{Config, FallthroughPolicy, SchedulePolicy, SwitchPolicy, Variant};
pub use error::{InterpError, Position, UndefinedUse};
pub use interpreter::Interpreter;
pub use observe::{Access, Observation, Observer};
pub use order::OrderDependent;
pub use trace::{Outcome, TraceEntry};

pub use tangle_lanes::Mask;
