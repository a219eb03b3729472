//! Use lists: for every value, where it is used.

use crate::entity::EntityRef;
use crate::module::{Block, Function, Inst, Operand, Value};

/// One use of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Use {
    /// Operand `index` of instruction `inst` (for a phi, the incoming value from the block
    /// at the same index).
    Inst {
        /// The using instruction.
        inst: Inst,
        /// The operand's position.
        index: usize,
    },
    /// The convergence-control operand (`conv(v)`) of an instruction.
    Conv(Inst),
    /// The terminator of a block (branch condition, switch selector or returned value).
    Terminator(Block),
}

/// The uses of every value of a function's laid-out blocks, in layout order.
#[derive(Clone, Debug)]
pub struct UseLists {
    /// By value index; values past the end have no use.
    uses: Vec<Vec<Use>>,
}

impl UseLists {
    /// Collects the uses in `func`.
    pub fn new(func: &Function) -> Self {
        let mut uses: Vec<Vec<Use>> = vec![Vec::new(); func.values.len()];
        let mut add = |v: Value, u: Use| {
            if v.index() >= uses.len() {
                uses.resize(v.index() + 1, Vec::new());
            }
            uses[v.index()].push(u);
        };
        for &b in &func.layout {
            let Some(block) = func.blocks.get(b) else {
                continue;
            };
            for &i in &block.insts {
                for (index, a) in func.insts[i].args.iter().enumerate() {
                    if let Operand::Value(v) = a {
                        add(*v, Use::Inst { inst: i, index });
                    }
                }
                if let Some(t) = func.insts[i].conv {
                    add(t, Use::Conv(i));
                }
            }
            for o in block.term.operands() {
                if let Operand::Value(v) = o {
                    add(v, Use::Terminator(b));
                }
            }
        }
        UseLists { uses }
    }

    /// The uses of `v`.
    pub fn uses(&self, v: Value) -> &[Use] {
        self.uses.get(v.index()).map_or(&[], Vec::as_slice)
    }

    /// Whether `v` has no use.
    pub fn is_unused(&self, v: Value) -> bool {
        self.uses(v).is_empty()
    }

    /// The distinct instructions that use `v`, in order of first use.
    pub fn using_insts(&self, v: Value) -> Vec<Inst> {
        let mut out = Vec::new();
        for u in self.uses(v) {
            if let Use::Inst { inst, .. } | Use::Conv(inst) = u {
                if !out.contains(inst) {
                    out.push(*inst);
                }
            }
        }
        out
    }
}
