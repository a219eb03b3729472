//! The bit probe: nvdisasm as a black box, asked about every bit of every form's word.
//!
//! For each form of an architecture, its sample word (a word ptxas emitted) is the seed.
//! Each of its 128 bits is flipped in turn, all variants of all forms go to nvdisasm in one
//! batch per architecture ([`nvdisasm`]), and every bit is classified ([`BitClass`]) by
//! comparing nvdisasm's text with what tangle's own decoder prints for the same word:
//! * **ignored**: nvdisasm prints the seed's text;
//! * **explained**: the text changes, and tangle decodes the flipped word to that text;
//! * **unexplained**: nvdisasm prints a text tangle refuses (a modifier or operand field it
//!   does not model) or prints differently (a decoder error); the tokens the text has that
//!   the seed's lacks ([`tokens::new_tokens`]) name the new modifier;
//! * **invalid**: nvdisasm rejects the word, or prints `.INVALIDn` / `?` in it.
//!
//! The control-code bits (105-127) are flipped too but reported apart: their meaning is
//! known (stall, yield, scoreboards, wait mask, reuse) and their probe checks that tangle
//! accepts and refuses the same control codes nvdisasm does. [`summary`] writes the results
//! as TSV, [`markdown`] as the docs' summary.

pub mod elf;
pub mod markdown;
pub mod nvdisasm;
pub mod summary;
pub mod tokens;

use std::collections::HashMap;

use crate::form::{Form, OP_BITS};
use crate::{decode, forms, Arch, Control, Word};

pub use nvdisasm::{Nvdisasm, RawDisassembler, RawText};

/// The first control-code bit: bits 0-104 are the operation's.
pub const FIRST_CONTROL_BIT: u8 = 105;

/// What one flipped bit does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BitClass {
    /// nvdisasm prints the seed's text; `tangle_accepts` says whether tangle decodes the
    /// flipped word too (a control bit) or refuses it (a constant bit of the form).
    Ignored {
        /// Whether tangle decodes the flipped word to the seed's text.
        tangle_accepts: bool,
    },
    /// The text changes exactly as tangle's decoder predicts.
    Explained,
    /// nvdisasm prints `nv`, which tangle refuses (`tangle: None`) or prints differently.
    Unexplained {
        /// nvdisasm's text.
        nv: String,
        /// tangle's text, `None` where tangle refuses the word.
        tangle: Option<String>,
        /// The tokens nvdisasm's text has that the seed's lacks ([`tokens::new_tokens`]).
        tokens: Vec<String>,
    },
    /// The bit was not flipped (see [`Seed::flip`]).
    Skipped,
    /// nvdisasm rejects the word (its message) or prints an `.INVALIDn` or `?` text.
    Invalid {
        /// nvdisasm's message or text.
        why: String,
    },
}

impl BitClass {
    /// The class's name in reports: `ignored`, `explained`, `unexplained`, `wrong` (an
    /// unexplained bit where tangle prints another text) or `invalid`.
    pub fn name(&self) -> &'static str {
        match self {
            BitClass::Ignored { .. } => "ignored",
            BitClass::Explained => "explained",
            BitClass::Unexplained { tangle: None, .. } => "unexplained",
            BitClass::Unexplained { .. } => "wrong",
            BitClass::Invalid { .. } => "invalid",
            BitClass::Skipped => "skipped",
        }
    }
}

/// A form and the word whose bits are flipped.
#[derive(Clone, Copy, Debug)]
pub struct Seed {
    /// The form (its fields are what the probe checks).
    pub form: &'static Form,
    /// The seed word: the form's sample unless given otherwise.
    pub word: Word,
    /// The bits flipped (a mask); the others are [`BitClass::Skipped`].
    pub flip: u128,
}

/// `w` with the control code `[B------:R-:W-:Y:S01]`, which every form accepts (a
/// sample's own code may be zero: write scoreboard 0, which control flow cannot take).
pub fn neutral_control(mut w: Word) -> Word {
    Control {
        stall: 1,
        yield_bit: true,
        write_sb: None,
        read_sb: None,
        wait: 0,
        reuse: 0,
    }
    .encode(&mut w);
    w
}

/// Every bit.
pub const ALL_BITS: u128 = u128::MAX;
/// Bits 0-8: the opcode proper. Flipping one names another operation (probed as its own
/// seed where tangle knows it), or a word nvdisasm rejects.
pub const OPCODE_BITS: u128 = 0x1ff;
/// Bits 9-11 (the operand-form selector of ALU operations) and 105-127 (the control code):
/// with `once_per_opcode`, [`seeds`] flips them on the first form of each opcode only.
pub const PER_OPCODE_BITS: u128 = 0xe00 | !OP_BITS;

