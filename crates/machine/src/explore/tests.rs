//! The reduced search against brute force: on small random lowered programs with races
//! on shared words, barrier scopes, breaks and exits, the reduced search reaches exactly
//! the set of ends (final buffers, or failures) that enumerating every interleaving of
//! every step another group could see reaches (`Reduction::Full`: no sleep sets, no
//! memory taken as private, every subgroup branching). Each wrong reduction (a mutant that
//! drops one dependence) misses an end on some program.

use std::collections::BTreeSet;

use tangle_sched::{Policy, Rng};

use super::{outcomes, Final, Tally};
use crate::search::{Mutant, Reduction};
use crate::{Machine, MachineConfig};

/// Words of `out`: 0 and 1 are written by several lanes; each lane has 8 of its own from
/// word 8 (`8 + 8 * lane + slot`).
const OUT_WORDS: usize = 8 + 8 * 8;

const PRELUDE: &str = r#"spirv 1.4
memory_model GLSL450
capability Shader
capability GroupNonUniform
capability GroupNonUniformBallot
extension "SPV_KHR_maximal_reconvergence"

type t0 = void
type t1 = u32
type t2 = bool
type t3 = u32x4
type t4 = rtarray<u32> [stride 4]
type t5 = struct "Buf" { t4 [offset 0, name "data"] } [block]
type t6 = barrier

const c0 u32 = 0
const c1 u32 = 1
const c2 u32 = 2
const c3 u32 = 3
const c4 u32 = 4
const c5 u32 = 5
const c6 u32 = 6
const c7 u32 = 7
const c8 u32 = 8
const c9 bool = true

global g0 ptr<StorageBuffer, t5> [set 0, binding 0, name "out"]
global g1 ptr<Input, u32> [builtin LocalInvocationIndex]

entry GLCompute "main" f0 (g1, g0) [local_size 4 1 1, maximally_reconverges]

"#;

/// Emits random straight-line code into a block: stores, load-modify-stores, atomics and
/// ballots on shared and per-lane words, and (in leaves) exits and breaks.
struct Emitter<'r> {
    rng: &'r mut Rng,
    next: u32,
    slot: u32,
    text: String,
}

impl Emitter<'_> {
    fn v(&mut self) -> String {
        self.next += 1;
        format!("v{}", self.next)
    }

    fn pick(&mut self, n: u64) -> u64 {
        self.rng.below(n)
    }

    /// A pointer to shared word 0 or 1.
    fn shared_word(&mut self) -> String {
        let p = self.v();
        let w = self.pick(2);
        self.text += &format!("  {p} = access_chain ptr<StorageBuffer, u32> g0, c0, c{w}\n");
        p
    }

    /// A pointer to the next word of the lane's own (`8 + 8 * lane + slot`).
    fn own_word(&mut self) -> String {
        let (a, b, c, p) = (self.v(), self.v(), self.v(), self.v());
        let slot = self.slot % 8;
        self.slot += 1;
        self.text += &format!(
            "  {a} = imul u32 v901, c8\n  {b} = iadd u32 {a}, c{slot}\n  {c} = iadd u32 {b}, c8\n  {p} = access_chain ptr<StorageBuffer, u32> g0, c0, {c}\n"
        );
        p
    }

    /// One random operation.
    fn op(&mut self, leaf: bool) {
        // Shared words most of the time: the check needs races to have something to find.
        let kind = match self.pick(if leaf { 11 } else { 9 }) {
            0..=2 => 0,
            3 | 4 => 1,
            5 | 6 => 2,
            k => k - 4,
        };
        match kind {
            0 => {
                let p = self.shared_word();
                let k = 1 + self.pick(7);
                self.text += &format!("  store {p}, c{k}\n");
            }
            1 => {
                let p = self.shared_word();
                let (x, y) = (self.v(), self.v());
                let k = 1 + self.pick(3);
                self.text += &format!("  {x} = load u32 {p}\n  {y} = iadd u32 {x}, c{k}\n");
                let q = if self.pick(2) == 0 {
                    self.shared_word()
                } else {
                    self.own_word()
                };
                self.text += &format!("  store {q}, {y}\n");
            }
            2 => {
                let p = self.shared_word();
                let a = self.v();
                self.text += &format!("  {a} = atomic_iadd[device, relaxed] u32 {p}, c1\n");
                let q = self.own_word();
                self.text += &format!("  store {q}, {a}\n");
            }
            3 => {
                let (b, x) = (self.v(), self.v());
                self.text += &format!(
                    "  {b} = group_ballot[subgroup] u32x4 c9\n  {x} = composite_extract[0] u32 {b}\n"
                );
                let q = self.own_word();
                self.text += &format!("  store {q}, {x}\n");
            }
            4 => {
                let q = self.own_word();
                self.text += &format!("  store {q}, v901\n");
            }
            5 => {
                // Lanes with an odd index end here.
                let c = self.v();
                let a = self.v();
                self.text +=
                    &format!("  {a} = and u32 v901, c1\n  {c} = ine bool {a}, c0\n  exit {c}\n");
            }
            _ => {
                // Some lanes break out of the outermost scope.
                let c = self.v();
                let k = self.pick(4);
                self.text += &format!("  {c} = ieq bool v901, c{k}\n  bar_break v10, {c}\n");
            }
        }
    }

    /// Up to `n` operations, within what is left of `budget` (which keeps the full
    /// enumeration small: every shared access there is a choice point).
    fn ops(&mut self, n: u64, leaf: bool, budget: &mut u64) {
        let n = self.pick(n + 1).min(*budget);
        *budget -= n;
        for _ in 0..n {
            self.op(leaf);
        }
    }
}

