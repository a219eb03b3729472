//! tangle's code against ptxas's on the same fuzz programs (issue 17): per program and SM,
//! the compile time, the registers, the static instructions and the simulated cycles of
//! tangle's back end ([`crate::sass`]) and of ptxas on the same program as CUDA
//! ([`crate::ptxas`]), one row each, and a summary (medians, geometric-mean ratios, worst
//! cases).
//!
//! What is measured (`docs/backend.md`, "Against ptxas"):
//!
//! - **tangle's compile time**: `tangle_backend::compile` from the program's structured IR
//!   module (the reconvergence lowering, selection, register allocation, scheduling,
//!   control codes) and the cubin writer, in this process, one compile at a time.
//! - **ptxas's compile time**: the wall-clock time of one `ptxas -O3 -arch=sm_XX` process
//!   on the PTX nvcc's front end emits for a batch of programs (`nvcc -ptx`), divided by
//!   the programs in the batch, one process at a time. It includes the process's start-up,
//!   amortised over the batch; [`CostReport::ptxas_startup`] is a ptxas call on an empty
//!   module, for scale.
//! - **registers**: the register count each cubin carries for the kernel (EIATTR_REGCOUNT,
//!   what `cuobjdump -res-usage` prints as `REG`).
//! - **instructions**: the kernel's code words (and, for ptxas's `__noinline__` helpers,
//!   their sections' words; tangle inlines calls) less `NOP`s and the closing `BRA` to
//!   itself.
//! - **cycles**: the SASS simulator's per-warp estimate (the stall counts each warp issued,
//!   scoreboard waits free; an unvalidated model) summed over the workgroup's warps, under
//!   one policy in hazard mode, only where both runs agree with the reference (ours byte
//!   for byte, ptxas's under the `ptxas` engine's judge).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tangle_reconverge::Scheme;
use tangle_sass::Arch;
use tangle_sched::Policy;
use tangle_sim::RunOutput;

use crate::ast::Program;
use crate::build::build_module;
use crate::campaign::Campaign;
use crate::cuda::{kernel_name, translation_unit};
use crate::generate::generate;
use crate::mask::simulate;
use crate::ptxas::{self, nvcc, options_of};
use crate::sass::{self, WARP};

mod summary;
pub use summary::{summarize, Metric, MetricSummary};

/// What the comparison runs.
#[derive(Clone, Debug)]
pub struct CostCheck {
    /// nvcc's path (its front end writes the PTX).
    pub nvcc: PathBuf,
    /// ptxas's path.
    pub ptxas: PathBuf,
    /// The SMs every program is compiled for.
    pub archs: Vec<Arch>,
    /// The simulator's policy for the cycle counts.
    pub policy: Policy,
    /// Programs per PTX module (one ptxas call per batch and SM).
    pub batch: usize,
}

/// One compiler's figures for one program on one SM.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Side {
    /// Compile time in microseconds (see the module's description for what is timed).
    pub micros: f64,
    /// The cubin's register count for the kernel.
    pub registers: u32,
    /// Static instructions (no `NOP`s, no closing `BRA` to itself).
    pub instructions: usize,
    /// Simulated cycles, when both compilers' runs agree with the reference.
    pub cycles: Option<u64>,
}

/// One program on one SM.
#[derive(Clone, Debug, PartialEq)]
pub struct CostRow {
    /// The seed.
    pub seed: u64,
    /// The nesting it was generated at.
    pub nesting: u32,
    /// The SM.
    pub arch: Arch,
    /// tangle's back end.
    pub tangle: Side,
    /// ptxas.
    pub ptxas: Side,
    /// `agree` when both runs agree with the reference (the cycles are counted), else why
    /// not (`tangle: ...`, `ptxas departs: ...`, `ptxas broken: ...`).
    pub status: String,
}

/// The columns of [`CostRow::tsv`], tab-separated.
pub const TSV_HEADER: &str = "seed\tnesting\tarch\ttangle_us\tptxas_us\ttangle_regs\tptxas_regs\t\
tangle_insts\tptxas_insts\ttangle_cycles\tptxas_cycles\tstatus";

