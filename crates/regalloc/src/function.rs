//! The allocator's input: a generic SSA machine function. The client (instruction selection)
//! builds one from its own instructions: every operand that lives in a register becomes a
//! [`Use`] or [`Def`] of an SSA [`ValueId`]; constants the hardware provides (RZ, PT, URZ,
//! UPT) are *not* values: the client encodes them directly and tells the allocator nothing.

use std::fmt;

/// A register file of the SM75–SM90 machine (`docs/sass.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegClass {
    /// General-purpose registers R0–R254 (RZ is not allocatable).
    Gpr,
    /// Predicates P0–P6 (PT is not allocatable).
    Pred,
    /// Uniform registers UR0–UR62 (URZ is not allocatable).
    UGpr,
    /// Uniform predicates UP0–UP6 (UPT is not allocatable).
    UPred,
    /// Convergence-barrier registers B0–B15.
    Barrier,
}

impl RegClass {
    /// Every class, in the order the allocator settles them at block ends: a class comes
    /// before the class it spills into ([`RegClass::spill_class`]).
    pub const ALL: [RegClass; 5] = [
        RegClass::Barrier,
        RegClass::Pred,
        RegClass::UPred,
        RegClass::UGpr,
        RegClass::Gpr,
    ];

    /// Where a value of this class goes when its class runs out of registers: predicates
    /// and barriers into a GPR, uniform predicates into a uniform register, uniform
    /// registers into a GPR; `None` for GPRs, which spill to local memory.
    pub fn spill_class(self) -> Option<RegClass> {
        match self {
            RegClass::Gpr => None,
            RegClass::Pred | RegClass::Barrier | RegClass::UGpr => Some(RegClass::Gpr),
            RegClass::UPred => Some(RegClass::UGpr),
        }
    }

    /// A dense index 0..5 (the position in declaration order), for per-class tables.
    pub fn index(self) -> usize {
        match self {
            RegClass::Gpr => 0,
            RegClass::Pred => 1,
            RegClass::UGpr => 2,
            RegClass::UPred => 3,
            RegClass::Barrier => 4,
        }
    }

    /// The largest tuple a value of this class may be: 4 for GPRs and uniform registers
    /// (128-bit values), 1 for predicates and barriers.
    pub fn max_size(self) -> u8 {
        match self {
            RegClass::Gpr | RegClass::UGpr => 4,
            RegClass::Pred | RegClass::UPred | RegClass::Barrier => 1,
        }
    }

    /// The SASS register prefix (`R`, `P`, `UR`, `UP`, `B`).
    pub fn prefix(self) -> &'static str {
        match self {
            RegClass::Gpr => "R",
            RegClass::Pred => "P",
            RegClass::UGpr => "UR",
            RegClass::UPred => "UP",
            RegClass::Barrier => "B",
        }
    }
}

impl fmt::Display for RegClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.prefix())
    }
}

/// An SSA value: an index into [`Function::values`]. Defined exactly once (by an
/// instruction's [`Def`] or a block's [`Phi`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub u32);

impl fmt::Display for ValueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

/// A basic block: an index into [`Function::blocks`]. Block 0 is the entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

impl fmt::Display for BlockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b{}", self.0)
    }
}

/// What the allocator needs to know of a value: its register file and how many
/// consecutive registers it takes (1, 2 or 4; a tuple's first register is a multiple of
/// its size, as 64- and 128-bit SASS operands require).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueInfo {
    /// The register file the value lives in.
    pub class: RegClass,
    /// Consecutive registers: 1, 2 or 4 (only 1 for predicates and barriers).
    pub size: u8,
}

/// A read of a value by an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Use {
    /// The value read.
    pub value: ValueId,
    /// A register the value must be in when the instruction reads it (its first
    /// register for a tuple), e.g. an ABI-fixed operand; `None` lets the allocator choose.
    pub fixed: Option<u16>,
}

impl Use {
    /// A use the allocator places freely.
    pub fn new(value: ValueId) -> Use {
        Use { value, fixed: None }
    }
}

/// How a definition's register is constrained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefConstraint {
    /// Any register of the value's class.
    Free,
    /// This register (the first of a tuple), e.g. a kernel parameter's or a call's result.
    Fixed(u16),
    /// The same register as the instruction's use at this index (a two-address form,
    /// e.g. `BREAK` updating a barrier in place). The used value need not die here: the
    /// allocator copies it away first when it is still live.
    TiedToUse(usize),
}

/// A write of a value by an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Def {
    /// The value defined (defined nowhere else).
    pub value: ValueId,
    /// The constraint on its register.
    pub constraint: DefConstraint,
}

impl Def {
    /// A definition the allocator places freely.
    pub fn new(value: ValueId) -> Def {
        Def {
            value,
            constraint: DefConstraint::Free,
        }
    }
}

/// One machine instruction, as far as registers go.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inst {
    /// Values written, in the client's operand order.
    pub defs: Vec<Def>,
    /// Values read, in the client's operand order (a value may be read more than once).
    pub uses: Vec<Use>,
    /// When set, no def may share a register with any use (for instructions that write a
    /// destination before they have read every source). Otherwise a def may reuse the
    /// register of a use that dies here.
    pub early_clobber: bool,
    /// The block's closing branch (BRA, BRX, EXIT, ...): only the last instruction may be
    /// one. Copies the allocator adds at the end of a block go *before* it.
    pub branch: bool,
}

