//! What a run of the barrier machine produces.

use std::collections::BTreeMap;

use tangle_ir::{Func, Inst};
use tangle_lanes::Mask;

/// One dynamic subgroup operation: which group of lanes executed it.
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
    /// The issuing group's lanes.
    pub mask: Mask,
}

/// Dynamic counts of the warp-barrier operations: each counts once per issue by a group
/// (per warp), whatever the number of its lanes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BarrierStats {
    /// `bar_set` (BSSY) issued.
    pub set: u64,
    /// `bar_sync` (BSYNC) issued.
    pub sync: u64,
    /// `bar_break` (BREAK) issued.
    pub brk: u64,
    /// `exit` issued.
    pub exit: u64,
}

impl std::ops::AddAssign for BarrierStats {
    fn add_assign(&mut self, o: BarrierStats) {
        self.set += o.set;
        self.sync += o.sync;
        self.brk += o.brk;
        self.exit += o.exit;
    }
}

/// The counts of an exhaustive search that finished.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchSummary {
    /// Complete runs explored (all agreed).
    pub runs: u64,
    /// Runs abandoned because every continuation was equivalent to one explored.
    pub pruned: u64,
    /// The most choice points one run had.
    pub deepest: u32,
    /// Times the search started again from the beginning after a run showed two lanes
    /// conflicting on a word of shared memory it had taken as private (`docs/machine.md`).
    pub restarts: u64,
    /// Words of shared memory two lanes were seen to conflict on: the accesses the search
    /// interleaves (the others run as the group's own steps).
    pub conflicting_words: u64,
}

/// The result of a run.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Every bound buffer after the run, by (set, binding).
    pub buffers: BTreeMap<(u32, u32), Vec<u8>>,
    /// For each bound buffer with undefined bytes, per byte whether it is undefined.
    pub undefined: BTreeMap<(u32, u32), Vec<bool>>,
    /// The subgroup operations in execution order (empty unless recorded).
    pub trace: Vec<TraceEntry>,
    /// Group-instructions issued.
    pub steps: u64,
    /// Lane-instructions issued (each group-instruction counts its lanes).
    pub lane_steps: u64,
    /// Warp-barrier operations issued.
    pub stats: BarrierStats,
    /// Under the exhaustive policy: the search's counts (the other fields are run 0's).
    pub search: Option<SearchSummary>,
}
