//! The `ptxas` engine: fuzz programs written as CUDA ([`crate::cuda`]), compiled by nvcc
//! for each SM (many programs to one translation unit, so nvcc runs once per batch and
//! SM), run on the SASS warp simulator (`tangle-sim`) under every scheduling policy, and
//! judged against the reference interpreter at subgroup size 32 ([`judge`]).
//!
//! A run ends in one of three ways: the buffers agree; they differ only where tangles
//! show (ptxas's code departs from maximal reconvergence — CUDA promises nothing there, so
//! it is reported, classified by the shape around the observation, not failed); or
//! something that holds whatever the tangles is broken — a simulator failure, a fault, an
//! impossible record, a sequence of observations that differs in a program whose paths do
//! not depend on tangles. The last is a bug of the simulator or the emitter and fails the
//! campaign.

pub mod judge;
pub mod nvcc;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tangle_interp::Variant;
use tangle_sass::Arch;
use tangle_sched::Policy;
use tangle_sim::{Arg, Dim3, Kernel, Launch, Options, RunOutput};

use crate::ast::{Program, INPUT};
use crate::build::build_module;
use crate::campaign::Campaign;
use crate::compare::run_reference;
use crate::cuda::{kernel_name, translation_unit, CudaOptions, WARP};
use crate::generate::generate;
use crate::mask::simulate;
pub use judge::{judge, shape, TangleDiff, Verdict};

/// What the `ptxas` engine runs.
#[derive(Clone, Debug)]
pub struct PtxasCheck {
    /// nvcc's path ([`nvcc::locate_nvcc`]).
    pub nvcc: PathBuf,
    /// The SMs every program is compiled for.
    pub archs: Vec<Arch>,
    /// The simulator's policies every cubin runs under.
    pub policies: Vec<Policy>,
    /// Programs per translation unit (one nvcc call per batch and SM).
    pub batch: usize,
    /// Check every issue against the latency tables too (a hazard in ptxas's code is a
    /// simulator bug, like any other broken run).
    pub hazards: bool,
    /// Where the translation units and cubins go (a fresh temporary directory if `None`).
    pub work_dir: Option<PathBuf>,
    /// The kernels' options for every program; `None`: each program's by its tag
    /// ([`options_of`]). Shrinking sets it to the original seed's, since the candidates'
    /// tags are not seeds.
    pub options: Option<CudaOptions>,
}

/// Whether the helpers of seed `seed`'s program are `__noinline__` (odd seeds), so a
/// campaign sees ptxas's calls as well as inlined code.
pub fn options_of(seed: u64) -> CudaOptions {
    CudaOptions {
        noinline: seed % 2 == 1,
    }
}

/// One program's outcome on one SM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every policy agreed with the reference.
    Agree,
    /// Under these policies the tangles differ (the first difference of each).
    Tangle(Vec<(Policy, TangleDiff)>),
    /// A run broke something that holds whatever the tangles (a simulator or emitter bug),
    /// or could not be compiled, loaded or finished.
    Broken {
        /// The policy (`None`: before any run, e.g. nvcc failed).
        policy: Option<Policy>,
        /// What.
        message: String,
    },
}

/// The buffer a program's kernel gets: the reference's words and room for four times as
/// many records (ptxas's code may run a lane through an elected loop more often).
fn buffer_words(reference_words: usize) -> usize {
    reference_words * 4 + RECORD_SLACK
}

const RECORD_SLACK: usize = 64;

/// The reference's output words for `program` at subgroup size 32.
pub fn reference_words(program: &Program) -> Result<Vec<u32>, String> {
    let module = build_module(program);
    let words = simulate(program, WARP).words.len();
    run_reference(&module, WARP, words, Variant::Maximal)
}

/// Whether some switch of `program` has a case that falls through: the specification lets
/// the lanes falling into a case and those switching to it directly run it apart or
/// together, and the reference's default keeps them apart.
fn has_fallthrough(program: &Program) -> bool {
    fn any(stmts: &[crate::ast::Stmt]) -> bool {
        use crate::ast::Stmt;
        stmts.iter().any(|s| match s {
            Stmt::Switch {
                cases,
                default,
                fallthrough,
                ..
            } => {
                fallthrough.iter().any(|&f| f)
                    || any(default.as_deref().unwrap_or(&[]))
                    || cases.iter().any(|(_, b)| any(b))
            }
            Stmt::If { then, els, .. } => any(then) || any(els.as_deref().unwrap_or(&[])),
            Stmt::For { body, .. } | Stmt::Infinite { body } | Stmt::DoWhileElect { body } => {
                any(body)
            }
            _ => false,
        })
    }
    any(&program.body) || program.functions.iter().any(|f| any(f))
}