impl CostRow {
    /// The row as tab-separated values in [`TSV_HEADER`]'s order (`-` for cycles not
    /// counted).
    pub fn tsv(&self) -> String {
        let c = |x: Option<u64>| x.map_or_else(|| "-".to_string(), |v| v.to_string());
        format!(
            "{}\t{}\t{}\t{:.1}\t{:.1}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            self.seed,
            self.nesting,
            self.arch,
            self.tangle.micros,
            self.ptxas.micros,
            self.tangle.registers,
            self.ptxas.registers,
            self.tangle.instructions,
            self.ptxas.instructions,
            c(self.tangle.cycles),
            c(self.ptxas.cycles),
            self.status.replace(['\t', '\n'], " "),
        )
    }
}

/// What the comparison found.
#[derive(Clone, Debug, Default)]
pub struct CostReport {
    /// One row per program and SM where both compilers produced a cubin.
    pub rows: Vec<CostRow>,
    /// Program × SM pairs with no row, and why (a refusal of either compiler, the
    /// reference failing).
    pub missing: Vec<(u64, Option<Arch>, String)>,
    /// ptxas's time on an empty module, per SM (its process start-up).
    pub ptxas_startup: Vec<(Arch, Duration)>,
    /// nvcc front-end calls and ptxas calls made.
    pub nvcc_calls: u64,
    /// ptxas calls made (one per batch and SM).
    pub ptxas_calls: u64,
    /// Wall-clock time of the whole comparison.
    pub elapsed: Duration,
}

/// A program's reference output: bytes and undefined bytes for ours, words for ptxas's.
struct Reference {
    bytes: Vec<u8>,
    wild: Option<Vec<bool>>,
    words: Vec<u32>,
}

fn reference_of(program: &Program) -> Result<Reference, String> {
    let module = build_module(program);
    let words = simulate(program, WARP).words.len();
    let (bytes, wild) = sass::reference_bytes(&module, words)?;
    Ok(Reference {
        words: ptxas::reference_words(program)?,
        bytes,
        wild,
    })
}

/// The cycles of a run: the per-warp estimates summed over the warps.
pub fn cycles_of(out: &RunOutput) -> u64 {
    out.cycles.iter().map(|w| w.cycles).sum()
}

/// The register count `cubin` carries for `kernel`: its EIATTR_REGCOUNT in `.nv.info`
/// (what `cuobjdump -res-usage` prints as `REG`), found by the function symbol its `.text`
/// section names in `sh_info`'s low 24 bits; the high 8 bits carry the same count below
/// SM90, and are the fallback.
pub fn registers_of(cubin: &[u8], kernel: &str) -> Result<u32, String> {
    use tangle_sass::cubin::eiattr::{FMT_SVAL, REGCOUNT};
    let sections = tangle_sass::cubin::sections(cubin).map_err(|e| e.to_string())?;
    let name = format!(".text.{kernel}");
    let text = sections
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| format!("no section {name} in the cubin"))?;
    let sym = text.info & 0xff_ffff;
    let word = |d: &[u8], at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(d.get(at..at + 4)?.try_into().ok()?))
    };
    for s in sections.iter().filter(|s| s.name == ".nv.info") {
        let d = &s.data;
        let mut at = 0;
        while at + 4 <= d.len() {
            let (fmt, attr) = (d[at], d[at + 1]);
            let field = u16::from_le_bytes([d[at + 2], d[at + 3]]) as usize;
            let value = at + 4;
            at = value + if fmt == FMT_SVAL { field } else { 0 };
            if fmt == FMT_SVAL && attr == REGCOUNT && word(d, value) == Some(sym) {
                return word(d, value + 4).ok_or_else(|| "a short EIATTR_REGCOUNT".into());
            }
        }
    }
    match text.info >> 24 {
        0 => Err(format!("no register count for {kernel} in the cubin")),
        n => Ok(n),
    }
}

