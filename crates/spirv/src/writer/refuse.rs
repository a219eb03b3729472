//! What the writer refuses: the parts of tangle's IR that SPIR-V cannot express.
//!
//! A lowered function (unstructured control flow), a tangle-only operation (tokens, warp
//! barriers, `exit`), a convergence-control operand and a tangle-only type (`token`,
//! `barrier`) have no SPIR-V form. The writer checks the whole module first and returns the
//! first of them as a typed error with its position, before it writes anything.

use tangle_ir::types::Type;
use tangle_ir::verify::{Location, Point};
use tangle_ir::{Form, Func, Module};

/// Why a module cannot be written as SPIR-V.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// The function is in lowered form: SPIR-V needs structured control flow.
    #[error(
        "{func}: a lowered function has no SPIR-V form (SPIR-V needs structured control flow)"
    )]
    LoweredFunction {
        /// The function.
        func: Func,
    },
    /// An operation without a SPIR-V opcode.
    #[error("{loc}: `{op}` has no SPIR-V opcode")]
    TangleOnlyOp {
        /// Where it is.
        loc: Location,
        /// Its mnemonic.
        op: &'static str,
    },
    /// A convergence-control operand (SPIR-V has no convergence tokens).
    #[error("{loc}: a convergence-control operand has no SPIR-V form")]
    ConvergenceControl {
        /// The instruction that carries it.
        loc: Location,
    },
    /// A type without a SPIR-V type.
    #[error("{ty}: type `{name}` has no SPIR-V form")]
    TangleOnlyType {
        /// The type.
        ty: Type,
        /// Its text spelling.
        name: String,
    },
}

/// The first part of `module` SPIR-V cannot express, if any.
pub(super) fn check(module: &Module) -> Result<(), WriteError> {
    for (ty, data) in module.types.iter() {
        if data.is_tangle_only() {
            return Err(WriteError::TangleOnlyType {
                ty,
                name: tangle_ir::text::type_ref(&module.types, ty),
            });
        }
    }
    for (f, func) in module.funcs.iter() {
        if func.form == Form::Lowered {
            return Err(WriteError::LoweredFunction { func: f });
        }
        for &b in &func.layout {
            for (k, &i) in func.blocks[b].insts.iter().enumerate() {
                let inst = &func.insts[i];
                let loc = Location {
                    func: Some(f),
                    block: Some(b),
                    point: Some(Point::Inst(k)),
                    value: inst.result,
                };
                if inst.op.is_tangle_only() {
                    return Err(WriteError::TangleOnlyOp {
                        loc,
                        op: inst.op.mnemonic(),
                    });
                }
                if inst.conv.is_some() {
                    return Err(WriteError::ConvergenceControl { loc });
                }
            }
        }
    }
    Ok(())
}
