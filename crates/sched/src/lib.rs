//! The scheduling vocabulary shared by every engine that runs a warp (subgroup) as a set of
//! *groups* — lanes that issue together at one program point — on a machine with
//! independent thread scheduling: the barrier machine of the lowered form, the token engine
//! and the SASS simulator.
//!
//! A policy answers two questions, and only these:
//! - **when** the running group may be switched out ([`Policy::switches_at`]), and
//! - **which** ready group runs next ([`Chooser::pick`]).
//!
//! Whether groups *merge* is the engine's business, with one exception that is part of the
//! vocabulary: [`Policy::Opportunistic`] lets ready groups at the same program point merge
//! before one of them issues ([`Policy::merges_at_same_point`]). Every other policy merges
//! groups only where a barrier (or, in SASS, a warp synchronisation) releases them.
//!
//! [`Policy::Exhaustive`] is not a choice rule but a search: the engine explores every
//! choice at every switch point, up to [`ExhaustiveBound`]; a run cut off by the bound is
//! reported as cut off and never counts as passing. `all` names every policy an engine
//! supports plus [`RANDOM_SEEDS_IN_ALL`] random seeds ([`expand`]). See `docs/sched.md`.

use std::fmt;
use std::str::FromStr;

/// A named scheduling policy. The text forms (`strict`, `random:7`, ...) are the same on
/// every command line (`--policy`) and in every report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Policy {
    /// Run the group holding the lowest lane until it blocks, exits or splits; then the
    /// ready group holding the lowest lane. Groups merge only when a barrier releases them.
    Strict,
    /// As [`Policy::Strict`], but ready groups standing at the same program point merge
    /// before one of them issues. Not hardware behaviour: a stress test showing that a
    /// lowered program does not *depend* on groups staying apart.
    Opportunistic,
    /// Each ready group in turn (cyclically, by lowest lane) issues until it reaches a
    /// control-flow point: the end of a basic block in the lowered IR, a branch, barrier,
    /// yield or exit in SASS.
    RoundRobin,
    /// Switch after every instruction, to the ready group that has waited longest, highest
    /// lowest-lane first among equals: the late lanes run ahead of the early ones.
    Adversarial,
    /// Switch after every instruction to a ready group drawn by a seeded pseudo-random
    /// generator ([`Rng`]); the same seed gives the same run.
    Random(u64),
    /// Switch only where hardware plausibly switches: at a divergence, a block (a wait at a
    /// barrier or warp synchronisation), a yield or an exit (`../shared/barrier-semantics.md`
    /// §(b)). For engines of machine code; the lowered IR has no yield.
    Realistic,
    /// Every interleaving: at every switch point every ready group is tried, up to an
    /// [`ExhaustiveBound`]. For small subgroups (the barrier machine: up to 8 lanes).
    Exhaustive,
}

/// The kind of a policy, without a seed: what an engine declares it supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PolicyKind {
    /// [`Policy::Strict`].
    Strict,
    /// [`Policy::Opportunistic`].
    Opportunistic,
    /// [`Policy::RoundRobin`].
    RoundRobin,
    /// [`Policy::Adversarial`].
    Adversarial,
    /// [`Policy::Random`].
    Random,
    /// [`Policy::Realistic`].
    Realistic,
    /// [`Policy::Exhaustive`].
    Exhaustive,
}

/// How many random seeds `all` adds: seeds `1..=RANDOM_SEEDS_IN_ALL`.
pub const RANDOM_SEEDS_IN_ALL: u64 = 8;

/// The policy kinds in the order `all` lists them.
pub const ALL_KINDS: [PolicyKind; 7] = [
    PolicyKind::Strict,
    PolicyKind::Opportunistic,
    PolicyKind::RoundRobin,
    PolicyKind::Adversarial,
    PolicyKind::Random,
    PolicyKind::Realistic,
    PolicyKind::Exhaustive,
];

impl Policy {
    /// This policy's kind.
    pub fn kind(self) -> PolicyKind {
        match self {
            Policy::Strict => PolicyKind::Strict,
            Policy::Opportunistic => PolicyKind::Opportunistic,
            Policy::RoundRobin => PolicyKind::RoundRobin,
            Policy::Adversarial => PolicyKind::Adversarial,
            Policy::Random(_) => PolicyKind::Random,
            Policy::Realistic => PolicyKind::Realistic,
            Policy::Exhaustive => PolicyKind::Exhaustive,
        }
    }

