//! The `sass` engines: a program built as IR, compiled by tangle's back end
//! (`tangle-backend`: the reconvergence lowering, instruction selection, register
//! allocation, scheduling and control codes) for an SM, written as a cubin, loaded and run
//! on the SASS warp simulator (`tangle-sim`) in hazard mode under scheduling policies,
//! against the reference interpreter at subgroup size 32 (the back end compiles for the
//! warp only). `sass` compiles with tangle's lowering and must agree everywhere;
//! `sass-baseline` compiles with seed 000's flawed design, which the comparison must catch.
//!
//! Every way a program can fail is a mismatch with its kind ([`SassMismatch::kind`]): a
//! back-end refusal, a back-end error, a simulator failure (deadlock, livelock, fault,
//! an instruction the simulator refuses), a hazard in the control codes, or a wrong word.
//! Bytes the reference leaves undefined are wildcards.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tangle_backend::{compile, CompileError, CompileOptions, Compiled, Param};
use tangle_interp::{Config, Interpreter};
use tangle_ir::Module;
use tangle_reconverge::Scheme;
use tangle_sass::Arch;
use tangle_sched::Policy;
use tangle_sim::{Arg, Dim3, Kernel, Launch, Options, RunOutput, SimError};

use crate::ast::{Program, INPUT, RECORD_WORDS};
use crate::build::build_module;
use crate::campaign::Campaign;
use crate::generate::generate;
use crate::mask::simulate;

/// The only subgroup size the back end compiles for: NVIDIA's warp.
pub const WARP: u32 = 32;

/// Which SMs a program is compiled for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arches {
    /// Every program on each of these SMs.
    List(Vec<Arch>),
    /// Seed `s` on `Arch::ALL[s mod 5]`: the five SMs in rotation, one per program.
    PerSeed,
}

impl Arches {
    /// The SMs `seed`'s program is compiled for.
    pub fn of(&self, seed: u64) -> Vec<Arch> {
        match self {
            Arches::List(v) => v.clone(),
            Arches::PerSeed => vec![Arch::ALL[(seed % Arch::ALL.len() as u64) as usize]],
        }
    }
}

impl std::fmt::Display for Arches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Arches::PerSeed => f.write_str("one SM per seed"),
            Arches::List(v) => {
                let names: Vec<String> = v.iter().map(Arch::to_string).collect();
                f.write_str(&names.join(","))
            }
        }
    }
}

/// What a `sass` engine runs.
#[derive(Clone, Debug)]
pub struct SassCheck {
    /// The lowering's barrier placement: [`Scheme::Scopes`] (`sass`) or
    /// [`Scheme::Baseline`] (`sass-baseline`).
    pub scheme: Scheme,
    /// The SMs.
    pub arches: Arches,
    /// The simulator's policies (not `exhaustive`, a search of its own).
    pub policies: Vec<Policy>,
}

impl SassCheck {
    /// The engine's name on the command line: `sass` or `sass-<scheme>`.
    pub fn engine_name(&self) -> String {
        match self.scheme {
            Scheme::Scopes => "sass".into(),
            other => format!("sass-{other}"),
        }
    }
}

/// How a compiled program disagreed with the reference (every field names where).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SassMismatch {
    /// The reference interpreter failed.
    #[error("the reference interpreter failed: {message}")]
    Reference {
        /// Its error, as text.
        message: String,
    },
    /// The back end refused the program (an operation outside its subset, register
    /// pressure, the lowering's refusal).
    #[error("{arch}: the back end refused it: {message}")]
    Refused {
        /// The SM.
        arch: Arch,
        /// Its error, as text.
        message: String,
    },
    /// The back end failed on its own (an internal error, the cubin writer, the loader).
    #[error("{arch}: back-end error: {message}")]
    BackEnd {
        /// The SM.
        arch: Arch,
        /// Its error, as text.
        message: String,
    },
    /// The simulator stopped: a deadlock, livelock, fault, or an instruction it refuses.
    #[error("{arch}, policy {policy}: simulator {kind}: {message}")]
    Simulator {
        /// The SM.
        arch: Arch,
        /// The policy.
        policy: String,
        /// `deadlock`, `livelock`, `fault`, `refused`, `unsupported`, `launch` or `load`.
        kind: &'static str,
        /// Its error, as text.
        message: String,
    },
    /// The control codes let an instruction read a result too early (hazard mode).
    #[error("{arch}, policy {policy}: {count} hazards, the first: {first}")]
    Hazard {
        /// The SM.
        arch: Arch,
        /// The policy.
        policy: String,
        /// How many the run found.
        count: usize,
        /// The first, with its site.
        first: String,
    },
    /// The buffers differ: the first word with a differing defined byte is named.
    #[error(
        "{arch}, policy {policy}: word {word} (record {record}, invocation {invocation}): \
         reference {reference:#x}, sass {sass:#x}"
    )]
    Words {
        /// The SM.
        arch: Arch,
        /// The policy.
        policy: String,
        /// The word.
        word: usize,
        /// Its record number.
        record: usize,
        /// Its invocation.
        invocation: usize,
        /// The reference's word (undefined bytes as zero).
        reference: u32,
        /// The simulator's word.
        sass: u32,
    },
}

