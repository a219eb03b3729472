//! The `exhaustive` policy: a search over every schedule, by replay. A run follows a
//! *script* of choices; at every switch point with more than one ready group (and at every
//! yield-release decision) it takes the script's next choice, or the first alternative past
//! the script's end, recording how many alternatives there were. The next run's script is
//! the last recorded choice that still has an untried alternative, advanced by one: a
//! depth-first walk of the schedule tree that needs no copy of the machine state. Bounded by
//! `tangle_sched::ExhaustiveBound`: a search that hits a bound is reported as cut off and
//! never counts as complete.

use tangle_sched::{ExhaustiveBound, Policy};

use crate::engine::{run_scripted, Options};
use crate::error::SimError;
use crate::kernel::Kernel;
use crate::launch::Launch;

/// The choices of one run: followed, then extended.
#[derive(Clone, Debug, Default)]
pub struct Script {
    prefix: Vec<u32>,
    /// `(choice taken, alternatives)` at every choice point so far.
    trail: Vec<(u32, u32)>,
    max_depth: u32,
    /// The run met more choice points than `max_depth`.
    pub cut: bool,
}

impl Script {
    fn new(prefix: Vec<u32>, max_depth: u32) -> Script {
        Script {
            prefix,
            trail: Vec::new(),
            max_depth,
            cut: false,
        }
    }

    /// The alternative to take among `n` (n > 1).
    pub fn choose(&mut self, n: u32) -> u32 {
        if self.trail.len() as u32 >= self.max_depth {
            self.cut = true;
            return 0;
        }
        let at = self.trail.len();
        let c = self.prefix.get(at).copied().unwrap_or(0).min(n - 1);
        self.trail.push((c, n));
        c
    }

    /// The script of the next run, or `None` when every alternative has been tried.
    fn next(&self) -> Option<Vec<u32>> {
        let i = self.trail.iter().rposition(|&(c, n)| c + 1 < n)?;
        let mut p: Vec<u32> = self.trail[..i].iter().map(|&(c, _)| c).collect();
        p.push(self.trail[i].0 + 1);
        Some(p)
    }
}

/// What an exhaustive search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exploration {
    /// Runs completed.
    pub runs: u64,
    /// The distinct final buffer sets, with how many runs ended in each.
    pub outcomes: Vec<(Vec<Option<Vec<u8>>>, u64)>,
    /// Whether a bound cut the search (then it proves nothing about the missing schedules).
    pub cut_off: bool,
}

/// Runs `launch` under every schedule (up to `bound`). The first schedule that deadlocks,
/// livelocks or faults is the error.
pub fn explore(
    kernel: &Kernel,
    launch: &Launch,
    opts: &Options,
    bound: ExhaustiveBound,
) -> Result<Exploration, SimError> {
    let mut o = *opts;
    o.policy = Policy::Exhaustive;
    let mut prefix = Vec::new();
    let mut found = Exploration {
        runs: 0,
        outcomes: Vec::new(),
        cut_off: false,
    };
    loop {
        if found.runs >= bound.max_runs {
            found.cut_off = true;
            return Ok(found);
        }
        let mut script = Script::new(prefix, bound.max_depth);
        let out = run_scripted(kernel, launch, &o, &mut script)?;
        found.runs += 1;
        found.cut_off |= script.cut;
        match found.outcomes.iter_mut().find(|(b, _)| *b == out.buffers) {
            Some(e) => e.1 += 1,
            None => found.outcomes.push((out.buffers, 1)),
        }
        match script.next() {
            Some(p) => prefix = p,
            None => return Ok(found),
        }
    }
}
