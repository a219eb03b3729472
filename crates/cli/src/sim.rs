//! `tangle sim`: runs a kernel of a cubin (or SASS text, or raw words) on the SASS warp
//! simulator (`tangle-sim`) under one or more scheduling policies.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use tangle_sass::{cubin, Arch};
use tangle_sim::{engine, Arg, BarrierModel, Dim3, Kernel, Launch, Options, SimError};

/// The arguments of `tangle sim`.
#[derive(Args, Debug)]
pub struct SimArgs {
    /// A cubin, SASS text (as `tangle asm` reads it) or raw 128-bit words.
    pub input: PathBuf,
    /// The kernel to run (its mangled name, or the plain name of a C++ kernel).
    #[arg(long)]
    pub kernel: Option<String>,
    /// Blocks in the grid: X[,Y[,Z]].
    #[arg(long, default_value = "1")]
    pub grid: String,
    /// Threads in a block: X[,Y[,Z]].
    #[arg(long, default_value = "32")]
    pub block: String,
    /// Dynamic shared memory in bytes.
    #[arg(long, default_value_t = 0)]
    pub shared: u32,
    /// An argument, in parameter order: u32:N, i32:N, u64:N, f32:X, buf:FILE, buf:zero:BYTES.
    #[arg(long = "arg", value_name = "VALUE")]
    pub args: Vec<String>,
    /// Write each buffer argument back as DIR/argK.bin (K its position, from 0), from the
    /// first policy's run.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print each issued instruction: block, warp, pc, active mask and text.
    #[arg(long)]
    pub trace: bool,
    /// Check every issue against the latency tables (a register read too early, a missing
    /// scoreboard wait) and print a cycle estimate per warp (an unvalidated model); exit 1
    /// on a hazard.
    #[arg(long)]
    pub hazards: bool,
    /// Scheduling policy: round-robin, adversarial, random:SEED, realistic, exhaustive (a
    /// search over every schedule, bounded), or all (several joined by commas).
    #[arg(long, default_value = "round-robin")]
    pub policy: String,
    /// The convergence-barrier rule: per-lane (the model), or a rejected rule: per-warp,
    /// not-in-own-copy, blocked-anywhere.
    #[arg(long, default_value = "per-lane")]
    pub barrier_model: String,
    /// The most instructions the launch may issue before the run counts as a livelock.
    #[arg(long, default_value_t = 10_000_000)]
    pub max_steps: u64,
    /// The architecture of SASS text or raw words (a cubin says its own).
    #[arg(long)]
    pub arch: Option<String>,
    /// The parameter sizes in bytes of SASS text or raw words, comma-separated (e.g. 8,4);
    /// laid out in order, each aligned to its size, from the SM's parameter base.
    #[arg(long, value_delimiter = ',')]
    pub params: Vec<u32>,
    /// Run the cubin on this machine's GPU through the CUDA driver instead of the
    /// simulator (the same launch; `--out` writes the GPU's buffers). Exit 2 when there is
    /// no driver or GPU, or the cubin is not for the GPU's SM.
    #[arg(long)]
    pub gpu: bool,
    /// With `--gpu`: also run the simulator under `--policy` and report which schedules
    /// end with the GPU's buffers; exit 1 when none does.
    #[arg(long)]
    pub against_sim: bool,
    /// With `--gpu`: seconds to wait for the kernel before reporting a hang.
    #[arg(long, default_value_t = 10)]
    pub gpu_timeout: u64,
}

fn dim(s: &str, what: &str) -> Result<Dim3, String> {
    let v: Vec<u32> = s
        .split(',')
        .map(|p| p.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("--{what} {s}: expected X[,Y[,Z]] with positive integers"))?;
    match v.as_slice() {
        [x] => Ok(Dim3::new(*x, 1, 1)),
        [x, y] => Ok(Dim3::new(*x, *y, 1)),
        [x, y, z] => Ok(Dim3::new(*x, *y, *z)),
        _ => Err(format!("--{what} {s}: expected one to three numbers")),
    }
}

/// Reads one `--arg` value.
pub fn parse_arg(s: &str) -> Result<Arg, String> {
    let bad =
        || format!("--arg {s}: expected u32:N, i32:N, u64:N, f32:X, buf:FILE or buf:zero:BYTES");
    let (kind, v) = s.split_once(':').ok_or_else(bad)?;
    let int = |v: &str| -> Option<u64> {
        match v.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).ok(),
            None => v.parse().ok(),
        }
    };
    Ok(match kind {
        "u32" => Arg::U32(int(v).and_then(|x| u32::try_from(x).ok()).ok_or_else(bad)?),
        "i32" => Arg::I32(v.parse().map_err(|_| bad())?),
        "u64" => Arg::U64(int(v).ok_or_else(bad)?),
        "f32" => Arg::F32(v.parse().map_err(|_| bad())?),
        "buf" => match v.strip_prefix("zero:") {
            Some(n) => Arg::Buffer(vec![0; int(n).ok_or_else(bad)? as usize]),
            None => Arg::Buffer(
                std::fs::read(v).map_err(|e| format!("--arg {s}: cannot read {v}: {e}"))?,
            ),
        },
        _ => return Err(bad()),
    })
}

