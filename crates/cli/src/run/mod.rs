//! `tangle run`: AmberScript files, or one shader with buffers from the command line, on the
//! reference interpreter.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use tangle_interp::{Config, FallthroughPolicy, SchedulePolicy, SwitchPolicy, Variant};
use tangle_reconverge::Scheme;
use tangle_run::lowered::{LoweredEngine, MachineEngine};
use tangle_run::sass::SassEngine;
use tangle_run::{Device, Event, ScriptOptions};
use tangle_sass::Arch;

use crate::input::{self, InputKind};

mod shader;
use crate::{EXIT_INVALID, EXIT_USAGE};
use shader::{shader, trace_line};

/// What `tangle run` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RunKind {
    /// An AmberScript file (`.amber`).
    Amber,
    /// A SPIR-V binary module (`.spv`).
    Spv,
    /// SPIR-V assembly (`.spvasm`).
    Spvasm,
    /// A GLSL compute shader (`.comp`, `.glsl`).
    Glsl,
    /// tangle IR text (`.tir`).
    Ir,
}

/// How buffers are written in shader mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutFormat {
    /// A hex dump per binding, 16 bytes a line.
    Hex,
    /// One JSON object: dispatch facts, every binding's bytes in hex, the trace if asked.
    Json,
}

/// The interpreter's semantics: the specification, or a known-wrong model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Semantics {
    /// SPV_KHR_maximal_reconvergence.
    Maximal,
    /// Known wrong: lanes are not rejoined at a loop's continue target.
    NoContinueReconvergence,
    /// Known wrong: no reconvergence after a function call.
    NoCallReconvergence,
    /// Known wrong: a loop's break block runs once for all iterations together.
    BreakNotSplitByIteration,
    /// Known wrong: an atomic's returned value is taken as ordered where other
    /// invocations' atomics race on its location.
    ReturnedValuesOrdered,
    /// Known wrong: no order-dependent values at all (the reference's order of racing
    /// atomics taken as the only one).
    NoOrderDependence,
}

impl Semantics {
    /// The interpreter's variant of these semantics.
    pub fn variant(self) -> Variant {
        match self {
            Semantics::Maximal => Variant::Maximal,
            Semantics::NoContinueReconvergence => Variant::NoContinueReconvergence,
            Semantics::NoCallReconvergence => Variant::NoCallReconvergence,
            Semantics::BreakNotSplitByIteration => Variant::BreakNotSplitByIteration,
            Semantics::ReturnedValuesOrdered => Variant::ReturnedValuesOrdered,
            Semantics::NoOrderDependence => Variant::NoOrderDependence,
        }
    }
}

/// `switch` partition policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SwitchArg {
    /// One tangle per target block.
    ByTarget,
    /// One tangle per selector value.
    BySelector,
}

/// `switch` fallthrough policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FallthroughArg {
    /// Fallthrough lanes run the next case on their own.
    Independent,
    /// Fallthrough lanes and direct lanes run the next case together.
    Merge,
}

/// Interpreter settings shared by both modes.
#[derive(Args, Debug)]
pub struct EngineArgs {
    /// Order in which diverged tangles run: lowest-lane, newest, or random:SEED.
    #[arg(long, default_value = "lowest-lane")]
    schedule: String,
    /// How `switch` partitions a tangle (implementation-defined).
    #[arg(long, value_enum, default_value = "by-target")]
    switch_policy: SwitchArg,
    /// What happens at switch fallthrough (implementation-defined).
    #[arg(long, value_enum, default_value = "independent")]
    fallthrough: FallthroughArg,
    /// The most tangle-instructions a dispatch may execute.
    #[arg(long, default_value_t = 10_000_000)]
    step_budget: u64,
    /// The semantics to run (the known-wrong ones exist to show that checks catch them).
    #[arg(long, value_enum, default_value = "maximal")]
    semantics: Semantics,
    /// Stop at the first instruction that produces an undefined value (a division by zero,
    /// a shuffle from an inactive lane, ...), instead of only when one is observed.
    #[arg(long)]
    strict_undefined: bool,
}