/// The seed word of `form` on `arch`, under [`neutral_control`]: its sample where tangle
/// decodes that to `form` itself, else the first word of `corpus` that tangle decodes to
/// `form`, else the first such word one bit (12-104) away from the sample, else the
/// sample. (A few samples print under another form of the same text, or are refused: an
/// odd register pair, a NaN payload tangle prints otherwise.)
pub fn seed_word(arch: Arch, form: &'static Form, corpus: &[Word]) -> Word {
    let decodes_to_form = |w: Word| {
        decode(arch, w, 0)
            .ok()
            .is_some_and(|i| std::ptr::eq(i.form, form))
    };
    let sample = neutral_control(form.sample);
    if decodes_to_form(sample) {
        return sample;
    }
    let neighbours = (12..FIRST_CONTROL_BIT).map(|b| Word(sample.0 ^ 1u128 << b));
    corpus
        .iter()
        .map(|&w| neutral_control(w))
        .chain(neighbours)
        .find(|&w| decodes_to_form(w))
        .unwrap_or(sample)
}

/// The seeds of `arch`: every form on it that `keep` selects, with its [`seed_word`]
/// (`corpus`: words to seed from where a sample does not serve) and every bit to flip;
/// with `once_per_opcode`, bits 0-8 are not flipped and [`PER_OPCODE_BITS`] only on the
/// first form of each opcode (in decode priority): those words name other operations or
/// another operand form (each probed as its own seed), or are rejected.
pub fn seeds(
    arch: Arch,
    mut keep: impl FnMut(&Form) -> bool,
    once_per_opcode: bool,
    corpus: &[Word],
) -> Vec<Seed> {
    let mut seen = std::collections::HashSet::new();
    forms::all()
        .iter()
        .filter(|f| f.on(arch) && keep(f))
        .map(|form| {
            let first = seen.insert(form.opcode);
            let flip = match (once_per_opcode, first) {
                (false, _) => ALL_BITS,
                (true, true) => ALL_BITS & !OPCODE_BITS,
                (true, false) => ALL_BITS & !OPCODE_BITS & !PER_OPCODE_BITS,
            };
            Seed {
                form,
                word: seed_word(arch, form, corpus),
                flip,
            }
        })
        .collect()
}

/// The probe of one form.
#[derive(Clone, Debug)]
pub struct FormProbe {
    /// The form probed.
    pub form: &'static Form,
    /// Its seed word.
    pub seed: Word,
    /// nvdisasm's text of the seed, or why it was rejected.
    pub seed_text: Result<String, String>,
    /// Whether tangle's text of the seed equals nvdisasm's. When it does not, "ignored" is
    /// judged against nvdisasm's seed text, and the form is listed in the summary.
    pub seed_agrees: bool,
    /// One class per bit, bit 0 first (128 entries).
    pub bits: Vec<BitClass>,
}

impl FormProbe {
    /// How many of the bits in `mask` have class `name` ([`BitClass::name`]).
    pub fn count(&self, mask: u128, name: &str) -> usize {
        (0..128)
            .filter(|&b| mask >> b & 1 == 1 && self.bits[b].name() == name)
            .count()
    }

    /// The bits a form declares as fields (modifiers and operands) that nvdisasm ignores:
    /// a form error (a field where nvdisasm has none), or a field that prints nothing for
    /// the values either side of the seed's.
    pub fn ignored_field_bits(&self) -> Vec<u8> {
        let fields = self.form.field_bits();
        (0..128u8)
            .filter(|&b| fields >> b & 1 == 1)
            .filter(|&b| matches!(self.bits[b as usize], BitClass::Ignored { .. }))
            .collect()
    }
}

/// The probe of one architecture.
#[derive(Clone, Debug)]
pub struct ArchProbe {
    /// The architecture.
    pub arch: Arch,
    /// One entry per seed, in seed order.
    pub forms: Vec<FormProbe>,
    /// Distinct words given to the disassembler.
    pub words: usize,
    /// Times the disassembler was started.
    pub calls: usize,
}

/// The token of a bit whose flip leaves nvdisasm's text unchanged but not tangle's.
pub const UNCHANGED_TOKEN: &str = "(nvdisasm text unchanged)";

/// What tangle prints for a word at an address, or why it refuses it.
pub type Predict<'a> = &'a dyn Fn(Word, u64) -> Result<String, String>;

