//! Scheduling: which group of a subgroup issues next under the policy (`tangle-sched`),
//! opportunistic merging, workgroup barriers, and the deadlock, livelock and budget
//! reports.
//!
//! Subgroups of a workgroup run in turn, each until none of its groups can issue, as in
//! the reference interpreter; within a subgroup the policy decides.

use tangle_ir::{Op, TangleOp, Terminator};
use tangle_lanes::lanes_of;
use tangle_lanes::value::Val;
use tangle_sched::{Candidate, Policy};

use crate::error::{GroupReport, GroupState, MachineError, Stuck, R};
use crate::state::{Group, Run, Status, Subgroup};

/// Why a subgroup stopped issuing.
enum Stop {
    /// No group of it is ready.
    Idle,
    /// The step budget ran out.
    Budget,
}

impl Run<'_, '_> {
    /// Runs workgroup `wg` until every lane has ended.
    pub(crate) fn workgroup(&mut self, wg: [u32; 3], keys: &[(u32, u32)]) -> R<()> {
        self.workgroup = wg;
        let mut sgs = self.subgroups(wg, keys)?;
        loop {
            let mut ran = false;
            for sg in sgs.iter_mut() {
                if sg.groups.iter().any(|g| g.status == Status::Ready) {
                    ran = true;
                    if let Stop::Budget = self.run_subgroup(sg)? {
                        return Err(self.out_of_budget(&sgs));
                    }
                }
            }
            if ran {
                continue;
            }
            let live: u32 = sgs
                .iter()
                .map(|s| s.lanes.iter().filter(|l| !l.exited).count() as u32)
                .sum();
            if live == 0 {
                return Ok(());
            }
            let at_barrier: u32 = sgs
                .iter()
                .flat_map(|s| &s.groups)
                .filter(|g| g.status == Status::WorkgroupBarrier)
                .map(|g| g.mask.count_ones())
                .sum();
            if at_barrier == live {
                for g in sgs.iter_mut().flat_map(|s| s.groups.iter_mut()) {
                    g.status = Status::Ready;
                }
                continue;
            }
            return Err(MachineError::Deadlock(Box::new(self.stuck(&sgs, None))));
        }
    }

    /// Issues groups of `sg` under the policy until none is ready or the budget runs out.
    fn run_subgroup(&mut self, sg: &mut Subgroup) -> R<Stop> {
        let policy = self.machine.config.policy;
        let budget = self.machine.config.step_budget;
        let mut current: Option<Group> = None;
        loop {
            let mut g = match current.take() {
                Some(g) => g,
                None => match self.pick(sg)? {
                    Some(i) => sg.groups.swap_remove(i),
                    None => return Ok(Stop::Idle),
                },
            };
            if policy.merges_at_same_point() {
                let mut i = 0;
                while i < sg.groups.len() {
                    let o = &sg.groups[i];
                    if o.status == Status::Ready && o.frames == g.frames {
                        g.mask |= sg.groups.swap_remove(i).mask;
                    } else {
                        i += 1;
                    }
                }
            }
            if self.steps >= budget {
                sg.groups.push(g);
                return Ok(Stop::Budget);
            }
            let issued = self.issue(sg, g)?;
            if let Some(c) = issued.cont {
                if c.status == Status::Ready && !policy.switches_at(issued.event) {
                    current = Some(c);
                } else {
                    sg.groups.push(c);
                }
            }
        }
    }

    /// The index in `sg.groups` of the ready group to issue next.
    fn pick(&mut self, sg: &Subgroup) -> R<Option<usize>> {
        let mut ready: Vec<usize> = (0..sg.groups.len())
            .filter(|&i| sg.groups[i].status == Status::Ready)
            .collect();
        if ready.len() <= 1 {
            return Ok(ready.first().copied());
        }
        ready.sort_by_key(|&i| sg.groups[i].mask.trailing_zeros());
        if self.machine.config.policy == Policy::Exhaustive {
            // Groups whose next step touches only their own lanes commute with every
            // other group: run the first of them without a choice (a partial-order
            // reduction that loses no outcome). Only when every ready group is at a
            // step others can see do the interleavings differ, and the search branches.
            if let Some(&i) = ready.iter().find(|&&i| !self.visible(sg, &sg.groups[i])) {
                return Ok(Some(i));
            }
            let script = self.script.as_mut().expect("a search has a script");
            return Ok(Some(ready[script.choose(ready.len())?]));
        }
        let candidates: Vec<Candidate> = ready
            .iter()
            .map(|&i| Candidate {
                lowest_lane: sg.groups[i].mask.trailing_zeros(),
                last_issued: sg.groups[i].last_issued,
            })
            .collect();
        Ok(self.chooser.pick(&candidates).map(|c| ready[c]))
    }