impl EngineArgs {
    fn config(&self) -> Result<Config, String> {
        let schedule_policy = match self.schedule.as_str() {
            "lowest-lane" => SchedulePolicy::LowestLaneFirst,
            "newest" => SchedulePolicy::NewestFirst,
            other => match other.strip_prefix("random:").map(str::parse::<u64>) {
                Some(Ok(seed)) => SchedulePolicy::Random(seed),
                _ => {
                    return Err(format!(
                        "--schedule {other:?}: expected lowest-lane, newest or random:SEED"
                    ))
                }
            },
        };
        Ok(Config {
            schedule_policy,
            switch_policy: match self.switch_policy {
                SwitchArg::ByTarget => SwitchPolicy::ByTarget,
                SwitchArg::BySelector => SwitchPolicy::BySelector,
            },
            fallthrough_policy: match self.fallthrough {
                FallthroughArg::Independent => FallthroughPolicy::Independent,
                FallthroughArg::Merge => FallthroughPolicy::Merge,
            },
            step_budget: self.step_budget,
            variant: self.semantics.variant(),
            record_trace: false,
            strict_undefined: self.strict_undefined,
            ..Config::default()
        })
    }
}

/// `tangle run`'s arguments.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// AmberScript files (.amber) or directories (every .amber inside, recursively, in name
    /// order), or one shader (.spv, .spvasm, .comp/.glsl, .tir; - for stdin).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// The inputs' form, when the file names do not say it.
    #[arg(long, value_enum)]
    kind: Option<RunKind>,
    /// Target environment for GLSL and SPIR-V assembly (shaders without TARGET_ENV in scripts).
    #[arg(long, default_value = "vulkan1.1")]
    target_env: String,
    /// Subgroup size: the device's default for scripts (REQUIRED_SIZE still wins), the size
    /// for a shader. A power of two in 1..=128; 32 unless given.
    #[arg(long)]
    subgroup_size: Option<u32>,
    /// Print a line for every RUN (scripts).
    #[arg(short, long)]
    verbose: bool,
    /// Shader mode: the entry point.
    #[arg(long, default_value = "main")]
    entry: String,
    /// Shader mode: a buffer at SET:BINDING, from a file or zero-filled bytes of a size
    /// (a number; write ./N for a file named N). Repeatable.
    #[arg(long = "buffer", value_name = "SET:BINDING=FILE|SIZE")]
    buffers: Vec<String>,
    /// Shader mode: the push-constant bytes.
    #[arg(long, value_name = "FILE")]
    push_constants: Option<PathBuf>,
    /// Shader mode: a specialization constant, typed by the module. Repeatable.
    #[arg(long = "spec", value_name = "ID=VALUE")]
    specs: Vec<String>,
    /// Shader mode: workgroups dispatched.
    #[arg(long, default_value = "1,1,1", value_name = "X,Y,Z")]
    workgroups: String,
    /// Shader mode: how to write the buffers.
    #[arg(long, value_enum, default_value = "hex")]
    format: OutFormat,
    /// Also write the trace: the lane mask of every dynamic subgroup operation (for scripts,
    /// after each RUN's line).
    #[arg(long)]
    trace: bool,
    /// Shader mode: write to this file instead of stdout.
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    engine: EngineArgs,
    /// The engine: `reference` (the interpreter), `lowered`: each dispatch also lowered to
    /// convergence barriers and run on the barrier machine under every `--policy`, which
    /// must leave the interpreter's buffers, or `tokens`: each dispatch also run with
    /// inferred convergence-control tokens on the token engine under every `--policy`.
    #[arg(long = "engine", value_enum, default_value = "reference")]
    engine_kind: EngineKind,
    /// `--engine lowered`: the scheduling policies, a name, several joined by commas, or
    /// `all`.
    #[arg(long, default_value = "all")]
    policy: String,
    /// `--engine lowered`: the lowering's barrier placement (scopes, baseline,
    /// every-divergent, nak).
    #[arg(long, default_value = "scopes")]
    lowering: String,
    /// `--engine lowered`: print the barrier operations each policy issued (set, sync,
    /// break, exit; per warp).
    #[arg(long)]
    stats: bool,
    /// `--engine sass`: the SMs to compile for (sm_75, sm_80, sm_86, sm_89, sm_90, several
    /// joined by commas, or all).
    #[arg(long, default_value = "sm_86")]
    arch: String,
}