fn load_kernel(a: &SimArgs) -> Result<Kernel, String> {
    let bytes =
        std::fs::read(&a.input).map_err(|e| format!("cannot read {}: {e}", a.input.display()))?;
    if cubin::is_elf(&bytes) {
        let name = match &a.kernel {
            Some(n) => n.clone(),
            None => {
                let names = tangle_sim::kernel::kernel_names(&bytes).map_err(|e| e.to_string())?;
                match names.as_slice() {
                    [one] => one.clone(),
                    _ => {
                        return Err(format!(
                            "--kernel NAME is needed (kernels: {})",
                            names.join(", ")
                        ))
                    }
                }
            }
        };
        return tangle_sim::load(&bytes, &name).map_err(|e| e.to_string());
    }
    let arch: Arch = a
        .arch
        .as_deref()
        .ok_or("SASS text and raw words need --arch sm_XX")?
        .parse()
        .map_err(|e: tangle_sass::SassError| e.to_string())?;
    let words = match std::str::from_utf8(&bytes) {
        Ok(text) if !text.contains('\0') => {
            tangle_sass::assemble(arch, text).map_err(|e| format!("{}: {e}", a.input.display()))?
        }
        _ => tangle_sass::words_from_bytes(&bytes)
            .map_err(|e| format!("{}: {e}", a.input.display()))?,
    };
    let name = a.kernel.clone().unwrap_or_else(|| "kernel".into());
    Ok(Kernel::from_words(arch, &name, &words, &a.params))
}

fn setup(a: &SimArgs) -> Result<(Kernel, Launch, Vec<Options>), String> {
    let kernel = load_kernel(a)?;
    let launch = Launch {
        grid: dim(&a.grid, "grid")?,
        block: dim(&a.block, "block")?,
        dynamic_shared: a.shared,
        args: a
            .args
            .iter()
            .map(|s| parse_arg(s))
            .collect::<Result<_, _>>()?,
    };
    let model = BarrierModel::from_name(&a.barrier_model).ok_or_else(|| {
        format!(
            "--barrier-model {}: expected one of {}",
            a.barrier_model,
            BarrierModel::ALL.map(BarrierModel::name).join(", ")
        )
    })?;
    let policies = tangle_sched::expand(&a.policy, "SASS simulator", &engine::SUPPORTED)
        .map_err(|e| e.to_string())?;
    let opts = policies
        .into_iter()
        .map(|p| Options {
            policy: p,
            model,
            step_budget: a.max_steps,
            trace: a.trace,
            hazards: a.hazards,
        })
        .collect();
    Ok((kernel, launch, opts))
}

/// Runs `tangle sim`. Exit 0 when every policy's run finishes, 1 on a deadlock, livelock,
/// fault or unsupported instruction, 2 on bad input.
pub fn run(a: &SimArgs) -> ExitCode {
    if a.gpu {
        return run_on_gpu(a);
    }
    let (kernel, launch, opts) = match setup(a) {
        Ok(s) => s,
        Err(e) => return crate::fail(e),
    };
    let mut failed = false;
    let mut first: Option<Vec<Option<Vec<u8>>>> = None;
    for o in &opts {
        if o.policy == tangle_sched::Policy::Exhaustive {
            match tangle_sim::explore(
                &kernel,
                &launch,
                o,
                tangle_sched::ExhaustiveBound::default(),
            ) {
                Ok(x) => {
                    println!(
                        "exhaustive: {} schedules, {} distinct outcome(s){}",
                        x.runs,
                        x.outcomes.len(),
                        if x.cut_off {
                            ", cut off by the bound (not complete)"
                        } else {
                            ""
                        }
                    );
                    if x.cut_off {
                        failed = true;
                    }
                    if first.is_none() {
                        first = x.outcomes.first().map(|(b, _)| b.clone());
                    }
                }
                Err(e) if e.is_bad_input() => return crate::fail(e.to_string()),
                Err(e) => {
                    failed = true;
                    println!("exhaustive: {e}");
                }
            }
            continue;
        }
        match tangle_sim::run(&kernel, &launch, o) {
            Ok(out) => {
                for line in &out.trace {
                    println!("{line}");
                }
                println!("{}: ok, {} warp-instructions", o.policy, out.steps);
                if o.hazards {
                    for h in &out.hazards {
                        println!("{}: hazard: {}: {}", o.policy, h.site, h.what);
                    }
                    if out.hazards_total > 0 {
                        failed = true;
                        println!("{}: {} hazard(s)", o.policy, out.hazards_total);
                    }
                    for c in &out.cycles {
                        println!(
                            "{}: block ({},{},{}) warp {}: about {} cycles (an unvalidated model)",
                            o.policy, c.block[0], c.block[1], c.block[2], c.warp, c.cycles
                        );
                    }
                }
                match &first {
                    None => first = Some(out.buffers),
                    Some(f) if *f != out.buffers => {
                        println!("{}: buffers differ from the first policy's run", o.policy)
                    }
                    Some(_) => {}
                }
            }
            Err(e) if e.is_bad_input() => return crate::fail(e.to_string()),
            Err(e) => {
                failed = true;
                println!("{}: {}", o.policy, describe(&e));
            }
        }
    }
    if let (Some(dir), Some(bufs)) = (&a.out, &first) {
        if let Err(e) = write_buffers(dir, bufs) {
            return crate::fail(e);
        }
    }
    if failed {
        ExitCode::from(crate::EXIT_INVALID)
    } else {
        ExitCode::SUCCESS
    }
}

