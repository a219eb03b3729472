//! Latencies: the class of every form ([`LatencyClass`]) and the figures measured per SM
//! from ptxas's own scheduling (`crates/sass/data/latency-sm_XX.tsv`, written by
//! `cargo run -p tangle-sass --example latency`; the method is in `docs/sass.md`).

mod class;
pub mod control;
pub mod derive;
pub mod measure;
pub mod probe;

use std::fmt;
use std::sync::OnceLock;

use crate::{Arch, Form, SassError};

pub use class::LatencyClass;

/// The two fixed-latency pipes of the integer and single-precision datapath: a result
/// reaches a reader in the other pipe one cycle later than a reader in its own.
///
/// Facts: NAK's SM75 latency table gives ALU->ALU and FMA->FMA 4 cycles and ALU<->FMA 5;
/// ptxas 13.5's code leaves 4 cycles between producer and reader only within a pipe (every
/// 4-cycle pair in the probe and corpus kernels of sm_90 is LOP3/IADD3 into an ALU reader or
/// IMAD into an IMAD); and on an H100 (sm_90) tangle's `IMAD R5, R6, R5, RZ` followed 4
/// cycles later by `IADD3 R4, R4, R5, RZ` read R5's old value, and a `MOV R5, 0x4` read 4
/// cycles later by an IMAD likewise (`docs/backend.md`, "On a GPU").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pipe {
    /// Integer add/logic/shift/select/compare and float select/min/max.
    Alu,
    /// Integer multiply-add (every IMAD alias) and float add/multiply/FMA.
    Fma,
}

/// The pipe of a fixed-latency form, where it is one of the two [`Pipe`]s.
pub fn pipe(form: &Form) -> Option<Pipe> {
    match form.latency {
        LatencyClass::IntMad => Some(Pipe::Fma),
        // SM90's VIADD: ptxas reads an IMAD.MOV result with it 4 cycles later.
        LatencyClass::IntAlu if form.name == "VIADD" => Some(Pipe::Fma),
        LatencyClass::Fp32 => match form.name {
            "FADD" | "FMUL" | "FFMA" => Some(Pipe::Fma),
            _ => Some(Pipe::Alu),
        },
        LatencyClass::IntAlu | LatencyClass::IntCompare => Some(Pipe::Alu),
        _ => None,
    }
}

/// The cycles a fixed-latency result of `producer` needs beyond its class's latency
/// before `reader` may read it: 1 when they are in different [`Pipe`]s, else 0.
pub fn cross_pipe_delay(producer: &Form, reader: &Form) -> u32 {
    match (pipe(producer), pipe(reader)) {
        (Some(a), Some(b)) if a != b => 1,
        _ => 0,
    }
}

/// How ptxas treats the results of a class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A fixed latency: no scoreboard, the consumer waits by stall counts alone.
    Fixed,
    /// A variable latency: every producer sets a write scoreboard the consumer waits on.
    Scoreboard,
    /// Some producers of the class set a write scoreboard and some do not.
    Mixed,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Fixed => "fixed",
            Kind::Scoreboard => "scoreboard",
            Kind::Mixed => "mixed",
        })
    }
}

/// One row of a latency table: a class and the register file its result goes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Measure {
    /// The producer's class.
    pub class: LatencyClass,
    /// The register file written: `R`, `P`, `UR`, `UP`, `B`, or `-` for none (stores).
    pub file: String,
    /// Fixed or scoreboarded.
    pub kind: Kind,
    /// The fewest cycles ptxas left between a fixed-latency producer and its first
    /// consumer: the latency ptxas assumes (`None` where no pair was seen).
    pub min: Option<u32>,
    /// The most cycles seen (larger than `min` where other constraints delayed the consumer).
    pub max: Option<u32>,
    /// Producer-consumer pairs measured.
    pub pairs: usize,
    /// Producers seen.
    pub producers: usize,
    /// Producers that set a write scoreboard.
    pub write_sb: usize,
    /// Producers that set a read scoreboard.
    pub read_sb: usize,
    /// The mnemonics seen, comma-separated; `*` marks one that set a write scoreboard.
    pub ops: String,
}

/// The latency table of one SM.
#[derive(Clone, Debug)]
pub struct Table {
    /// The SM.
    pub arch: Arch,
    /// The `ptxas --version` line of the compiler whose scheduling was measured.
    pub ptxas: String,
    /// The rows.
    pub rows: Vec<Measure>,
}

/// The column header of the TSV files.
pub const HEADER: &str = "class\tfile\tkind\tmin\tmax\tpairs\tproducers\twrite_sb\tread_sb\tops";