/// Which engine `tangle run` checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineKind {
    /// The reference interpreter alone.
    Reference,
    /// The reference, then the lowered module on the barrier machine against it.
    Lowered,
    /// The reference, then the shader compiled to SASS and run on the SASS simulator (in
    /// hazard mode) against it.
    Sass,
    /// The reference (with `--fallthrough merge`), then the module with inferred tokens and
    /// its structure dropped on the token engine against it.
    Tokens,
    /// The reference, then the shader compiled for this machine's GPU and run on it
    /// through the CUDA driver against it (exit 2 when there is no GPU).
    Gpu,
}

impl RunArgs {
    /// The barrier-machine engine asked for (the lowered program or the token engine), if
    /// any.
    fn lowered(&self) -> Result<Option<LoweredEngine>, String> {
        if !matches!(self.engine_kind, EngineKind::Lowered | EngineKind::Tokens) {
            return Ok(None);
        }
        let scheme = Scheme::from_name(&self.lowering).ok_or_else(|| {
            format!(
                "--lowering {:?}: expected one of {}",
                self.lowering,
                Scheme::ALL.map(|s| s.name()).join(", ")
            )
        })?;
        let policies = tangle_sched::expand(
            &self.policy,
            "barrier machine",
            &tangle_machine::SUPPORTED_POLICIES,
        )
        .map_err(|e| format!("--policy: {e}"))?;
        let engine = match self.engine_kind {
            EngineKind::Tokens => MachineEngine::Tokens,
            _ => MachineEngine::Lowered(scheme),
        };
        Ok(Some(LoweredEngine { engine, policies }))
    }

    /// The SASS engine asked for, if any.
    fn sass(&self) -> Result<Option<SassEngine>, String> {
        if self.engine_kind == EngineKind::Gpu {
            let scheme = Scheme::from_name(&self.lowering)
                .ok_or_else(|| format!("--lowering {:?}: unknown", self.lowering))?;
            let gpu = tangle_cuda::Gpu::open().map_err(|e| format!("--engine gpu: {e}"))?;
            let arch = gpu.sm().parse::<Arch>().map_err(|_| {
                format!(
                    "--engine gpu: the GPU ({}) is {}; the back end compiles for SM75-SM90",
                    gpu.name(),
                    gpu.sm()
                )
            })?;
            return Ok(Some(SassEngine {
                gpu: Some(std::rc::Rc::new(gpu)),
                ..SassEngine::new(vec![arch], scheme, Vec::new())
            }));
        }
        if self.engine_kind != EngineKind::Sass {
            return Ok(None);
        }
        let scheme = Scheme::from_name(&self.lowering)
            .ok_or_else(|| format!("--lowering {:?}: unknown", self.lowering))?;
        let policies = tangle_sched::expand(&self.policy, "SASS simulator", &tangle_sim::SUPPORTED)
            .map_err(|e| format!("--policy: {e}"))?;
        let arches = if self.arch == "all" {
            Arch::ALL.to_vec()
        } else {
            self.arch
                .split(',')
                .map(|a| a.parse::<Arch>().map_err(|e| format!("--arch: {e}")))
                .collect::<Result<Vec<_>, _>>()?
        };
        Ok(Some(SassEngine::new(arches, scheme, policies)))
    }
}

/// Runs `tangle run`.
pub fn run(args: &RunArgs) -> ExitCode {
    let mut engine = match args.engine.config() {
        Ok(c) => c,
        Err(e) => return usage(e),
    };
    // Built once: `--engine gpu` opens the GPU here, and a failure to is the run's error,
    // never a silently skipped check.
    let sass = match args.sass() {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    // The token semantics runs lanes falling through into a switch case with the lanes
    // that switched to it directly: the reference is held to that grouping.
    if args.engine_kind == EngineKind::Tokens {
        engine.fallthrough_policy = FallthroughPolicy::Merge;
    }
    if let Err(e) = args.lowered() {
        return usage(e);
    }
    let device = match args.subgroup_size {
        Some(n) => match Device::with_default_subgroup_size(n) {
            Ok(d) => d,
            Err(e) => return usage(format!("--subgroup-size: {e}")),
        },
        None => Device::default(),
    };
    let inputs = match expand_directories(&args.inputs) {
        Ok(v) => v,
        Err(e) => return usage(e),
    };
    let kinds: Vec<Option<RunKind>> = inputs
        .iter()
        .map(|p| args.kind.or_else(|| kind_of(p)))
        .collect();
    if kinds.iter().all(|k| *k == Some(RunKind::Amber)) {
        return scripts(args, &inputs, device, engine, sass.as_ref());
    }
    if args.inputs.len() != 1 || inputs.len() != 1 {
        return usage("several inputs are only allowed for .amber scripts".into());
    }
    match kinds[0] {
        Some(kind) => shader(args, kind, device, engine),
        None => usage(format!(
            "cannot tell the input kind of {}: use --kind amber|spv|spvasm|glsl|ir",
            args.inputs[0].display()
        )),
    }
}

/// The inputs with every directory replaced by the `.amber` files under it (recursively,
/// sorted by path); a directory without any is an error.
fn expand_directories(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
        let entries =
            std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry
                .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
                .path();
            if path.is_dir() {
                walk(&path, out)?;
            } else if path.extension().is_some_and(|e| e == "amber") {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut found = Vec::new();
            walk(input, &mut found)?;
            if found.is_empty() {
                return Err(format!("{} holds no .amber file", input.display()));
            }
            found.sort();
            out.extend(found);
        } else {
            out.push(input.clone());
        }
    }
    Ok(out)
}

