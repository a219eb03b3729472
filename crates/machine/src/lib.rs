//! tangle's barrier machine: an interpreter of the *lowered* form of the IR that runs a
//! subgroup the way a Volta+ NVIDIA warp runs under independent thread scheduling, to
//! check that a reconvergence lowering gives, under every legal schedule, the tangles the
//! reference interpreter gives.
//!
//! The model (`../shared/barrier-semantics.md` §(a); `docs/machine.md`):
//! - a subgroup is a set of *groups*, each a set of lanes at one program point that issue
//!   together; a conditional branch or switch splits a group, and groups merge only where
//!   a `bar_sync` releases lanes (or, under the `opportunistic` stress policy, when they
//!   stand at the same point);
//! - every lane holds its own copy of every barrier value it has set (its mask and a
//!   break flag); `bar_set`, `bar_sync`, `bar_break` and `exit` act on the issuing group's
//!   lanes' copies only;
//! - subgroup operations see exactly the issuing group;
//! - the order groups issue in comes from the shared scheduling vocabulary
//!   (`tangle-sched`): strict, opportunistic, round-robin, adversarial, random:SEED and
//!   exhaustive (a bounded search of every interleaving).
//!
//! Per-lane arithmetic, memory, subgroup operations, built-ins and constants are
//! `tangle-lanes`'s, shared with the reference interpreter; the control flow here is
//! written apart from it, so each can catch the other.
//!
//! Layout: [`Machine`] (`machine.rs`) prepares and runs a dispatch; `dispatch.rs` sets up
//! a workgroup; `schedule.rs` picks groups, merges, handles workgroup barriers and
//! reports stuck runs; `exec.rs` issues instructions, `control.rs` terminators,
//! `barrier.rs` the warp-barrier operations and their release rule, `memory.rs` memory
//! instructions; `explore.rs` is the exhaustive search over copies of the
//! state, `search.rs` its part inside a run, `shared.rs` the memory words it interleaves at.

mod barrier;
mod config;
mod control;
mod decode;
mod dispatch;
mod error;
mod exec;
mod explore;
mod machine;
mod memory;
mod outcome;
mod schedule;
mod search;
mod shared;
mod state;
mod step;
mod tokens;

pub use config::{Convergence, MachineConfig, EXHAUSTIVE_MAX_SUBGROUP, SUPPORTED_POLICIES};
pub use error::{GroupReport, GroupState, MachineError, Position, Stuck, UndefinedUse};
pub use machine::Machine;
pub use outcome::{BarrierStats, Outcome, SearchSummary, TraceEntry};
pub use tangle_sched::{ExhaustiveBound, Policy};
