//! The exhaustive search: depth first over the choice points of a dispatch, going back to
//! a copy of the state at each choice point instead of replaying the run from its start.
//!
//! A run stops at every choice point (`schedule.rs`, [`Drive::Choice`]); the search keeps
//! a copy of the state there while options are left, goes on with the first option that
//! does not sleep, and when the run ends (complete, cut off by the depth bound, or pruned
//! because every ready group sleeps) goes back to the deepest choice point with an option
//! left. Each explored edge costs one copy of the state and the steps after it, never the
//! steps before it.
//!
//! Subgroups are explored one at a time (`search.rs`): the first run keeps, for every
//! other subgroup that has a choice, a copy of the state at its first choice point (a
//! [`Drive::Root`]); once one subgroup's tree is explored, the next one's search starts
//! from its root. When a run finds a new conflicting word of shared memory, or two
//! subgroups conflicting (`shared.rs`), the runs explored so far took accesses as private
//! that are not, and the search starts again from the beginning with what it learnt (at
//! most once per conflicting word).
//!
//! The bound (`ExhaustiveBound`): `max_depth` choice points per run (past it a run goes on
//! without branching, and counts as cut off) and `max_runs` runs in all (complete, cut off
//! and pruned, restarts included; reaching it with choices left cuts the search off). A
//! search with any cut-off is an error, never a pass; so is any failing run, or two
//! complete runs whose buffers differ.

use crate::error::{MachineError, R};
use crate::machine::Machine;
use crate::outcome::{Outcome, SearchSummary};
use crate::schedule::Drive;
use crate::search::{first_awake, fresh, Focus, Path, Reduction, SearchCtx, Unit};
use crate::state::Run;
use crate::step::Step;

/// A choice point on the current path.
struct Node<'a, 'm> {
    /// The state before the choice, while options are left to try from it.
    snapshot: Option<Run<'a, 'm>>,
    /// The ready groups' steps, lowest lane first.
    options: Vec<Step>,
    tried: Vec<bool>,
    chosen: usize,
    /// The steps asleep on arrival.
    sleep: Vec<Step>,
    depth: u32,
}

impl Node<'_, '_> {
    /// The next option to try: neither tried nor asleep.
    fn next(&self) -> Option<usize> {
        (0..self.options.len()).find(|&i| {
            !self.tried[i]
                && !self
                    .sleep
                    .iter()
                    .any(|z| crate::step::same_group(z, &self.options[i]))
        })
    }

    /// The sleep set of the child through option `i`: what slept here, and the siblings
    /// already explored, as long as they commute with the step taken (judged in this
    /// state: a sleeping group's step as it stands here).
    fn child_sleep(&self, ctx: &SearchCtx, i: usize) -> Vec<Step> {
        if ctx.full() {
            return Vec::new();
        }
        let taken = &self.options[i];
        self.sleep
            .iter()
            .map(|z| fresh(z, &self.options))
            .chain(
                (0..self.options.len())
                    .filter(|&k| self.tried[k] && k != i)
                    .map(|k| &self.options[k]),
            )
            .filter(|s| ctx.independent(s, taken))
            .cloned()
            .collect()
    }
}

/// Counts of a search.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tally {
    /// Runs that reached the end (since the last restart).
    pub(crate) completed: u64,
    /// Runs cut off by the depth bound (since the last restart).
    pub(crate) cut_off: u64,
    /// Runs pruned by sleep sets (since the last restart).
    pub(crate) pruned: u64,
    /// Every run, restarts included (what `max_runs` bounds).
    pub(crate) runs: u64,
    /// The most choice points on one run.
    pub(crate) deepest: u32,
    /// Times the search started again after learning a conflict.
    pub(crate) restarts: u64,
    /// Whether the run bound stopped it with choices left.
    pub(crate) unexplored: bool,
    /// Conflicting words of shared memory found.
    pub(crate) conflicting_words: u64,
}

/// How one run ended.
enum Leaf<'a, 'm> {
    /// Every ready group sleeps: equivalent to a run explored.
    Pruned,
    /// It failed (deadlock, livelock, an undefined value, ...).
    Failed(MachineError),
    /// It reached the end of the dispatch (or was cut off, `path.cut`).
    Done(Box<Run<'a, 'm>>),
}

