//! The lowered engines: a program built as IR, lowered by the reconvergence lowering
//! (`tangle-reconverge`) under a placement scheme, and run on the barrier machine
//! (`tangle-machine`) under scheduling policies, against the reference interpreter on the
//! structured module. `lowered` is tangle's scheme and must agree everywhere;
//! `lowered-baseline` is seed 000's flawed design, which the comparison must catch.
//!
//! `tokens` is the token engine on the same machine: the structured module with its tokens
//! inferred (`infer-tokens`) and its merge annotations dropped (`tangle_tokens::engine`),
//! run with [`Convergence::Tokens`], so the tokens alone say who is converged. Its
//! reference runs with [`FallthroughPolicy::Merge`]: lanes falling through into a switch
//! case run it with the lanes that switched to it directly, the grouping (among those the
//! specification allows) that the token semantics gives (`docs/tokens.md`).

use std::sync::atomic::AtomicU64;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tangle_interp::{Config, FallthroughPolicy, Interpreter, Variant};
use tangle_ir::Module;
use tangle_machine::{
    Convergence, Machine, MachineConfig, Policy, SearchSummary, EXHAUSTIVE_MAX_SUBGROUP,
};
use tangle_reconverge::{lower_module, LowerOptions, Scheme};

use crate::ast::{Program, INPUT, RECORD_WORDS};
use crate::build::build_module;
use crate::campaign::Campaign;
use crate::compare::run_reference;
use crate::generate::generate;
use crate::mask::{simulate_with, Fallthrough};

/// What the machine runs: a lowering's output, or the token engine's form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MachineEngine {
    /// The reconvergence lowering under this barrier placement, on the barrier machine.
    Lowered(Scheme),
    /// The tokens inferred and the structure dropped, on the token engine.
    Tokens,
}

/// What a lowered engine runs: the program's form and the machine's policies.
#[derive(Clone, Debug)]
pub struct LoweredCheck {
    /// The form the machine runs and how it decides convergence.
    pub engine: MachineEngine,
    /// The scheduling policies every program runs under (`exhaustive` only at subgroups
    /// of up to 8 lanes; it is skipped at larger ones).
    pub policies: Vec<Policy>,
}

impl LoweredCheck {
    /// The engine's name on the command line: `lowered` or `lowered-<scheme>`.
    pub fn engine_name(&self) -> String {
        match self.engine {
            MachineEngine::Lowered(Scheme::Scopes) => "lowered".into(),
            MachineEngine::Lowered(other) => format!("lowered-{other}"),
            MachineEngine::Tokens => "tokens".into(),
        }
    }
}

/// How a lowered program disagreed with the reference.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LoweredMismatch {
    /// The lowering refused the module.
    #[error("the lowering failed: {message}")]
    Lower {
        /// Its error, as text.
        message: String,
    },
    /// The reference interpreter failed.
    #[error("subgroup size {subgroup_size}: the reference interpreter failed: {message}")]
    Reference {
        /// The subgroup size.
        subgroup_size: u32,
        /// Its error, as text.
        message: String,
    },
    /// The machine failed (deadlock, livelock, a cut-off search, ...).
    #[error(
        "subgroup size {subgroup_size}, policy {policy}: the barrier machine failed: {message}"
    )]
    Machine {
        /// The subgroup size.
        subgroup_size: u32,
        /// The policy.
        policy: String,
        /// Its error, as text.
        message: String,
    },
    /// The buffers differ: a wrong tangle. The first differing word is named.
    #[error(
        "subgroup size {subgroup_size}, policy {policy}: word {word} (record {record}, \
         invocation {invocation}): reference {reference:#x}, lowered {lowered:#x}"
    )]
    Words {
        /// The subgroup size.
        subgroup_size: u32,
        /// The policy.
        policy: String,
        /// The first differing word.
        word: usize,
        /// Its record number.
        record: usize,
        /// Its invocation.
        invocation: usize,
        /// The reference interpreter's word.
        reference: u32,
        /// The machine's word.
        lowered: u32,
    },
}

impl LoweredMismatch {
    /// The subgroup size it shows at (0 for a lowering failure, which has none).
    pub fn subgroup_size(&self) -> u32 {
        match self {
            LoweredMismatch::Lower { .. } => 0,
            LoweredMismatch::Reference { subgroup_size, .. }
            | LoweredMismatch::Machine { subgroup_size, .. }
            | LoweredMismatch::Words { subgroup_size, .. } => *subgroup_size,
        }
    }

    /// Whether `other` is the same kind of disagreement at the same subgroup size (what a
    /// shrunk program must keep).
    fn same_kind(&self, other: &LoweredMismatch) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
            && self.subgroup_size() == other.subgroup_size()
    }
}