impl SassMismatch {
    /// The kind of disagreement, as the summary counts it: `reference`, `refused`,
    /// `back-end`, `hazard`, `words`, or the simulator's kind (`deadlock`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            SassMismatch::Reference { .. } => "reference",
            SassMismatch::Refused { .. } => "refused",
            SassMismatch::BackEnd { .. } => "back-end",
            SassMismatch::Simulator { kind, .. } => kind,
            SassMismatch::Hazard { .. } => "hazard",
            SassMismatch::Words { .. } => "words",
        }
    }

    /// The SM it shows on (none for a reference failure).
    pub fn arch(&self) -> Option<Arch> {
        match self {
            SassMismatch::Reference { .. } => None,
            SassMismatch::Refused { arch, .. }
            | SassMismatch::BackEnd { arch, .. }
            | SassMismatch::Simulator { arch, .. }
            | SassMismatch::Hazard { arch, .. }
            | SassMismatch::Words { arch, .. } => Some(*arch),
        }
    }

    /// The policy it shows under (none before a run).
    pub fn policy(&self) -> Option<&str> {
        match self {
            SassMismatch::Simulator { policy, .. }
            | SassMismatch::Hazard { policy, .. }
            | SassMismatch::Words { policy, .. } => Some(policy),
            _ => None,
        }
    }

    /// Whether `other` is the same kind of disagreement on the same SM (what a shrunk
    /// program must keep).
    pub fn same_kind(&self, other: &SassMismatch) -> bool {
        self.kind() == other.kind() && self.arch() == other.arch()
    }
}

/// The reference's output buffer at subgroup size 32 (`words` words) and, when the run
/// left some undefined or order-dependent (racing atomics), which bytes are wildcards.
pub fn reference_bytes(
    module: &Module,
    words: usize,
) -> Result<(Vec<u8>, Option<Vec<bool>>), String> {
    let config = Config {
        subgroup_size: WARP,
        record_trace: false,
        ..Config::default()
    };
    let mut it = Interpreter::new(module, "main", config).map_err(|e| e.to_string())?;
    it.bind_buffer(0, 0, vec![0; words.max(1) * 4]);
    it.bind_buffer(0, 1, INPUT.iter().flat_map(|w| w.to_le_bytes()).collect());
    let mut outcome = it.run().map_err(|e| e.to_string())?;
    let bytes = outcome.buffers.remove(&(0, 0)).unwrap_or_default();
    Ok((bytes, outcome.wildcards((0, 0))))
}

/// Compiles `module`'s `main` for `arch` under `scheme`: a refusal or back-end error is a
/// mismatch of its kind.
pub fn compile_for(module: &Module, arch: Arch, scheme: Scheme) -> Result<Compiled, SassMismatch> {
    let opts = CompileOptions {
        scheme,
        ..CompileOptions::new(arch)
    };
    compile(module, "main", &opts).map_err(|e| match e {
        CompileError::Internal(message) => SassMismatch::BackEnd { arch, message },
        other => SassMismatch::Refused {
            arch,
            message: other.to_string(),
        },
    })
}

/// The kind of a simulator error, as [`SassMismatch::Simulator`] names it.
fn sim_kind(e: &SimError) -> &'static str {
    match e {
        SimError::Deadlock { .. } => "deadlock",
        SimError::Livelock { .. } => "livelock",
        SimError::Fault { .. } => "fault",
        SimError::Refused { .. } => "refused",
        SimError::Unsupported { .. } => "unsupported",
        SimError::BadLaunch(_) => "launch",
        SimError::Load(_) => "load",
    }
}

/// A compiled program loaded from its cubin, with the launch the fuzz programs get.
pub struct Loaded {
    /// The SM.
    pub arch: Arch,
    /// The kernel, read back from the cubin as a driver would load it.
    pub kernel: Kernel,
    /// One workgroup, the output buffer sized for the reference's bytes, the input words.
    pub launch: Launch,
    /// The parameter position of the output buffer (set 0, binding 0).
    pub out_index: Option<usize>,
}