    /// Whether `g`'s next step can affect or observe another group: a warp-barrier
    /// operation, `exit`, a workgroup barrier, an end of lanes, or memory that another
    /// lane can reach. Everything else changes only the group's own lanes.
    fn visible(&self, sg: &Subgroup, g: &Group) -> bool {
        let pc = g.pc();
        let m = self.machine.module;
        let bd = &m.funcs[pc.func].blocks[pc.block];
        let Some(&inst) = bd.insts.get(pc.idx) else {
            return match bd.term {
                Terminator::Return | Terminator::ReturnValue(_) => g.frames.len() == 1,
                Terminator::Kill | Terminator::TerminateInvocation => true,
                _ => false,
            };
        };
        let id = &m.funcs[pc.func].insts[inst];
        match &id.op {
            // `bar_set` writes only its own lanes' copies; others read them only for a
            // break flag (rule 3), so it is seen only where it clears one.
            Op::Tangle(TangleOp::BarSet) => {
                let value = id.result.expect("bar_set has a result");
                let depth = g.frames.len() - 1;
                lanes_of(g.mask).any(|l| {
                    sg.lanes[l]
                        .bar(depth, pc.func, value)
                        .is_some_and(|c| c.broke)
                })
            }
            Op::Tangle(t) => matches!(t, TangleOp::BarSync | TangleOp::BarBreak | TangleOp::Exit),
            Op::ControlBarrier { .. } => true,
            Op::Load(_) | Op::Store(_) | Op::Atomic { .. } => self.shared_access(sg, g, id.args[0]),
            Op::Glsl(tangle_ir::glsl::GlslOp::Modf | tangle_ir::glsl::GlslOp::Frexp) => {
                self.shared_access(sg, g, id.args[1])
            }
            _ => false,
        }
    }

    /// Whether some lane of `g` reaches memory through `pointer` that another lane can
    /// reach too (a buffer, push constants, workgroup memory).
    fn shared_access(&self, sg: &Subgroup, g: &Group, pointer: tangle_ir::Operand) -> bool {
        lanes_of(g.mask).any(|lane| match self.operand(sg, g.pc(), lane, pointer) {
            Ok(Val::Ptr { mem, .. }) => !self.private.get(mem as usize).copied().unwrap_or(false),
            _ => true,
        })
    }

    /// The budget error: a livelock when some lanes wait, or starve, while others run.
    fn out_of_budget(&self, sgs: &[Subgroup]) -> MachineError {
        let stuck = self.stuck(sgs, Some(self.machine.config.step_budget));
        let budget = self.machine.config.step_budget;
        if stuck
            .groups
            .iter()
            .any(|g| g.state != GroupState::Ready || g.idle > budget / 2)
        {
            MachineError::Livelock(Box::new(stuck))
        } else {
            MachineError::Budget(Box::new(stuck))
        }
    }

    /// Where every group of the workgroup is.
    fn stuck(&self, sgs: &[Subgroup], budget: Option<u64>) -> Stuck {
        let mut groups = Vec::new();
        for sg in sgs {
            let mut gs: Vec<&Group> = sg.groups.iter().filter(|g| g.mask != 0).collect();
            gs.sort_by_key(|g| g.mask.trailing_zeros());
            for g in gs {
                let state = match g.status {
                    Status::Ready => GroupState::Ready,
                    Status::WorkgroupBarrier => GroupState::WorkgroupBarrier,
                    Status::Sync => {
                        let pc = g.pc();
                        let m = self.machine.module;
                        let inst = m.funcs[pc.func].blocks[pc.block].insts[pc.idx];
                        let barrier = match m.funcs[pc.func].insts[inst].args.first() {
                            Some(tangle_ir::Operand::Value(v)) => *v,
                            _ => tangle_ir::Value::from_u32(0),
                        };
                        let (_, missing) = self.releasable(sg, g);
                        GroupState::Sync { barrier, missing }
                    }
                };
                groups.push(GroupReport {
                    subgroup: sg.index,
                    lanes: g.mask,
                    at: self.position(g.pc()),
                    depth: g.frames.len(),
                    idle: self.steps - g.last_issued.min(self.steps),
                    state,
                });
            }
        }
        Stuck {
            workgroup: self.workgroup,
            budget,
            groups,
        }
    }
}