/// tangle's decoder on `arch` as a [`Predict`]: the table's text, or the refusal.
pub fn table_decoder(arch: Arch) -> impl Fn(Word, u64) -> Result<String, String> {
    move |w, addr| {
        decode(arch, w, addr)
            .map(|i| i.text())
            .map_err(|e| e.to_string())
    }
}

/// Whether nvdisasm's text marks the word invalid though it printed it.
fn invalid_text(text: &str) -> bool {
    text.contains("INVALID") || text.contains('?')
}

/// Probes every seed on `arch`: 129 words per seed (the seed, then each bit flipped) in one
/// batch for `dis`, classified against `predict`.
pub fn probe_arch(
    arch: Arch,
    seeds: &[Seed],
    dis: &mut dyn RawDisassembler,
    predict: Predict<'_>,
) -> Result<ArchProbe, String> {
    let calls_before = dis.calls();
    // Per seed: the seed, then one word per bit (the seed again for a skipped bit, which
    // costs nothing: each distinct word is disassembled once).
    let mut words = Vec::with_capacity(seeds.len() * 129);
    for s in seeds {
        words.push(s.word);
        words.extend((0..128).map(|b| Word(s.word.0 ^ (s.flip >> b & 1) << b)));
    }
    // Each distinct word goes to the disassembler once (forms whose samples differ in one or
    // two bits share variants); its text and address serve every copy.
    let mut index: HashMap<Word, usize> = HashMap::new();
    let mut unique = Vec::new();
    let slots: Vec<usize> = words
        .iter()
        .map(|&w| {
            *index.entry(w).or_insert_with(|| {
                unique.push(w);
                unique.len() - 1
            })
        })
        .collect();
    let unique_texts = dis.disassemble(arch, &unique)?;
    let texts: Vec<RawText> = slots.iter().map(|&k| unique_texts[k].clone()).collect();
    let forms = seeds
        .iter()
        .zip(texts.chunks(129))
        .map(|(s, t)| classify_form(*s, t, predict))
        .collect();
    Ok(ArchProbe {
        arch,
        forms,
        words: unique.len(),
        calls: dis.calls() - calls_before,
    })
}

/// Classifies the 128 flipped words of one seed (`texts[0]` is the seed's own text).
fn classify_form(seed: Seed, texts: &[RawText], predict: Predict<'_>) -> FormProbe {
    let (seed_text, seed_agrees) = match &texts[0] {
        RawText::Text { text, addr } => (
            Ok(text.clone()),
            predict(seed.word, *addr).as_deref() == Ok(text.as_str()),
        ),
        RawText::Rejected(why) => (Err(why.clone()), false),
    };
    let bits = (0..128)
        .map(|b| {
            if seed.flip >> b & 1 == 0 {
                return BitClass::Skipped;
            }
            let w = Word(seed.word.0 ^ 1u128 << b);
            classify_bit(seed, w, &texts[1 + b], seed_agrees, &seed_text, predict)
        })
        .collect();
    FormProbe {
        form: seed.form,
        seed: seed.word,
        seed_text,
        seed_agrees,
        bits,
    }
}

fn classify_bit(
    seed: Seed,
    w: Word,
    nv: &RawText,
    seed_agrees: bool,
    seed_text: &Result<String, String>,
    predict: Predict<'_>,
) -> BitClass {
    let (text, addr) = match nv {
        RawText::Rejected(why) => return BitClass::Invalid { why: why.clone() },
        RawText::Text { text, addr } => (text, *addr),
    };
    if invalid_text(text) {
        return BitClass::Invalid { why: text.clone() };
    }
    // The seed's text at this word's address: tangle's where tangle agrees with nvdisasm on
    // the seed (branch targets move with the address), else nvdisasm's at address 0.
    let reference = if seed_agrees {
        predict(seed.word, addr).ok()
    } else {
        seed_text.as_ref().ok().cloned()
    };
    let tangle = predict(w, addr);
    let unchanged = reference.as_deref() == Some(text.as_str());
    match (&tangle, unchanged) {
        (Ok(t), true) if t == text => BitClass::Ignored {
            tangle_accepts: true,
        },
        (Err(_), true) => BitClass::Ignored {
            tangle_accepts: false,
        },
        (Ok(t), false) if t == text => BitClass::Explained,
        _ => BitClass::Unexplained {
            nv: text.clone(),
            tangle: tangle.ok(),
            // nvdisasm's text unchanged while tangle's differs: tangle models a field
            // nvdisasm ignores (or masks), so there is no new token to name.
            tokens: match reference.as_deref() {
                _ if unchanged => vec![UNCHANGED_TOKEN.to_string()],
                Some(r) => tokens::new_tokens(text, r),
                None => vec![text.clone()],
            },
        },
    }
}

