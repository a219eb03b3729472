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
///
/// Compressed rows: one array of all uses, sliced per value by `start`, built by a counting
/// pass and a filling pass. A vector per value cost an allocation per used value and left
/// the lists scattered over the heap.
#[derive(Clone, Debug)]
pub struct UseLists {
    /// By value index: where its uses start in `list` (one more entry than values; values
    /// past the end have no use).
    start: Vec<u32>,
    list: Vec<Use>,
}

impl UseLists {
    /// Collects the uses in `func`.
    pub fn new(func: &Function) -> Self {
        // Counts first (by value index, shifted by one so the prefix sums land in place).
        let mut start: Vec<u32> = vec![0; func.values.len() + 1];
        each_use(func, |v, _| {
            if v.index() + 1 >= start.len() {
                start.resize(v.index() + 2, 0);
            }
            start[v.index() + 1] += 1;
        });
        for k in 1..start.len() {
            start[k] += start[k - 1];
        }
        let total = *start.last().unwrap_or(&0) as usize;
        let mut list = vec![Use::Terminator(Block::from_u32(0)); total];
        let mut next: Vec<u32> = start[..start.len() - 1].to_vec();
        each_use(func, |v, u| {
            let slot = &mut next[v.index()];
            list[*slot as usize] = u;
            *slot += 1;
        });
        UseLists { start, list }
    }

    /// The uses of `v`.
    pub fn uses(&self, v: Value) -> &[Use] {
        match (self.start.get(v.index()), self.start.get(v.index() + 1)) {
            (Some(&a), Some(&b)) => &self.list[a as usize..b as usize],
            _ => &[],
        }
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

/// Calls `f` with every use of a value in `func`'s laid-out blocks, in layout order.
fn each_use(func: &Function, mut f: impl FnMut(Value, Use)) {
    for &b in &func.layout {
        let Some(block) = func.blocks.get(b) else {
            continue;
        };
        for &i in &block.insts {
            for (index, a) in func.insts[i].args.iter().enumerate() {
                if let Operand::Value(v) = a {
                    f(*v, Use::Inst { inst: i, index });
                }
            }
            if let Some(t) = func.insts[i].conv {
                f(t, Use::Conv(i));
            }
        }
        if let Some(Operand::Value(v)) = block.term.operand() {
            f(v, Use::Terminator(b));
        }
    }
}
