//! `tangle asm`: raw 128-bit words, or a cubin, from SASS text.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use tangle_cubin::{Kernel, Param};
use tangle_sass::{assemble, Arch};

/// The arguments of `tangle asm`.
#[derive(Args, Debug)]
pub struct AsmArgs {
    /// The SASS text to read.
    pub input: PathBuf,
    /// Target architecture, e.g. sm_90.
    #[arg(long)]
    pub arch: String,
    /// Where to write the words (or, with --kernel, the cubin).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Write a cubin with one kernel of this name (its code: every instruction of the
    /// text, sections one after the other) instead of raw words.
    #[arg(long)]
    pub kernel: Option<String>,
    /// The kernel's parameters in order, comma-separated: SIZE (aligned to its size, at most
    /// 8) or SIZE:ALIGN, in bytes (e.g. 8,8,4 or 12:4).
    #[arg(long, value_delimiter = ',')]
    pub param: Vec<String>,
    /// Static shared memory in bytes (on SM90 above the 0x400 bytes ptxas reserves).
    #[arg(long, default_value_t = 0)]
    pub shared: u32,
    /// The local-memory frame per thread in bytes.
    #[arg(long, default_value_t = 0)]
    pub frame: u32,
    /// The block size limit of `__launch_bounds__` (EIATTR_MAX_THREADS): X[,Y[,Z]].
    #[arg(long)]
    pub max_threads: Option<String>,
}

/// Reads one `--param`: `SIZE` or `SIZE:ALIGN`.
fn parse_param(s: &str) -> Result<Param, String> {
    let bad = || format!("--param {s}: expected SIZE or SIZE:ALIGN in bytes");
    match s.split_once(':') {
        None => Ok(Param::sized(s.trim().parse().map_err(|_| bad())?)),
        Some((size, align)) => Ok(Param {
            size: size.trim().parse().map_err(|_| bad())?,
            align: align.trim().parse().map_err(|_| bad())?,
        }),
    }
}

/// Reads `X[,Y[,Z]]`.
fn parse_dims(s: &str) -> Result<[u32; 3], String> {
    let v: Vec<u32> = s
        .split(',')
        .map(|p| p.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("--max-threads {s}: expected X[,Y[,Z]]"))?;
    match v.as_slice() {
        [x] => Ok([*x, 1, 1]),
        [x, y] => Ok([*x, *y, 1]),
        [x, y, z] => Ok([*x, *y, *z]),
        _ => Err(format!("--max-threads {s}: expected one to three numbers")),
    }
}

/// Assembles `input` (one instruction per line, optional `[B------:R-:W-:Y:S01]` control
/// annotation; nvdisasm's syntax, with absolute branch targets or, as nvdisasm prints
/// cubins, labels: `name:` lines and `` `(name) `` targets, per `.section`) into
/// little-endian words, the sections' words one after the other; with `--kernel`, into a
/// cubin holding them as one kernel (`docs/cubin.md`).
pub fn run(a: &AsmArgs) -> ExitCode {
    match assemble_to_file(a) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => crate::fail(e),
    }
}

fn assemble_to_file(a: &AsmArgs) -> Result<(), String> {
    let arch = a.arch.parse::<Arch>().map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(&a.input)
        .map_err(|e| format!("cannot read {}: {e}", a.input.display()))?;
    let words = assemble(arch, &text).map_err(|e| format!("{}: {e}", a.input.display()))?;
    let bytes: Vec<u8> = match &a.kernel {
        None => {
            if !a.param.is_empty() || a.shared != 0 || a.frame != 0 || a.max_threads.is_some() {
                return Err(
                    "--param, --shared, --frame and --max-threads describe a kernel: give \
                     --kernel NAME to write a cubin"
                        .into(),
                );
            }
            words.iter().flat_map(|w| w.to_le_bytes()).collect()
        }
        Some(name) => {
            let mut k = Kernel::new(name.clone(), words);
            k.params = a
                .param
                .iter()
                .map(|p| parse_param(p))
                .collect::<Result<_, _>>()?;
            k.shared_bytes = a.shared;
            k.local_frame = a.frame;
            k.max_threads = a.max_threads.as_deref().map(parse_dims).transpose()?;
            tangle_cubin::write(arch, &[k]).map_err(|e| format!("{}: {e}", a.input.display()))?
        }
    };
    std::fs::write(&a.output, bytes)
        .map_err(|e| format!("cannot write {}: {e}", a.output.display()))
}