/// How the exploration from one root ended.
enum Ended {
    /// Its whole tree.
    Explored,
    /// A conflict was learnt: start again.
    Restart,
    /// The run bound.
    Bound,
}

/// Receives every complete or failing run's outcome with the choices that led to it; an
/// error it returns ends the search.
type Sink<'s> = dyn FnMut(R<Outcome>, String) -> R<()> + 's;

/// Searches the interleavings of `machine`'s dispatch under `reduction`, handing every
/// complete run's outcome to `sink`.
pub(crate) fn search(machine: &Machine<'_>, reduction: Reduction, sink: &mut Sink<'_>) -> R<Tally> {
    let bound = machine.config.bound;
    let ctx = SearchCtx::new(reduction, bound.max_depth);
    let mut tally = Tally::default();
    loop {
        let focus = match reduction == Reduction::Full || ctx.shared.borrow().coupled() {
            true => Focus::All,
            false => Focus::First,
        };
        ctx.focus.set(focus);
        ctx.units.borrow_mut().clear();
        (tally.completed, tally.cut_off, tally.pruned) = (0, 0, 0);
        let mut roots: Vec<(Unit, Run<'_, '_>)> = Vec::new();
        let mut next = Some(machine.start(Some(&ctx)));
        let mut restart = false;
        while let Some(root) = next {
            match explore(&ctx, root, &mut roots, &mut tally, bound.max_runs, sink)? {
                Ended::Explored => {}
                Ended::Restart => {
                    restart = true;
                    break;
                }
                Ended::Bound => {
                    tally.unexplored = true;
                    tally.conflicting_words = ctx.shared.borrow().conflicting_words() as u64;
                    return Ok(tally);
                }
            }
            next = match roots.is_empty() {
                true => None,
                false => {
                    let (unit, mut run) = roots.remove(0);
                    ctx.focus.set(Focus::Unit(unit));
                    run.path = Path::default();
                    Some(run)
                }
            };
        }
        tally.conflicting_words = ctx.shared.borrow().conflicting_words() as u64;
        if !restart {
            return Ok(tally);
        }
        tally.restarts += 1;
    }
}

/// Explores the tree below `root`.
fn explore<'a, 'm>(
    ctx: &'a SearchCtx,
    root: Run<'a, 'm>,
    roots: &mut Vec<(Unit, Run<'a, 'm>)>,
    tally: &mut Tally,
    max_runs: u64,
    sink: &mut Sink<'_>,
) -> R<Ended> {
    let mut stack: Vec<Node<'a, 'm>> = Vec::new();
    let mut run = root;
    let mut resume = None;
    loop {
        if tally.runs >= max_runs {
            return Ok(Ended::Bound);
        }
        // Run to the next choice point or the end.
        let leaf = match run.drive(resume.take()) {
            Ok(Drive::Done) => Leaf::Done(Box::new(run)),
            Ok(Drive::Root(options)) => match first_awake(&options, &run.path.pending) {
                Some(i) => {
                    let unit = (options[i].workgroup, options[i].subgroup);
                    roots.push((unit, run.clone()));
                    resume = Some(options[i].mask);
                    continue;
                }
                None => Leaf::Pruned,
            },
            Ok(Drive::Choice(options)) => {
                let sleep = std::mem::take(&mut run.path.pending);
                match first_awake(&options, &sleep) {
                    Some(first) => {
                        let mut node = Node {
                            snapshot: None,
                            tried: vec![false; options.len()],
                            options,
                            chosen: first,
                            sleep,
                            depth: run.path.depth,
                        };
                        node.tried[first] = true;
                        if node.next().is_some() {
                            node.snapshot = Some(run.clone());
                        }
                        run.path.pending = node.child_sleep(ctx, first);
                        run.path.depth += 1;
                        tally.deepest = tally.deepest.max(run.path.depth);
                        resume = Some(node.options[first].mask);
                        stack.push(node);
                        continue;
                    }
                    None => Leaf::Pruned,
                }
            }
            Err(MachineError::Pruned) => Leaf::Pruned,
            Err(e) => Leaf::Failed(e),
        };
        tally.runs += 1;
        match leaf {
            Leaf::Pruned => tally.pruned += 1,
            Leaf::Failed(e) => sink(Err(e), choices(&stack))?,
            Leaf::Done(r) if r.path.cut => tally.cut_off += 1,
            Leaf::Done(r) => {
                tally.completed += 1;
                sink(Ok(r.finish()), choices(&stack))?;
            }
        }
        if ctx.shared.borrow_mut().take_news() {
            return Ok(Ended::Restart);
        }
        // Back to the deepest choice point with an option left.
        loop {
            let Some(node) = stack.last_mut() else {
                return Ok(Ended::Explored);
            };
            if let Some(i) = node.next() {
                node.tried[i] = true;
                node.chosen = i;
                let mut back = match node.next() {
                    Some(_) => node.snapshot.clone(),
                    None => node.snapshot.take(),
                }
                .expect("a choice point with options left keeps its state");
                back.path.pending = node.child_sleep(ctx, i);
                back.path.depth = node.depth + 1;
                resume = Some(node.options[i].mask);
                run = back;
                break;
            }
            stack.pop();
        }
    }
}