/// A random lowered program of four lanes: an outer scope over all; inside it, lanes
/// 0–1 and 2–3 each in their own scope, split again into single lanes.
fn program(seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let mut e = Emitter {
        rng: &mut rng,
        next: 100,
        slot: 0,
        text: String::new(),
    };
    e.text += "fn f0 \"main\"() -> void lowered {\nb0:\n  v901 = load u32 g1\n";
    e.text += "  v2 = and u32 v901, c2\n  v3 = ine bool v2, c0\n  v4 = and u32 v901, c1\n  v5 = ine bool v4, c0\n";
    e.text += "  v10 = bar_set barrier\n";
    let (mut leaves, mut joins) = (2, 1);
    e.ops(1, false, &mut 1);
    e.text += "  br_if v3, b1, b2\n";
    for (head, left, right, join, bar) in [(1, 3, 4, 5, 11), (2, 6, 7, 8, 12)] {
        e.text += &format!("b{head}:\n  v{bar} = bar_set barrier\n  br_if v5, b{left}, b{right}\n");
        for leaf in [left, right] {
            e.text += &format!("b{leaf}:\n");
            e.ops(1, true, &mut leaves);
            e.text += &format!("  br b{join}\n");
        }
        e.text += &format!("b{join}:\n  bar_sync v{bar}\n");
        e.ops(1, false, &mut joins);
        e.text += "  br b9\n";
    }
    e.text += "b9:\n  bar_sync v10\n";
    e.ops(1, false, &mut 1);
    e.text += "  return\n}\n";
    format!("{PRELUDE}{}", e.text)
}

/// Lane 0 runs the `bar_set` of a loop's header once more than the other lanes, so at
/// the `bar_sync` after the loop its copy holds only itself while the others' hold every
/// lane: its arrival releases it alone when it comes first, and everyone together when
/// the others wait already — the ballot after it tells which.
fn arrivals_race() -> String {
    format!(
        "{PRELUDE}fn f0 \"main\"() -> void lowered {{
b0:
  v901 = load u32 g1
  br b1
b1:
  v20 = phi u32 [c0, b0], [v21, b2]
  v10 = bar_set barrier
  v21 = iadd u32 v20, c1
  v22 = ieq bool v901, c0
  v23 = ieq bool v20, c0
  v24 = logical_and bool v22, v23
  br_if v24, b2, b3
b2:
  br b1
b3:
  bar_sync v10
  v30 = group_ballot[subgroup] u32x4 c9
  v31 = composite_extract[0] u32 v30
  v32 = iadd u32 v901, c8
  v33 = access_chain ptr<StorageBuffer, u32> g0, c0, v32
  store v33, v31
  return
}}
"
    )
}

