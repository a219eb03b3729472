//! The exhaustive policy inside a run: the search's shared state, and what a run does at a
//! choice point (`explore.rs` drives the search over copies of runs).
//!
//! Choice points: the search switches where `tangle-sched` says `exhaustive` switches
//! (every event but a plain instruction) and also before every step another group can see
//! (`step.rs`), so two groups' barrier operations and conflicting memory accesses
//! interleave at instruction grain. Reductions, none of which loses an outcome:
//!
//! - a ready group whose next step only its own lanes see runs without a choice (it
//!   commutes with everything); memory accesses count as such unless they touch a word two
//!   lanes have been seen to conflict on (`shared.rs`);
//! - *sleep sets* (Godefroid): after the subtree of one choice is explored, that choice
//!   sleeps in the subtrees of its later siblings until a step that does not commute with
//!   it runs, so two orders of commuting steps are explored once. A run in which every
//!   ready group sleeps is abandoned: each of its completions is equivalent to one already
//!   explored (counted as *pruned*);
//! - subgroups that share no conflicting word never see each other's schedule: one
//!   subgroup's choices are explored at a time while the others take their first awake
//!   option (the sum of their trees, not the product).

use std::cell::{Cell, RefCell};

use crate::error::{MachineError, R};
use crate::shared::SharedWords;
use crate::state::{Group, Run, Status, Subgroup};
#[cfg(test)]
use crate::step::StepKind;
use crate::step::{independent, same_group, Step};

/// How much the search reduces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reduction {
    /// Every reduction of this module.
    Reduced,
    /// None: every step another group could see (every access to memory other lanes can
    /// reach, every barrier step and end of lanes) is a choice point, nothing sleeps,
    /// every subgroup branches. The brute force the reduced search is checked against.
    Full,
    /// A reduction made wrong on purpose, which the check against [`Reduction::Full`] must
    /// catch.
    #[cfg(test)]
    Mutant(Mutant),
}

/// Wrong reductions (tests only).
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mutant {
    /// Two writes to one word commute.
    WritesCommute,
    /// Two arrivals at one `bar_sync` commute even when one releases lanes.
    ArrivalsCommute,
    /// Shared-memory accesses are never logged, so no word ever conflicts.
    NoDiscovery,
}

/// A subgroup: (workgroup, subgroup).
pub(crate) type Unit = ([u32; 3], u32);

/// Which subgroups branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Focus {
    /// The first subgroup that has a choice; the others follow.
    First,
    /// This one; the others follow.
    Unit(Unit),
    /// Every subgroup (their product).
    All,
}

/// The search's state shared by every run of it.
pub(crate) struct SearchCtx {
    pub(crate) reduction: Reduction,
    /// The most choice points on one run.
    pub(crate) max_depth: u32,
    /// The conflicting words and the access log (over all runs).
    pub(crate) shared: RefCell<SharedWords>,
    pub(crate) focus: Cell<Focus>,
    /// The subgroups that had a choice, in the order of their first.
    pub(crate) units: RefCell<Vec<Unit>>,
}

impl SearchCtx {
    pub(crate) fn new(reduction: Reduction, max_depth: u32) -> SearchCtx {
        SearchCtx {
            reduction,
            max_depth,
            shared: RefCell::new(SharedWords::default()),
            focus: Cell::new(Focus::First),
            units: RefCell::new(Vec::new()),
        }
    }

    /// Whether the search enumerates without reduction ([`Reduction::Full`]).
    pub(crate) fn full(&self) -> bool {
        self.reduction == Reduction::Full
    }

    /// Whether shared-memory accesses are logged.
    fn logs(&self) -> bool {
        #[cfg(test)]
        if self.reduction == Reduction::Mutant(Mutant::NoDiscovery) {
            return false;
        }
        self.reduction != Reduction::Full
    }

    /// Whether steps `a` and `b` of different groups commute (`step::independent`, or a
    /// mutant's wrong version).
    pub(crate) fn independent(&self, a: &Step, b: &Step) -> bool {
        #[cfg(test)]
        match (self.reduction, &a.kind, &b.kind) {
            (
                Reduction::Mutant(Mutant::WritesCommute),
                StepKind::Mem { .. },
                StepKind::Mem { .. },
            ) => return true,
            (
                Reduction::Mutant(Mutant::ArrivalsCommute),
                StepKind::Sync { .. },
                StepKind::Sync { .. },
            ) => return true,
            _ => {}
        }
        independent(a, b)
    }
}