/// Writes `c` as a cubin and loads it (the writer's layout is checked too), with a launch
/// whose output buffer holds `want_bytes` bytes.
pub fn load_compiled(c: &Compiled, want_bytes: usize) -> Result<Loaded, SassMismatch> {
    let arch = c.arch;
    let bytes = c.cubin().map_err(|e| SassMismatch::BackEnd {
        arch,
        message: e.to_string(),
    })?;
    let kernel = tangle_sim::load(&bytes, &c.name).map_err(|e| SassMismatch::BackEnd {
        arch,
        message: format!("loading our cubin: {e}"),
    })?;
    let input: Vec<u8> = INPUT.iter().flat_map(|w| w.to_le_bytes()).collect();
    let buffer = |binding: u32| match binding {
        0 => vec![0; want_bytes.max(4)],
        1 => input.clone(),
        _ => Vec::new(),
    };
    let args = c
        .abi
        .params
        .iter()
        .map(|p| match *p {
            Param::Buffer { binding, .. } => Arg::Buffer(buffer(binding)),
            Param::BufferBytes { binding, .. } => Arg::U32(buffer(binding).len() as u32),
            Param::PushWord(_) => Arg::U32(0),
        })
        .collect();
    let out_index = c.abi.params.iter().position(|p| {
        *p == Param::Buffer {
            set: 0,
            binding: 0,
            element: 0,
        }
    });
    let [x, y, z] = c.workgroup_size;
    let launch = Launch {
        grid: Dim3::new(1, 1, 1),
        block: Dim3::new(x, y, z),
        dynamic_shared: 0,
        args,
    };
    Ok(Loaded {
        arch,
        kernel,
        launch,
        out_index,
    })
}

/// Runs a loaded program under `policy` in hazard mode and compares buffer 0 with the
/// reference's `want` bytes (`wild`: the undefined ones); the run's output, or the
/// disagreement.
pub fn run_policy(
    l: &Loaded,
    program: &Program,
    want: &[u8],
    wild: Option<&[bool]>,
    policy: Policy,
) -> Result<RunOutput, SassMismatch> {
    let arch = l.arch;
    let per_record = program.local_size as usize * RECORD_WORDS as usize;
    let mut opts = Options::new(policy);
    opts.hazards = true;
    opts.step_budget = 2_000_000;
    let out =
        tangle_sim::run(&l.kernel, &l.launch, &opts).map_err(|e| SassMismatch::Simulator {
            arch,
            policy: policy.to_string(),
            kind: sim_kind(&e),
            message: e.to_string(),
        })?;
    if let Some(h) = out.hazards.first() {
        return Err(SassMismatch::Hazard {
            arch,
            policy: policy.to_string(),
            count: out.hazards_total,
            first: format!("{}: {}", h.site, h.what),
        });
    }
    let got = l
        .out_index
        .and_then(|i| out.buffers[i].as_deref())
        .unwrap_or(&[]);
    let differs = |k: usize| !wild.is_some_and(|m| m[k]) && got.get(k) != Some(&want[k]);
    if let Some(k) = (0..want.len()).find(|&k| differs(k)) {
        let word = k / 4;
        let read = |b: &[u8]| {
            let mut w = [0u8; 4];
            for (i, x) in w.iter_mut().enumerate() {
                *x = b.get(4 * word + i).copied().unwrap_or(0);
            }
            u32::from_le_bytes(w)
        };
        return Err(SassMismatch::Words {
            arch,
            policy: policy.to_string(),
            word,
            record: word / per_record,
            invocation: word % per_record / RECORD_WORDS as usize,
            reference: read(want),
            sass: read(got),
        });
    }
    Ok(out)
}

/// Runs a compiled program under every policy of `policies` ([`run_policy`]); the runs
/// made.
fn run_compiled(
    c: &Compiled,
    program: &Program,
    want: &[u8],
    wild: Option<&[bool]>,
    policies: &[Policy],
) -> Result<usize, SassMismatch> {
    let loaded = load_compiled(c, want.len())?;
    for &policy in policies {
        run_policy(&loaded, program, want, wild, policy)?;
    }
    Ok(policies.len())
}

/// Builds `program`, compiles it for each SM of `arches` under `check.scheme`, and runs
/// each on the simulator under every policy of `check`, against the reference at subgroup
/// size 32; the simulated runs, or the first disagreement.
pub fn compare_sass(
    program: &Program,
    arches: &[Arch],
    check: &SassCheck,
) -> Result<usize, SassMismatch> {
    let module = build_module(program);
    let words = simulate(program, WARP).words.len();
    let (want, wild) =
        reference_bytes(&module, words).map_err(|message| SassMismatch::Reference { message })?;
    let mut runs = 0;
    for &arch in arches {
        let c = compile_for(&module, arch, check.scheme)?;
        runs += run_compiled(&c, program, &want, wild.as_deref(), &check.policies)?;
    }
    Ok(runs)
}

