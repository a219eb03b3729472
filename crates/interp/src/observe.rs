//! An optional observer of every executed instruction, for checkers outside the engine
//! (the uniformity analysis's dynamic check): which tangle executed what, and each lane's
//! values of the SSA values it read or wrote.

use tangle_ir::{Block, Func, Inst, Value};

use crate::value::Val;
use crate::Mask;

/// Whether an observation gives an instruction's inputs or its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Before the instruction or terminator runs: its SSA value operands (phis excluded:
    /// each lane reads the operand of its own predecessor).
    Read,
    /// After it ran: its result (phis on block entry included; a call's result is set on
    /// return and is reported only where it is read).
    Wrote,
}

/// One executed instruction or terminator as an observer sees it.
#[derive(Clone, Debug)]
pub struct Observation<'a> {
    /// The workgroup id.
    pub workgroup: [u32; 3],
    /// The subgroup id within the workgroup.
    pub subgroup: u32,
    /// The function.
    pub func: Func,
    /// The block.
    pub block: Block,
    /// The instruction, or `None` for the block's terminator.
    pub inst: Option<Inst>,
    /// The tangle executing it.
    pub mask: Mask,
    /// Operands or result.
    pub access: Access,
    /// Each SSA value with one entry per lane of `mask`, in increasing lane order.
    pub values: &'a [(Value, Vec<Val>)],
}

/// Receives an [`Observation`] for every instruction a tangle executes
/// ([`crate::Interpreter::run_observed`]).
pub trait Observer {
    /// Called once per observation, in execution order.
    fn observe(&mut self, observation: &Observation<'_>);
}

impl crate::state::Run<'_, '_> {
    /// Shows the observer, if any, each lane of `mask`'s values of `values` (those a lane
    /// does not hold are left out).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn observe(
        &mut self,
        sg: &crate::state::Subgroup,
        func: Func,
        block: Block,
        inst: Option<Inst>,
        mask: Mask,
        access: Access,
        values: &[Value],
    ) {
        let Some(observer) = self.observer.as_deref_mut() else {
            return;
        };
        let per_value: Vec<(Value, Vec<Val>)> = values
            .iter()
            .filter_map(|&v| {
                crate::state::lanes_of(mask)
                    .map(|lane| {
                        sg.values
                            .get(func.as_u32() as usize)
                            .and_then(|f| f.vals.get(v.as_u32() as usize * sg.width + lane))
                            .and_then(|s| sg.store.get(s, &self.it.consts))
                    })
                    .collect::<Option<Vec<Val>>>()
                    .map(|vals| (v, vals))
            })
            .collect();
        observer.observe(&Observation {
            workgroup: self.workgroup,
            subgroup: sg.index,
            func,
            block,
            inst,
            mask,
            access,
            values: &per_value,
        });
    }
}
