//! The probe's TSV reports, one set per SM: the forms probed with the classes of their
//! bits, the bits per opcode, every bit that is not explained or ignored, and the
//! unexplained modifiers and operands (deduplicated by the token nvdisasm printed), each
//! marked with whether some corpus text has it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::tokens::{base_name, names_something_printed, CorpusTokens};
use super::{neutral_control, ArchProbe, BitClass, FormProbe, FIRST_CONTROL_BIT};
use crate::form::OP_BITS;

/// The control-code bits 105-127.
pub const CONTROL_BITS: u128 = !OP_BITS;

/// The classes in report order.
pub const CLASSES: [&str; 6] = [
    "explained",
    "ignored",
    "unexplained",
    "wrong",
    "invalid",
    "skipped",
];

/// One unexplained token on one SM: where it appeared.
#[derive(Clone, Debug, Default)]
pub struct TokenSeen {
    /// `(form name, opcode, bit)` of every flipped bit that printed it.
    pub bits: Vec<(&'static str, u16, u8)>,
    /// One text nvdisasm printed with it.
    pub example: String,
    /// Whether some corpus text of the same operation has it; `None` for a token that
    /// names nothing nvdisasm printed ([`names_something_printed`]).
    pub in_corpus: Option<bool>,
    /// Whether some of its bits are in the operation part (not only opcode bits 0-11).
    pub beyond_opcode: bool,
}

/// The unexplained tokens of one SM, by `(operation base name, token)`.
pub fn unexplained_tokens(
    p: &ArchProbe,
    corpus: &CorpusTokens,
) -> BTreeMap<(String, String), TokenSeen> {
    let mut m: BTreeMap<(String, String), TokenSeen> = BTreeMap::new();
    for f in &p.forms {
        for (b, c) in f.bits.iter().enumerate() {
            let BitClass::Unexplained { nv, tokens, .. } = c else {
                continue;
            };
            let base = base_name(nv).to_string();
            for t in tokens {
                let e = m.entry((base.clone(), t.clone())).or_default();
                if e.example.is_empty() {
                    e.example = nv.clone();
                    e.in_corpus = names_something_printed(t).then(|| corpus.has(&base, t));
                }
                e.beyond_opcode |= b >= 12;
                e.bits.push((f.form.name, f.form.opcode, b as u8));
            }
        }
    }
    m
}

pub(super) fn counts(f: &FormProbe, mask: u128) -> [usize; 6] {
    CLASSES.map(|c| f.count(mask, c))
}

/// `forms-sm_XX.tsv`: one line per form probed.
pub fn forms_tsv(p: &ArchProbe) -> String {
    let mut s = String::from(
        "# sm\tform\topcode\tseed\tseed from\tseed text (nvdisasm)\tseed agrees\t\
         op bits explained\tignored\tunexplained\twrong\tinvalid\tskipped\t\
         field bits ignored\tcontrol explained\tignored\tunexplained\twrong\tinvalid\tskipped\n",
    );
    for f in &p.forms {
        let op = counts(f, OP_BITS);
        let ctl = counts(f, CONTROL_BITS);
        let _ = writeln!(
            s,
            "{}\t{}\t0x{:03x}\t{}\t{}\t{}\t{}\t{}\t{:?}\t{}",
            p.arch,
            f.form.name,
            f.form.opcode,
            f.seed,
            match (f.seed.0 ^ neutral_control(f.form.sample).0).count_ones() {
                0 => "sample",
                1 => "sample, one bit flipped",
                _ => "corpus",
            },
            f.seed_text.as_deref().unwrap_or("<rejected>"),
            f.seed_agrees,
            join(&op),
            f.ignored_field_bits(),
            join(&ctl),
        );
    }
    s
}

/// `bits-sm_XX.tsv`: every unexplained, wrong and invalid bit, and every field bit
/// nvdisasm ignores, with nvdisasm's text (or message) and tangle's.
pub fn bits_tsv(p: &ArchProbe) -> String {
    let mut s = String::from("# sm\tform\topcode\tbit\tclass\tnvdisasm\ttangle\tnew tokens\n");
    for f in &p.forms {
        let fields = f.form.field_bits();
        for (b, c) in f.bits.iter().enumerate() {
            let line = match c {
                BitClass::Unexplained { nv, tangle, tokens } => format!(
                    "{}\t{}\t{}",
                    nv,
                    tangle.as_deref().unwrap_or("<refused>"),
                    tokens.join(" ")
                ),
                BitClass::Invalid { why } => format!("{why}\t\t"),
                BitClass::Ignored { .. } if fields >> b & 1 == 1 => {
                    "<seed text>\t\tfield bit ignored".to_string()
                }
                _ => continue,
            };
            let _ = writeln!(
                s,
                "{}\t{}\t0x{:03x}\t{}\t{}\t{}",
                p.arch,
                f.form.name,
                f.form.opcode,
                b,
                c.name(),
                line
            );
        }
    }
    s
}

/// Per opcode: its forms' names, how many forms, and how many operation bits (0-104) are
/// explained in at least one form's probe, unexplained or wrong in at least one, ignored
/// in every form that flipped them, invalid in at least one.
pub fn opcode_rows(p: &ArchProbe) -> BTreeMap<u16, (BTreeSet<&'static str>, usize, [u32; 4])> {
    // Masks: explained, unexplained, not ignored where flipped, invalid, flipped.
    let mut m: BTreeMap<u16, (BTreeSet<&'static str>, usize, [u128; 5])> = BTreeMap::new();
    for f in &p.forms {
        let e = m
            .entry(f.form.opcode)
            .or_insert((BTreeSet::new(), 0, [0; 5]));
        e.0.insert(f.form.name);
        e.1 += 1;
        for (b, c) in f.bits.iter().enumerate().take(FIRST_CONTROL_BIT as usize) {
            let bit = 1u128 << b;
            match c {
                BitClass::Explained => e.2[0] |= bit,
                BitClass::Unexplained { .. } => e.2[1] |= bit,
                BitClass::Invalid { .. } => e.2[3] |= bit,
                BitClass::Ignored { .. } | BitClass::Skipped => {}
            }
            if !matches!(c, BitClass::Ignored { .. } | BitClass::Skipped) {
                e.2[2] |= bit;
            }
            if !matches!(c, BitClass::Skipped) {
                e.2[4] |= bit;
            }
        }
    }
    m.into_iter()
        .map(|(k, (names, n, masks))| {
            let ignored = masks[4] & !masks[2];
            let c = [masks[0], masks[1], ignored, masks[3]].map(u128::count_ones);
            (k, (names, n, c))
        })
        .collect()
}

/// `opcodes-sm_XX.tsv`: [`opcode_rows`] as text.
pub fn opcodes_tsv(p: &ArchProbe) -> String {
    let mut s = String::from(
        "# sm\topcode\tforms\tnames\top bits explained (any form)\t\
         unexplained or wrong (any form)\tignored (all forms)\tinvalid (any form)\n",
    );
    for (op, (names, n, c)) in opcode_rows(p) {
        let names: Vec<&str> = names.into_iter().collect();
        let _ = writeln!(
            s,
            "{}\t0x{op:03x}\t{n}\t{}\t{}\t{}\t{}\t{}",
            p.arch,
            names.join(" "),
            c[0],
            c[1],
            c[2],
            c[3]
        );
    }
    s
}

/// `tokens-sm_XX.tsv`: the unexplained tokens of one SM.
pub fn tokens_tsv(p: &ArchProbe, corpus: &CorpusTokens) -> String {
    let mut s = String::from(
        "# sm\toperation\ttoken\tin corpus\tbits beyond the opcode\tflips\t\
         first bits (form opcode:bit)\texample (nvdisasm)\n",
    );
    for ((base, tok), e) in unexplained_tokens(p, corpus) {
        // Forms of one opcode share bits: each (form name, opcode, bit) once.
        let distinct: BTreeSet<&(&str, u16, u8)> = e.bits.iter().collect();
        let first: Vec<String> = distinct
            .into_iter()
            .take(6)
            .map(|(n, o, b)| format!("{n} 0x{o:03x}:{b}"))
            .collect();
        let _ = writeln!(
            s,
            "{}\t{base}\t{tok}\t{}\t{}\t{}\t{}\t{}",
            p.arch,
            e.in_corpus.map_or("-", yes),
            yes(e.beyond_opcode),
            e.bits.len(),
            first.join(", "),
            e.example
        );
    }
    s
}

fn join(v: &[usize; 6]) -> String {
    v.map(|x| x.to_string()).join("\t")
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}
