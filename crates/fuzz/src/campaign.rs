//! A campaign: many seeds compared on several threads, deterministic per seed.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tangle_interp::Variant;

use crate::compare::{Comparer, Mismatch};
use crate::generate::{generate, GenConfig};

/// What a campaign runs.
#[derive(Clone, Debug)]
pub struct Campaign {
    /// The seeds, `start..end`.
    pub seeds: std::ops::Range<u64>,
    /// The generator's knobs; the nesting is taken from `nestings` per seed.
    pub gen: GenConfig,
    /// The nesting levels: seed `s` is generated at `nestings[s % len]` (empty: `gen`'s).
    pub nestings: Vec<u32>,
    /// The subgroup sizes every program runs at (powers of two in 1..=128).
    pub subgroup_sizes: Vec<u32>,
    /// The reference interpreter's semantics (a known-wrong variant shows the harness
    /// catching it).
    pub variant: Variant,
    /// Worker threads (at least one).
    pub jobs: usize,
    /// `(i, n)`: this run takes only the seeds `s` with `s mod n == i` (`(0, 1)`: all), so
    /// `n` runs on separate machines cover the range once.
    pub shard: (u64, u64),
}

impl Campaign {
    /// Whether this shard runs `seed`.
    pub fn takes(&self, seed: u64) -> bool {
        let (i, n) = self.shard;
        n <= 1 || seed % n == i
    }

    /// The generator's knobs for `seed`.
    pub fn config_of(&self, seed: u64) -> GenConfig {
        let mut gen = self.gen;
        if !self.nestings.is_empty() {
            gen.nesting = self.nestings[(seed % self.nestings.len() as u64) as usize];
        }
        gen
    }
}

/// What a campaign found.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Programs compared.
    pub programs: u64,
    /// The seeds whose programs disagreed, with the first disagreement, by seed.
    pub mismatches: Vec<(u64, Mismatch)>,
    /// Wall-clock time.
    pub elapsed: Duration,
}

impl Summary {
    /// Programs per second of wall-clock time.
    pub fn programs_per_second(&self) -> f64 {
        self.programs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} programs, {} mismatches, {:.0} programs/s",
            self.programs,
            self.mismatches.len(),
            self.programs_per_second()
        )
    }
}

/// Runs the campaign.
pub fn run(c: &Campaign) -> Summary {
    let start = Instant::now();
    let next = AtomicU64::new(c.seeds.start);
    let mismatches = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..c.jobs.max(1) {
            s.spawn(|| {
                // The mask simulator's vectors, kept from one program to the next.
                let mut comparer = Comparer::default();
                loop {
                    let seed = next.fetch_add(1, Ordering::Relaxed);
                    if seed >= c.seeds.end {
                        break;
                    }
                    if !c.takes(seed) {
                        continue;
                    }
                    let program = generate(seed, c.config_of(seed));
                    if let Err(m) = comparer.compare(&program, &c.subgroup_sizes, c.variant) {
                        mismatches.lock().expect("no worker panics").push((seed, m));
                    }
                }
            });
        }
    });
    let mut mismatches = mismatches.into_inner().expect("no worker panics");
    mismatches.sort_by_key(|(seed, _)| *seed);
    Summary {
        programs: c.seeds.clone().filter(|&s| c.takes(s)).count() as u64,
        mismatches,
        elapsed: start.elapsed(),
    }
}
