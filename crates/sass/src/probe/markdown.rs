//! The probe's markdown summary over every SM probed, for the docs (`docs/sass-probe-summary.md`):
//! totals per SM, bits per opcode, the unexplained tokens (new modifiers and operands
//! first), the bits tangle prints differently from nvdisasm, and the field bits nvdisasm
//! ignores.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::summary::{counts, opcode_rows, unexplained_tokens, CONTROL_BITS};
use super::tokens::{names_something_printed, CorpusTokens};
use super::{ArchProbe, BitClass};
use crate::form::OP_BITS;
use crate::Arch;

/// Totals of one SM, as a markdown table row (see [`summary_md`]'s first table).
fn totals_row(p: &ArchProbe, corpus: &CorpusTokens, secs: f64) -> String {
    let mut op = [0usize; 6];
    let mut ctl = [0usize; 6];
    let mut field_ignored = 0;
    let mut disagree = 0;
    for f in &p.forms {
        for (k, v) in counts(f, OP_BITS).into_iter().enumerate() {
            op[k] += v;
        }
        for (k, v) in counts(f, CONTROL_BITS).into_iter().enumerate() {
            ctl[k] += v;
        }
        field_ignored += f.ignored_field_bits().len();
        disagree += usize::from(!f.seed_agrees);
    }
    let toks = unexplained_tokens(p, corpus);
    let printed: Vec<_> = toks
        .iter()
        .filter(|((_, t), e)| e.beyond_opcode && names_something_printed(t))
        .collect();
    let new = printed
        .iter()
        .filter(|(_, e)| e.in_corpus == Some(false))
        .count();
    let opcodes: BTreeSet<u16> = p.forms.iter().map(|f| f.form.opcode).collect();
    format!(
        "| {} | {} | {} | {} | {} | {:.0} | {} | {} | {} | {} | {} | {} |",
        p.arch,
        opcodes.len(),
        p.forms.len(),
        p.words,
        p.calls,
        secs,
        slash(&op),
        slash(&ctl),
        field_ignored,
        disagree,
        printed.len(),
        new
    )
}

/// Per opcode, the SMs' numbers side by side: `a / b / c`, `-` where an SM lacks it.
fn per_sm<T: ToString>(arches: &[Arch], v: &BTreeMap<Arch, T>) -> String {
    arches
        .iter()
        .map(|a| v.get(a).map_or("-".to_string(), T::to_string))
        .collect::<Vec<_>>()
        .join(" / ")
}

