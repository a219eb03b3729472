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

    /// The next seed of this shard that no worker has claimed yet, taken from the counter
    /// `next` the workers share (started at `seeds.start`); `None` once the range is done.
    pub fn claim(&self, next: &AtomicU64) -> Option<u64> {
        loop {
            let seed = next.fetch_add(1, Ordering::Relaxed);
            if seed >= self.seeds.end {
                return None;
            }
            if self.takes(seed) {
                return Some(seed);
            }
        }
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
                while let Some(seed) = c.claim(&next) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn campaign(seeds: std::ops::Range<u64>, shard: (u64, u64)) -> Campaign {
        Campaign {
            seeds,
            gen: GenConfig {
                nesting: 2,
                size_budget: 10,
            },
            nestings: Vec::new(),
            subgroup_sizes: vec![4],
            variant: Variant::Maximal,
            jobs: 1,
            shard,
        }
    }

    /// Workers sharing one counter claim every seed of their shard once, in order, and
    /// nothing once the range is done (what the three campaign loops rely on).
    #[test]
    fn claims_cover_the_shard_once() {
        for (range, shard) in [
            (10..40, (1, 3)),
            (0..7, (0, 1)),
            (5..5, (0, 1)),
            (3..9, (2, 4)),
        ] {
            let c = campaign(range.clone(), shard);
            let next = AtomicU64::new(range.start);
            let claimed: Vec<u64> = std::iter::from_fn(|| c.claim(&next)).collect();
            let expected: Vec<u64> = range.clone().filter(|&s| c.takes(s)).collect();
            assert_eq!(claimed, expected, "{range:?} shard {shard:?}");
            assert_eq!(c.claim(&next), None);
        }
    }
}