/// Lowers `module` under `scheme`.
pub fn lower(module: &Module, scheme: Scheme) -> Result<Module, LoweredMismatch> {
    let opts = LowerOptions {
        scheme,
        // A campaign looks for lowering bugs: a lowered module that breaks a rule is one.
        verify_output: true,
        ..LowerOptions::default()
    };
    lower_module(module, &opts).map_err(|e| LoweredMismatch::Lower {
        message: e.to_string(),
    })
}

/// What `engine` runs of `module`: its lowering, or its token engine form.
pub fn prepare(module: &Module, engine: MachineEngine) -> Result<Module, LoweredMismatch> {
    match engine {
        MachineEngine::Lowered(scheme) => lower(module, scheme),
        MachineEngine::Tokens => {
            tangle_tokens::engine::for_engine(module).map_err(|e| LoweredMismatch::Lower {
                message: format!("token inference: {e}"),
            })
        }
    }
}

/// The output buffer (`words` words) of `lowered` on the barrier machine, with the
/// exhaustive search's counts under that policy.
pub fn run_lowered(
    lowered: &Module,
    subgroup_size: u32,
    words: usize,
    policy: Policy,
) -> Result<(Vec<u32>, Option<SearchSummary>), String> {
    run_machine(lowered, subgroup_size, words, policy, Convergence::Barriers)
}

/// The output buffer (`words` words) of `module` on the machine under `convergence`, with
/// the exhaustive search's counts under that policy.
pub fn run_machine(
    module: &Module,
    subgroup_size: u32,
    words: usize,
    policy: Policy,
    convergence: Convergence,
) -> Result<(Vec<u32>, Option<SearchSummary>), String> {
    let lowered = module;
    let config = MachineConfig {
        subgroup_size,
        policy,
        record_trace: false,
        convergence,
        ..MachineConfig::default()
    };
    let mut m = Machine::new(lowered, "main", config).map_err(|e| e.to_string())?;
    m.bind_buffer(0, 0, vec![0; words.max(1) * 4]);
    m.bind_buffer(0, 1, INPUT.iter().flat_map(|w| w.to_le_bytes()).collect());
    let outcome = m.run().map_err(|e| e.to_string())?;
    let got = outcome.buffers[&(0, 0)]
        .chunks(4)
        .take(words)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Ok((got, outcome.search))
}

/// The reference interpreter's output buffer with fallthrough lanes merging into the next
/// case ([`FallthroughPolicy::Merge`]): the grouping the token engine is held to.
pub fn run_reference_merging(
    module: &Module,
    subgroup_size: u32,
    words: usize,
) -> Result<Vec<u32>, String> {
    let config = Config {
        subgroup_size,
        record_trace: false,
        fallthrough_policy: FallthroughPolicy::Merge,
        ..Config::default()
    };
    let mut it = Interpreter::new(module, "main", config).map_err(|e| e.to_string())?;
    it.bind_buffer(0, 0, vec![0; words.max(1) * 4]);
    it.bind_buffer(0, 1, INPUT.iter().flat_map(|w| w.to_le_bytes()).collect());
    let outcome = it.run().map_err(|e| e.to_string())?;
    Ok(outcome.buffers[&(0, 0)]
        .chunks(4)
        .take(words)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// How a lowered program that agreed was run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Agreed {
    /// The exhaustive searches it passed (one per subgroup size up to 8), summed.
    pub searches: SearchCounts,
}

/// Counts of the exhaustive searches of a campaign (each search passed: every run
/// complete and agreeing; a search cut off by its bound is a mismatch instead).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchCounts {
    /// Searches that passed.
    pub searches: u64,
    /// Complete runs they explored.
    pub runs: u64,
    /// Runs they abandoned as equivalent to one explored (sleep sets).
    pub pruned: u64,
    /// Times a search started again after finding a conflicting shared word.
    pub restarts: u64,
}

impl std::ops::AddAssign for SearchCounts {
    fn add_assign(&mut self, o: SearchCounts) {
        self.searches += o.searches;
        self.runs += o.runs;
        self.pruned += o.pruned;
        self.restarts += o.restarts;
    }
}