/// `tangle sim --gpu`: the same kernel and launch on the GPU through the CUDA driver.
/// Exit 0 when it finishes, 1 on a fault or a hang, 2 on bad input or no GPU.
fn run_on_gpu(a: &SimArgs) -> ExitCode {
    let (kernel, launch, opts) = match setup(a) {
        Ok(s) => s,
        Err(e) => return crate::fail(e),
    };
    let bytes = match std::fs::read(&a.input) {
        Ok(b) if cubin::is_elf(&b) => b,
        Ok(_) => {
            return crate::fail(
                "--gpu runs cubins only (write one with `tangle asm --kernel`)".into(),
            )
        }
        Err(e) => return crate::fail(format!("cannot read {}: {e}", a.input.display())),
    };
    // The arguments are checked against the parameters as the simulator checks them.
    if let Err(e) = launch.constant_bank0(&kernel) {
        return crate::fail(e.to_string());
    }
    let gpu = match tangle_cuda::Gpu::open() {
        Ok(g) => g,
        Err(e) => return crate::fail(e.to_string()),
    };
    if gpu.sm() != kernel.arch.to_string() {
        return crate::fail(format!(
            "the cubin is for {} but the GPU ({}) is {}",
            kernel.arch,
            gpu.name(),
            gpu.sm()
        ));
    }
    let limit = std::time::Duration::from_secs(a.gpu_timeout);
    let run = match gpu.run(&bytes, &kernel.name, &launch, limit) {
        Ok(run) => run,
        Err(e) => {
            println!("gpu ({}, {}): {e}", gpu.name(), gpu.sm());
            if matches!(e, tangle_cuda::GpuError::Timeout(_)) {
                // The kernel still holds the GPU; leave at once so the driver tears it down.
                std::process::exit(crate::EXIT_INVALID as i32);
            }
            return ExitCode::from(crate::EXIT_INVALID);
        }
    };
    println!(
        "gpu ({}, {}): ok, {:.3} ms from launch to completion",
        gpu.name(),
        gpu.sm(),
        run.elapsed.as_secs_f64() * 1e3
    );
    if let Some(dir) = &a.out {
        if let Err(e) = write_buffers(dir, &run.buffers) {
            return crate::fail(e);
        }
    }
    if !a.against_sim {
        return ExitCode::SUCCESS;
    }
    // Which of the simulator's schedules end as the GPU did.
    let mut matched = Vec::new();
    let mut complete = false;
    for o in &opts {
        if o.policy == tangle_sched::Policy::Exhaustive {
            match tangle_sim::explore(
                &kernel,
                &launch,
                o,
                tangle_sched::ExhaustiveBound::default(),
            ) {
                Ok(x) => {
                    let hit = x.outcomes.iter().any(|(b, _)| *b == run.buffers);
                    println!(
                        "exhaustive: {} schedules, {} distinct outcome(s){}; the GPU's is {}",
                        x.runs,
                        x.outcomes.len(),
                        if x.cut_off {
                            " (cut off by the bound)"
                        } else {
                            ""
                        },
                        if hit { "among them" } else { "not among them" }
                    );
                    complete |= !x.cut_off;
                    if hit {
                        matched.push(o.policy.to_string());
                    }
                }
                Err(e) => println!("exhaustive: {}", describe(&e)),
            }
            continue;
        }
        match tangle_sim::run(&kernel, &launch, o) {
            Ok(out) if out.buffers == run.buffers => matched.push(o.policy.to_string()),
            Ok(_) => {}
            Err(e) => println!("{}: {}", o.policy, describe(&e)),
        }
    }
    if matched.is_empty() {
        println!(
            "the GPU's buffers match no simulated schedule{}",
            if complete {
                " (the exhaustive search was complete: the model does not allow what the GPU did)"
            } else {
                ""
            }
        );
        ExitCode::from(crate::EXIT_INVALID)
    } else {
        println!(
            "the GPU's buffers equal the simulator's under: {}",
            matched.join(", ")
        );
        ExitCode::SUCCESS
    }
}

fn describe(e: &SimError) -> String {
    e.to_string()
}

fn write_buffers(dir: &Path, bufs: &[Option<Vec<u8>>]) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (k, b) in bufs.iter().enumerate() {
        if let Some(b) = b {
            let p = dir.join(format!("arg{k}.bin"));
            std::fs::write(&p, b).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
        }
    }
    Ok(())
}
