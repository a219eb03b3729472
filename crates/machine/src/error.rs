//! Typed run errors of the barrier machine, and the reports of stuck runs (deadlock,
//! livelock, exhausted budget) that say where every group of lanes is.

use std::fmt;

use tangle_ir::Value;
use tangle_lanes::Mask;
pub use tangle_lanes::Position;

/// Why a run on the barrier machine failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum MachineError {
    /// The configuration or the bindings do not fit the module.
    #[error("configuration: {0}")]
    Config(String),
    /// Something the machine does not implement.
    #[error("unsupported at {at}: {what}")]
    Unsupported {
        /// Where.
        at: Position,
        /// What.
        what: String,
    },
    /// A memory access outside its buffer or variable.
    #[error("out-of-bounds access at {at}: {what}")]
    OutOfBounds {
        /// Where.
        at: Position,
        /// What.
        what: String,
    },
    /// Undefined behaviour (`unreachable`, a value used before its definition, a lane
    /// syncing on a barrier it never set, ...).
    #[error("undefined behaviour at {at}: {what}")]
    Undefined {
        /// Where.
        at: Position,
        /// What.
        what: String,
    },
    /// A lane used an undefined value where its value decides what happens (a branch,
    /// a `bar_break` or `exit` condition, an address, an atomic operand).
    #[error("{0}")]
    UndefinedValue(Box<UndefinedUse>),
    /// The machine broke one of its own invariants: a bug in tangle, not in the program.
    #[error("internal error at {at}: {what}")]
    Internal {
        /// Where.
        at: Position,
        /// What.
        what: String,
    },
    /// Every group that has not ended is blocked and no barrier can release.
    #[error("deadlock: {0}")]
    Deadlock(Box<Stuck>),
    /// The step budget ran out while some lanes kept running and others made no progress:
    /// they waited at a barrier, or (under a policy that is not fair, like `strict`) were
    /// never picked for the last half of the budget.
    #[error("livelock: {0}")]
    Livelock(Box<Stuck>),
    /// The step budget ran out with every live group running (an endless loop, or a
    /// budget too small for the program).
    #[error("step budget exhausted: {0}")]
    Budget(Box<Stuck>),
    /// The exhaustive search did not finish within its bound. A cut-off search never
    /// counts as passing, whatever the runs it completed gave.
    #[error(
        "exhaustive search cut off by its bound: {completed} run(s) completed, {cut_off} cut off{}",
        if *.unexplored { ", interleavings left unexplored" } else { "" }
    )]
    CutOff {
        /// Runs that ran to their end.
        completed: u64,
        /// Runs abandoned at the depth bound.
        cut_off: u64,
        /// Whether the run bound stopped the search before every interleaving was tried.
        unexplored: bool,
    },
    /// Inside the exhaustive search only (never returned by `Machine::run`): a run
    /// abandoned because every continuation is equivalent to one already explored.
    #[error("a run the exhaustive search abandoned as equivalent to one explored")]
    Pruned,
    /// Two complete runs of the exhaustive search ended with different buffers.
    #[error("exhaustive search: run {run} (choices {choices}) differs from run 0: {what}")]
    Disagreement {
        /// The run that differs (counting from 0).
        run: u64,
        /// The choices that led to it (the index among the ready groups at each choice
        /// point, lowest lane first).
        choices: String,
        /// What differs.
        what: String,
    },
}

pub(crate) type R<T> = Result<T, MachineError>;

/// An undefined value used where its value matters: [`MachineError::UndefinedValue`].
#[derive(Clone, Debug, thiserror::Error)]
#[error("undefined value at {at}: lane {lane}'s {what} is undefined ({born})")]
pub struct UndefinedUse {
    /// Where it was used.
    pub at: Position,
    /// The subgroup lane that used it.
    pub lane: u32,
    /// What it was used as.
    pub what: String,
    /// Where it was born and why.
    pub born: String,
}

/// Where every group of a stuck workgroup is: the body of a deadlock, livelock or budget
/// report.
#[derive(Clone, Debug)]
pub struct Stuck {
    /// The workgroup.
    pub workgroup: [u32; 3],
    /// The step budget, when it ran out.
    pub budget: Option<u64>,
    /// Every group of lanes that has not ended, subgroup by subgroup, lowest lane first.
    pub groups: Vec<GroupReport>,
}

/// One group of lanes in a [`Stuck`] report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupReport {
    /// The subgroup within the workgroup.
    pub subgroup: u32,
    /// The group's lanes.
    pub lanes: Mask,
    /// Where it is: function, block and instruction (`None`: the terminator) of its
    /// innermost call frame.
    pub at: Position,
    /// How many call frames it is deep (1 in the entry point).
    pub depth: usize,
    /// Steps issued in the workgroup since this group last issued.
    pub idle: u64,
    /// What it is doing.
    pub state: GroupState,
}

/// What a group in a report is doing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupState {
    /// It could issue (it is running or waits to be picked).
    Ready,
    /// It waits at `bar_sync` on barrier `barrier` for `missing`: the lanes of its
    /// members' captured masks that have neither arrived, exited nor broken out.
    Sync {
        /// The barrier value the `bar_sync` names.
        barrier: Value,
        /// The lanes it still waits for.
        missing: Mask,
    },
    /// It waits at a workgroup `control_barrier`.
    WorkgroupBarrier,
    /// On the token engine: it waits at a subgroup operation or anchor for `missing`, the
    /// lanes that may still arrive there with the same token instance.
    Token {
        /// The lanes it still waits for.
        missing: Mask,
    },
}

impl fmt::Display for Stuck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "workgroup {:?}", self.workgroup)?;
        if let Some(b) = self.budget {
            write!(f, " after {b} steps")?;
        }
        for g in &self.groups {
            write!(f, "\n  {g}")?;
        }
        Ok(())
    }
}

impl fmt::Display for GroupReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "subgroup {} lanes {:#x} at {} (call depth {}): ",
            self.subgroup, self.lanes, self.at, self.depth
        )?;
        match &self.state {
            GroupState::Ready => write!(f, "ready, idle for {} steps", self.idle),
            GroupState::Sync { barrier, missing } => {
                write!(f, "waits at bar_sync {barrier} for lanes {missing:#x}")
            }
            GroupState::WorkgroupBarrier => f.write_str("waits at a workgroup barrier"),
            GroupState::Token { missing } => {
                write!(f, "waits at a token rendezvous for lanes {missing:#x}")
            }
        }
    }
}

impl MachineError {
    /// The stuck report of a deadlock, livelock or budget error.
    pub fn stuck(&self) -> Option<&Stuck> {
        match self {
            MachineError::Deadlock(s) | MachineError::Livelock(s) | MachineError::Budget(s) => {
                Some(s)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    /// Every per-lane step returns this error type: keep it small (large variants boxed).
    #[test]
    fn the_error_type_stays_small() {
        let size = std::mem::size_of::<super::MachineError>();
        assert!(size <= 64, "MachineError is {size} bytes");
    }
}