/// Static instructions of `kernel` in `cubin` and of every function whose name holds
/// `kernel_helper` (ptxas's `__noinline__` helpers of the fuzz kernels): the words less
/// `NOP`s and a closing `BRA` to itself.
pub fn instructions_of(cubin: &[u8], kernel: &str) -> Result<usize, String> {
    let c = tangle_sass::cubin::read(cubin).map_err(|e| e.to_string())?;
    let arch = c
        .arch
        .ok_or_else(|| format!("sm_{}: not an SM tangle reads", c.sm))?;
    let helper = format!("{kernel}_helper");
    let mut found = false;
    let mut n = 0;
    for f in &c.functions {
        if f.name != kernel && !f.name.contains(&helper) {
            continue;
        }
        found |= f.name == kernel;
        let mut names: Vec<(u64, String)> = Vec::new();
        for (k, w) in f.words.iter().enumerate() {
            let addr = 16 * k as u64;
            let text = tangle_sass::decode(arch, *w, addr)
                .map(|i| i.as_text().to_string())
                .unwrap_or_default();
            names.push((addr, text));
        }
        let real: Vec<&(u64, String)> = names.iter().filter(|(_, t)| !is_nop(t)).collect();
        n += real.len();
        if let Some((addr, t)) = real.last() {
            if is_self_branch(t, *addr) {
                n -= 1;
            }
        }
    }
    if !found {
        return Err(format!("no function {kernel} in the cubin"));
    }
    Ok(n)
}

fn is_nop(text: &str) -> bool {
    text.trim_start().starts_with("NOP")
}

/// `BRA` to its own address (ptxas's closing loop), as the decoder prints it: an absolute
/// target or `` `(.L_x_N) `` is not printed for raw words, so the target is compared.
fn is_self_branch(text: &str, addr: u64) -> bool {
    let t = text.trim_start();
    t.starts_with("BRA ")
        && t.trim_end_matches([' ', ';'])
            .ends_with(&format!("{addr:#x}"))
}

/// Compiles `programs` with tangle's back end for `arch`, one at a time, timed; per
/// program the compiled kernel and its cubin, or the refusal.
#[allow(clippy::type_complexity)]
fn compile_ours(
    programs: &[(u64, Program)],
    arch: Arch,
) -> Vec<Result<(tangle_backend::Compiled, Vec<u8>, Duration), String>> {
    programs
        .iter()
        .map(|(_, p)| {
            let module = build_module(p);
            let start = Instant::now();
            let c = sass::compile_for(&module, arch, Scheme::Scopes).map_err(|e| e.to_string())?;
            let bytes = c.cubin().map_err(|e| e.to_string())?;
            let took = start.elapsed();
            Ok((c, bytes, took))
        })
        .collect()
}

/// One program on one SM: both cubins, the times, the runs.
#[allow(clippy::too_many_arguments)]
fn row_of(
    seed: u64,
    nesting: u32,
    program: &Program,
    reference: &Reference,
    ours: &(tangle_backend::Compiled, Vec<u8>, Duration),
    theirs: &[u8],
    ptxas_time: Duration,
    policy: Policy,
) -> Result<CostRow, String> {
    let (c, bytes, took) = ours;
    let name = kernel_name(seed);
    let mut tangle = Side {
        micros: took.as_secs_f64() * 1e6,
        registers: registers_of(bytes, &c.name)?,
        instructions: instructions_of(bytes, &c.name)?,
        cycles: None,
    };
    let mut them = Side {
        micros: ptxas_time.as_secs_f64() * 1e6,
        registers: registers_of(theirs, &name)?,
        instructions: instructions_of(theirs, &name)?,
        cycles: None,
    };
    let our_run = sass::load_compiled(c, reference.bytes.len())
        .and_then(|l| {
            sass::run_policy(
                &l,
                program,
                &reference.bytes,
                reference.wild.as_deref(),
                policy,
            )
        })
        .map_err(|m| format!("tangle: {}: {m}", m.kind()));
    let their_run = tangle_sim::load(theirs, &name)
        .map_err(|e| e.to_string())
        .and_then(|k| {
            let launch = ptxas::launch_of(program, reference.words.len());
            ptxas::run_judged(
                &k,
                &launch,
                program,
                &reference.words,
                policy,
                true,
                &mut None,
            )
        });
    let status = match (our_run, their_run) {
        (Err(m), _) => m,
        (_, Err(m)) => format!("ptxas broken: {m}"),
        (_, Ok((Some(d), _))) => format!(
            "ptxas departs: word {} (record {}, invocation {}): reference {:#x}, ptxas {:#x}",
            d.word, d.record, d.invocation, d.reference, d.got
        ),
        (Ok(a), Ok((None, b))) => {
            tangle.cycles = Some(cycles_of(&a));
            them.cycles = Some(cycles_of(&b));
            "agree".to_string()
        }
    };
    Ok(CostRow {
        seed,
        nesting,
        arch: c.arch,
        tangle,
        ptxas: them,
        status,
    })
}

