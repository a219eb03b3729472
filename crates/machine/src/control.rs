//! Control flow of a group: entering a block (phis), branches that split a group, switch,
//! return, and lanes that end. Nothing here merges groups: on this machine only a barrier
//! does (`barrier.rs`), or the opportunistic policy (`schedule.rs`).

use tangle_ir::{Block, Op, Terminator};
use tangle_lanes::value::OpFail;
use tangle_lanes::{lanes_of, Mask};
use tangle_sched::Event;

use crate::error::{MachineError, R};
use crate::exec::Issued;
use crate::state::{Group, Pc, Run, Status, Subgroup};

impl Run<'_, '_> {
    /// Runs the phis of `g`'s block for every lane (each from its own predecessor, all
    /// read before any is written), then puts `g` after them.
    pub(crate) fn enter(&mut self, sg: &mut Subgroup, g: &mut Group) -> R<()> {
        let pc = g.pc();
        let m = self.machine.module;
        let f = &m.funcs[pc.func];
        let n = self.machine.facts[pc.func.as_u32() as usize].phis(pc.block);
        if n > 0 {
            let phis = &f.blocks[pc.block].insts[..n];
            let mut vals = Vec::with_capacity(n);
            for lane in lanes_of(g.mask) {
                let prev = sg.lanes[lane].frames.last().expect("frame").prev;
                vals.clear();
                for (k, &i) in phis.iter().enumerate() {
                    let id = &f.insts[i];
                    let Op::Phi(blocks) = &id.op else {
                        unreachable!("phis lead the block")
                    };
                    let at = Pc { idx: k, ..pc };
                    let j = blocks
                        .iter()
                        .position(|b| Some(*b) == prev)
                        .ok_or_else(|| {
                            self.fail(
                                at,
                                OpFail::Undefined(format!(
                                    "phi has no incoming value for {prev:?}"
                                )),
                            )
                        })?;
                    vals.push(self.operand(sg, at, lane, id.args[j])?);
                }
                for (&i, v) in phis.iter().zip(vals.drain(..)) {
                    Self::set(sg, lane, f.insts[i].result.expect("phi result"), v);
                }
            }
        }
        g.pc_mut().idx = n;
        Ok(())
    }

    /// Moves `g` from its block to `to`.
    fn goto(&mut self, sg: &mut Subgroup, g: &mut Group, to: Block) -> R<()> {
        let from = g.pc().block;
        for lane in lanes_of(g.mask) {
            sg.lanes[lane].frames.last_mut().expect("frame").prev = Some(from);
        }
        *g.pc_mut() = Pc {
            block: to,
            idx: 0,
            ..g.pc()
        };
        self.enter(sg, g)
    }

    /// Sends the lanes of `g` to the blocks `targets` gives them (lanes, block), splitting
    /// it when there are several.
    fn split_to(&mut self, sg: &mut Subgroup, g: Group, targets: Vec<(Mask, Block)>) -> R<Issued> {
        if targets.len() == 1 {
            let mut g = g;
            self.goto(sg, &mut g, targets[0].1)?;
            return Ok(Issued::on(Event::BlockEnd, g));
        }
        for (mask, to) in targets {
            let mut part = Group { mask, ..g.clone() };
            self.goto(sg, &mut part, to)?;
            sg.groups.push(part);
        }
        Ok(Issued {
            event: Event::Split,
            cont: None,
        })
    }

    /// Executes `g`'s terminator.
    pub(crate) fn terminator(&mut self, sg: &mut Subgroup, mut g: Group) -> R<Issued> {
        let pc = g.pc();
        let m = self.machine.module;
        let bd = &m.funcs[pc.func].blocks[pc.block];
        match &bd.term {
            Terminator::Branch(b) => {
                self.goto(sg, &mut g, *b)?;
                Ok(Issued::on(Event::BlockEnd, g))
            }
            Terminator::CondBranch {
                cond,
                if_true,
                if_false,
            } => {
                let mut taken: Mask = 0;
                let undefined_branch = self.machine.config.undefined_branch;
                for lane in lanes_of(g.mask) {
                    let side = match self.condition(sg, pc, lane, *cond, "branch condition") {
                        Ok(side) => side,
                        // SPIR-V lets an undefined condition take either side.
                        Err(MachineError::UndefinedValue(_)) if undefined_branch.is_some() => {
                            undefined_branch == Some(true)
                        }
                        Err(e) => return Err(e),
                    };
                    if side {
                        taken |= 1 << lane;
                    }
                }
                let targets = [(taken, *if_true), (g.mask & !taken, *if_false)]
                    .into_iter()
                    .filter(|(m, _)| *m != 0)
                    .collect();
                self.split_to(sg, g, targets)
            }
            Terminator::Switch {
                selector,
                default,
                cases,
            } => {
                // Like an indirect branch on hardware: one group per distinct target.
                let mut targets: Vec<(Mask, Block)> = Vec::new();
                for lane in lanes_of(g.mask) {
                    let v = self.operand(sg, pc, lane, *selector)?;
                    let s = self
                        .defined(pc, lane, "switch selector", v)?
                        .scalar()
                        .map_err(|e| self.fail(pc, e))?;
                    let to = cases
                        .iter()
                        .find(|(c, _)| *c == s)
                        .map_or(*default, |(_, b)| *b);
                    match targets.iter_mut().find(|(_, b)| *b == to) {
                        Some(t) => t.0 |= 1 << lane,
                        None => targets.push((1 << lane, to)),
                    }
                }
                self.split_to(sg, g, targets)
            }
            Terminator::Return | Terminator::ReturnValue(_) => {
                if g.frames.len() == 1 {
                    // Returning from the entry point ends the lanes, like `exit`.
                    let lanes = g.mask;
                    self.end_lanes(sg, &mut g, lanes);
                    return Ok(Issued::on(Event::Exited, g));
                }
                let depth = g.frames.len() - 1;
                let caller = g.frames[depth - 1];
                let call = m.funcs[caller.func].blocks[caller.block].insts[caller.idx];
                let dest = m.funcs[caller.func].insts[call].result;
                for lane in lanes_of(g.mask) {
                    let rv = match &bd.term {
                        Terminator::ReturnValue(o) => Some(self.operand(sg, pc, lane, *o)?),
                        _ => None,
                    };
                    let l = &mut sg.lanes[lane];
                    l.frames.pop();
                    l.bars.retain(|b| b.depth < depth);
                    if let (Some(d), Some(v)) = (dest, rv) {
                        Self::set(sg, lane, d, v);
                    }
                }
                g.frames.pop();
                g.pc_mut().idx += 1;
                Ok(Issued::on(Event::BlockEnd, g))
            }
            Terminator::Kill | Terminator::TerminateInvocation => {
                let lanes = g.mask;
                self.end_lanes(sg, &mut g, lanes);
                Ok(Issued::on(Event::Exited, g))
            }
            Terminator::Unreachable => {
                Err(self.fail(pc, OpFail::Undefined("reached unreachable".into())))
            }
        }
    }

    /// Ends `lanes` of `g`: they leave the group, never block a barrier again, and every
    /// waiter is checked anew.
    pub(crate) fn end_lanes(&mut self, sg: &mut Subgroup, g: &mut Group, lanes: Mask) {
        if lanes == 0 {
            return;
        }
        for lane in lanes_of(lanes) {
            let l = &mut sg.lanes[lane];
            l.exited = true;
            l.bars.clear();
        }
        g.mask &= !lanes;
        debug_assert!(g.status == Status::Ready);
        self.release(sg);
    }
}