/// Shrinks the program of a mismatch on its SM (and under its policy, when it has one): a
/// candidate keeps failing while it disagrees in the same way on the same SM.
pub fn shrink_sass(
    program: &Program,
    mismatch: &SassMismatch,
    check: &SassCheck,
    max_checks: usize,
) -> Program {
    let arches: Vec<Arch> = mismatch.arch().into_iter().collect();
    let policies: Vec<Policy> = match mismatch.policy().and_then(|p| p.parse().ok()) {
        Some(p) => vec![p],
        None => check.policies.clone(),
    };
    let one = SassCheck {
        policies,
        ..check.clone()
    };
    crate::shrink::shrink(
        program,
        |p| compare_sass(p, &arches, &one).is_err_and(|m| m.same_kind(mismatch)),
        max_checks,
    )
}

/// What a `sass` campaign found.
#[derive(Clone, Debug)]
pub struct SassSummary {
    /// The engine's name.
    pub engine: String,
    /// The SMs, as `--arch` gave them.
    pub arches: Arches,
    /// Policies per program and SM.
    pub policies: usize,
    /// Programs compared.
    pub programs: u64,
    /// Simulated runs that agreed (program × SM × policy).
    pub runs: u64,
    /// Program × subgroup size pairs not run because the size is not 32.
    pub skipped_sizes: u64,
    /// The seeds whose programs disagreed, with the first disagreement, by seed.
    pub mismatches: Vec<(u64, SassMismatch)>,
    /// Wall-clock time.
    pub elapsed: Duration,
}

impl SassSummary {
    /// The mismatches counted by kind.
    pub fn by_kind(&self) -> BTreeMap<&'static str, usize> {
        let mut m = BTreeMap::new();
        for (_, x) in &self.mismatches {
            *m.entry(x.kind()).or_insert(0) += 1;
        }
        m
    }
}

impl std::fmt::Display for SassSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} programs ({}) × {} policies, {} simulated runs agree, {} mismatches",
            self.engine,
            self.programs,
            self.arches,
            self.policies,
            self.runs,
            self.mismatches.len(),
        )?;
        let kinds = self.by_kind();
        if !kinds.is_empty() {
            let list: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
            write!(f, " ({})", list.join(", "))?;
        }
        if self.skipped_sizes > 0 {
            write!(
                f,
                ", {} program runs skipped at subgroup sizes other than 32",
                self.skipped_sizes
            )?;
        }
        write!(
            f,
            ", {:.1} programs/s",
            self.programs as f64 / self.elapsed.as_secs_f64().max(1e-9)
        )
    }
}

/// Runs the campaign's seeds on the `sass` engine `check` at subgroup size 32 (the
/// campaign's other sizes are counted as skipped; its `variant` is not used: the reference
/// runs the specification's semantics).
pub fn run_sass_campaign(c: &Campaign, check: &SassCheck) -> SassSummary {
    let start = Instant::now();
    let at_warp = c.subgroup_sizes.contains(&WARP);
    let others = c.subgroup_sizes.iter().filter(|&&s| s != WARP).count() as u64;
    let next = AtomicU64::new(c.seeds.start);
    let runs = AtomicU64::new(0);
    let mismatches = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..c.jobs.max(1) {
            s.spawn(|| {
                while let Some(seed) = c.claim(&next) {
                    if !at_warp {
                        continue;
                    }
                    let program = generate(seed, c.config_of(seed));
                    match compare_sass(&program, &check.arches.of(seed), check) {
                        Ok(n) => {
                            runs.fetch_add(n as u64, Ordering::Relaxed);
                        }
                        Err(m) => mismatches.lock().expect("no worker panics").push((seed, m)),
                    }
                }
            });
        }
    });
    let mut mismatches = mismatches.into_inner().expect("no worker panics");
    mismatches.sort_by_key(|(seed, _)| *seed);
    let programs = c.seeds.clone().filter(|&s| c.takes(s)).count() as u64;
    SassSummary {
        engine: check.engine_name(),
        arches: check.arches.clone(),
        policies: check.policies.len(),
        programs: if at_warp { programs } else { 0 },
        runs: runs.into_inner(),
        skipped_sizes: programs * others,
        mismatches,
        elapsed: start.elapsed(),
    }
}