impl Table {
    /// The row of `class` writing register file `file`.
    pub fn get(&self, class: LatencyClass, file: &str) -> Option<&Measure> {
        self.rows
            .iter()
            .find(|m| m.class == class && m.file == file)
    }

    /// The fixed latency ptxas assumes for results of `form` in register file `file`,
    /// where it was measured and the class is fixed-latency.
    pub fn fixed_latency(&self, form: &Form, file: &str) -> Option<u32> {
        let m = self.get(form.latency, file)?;
        (m.kind == Kind::Fixed).then_some(m.min?)
    }

    /// Whether results of `form` were seen to need a write scoreboard.
    pub fn needs_write_scoreboard(&self, form: &Form) -> bool {
        self.rows
            .iter()
            .any(|m| m.class == form.latency && m.write_sb > 0)
    }

    /// The table as TSV: comment lines with the SM and ptxas version, the header, the rows.
    pub fn to_tsv(&self) -> String {
        let mut s = format!(
            "# tangle-sass latency table for {}, derived from ptxas's control codes\n\
             # ptxas: {}\n\
             # written by: cargo run -p tangle-sass --example latency -- --write\n\
             # method: docs/sass.md, \"Latencies\"\n{HEADER}\n",
            self.arch, self.ptxas
        );
        let opt = |v: Option<u32>| v.map_or("-".to_string(), |v| v.to_string());
        for m in &self.rows {
            s.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                m.class,
                m.file,
                m.kind,
                opt(m.min),
                opt(m.max),
                m.pairs,
                m.producers,
                m.write_sb,
                m.read_sb,
                m.ops
            ));
        }
        s
    }

    /// Parses [`Table::to_tsv`]'s format; errors name the line.
    pub fn parse(arch: Arch, text: &str) -> Result<Table, SassError> {
        let bad = |line: usize, msg: String| SassError::Parse { line, col: 1, msg };
        let mut ptxas = String::new();
        let mut rows = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            if let Some(c) = line.strip_prefix('#') {
                if let Some(v) = c.trim().strip_prefix("ptxas:") {
                    ptxas = v.trim().to_string();
                }
                continue;
            }
            if line == HEADER || line.trim().is_empty() {
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            if f.len() != 10 {
                return Err(bad(n, format!("expected 10 columns, found {}", f.len())));
            }
            let num = |s: &str| -> Result<usize, SassError> {
                s.parse()
                    .map_err(|_| bad(n, format!("`{s}` is not a count")))
            };
            let opt = |s: &str| -> Result<Option<u32>, SassError> {
                if s == "-" {
                    Ok(None)
                } else {
                    s.parse()
                        .map(Some)
                        .map_err(|_| bad(n, format!("`{s}` is not a cycle count")))
                }
            };
            rows.push(Measure {
                class: LatencyClass::from_name(f[0])
                    .ok_or_else(|| bad(n, format!("unknown class `{}`", f[0])))?,
                file: f[1].to_string(),
                kind: match f[2] {
                    "fixed" => Kind::Fixed,
                    "scoreboard" => Kind::Scoreboard,
                    "mixed" => Kind::Mixed,
                    k => return Err(bad(n, format!("unknown kind `{k}`"))),
                },
                min: opt(f[3])?,
                max: opt(f[4])?,
                pairs: num(f[5])?,
                producers: num(f[6])?,
                write_sb: num(f[7])?,
                read_sb: num(f[8])?,
                ops: f[9].to_string(),
            });
        }
        if ptxas.is_empty() {
            return Err(bad(1, "no `# ptxas:` version line".into()));
        }
        Ok(Table { arch, ptxas, rows })
    }
}

/// The checked-in table of `arch`.
pub fn table(arch: Arch) -> &'static Table {
    static TABLES: OnceLock<Vec<Table>> = OnceLock::new();
    let all = TABLES.get_or_init(|| {
        Arch::ALL
            .iter()
            .map(|&a| {
                Table::parse(a, tsv(a)).unwrap_or_else(|e| {
                    panic!("crates/sass/data/latency-{a}.tsv is malformed: {e}")
                })
            })
            .collect()
    });
    &all[Arch::ALL.iter().position(|&a| a == arch).unwrap_or(0)]
}

/// The checked-in TSV text of `arch`.
pub fn tsv(arch: Arch) -> &'static str {
    match arch {
        Arch::Sm75 => include_str!("../../data/latency-sm_75.tsv"),
        Arch::Sm80 => include_str!("../../data/latency-sm_80.tsv"),
        Arch::Sm86 => include_str!("../../data/latency-sm_86.tsv"),
        Arch::Sm89 => include_str!("../../data/latency-sm_89.tsv"),
        Arch::Sm90 => include_str!("../../data/latency-sm_90.tsv"),
    }
}
