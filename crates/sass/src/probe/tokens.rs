//! Text tokens: what a flipped bit made nvdisasm print that the seed's text did not have.
//!
//! A text splits into its mnemonic's components (`IADD3`, `.X`) and its operands with every
//! number replaced by `#` (`R#.H0_H0`, `c[#][#]`, `desc[UR#][R#.64+#]`), so that a bit that
//! only changes a register number adds no token, and a bit that adds a modifier or changes
//! an operand's shape adds exactly the token that names it.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

use crate::Word;

/// A text's mnemonic (without the guard) and its operands, as printed.
fn split(text: &str) -> (&str, Vec<&str>) {
    let mut s = text.trim();
    if s.starts_with('@') {
        s = s.split_once(' ').map_or("", |(_, r)| r.trim_start());
    }
    let (mnemonic, rest) = s.split_once(' ').unwrap_or((s, ""));
    let ops = rest
        .split(',')
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .collect();
    (mnemonic, ops)
}

/// The operation's base name: `IADD3` for `@P0 IADD3.X R1, ...`.
pub fn base_name(text: &str) -> &str {
    let (m, _) = split(text);
    m.split('.').next().unwrap_or(m)
}

/// `s` with every number (hex or decimal, with a fraction or exponent) replaced by `#`.
pub fn abstract_numbers(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        // A digit starts a number unless it continues a name or a suffix (`F32`, `H0_H0`,
        // `.64`); after a register letter (`R`, `UR`, `P`, `B`, `SB`) it is the number.
        let prev = out.chars().last();
        let after_register = matches!(prev, Some('R' | 'P' | 'B'));
        let literal = prev.is_some_and(|p| {
            p == '.'
                || p.is_ascii_digit()
                || (p.is_ascii_alphabetic() || p == '_') && !after_register
        });
        if c.is_ascii_digit() && !literal {
            if s[i..].starts_with("0x") {
                i += 2;
                while i < b.len() && b[i].is_ascii_hexdigit() {
                    i += 1;
                }
            } else {
                while i < b.len()
                    && (b[i].is_ascii_digit()
                        || b[i] == b'.' && !after_register && next_digit(b, i))
                {
                    i += 1;
                }
                if i < b.len() && b[i] == b'e' {
                    i += 1;
                    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'+' || b[i] == b'-') {
                        i += 1;
                    }
                }
            }
            out.push('#');
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn next_digit(b: &[u8], i: usize) -> bool {
    b.get(i + 1).is_some_and(|c| c.is_ascii_digit())
}

/// The tokens of a text: mnemonic components (`IADD3`, `.X`) and abstracted operands.
pub fn tokens(text: &str) -> Vec<String> {
    let (m, ops) = split(text);
    let mut v: Vec<String> = Vec::new();
    for (k, part) in m.split('.').enumerate() {
        v.push(if k == 0 {
            part.to_string()
        } else {
            format!(".{part}")
        });
    }
    v.extend(ops.iter().map(|o| abstract_numbers(o)));
    v
}

/// The tokens `text` has that `reference` lacks; where there are none, the tokens it lost
/// (`without .CLEAR`: a bit that turns a modifier off, which tangle's field does not
/// model); where it lost none either (an operand field tangle does not model that changes
/// only a number, or an operand that moved), the first operand that differs, as
/// `operand N: <token>`.
pub fn new_tokens(text: &str, reference: &str) -> Vec<String> {
    let missing = |a: &str, b: &str| {
        let have: HashSet<String> = tokens(b).into_iter().collect();
        let mut seen = HashSet::new();
        tokens(a)
            .into_iter()
            .filter(|t| !have.contains(t) && seen.insert(t.clone()))
            .collect::<Vec<String>>()
    };
    let new = missing(text, reference);
    if !new.is_empty() {
        return new;
    }
    let lost = missing(reference, text);
    if !lost.is_empty() {
        return lost.iter().map(|t| format!("without {t}")).collect();
    }
    let (_, a) = split(text);
    let (_, b) = split(reference);
    match (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
        Some(i) => vec![format!(
            "operand {i}: {}",
            a.get(i)
                .map_or("(none)".to_string(), |o| abstract_numbers(o))
        )],
        // Only the guard, or only spacing, differs.
        None => match (guard(text), guard(reference)) {
            (g, r) if g != r => vec![format!(
                "guard: {}",
                g.map_or("(none)".into(), abstract_numbers)
            )],
            _ => vec!["(same tokens)".to_string()],
        },
    }
}

/// A text's guard predicate (`@!P0`), if it has one.
fn guard(text: &str) -> Option<&str> {
    text.trim().split(' ').next().filter(|g| g.starts_with('@'))
}

/// Whether a token of [`new_tokens`] (or the probe's [`super::UNCHANGED_TOKEN`]) names a
/// modifier or an operand nvdisasm printed, rather than one it left out (`without T`), a
/// guard, a text that changed only in spacing, or no change of nvdisasm's text at all.
pub fn names_something_printed(token: &str) -> bool {
    !token.starts_with("without ")
        && !token.starts_with("guard: ")
        && token != "(same tokens)"
        && token != super::UNCHANGED_TOKEN
}

/// The tokens the corpora's texts contain, per operation base name (an operand token is
/// counted only for the operation it appears in).
#[derive(Default, Debug)]
pub struct CorpusTokens {
    by_base: HashMap<String, HashSet<String>>,
    /// How many texts were read.
    pub texts: usize,
    /// The words of the TSV files read (seeds where a form's sample does not serve).
    pub words: Vec<Word>,
}

impl CorpusTokens {
    /// Adds one text as nvdisasm prints it.
    pub fn add_text(&mut self, text: &str) {
        let base = base_name(text).to_string();
        let set = self.by_base.entry(base).or_default();
        set.extend(tokens(text));
        self.texts += 1;
    }

    /// Whether some corpus text of operation `base` has `token`. An `operand N: ...` token
    /// is looked up by the operand it names.
    pub fn has(&self, base: &str, token: &str) -> bool {
        let t = token
            .strip_prefix("operand ")
            .and_then(|r| r.split_once(": "))
            .map_or(token, |(_, t)| t);
        self.by_base.get(base).is_some_and(|s| s.contains(t))
    }

    /// Adds the texts of a TSV file whose last column is nvdisasm's text (the golden tables
    /// `crates/sass/tests/golden/{corpus,generated}-sm_XX.tsv`, or a `refused-sm_XX.tsv`
    /// that `TANGLE_GENERATED_REFUSED` writes), and its words where the second column is
    /// one; `#` lines are comments.
    pub fn add_tsv(&mut self, path: &Path) -> std::io::Result<()> {
        let text = std::fs::read_to_string(path)?;
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            if let Some(t) = line.rsplit('\t').next().filter(|t| !t.is_empty()) {
                self.add_text(t);
            }
            // The golden tables' second column is the word.
            if let Some(w) = line.split('\t').nth(1).and_then(Word::parse_hex) {
                self.words.push(w);
            }
        }
        Ok(())
    }

    /// Adds the example texts of `tests/generated-refusals.tsv` (`` (e.g. `TEXT`) ``): one
    /// nvdisasm text of each kind of word the generated corpus has that tangle refuses.
    pub fn add_refusal_examples(&mut self, path: &Path) -> std::io::Result<()> {
        let text = std::fs::read_to_string(path)?;
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            for ex in line.split("e.g. `").skip(1) {
                if let Some((t, _)) = ex.split_once('`') {
                    self.add_text(t);
                }
            }
        }
        Ok(())
    }

    /// The operation names seen (for reports).
    pub fn bases(&self) -> BTreeSet<&str> {
        self.by_base.keys().map(String::as_str).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_become_hashes_but_names_keep_their_digits() {
        assert_eq!(abstract_numbers("R12"), "R#");
        assert_eq!(abstract_numbers("c[0x0][0x28]"), "c[#][#]");
        assert_eq!(abstract_numbers("-|R4|.H0_H0"), "-|R#|.H0_H0");
        assert_eq!(
            abstract_numbers("desc[UR4][R2.64+0x10]"),
            "desc[UR#][R#.64+#]"
        );
        assert_eq!(abstract_numbers("1.5e+10"), "#");
        assert_eq!(abstract_numbers("SR_TID.X"), "SR_TID.X");
        assert_eq!(abstract_numbers("B3"), "B#");
        assert_eq!(abstract_numbers("UP1"), "UP#");
    }

    #[test]
    fn new_tokens_name_the_modifier_or_the_operand() {
        assert_eq!(
            new_tokens("IADD3.X R1, R2, R3, RZ", "IADD3 R1, R2, R3, RZ"),
            vec![".X"]
        );
        assert_eq!(
            new_tokens("@P1 IADD3 R5, R2, R3, RZ", "IADD3 R1, R2, R3, RZ"),
            vec!["operand 0: R#"]
        );
        assert_eq!(
            new_tokens("BMOV.32 R0, B0", "BMOV.32.CLEAR R0, B0"),
            vec!["without .CLEAR"]
        );
        assert_eq!(
            new_tokens("@P1 IADD3 R1, R2, R3, RZ", "IADD3 R1, R2, R3, RZ"),
            vec!["guard: @P#"]
        );
        assert_eq!(base_name("@!P0 LDG.E.64 R2, [R4.64]"), "LDG");
        let mut c = CorpusTokens::default();
        c.add_text("IADD3.X R1, R2, R3, RZ");
        assert!(c.has("IADD3", ".X"));
        assert!(!c.has("IMAD", ".X"));
        assert!(c.has("IADD3", "operand 1: R#"));
    }
}