    /// Whether the running group may be switched out after an event of this kind.
    /// [`Policy::Exhaustive`] answers for its search: every point where another choice
    /// could be made (a split, a block, an exit, a block end; not every instruction, which
    /// would only multiply equivalent interleavings of lane-private work).
    pub fn switches_at(self, event: Event) -> bool {
        use Event::*;
        match self {
            Policy::Strict | Policy::Opportunistic => matches!(event, Split | Blocked | Exited),
            Policy::RoundRobin => !matches!(event, Instruction),
            Policy::Adversarial | Policy::Random(_) => true,
            Policy::Realistic => matches!(event, Split | Blocked | Yield | Exited),
            Policy::Exhaustive => !matches!(event, Instruction),
        }
    }

    /// Whether ready groups at the same program point merge before one of them issues.
    pub fn merges_at_same_point(self) -> bool {
        matches!(self, Policy::Opportunistic)
    }
}

/// What just happened to the running group, as far as switching is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// An ordinary instruction issued; the group goes on at the next one.
    Instruction,
    /// The group reached the end of a basic block (lowered IR) or took a uniform branch.
    BlockEnd,
    /// A branch split the group in two or more.
    Split,
    /// The group (or part of it) now waits at a barrier or warp synchronisation.
    Blocked,
    /// A `YIELD` (SASS only).
    Yield,
    /// Lanes of the group exited.
    Exited,
}

/// A ready group as a [`Chooser`] sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The lowest lane of the group: its stable identity for ordering.
    pub lowest_lane: u32,
    /// The engine's step count when the group last issued (0 if never).
    pub last_issued: u64,
}

/// Picks the next group for every policy but [`Policy::Exhaustive`] (which the engine
/// searches). Holds the generator of [`Policy::Random`] and the cursor of
/// [`Policy::RoundRobin`].
#[derive(Clone, Debug)]
pub struct Chooser {
    policy: Policy,
    rng: Rng,
    cursor: u32,
}

impl Chooser {
    /// A chooser for `policy`, in its initial state.
    pub fn new(policy: Policy) -> Chooser {
        let seed = match policy {
            Policy::Random(s) => s,
            _ => 0,
        };
        Chooser {
            policy,
            rng: Rng::new(seed),
            cursor: 0,
        }
    }

    /// The policy this chooser follows.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// The index in `ready` of the group to run next; `None` only when `ready` is empty.
    /// For [`Policy::Exhaustive`] it answers like [`Policy::Strict`] (the first branch of
    /// the engine's search).
    pub fn pick(&mut self, ready: &[Candidate]) -> Option<usize> {
        if ready.is_empty() {
            return None;
        }
        let by_lane = |best: Option<usize>, i: usize, better: &dyn Fn(u32, u32) -> bool| match best
        {
            Some(b) if !better(ready[i].lowest_lane, ready[b].lowest_lane) => Some(b),
            _ => Some(i),
        };
        let mut best = None;
        match self.policy {
            Policy::Strict | Policy::Opportunistic | Policy::Realistic | Policy::Exhaustive => {
                for i in 0..ready.len() {
                    best = by_lane(best, i, &|a, b| a < b);
                }
            }
            Policy::RoundRobin => {
                // The first group at or after the cursor, wrapping around.
                let key = |c: &Candidate| (c.lowest_lane < self.cursor, c.lowest_lane);
                best = (0..ready.len()).min_by_key(|&i| key(&ready[i]));
                let chosen = ready[best.unwrap()].lowest_lane;
                self.cursor = chosen.wrapping_add(1);
            }
            Policy::Adversarial => {
                best = (0..ready.len()).min_by_key(|&i| {
                    (
                        ready[i].last_issued,
                        std::cmp::Reverse(ready[i].lowest_lane),
                    )
                });
            }
            Policy::Random(_) => best = Some(self.rng.below(ready.len() as u64) as usize),
        }
        best
    }
}

/// The bound of an exhaustive search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExhaustiveBound {
    /// The most complete runs (leaves of the search) explored.
    pub max_runs: u64,
    /// The most choice points on one run before the run is cut off.
    pub max_depth: u32,
}

impl Default for ExhaustiveBound {
    fn default() -> Self {
        ExhaustiveBound {
            max_runs: 10_000,
            max_depth: 10_000,
        }
    }
}

