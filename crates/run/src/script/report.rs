//! What a script run did: one [`Event`] per command, and the buffers it left.

use std::collections::BTreeMap;

use tangle_amber::{ExpectFailure, Pos};
use tangle_interp::{InterpError, TraceEntry};
use tangle_spirv::reader::Origin;

/// What happened at one command.
#[derive(Debug)]
pub enum Event {
    /// A `RUN` completed.
    Ran {
        /// Where.
        pos: Pos,
        /// The pipeline.
        pipeline: String,
        /// Workgroup counts.
        groups: [u32; 3],
        /// Workgroup size.
        local_size: [u32; 3],
        /// The subgroup size the device picked.
        subgroup_size: u32,
        /// Tangle-instructions executed.
        steps: u64,
        /// Lane-instructions executed.
        lane_steps: u64,
        /// The subgroup operations and their tangles, when `engine.record_trace` is set.
        trace: Vec<TraceEntry>,
        /// The bound buffers, by (set, binding), the run left with order-dependent bytes
        /// (racing atomics: `tangle_interp::Outcome::order_dependent`), which the engines
        /// compare as wildcards.
        order_dependent: Vec<(u32, u32)>,
    },
    /// A `RUN` failed at run time; the script stopped there.
    RunFailed {
        /// Where.
        pos: Pos,
        /// The pipeline.
        pipeline: String,
        /// The interpreter's error (deadlock, step budget, out of bounds, undefined).
        error: InterpError,
        /// The SPIR-V instruction the error is at, when the shader came from SPIR-V.
        origin: Option<Origin>,
    },
    /// The lowered engine left the reference's buffers under every policy.
    LoweredAgreed {
        /// Where.
        pos: Pos,
        /// The pipeline.
        pipeline: String,
        /// The barrier operations each policy issued.
        stats: Vec<(tangle_machine::Policy, tangle_machine::BarrierStats)>,
    },
    /// The lowered engine disagreed with the reference (a check failure; the script goes
    /// on with the reference's buffers).
    LoweredDiffers {
        /// Where.
        pos: Pos,
        /// The pipeline.
        pipeline: String,
        /// The first policy that differed, and how.
        mismatch: crate::lowered::LoweredMismatch,
    },
    /// The SASS engine left the reference's buffers on every SM and policy, with no hazard.
    SassAgreed {
        /// Where.
        pos: Pos,
        /// The pipeline.
        pipeline: String,
        /// Simulator runs compared (SMs times policies).
        runs: usize,
    },
    /// The back end does not compile this dispatch (outside its subset; not a failure).
    SassRefused {
        /// Where.
        pos: Pos,
        /// The pipeline.
        pipeline: String,
        /// Why.
        why: String,
    },
    /// The SASS engine disagreed with the reference, reported a hazard, or failed (a check
    /// failure).
    SassDiffers {
        /// Where.
        pos: Pos,
        /// The pipeline.
        pipeline: String,
        /// The SM and policy that showed it, and how.
        mismatch: crate::lowered::LoweredMismatch,
    },
    /// A `RUN` (at `pos`) branched on an undefined condition, so the script ran again
    /// with every such lane taking one side, then the other (SPIR-V lets any path be
    /// taken); the events after this one are the run whose lanes took `side`.
    UndefinedBranch {
        /// The first `RUN` that branched on an undefined condition.
        pos: Pos,
        /// The side every undefined condition took in the run reported.
        side: bool,
        /// Whether the script also passed with the other side.
        other_passed: bool,
    },
    /// An `EXPECT` held.
    Passed {
        /// Where.
        pos: Pos,
    },
    /// An `EXPECT` failed.
    Failed(ExpectFailure),
    /// An `EXPECT` read bytes the runs left undefined (results SPIR-V leaves undefined,
    /// such as a division by zero, that reached the buffer): it fails whatever they hold.
    ReadUndefined {
        /// Where.
        pos: Pos,
        /// The buffer.
        buffer: String,
        /// The first undefined byte the check reads.
        byte_offset: usize,
        /// How many of the bytes it reads are undefined.
        count: usize,
    },
    /// An `EXPECT` read bytes whose values came from the order in which racing atomics of
    /// different invocations landed (the reference's `OrderDependent::valued`), an order
    /// SPIR-V leaves open: the expectation would hold on one schedule only, so it fails
    /// whatever they hold.
    ReadOrderDependent {
        /// Where.
        pos: Pos,
        /// The buffer.
        buffer: String,
        /// The first such byte the check reads.
        byte_offset: usize,
        /// How many of the bytes it reads are such.
        count: usize,
        /// Where they came from: the first store or atomic that wrote one, and the first
        /// racing atomic.
        origin: String,
    },
}

/// Everything a script run did, in order.
#[derive(Debug, Default)]
pub struct Report {
    /// One entry per executed `RUN` and `EXPECT` (a `REPEAT` body once per repetition).
    pub events: Vec<Event>,
    /// Every buffer's contents when the script ended, by name.
    pub buffers: BTreeMap<String, Vec<u8>>,
    /// For every buffer with undefined bytes when the script ended, per byte whether it is
    /// undefined (its byte in `buffers` is then zero).
    pub undefined: BTreeMap<String, Vec<bool>>,
}

impl Report {
    /// Whether every `RUN` completed and every `EXPECT` held.
    pub fn passed(&self) -> bool {
        !self.events.iter().any(|e| {
            matches!(
                e,
                Event::RunFailed { .. }
                    | Event::Failed(_)
                    | Event::ReadUndefined { .. }
                    | Event::ReadOrderDependent { .. }
                    | Event::LoweredDiffers { .. }
                    | Event::SassDiffers { .. }
            )
        })
    }

    /// (`RUN`s completed, `EXPECT`s passed, `EXPECT`s failed and lowered runs that
    /// differed).
    pub fn counts(&self) -> (usize, usize, usize) {
        let mut c = (0, 0, 0);
        for e in &self.events {
            match e {
                Event::Ran { .. } => c.0 += 1,
                Event::Passed { .. } => c.1 += 1,
                Event::Failed(_)
                | Event::ReadUndefined { .. }
                | Event::ReadOrderDependent { .. }
                | Event::LoweredDiffers { .. }
                | Event::SassDiffers { .. } => c.2 += 1,
                Event::RunFailed { .. }
                | Event::UndefinedBranch { .. }
                | Event::LoweredAgreed { .. }
                | Event::SassAgreed { .. }
                | Event::SassRefused { .. } => {}
            }
        }
        c
    }

    /// The lane-instructions of every completed `RUN` together.
    pub fn lane_steps(&self) -> u64 {
        self.events
            .iter()
            .map(|e| match e {
                Event::Ran { lane_steps, .. } => *lane_steps,
                _ => 0,
            })
            .sum()
    }
}
