//! The simulator's errors: every way a run can fail, each with the position it failed at.

use std::fmt;

/// Where in the launch something happened: block, warp, lane and program counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Site {
    /// The block index (x, y, z).
    pub block: [u32; 3],
    /// The warp index inside the block.
    pub warp: u32,
    /// The lane (0-31), where one lane is to blame.
    pub lane: Option<u32>,
    /// The byte address of the instruction in its code section.
    pub pc: u32,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "block ({},{},{}) warp {}",
            self.block[0], self.block[1], self.block[2], self.warp
        )?;
        if let Some(l) = self.lane {
            write!(f, " lane {l}")?;
        }
        write!(f, " at {:#06x}", self.pc)
    }
}

/// One group of lanes (or waiting lanes) as a deadlock or livelock report names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StuckGroup {
    /// The block index.
    pub block: [u32; 3],
    /// The warp index inside the block.
    pub warp: u32,
    /// The lanes, as a mask.
    pub lanes: u32,
    /// Where they stand.
    pub pc: u32,
    /// What they do there: `ready`, `BSYNC B1 waiting for 0x...`, `WARPSYNC 0x...`, ...
    pub state: String,
}

impl fmt::Display for StuckGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "block ({},{},{}) warp {} lanes {:#010x} at {:#06x}: {}",
            self.block[0], self.block[1], self.block[2], self.warp, self.lanes, self.pc, self.state
        )
    }
}

/// Why a memory access faulted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// A global address inside no buffer (or running past the end of one).
    GlobalOutOfBounds {
        /// The address.
        addr: u64,
        /// The access size in bytes.
        size: u32,
    },
    /// A shared-memory offset past the block's shared memory.
    SharedOutOfBounds {
        /// The offset.
        addr: u64,
        /// The access size in bytes.
        size: u32,
        /// The block's shared memory size.
        limit: u32,
    },
    /// A local-memory offset past the thread's local memory.
    LocalOutOfBounds {
        /// The offset.
        addr: u64,
        /// The access size in bytes.
        size: u32,
    },
    /// A constant-bank read outside the bank.
    ConstantOutOfBounds {
        /// The bank.
        bank: u8,
        /// The offset.
        offset: i64,
    },
    /// An access whose address is not a multiple of its size.
    Misaligned {
        /// The address.
        addr: u64,
        /// The access size in bytes.
        size: u32,
    },
    /// A branch, call or return to an address that holds no instruction.
    BadTarget {
        /// The target.
        target: u64,
    },
    /// Execution ran into ptxas's `BRA` self-loop after the last `EXIT`, or off the code.
    RanOffTheEnd,
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultKind::GlobalOutOfBounds { addr, size } => {
                write!(
                    f,
                    "global access of {size} bytes at {addr:#x} is inside no buffer"
                )
            }
            FaultKind::SharedOutOfBounds { addr, size, limit } => write!(
                f,
                "shared access of {size} bytes at {addr:#x} past the block's {limit} bytes"
            ),
            FaultKind::LocalOutOfBounds { addr, size } => {
                write!(f, "local access of {size} bytes at {addr:#x} out of bounds")
            }
            FaultKind::ConstantOutOfBounds { bank, offset } => {
                write!(
                    f,
                    "constant read c[{bank:#x}][{offset:#x}] outside the bank"
                )
            }
            FaultKind::Misaligned { addr, size } => {
                write!(f, "access of {size} bytes at {addr:#x} is misaligned")
            }
            FaultKind::BadTarget { target } => {
                write!(
                    f,
                    "control transfer to {target:#x}, which holds no instruction"
                )
            }
            FaultKind::RanOffTheEnd => {
                write!(
                    f,
                    "execution reached the self-loop after the last EXIT or ran off the code"
                )
            }
        }
    }
}

/// Everything that can go wrong loading a kernel or running it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// The cubin could not be read, or has no such kernel.
    #[error("cannot load the kernel: {0}")]
    Load(String),
    /// The launch does not fit the kernel (argument count or sizes, dimensions).
    #[error("bad launch: {0}")]
    BadLaunch(String),
    /// An instruction word the SASS layer cannot decode was reached.
    #[error("{site}: instruction refused by the decoder: {reason}")]
    Refused {
        /// Where.
        site: Site,
        /// The decoder's reason.
        reason: String,
    },
    /// A decoded instruction (or a modifier of it) the simulator does not execute.
    #[error("{site}: `{text}` is not supported by the simulator: {why}")]
    Unsupported {
        /// Where.
        site: Site,
        /// The instruction's text.
        text: String,
        /// What is missing.
        why: String,
    },
    /// A memory or control fault.
    #[error("{site}: fault: {kind}")]
    Fault {
        /// Where.
        site: Site,
        /// What.
        kind: FaultKind,
    },
    /// No group can issue and some lanes have not exited.
    #[error("deadlock after {steps} steps:\n{}", list(.groups))]
    Deadlock {
        /// Instructions issued before.
        steps: u64,
        /// Every group and waiting set of the stuck block.
        groups: Vec<StuckGroup>,
    },
    /// The step budget ran out (a spin that never ends, or a loop that does not terminate).
    #[error("livelock: the budget of {steps} steps ran out:\n{}", list(.groups))]
    Livelock {
        /// The budget.
        steps: u64,
        /// Every group and waiting set of the block that was running.
        groups: Vec<StuckGroup>,
    },
}

fn list(groups: &[StuckGroup]) -> String {
    groups
        .iter()
        .map(|g| format!("  {g}"))
        .collect::<Vec<_>>()
        .join("\n")
}

impl SimError {
    /// Whether the error is the caller's (a bad launch or an unreadable kernel: exit code
    /// 2) rather than a failed run (exit code 1).
    pub fn is_bad_input(&self) -> bool {
        matches!(self, SimError::Load(_) | SimError::BadLaunch(_))
    }
}
