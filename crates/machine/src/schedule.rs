//! Scheduling: which group of a subgroup issues next under the policy (`tangle-sched`),
//! opportunistic merging, workgroup barriers, and the deadlock, livelock and budget
//! reports.
//!
//! Subgroups of a workgroup run in turn, each until none of its groups can issue, as in
//! the reference interpreter; within a subgroup the policy decides. The run loop can stop
//! at a choice point of the exhaustive search and go on from a copy of its state
//! ([`Drive`], [`crate::state::Cursor`]).

use tangle_lanes::Mask;
use tangle_sched::Candidate;

use crate::config::Convergence;
use crate::error::{GroupReport, GroupState, MachineError, Stuck, R};
use crate::search::Decision;
use crate::state::{Group, Run, Status, Subgroup};
use crate::step::Step;

/// Where a dispatch stopped.
pub(crate) enum Drive {
    /// At its end: every lane of every workgroup has ended.
    Done,
    /// At a choice point of the exhaustive search: the next steps of the ready groups of
    /// the running subgroup, lowest lane first. It goes on with the group the search picks.
    Choice(Vec<Step>),
    /// At the first choice point of a subgroup the search does not explore yet: the search
    /// keeps a copy of the state to explore that subgroup from here later, and picks.
    Root(Vec<Step>),
}

/// Why a subgroup stopped issuing.
enum Stop {
    /// No group of it is ready.
    Idle,
    /// The step budget ran out.
    Budget,
    /// The exhaustive search must choose.
    Choice(Drive),
}

/// Which group issues next.
enum Pick {
    /// The ready group at this index of the subgroup's groups.
    Group(usize),
    /// None is ready.
    Idle,
    /// The search chooses ([`Drive::Choice`] or [`Drive::Root`]).
    Choice(Drive),
}

impl Run<'_, '_> {
    /// Runs the dispatch from where it stands until it ends or the exhaustive search has a
    /// choice to make. `resume`: the lanes of the group the search picked at the choice
    /// point the run stopped at.
    pub(crate) fn drive(&mut self, mut resume: Option<Mask>) -> R<Drive> {
        let [gx, gy, gz] = self.machine.config.workgroups;
        let total = u64::from(gx) * u64::from(gy) * u64::from(gz);
        loop {
            if self.cursor.sgs.is_empty() {
                let i = self.cursor.wg_index;
                if i == total {
                    return Ok(Drive::Done);
                }
                let (gx, gy) = (u64::from(gx), u64::from(gy));
                let wg = [i % gx, i / gx % gy, i / (gx * gy)].map(|c| c as u32);
                self.workgroup = wg;
                let keys = std::mem::take(&mut self.keys);
                let sgs = self.subgroups(wg, &keys);
                self.keys = keys;
                self.cursor.sgs = sgs?;
                self.cursor.sg_pos = 0;
                self.cursor.ran = false;
            }
            let mut sgs = std::mem::take(&mut self.cursor.sgs);
            match self.round(&mut sgs, &mut resume)? {
                Some(d) => {
                    self.cursor.sgs = sgs;
                    return Ok(d);
                }
                None => self.cursor.wg_index += 1,
            }
        }
    }

    /// Runs the subgroups of the current workgroup in turn until every lane has ended
    /// (`None`) or the search must choose.
    fn round(&mut self, sgs: &mut [Subgroup], resume: &mut Option<Mask>) -> R<Option<Drive>> {
        loop {
            while self.cursor.sg_pos < sgs.len() {
                let sg = &mut sgs[self.cursor.sg_pos];
                if resume.is_some() || sg.groups.iter().any(|g| g.status == Status::Ready) {
                    self.cursor.ran = true;
                    match self.run_subgroup(sg, resume.take())? {
                        Stop::Idle => {}
                        Stop::Budget => return Err(self.out_of_budget(sgs)),
                        Stop::Choice(d) => return Ok(Some(d)),
                    }
                }
                self.cursor.sg_pos += 1;
            }
            self.cursor.sg_pos = 0;
            if std::mem::take(&mut self.cursor.ran) {
                continue;
            }
            let live: u32 = sgs
                .iter()
                .map(|s| s.lanes.iter().filter(|l| !l.exited).count() as u32)
                .sum();
            if live == 0 {
                return Ok(None);
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
            if self.machine.config.convergence == Convergence::Tokens && self.release_anchor(sgs)? {
                continue;
            }
            return Err(MachineError::Deadlock(Box::new(self.stuck(sgs, None))));
        }
    }

    /// Issues groups of `sg` under the policy until none is ready, the budget runs out or
    /// the search must choose; first the group of lanes `resume` when the search chose it.
    fn run_subgroup(&mut self, sg: &mut Subgroup, resume: Option<Mask>) -> R<Stop> {
        let policy = self.machine.config.policy;
        let budget = self.machine.config.step_budget;
        let searching = self.ctx.is_some();
        let mut current: Option<Group> = resume
            .and_then(|m| sg.groups.iter().position(|g| g.mask == m))
            .map(|i| sg.groups.swap_remove(i));
        loop {
            let mut g = match current.take() {
                Some(g) => g,
                None => match self.pick(sg)? {
                    Pick::Group(i) => sg.groups.swap_remove(i),
                    Pick::Idle => {
                        // The token engine lets rendezvous go once nothing else can move.
                        if self.machine.config.convergence == Convergence::Tokens
                            && self.token_release(sg)?
                        {
                            continue;
                        }
                        return Ok(Stop::Idle);
                    }
                    Pick::Choice(d) => return Ok(Stop::Choice(d)),
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
            if searching {
                self.before_issue(sg, &g);
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

    /// The ready group of `sg` to issue next, or the search's choice point.
    fn pick(&mut self, sg: &Subgroup) -> R<Pick> {
        let mut ready: Vec<usize> = (0..sg.groups.len())
            .filter(|&i| sg.groups[i].status == Status::Ready)
            .collect();
        if ready.is_empty() {
            return Ok(Pick::Idle);
        }
        let searching = self.ctx.is_some();
        if ready.len() == 1 && !searching {
            return Ok(Pick::Group(ready[0]));
        }
        ready.sort_by_key(|&i| sg.groups[i].mask.trailing_zeros());
        if searching {
            let options = match self.options(sg, &ready) {
                Ok(options) => options,
                // A group whose next step only its own lanes see commutes with every
                // other group: it runs without a choice.
                Err(i) => return Ok(Pick::Group(ready[i])),
            };
            return match self.decide(options)? {
                Decision::Take(c) => Ok(Pick::Group(ready[c])),
                Decision::Choice(options) => Ok(Pick::Choice(Drive::Choice(options))),
                Decision::Root(options) => Ok(Pick::Choice(Drive::Root(options))),
            };
        }
        let candidates: Vec<Candidate> = ready
            .iter()
            .map(|&i| Candidate {
                lowest_lane: sg.groups[i].mask.trailing_zeros(),
                last_issued: sg.groups[i].last_issued,
            })
            .collect();
        Ok(self
            .chooser
            .pick(&candidates)
            .map_or(Pick::Idle, |c| Pick::Group(ready[c])))
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
