//! The `tangle` command-line tool.
//!
//! Exit codes, for every subcommand: 0 success / valid / all checks pass; 1 a check failed or
//! the module is invalid; 2 the input could not be read or parsed, or the command line is
//! wrong (clap's own usage errors already exit with 2).

mod input;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use input::{InputKind, ReadOptions};

mod asm;
mod compile;
mod disasm;
mod fuzz;
mod run;
mod sim;

/// The exit statuses, as `--help` states them.
const EXIT_CODES_HELP: &str = "Exit status (every subcommand):\n  \
    0  success: the module is valid, every check and EXPECT holds\n  \
    1  a check failed: an invalid module, a failing EXPECT, a RUN that failed at run time\n  \
    2  the input could not be read, parsed or compiled, it uses something unsupported, or \
    the command line is wrong";

/// Exit status: a check failed or the module is invalid.
const EXIT_INVALID: u8 = 1;
/// Exit status: the input could not be read or parsed, or the command line is wrong.
const EXIT_USAGE: u8 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "tangle",
    version,
    about = "SPIR-V maximal reconvergence for NVIDIA GPUs: front end, reference interpreter, \
             reconvergence lowering, SASS back end and differential checks",
    after_help = EXIT_CODES_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// How to read an input shader.
#[derive(Args, Debug)]
struct InputArgs {
    /// The shader to read (.spv, .spvasm, .comp/.glsl, .tir, .ll), or - for stdin.
    input: PathBuf,
    /// The input's form, when the file name does not say it.
    #[arg(long, value_enum)]
    kind: Option<InputKind>,
    /// Vulkan target environment for GLSL and SPIR-V assembly input.
    #[arg(long, default_value = "vulkan1.1")]
    target_env: String,
}

impl InputArgs {
    fn options(&self) -> ReadOptions {
        ReadOptions {
            kind: self.kind,
            target_env: self.target_env.clone(),
        }
    }
}

/// The passes `tangle ir` runs before it writes the module.
#[derive(Args, Debug)]
struct PassArgs {
    /// Passes to run, in order, separated by commas (e.g. dead-code,reverse-post-order).
    /// The input is verified first, and the module again after each pass.
    #[arg(long, value_delimiter = ',')]
    passes: Vec<String>,
    /// Print the IR to stderr after this pass (repeatable).
    #[arg(long, value_name = "PASS")]
    print_after: Vec<String>,
    /// Print the IR to stderr after every pass.
    #[arg(long)]
    print_after_all: bool,
}

/// Which stage of the compiler `tangle ir` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Stage {
    /// The structured IR as read (after --passes).
    #[value(alias = "input")]
    Structured,
    /// After the reconvergence lowering (docs/lowering.md).
    Lowered,
    /// With convergence-control tokens inferred (docs/tokens.md): structured functions by
    /// their loop constructs, lowered ones by their cycles with anchored preheaders for
    /// natural loops inside irreducible cycles. Functions that have tokens keep them.
    Tokens,
}

/// The stage `tangle ir` shows and how.
#[derive(Args, Debug)]
struct StageArgs {
    /// The stage to show: the structured input, or the lowered form with convergence
    /// barriers.
    #[arg(long, value_enum, default_value = "structured")]
    stage: Stage,
    /// The barrier placement of --stage lowered: scopes (tangle's, the default), baseline
    /// (seed 000's flawed design), every-divergent or nak.
    #[arg(long, value_name = "SCHEME")]
    lowering: Option<String>,
    /// Write the module as a Graphviz digraph: barrier operations listed per block, each
    /// barrier in its own colour, divergent branches as bold dashed red edges.
    #[arg(long)]
    dot: bool,
    /// Write the static counts of bar_set, bar_sync, bar_break and exit per function.
    #[arg(long)]
    stats: bool,
}