/// The reference's words for `program` at subgroup size 32 with fallthrough lanes joining
/// the lanes that switch to the case directly (`FallthroughPolicy::Merge`).
fn reference_words_merged(program: &Program) -> Result<Vec<u32>, String> {
    let module = build_module(program);
    let words = simulate(program, WARP).words.len();
    let config = tangle_interp::Config {
        subgroup_size: WARP,
        record_trace: false,
        fallthrough_policy: tangle_interp::FallthroughPolicy::Merge,
        ..tangle_interp::Config::default()
    };
    let mut it =
        tangle_interp::Interpreter::new(&module, "main", config).map_err(|e| e.to_string())?;
    it.bind_buffer(0, 0, vec![0; words.max(1) * 4]);
    it.bind_buffer(0, 1, INPUT.iter().flat_map(|w| w.to_le_bytes()).collect());
    let outcome = it.run().map_err(|e| e.to_string())?;
    Ok(outcome.buffers[&(0, 0)]
        .chunks(4)
        .take(words)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// The launch of a fuzz kernel of ptxas's: one block of `program.local_size` threads, an
/// output buffer with room for [`buffer_words`] words, the input words.
pub fn launch_of(program: &Program, reference_words: usize) -> Launch {
    Launch {
        grid: Dim3::new(1, 1, 1),
        block: Dim3::new(program.local_size, 1, 1),
        dynamic_shared: 0,
        args: vec![
            Arg::Buffer(vec![0; buffer_words(reference_words) * 4]),
            Arg::Buffer(INPUT.iter().flat_map(|w| w.to_le_bytes()).collect()),
        ],
    }
}

/// One run of a loaded kernel of ptxas's under `policy`, judged: the run's output and
/// `None` when it agrees with the reference (or with the reference under merged switch
/// fallthrough, also maximal reconvergence: `merged` caches that reference between runs),
/// the first tangle difference otherwise; `Err` when the run is broken (a simulator error,
/// a hazard with `hazards`, an impossible record).
pub fn run_judged(
    kernel: &Kernel,
    launch: &Launch,
    program: &Program,
    reference: &[u32],
    policy: Policy,
    hazards: bool,
    merged: &mut Option<Option<Vec<u32>>>,
) -> Result<(Option<TangleDiff>, RunOutput), String> {
    let mut opts = Options::new(policy);
    opts.step_budget = 2_000_000;
    opts.hazards = hazards;
    let out = tangle_sim::run(kernel, launch, &opts).map_err(|e| e.to_string())?;
    if let Some(h) = out.hazards.first() {
        return Err(format!("hazard in ptxas's code: {}: {}", h.site, h.what));
    }
    let got: Vec<u32> = out.buffers[0]
        .as_deref()
        .unwrap_or(&[])
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    match judge(program, reference, &got) {
        Verdict::Agree => Ok((None, out)),
        Verdict::Tangle(d) => {
            let merged = merged.get_or_insert_with(|| {
                has_fallthrough(program)
                    .then(|| reference_words_merged(program).ok())
                    .flatten()
            });
            if merged
                .as_deref()
                .is_some_and(|m| judge(program, m, &got) == Verdict::Agree)
            {
                Ok((None, out))
            } else {
                Ok((Some(d), out))
            }
        }
        Verdict::Broken(m) => Err(m),
    }
}

/// Runs the kernel `tag` of `cubin` under every policy of `check` and judges each run
/// ([`run_judged`]).
pub fn run_cubin(
    cubin: &[u8],
    tag: u64,
    program: &Program,
    reference: &[u32],
    check: &PtxasCheck,
) -> Outcome {
    let kernel = match tangle_sim::load(cubin, &kernel_name(tag)) {
        Ok(k) => k,
        Err(e) => {
            return Outcome::Broken {
                policy: None,
                message: e.to_string(),
            }
        }
    };
    let launch = launch_of(program, reference.len());
    let mut tangles = Vec::new();
    let mut merged = None;
    for &policy in &check.policies {
        match run_judged(
            &kernel,
            &launch,
            program,
            reference,
            policy,
            check.hazards,
            &mut merged,
        ) {
            Ok((None, _)) => {}
            Ok((Some(d), _)) => tangles.push((policy, d)),
            Err(message) => {
                return Outcome::Broken {
                    policy: Some(policy),
                    message,
                }
            }
        }
    }
    if tangles.is_empty() {
        Outcome::Agree
    } else {
        Outcome::Tangle(tangles)
    }
}

/// Compiles `programs` (tag, program) into one translation unit per SM and runs each on
/// each SM; the outcomes by program (in order), then SM (in `check.archs` order). A batch
/// nvcc refuses is compiled again one program at a time, so one bad program does not hide
/// the others.
pub fn check_batch(
    programs: &[(u64, Program)],
    references: &[Result<Vec<u32>, String>],
    check: &PtxasCheck,
    dir: &Path,
    stem: &str,
    jobs: usize,
) -> Vec<Vec<Outcome>> {
    let opts = |t: u64| check.options.unwrap_or_else(|| options_of(t));
    let source = translation_unit(programs.iter().map(|(t, p)| (*t, p, opts(*t))));
    let cubins = nvcc::compile_all(&check.nvcc, &source, &check.archs, dir, stem);
    // When the batch fails, each program alone, so one bad program hides no other.
    let alone: Vec<Vec<Result<Vec<u8>, String>>> = if cubins.iter().all(Result::is_ok) {
        Vec::new()
    } else {
        programs
            .iter()
            .enumerate()
            .map(|(k, (t, p))| {
                let src = translation_unit([(*t, p, opts(*t))]);
                nvcc::compile_all(&check.nvcc, &src, &check.archs, dir, &format!("{stem}_{k}"))
            })
            .collect()
    };
    let cubin_of = |k: usize, a: usize| -> &Result<Vec<u8>, String> {
        if alone.is_empty() {
            &cubins[a]
        } else {
            &alone[k][a]
        }
    };
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= programs.len() {
                    break;
                }
                let (tag, program) = &programs[k];
                let outcomes: Vec<Outcome> = (0..check.archs.len())
                    .map(|a| match (&references[k], cubin_of(k, a)) {
                        (Err(e), _) => Outcome::Broken {
                            policy: None,
                            message: format!("the reference interpreter failed: {e}"),
                        },
                        (_, Err(e)) => Outcome::Broken {
                            policy: None,
                            message: e.clone(),
                        },
                        (Ok(r), Ok(cubin)) => run_cubin(cubin, *tag, program, r, check),
                    })
                    .collect();
                results
                    .lock()
                    .expect("no worker panics")
                    .push((k, outcomes));
            });
        }
    });
    let mut out: Vec<Vec<Outcome>> = vec![Vec::new(); programs.len()];
    for (k, o) in results.into_inner().expect("no worker panics") {
        out[k] = o;
    }
    out
}

