//! What a run produces: the buffers afterwards and the trace of subgroup operations.

use std::collections::BTreeMap;

use tangle_ir::{Func, Inst};

use crate::Mask;

/// One dynamic subgroup operation: which tangle executed it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct TraceEntry {
    /// The workgroup id.
    pub workgroup: [u32; 3],
    /// The subgroup id within the workgroup.
    pub subgroup: u32,
    /// The function.
    pub func: Func,
    /// The instruction.
    pub inst: Inst,
    /// The tangle (subgroup invocation ids).
    pub mask: Mask,
}

/// The result of a run.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Every bound buffer after the run, by (set, binding).
    pub buffers: BTreeMap<(u32, u32), Vec<u8>>,
    /// For each bound buffer the run left with undefined bytes, per byte whether it is
    /// undefined (the bytes underneath are zero). Buffers absent here are fully defined.
    /// Engines compared with this one treat these bytes as wildcards.
    pub undefined: BTreeMap<(u32, u32), Vec<bool>>,
    /// For each bound buffer the run left with order-dependent bytes (bytes that depend on
    /// the order in which racing atomics of different invocations landed, which SPIR-V
    /// leaves open: `docs/interp.md`, "Order-dependent values"), which bytes and where
    /// they came from. Engines compared with this one treat these bytes as wildcards too.
    pub order_dependent: BTreeMap<(u32, u32), crate::OrderDependent>,
    /// Bytes of memory the run allocated in all: buffers, push constants, and the variables
    /// of every workgroup, lane and call (a function variable's memory is reused by the
    /// lane's next call, so this does not grow with the number of calls).
    pub memory_bytes: u64,
    /// The subgroup operations in execution order (empty unless recorded).
    pub trace: Vec<TraceEntry>,
    /// Tangle-instructions executed.
    pub steps: u64,
    /// Lane-instructions executed (each tangle-instruction counts its lanes).
    pub lane_steps: u64,
}

impl Outcome {
    /// Per byte of the buffer at `key`, whether it is a wildcard for an engine compared with
    /// this run (undefined or order-dependent); `None` when none is.
    pub fn wildcards(&self, key: (u32, u32)) -> Option<Vec<bool>> {
        let undefined = self.undefined.get(&key);
        let order = self.order_dependent.get(&key).map(|o| &o.bytes);
        match (undefined, order) {
            (None, None) => None,
            (Some(u), None) => Some(u.clone()),
            (None, Some(o)) => Some(o.clone()),
            (Some(u), Some(o)) => Some(u.iter().zip(o).map(|(a, b)| *a || *b).collect()),
        }
    }

    /// Whether byte `byte` of the buffer at `key` is a wildcard for an engine compared with
    /// this run: undefined, or order-dependent.
    pub fn is_wildcard(&self, key: (u32, u32), byte: usize) -> bool {
        self.undefined.get(&key).is_some_and(|m| m[byte])
            || self
                .order_dependent
                .get(&key)
                .is_some_and(|o| o.bytes[byte])
    }
}
