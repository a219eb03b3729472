//! The exhaustive policy: a depth-first search over which ready group issues, by
//! re-running the dispatch from the start with a script of choices (no state is copied).
//!
//! Choice points: the search switches where `tangle-sched` says `exhaustive` switches
//! (every event but a plain instruction) and also before every step another group can see
//! (`step.rs`), so two groups' barrier operations and shared-memory accesses interleave
//! at instruction grain. Two reductions keep it small without losing an outcome:
//!
//! - a ready group whose next step only its own lanes see runs without a choice (it
//!   commutes with everything);
//! - *sleep sets* (Godefroid): after the subtree of one choice is explored, that choice
//!   sleeps in the subtrees of its later siblings until a step that does not commute with
//!   it runs, so two orders of commuting steps are explored once. A run in which every
//!   ready group sleeps is abandoned: each of its completions is equivalent to one already
//!   explored (counted as *pruned*).
//!
//! The bound (`ExhaustiveBound`): `max_depth` choice points per run (past it a run goes on
//! without branching, so a deadlock or livelock on it is still reported, and counts as cut
//! off) and `max_runs` runs in all (complete, cut off and
//! pruned; reaching it with choices left cuts the search off). A search with any cut-off is
//! an error, never a pass; so is any failing run, or two complete runs whose buffers
//! differ.

use crate::error::{MachineError, R};
use crate::machine::Machine;
use crate::outcome::{Outcome, SearchSummary};
use crate::step::{independent, same_group, Step, StepKind};

/// One choice point: the steps of the ready groups (lowest lane first), the one taken,
/// which have been tried, and the steps asleep on arrival.
struct Node {
    options: Vec<Step>,
    chosen: usize,
    tried: Vec<bool>,
    sleep: Vec<Step>,
}

/// The choices of one run, and the state of the search between runs.
pub(crate) struct Script {
    nodes: Vec<Node>,
    pos: usize,
    max_depth: u32,
    /// The sleep set the next new choice point starts with.
    pending: Vec<Step>,
    /// Whether this run passed the depth bound.
    cut: bool,
    /// Which subgroup (an index into `units`) branches; the others take their first awake
    /// option. `None`: every subgroup branches (the product of their choices).
    focus: Option<usize>,
    /// Subgroups (workgroup, subgroup) in the order they first had a choice, over all runs.
    units: Vec<([u32; 3], u32)>,
    /// This run's shared-memory steps.
    accesses: Vec<Step>,
    /// Two subgroups touched overlapping shared bytes, one of them writing: their
    /// interleavings are not independent, and the search must take the product.
    coupled: bool,
}

/// Why a run stopped before its end at a choice point: every ready group sleeps.
pub(crate) struct Pruned;

impl Script {
    fn new(max_depth: u32) -> Script {
        Script {
            nodes: Vec::new(),
            pos: 0,
            max_depth,
            pending: Vec::new(),
            cut: false,
            focus: Some(0),
            units: Vec::new(),
            accesses: Vec::new(),
            coupled: false,
        }
    }

    /// The option to take among the ready groups' `options`: the script's on a replayed
    /// point, else the first that does not sleep.
    pub(crate) fn choose(&mut self, options: Vec<Step>) -> Result<usize, Pruned> {
        if options.len() == 1 {
            // No choice; but a state whose only step sleeps was reached before.
            return match self.pending.iter().any(|z| same_group(z, &options[0])) {
                true => Err(Pruned),
                false => Ok(0),
            };
        }
        let unit = (options[0].workgroup, options[0].subgroup);
        if !self.units.contains(&unit) {
            self.units.push(unit);
        }
        if let Some(k) = self.focus {
            if self.units[k..].first() != Some(&unit) {
                // Not the subgroup being explored: its first awake option, no choice.
                return (0..options.len())
                    .find(|&i| !self.pending.iter().any(|z| same_group(z, &options[i])))
                    .ok_or(Pruned);
            }
        }
        if self.pos == self.nodes.len() {
            let sleep = std::mem::take(&mut self.pending);
            let asleep = |s: &Step| sleep.iter().any(|z| same_group(z, s));
            let Some(first) = (0..options.len()).find(|&i| !asleep(&options[i])) else {
                return Err(Pruned);
            };
            if self.pos >= self.max_depth as usize {
                // Past the depth bound the run goes on without branching (so a deadlock or
                // livelock on it is still reported), and counts as cut off.
                self.cut = true;
                self.pending = sleep;
                return Ok(first);
            }
            let mut tried = vec![false; options.len()];
            tried[first] = true;
            self.nodes.push(Node {
                options,
                chosen: first,
                tried,
                sleep,
            });
        }
        let node = &self.nodes[self.pos];
        let taken = &node.options[node.chosen];
        // The child's sleep set: what slept here, and the siblings already explored, as
        // long as they commute with the step taken here (judged in this state: a sleeping
        // group's step as it stands now).
        self.pending = node
            .sleep
            .iter()
            .map(|z| fresh(z, &node.options))
            .chain(
                (0..node.options.len())
                    .filter(|&i| node.tried[i] && i != node.chosen)
                    .map(|i| &node.options[i]),
            )
            .filter(|s| independent(s, taken))
            .cloned()
            .collect();
        self.pos += 1;
        Ok(node.chosen)
    }