/// Runs the comparison over the campaign's seeds (its shard and nesting levels; its
/// subgroup sizes and variant are not used: the warp, the specification). Compiles are
/// timed one at a time; the simulations run on the campaign's worker threads. `row` is
/// called with each row as it is made (for a file written as the run goes).
pub fn run_cost(
    c: &Campaign,
    check: &CostCheck,
    dir: &Path,
    mut row: impl FnMut(&CostRow),
) -> Result<CostReport, String> {
    let start = Instant::now();
    let mut report = CostReport::default();
    for &arch in &check.archs {
        let ptx = nvcc::ptx(&check.nvcc, crate::cuda::PRELUDE, arch, dir, "empty")?;
        report.nvcc_calls += 1;
        let (_, took) = nvcc::ptxas(&check.ptxas, &ptx, arch)?;
        report.ptxas_startup.push((arch, took));
    }
    let seeds: Vec<u64> = c.seeds.clone().filter(|&s| c.takes(s)).collect();
    for (b, chunk) in seeds.chunks(check.batch.max(1)).enumerate() {
        let all: Vec<(u64, Program)> = chunk
            .iter()
            .map(|&s| (s, generate(s, c.config_of(s))))
            .collect();
        let mut programs = Vec::new();
        let mut references = Vec::new();
        for (s, p) in all {
            match reference_of(&p) {
                Ok(r) => {
                    programs.push((s, p));
                    references.push(r);
                }
                Err(e) => report
                    .missing
                    .push((s, None, format!("the reference failed: {e}"))),
            }
        }
        if programs.is_empty() {
            continue;
        }
        let source = translation_unit(programs.iter().map(|(s, p)| (*s, p, options_of(*s))));
        for &arch in &check.archs {
            let stem = format!("cost{b}");
            let ptx = nvcc::ptx(&check.nvcc, &source, arch, dir, &stem)?;
            report.nvcc_calls += 1;
            let (cubin, took) = nvcc::ptxas(&check.ptxas, &ptx, arch)?;
            report.ptxas_calls += 1;
            let per_kernel = took / programs.len() as u32;
            let ours = compile_ours(&programs, arch);
            let next = AtomicUsize::new(0);
            let made = Mutex::new(Vec::new());
            std::thread::scope(|s| {
                for _ in 0..c.jobs.max(1) {
                    s.spawn(|| loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        if k >= programs.len() {
                            break;
                        }
                        let (seed, program) = &programs[k];
                        let r = match &ours[k] {
                            Err(e) => Err(format!("tangle refused it: {e}")),
                            Ok(o) => row_of(
                                *seed,
                                c.config_of(*seed).nesting,
                                program,
                                &references[k],
                                o,
                                &cubin,
                                per_kernel,
                                check.policy,
                            ),
                        };
                        made.lock().expect("no worker panics").push((k, r));
                    });
                }
            });
            let mut made = made.into_inner().expect("no worker panics");
            made.sort_by_key(|(k, _)| *k);
            for (k, r) in made {
                match r {
                    Ok(r) => {
                        row(&r);
                        report.rows.push(r);
                    }
                    Err(e) => report.missing.push((programs[k].0, Some(arch), e)),
                }
            }
        }
    }
    report.elapsed = start.elapsed();
    Ok(report)
}
