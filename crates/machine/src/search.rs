//! The exhaustive policy: a depth-first search over the choices of which ready group
//! issues, by re-running the dispatch from the start with a script of choices (no state is
//! copied). At a switch point where more than one group is ready and each of them is about
//! to do something other groups can see (`schedule.rs`), the search branches; one run
//! follows one script. After a run, the last choice that has an untried option is
//! advanced and the choices after it are forgotten.
//!
//! The bound (`ExhaustiveBound`): `max_depth` choice points per run (a run that needs more
//! is abandoned and counted as cut off) and `max_runs` runs in all (complete and cut off;
//! reaching it with choices left untried cuts the search off). A search with any cut-off
//! is an error, never a pass; so is any failing run, or two complete runs whose buffers
//! differ.

use crate::error::{MachineError, R};
use crate::machine::Machine;
use crate::outcome::{Outcome, SearchSummary};

/// The choices of one run: (chosen option, number of options) per choice point.
pub(crate) struct Script {
    choices: Vec<(u32, u32)>,
    pos: usize,
    max_depth: u32,
}

impl Script {
    fn new(max_depth: u32) -> Script {
        Script {
            choices: Vec::new(),
            pos: 0,
            max_depth,
        }
    }

    /// The option to take at the next choice point among `n`: the script's, or the first
    /// at a new point. A run deeper than the bound is cut off (an error the search counts).
    pub(crate) fn choose(&mut self, n: usize) -> R<usize> {
        if self.pos >= self.max_depth as usize {
            return Err(MachineError::CutOff {
                completed: 0,
                cut_off: 1,
                unexplored: false,
            });
        }
        let c = match self.choices.get(self.pos) {
            // Runs are deterministic, so a replayed point has as many options as before.
            Some(&(c, _)) => c as usize,
            None => {
                self.choices.push((0, n as u32));
                0
            }
        };
        self.pos += 1;
        Ok(c.min(n - 1))
    }

    /// Moves to the next unexplored script; `false` when the whole tree is explored.
    fn advance(&mut self) -> bool {
        self.choices.truncate(self.pos);
        self.pos = 0;
        while let Some(last) = self.choices.last_mut() {
            if last.0 + 1 < last.1 {
                last.0 += 1;
                return true;
            }
            self.choices.pop();
        }
        false
    }

    fn describe(&self) -> String {
        let cs: Vec<String> = self.choices.iter().map(|(c, _)| c.to_string()).collect();
        format!("[{}]", cs.join(","))
    }
}

/// Runs every interleaving of `machine`'s dispatch within its bound.
pub(crate) fn exhaustive(machine: &Machine<'_>) -> R<Outcome> {
    let bound = machine.config.bound;
    let mut script = Script::new(bound.max_depth);
    let mut first: Option<Outcome> = None;
    let (mut completed, mut cut_off) = (0u64, 0u64);
    let mut deepest = 0u32;
    let mut unexplored = false;
    loop {
        if completed + cut_off >= bound.max_runs {
            unexplored = true;
            break;
        }
        let run = completed + cut_off;
        match machine.run_once(Some(&mut script)) {
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
            Err(MachineError::CutOff { .. }) => cut_off += 1,
            Err(e) => return Err(e),
        }
        deepest = deepest.max(script.pos as u32);
        if !script.advance() {
            break;
        }
    }
    if cut_off > 0 || unexplored {
        return Err(MachineError::CutOff {
            completed,
            cut_off,
            unexplored,
        });
    }
    let mut o = first.expect("a search makes at least one run");
    o.search = Some(SearchSummary {
        runs: completed,
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