/// Builds and lowers `program`, and compares the machine under every policy of `check`
/// with the reference interpreter at each subgroup size; the first disagreement.
pub fn compare_lowered(
    program: &Program,
    subgroup_sizes: &[u32],
    check: &LoweredCheck,
) -> Result<Agreed, LoweredMismatch> {
    let module = build_module(program);
    let lowered = prepare(&module, check.engine)?;
    let tokens = check.engine == MachineEngine::Tokens;
    let convergence = if tokens {
        Convergence::Tokens
    } else {
        Convergence::Barriers
    };
    let mut searches = SearchCounts::default();
    for &subgroup_size in subgroup_sizes {
        // Sized by the mask oracle under the reference's grouping: under `Merge` an elect
        // loop in a case reached both ways can run more iterations than apart.
        let grouping = if tokens {
            Fallthrough::Merge
        } else {
            Fallthrough::Independent
        };
        let words = simulate_with(program, subgroup_size, grouping).words.len();
        let reference = if tokens {
            run_reference_merging(&module, subgroup_size, words)
        } else {
            run_reference(&module, subgroup_size, words, Variant::Maximal)
        }
        .map_err(|message| LoweredMismatch::Reference {
            subgroup_size,
            message,
        })?;
        for &policy in &check.policies {
            if policy == Policy::Exhaustive && subgroup_size > EXHAUSTIVE_MAX_SUBGROUP {
                continue;
            }
            let (got, search) = run_machine(&lowered, subgroup_size, words, policy, convergence)
                .map_err(|message| LoweredMismatch::Machine {
                    subgroup_size,
                    policy: policy.to_string(),
                    message,
                })?;
            if let Some(s) = search {
                searches += SearchCounts {
                    searches: 1,
                    runs: s.runs,
                    pruned: s.pruned,
                    restarts: s.restarts,
                };
            }
            if let Some(word) = (0..words).find(|&i| got[i] != reference[i]) {
                let per_record = program.local_size as usize * RECORD_WORDS as usize;
                return Err(LoweredMismatch::Words {
                    subgroup_size,
                    policy: policy.to_string(),
                    word,
                    record: word / per_record,
                    invocation: word % per_record / RECORD_WORDS as usize,
                    reference: reference[word],
                    lowered: got[word],
                });
            }
        }
    }
    Ok(Agreed { searches })
}

/// Shrinks the program of a lowered mismatch: a candidate keeps failing when it still
/// disagrees in the same way at the same subgroup size.
pub fn shrink_lowered(
    program: &Program,
    mismatch: &LoweredMismatch,
    check: &LoweredCheck,
    max_checks: usize,
) -> Program {
    let sizes: Vec<u32> = match mismatch.subgroup_size() {
        0 => vec![4],
        s => vec![s],
    };
    crate::shrink::shrink(
        program,
        |p| compare_lowered(p, &sizes, check).is_err_and(|m| m.same_kind(mismatch)),
        max_checks,
    )
}

/// What a lowered campaign found.
#[derive(Clone, Debug)]
pub struct LoweredSummary {
    /// The engine's name.
    pub engine: String,
    /// How many policies each program ran under.
    pub policies: usize,
    /// Programs compared.
    pub programs: u64,
    /// The seeds whose programs disagreed, with the first disagreement, by seed.
    pub mismatches: Vec<(u64, LoweredMismatch)>,
    /// The exhaustive searches of the programs that agreed.
    pub searches: SearchCounts,
    /// Wall-clock time.
    pub elapsed: Duration,
}

impl std::fmt::Display for LoweredSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} programs × {} policies, {} mismatches, {:.0} programs/s",
            self.engine,
            self.programs,
            self.policies,
            self.mismatches.len(),
            self.programs as f64 / self.elapsed.as_secs_f64().max(1e-9)
        )?;
        let s = &self.searches;
        if s.searches > 0 {
            write!(
                f,
                "; exhaustive: {} searches passed, {} runs completed, {} pruned, {} restarts",
                s.searches, s.runs, s.pruned, s.restarts
            )?;
        }
        Ok(())
    }
}

/// Runs the campaign's seeds on the lowered engine `check` (the campaign's `variant` is
/// not used: the reference runs the specification's semantics).
pub fn run_lowered_campaign(c: &Campaign, check: &LoweredCheck) -> LoweredSummary {
    let start = Instant::now();
    let next = AtomicU64::new(c.seeds.start);
    let mismatches = Mutex::new(Vec::new());
    let searches = Mutex::new(SearchCounts::default());
    std::thread::scope(|s| {
        for _ in 0..c.jobs.max(1) {
            s.spawn(|| {
                while let Some(seed) = c.claim(&next) {
                    let program = generate(seed, c.config_of(seed));
                    match compare_lowered(&program, &c.subgroup_sizes, check) {
                        Ok(a) => {
                            *searches.lock().expect("no worker panics") += a.searches;
                        }
                        Err(m) => mismatches.lock().expect("no worker panics").push((seed, m)),
                    }
                }
            });
        }
    });
    let mut mismatches = mismatches.into_inner().expect("no worker panics");
    mismatches.sort_by_key(|(seed, _)| *seed);
    LoweredSummary {
        engine: check.engine_name(),
        policies: check.policies.len(),
        programs: c.seeds.clone().filter(|&s| c.takes(s)).count() as u64,
        mismatches,
        searches: searches.into_inner().expect("no worker panics"),
        elapsed: start.elapsed(),
    }
}