fn usage(msg: String) -> ExitCode {
    eprintln!("tangle run: {msg}");
    ExitCode::from(EXIT_USAGE)
}

fn kind_of(path: &Path) -> Option<RunKind> {
    if path.extension().and_then(|e| e.to_str()) == Some("amber") {
        return Some(RunKind::Amber);
    }
    Some(match InputKind::from_path(path)? {
        InputKind::Spv => RunKind::Spv,
        InputKind::Spvasm => RunKind::Spvasm,
        InputKind::Glsl => RunKind::Glsl,
        InputKind::Ir => RunKind::Ir,
        // LLVM IR has no entry points or buffers to run.
        InputKind::Ll => return None,
    })
}

/// Script mode: each script runs on its own; the exit status is the worst of them.
fn scripts(
    args: &RunArgs,
    inputs: &[PathBuf],
    device: Device,
    engine: Config,
    sass: Option<&SassEngine>,
) -> ExitCode {
    let shader_only = !args.buffers.is_empty()
        || args.push_constants.is_some()
        || !args.specs.is_empty()
        || args.workgroups != "1,1,1"
        || args.output.is_some()
        || args.format != OutFormat::Hex
        || args.entry != "main";
    if shader_only {
        return usage(
            "--buffer, --push-constants, --spec, --workgroups, --entry, --format and -o apply \
             to a shader, not to .amber scripts"
                .into(),
        );
    }
    // Per exit status: 0 pass, 1 fail, 2 refused (could not be read, parsed or run).
    let mut counts = [0usize; 3];
    let mut worst = 0u8;
    for path in inputs {
        let status = script(path, args, &device, &engine, sass);
        counts[usize::from(status.min(2))] += 1;
        worst = worst.max(status);
    }
    if inputs.len() > 1 {
        println!(
            "Summary: {} pass, {} fail, {} refused",
            counts[0], counts[1], counts[2]
        );
    }
    ExitCode::from(worst)
}

