//! Why a compile failed: an operation outside the selected subset (with its position), a
//! configuration the back end does not support, or a resource it ran out of.

/// Where in the lowered IR an error was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// The function's name or number.
    pub func: String,
    /// The block (`b3`).
    pub block: String,
    /// The instruction's index in the block, or `None` for the terminator.
    pub inst: Option<usize>,
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.inst {
            Some(i) => write!(f, "{} {} i{i}", self.func, self.block),
            None => write!(f, "{} {} terminator", self.func, self.block),
        }
    }
}

/// A compile error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    /// An operation (or an operand type of one) the instruction selection does not cover.
    #[error("{at}: `{what}` is not supported by the SASS back end yet")]
    Unsupported {
        /// The operation, as the IR text names it, with the type where that is the reason.
        what: String,
        /// Where.
        at: Position,
    },
    /// A subgroup size other than NVIDIA's warp of 32.
    #[error("subgroup size {0} asked for: the SASS back end compiles for NVIDIA's warp of 32 invocations only")]
    SubgroupSize(u32),
    /// The entry point, or the module, is not something the back end can take.
    #[error("{0}")]
    Input(String),
    /// The reconvergence lowering failed.
    #[error("the lowering failed: {0}")]
    Lower(String),
    /// More registers of a class than the file (or the limit asked for) holds: at one
    /// instruction for the SSA allocator, which spills everything else; anywhere for the
    /// stand-in, which does not spill.
    #[error("register pressure: {what} needs more than the {limit} registers of its file")]
    Registers {
        /// The register file.
        what: &'static str,
        /// How many it has.
        limit: u32,
    },
    /// The SASS layer refused an instruction (a bug of the selection: it built a form that
    /// does not exist on this SM).
    #[error("internal: {0}")]
    Internal(String),
}
