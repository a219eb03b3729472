//! The allocator's output: a register for every operand, a location for every φ, and the
//! moves to insert, each with its position. Nothing here refers to allocator internals, so
//! the client and the checker ([`crate::check`]) read it alone.

use std::fmt;

use crate::function::{BlockId, RegClass};

/// A physical register: a class and an index (`R12` is `{Gpr, 12}`). For a tuple this is
/// its first register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PhysReg {
    /// The register file.
    pub class: RegClass,
    /// The register number within the file.
    pub index: u16,
}

impl fmt::Display for PhysReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.class.prefix(), self.index)
    }
}

/// Where a value (or a word of it) can be: a register, or a 32-bit word of the thread's
/// spill area in local memory (`Slot(n)` is byte offset `4 * n`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Location {
    /// A register (the first of a tuple).
    Reg(PhysReg),
    /// A spill slot (the first word of a tuple; a tuple's slot is aligned to its size).
    Slot(u32),
}

impl Location {
    /// The location `words` 32-bit words further on (the next register of a tuple, or the
    /// next slot word).
    pub fn offset(self, words: u16) -> Location {
        match self {
            Location::Reg(reg) => Location::Reg(PhysReg {
                class: reg.class,
                index: reg.index + words,
            }),
            Location::Slot(slot) => Location::Slot(slot + u32::from(words)),
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Reg(reg) => write!(f, "{reg}"),
            Location::Slot(slot) => write!(f, "[slot{slot}]"),
        }
    }
}

/// Where an edit goes. Ordered as laid out: by block, then instruction, `End` last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Position {
    /// Just before instruction `inst` of `block` (after any earlier edits at this position).
    Before {
        /// The block.
        block: BlockId,
        /// The instruction's index within the block.
        inst: u32,
    },
    /// At the end of `block`: before its closing branch if it has one ([`crate::Inst::branch`]),
    /// else after its last instruction. Only in blocks with one successor.
    End {
        /// The block.
        block: BlockId,
    },
}

impl Position {
    fn key(self) -> (u32, u32) {
        match self {
            Position::Before { block, inst } => (block.0, inst),
            Position::End { block } => (block.0, u32::MAX),
        }
    }
}

impl PartialOrd for Position {
    fn partial_cmp(&self, other: &Position) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Position {
    fn cmp(&self, other: &Position) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

/// A move the client inserts. Edits at one position run in the order of
/// [`Allocation::edits`]; each reads the state the previous one left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit {
    /// Copy `size` consecutive words from `from` to `to` (which never overlap). The pairs
    /// of classes that occur, and the SASS for each, are listed in `docs/regalloc.md`:
    /// same class (never barrier to barrier), a class to and from its
    /// [`RegClass::spill_class`], and GPR to and from a slot.
    Move {
        /// The source.
        from: Location,
        /// The destination.
        to: Location,
        /// Words moved: 1, 2 or 4.
        size: u8,
    },
    /// Exchange two registers of one class (GPR, uniform GPR, predicate or uniform
    /// predicate; never barriers), to break a cycle of copies without a scratch register.
    Swap {
        /// One register.
        a: PhysReg,
        /// The other, same class.
        b: PhysReg,
    },
}

impl fmt::Display for Edit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Edit::Move { from, to, size } => write!(f, "move.{size} {to} <- {from}"),
            Edit::Swap { a, b } => write!(f, "swap {a} <-> {b}"),
        }
    }
}

/// The registers an instruction's operands got, in the order of its defs and uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OperandRegs {
    /// One register per [`crate::Inst::defs`] entry.
    pub defs: Vec<PhysReg>,
    /// One register per [`crate::Inst::uses`] entry.
    pub uses: Vec<PhysReg>,
}

/// A count per register class, indexed by [`RegClass::index`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassCounts(pub [u32; 5]);

impl ClassCounts {
    /// The count of `class`.
    pub fn of(&self, class: RegClass) -> u32 {
        self.0[class.index()]
    }

    /// Mutable count of `class`.
    pub fn of_mut(&mut self, class: RegClass) -> &mut u32 {
        &mut self.0[class.index()]
    }
}

impl fmt::Display for ClassCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for class in [
            RegClass::Gpr,
            RegClass::Pred,
            RegClass::UGpr,
            RegClass::UPred,
            RegClass::Barrier,
        ] {
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            write!(f, "{}:{}", class.prefix(), self.of(class))?;
        }
        Ok(())
    }
}

/// The result of [`crate::allocate`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Allocation {
    /// `insts[block][inst]`: the register of every operand of every instruction.
    pub insts: Vec<Vec<OperandRegs>>,
    /// `phis[block][phi]`: where each φ's value is on entry to its block (a register of
    /// its class, of a class it spills into, or a slot). The edits at the end of each
    /// predecessor put the φ's source for that edge there.
    pub phis: Vec<Vec<Location>>,
    /// The moves to insert, in order; positions are non-decreasing in the order blocks
    /// and instructions are laid out.
    pub edits: Vec<(Position, Edit)>,
    /// For each value, where its definition put it (its def operand's register, or its
    /// φ's location); `None` for a value nothing defines. Later edits may move it; the
    /// operand registers are authoritative.
    pub def_locations: Vec<Option<Location>>,
    /// Registers used per class: the highest register index written or read, plus one
    /// (the count the cubin's register-count attribute needs is `of(Gpr)` plus any the
    /// client reserves).
    pub regs_used: ClassCounts,
    /// The lower bound: the most registers of each class simultaneously live at any point
    /// of the input (tuples counted by size), before any spilling.
    pub max_live: ClassCounts,
    /// 32-bit words of local memory the spill slots take (`4 * spill_words` bytes).
    pub spill_words: u32,
}

impl Allocation {
    /// The edits at `position`, in order.
    pub fn edits_at(&self, position: Position) -> impl Iterator<Item = &Edit> + '_ {
        let start = self.edits.partition_point(|(p, _)| *p < position);
        self.edits[start..]
            .iter()
            .take_while(move |(p, _)| *p == position)
            .map(|(_, e)| e)
    }
}