    /// A seen step ran (`now` holds the steps of the other ready groups in this state):
    /// it wakes the sleepers it does not commute with.
    pub(crate) fn executed(&mut self, step: &Step, now: &[Step]) {
        let seen = |a: &Step| {
            (a.workgroup, a.subgroup, &a.kind) == (step.workgroup, step.subgroup, &step.kind)
        };
        if matches!(step.kind, StepKind::Mem { .. }) && !self.accesses.iter().any(seen) {
            let unit = (step.workgroup, step.subgroup);
            if self
                .accesses
                .iter()
                .any(|a| (a.workgroup, a.subgroup) != unit && !independent(a, step))
            {
                self.coupled = true;
            }
            self.accesses.push(step.clone());
        }
        for s in &mut self.pending {
            *s = fresh(s, now).clone();
        }
        self.pending.retain(|s| independent(s, step));
    }

    /// Moves to the next unexplored script; `false` when the whole tree is explored.
    fn advance(&mut self) -> bool {
        self.nodes.truncate(self.pos);
        self.pos = 0;
        self.pending.clear();
        self.cut = false;
        self.accesses.clear();
        while let Some(last) = self.nodes.last_mut() {
            let next = (0..last.options.len()).find(|&i| {
                !last.tried[i] && !last.sleep.iter().any(|z| same_group(z, &last.options[i]))
            });
            if let Some(i) = next {
                last.tried[i] = true;
                last.chosen = i;
                return true;
            }
            self.nodes.pop();
        }
        false
    }

    fn describe(&self) -> String {
        let cs: Vec<String> = self.nodes.iter().map(|n| n.chosen.to_string()).collect();
        format!("[{}]", cs.join(","))
    }
}

/// `s` as its group's step stands in `now`, or as it was when its group is not there.
fn fresh<'a>(s: &'a Step, now: &'a [Step]) -> &'a Step {
    now.iter().find(|n| same_group(n, s)).unwrap_or(s)
}

/// Runs every interleaving of `machine`'s dispatch within its bound.
///
/// Subgroups run one after another and, unless they share memory, never see each other's
/// schedule: the search explores one subgroup's interleavings at a time with the others
/// taking their first option (the sum of their trees, not the product), and starts again
/// over the product as soon as a run shows two subgroups touching the same shared bytes
/// with a write among them.
pub(crate) fn exhaustive(machine: &Machine<'_>) -> R<Outcome> {
    let bound = machine.config.bound;
    let mut script = Script::new(bound.max_depth);
    let mut first: Option<Outcome> = None;
    let (mut completed, mut cut_off, mut pruned) = (0u64, 0u64, 0u64);
    let mut deepest = 0u32;
    let mut unexplored = false;
    loop {
        let run = completed + cut_off + pruned;
        if run >= bound.max_runs {
            unexplored = true;
            break;
        }
        let outcome = machine.run_once(Some(&mut script));
        deepest = deepest.max(script.pos as u32);
        match outcome {
            Ok(_) if script.cut => cut_off += 1,
            Ok(o) => {
                completed += 1;
                match &first {
                    None => first = Some(o),
                    Some(f) => {
                        if let Some(what) = difference(f, &o) {
                            return Err(MachineError::Disagreement {
                                run,
                                choices: script.describe(),
                                what,
                            });
                        }
                    }
                }
            }
            Err(MachineError::Pruned) => pruned += 1,
            Err(e) => return Err(e),
        }
        if script.coupled && script.focus.is_some() {
            // Subgroups share memory: start again over the product of their choices.
            script = Script::new(bound.max_depth);
            script.focus = None;
            continue;
        }
        if !script.advance() {
            // This subgroup's interleavings are done: the next subgroup's, if any.
            match script.focus {
                Some(k) if k + 1 < script.units.len() => script.focus = Some(k + 1),
                _ => break,
            }
        }
    }
    if cut_off > 0 || unexplored {
        return Err(MachineError::CutOff {
            completed,
            cut_off,
            unexplored,
        });
    }
    let mut o = first.expect("a search completes at least one run");
    o.search = Some(SearchSummary {
        runs: completed,
        pruned,
        deepest,
    });
    Ok(o)
}

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