/// The choices that led to the current run: the option taken at each choice point.
fn choices(stack: &[Node<'_, '_>]) -> String {
    let cs: Vec<String> = stack.iter().map(|n| n.chosen.to_string()).collect();
    format!("[{}]", cs.join(","))
}

/// Runs every interleaving of `machine`'s dispatch within its bound: run 0's outcome with
/// the search's counts when every run completed and all agree.
pub(crate) fn exhaustive(machine: &Machine<'_>) -> R<Outcome> {
    let mut first: Option<Outcome> = None;
    let mut seen = 0u64;
    let tally = search(machine, Reduction::Reduced, &mut |o, choices| {
        let o = o?;
        seen += 1;
        match &first {
            None => first = Some(o),
            Some(f) => {
                if let Some(what) = difference(f, &o) {
                    return Err(MachineError::Disagreement {
                        run: seen - 1,
                        choices,
                        what,
                    });
                }
            }
        }
        Ok(())
    })?;
    if tally.cut_off > 0 || tally.unexplored {
        return Err(MachineError::CutOff {
            completed: tally.completed,
            cut_off: tally.cut_off,
            unexplored: tally.unexplored,
        });
    }
    let mut o = first.ok_or_else(|| MachineError::Internal {
        at: crate::error::Position {
            func: machine.entry,
            block: tangle_ir::Block::from_u32(0),
            inst: None,
        },
        what: "the exhaustive search completed no run".into(),
    })?;
    o.search = Some(SearchSummary {
        runs: tally.completed,
        pruned: tally.pruned,
        deepest: tally.deepest,
        restarts: tally.restarts,
        conflicting_words: tally.conflicting_words,
    });
    Ok(o)
}

/// A complete run's buffers and undefined bytes.
#[cfg(test)]
pub(crate) type Final = (
    std::collections::BTreeMap<(u32, u32), Vec<u8>>,
    std::collections::BTreeMap<(u32, u32), Vec<bool>>,
);

/// Every distinct end of the runs of the search under `reduction` (checked against
/// [`Reduction::Full`] in the tests): the final buffers of complete runs, the text of
/// failing runs' errors; with its counts.
#[cfg(test)]
pub(crate) fn outcomes(
    machine: &Machine<'_>,
    reduction: Reduction,
) -> R<(std::collections::BTreeSet<Result<Final, String>>, Tally)> {
    let mut set = std::collections::BTreeSet::new();
    let tally = search(machine, reduction, &mut |o, _| {
        set.insert(
            o.map(|o| (o.buffers, o.undefined))
                .map_err(|e| e.to_string()),
        );
        Ok(())
    })?;
    Ok((set, tally))
}

#[cfg(test)]
mod tests;

/// What differs between two runs' buffers and undefined bytes, if anything.
fn difference(a: &Outcome, b: &Outcome) -> Option<String> {
    for (k, bytes) in &a.buffers {
        let other = b.buffers.get(k)?;
        if let Some(i) = bytes.iter().zip(other).position(|(x, y)| x != y) {
            return Some(format!(
                "the buffer at set {} binding {}, byte {i}: {:#04x} against {:#04x}",
                k.0, k.1, bytes[i], other[i]
            ));
        }
    }
    if a.undefined != b.undefined {
        return Some("the undefined bytes of the buffers".into());
    }
    None
}