/// The markdown summary of every SM probed (`secs`: the wall time of each; `corpus`: one
/// per probe).
pub fn summary_md(probes: &[(ArchProbe, f64)], corpus: &[CorpusTokens]) -> String {
    let arches: Vec<Arch> = probes.iter().map(|(p, _)| p.arch).collect();
    let sms = arches
        .iter()
        .map(Arch::to_string)
        .collect::<Vec<_>>()
        .join(" / ");
    let mut s = String::from(
        "# Bit probe: summary\n\n\
         Written by `tangle-sass-probe` (`crates/sass/src/bin/tangle-sass-probe.rs`); how it \
         works, the command and the findings are in [sass-probe.md](sass-probe.md). \
         Classes: *explained* (tangle prints nvdisasm's text), *ignored* (nvdisasm's text \
         unchanged), *unexplained* (tangle refuses nvdisasm's text), *wrong* (tangle prints \
         another text), *invalid* (nvdisasm rejects the word or prints `INVALID`/`?`).\n\n\
         | SM | opcodes | forms | words | nvdisasm runs | s | operation bits (0-104): \
         explained / ignored / unexplained / wrong / invalid / not flipped | control bits \
         (105-127): same | field bits ignored | seeds tangle prints differently | new \
         modifiers and operands | of them in no corpus |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for ((p, secs), c) in probes.iter().zip(corpus) {
        s.push_str(&totals_row(p, c, *secs));
        s.push('\n');
    }

    // Bits per opcode, every SM in one row.
    let _ = write!(
        s,
        "\n### Operation bits per opcode ({sms})\n\n\
         Bits 0-104 over all forms of the opcode: explained in some form's probe, \
         unexplained or wrong in some form's, ignored in every form that flipped them, \
         invalid in some form's.\n\n\
         | opcode | operations | forms | explained | unexplained or wrong | ignored | invalid |\n\
         |---|---|---|---|---|---|---|\n"
    );
    type Row = (BTreeSet<&'static str>, [BTreeMap<Arch, u32>; 5]);
    let mut rows: BTreeMap<u16, Row> = BTreeMap::new();
    for (p, _) in probes {
        for (op, (names, n, c)) in opcode_rows(p) {
            let r = rows.entry(op).or_default();
            r.0.extend(names);
            r.1[0].insert(p.arch, n as u32);
            for (k, v) in c.into_iter().enumerate() {
                r.1[k + 1].insert(p.arch, v);
            }
        }
    }
    for (op, (names, c)) in &rows {
        let names: Vec<&str> = names.iter().copied().collect();
        let _ = write!(s, "| 0x{op:03x} | {} |", names.join(" "));
        for v in c {
            let _ = write!(s, " {} |", per_sm(&arches, v));
        }
        s.push('\n');
    }

    // Tokens, every SM in one row.
    #[derive(Default)]
    struct Tok {
        sms: BTreeSet<Arch>,
        not_in_corpus: BTreeSet<Arch>,
        flips: usize,
        example: String,
    }
    let mut toks: BTreeMap<(String, String), Tok> = BTreeMap::new();
    for ((p, _), c) in probes.iter().zip(corpus) {
        for (k, e) in unexplained_tokens(p, c) {
            if !e.beyond_opcode {
                continue;
            }
            let t = toks.entry(k).or_default();
            t.sms.insert(p.arch);
            if e.in_corpus == Some(false) {
                t.not_in_corpus.insert(p.arch);
            }
            t.flips += e.bits.len();
            if t.example.is_empty() {
                t.example = e.example;
            }
        }
    }
    let list = |a: &BTreeSet<Arch>| {
        if a.len() == arches.len() {
            "all".to_string()
        } else {
            a.iter().map(Arch::to_string).collect::<Vec<_>>().join(" ")
        }
    };
    for (title, printed) in [
        (
            "Unexplained modifiers and operands (bits 12-127; tokens nvdisasm printed that \
             the seed's text lacks, numbers as `#`)",
            true,
        ),
        (
            "Other unexplained bits: a modifier nvdisasm dropped (`without T`), a guard or \
             spacing change (where tangle refuses the seed's form), or nvdisasm's text \
             unchanged while tangle's changed",
            false,
        ),
    ] {
        let _ = write!(
            s,
            "\n### {title}\n\n\
             | operation | token | SMs | flips | in no corpus on | example (nvdisasm) |\n\
             |---|---|---|---|---|---|\n"
        );
        for ((base, tok), t) in &toks {
            if names_something_printed(tok) != printed {
                continue;
            }
            let none = match printed {
                true => list(&t.not_in_corpus),
                false => "-".to_string(),
            };
            let _ = writeln!(
                s,
                "| {base} | {} | {} | {} | {} | {} |",
                code(tok),
                list(&t.sms),
                t.flips,
                if none.is_empty() { "-" } else { &none },
                code(&t.example)
            );
        }
    }

    // Wrong bits and ignored field bits, every SM in one row.
    // By (form, opcode, bit): the SMs, and one example (nvdisasm's and tangle's texts).
    type BitKey = (&'static str, u16, usize);
    let mut wrong: BTreeMap<BitKey, (BTreeSet<Arch>, String, String)> = BTreeMap::new();
    let mut ignored: BTreeMap<BitKey, (BTreeSet<Arch>, String)> = BTreeMap::new();
    for (p, _) in probes {
        for f in &p.forms {
            for (b, c) in f.bits.iter().enumerate() {
                if let BitClass::Unexplained {
                    nv,
                    tangle: Some(t),
                    ..
                } = c
                {
                    let e = wrong.entry((f.form.name, f.form.opcode, b)).or_default();
                    e.0.insert(p.arch);
                    if e.1.is_empty() {
                        (e.1, e.2) = (nv.clone(), t.clone());
                    }
                }
            }
            for b in f.ignored_field_bits() {
                let e = ignored
                    .entry((f.form.name, f.form.opcode, b as usize))
                    .or_default();
                e.0.insert(p.arch);
                if e.1.is_empty() {
                    e.1 = f.seed_text.clone().unwrap_or_default();
                }
            }
        }
    }
    s.push_str(
        "\n### Wrong bits: tangle decodes the flipped word to another text than nvdisasm's\n\n\
         | form | opcode | bit | SMs | nvdisasm | tangle |\n|---|---|---|---|---|---|\n",
    );
    for ((name, op, b), (a, nv, t)) in &wrong {
        let _ = writeln!(
            s,
            "| {name} | 0x{op:03x} | {b} | {} | {} | {} |",
            list(a),
            code(nv),
            code(t)
        );
    }
    s.push_str(
        "\n### Field bits nvdisasm ignores (a form declares the bit a field's)\n\n\
         | form | opcode | bit | SMs | seed (nvdisasm) |\n|---|---|---|---|---|\n",
    );
    for ((name, op, b), (a, seed)) in &ignored {
        let _ = writeln!(
            s,
            "| {name} | 0x{op:03x} | {b} | {} | {} |",
            list(a),
            code(seed)
        );
    }
    let seeds_off: Vec<String> = probes
        .iter()
        .flat_map(|(p, _)| {
            p.forms.iter().filter(|f| !f.seed_agrees).map(move |f| {
                format!(
                    "{} {} 0x{:03x} {}",
                    p.arch,
                    f.form.name,
                    f.form.opcode,
                    code(f.seed_text.as_deref().unwrap_or("<rejected>"))
                )
            })
        })
        .collect();
    let _ = writeln!(
        s,
        "\nSeeds whose text tangle prints differently ({}): {}",
        seeds_off.len(),
        if seeds_off.is_empty() {
            "none".to_string()
        } else {
            seeds_off.join(", ")
        }
    );
    s
}

/// `s` as a markdown table cell's code span: `|` (absolute values) escaped.
fn code(s: &str) -> String {
    format!("`{}`", s.replace('|', "\\|"))
}

fn slash(v: &[usize; 6]) -> String {
    v.map(|x| x.to_string()).join(" / ")
}
