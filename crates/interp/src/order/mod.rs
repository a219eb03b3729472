//! Order-dependent values: results and bytes that depend on the order in which racing
//! atomics of different invocations land, an order SPIR-V leaves open (`docs/interp.md`,
//! "Order-dependent values").
//!
//! Two runs. The first ([`Races`]) records, per atomically accessed location, which
//! invocations accessed it and with which operations. Only when some location raced and
//! either its final value depends on the order (non-commutative operations, or a mix of
//! kinds, from several invocations) or an atomic's returned value there is used does a
//! second run follow, with a [`Taint`]: the same execution (taint never changes a value,
//! a branch or the schedule), with a shadow bit per lane value and per memory byte saying
//! "order-dependent", propagated like poison but legal to branch on. A branch on such a
//! value marks the construct instance it controls; everything defined or stored while a
//! tangle runs inside a marked instance is order-dependent too.
//!
//! The module by concern: [`races`] is the first run's record and its verdict, [`taint`]
//! the second run's memory shadow and the per-buffer outcome, [`values`] the shadow of
//! each instruction's result and the memory it writes, [`control`] the shadow of control
//! flow (branches, escapes, exits, phis) and what a construct may write.

mod control;
mod races;
mod taint;
mod values;

use crate::decode::Src;
use crate::state::{Run, Subgroup, Tangle};

pub(crate) use races::Races;
pub use taint::OrderDependent;
pub(crate) use taint::Taint;

/// The shadow bit of lane `lane`'s value `v` of function `fi`.
fn tainted(sg: &Subgroup, fi: usize, v: u32, lane: usize) -> bool {
    sg.values[fi]
        .taint
        .get(v as usize * sg.width + lane)
        .copied()
        .unwrap_or(false)
}

/// Sets the shadow bit of lane `lane`'s value `v` of function `fi`.
fn set_tainted(sg: &mut Subgroup, fi: usize, v: u32, lane: usize, od: bool) {
    let w = sg.width;
    let fv = &mut sg.values[fi];
    let i = v as usize * w + lane;
    if fv.taint.len() <= i {
        if !od {
            return;
        }
        fv.taint.resize(fv.vals.len().max(i + 1), false);
    }
    fv.taint[i] = od;
}

/// Whether operand `src` of lane `lane` (in function `fi`) is order-dependent.
fn src_tainted(sg: &Subgroup, fi: usize, src: Src, lane: usize) -> bool {
    match src {
        Src::Value(v) => tainted(sg, fi, v, lane),
        Src::Const(_) | Src::Global(_) => false,
    }
}

impl Run<'_, '_> {
    /// Whether tangle `t` runs under order-dependent control: inside a marked construct
    /// instance, or in a subgroup where lanes ended under such control.
    pub(crate) fn order_control(sg: &Subgroup, t: &Tangle) -> bool {
        sg.order_dependent || t.stack.iter().any(|&i| sg.inst(i).order_dependent)
    }
}