/// A φ at a block's entry: `dst` takes `srcs[i]` when control comes from `preds[i]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Phi {
    /// The value defined at the block's entry.
    pub dst: ValueId,
    /// One source per predecessor, in the order of [`Block::preds`]; same class and size
    /// as `dst`.
    pub srcs: Vec<ValueId>,
}

/// A basic block. Blocks are given in layout order; the CFG is given by both edge lists,
/// which must agree. Critical edges (from a block with several successors to a block with
/// several predecessors) are refused: split them with an empty block first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Block {
    /// Predecessors, in the order the φ sources follow. A predecessor listed twice is refused.
    pub preds: Vec<BlockId>,
    /// Successors (order irrelevant).
    pub succs: Vec<BlockId>,
    /// φs at the block's entry (only in blocks with predecessors).
    pub phis: Vec<Phi>,
    /// The instructions, in order.
    pub insts: Vec<Inst>,
}

/// A whole function: values and blocks. Every block must be reachable from block 0, and
/// every use must be dominated by its value's definition (strict SSA).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Function {
    /// Every value's class and size, indexed by [`ValueId`].
    pub values: Vec<ValueInfo>,
    /// The blocks in layout order, indexed by [`BlockId`]; block 0 is the entry.
    pub blocks: Vec<Block>,
}

impl Function {
    /// Adds a value and returns its id.
    pub fn new_value(&mut self, class: RegClass, size: u8) -> ValueId {
        self.values.push(ValueInfo { class, size });
        ValueId(self.values.len() as u32 - 1)
    }

    /// The class and size of `value`.
    pub fn info(&self, value: ValueId) -> ValueInfo {
        self.values[value.0 as usize]
    }

    /// The block `block`.
    pub fn block(&self, block: BlockId) -> &Block {
        &self.blocks[block.0 as usize]
    }

    /// Fills every block's `preds` from the `succs` lists (in block order), for clients
    /// that only know successors. φs must be written against the order this produces.
    pub fn compute_preds(&mut self) {
        for block in &mut self.blocks {
            block.preds.clear();
        }
        for index in 0..self.blocks.len() {
            let succs = self.blocks[index].succs.clone();
            for succ in succs {
                if let Some(target) = self.blocks.get_mut(succ.0 as usize) {
                    target.preds.push(BlockId(index as u32));
                }
            }
        }
    }
}

/// How many registers of each class the allocator may use: `gpr: 255` allows R0–R254.
/// Lower limits model an occupancy target (64 GPRs per thread let 32 warps share an SM's
/// 64K registers) or force spilling in tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// GPRs R0..R(gpr-1); at most 255.
    pub gpr: u16,
    /// Predicates P0..P(pred-1); at most 7.
    pub pred: u16,
    /// Uniform registers UR0..UR(ugpr-1); at most 63.
    pub ugpr: u16,
    /// Uniform predicates UP0..UP(upred-1); at most 7.
    pub upred: u16,
    /// Barrier registers B0..B(barrier-1); at most 16.
    pub barrier: u16,
}

impl Limits {
    /// The whole register files of SM75–SM90.
    pub const HARDWARE: Limits = Limits {
        gpr: 255,
        pred: 7,
        ugpr: 63,
        upred: 7,
        barrier: 16,
    };

    /// The limit of `class`.
    pub fn of(&self, class: RegClass) -> u16 {
        match class {
            RegClass::Gpr => self.gpr,
            RegClass::Pred => self.pred,
            RegClass::UGpr => self.ugpr,
            RegClass::UPred => self.upred,
            RegClass::Barrier => self.barrier,
        }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::HARDWARE
    }
}

impl Function {
    fn shape_text(&self, value: ValueId) -> String {
        match self.values.get(value.0 as usize) {
            Some(info) => format!("{}{}", info.class.prefix(), info.size),
            None => "?".into(),
        }
    }
}

impl fmt::Display for Function {
    /// A compact listing: `b1 <- b0 b2 -> b3`, φs, then one instruction a line
    /// (`v5:R2 = v3 v4@R8 !tie0 !ec !br`), for test failures and debugging.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (b, block) in self.blocks.iter().enumerate() {
            write!(f, "b{b} <-")?;
            for p in &block.preds {
                write!(f, " {p}")?;
            }
            write!(f, " ->")?;
            for s in &block.succs {
                write!(f, " {s}")?;
            }
            writeln!(f)?;
            for phi in &block.phis {
                write!(f, "  {}:{} = phi", phi.dst, self.shape_text(phi.dst))?;
                for s in &phi.srcs {
                    write!(f, " {s}")?;
                }
                writeln!(f)?;
            }
            for (i, inst) in block.insts.iter().enumerate() {
                write!(f, "  {i}:")?;
                for def in &inst.defs {
                    write!(f, " {}:{}", def.value, self.shape_text(def.value))?;
                    match def.constraint {
                        DefConstraint::Free => {}
                        DefConstraint::Fixed(r) => write!(f, "@{r}")?,
                        DefConstraint::TiedToUse(k) => write!(f, "~{k}")?,
                    }
                }
                write!(f, " =")?;
                for use_ in &inst.uses {
                    write!(f, " {}", use_.value)?;
                    if let Some(r) = use_.fixed {
                        write!(f, "@{r}")?;
                    }
                }
                if inst.early_clobber {
                    write!(f, " !ec")?;
                }
                if inst.branch {
                    write!(f, " !br")?;
                }
                writeln!(f)?;
            }
        }
        Ok(())
    }
}