/// A copy of `form` with the first piece of operand `operand` moved up by one bit: a
/// deliberately broken form, which the probe must catch (its tests use it).
pub fn shifted_operand_mutant(form: &Form, operand: usize) -> Option<&'static Form> {
    let mut m = form.clone();
    let piece = m.ops.get_mut(operand)?.pieces.first_mut()?;
    piece.0 += 1;
    if (piece.0 as u32 + piece.1 as u32) as u128 > OP_BITS.count_ones() as u128 {
        return None;
    }
    m.cached_mask = 0;
    m.cached_mask = m.const_mask();
    Some(Box::leak(Box::new(m)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in for nvdisasm: tangle's own text, except that bit `extra` adds `.NEW` to
    /// the mnemonic, and words tangle refuses are rejected.
    struct Echo {
        extra: u32,
        calls: usize,
    }

    impl RawDisassembler for Echo {
        fn disassemble(&mut self, arch: Arch, words: &[Word]) -> Result<Vec<RawText>, String> {
            self.calls += 1;
            Ok(words
                .iter()
                .enumerate()
                .map(|(k, &w)| {
                    let addr = 16 * k as u64;
                    let seed = Word(w.0 ^ 1u128 << self.extra);
                    match (decode(arch, w, addr), decode(arch, seed, addr)) {
                        (Ok(i), _) => RawText::Text {
                            text: i.text(),
                            addr,
                        },
                        (Err(_), Ok(i)) => {
                            let t = i.text();
                            let (m, rest) = t.split_once(' ').unwrap_or((&t, ""));
                            RawText::Text {
                                text: format!("{m}.NEW {rest}"),
                                addr,
                            }
                        }
                        (Err(e), Err(_)) => RawText::Rejected(e.to_string()),
                    }
                })
                .collect())
        }

        fn calls(&self) -> usize {
            self.calls
        }
    }

    #[test]
    fn classes_follow_the_disassembler_and_the_decoder() {
        let arch = Arch::Sm86;
        let seeds = seeds(arch, |f| f.name == "IADD3" && f.opcode == 0x210, false, &[]);
        assert!(!seeds.is_empty());
        // Bit 100 is a constant of IADD3's form: with the stand-in it prints `.NEW`.
        let mut dis = Echo {
            extra: 100,
            calls: 0,
        };
        let p = probe_arch(arch, &seeds[..1], &mut dis, &table_decoder(arch)).unwrap();
        assert_eq!((p.words, p.calls), (129, 1));
        let f = &p.forms[0];
        assert!(f.seed_agrees);
        let fields = f.form.field_bits();
        for b in 0..128 {
            let c = &f.bits[b];
            if b == 100 {
                let BitClass::Unexplained { tokens, tangle, .. } = c else {
                    panic!("bit 100: {c:?}");
                };
                assert_eq!(
                    (tokens.as_slice(), tangle),
                    (&[".NEW".to_string()][..], &None)
                );
            } else if fields >> b & 1 == 1 {
                // A field bit is explained, or refused as ambiguous text (a carry-out that
                // prints nothing when PT) and so rejected by the stand-in.
                assert!(
                    matches!(c, BitClass::Explained | BitClass::Invalid { .. }),
                    "field bit {b}: {c:?}"
                );
            } else {
                assert_ne!(c.name(), "unexplained", "bit {b}");
            }
        }
        assert!(f.ignored_field_bits().is_empty());
    }

    #[test]
    fn a_shifted_field_mispredicts() {
        let arch = Arch::Sm86;
        let form = seeds(arch, |f| f.name == "IADD3" && f.opcode == 0x210, false, &[])[0].form;
        // Operand 4 is B (bits 32-39): Rd, the two carry-outs, A, B, C.
        assert_eq!(form.ops[4].pieces[0], (32, 8));
        let mutant = shifted_operand_mutant(form, 4).unwrap();
        let seed = [Seed {
            form: mutant,
            word: form.sample,
            flip: ALL_BITS,
        }];
        let predict = |w, addr| {
            crate::decode_as(arch, mutant, w, addr)
                .map(|i| i.text())
                .ok_or_else(|| "refused".to_string())
        };
        let mut dis = Echo {
            extra: 127,
            calls: 0,
        };
        let p = probe_arch(arch, &seed, &mut dis, &predict).unwrap();
        assert_eq!(p.forms[0].bits[33].name(), "wrong");
    }
}
