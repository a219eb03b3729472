//! The `tangle` command-line tool.
//!
//! Exit codes, for every subcommand: 0 success / valid / all checks pass; 1 a check failed or
//! the module is invalid; 2 the input could not be read or parsed, or the command line is
//! wrong (clap's own usage errors already exit with 2).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod asm;
mod disasm;

/// Exit status: the input could not be read or parsed, or the command line is wrong.
const EXIT_USAGE: u8 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "tangle",
    version,
    about = "SPIR-V maximal reconvergence for NVIDIA GPUs: front end, reference interpreter, \
             reconvergence lowering, SASS back end and differential checks"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print a shader's tangle IR (input: .spv, .spvasm, .comp/.glsl, or - for stdin).
    Ir {
        /// The shader to read.
        input: PathBuf,
    },
    /// Check a shader against the IR and SPIR-V maximal-reconvergence rules.
    Validate {
        /// The shader to read.
        input: PathBuf,
    },
    /// Run an AmberScript file or a shader on the reference interpreter.
    Run {
        /// The .amber script or shader to run.
        input: PathBuf,
    },
    /// Disassemble SASS from a cubin or raw 128-bit words.
    Disasm {
        /// The cubin or raw file to read.
        input: PathBuf,
        /// Target architecture, e.g. sm_75 (required for raw words).
        #[arg(long)]
        arch: Option<String>,
        /// Print each instruction's control-code annotation, e.g. [B------:R-:W0:Y:S04].
        #[arg(long)]
        control: bool,
    },
    /// Assemble SASS text to raw 128-bit words.
    Asm {
        /// The SASS text to read.
        input: PathBuf,
        /// Target architecture, e.g. sm_90.
        #[arg(long)]
        arch: String,
        /// Where to write the words.
        #[arg(short, long)]
        output: PathBuf,
    },
}

impl Command {
    fn name(&self) -> &'static str {
        match self {
            Command::Ir { .. } => "ir",
            Command::Validate { .. } => "validate",
            Command::Run { .. } => "run",
            Command::Disasm { .. } => "disasm",
            Command::Asm { .. } => "asm",
        }
    }
}

/// Prints `msg` and returns the usage/input exit status.
fn fail(msg: String) -> ExitCode {
    eprintln!("tangle: {msg}");
    ExitCode::from(EXIT_USAGE)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match &cli.command {
        Command::Disasm {
            input,
            arch,
            control,
        } => return disasm::run(input, arch.as_deref(), *control),
        Command::Asm {
            input,
            arch,
            output,
        } => return asm::run(input, arch, output),
        _ => {}
    }
    // Every subcommand is still open in the issue tracker: say so and fail, never pretend.
    eprintln!("tangle {}: not implemented yet", cli.command.name());
    ExitCode::from(EXIT_USAGE)
}
