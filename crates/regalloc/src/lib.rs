//! tangle's register allocator for SM75–SM90 SASS: SSA values of five register classes
//! (GPRs with aligned pairs and quads, predicates, uniform registers, uniform predicates and
//! convergence-barrier registers) get physical registers, with spilling to each class's
//! limit and φs lowered to parallel copies. The input is a generic machine function
//! ([`Function`]); the output ([`Allocation`]) gives every operand its register and lists the
//! moves to insert. `docs/regalloc.md` describes both forms, the algorithm and the SASS each
//! move needs.

mod alloc;
pub mod check;
mod error;
mod function;
mod inst;
mod join;
mod liveness;
mod output;
mod state;
mod validate;
mod walk;

pub use alloc::allocate;
pub use error::AllocError;
pub use function::{
    Block, BlockId, Def, DefConstraint, Function, Inst, Limits, Phi, RegClass, Use, ValueId,
    ValueInfo,
};
pub use output::{Allocation, ClassCounts, Edit, Location, OperandRegs, PhysReg, Position};