/// One run's part of the search's state.
#[derive(Clone, Debug, Default)]
pub(crate) struct Path {
    /// The sleep set the next choice point starts with.
    pub(crate) pending: Vec<Step>,
    /// Choice points passed.
    pub(crate) depth: u32,
    /// Whether the run passed the depth bound.
    pub(crate) cut: bool,
}

/// What a run does at a point where several groups are ready.
pub(crate) enum Decision {
    /// Issue the option at this index (lowest lane first).
    Take(usize),
    /// Stop: the search chooses.
    Choice(Vec<Step>),
    /// Stop: the search keeps a copy of the state as the root of this subgroup's own
    /// search, and chooses the first awake option.
    Root(Vec<Step>),
}

/// The first of `options` not asleep in `sleep`.
pub(crate) fn first_awake(options: &[Step], sleep: &[Step]) -> Option<usize> {
    (0..options.len()).find(|&i| !sleep.iter().any(|z| same_group(z, &options[i])))
}

/// `s` as its group's step stands in `now`, or as it was when its group is not there.
pub(crate) fn fresh<'s>(s: &'s Step, now: &'s [Step]) -> &'s Step {
    now.iter().find(|n| same_group(n, s)).unwrap_or(s)
}

impl Run<'_, '_> {
    /// The next steps of the ready groups `ready` of `sg` (lowest lane first), or the
    /// index in `ready` of the first whose step only its own lanes see: it commutes with
    /// everything, and runs without a choice.
    pub(crate) fn options(&self, sg: &Subgroup, ready: &[usize]) -> Result<Vec<Step>, usize> {
        let mut options = Vec::with_capacity(ready.len());
        for (k, &i) in ready.iter().enumerate() {
            match self.step_of(sg, &sg.groups[i]) {
                Some(s) => options.push(s),
                None => return Err(k),
            }
        }
        Ok(options)
    }

    /// What to do at a point where the ready groups' next steps are `options` (two or
    /// more, or one that may sleep); [`MachineError::Pruned`] when every one sleeps.
    pub(crate) fn decide(&mut self, options: Vec<Step>) -> R<Decision> {
        let ctx = self.ctx.expect("a search has its state");
        let awake = |path: &crate::search::Path| {
            first_awake(&options, &path.pending).ok_or(MachineError::Pruned)
        };
        if options.len() == 1 {
            return awake(&self.path).map(Decision::Take);
        }
        let unit = (options[0].workgroup, options[0].subgroup);
        let follows = match ctx.focus.get() {
            Focus::All => false,
            Focus::First => {
                ctx.focus.set(Focus::Unit(unit));
                ctx.units.borrow_mut().push(unit);
                false
            }
            Focus::Unit(u) => u != unit,
        };
        if follows {
            if !ctx.units.borrow().contains(&unit) {
                ctx.units.borrow_mut().push(unit);
                return Ok(Decision::Root(options));
            }
            return awake(&self.path).map(Decision::Take);
        }
        if self.path.depth >= ctx.max_depth {
            // Past the depth bound the run goes on without branching (so a deadlock or
            // livelock on it is still reported), and counts as cut off.
            self.path.cut = true;
            return awake(&self.path).map(Decision::Take);
        }
        Ok(Decision::Choice(options))
    }

    /// Before `g` issues: logs its shared-memory access, and wakes the sleeping steps its
    /// step does not commute with.
    pub(crate) fn before_issue(&mut self, sg: &Subgroup, g: &Group) {
        let ctx = self.ctx.expect("a search has its state");
        if ctx.logs() {
            if let Some(a) = self.access(sg, g) {
                let mut shared = ctx.shared.borrow_mut();
                for &(lane, mem, lo, hi) in &a.lanes {
                    if mem != u32::MAX {
                        shared.log((self.cursor.wg_index, sg.index, lane), mem, lo, hi, a.write);
                    }
                }
            }
        }
        if self.path.pending.is_empty() {
            return;
        }
        if let Some(step) = self.step_of(sg, g) {
            let now: Vec<Step> = sg
                .groups
                .iter()
                .filter(|o| o.status == Status::Ready)
                .filter_map(|o| self.step_of(sg, o))
                .collect();
            let mut pending = std::mem::take(&mut self.path.pending);
            for s in &mut pending {
                *s = fresh(s, &now).clone();
            }
            pending.retain(|s| ctx.independent(s, &step));
            self.path.pending = pending;
        }
    }
}