/// A small, fast, seeded pseudo-random generator (SplitMix64) so that every engine draws
/// the same sequence for the same seed; not for cryptography.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator with this seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`), without modulo bias.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "Rng::below(0)");
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < zone {
                return x % n;
            }
        }
    }
}

/// A `--policy` text that does not name a policy.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// An unknown name.
    #[error("unknown scheduling policy `{0}` (known: strict, opportunistic, round-robin, adversarial, random:SEED, realistic, exhaustive, all)")]
    Unknown(String),
    /// `random:` without a number.
    #[error("`{0}`: the random policy takes a seed, `random:SEED` with SEED a number")]
    BadSeed(String),
    /// A policy the engine does not support.
    #[error("the {engine} does not support the `{policy}` policy (it supports: {supported})")]
    Unsupported {
        /// The engine's name.
        engine: String,
        /// The policy asked for.
        policy: String,
        /// What it supports, comma-separated.
        supported: String,
    },
}

impl FromStr for Policy {
    type Err = PolicyError;
    fn from_str(s: &str) -> Result<Policy, PolicyError> {
        Ok(match s {
            "strict" => Policy::Strict,
            "opportunistic" => Policy::Opportunistic,
            "round-robin" => Policy::RoundRobin,
            "adversarial" => Policy::Adversarial,
            "realistic" => Policy::Realistic,
            "exhaustive" => Policy::Exhaustive,
            _ => match s.strip_prefix("random:") {
                Some(seed) => Policy::Random(
                    parse_seed(seed).ok_or_else(|| PolicyError::BadSeed(s.to_string()))?,
                ),
                None if s == "random" => return Err(PolicyError::BadSeed(s.to_string())),
                None => return Err(PolicyError::Unknown(s.to_string())),
            },
        })
    }
}

fn parse_seed(s: &str) -> Option<u64> {
    match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Policy::Strict => f.write_str("strict"),
            Policy::Opportunistic => f.write_str("opportunistic"),
            Policy::RoundRobin => f.write_str("round-robin"),
            Policy::Adversarial => f.write_str("adversarial"),
            Policy::Random(s) => write!(f, "random:{s}"),
            Policy::Realistic => f.write_str("realistic"),
            Policy::Exhaustive => f.write_str("exhaustive"),
        }
    }
}

impl fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PolicyKind::Strict => "strict",
            PolicyKind::Opportunistic => "opportunistic",
            PolicyKind::RoundRobin => "round-robin",
            PolicyKind::Adversarial => "adversarial",
            PolicyKind::Random => "random:SEED",
            PolicyKind::Realistic => "realistic",
            PolicyKind::Exhaustive => "exhaustive",
        })
    }
}

/// Reads a `--policy` value for an engine: one policy name, `all`, or several joined by
/// commas. `all` expands to every kind in `supported` except exhaustive (a search with its
/// own cost, asked for by name), with [`RANDOM_SEEDS_IN_ALL`] random seeds when random is
/// supported. A policy the engine does not support is an error naming what it does.
pub fn expand(
    text: &str,
    engine: &str,
    supported: &[PolicyKind],
) -> Result<Vec<Policy>, PolicyError> {
    let mut out: Vec<Policy> = Vec::new();
    for part in text.split(',').map(str::trim) {
        if part == "all" {
            for kind in ALL_KINDS {
                if !supported.contains(&kind) || kind == PolicyKind::Exhaustive {
                    continue;
                }
                match kind {
                    PolicyKind::Strict => out.push(Policy::Strict),
                    PolicyKind::Opportunistic => out.push(Policy::Opportunistic),
                    PolicyKind::RoundRobin => out.push(Policy::RoundRobin),
                    PolicyKind::Adversarial => out.push(Policy::Adversarial),
                    PolicyKind::Realistic => out.push(Policy::Realistic),
                    PolicyKind::Random => {
                        out.extend((1..=RANDOM_SEEDS_IN_ALL).map(Policy::Random));
                    }
                    PolicyKind::Exhaustive => {}
                }
            }
            continue;
        }
        let p: Policy = part.parse()?;
        if !supported.contains(&p.kind()) {
            return Err(PolicyError::Unsupported {
                engine: engine.to_string(),
                policy: p.to_string(),
                supported: supported
                    .iter()
                    .map(|k| k.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        out.push(p);
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(*p));
    Ok(out)
}

#[cfg(test)]
mod tests;
