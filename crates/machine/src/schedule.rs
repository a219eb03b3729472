//! Scheduling: which group of a subgroup issues next under the policy (`tangle-sched`),
//! opportunistic merging, workgroup barriers, and the deadlock, livelock and budget
//! reports.
//!
//! Subgroups of a workgroup run in turn, each until none of its groups can issue, as in
//! the reference interpreter; within a subgroup the policy decides.

use tangle_sched::{Candidate, Policy};

use crate::config::Convergence;
use crate::error::{GroupReport, GroupState, MachineError, Stuck, R};
use crate::search::Pruned;
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
            if self.machine.config.convergence == Convergence::Tokens
                && self.release_anchor(&mut sgs)?
            {
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
                    None => {
                        // The token engine lets rendezvous go once nothing else can move.
                        if self.machine.config.convergence == Convergence::Tokens
                            && self.token_release(sg)?
                        {
                            continue;
                        }
                        return Ok(Stop::Idle);
                    }
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
            let searching = policy == Policy::Exhaustive;
            if searching {
                if let Some(step) = self.step_of(sg, &g) {
                    let now: Vec<_> = sg
                        .groups
                        .iter()
                        .filter(|o| o.status == Status::Ready)
                        .filter_map(|o| self.step_of(sg, o))
                        .collect();
                    let script = self.script.as_mut().expect("a search has a script");
                    script.executed(&step, &now);
                }
            }
            let issued = self.issue(sg, g)?;
            if let Some(c) = issued.cont {
                // The search also switches before every step another group sees.
                let seen_next = searching && self.step_of(sg, &c).is_some();
                if c.status == Status::Ready && !policy.switches_at(issued.event) && !seen_next {
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
        let searching = self.machine.config.policy == Policy::Exhaustive;
        if ready.len() <= 1 && !searching {
            return Ok(ready.first().copied());
        }
        ready.sort_by_key(|&i| sg.groups[i].mask.trailing_zeros());
        if searching {
            // A group whose next step only its own lanes see commutes with every other
            // group: it runs without a choice. Only when every ready group is about to do
            // something others see does the search branch (`search.rs`).
            let mut options = Vec::with_capacity(ready.len());
            for &i in &ready {
                match self.step_of(sg, &sg.groups[i]) {
                    None => return Ok(Some(i)),
                    Some(s) => options.push(s),
                }
            }
            if options.is_empty() {
                return Ok(None);
            }
            let script = self.script.as_mut().expect("a search has a script");
            return match script.choose(options) {
                Ok(c) => Ok(Some(ready[c])),
                Err(Pruned) => Err(MachineError::Pruned),
            };
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
                    Status::Token(_) => GroupState::Token {
                        missing: self.token_missing(sg, g),
                    },
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
