//! `tangle-sass-probe`: asks nvdisasm about every bit of every instruction form tangle knows
//! and reports which bits tangle's decoder explains (`docs/sass-probe.md`).
//!
//! ```text
//! tangle-sass-probe [--sm SM86]... [--opcode 0x210]... [--form IADD3]... [--out DIR]
//!                   [--nvdisasm PATH] [--refused-dir DIR] [--workers N] [--per-opcode]
//!                   [--opcode-bits-once] [--no-screen]
//! ```
//!
//! Without `--sm` every SM is probed; without `--opcode`/`--form` every form, or with
//! `--per-opcode` the first form (in decode priority) of each opcode. Every one of the 128
//! bits of every seed is flipped; with `--opcode-bits-once`, bits 0-8 (the opcode proper)
//! are not, and the operand-form selector (9-11) and the control bits only on the first
//! form of each opcode (`probe::seeds`). `--workers` raw-mode nvdisasm processes run at
//! once (default 2) after the one cubin screen per SM (`probe::nvdisasm`); `--no-screen`
//! leaves the screen out (one more nvdisasm start per rejected word: for comparison). The
//! reports go to `DIR` (default `target/probe`): `summary.md` (`docs/sass-probe-summary.md`), and
//! per SM `forms-`, `opcodes-`, `tokens-` and `bits-sm_XX.tsv`. nvdisasm is `--nvdisasm`, else
//! `$TANGLE_ORACLES/bin/nvdisasm`, else `<repo>/.oracles/bin/nvdisasm`, else `nvdisasm` on
//! `PATH`. Corpus tokens come from the golden tables (`crates/sass/tests/golden/{corpus,
//! generated}-sm_XX.tsv`), the examples of `crates/sass/tests/generated-refusals.tsv`, and
//! `--refused-dir`'s `refused-sm_XX.tsv` (written by the generated test with
//! `TANGLE_GENERATED_REFUSED=DIR`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use tangle_sass::probe::{self, markdown, summary, tokens::CorpusTokens, Nvdisasm};
use tangle_sass::Arch;

struct Args {
    arches: Vec<Arch>,
    opcodes: Vec<u16>,
    names: Vec<String>,
    out: PathBuf,
    nvdisasm: Option<PathBuf>,
    refused_dir: Option<PathBuf>,
    workers: usize,
    per_opcode: bool,
    opcode_bits_once: bool,
    no_screen: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        arches: Vec::new(),
        opcodes: Vec::new(),
        names: Vec::new(),
        out: PathBuf::from("target/probe"),
        nvdisasm: None,
        refused_dir: None,
        workers: 2,
        per_opcode: false,
        opcode_bits_once: false,
        no_screen: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--sm" => {
                let v = value()?;
                a.arches.push(v.parse::<Arch>().map_err(|e| e.to_string())?);
            }
            "--opcode" => {
                let v = value()?;
                let n = u16::from_str_radix(v.trim_start_matches("0x"), 16)
                    .map_err(|e| format!("bad opcode `{v}`: {e}"))?;
                a.opcodes.push(n);
            }
            "--form" => a.names.push(value()?),
            "--out" => a.out = PathBuf::from(value()?),
            "--nvdisasm" => a.nvdisasm = Some(PathBuf::from(value()?)),
            "--refused-dir" => a.refused_dir = Some(PathBuf::from(value()?)),
            "--workers" => {
                let v = value()?;
                a.workers = v.parse().map_err(|e| format!("bad --workers `{v}`: {e}"))?;
            }
            "--per-opcode" => a.per_opcode = true,
            "--opcode-bits-once" => a.opcode_bits_once = true,
            "--no-screen" => a.no_screen = true,
            "-h" | "--help" => {
                return Err(
                    "usage: tangle-sass-probe [--sm SM86]... [--opcode 0x210]... \
                     [--form NAME]... [--out DIR] [--nvdisasm PATH] [--refused-dir DIR] \
                     [--workers N] [--per-opcode] [--opcode-bits-once] [--no-screen]"
                        .to_string(),
                )
            }
            other => return Err(format!("unknown argument `{other}` (try --help)")),
        }
    }
    if a.arches.is_empty() {
        a.arches = Arch::ALL.to_vec();
    }
    Ok(a)
}

/// The crate's directory (for the golden tables) and the repository's root.
fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn find_nvdisasm(given: Option<PathBuf>) -> Result<PathBuf, String> {
    if let Some(p) = given {
        return Ok(p);
    }
    let mut candidates = Vec::new();
    if let Some(d) = std::env::var_os("TANGLE_ORACLES").filter(|d| !d.is_empty()) {
        candidates.push(Path::new(&d).join("bin/nvdisasm"));
    }
    candidates.push(crate_dir().join("../../.oracles/bin/nvdisasm"));
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join("nvdisasm")));
    }
    candidates
        .into_iter()
        .find(|p| p.is_file())
        .ok_or_else(|| "nvdisasm not found (give --nvdisasm or set TANGLE_ORACLES)".to_string())
}

fn corpus_tokens(arch: Arch, refused_dir: Option<&Path>) -> Result<CorpusTokens, String> {
    let mut c = CorpusTokens::default();
    let golden = crate_dir().join("tests/golden");
    let io = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
    for src in ["corpus", "generated"] {
        let p = golden.join(format!("{src}-{arch}.tsv"));
        c.add_tsv(&p).map_err(|e| io(&p, e))?;
    }
    let p = crate_dir().join("tests/generated-refusals.tsv");
    c.add_refusal_examples(&p).map_err(|e| io(&p, e))?;
    if let Some(d) = refused_dir {
        let p = d.join(format!("refused-{arch}.tsv"));
        c.add_tsv(&p).map_err(|e| io(&p, e))?;
    }
    Ok(c)
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    let exe = find_nvdisasm(args.nvdisasm.clone())?;
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let write = |name: String, text: &str| {
        let p = args.out.join(name);
        std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))
    };
    let mut probes = Vec::new();
    let mut corpora = Vec::new();
    for &arch in &args.arches {
        let corpus = corpus_tokens(arch, args.refused_dir.as_deref())?;
        let mut seen = std::collections::HashSet::new();
        let seeds = probe::seeds(
            arch,
            |f| {
                (args.opcodes.is_empty() || args.opcodes.contains(&f.opcode))
                    && (args.names.is_empty() || args.names.iter().any(|n| n == f.name))
                    && (!args.per_opcode || seen.insert(f.opcode))
            },
            args.opcode_bits_once,
            &corpus.words,
        );
        let start = Instant::now();
        let mut dis = Nvdisasm::new(&exe, &args.out);
        dis.workers = args.workers;
        dis.screen = !args.no_screen;
        let p = probe::probe_arch(arch, &seeds, &mut dis, &probe::table_decoder(arch))?;
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "{arch}: {} forms, {} words, {} nvdisasm calls, {secs:.1} s",
            p.forms.len(),
            p.words,
            p.calls
        );
        write(format!("forms-{arch}.tsv"), &summary::forms_tsv(&p))?;
        write(format!("opcodes-{arch}.tsv"), &summary::opcodes_tsv(&p))?;
        write(
            format!("tokens-{arch}.tsv"),
            &summary::tokens_tsv(&p, &corpus),
        )?;
        write(format!("bits-{arch}.tsv"), &summary::bits_tsv(&p))?;
        probes.push((p, secs));
        corpora.push(corpus);
    }
    let md = markdown::summary_md(&probes, &corpora);
    write("summary.md".to_string(), &md)?;
    print!("{md}");
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tangle-sass-probe: {e}");
            ExitCode::FAILURE
        }
    }
}
