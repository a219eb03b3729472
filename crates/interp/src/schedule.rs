//! Scheduling: which tangle runs next, workgroup barriers, and the deadlock and step-budget
//! errors with their description of every tangle.

use tangle_ir::{Block, Func, Inst, Op, Operand, Value};

use crate::config::SchedulePolicy;
use crate::error::{InterpError, R};
use crate::observe::Access;
use crate::state::{Run, Subgroup, Tangle};

impl Run<'_, '_> {
    /// Runs the subgroups of workgroup `wg` until every lane has ended: each subgroup until
    /// none of its tangles can run, then the next, repeatedly; releases workgroup barriers.
    pub(crate) fn schedule(&mut self, wg: [u32; 3], mut subgroups: Vec<Subgroup>) -> R<()> {
        loop {
            let mut ran = false;
            for si in 0..subgroups.len() {
                while let Some(i) = self.pick(&subgroups[si]) {
                    ran = true;
                    let t = subgroups[si].tangles.swap_remove(i);
                    if let Err(e) = self.run_tangle(&mut subgroups[si], t) {
                        return Err(self.decorate(e, &self.describe(&subgroups)));
                    }
                }
            }
            if ran {
                continue;
            }
            // Nothing runnable: release a workgroup barrier, finish, or report a deadlock.
            let live: u32 = subgroups
                .iter()
                .map(|s| s.lanes.iter().filter(|l| l.alive).count() as u32)
                .sum();
            if live == 0 {
                return Ok(());
            }
            let at_barrier: u32 = subgroups
                .iter()
                .flat_map(|s| s.tangles.iter())
                .filter(|t| t.at_barrier)
                .map(|t| t.mask.count_ones())
                .sum();
            if at_barrier == live {
                // Atomics before and after a workgroup barrier do not race (`order/`).
                self.phase += 1;
                for s in subgroups.iter_mut() {
                    for t in s.tangles.iter_mut() {
                        t.at_barrier = false;
                    }
                }
                continue;
            }
            return Err(InterpError::Deadlock {
                workgroup: wg,
                tangles: self.describe(&subgroups),
            });
        }
    }

    /// Fills a budget error's description of every tangle.
    fn decorate(&self, e: InterpError, subgroups: &str) -> InterpError {
        match e {
            InterpError::Budget {
                budget, workgroup, ..
            } => InterpError::Budget {
                budget,
                workgroup,
                tangles: subgroups.to_string(),
            },
            e => e,
        }
    }

    /// Where every tangle of every subgroup is or waits.
    fn describe(&self, subgroups: &[Subgroup]) -> String {
        let mut out = String::new();
        for s in subgroups {
            describe_sg(&mut out, s);
        }
        out
    }

    /// The runnable tangle of `sg` to run next under the schedule policy.
    fn pick(&mut self, sg: &Subgroup) -> Option<usize> {
        let runnable = sg.tangles.iter().enumerate().filter(|(_, t)| !t.at_barrier);
        match self.it.config.schedule_policy {
            SchedulePolicy::LowestLaneFirst => runnable
                .min_by_key(|(_, t)| t.mask.trailing_zeros())
                .map(|(i, _)| i),
            SchedulePolicy::NewestFirst => runnable.max_by_key(|(_, t)| t.serial).map(|(i, _)| i),
            SchedulePolicy::Random(_) => {
                let v: Vec<usize> = runnable.map(|(i, _)| i).collect();
                if v.is_empty() {
                    return None;
                }
                self.rng ^= self.rng << 13;
                self.rng ^= self.rng >> 7;
                self.rng ^= self.rng << 17;
                Some(v[(self.rng % v.len() as u64) as usize])
            }
        }
    }

    /// Runs a tangle until it stops: it waits, splits, exits, reaches a barrier, or (under
    /// the random policy) after one step.
    fn run_tangle(&mut self, sg: &mut Subgroup, mut t: Tangle) -> R<()> {
        loop {
            if self.steps >= self.it.config.step_budget {
                sg.tangles.push(t);
                return Err(InterpError::Budget {
                    budget: self.it.config.step_budget,
                    workgroup: self.workgroup,
                    tangles: String::new(),
                });
            }
            self.steps += 1;
            self.lane_steps += u64::from(t.mask.count_ones());
            // Between instructions no stored slot is held outside the lane arrays.
            if sg.store.due() {
                sg.store.collect(&mut sg.values);
            }
            let f = *t.frames.last().expect("frame");
            let bd = &self.module().funcs[f.func].blocks[f.block];
            let next = if f.idx < bd.insts.len() {
                let inst = bd.insts[f.idx];
                if self.observer.is_some() {
                    observe_operands(self, sg, &t, f.func, f.block, inst);
                }
                let mask = t.mask;
                if self.order.is_some() {
                    self.exec_order(sg, &mut t, f, inst)?;
                } else {
                    self.exec_inst(sg, &mut t, inst)?;
                }
                if self.observer.is_some() {
                    let id = &self.module().funcs[f.func].insts[inst];
                    if let (Some(r), false) = (id.result, matches!(id.op, Op::Call(_))) {
                        self.observe(sg, f.func, f.block, Some(inst), mask, Access::Wrote, &[r]);
                    }
                }
                Some(t)
            } else {
                if self.observer.is_some() {
                    let reads: Vec<Value> = value_operands(&bd.term.operands());
                    self.observe(sg, f.func, f.block, None, t.mask, Access::Read, &reads);
                }
                self.exec_term(sg, t)?
            };
            match next {
                Some(n)
                    if !n.at_barrier
                        && !matches!(self.it.config.schedule_policy, SchedulePolicy::Random(_)) =>
                {
                    t = n
                }
                Some(n) => {
                    sg.tangles.push(n);
                    return Ok(());
                }
                None => return Ok(()),
            }
        }
    }
}

fn describe_sg(out: &mut String, s: &Subgroup) {
    use std::fmt::Write;
    let _ = writeln!(out, "subgroup {}:", s.index);
    for t in &s.tangles {
        let f = t.frames.last().expect("frame");
        let _ = writeln!(
            out,
            "  tangle {:#x} at {} {} instruction {}{}",
            t.mask,
            f.func,
            f.block,
            f.idx,
            if t.at_barrier {
                " (after a workgroup barrier, waiting)"
            } else {
                ""
            }
        );
    }
    for inst in s.instances.iter().flatten() {
        for (b, m) in &inst.arrivals {
            let _ = writeln!(
                out,
                "  tangle {:#x} waits at {b} for {:#x} ({:?})",
                m,
                inst.participants & !m,
                inst.kind
            );
        }
    }
}

/// The SSA values among `ops`.
fn value_operands(ops: &[Operand]) -> Vec<Value> {
    ops.iter()
        .filter_map(|o| match o {
            Operand::Value(v) => Some(*v),
            _ => None,
        })
        .collect()
}

/// Reports the operands of `inst` (not of a phi, whose lanes read different operands) to the
/// observer before it runs.
fn observe_operands(
    run: &mut Run<'_, '_>,
    sg: &Subgroup,
    t: &Tangle,
    func: Func,
    block: Block,
    inst: Inst,
) {
    let id = &run.module().funcs[func].insts[inst];
    if matches!(id.op, Op::Phi(_)) {
        return;
    }
    let reads = value_operands(&id.args);
    run.observe(sg, func, block, Some(inst), t.mask, Access::Read, &reads);
}