/// A departure seen in a campaign: one program on one SM under one policy.
#[derive(Clone, Debug)]
pub struct Departure {
    /// The seed.
    pub seed: u64,
    /// The SM.
    pub arch: Arch,
    /// The policy.
    pub policy: Policy,
    /// The first difference.
    pub diff: TangleDiff,
    /// The shape around the differing observation ([`judge::shape`]).
    pub shape: String,
}

/// What a `ptxas` campaign found.
#[derive(Clone, Debug, Default)]
pub struct PtxasSummary {
    /// Programs compiled and run.
    pub programs: u64,
    /// Runs (program × SM × policy).
    pub runs: u64,
    /// Programs whose runs all agreed on every SM.
    pub agreed: u64,
    /// Every tangle difference, by seed.
    pub departures: Vec<Departure>,
    /// Broken runs (simulator or emitter bugs): seed, SM, policy, message.
    pub broken: Vec<(u64, Arch, Option<Policy>, String)>,
    /// nvcc calls made.
    pub nvcc_calls: u64,
    /// Warp-instructions are not counted here; wall-clock time.
    pub elapsed: Duration,
}

/// The departures of one shape in a campaign.
#[derive(Clone, Debug, Default)]
pub struct ShapeCount {
    /// The seeds of the programs that show it.
    pub seeds: BTreeSet<u64>,
    /// The runs (program × SM × policy) that show it.
    pub runs: u64,
    /// The SMs it shows on.
    pub archs: Vec<Arch>,
}

impl PtxasSummary {
    /// The departures grouped by shape.
    pub fn by_shape(&self) -> BTreeMap<String, ShapeCount> {
        let mut m: BTreeMap<String, ShapeCount> = BTreeMap::new();
        for d in &self.departures {
            let e = m.entry(d.shape.clone()).or_default();
            e.seeds.insert(d.seed);
            e.runs += 1;
            if !e.archs.contains(&d.arch) {
                e.archs.push(d.arch);
            }
        }
        m
    }
}

