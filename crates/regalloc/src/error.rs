//! Why an allocation is refused: every error names where in the input it is.

use thiserror::Error;

use crate::function::{BlockId, RegClass, ValueId};

/// Input the allocator refuses, or a register file too small for it.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum AllocError {
    /// The function has no blocks.
    #[error("the function has no blocks")]
    Empty,
    /// An operand or φ names a value that does not exist.
    #[error("{block}: {what} names {value}, but the function has {count} values")]
    UnknownValue {
        /// Where.
        block: BlockId,
        /// Which operand (e.g. `inst 3 use 1`).
        what: String,
        /// The value named.
        value: ValueId,
        /// How many values there are.
        count: usize,
    },
    /// A value's size is not 1, 2 or 4, or too large for its class.
    #[error("{value}: size {size} is not allowed for class {class} (1, 2 or 4 for R and UR; 1 otherwise)")]
    BadSize {
        /// The value.
        value: ValueId,
        /// Its class.
        class: RegClass,
        /// Its size.
        size: u8,
    },
    /// An edge names a block that does not exist, or the two edge lists disagree.
    #[error("{block}: {what}")]
    BadCfg {
        /// Where.
        block: BlockId,
        /// What is wrong.
        what: String,
    },
    /// An edge from a block with several successors to one with several predecessors.
    #[error("critical edge {from} -> {to}: split it with an empty block")]
    CriticalEdge {
        /// The edge's source.
        from: BlockId,
        /// The edge's target.
        to: BlockId,
    },
    /// A block that cannot be reached from the entry.
    #[error("{block} is unreachable from b0")]
    Unreachable {
        /// The block.
        block: BlockId,
    },
    /// A value defined twice, used where its definition does not dominate, or live into
    /// the entry block.
    #[error("{block}: {value}: {what}")]
    NotSsa {
        /// Where.
        block: BlockId,
        /// The value.
        value: ValueId,
        /// What is wrong.
        what: String,
    },
    /// A φ with the wrong number of sources, or sources of another class or size.
    #[error("{block}: phi {phi}: {what}")]
    BadPhi {
        /// The block.
        block: BlockId,
        /// The φ's index.
        phi: usize,
        /// What is wrong.
        what: String,
    },
    /// An operand constraint that cannot hold: a fixed register past the limit or
    /// misaligned, a tie to a missing use or one of another class or size, two operands
    /// fixed to overlapping registers, a branch that is not last or that needs operands
    /// in a block whose end takes copies.
    #[error("{block} inst {inst}: {what}")]
    BadConstraint {
        /// The block.
        block: BlockId,
        /// The instruction's index.
        inst: usize,
        /// What is wrong.
        what: String,
    },
    /// A class's registers cannot hold what one instruction needs at once (its operands,
    /// or spill copies that have nowhere further to go).
    #[error("{block} inst {inst}: class {class} needs more than its {limit} registers here")]
    OutOfRegisters {
        /// The block.
        block: BlockId,
        /// The instruction's index (the block's length for its end).
        inst: usize,
        /// The class.
        class: RegClass,
        /// Its limit.
        limit: u16,
    },
    /// A uniform register or predicate (one copy per warp) would be written in a block the
    /// client marked divergent: by a def there, or by a move the allocator needs there
    /// (the class is too full across the divergent region to keep every value in place).
    #[error("{block} inst {inst}: a {class} register would be written in divergent code")]
    UniformWriteInDivergentCode {
        /// The block.
        block: BlockId,
        /// The instruction's index (the block's length for its end).
        inst: usize,
        /// The class.
        class: RegClass,
    },
    /// A broken invariant of the allocator itself (a bug, reported rather than panicking).
    #[error("internal allocator error: {0}")]
    Internal(String),
}
