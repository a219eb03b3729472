//! Where an instruction is: the position errors and undefined values name.

use std::fmt;

use tangle_ir::{Block, Func, Inst};

/// Where an instruction is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// The function.
    pub func: Func,
    /// The block.
    pub block: Block,
    /// The instruction; `None` for the block's terminator.
    pub inst: Option<Inst>,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inst {
            Some(i) => write!(f, "{} {} {}", self.func, self.block, i),
            None => write!(f, "{} {} terminator", self.func, self.block),
        }
    }
}