impl std::fmt::Display for PtxasSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let seeds: BTreeSet<u64> = self.departures.iter().map(|d| d.seed).collect();
        write!(
            f,
            "ptxas: {} programs, {} runs, {} programs depart from maximal reconvergence \
             ({} runs, {} shapes), {} broken runs, {} nvcc calls, {:.1} programs/s",
            self.programs,
            self.runs,
            seeds.len(),
            self.departures.len(),
            self.by_shape().len(),
            self.broken.len(),
            self.nvcc_calls,
            self.programs as f64 / self.elapsed.as_secs_f64().max(1e-9)
        )
    }
}

/// Runs the campaign's seeds (subgroup size 32 only: the caller refuses others) through
/// ptxas and the simulator.
pub fn run_ptxas_campaign(c: &Campaign, check: &PtxasCheck) -> Result<PtxasSummary, String> {
    let start = Instant::now();
    let holder;
    let dir = match &check.work_dir {
        Some(d) => {
            std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
            d.clone()
        }
        None => {
            holder = TempDir::new()?;
            holder.0.clone()
        }
    };
    let seeds: Vec<u64> = c.seeds.clone().filter(|&s| c.takes(s)).collect();
    let mut summary = PtxasSummary::default();
    for (b, chunk) in seeds.chunks(check.batch.max(1)).enumerate() {
        let programs: Vec<(u64, Program)> = chunk
            .iter()
            .map(|&s| (s, generate(s, c.config_of(s))))
            .collect();
        let references: Vec<Result<Vec<u32>, String>> =
            programs.iter().map(|(_, p)| reference_words(p)).collect();
        let outcomes = check_batch(
            &programs,
            &references,
            check,
            &dir,
            &format!("batch{b}"),
            c.jobs,
        );
        summary.nvcc_calls += check.archs.len() as u64;
        for ((seed, program), per_arch) in programs.iter().zip(outcomes) {
            summary.programs += 1;
            let mut all_agree = true;
            for (&arch, o) in check.archs.iter().zip(per_arch) {
                match o {
                    Outcome::Agree => summary.runs += check.policies.len() as u64,
                    Outcome::Tangle(list) => {
                        all_agree = false;
                        summary.runs += check.policies.len() as u64;
                        for (policy, diff) in list {
                            summary.departures.push(Departure {
                                seed: *seed,
                                arch,
                                policy,
                                shape: shape(program, diff.id),
                                diff,
                            });
                        }
                    }
                    Outcome::Broken { policy, message } => {
                        all_agree = false;
                        summary.broken.push((*seed, arch, policy, message));
                    }
                }
            }
            if all_agree {
                summary.agreed += 1;
            }
        }
    }
    summary.elapsed = start.elapsed();
    Ok(summary)
}

/// Shrinks seed `seed`'s program that departs on `arch` under `policy` at observation
/// `id` (every candidate is written with the seed's [`options_of`]): the
/// one-step reductions of the current program are compiled 16 to a translation unit (one
/// nvcc call), and the first that still shows a tangle difference at `id` there (and breaks
/// nothing) is kept. At most `max_calls` nvcc calls.
pub fn shrink_departure(
    seed: u64,
    program: &Program,
    id: u32,
    arch: Arch,
    policy: Policy,
    check: &PtxasCheck,
    max_calls: usize,
) -> Result<Program, String> {
    let holder = TempDir::new()?;
    let one = PtxasCheck {
        archs: vec![arch],
        policies: vec![policy],
        options: Some(options_of(seed)),
        ..check.clone()
    };
    let mut round = 0;
    Ok(crate::shrink::shrink_batched(
        program,
        |candidates| {
            round += 1;
            let programs: Vec<(u64, Program)> = candidates
                .iter()
                .enumerate()
                .map(|(k, p)| (k as u64, p.clone()))
                .collect();
            let refs: Vec<_> = programs.iter().map(|(_, p)| reference_words(p)).collect();
            let outcomes = check_batch(
                &programs,
                &refs,
                &one,
                &holder.0,
                &format!("shrink{round}"),
                1,
            );
            outcomes.iter().position(|o| {
                matches!(&o[0], Outcome::Tangle(list) if list.iter().any(|(_, d)| d.ids.contains(&id)))
            })
        },
        16,
        max_calls,
    ))
}

/// A scratch directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir, String> {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let d = std::env::temp_dir().join(format!(
            "tangle-ptxas-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        Ok(TempDir(d))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