/// What `tangle ir` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Emit {
    /// tangle's IR text.
    Ir,
    /// A SPIR-V binary module.
    Spirv,
    /// LLVM IR text (docs/tokens.md), for LLVM's tools.
    Ll,
    /// SPIR-V assembly, the module written back as SPIR-V and disassembled as spirv-dis
    /// prints it (friendly names).
    Spvasm,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print a shader's tangle IR, or write it back as SPIR-V.
    Ir {
        #[command(flatten)]
        input: InputArgs,
        /// What to write.
        #[arg(long, value_enum, default_value = "ir")]
        emit: Emit,
        /// Where to write it (default: stdout; SPIR-V needs a file).
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        passes: PassArgs,
        /// Annotate the IR listing with the subgroup uniformity analysis (after the passes):
        /// each value uniform or divergent, each conditional branch and switch, and loops
        /// with divergent exits (docs/reconverge.md).
        #[arg(long)]
        uniformity: bool,
        #[command(flatten)]
        stage: StageArgs,
    },
    /// Check a shader against the IR and SPIR-V maximal-reconvergence rules; print every
    /// problem, exit 1 if there is one.
    Validate {
        #[command(flatten)]
        input: InputArgs,
    },
    /// Run AmberScript files (or every .amber in a directory), or one shader with buffers
    /// given on the command line, on the reference interpreter. Scripts: exit 0 when every
    /// EXPECT holds, 1 when one fails, 2 when a script is refused.
    #[command(after_help = EXIT_CODES_HELP)]
    Run(run::RunArgs),
    /// Generate random structured programs and compare the reference interpreter with the
    /// mask-stack simulator on each; exit 1 on any mismatch.
    Fuzz(fuzz::FuzzArgs),
    /// Disassemble SASS from a cubin or raw 128-bit words.
    Disasm {
        /// The cubin or raw file to read.
        input: PathBuf,
        /// Target architecture, e.g. sm_75 (required for raw words).
        #[arg(long)]
        arch: Option<String>,
        /// Print each instruction's control-code annotation, e.g. [B------:R-:W0:Y:S04].
        #[arg(long, conflicts_with = "cuobjdump")]
        control: bool,
        /// Print a cubin as `cuobjdump -sass` does (absolute branch targets, the words as
        /// hex comments) instead of as `nvdisasm -c`.
        #[arg(long)]
        cuobjdump: bool,
    },
    /// Run a kernel of a cubin (or SASS text or raw words) on the SASS warp simulator,
    /// under one or more scheduling policies; exit 1 on a deadlock, livelock or fault.
    #[command(after_help = EXIT_CODES_HELP)]
    Sim(sim::SimArgs),
    /// Compile a compute shader to SASS for one SM (SM75-SM90): the reconvergence
    /// lowering, instruction selection, register assignment and control codes.
    #[command(after_help = EXIT_CODES_HELP)]
    Compile(compile::CompileArgs),
    /// Assemble SASS text to raw 128-bit words, or with --kernel to a cubin.
    #[command(after_help = EXIT_CODES_HELP)]
    Asm(asm::AsmArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Ir {
            input,
            emit,
            output,
            passes,
            uniformity,
            stage,
        } => ir(&input, emit, output, &passes, uniformity, &stage),
        Command::Validate { input } => validate(&input),
        Command::Run(args) => run::run(&args),
        Command::Fuzz(args) => fuzz::run(&args),
        Command::Disasm {
            input,
            arch,
            control,
            cuobjdump,
        } => disasm::run(&input, arch.as_deref(), control, cuobjdump),
        Command::Asm(args) => asm::run(&args),
        Command::Sim(args) => sim::run(&args),
        Command::Compile(args) => compile::run(&args),
    }
}

/// Prints `msg` and returns the usage/input exit status.
fn fail(msg: String) -> ExitCode {
    eprintln!("tangle: {msg}");
    ExitCode::from(EXIT_USAGE)
}

/// Runs the passes `args` asks for on `module`, printing the IR after the passes it names.
fn run_passes(module: &mut tangle_ir::Module, args: &PassArgs) -> Result<(), ExitCode> {
    use tangle_ir::pipeline::{lookup, Pipeline, PipelineError};
    let mut pipeline = Pipeline::parse_with(&args.passes.join(","), tangle_tokens::PASSES)
        .map_err(|e| fail(e.to_string()))?;
    for name in &args.print_after {
        if lookup(name).is_none() && !tangle_tokens::PASSES.iter().any(|p| p.name == *name) {
            return Err(fail(
                PipelineError::UnknownPass { name: name.clone() }.to_string(),
            ));
        }
        if !args.passes.contains(name) {
            return Err(fail(format!(
                "--print-after {name}: the pass is not in --passes"
            )));
        }
    }
    if pipeline.passes.is_empty() {
        return Ok(());
    }
    // Passes expect a valid module: verify before and after each one, in release builds too.
    pipeline.verify_each = true;
    let result = pipeline.run(module, |pass, changed, m| {
        if args.print_after_all || args.print_after.iter().any(|n| n == pass.name) {
            let note = if changed { "" } else { " (no change)" };
            eprint!(
                "; IR after {}{note}\n{}",
                pass.name,
                tangle_ir::text::print(m)
            );
        }
    });
    result.map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(EXIT_INVALID)
    })
}

