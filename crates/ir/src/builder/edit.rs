//! Editing operations on a function: insert, remove, replace all uses, split an edge, edit
//! phi incomings, retarget branches. They keep the function's own bookkeeping consistent
//! (a removed instruction's result is marked [`ValueDef::Unused`]; phis follow edges that
//! move); they do not keep SSA dominance, which [`crate::ssa_repair`] restores after
//! control-flow rewrites.
//!
//! Instruction positions are found by scanning the layout: the IR keeps no
//! instruction-to-block map, so an edit that needs one costs a pass over the function.

use crate::hash::FxHashSet;
use crate::module::{
    Block, BlockData, Function, Inst, InstData, Operand, Terminator, Value, ValueData, ValueDef,
};
use crate::operands::Operands;
use crate::ops::Op;
use crate::types::Type;

/// Where to insert an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsertAt {
    /// Immediately before this instruction.
    Before(Inst),
    /// Immediately after this instruction.
    After(Inst),
    /// At the start of this block, after its phis (the first place a non-phi may go).
    AfterPhis(Block),
    /// At the end of this block, before its terminator.
    End(Block),
}

impl Function {
    /// The block holding `inst` and its position there, if `inst` is in a laid-out block.
    pub fn inst_position(&self, inst: Inst) -> Option<(Block, usize)> {
        self.layout.iter().find_map(|&b| {
            self.blocks
                .get(b)?
                .insts
                .iter()
                .position(|&i| i == inst)
                .map(|k| (b, k))
        })
    }

    /// The instruction that defines `v`, if an instruction does.
    pub fn value_inst(&self, v: Value) -> Option<Inst> {
        match self.values.get(v)?.def {
            ValueDef::Inst(i) => Some(i),
            _ => None,
        }
    }

    /// Creates an instruction at `at`, with a result of type `ty` when given. Panics if `at`
    /// names an instruction that is not in a laid-out block (a caller bug, not bad input).
    pub fn insert_inst(
        &mut self,
        at: InsertAt,
        op: Op,
        args: impl Into<Operands>,
        ty: Option<Type>,
    ) -> (Inst, Option<Value>) {
        let (block, index) = match at {
            InsertAt::Before(i) | InsertAt::After(i) => {
                let (b, k) = self
                    .inst_position(i)
                    .expect("insertion point is an instruction of a laid-out block");
                (
                    b,
                    if matches!(at, InsertAt::After(_)) {
                        k + 1
                    } else {
                        k
                    },
                )
            }
            InsertAt::AfterPhis(b) => (b, self.phis(b).len()),
            InsertAt::End(b) => (b, self.blocks[b].insts.len()),
        };
        let inst = self.insts.push(InstData::new(op, args, None));
        let result = ty.map(|ty| {
            self.values.push(ValueData {
                ty,
                def: ValueDef::Inst(inst),
            })
        });
        self.insts[inst].result = result;
        self.blocks[block].insts.insert(index, inst);
        (inst, result)
    }

    /// Removes `inst` from its block; its result (if any) becomes [`ValueDef::Unused`].
    /// Uses of the result are left for the caller to replace first. Returns whether the
    /// instruction was found.
    pub fn remove_inst(&mut self, inst: Inst) -> bool {
        let Some((b, k)) = self.inst_position(inst) else {
            return false;
        };
        self.blocks[b].insts.remove(k);
        if let Some(r) = self.insts[inst].result {
            self.values[r].def = ValueDef::Unused;
        }
        true
    }

    /// Replaces every use of `old` (instruction operands, phi incomings, terminators) by
    /// `new`; returns how many uses changed.
    pub fn replace_all_uses(&mut self, old: Value, new: Operand) -> usize {
        let mut n = 0;
        let from = Operand::Value(old);
        for &b in &self.layout {
            let Some(block) = self.blocks.get(b) else {
                continue;
            };
            for &i in &block.insts {
                for a in self.insts[i].args.iter_mut() {
                    if *a == from {
                        *a = new;
                        n += 1;
                    }
                }
                // A token can only be replaced by another token value.
                if let (Some(t), Operand::Value(v)) = (&mut self.insts[i].conv, new) {
                    if *t == old {
                        *t = v;
                        n += 1;
                    }
                }
            }
            let term = &mut self.blocks[b].term;
            let slot = match term {
                Terminator::CondBranch { cond, .. } => Some(cond),
                Terminator::Switch { selector, .. } => Some(selector),
                Terminator::ReturnValue(v) => Some(v),
                _ => None,
            };
            if let Some(slot) = slot {
                if *slot == from {
                    *slot = new;
                    n += 1;
                }
            }
        }
        n
    }

    /// The phis at the start of `b`.
    pub fn phis(&self, b: Block) -> Vec<Inst> {
        self.blocks[b]
            .insts
            .iter()
            .copied()
            .take_while(|&i| matches!(self.insts[i].op, Op::Phi(_)))
            .collect()
    }

    /// Adds a phi of type `ty` after the existing phis of `b`, with `incoming` (block,
    /// value) pairs.
    pub fn add_phi(&mut self, b: Block, ty: Type, incoming: &[(Block, Operand)]) -> (Inst, Value) {
        let blocks = incoming.iter().map(|p| p.0).collect();
        let args: Operands = incoming.iter().map(|p| p.1).collect();
        let (inst, v) = self.insert_inst(InsertAt::AfterPhis(b), Op::Phi(blocks), args, Some(ty));
        (inst, v.expect("a phi has a result"))
    }

