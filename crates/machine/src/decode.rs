//! What the machine looks up on every issued instruction, computed once per module:
//! operand and result types per instruction, and the number of phis per block.

use tangle_ir::{Block, Inst, Module, Op, Type};

/// One function's pre-decoded facts, indexed by instruction and block number.
#[derive(Debug, Default)]
pub(crate) struct FuncFacts {
    operand_types: Vec<Vec<Type>>,
    result_type: Vec<Option<Type>>,
    phis: Vec<usize>,
}

impl FuncFacts {
    /// The operand types of `inst`.
    pub(crate) fn atys(&self, inst: Inst) -> &[Type] {
        &self.operand_types[inst.as_u32() as usize]
    }

    /// The result type of `inst`.
    pub(crate) fn rty(&self, inst: Inst) -> Option<Type> {
        self.result_type[inst.as_u32() as usize]
    }

    /// How many phis `block` starts with.
    pub(crate) fn phis(&self, block: Block) -> usize {
        self.phis[block.as_u32() as usize]
    }
}

/// The facts of every function of `module`, indexed by function number.
pub(crate) fn decode(module: &Module) -> Vec<FuncFacts> {
    module
        .funcs
        .iter()
        .map(|(_, f)| {
            let mut facts = FuncFacts::default();
            for (i, d) in f.insts.iter() {
                let n = i.as_u32() as usize;
                if facts.operand_types.len() <= n {
                    facts.operand_types.resize(n + 1, Vec::new());
                    facts.result_type.resize(n + 1, None);
                }
                facts.operand_types[n] =
                    d.args.iter().map(|a| module.operand_type(f, *a)).collect();
                facts.result_type[n] = d.result.map(|v| f.values[v].ty);
            }
            for (b, bd) in f.blocks.iter() {
                let n = b.as_u32() as usize;
                if facts.phis.len() <= n {
                    facts.phis.resize(n + 1, 0);
                }
                facts.phis[n] = bd
                    .insts
                    .iter()
                    .take_while(|i| matches!(f.insts[**i].op, Op::Phi(_)))
                    .count();
            }
            facts
        })
        .collect()
}
