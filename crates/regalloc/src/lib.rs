//! tangle's register allocator for SM75–SM90 SASS: SSA values of five register classes
//! (GPRs with aligned pairs and quads, predicates, uniform registers, uniform predicates and
//! convergence-barrier registers) get physical registers, with spilling to each class's
//! limit and φs lowered to parallel copies. The input is a generic machine function
//! ([`Function`]); the output ([`Allocation`]) gives every operand its register and lists the
//! moves to insert. `docs/regalloc.md` describes both forms, the algorithm and the SASS each
//! move needs.
//!
//! ```
//! use tangle_regalloc::{allocate, check::check, Block, Def, Function, Inst, Limits, RegClass, Use};
//!
//! let mut f = Function::default();
//! let a = f.new_value(RegClass::Gpr, 1); // a 32-bit value
//! let p = f.new_value(RegClass::Gpr, 2); // a 64-bit value: an aligned pair
//! f.blocks.push(Block {
//!     insts: vec![
//!         Inst { defs: vec![Def::new(a)], ..Default::default() },
//!         Inst { defs: vec![Def::new(p)], uses: vec![Use::new(a)], ..Default::default() },
//!         Inst { uses: vec![Use::new(p)], branch: true, ..Default::default() },
//!     ],
//!     ..Default::default()
//! });
//! let alloc = allocate(&f, &Limits::HARDWARE)?;
//! let pair = alloc.insts[0][1].defs[0];
//! assert_eq!(pair.index % 2, 0);
//! assert_eq!(alloc.regs_used.of(RegClass::Gpr), 2); // `a` dies where `p` is born
//! check(&f, &Limits::HARDWARE, &alloc).expect("the symbolic checker agrees");
//! # Ok::<(), tangle_regalloc::AllocError>(())
//! ```

mod alloc;
pub mod check;
mod error;
mod function;
mod inst;
mod join;
mod liveness;
mod loops;
mod output;
mod slots;
mod state;
mod validate;
mod walk;

pub use alloc::{allocate, allocate_reserving, allocate_with, Options};
pub use error::AllocError;
pub use function::{
    Block, BlockId, Def, DefConstraint, Function, Inst, Limits, Phi, RegClass, Use, ValueId,
    ValueInfo,
};
pub use output::{Allocation, ClassCounts, Edit, Location, OperandRegs, PhysReg, Position};