    /// The value phi `phi` takes from `pred`.
    pub fn phi_incoming(&self, phi: Inst, pred: Block) -> Option<Operand> {
        let data = &self.insts[phi];
        let Op::Phi(blocks) = &data.op else {
            return None;
        };
        blocks.iter().position(|&p| p == pred).map(|k| data.args[k])
    }

    /// Sets the value phi `phi` takes from `pred`, adding the incoming if it is new.
    pub fn set_phi_incoming(&mut self, phi: Inst, pred: Block, value: Operand) {
        let data = &mut self.insts[phi];
        let Op::Phi(blocks) = &mut data.op else {
            panic!("{phi} is not a phi");
        };
        match blocks.iter().position(|&p| p == pred) {
            Some(k) => data.args[k] = value,
            None => {
                blocks.push(pred);
                data.args.push(value);
            }
        }
    }

    /// Removes the incoming from `pred` of phi `phi`; returns its value.
    pub fn remove_phi_incoming(&mut self, phi: Inst, pred: Block) -> Option<Operand> {
        let data = &mut self.insts[phi];
        let Op::Phi(blocks) = &mut data.op else {
            return None;
        };
        let k = blocks.iter().position(|&p| p == pred)?;
        blocks.remove(k);
        Some(data.args.remove(k))
    }

    /// In every phi of `b`, renames incoming block `old` to `new`.
    pub fn rename_phi_pred(&mut self, b: Block, old: Block, new: Block) {
        for phi in self.phis(b) {
            if let Op::Phi(blocks) = &mut self.insts[phi].op {
                for p in blocks.iter_mut().filter(|p| **p == old) {
                    *p = new;
                }
            }
        }
    }

    /// Removes the incomings from `pred` in every phi of `b`.
    pub fn remove_phi_pred(&mut self, b: Block, pred: Block) {
        for phi in self.phis(b) {
            self.remove_phi_incoming(phi, pred);
        }
    }

    /// Points every edge of `from`'s terminator that goes to `old` at `new` instead;
    /// returns how many targets changed. Phis are not touched.
    pub fn retarget(&mut self, from: Block, old: Block, new: Block) -> usize {
        let mut n = 0;
        let mut swap = |t: &mut Block| {
            if *t == old {
                *t = new;
                n += 1;
            }
        };
        match &mut self.blocks[from].term {
            Terminator::Branch(t) => swap(t),
            Terminator::CondBranch {
                if_true, if_false, ..
            } => {
                swap(if_true);
                swap(if_false);
            }
            Terminator::Switch { default, cases, .. } => {
                swap(default);
                for (_, t) in cases.iter_mut() {
                    swap(t);
                }
            }
            _ => {}
        }
        n
    }

    /// Creates an empty block (ending in `unreachable`) placed right after `after` in the
    /// layout (at the end if `after` is not laid out).
    pub fn insert_block_after(&mut self, after: Block) -> Block {
        let b = self.blocks.push(BlockData::default());
        match self.layout.iter().position(|&x| x == after) {
            Some(k) => self.layout.insert(k + 1, b),
            None => self.layout.push(b),
        }
        b
    }

    /// Splits the edge `from -> to`: a new block, laid out right after `from` (so it still
    /// follows its dominator), branches to `to`; every target of `from` that was `to` now
    /// goes to the new block, and `to`'s phis take from it what they took from `from`.
    /// Returns the new block, or `None` if there is no such edge.
    pub fn split_edge(&mut self, from: Block, to: Block) -> Option<Block> {
        if !self.blocks[from].term.successors().contains(&to) {
            return None;
        }
        let mid = self.insert_block_after(from);
        self.blocks[mid].term = Terminator::Branch(to);
        self.retarget(from, to, mid);
        self.rename_phi_pred(to, from, mid);
        Some(mid)
    }

    /// Removes `b` from the layout: its instructions' results become unused and the phis
    /// of its successors forget it. Uses of its values elsewhere are the caller's to fix.
    pub fn remove_block(&mut self, b: Block) {
        let Some(k) = self.layout.iter().position(|&x| x == b) else {
            return;
        };
        self.layout.remove(k);
        let mut succs = self.blocks[b].term.successors();
        succs.dedup();
        for s in succs {
            if s != b && self.layout.contains(&s) {
                self.remove_phi_pred(s, b);
            }
        }
        for i in std::mem::take(&mut self.blocks[b].insts) {
            if let Some(r) = self.insts[i].result {
                self.values[r].def = ValueDef::Unused;
            }
        }
        self.blocks[b].merge = None;
        self.blocks[b].term = Terminator::Unreachable;
    }

    /// Lays the blocks reachable from the entry out in reverse post-order (so every block
    /// follows its dominator), the unreachable ones after them in their old order.
    pub fn layout_in_reverse_post_order(&mut self) {
        let cfg = crate::cfg::Cfg::new(self);
        let mut order = crate::cfg::reverse_post_order(self, &cfg);
        let seen: FxHashSet<Block> = order.iter().copied().collect();
        order.extend(self.layout.iter().copied().filter(|b| !seen.contains(b)));
        self.layout = order;
    }
}