fn ir(
    input: &InputArgs,
    emit: Emit,
    output: Option<PathBuf>,
    passes: &PassArgs,
    uniformity: bool,
    stage: &StageArgs,
) -> ExitCode {
    let mut module = match input::load(&input.input, &input.options()) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    if let Err(code) = run_passes(&mut module, passes) {
        return code;
    }
    if stage.stage == Stage::Tokens {
        tangle_tokens::infer::run(&mut module);
        tangle_tokens::preheader::run(&mut module);
        if let Err(errors) = tangle_ir::verify::verify(&module) {
            eprintln!("error: the module with tokens does not verify:\n{errors}");
            return ExitCode::from(EXIT_INVALID);
        }
    }
    let scheme = match stage.lowering.as_deref() {
        None => tangle_reconverge::Scheme::Scopes,
        Some(_) if stage.stage != Stage::Lowered => {
            eprintln!("error: --lowering chooses the placement of --stage lowered");
            return ExitCode::from(EXIT_USAGE);
        }
        Some(name) => match tangle_reconverge::Scheme::from_name(name) {
            Some(s) => s,
            None => {
                eprintln!(
                    "error: unknown lowering `{name}` (known: scopes, every-divergent, nak, baseline)"
                );
                return ExitCode::from(EXIT_USAGE);
            }
        },
    };
    if stage.stage == Stage::Lowered {
        let opts = tangle_reconverge::LowerOptions {
            scheme,
            ..Default::default()
        };
        // The structured module is not needed after: handed over, it is lowered in place.
        module = match tangle_reconverge::lower_module_owned(module, &opts) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(EXIT_INVALID);
            }
        };
    }
    let views = [uniformity, stage.dot, stage.stats]
        .iter()
        .filter(|&&v| v)
        .count();
    if views > 1 || (views == 1 && emit != Emit::Ir) {
        eprintln!(
            "error: --uniformity, --dot and --stats are views of the IR; choose one, without --emit spirv"
        );
        return ExitCode::from(EXIT_USAGE);
    }
    if uniformity && emit != Emit::Ir {
        eprintln!("error: --uniformity annotates the IR text; it does not go with --emit spirv");
        return ExitCode::from(EXIT_USAGE);
    }
    let bytes = match emit {
        Emit::Ir if stage.dot => tangle_reconverge::lower::dot::to_dot(&module).into_bytes(),
        Emit::Ir if stage.stats => {
            tangle_reconverge::lower::stats::format_counts(&module).into_bytes()
        }
        Emit::Ir if uniformity => {
            let analysis = tangle_reconverge::Uniformity::analyse(&module);
            tangle_reconverge::annotate(&module, &analysis).into_bytes()
        }
        Emit::Ir => tangle_ir::text::print(&module).into_bytes(),
        Emit::Ll => match tangle_llvm::write(&module) {
            Ok(text) => text.into_bytes(),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(EXIT_INVALID);
            }
        },
        Emit::Spvasm => match tangle_spirv::writer::write(&module) {
            Ok(words) => {
                match tangle_spirv::dis::disassemble(
                    &words,
                    tangle_spirv::dis::DisOptions::default(),
                ) {
                    Ok(text) => text.into_bytes(),
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::from(EXIT_INVALID);
                    }
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(EXIT_INVALID);
            }
        },
        Emit::Spirv => {
            if output.is_none() {
                eprintln!("error: --emit spirv needs -o <file>");
                return ExitCode::from(EXIT_USAGE);
            }
            match tangle_spirv::writer::write(&module) {
                Ok(words) => words.iter().flat_map(|w| w.to_le_bytes()).collect(),
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(EXIT_INVALID);
                }
            }
        }
    };
    let written = match &output {
        Some(path) => std::fs::write(path, &bytes),
        None => std::io::stdout().write_all(&bytes),
    };
    if let Err(e) = written {
        eprintln!("error: cannot write output: {e}");
        return ExitCode::from(EXIT_USAGE);
    }
    ExitCode::SUCCESS
}

fn validate(input: &InputArgs) -> ExitCode {
    // LLVM IR keeps its names and lines, to say where each error is in the text too.
    let loaded = match input::load_ll_with_map(&input.input, &input.options()) {
        Some(r) => r.map(|(m, map)| (m, Some(map))),
        None => input::load(&input.input, &input.options()).map(|m| (m, None)),
    };
    let (module, map) = match loaded {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    match tangle_ir::verify::verify(&module) {
        Ok(()) => ExitCode::SUCCESS,
        Err(errors) => {
            let name = input.input.display();
            for e in &errors.0 {
                match map.as_ref().and_then(|m| m.describe(&e.loc)) {
                    Some(place) => eprintln!("{name}: error: {e} [{place}]"),
                    None => eprintln!("{name}: error: {e}"),
                }
            }
            eprintln!("{name}: {} error(s)", errors.0.len());
            ExitCode::from(EXIT_INVALID)
        }
    }
}