/// The ends of `text`'s dispatch at `subgroup_size` under `reduction`.
fn ends(
    text: &str,
    subgroup_size: u32,
    reduction: Reduction,
) -> (BTreeSet<Result<Final, String>>, Tally) {
    let m = tangle_ir::text::parse(text).unwrap_or_else(|e| panic!("parse: {e}\n{text}"));
    if let Err(e) = tangle_ir::verify::verify(&m) {
        panic!("verify: {e}\n{text}");
    }
    let config = MachineConfig {
        subgroup_size,
        policy: Policy::Exhaustive,
        step_budget: 100_000,
        record_trace: false,
        bound: tangle_sched::ExhaustiveBound {
            max_runs: 1_000_000,
            max_depth: 10_000,
        },
        ..MachineConfig::default()
    };
    let mut machine = Machine::new(&m, "main", config).expect("machine");
    machine.bind_buffer(0, 0, vec![0; OUT_WORDS * 4]);
    let (set, tally) = outcomes(&machine, reduction).expect("search");
    assert!(
        !tally.unexplored && tally.cut_off == 0,
        "{reduction:?} at subgroup size {subgroup_size}: {tally:?}\n{text}"
    );
    (set, tally)
}

/// How many random programs: `TANGLE_SEARCH_CASES` or 60.
fn cases() -> u64 {
    std::env::var("TANGLE_SEARCH_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60)
}

#[test]
fn the_reduced_search_reaches_the_ends_of_the_full_enumeration() {
    let (mut full_runs, mut reduced_runs, mut several) = (0, 0, 0);
    for seed in 0..cases() {
        let text = program(seed);
        for size in [4, 2] {
            let (full, f) = ends(&text, size, Reduction::Full);
            let (reduced, r) = ends(&text, size, Reduction::Reduced);
            assert_eq!(reduced, full, "seed {seed}, subgroup size {size}:\n{text}");
            full_runs += f.completed + f.pruned;
            reduced_runs += r.runs;
            several += u64::from(full.len() > 1);
        }
    }
    eprintln!(
        "{} programs × 2 sizes: full {full_runs} runs, reduced {reduced_runs} runs; {several} with several ends",
        cases()
    );
    // The programs race (the check has something to find) and the reduction reduces.
    assert!(several >= cases() / 4, "{several}");
    assert!(reduced_runs * 4 < full_runs, "{reduced_runs} {full_runs}");
}

#[test]
fn arrivals_that_release_are_interleaved_both_ways() {
    let text = arrivals_race();
    for size in [4, 2] {
        let (full, _) = ends(&text, size, Reduction::Full);
        let (reduced, _) = ends(&text, size, Reduction::Reduced);
        assert_eq!(full.len(), 2, "{full:?}");
        assert_eq!(reduced, full);
    }
}

#[test]
fn every_mutant_of_the_reduction_misses_an_end() {
    for mutant in [
        Mutant::WritesCommute,
        Mutant::ArrivalsCommute,
        Mutant::NoDiscovery,
    ] {
        // The hand-written race on arrivals first, then the random programs.
        let caught = (0..=cases()).find(|&seed| {
            let text = match seed {
                0 => arrivals_race(),
                s => program(s - 1),
            };
            [4, 2].into_iter().any(|size| {
                ends(&text, size, Reduction::Mutant(mutant)).0
                    != ends(&text, size, Reduction::Full).0
            })
        });
        eprintln!("{mutant:?}: caught on seed {caught:?}");
        assert!(caught.is_some(), "{mutant:?} is not caught");
    }
}
