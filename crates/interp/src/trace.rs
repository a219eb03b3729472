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
