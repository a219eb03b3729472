//! tangle's intermediate representation.
//!
//! An SSA control-flow graph with typed `u32` entity indices, SPIR-V-style structured
//! control flow (merge annotations on header blocks), a text form that round-trips
//! ([`text::print`] / [`text::parse`]), and a verifier that collects every error with its
//! location ([`verify::verify`]).

pub mod analysis;
pub mod builder;
pub mod cfg;
pub mod entity;
pub mod exec;
pub mod glsl;
pub mod hash;
pub mod list;
pub mod module;
pub mod operands;
pub mod ops;
pub mod passes;
pub mod pipeline;
pub mod ssa_repair;
pub mod text;
pub mod types;
pub mod verify;

pub use list::SmallList;
pub use module::{
    Block, BlockData, Const, ConstData, ConstValue, EntryPoint, ExecMode, Form, Func, Function,
    Global, GlobalData, GlobalDecorations, Inst, InstData, InstList, Merge, Module, Operand,
    Terminator, Value, ValueData, ValueDef,
};
pub use operands::Operands;
pub use ops::{
    AtomicOp, ConvOperand, Forms, GroupOp, GroupOperation, Literals, MemAccess, Op, PhiBlocks,
    PlainOp, TangleOp, ValueKind,
};
pub use types::{MatrixLayout, Member, MemberFlag, Type, TypeData, TypeTable};
