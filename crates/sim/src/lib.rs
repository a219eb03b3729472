//! tangle's SASS warp simulator: runs the kernels of a cubin (ptxas's or tangle's own) for
//! SM75-SM90 the way a Volta+ warp runs them under independent thread scheduling.
//!
//! * [`kernel`] loads a kernel from a cubin: its code (decoded once with `tangle-sass`'s
//!   typed API), its parameter layout in constant bank 0, its shared memory and constant
//!   banks.
//! * [`launch`] describes a launch (grid, block, dynamic shared memory, arguments) and
//!   builds constant bank 0 as ptxas expects it.
//! * [`engine`] runs a launch under a scheduling policy of `tangle-sched` and a
//!   [`BarrierModel`]: the convergence model of `../shared/barrier-semantics.md` or one of
//!   the three rules it rejects. Deadlocks and livelocks are errors naming every group's
//!   lanes and program counter; budgets bound every run.
//!
//! The operations are written from the instruction set (`alu`, `float`, `memops`,
//! `warpops`), apart from the reference interpreter: the simulator is an independent
//! engine. See `docs/sim.md`.

mod alu;
mod control;
mod converge;
pub mod engine;
pub mod error;
pub mod explore;
mod float;
mod half;
pub mod hazard;
pub mod kernel;
pub mod launch;
mod memops;
pub mod memory;
pub mod module;
mod operands;
mod round;
pub mod warp;
mod warpops;

pub use engine::{run, BarrierModel, Hazard, Options, RunOutput, WarpCycles, SUPPORTED};
pub use error::{FaultKind, SimError, Site, StuckGroup};
pub use explore::{explore, Exploration};
pub use kernel::{load, Kernel, Param};
pub use launch::{Arg, Dim3, Launch};
