//! The token engine: the machine run with [`Convergence::Tokens`](crate::Convergence), where
//! convergence-control tokens, not the issuing groups, decide which lanes execute a
//! subgroup operation together ("controlled maximal convergence", LLVM's
//! `ConvergentOperations.rst`; `docs/tokens.md`).
//!
//! Every dynamic token instance gets a *key*, and two lanes' instances converge exactly
//! when their keys are equal (`keys.rs`):
//!
//! - the entry point's frame is one key per subgroup (all its lanes start converged); a
//!   controlled call's frame is keyed by the call's instance (its token's key), so
//!   `conv_entry` in the callee converges exactly the lanes that made one call together;
//! - `conv_loop` on a token with key `P`, executed for the `n`-th time by a lane with that
//!   token value, has the key (`P`, `n`): LLVM's virtual loop counter;
//! - a subgroup operation controlled by a token with key `K` runs over every lane that
//!   reaches it holding `K`;
//! - `conv_anchor` is implementation-defined; the engine takes the maximal choice: the
//!   lanes of one call frame at the anchor wait for every lane of that frame that can still
//!   reach it, and leave with one fresh key (`rendezvous.rs`).
//!
//! Since the key of a lane's instance is a function of the lane's own path (anchors
//! aside), the lanes that belong together are known in advance but not when they will
//! all have arrived: a lane at a subgroup operation or an anchor waits (a *rendezvous*)
//! until no other live lane of its subgroup may still arrive there with the same key
//! (`reach.rs`, a static reachability question from each lane's position). Groups and
//! scheduling policies are the barrier machine's: they change the order lanes run in,
//! never who is together.

mod keys;
mod reach;
mod rendezvous;

pub(crate) use keys::{KeyId, TokenFrame, TokenState};
pub(crate) use rendezvous::handles;

use tangle_ir::{Func, Module, Op, TangleOp};

use crate::error::{MachineError, Position, R};

/// Refuses, before a run, what the token engine gives no meaning to in the functions
/// `entry` reaches: the warp-barrier operations (convergence comes from tokens alone) and
/// uncontrolled convergent operations (subgroup operations without a token, calls of
/// convergent functions without one), whose convergence LLVM leaves to heuristics.
/// Workgroup barriers wait for the whole workgroup whatever their token.
pub(crate) fn check(module: &Module, entry: Func) -> R<()> {
    for (f, func) in module.funcs.iter() {
        if !tangle_ir::cfg::call_graph_reaches(module, entry, f) {
            continue;
        }
        for &b in &func.layout {
            for &i in &func.blocks[b].insts {
                let id = &func.insts[i];
                let at = Position {
                    func: f,
                    block: b,
                    inst: Some(i),
                };
                let what = match &id.op {
                    Op::Tangle(TangleOp::BarSet | TangleOp::BarSync | TangleOp::BarBreak) => {
                        "a warp-barrier operation: the token engine takes convergence from tokens alone"
                    }
                    Op::Tangle(_) | Op::ControlBarrier { .. } => continue,
                    _ if id.conv.is_none()
                        && tangle_ir::verify::tokens::is_convergent_inst(module, func, i) =>
                    {
                        "an uncontrolled convergent operation: the token engine runs token-annotated functions (infer the tokens first)"
                    }
                    _ => continue,
                };
                return Err(MachineError::Config(format!("{at}: {what}")));
            }
        }
    }
    Ok(())
}