/// Runs one script, prints its failures and a result line, and returns its exit status.
fn script(
    path: &Path,
    args: &RunArgs,
    device: &Device,
    engine: &Config,
    sass: Option<&SassEngine>,
) -> u8 {
    let name = path.display();
    let text = match input::read_input(path).map(String::from_utf8) {
        Ok(Ok(t)) => t,
        Ok(Err(_)) => {
            eprintln!("{name}: the script is not UTF-8 text");
            return EXIT_USAGE;
        }
        Err(e) => {
            eprintln!("{e}");
            return EXIT_USAGE;
        }
    };
    let parsed = match tangle_amber::parse(&text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{name}:{e}");
            return EXIT_USAGE;
        }
    };
    let options = ScriptOptions {
        device: device.clone(),
        engine: Config {
            record_trace: args.trace,
            ..engine.clone()
        },
        target_env: args.target_env.clone(),
        base_dir: tangle_run::script::script_dir(path),
        lowered: args.lowered().ok().flatten(),
        sass: sass.cloned(),
    };
    let report = match tangle_run::run_script(&parsed, &options) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{name}:{e}");
            return e.exit_code();
        }
    };
    for event in &report.events {
        match event {
            Event::Ran {
                pos,
                pipeline,
                groups: [x, y, z],
                local_size: [lx, ly, lz],
                subgroup_size,
                lane_steps,
                trace,
                order_dependent,
                ..
            } if args.verbose || args.trace => {
                println!(
                    "{name}: Line {}: RUN {pipeline} {x} {y} {z}: workgroup {lx}x{ly}x{lz}, \
                     subgroup size {subgroup_size}, {lane_steps} lane-instructions",
                    pos.line
                );
                for (set, binding) in order_dependent {
                    println!(
                        "{name}: Line {}: RUN {pipeline}: set {set} binding {binding} has \
                         order-dependent bytes (racing atomics; wildcards for the engines)",
                        pos.line
                    );
                }
                for t in trace {
                    println!("{}", trace_line(t));
                }
            }
            Event::RunFailed {
                pos,
                pipeline,
                error,
                origin,
            } => eprintln!(
                "{name}: Line {}: RUN {pipeline} failed: {}",
                pos.line,
                tangle_run::run_error_message(error, origin.as_ref())
            ),
            Event::Failed(failure) => eprintln!("{name}: {failure}"),
            Event::UndefinedBranch {
                pos,
                side,
                other_passed,
            } => println!(
                "{name}: Line {}: RUN branches on an undefined condition; the script ran with \
                 every such lane taking each side: below, the {side} side{}",
                pos.line,
                match (report.passed(), other_passed) {
                    (true, true) => " (the other side passed too)",
                    (false, true) => " (the other side passed)",
                    (false, false) => " (the other side failed too)",
                    (true, false) => "",
                }
            ),
            Event::LoweredAgreed {
                pos,
                pipeline,
                stats,
            } if args.verbose || args.stats => {
                let engine = match args.engine_kind {
                    EngineKind::Tokens => "tokens".to_string(),
                    _ => format!("lowered ({})", args.lowering),
                };
                println!(
                    "{name}: Line {}: RUN {pipeline}: {engine}: {} policies agree with the \
                     reference",
                    pos.line,
                    stats.len()
                );
                if args.stats {
                    for line in tangle_run::lowered::stats_lines(stats) {
                        println!("  {line}");
                    }
                }
            }
            Event::LoweredDiffers {
                pos,
                pipeline,
                mismatch,
            } => eprintln!("{name}: Line {}: RUN {pipeline}: {mismatch}", pos.line),
            Event::SassAgreed {
                pos,
                pipeline,
                runs,
            } if args.verbose => {
                if args.engine_kind == EngineKind::Gpu {
                    println!(
                        "{name}: Line {}: RUN {pipeline}: gpu: the run on the GPU agrees with \
                         the reference",
                        pos.line
                    )
                } else {
                    println!(
                        "{name}: Line {}: RUN {pipeline}: sass: {runs} simulated runs (SMs x \
                         policies) agree with the reference, no hazard",
                        pos.line
                    )
                }
            }
            Event::SassRefused { pos, pipeline, why } => println!(
                "{name}: Line {}: RUN {pipeline}: sass: not compiled: {why}",
                pos.line
            ),
            Event::SassDiffers {
                pos,
                pipeline,
                mismatch,
            } => eprintln!("{name}: Line {}: RUN {pipeline}: {mismatch}", pos.line),
            Event::ReadUndefined {
                pos,
                buffer,
                byte_offset,
                count,
            } => eprintln!(
                "{name}: Line {}: EXPECT reads {count} undefined byte(s) of buffer `{buffer}` \
                 (first at byte offset {byte_offset}): the runs left them undefined",
                pos.line
            ),
            Event::ReadOrderDependent {
                pos,
                buffer,
                byte_offset,
                count,
                origin,
            } => eprintln!(
                "{name}: Line {}: EXPECT reads {count} order-dependent byte(s) of buffer \
                 `{buffer}` (first at byte offset {byte_offset}): their values depend on the \
                 order in which racing atomics of different invocations land, which SPIR-V \
                 leaves open, so the expectation holds on one schedule only ({origin})",
                pos.line
            ),
            _ => {}
        }
    }
    let (runs, passed, failed) = report.counts();
    if report.passed() {
        println!("{name}: PASS ({runs} RUN, {passed} EXPECT)");
        0
    } else {
        println!(
            "{name}: FAIL ({runs} RUN completed, {failed} of {} EXPECT or lowered checks failed)",
            passed + failed
        );
        EXIT_INVALID
    }
}
