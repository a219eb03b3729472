//! `tangle compile`: a compute shader to SASS for one SM (docs/backend.md).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use tangle_backend::{compile, CompileError, CompileOptions, Sched, PASSES};
use tangle_reconverge::Scheme;
use tangle_sass::Arch;

use crate::{fail, InputArgs, EXIT_INVALID};

/// What `tangle compile` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CompileEmit {
    /// The kernel's cubin as `nvdisasm -c` prints it, byte for byte (labels, symbols,
    /// directives, columns).
    Sass,
    /// SASS text with each instruction's control-code annotation.
    SassControl,
    /// The machine form on virtual registers, after instruction selection.
    Ir,
    /// The raw 128-bit words (needs -o).
    Raw,
    /// A cubin (needs -o; the default when -o is given).
    Cubin,
}

/// `tangle compile` arguments.
#[derive(Args, Debug)]
pub struct CompileArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Target architecture: sm_75, sm_80, sm_86, sm_89 or sm_90.
    #[arg(long)]
    arch: String,
    /// The entry point.
    #[arg(long, default_value = "main")]
    entry: String,
    /// Where to write (default: stdout).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// What to write (default: a cubin with -o, SASS text without).
    #[arg(long, value_enum)]
    emit: Option<CompileEmit>,
    /// Print the program to stderr after this pass (lower, isel, regalloc, emit, sched;
    /// repeatable).
    #[arg(long, value_name = "PASS")]
    print_after: Vec<String>,
    /// The reconvergence lowering's barrier placement (scopes, every-divergent, nak,
    /// baseline).
    #[arg(long, default_value = "scopes")]
    lowering: String,
    /// Bytes of push constants the kernel takes.
    #[arg(long, default_value_t = 0)]
    push_bytes: u32,
    /// Scheduling and control codes: `list` (the list scheduler) or `none` (no reordering,
    /// conservative codes; for comparison).
    #[arg(long, default_value = "list")]
    sched: String,
}

/// Runs `tangle compile`.
pub fn run(args: &CompileArgs) -> ExitCode {
    let arch: Arch = match args.arch.parse() {
        Ok(a) => a,
        Err(e) => return fail(format!("{e}")),
    };
    let Some(scheme) = Scheme::from_name(&args.lowering) else {
        return fail(format!("--lowering: no scheme `{}`", args.lowering));
    };
    let Some(sched) = Sched::from_name(&args.sched) else {
        return fail(format!(
            "--sched: no mode `{}` (modes: list, none)",
            args.sched
        ));
    };
    for p in &args.print_after {
        if !PASSES.contains(&p.as_str()) {
            return fail(format!(
                "--print-after: no pass `{p}` (passes: {})",
                PASSES.join(", ")
            ));
        }
    }
    let module = match crate::input::load(&args.input.input, &args.input.options()) {
        Ok(m) => m,
        Err(e) => return fail(e.to_string()),
    };
    let opts = CompileOptions {
        scheme,
        push_bytes: args.push_bytes,
        sched,
        ..CompileOptions::new(arch)
    };
    let compiled = match compile(&module, &args.entry, &opts) {
        Ok(c) => c,
        Err(e @ CompileError::Internal(_)) => {
            eprintln!("tangle: {e}");
            return ExitCode::from(EXIT_INVALID);
        }
        Err(e) => return fail(e.to_string()),
    };
    for (pass, text) in &compiled.stages {
        if args.print_after.iter().any(|p| p == pass) {
            eprintln!("; after {pass}\n{text}");
        }
    }
    let emit = args.emit.unwrap_or(if args.output.is_some() {
        CompileEmit::Cubin
    } else {
        CompileEmit::Sass
    });
    let out: Vec<u8> = match emit {
        CompileEmit::Ir => compiled
            .stages
            .iter()
            .find(|(p, _)| *p == "isel")
            .map(|(_, t)| t.clone().into_bytes())
            .unwrap_or_default(),
        CompileEmit::Sass => {
            let listing = compiled
                .cubin()
                .map_err(|e| e.to_string())
                .and_then(|b| tangle_sass::cubin::read(&b).map_err(|e| e.to_string()));
            match listing {
                Ok(c) => {
                    let mut text = tangle_sass::listing::cubin_listing(&c, arch, false)
                        .lines
                        .join("\n");
                    text.push('\n');
                    text.into_bytes()
                }
                Err(e) => {
                    eprintln!("tangle: {e}");
                    return ExitCode::from(EXIT_INVALID);
                }
            }
        }
        CompileEmit::SassControl => match tangle_backend::emit::text(&compiled.code, arch, true) {
            Ok(t) => t.into_bytes(),
            Err(e) => return fail(e.to_string()),
        },
        CompileEmit::Raw | CompileEmit::Cubin if args.output.is_none() => {
            return fail("--emit raw and --emit cubin need -o FILE".into());
        }
        CompileEmit::Raw => compiled
            .code
            .words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect(),
        CompileEmit::Cubin => match compiled.cubin() {
            Ok(b) => b,
            Err(e) => {
                eprintln!("tangle: {e}");
                return ExitCode::from(EXIT_INVALID);
            }
        },
    };
    match &args.output {
        Some(path) => {
            if let Err(e) = std::fs::write(path, out) {
                return fail(format!("cannot write {}: {e}", path.display()));
            }
        }
        None => {
            use std::io::Write;
            let _ = std::io::stdout().write_all(&out);
        }
    }
    ExitCode::SUCCESS
}
