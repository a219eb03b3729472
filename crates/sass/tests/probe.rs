//! The bit probe (`tangle_sass::probe`) on a bounded set: a few forms on SM86, against
//! nvdisasm. The full run over every form and SM is done by hand with `tangle-sass-probe`
//! (`docs/sass-probe.md`).

use tangle_oracle::{require, Tool};
use tangle_sass::probe::{
    self, shifted_operand_mutant, summary, tokens::CorpusTokens, ArchProbe, BitClass, Nvdisasm,
    RawDisassembler, RawText, Seed, ALL_BITS, FIRST_CONTROL_BIT, OPCODE_BITS,
};
use tangle_sass::{decode_as, forms, Arch, Form, OpndKind};

const ARCH: Arch = Arch::Sm86;

/// The forms probed: register IADD3, LOP3 with an immediate, ISETP, BRA (its target moves
/// with the address) and S2R.
fn chosen() -> Vec<&'static Form> {
    let pick = |name: &str, opcode: u16| {
        forms::for_opcode(ARCH, opcode)
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("no {name} {opcode:#x} form on {ARCH}"))
    };
    vec![
        pick("IADD3", 0x210),
        pick("LOP3", 0x812),
        pick("ISETP", 0x20c),
        pick("BRA", 0x947),
        pick("S2R", 0x919),
    ]
}

fn run(seeds: &[Seed], predict: probe::Predict<'_>) -> Option<ArchProbe> {
    let nv = require(Tool::Nvdisasm, "probe")?;
    let dir = tangle_oracle::scratch_dir();
    let mut dis = Nvdisasm::new(&nv.path, dir.path());
    let p = probe::probe_arch(ARCH, seeds, &mut dis, predict).expect("nvdisasm runs");
    // One batch: the cubin screen finds every rejected word, raw mode prints the rest.
    assert_eq!(p.calls, 2, "nvdisasm runs for one batch");
    Some(p)
}

#[test]
fn every_field_bit_of_the_chosen_forms_is_explained_or_invalid() {
    let seeds: Vec<Seed> = chosen()
        .into_iter()
        .map(|form| Seed {
            form,
            word: probe::neutral_control(form.sample),
            flip: ALL_BITS & !OPCODE_BITS,
        })
        .collect();
    let Some(p) = run(&seeds, &probe::table_decoder(ARCH)) else {
        return;
    };
    eprint!("{}", summary::forms_tsv(&p));
    eprint!("{}", summary::tokens_tsv(&p, &CorpusTokens::default()));
    // Each seed and its 119 flipped words (bits 0-8 are not flipped), each word once.
    assert_eq!(p.words, seeds.len() * 120);
    for f in &p.forms {
        let what = format!("{} {:#x}", f.form.name, f.form.opcode);
        assert!(f.seed_agrees, "{what}: seed text {:?}", f.seed_text);
        assert!(
            f.ignored_field_bits().is_empty(),
            "{what}: field bits nvdisasm ignores: {:?}",
            f.ignored_field_bits()
        );
        let fields = f.form.field_bits();
        for (b, c) in f.bits.iter().enumerate() {
            // IADD3's second carry-out (84-86) with the first one PT prints like the first
            // one: tangle refuses that text by design (docs/sass.md, "Forms").
            let ambiguous = f.form.name == "IADD3" && (84..87).contains(&b);
            if fields >> b & 1 == 1 && !ambiguous {
                assert!(
                    matches!(c, BitClass::Explained | BitClass::Invalid { .. }),
                    "{what}: field bit {b} is {c:?}"
                );
            }
            if ambiguous {
                assert_eq!(c.name(), "unexplained", "{what}: bit {b}");
            }
            // tangle never prints a text nvdisasm does not.
            assert_ne!(c.name(), "wrong", "{what}: bit {b}: {c:?}");
            // Control bits are known: nvdisasm and tangle accept and refuse the same ones.
            if b >= FIRST_CONTROL_BIT as usize {
                assert!(
                    !matches!(c, BitClass::Unexplained { .. }),
                    "{what}: control bit {b}: {c:?}"
                );
            }
        }
        // The opcode bits (0-11) either make another operation or an illegal word; some
        // operation bits are constants nvdisasm ignores or rejects, and every form has
        // explained bits besides its fields' (the guard, 12-15).
        assert!(f.count(0xf000, "explained") == 4, "{what}: guard bits");
    }
    // The BRA target moves with each variant's address, and still its offset bits are
    // explained, not unexplained: the addresses are tracked through nvdisasm's reruns.
    let bra = p.forms.iter().find(|f| f.form.name == "BRA").unwrap();
    let target = bra
        .form
        .ops
        .iter()
        .find(|o| o.kind == OpndKind::Target)
        .unwrap();
    let low = target.pieces[0].0 as usize;
    assert_eq!(bra.bits[low + 1], BitClass::Explained);
}

#[test]
fn a_form_with_a_shifted_field_is_caught() {
    let iadd3 = chosen()[0];
    // Operand 4 is B (Rd, the two carry-outs, A, B, C), register bits 32-39; the mutant
    // reads it from 33-40.
    assert_eq!(iadd3.ops[4].pieces[0], (32, 8));
    let mutant = shifted_operand_mutant(iadd3, 4).expect("a mutant");
    // Bits 12-63: the guard, the registers and their neighbours.
    let flip = ((1u128 << 64) - 1) & !0xfff;
    let seeds = [Seed {
        form: mutant,
        word: probe::neutral_control(iadd3.sample),
        flip,
    }];
    let predict_mutant = |w, addr| {
        decode_as(ARCH, mutant, w, addr)
            .map(|i| i.text())
            .ok_or_else(|| "refused".to_string())
    };
    let Some(p) = run(&seeds, &predict_mutant) else {
        return;
    };
    let f = &p.forms[0];
    let wrong: Vec<usize> = (0..128).filter(|&b| f.bits[b].name() == "wrong").collect();
    let unexplained: Vec<usize> = (0..128)
        .filter(|&b| f.bits[b].name() == "unexplained")
        .collect();
    eprintln!("mutant: wrong {wrong:?}, unexplained {unexplained:?}");
    // Bits 33-39 print another register than the mutant says; bit 32 changes the text
    // though the mutant holds it constant.
    assert!((33..40).all(|b| wrong.contains(&b)), "wrong bits {wrong:?}");
    assert!(
        unexplained.contains(&32),
        "unexplained bits {unexplained:?}"
    );

    // The same single-form decoder on the real form has no wrong bit: the mutant's are its own.
    let real = [Seed {
        form: iadd3,
        word: probe::neutral_control(iadd3.sample),
        flip,
    }];
    let predict_real = |w, addr| {
        decode_as(ARCH, iadd3, w, addr)
            .map(|i| i.text())
            .ok_or_else(|| "refused".to_string())
    };
    let p = run(&real, &predict_real).expect("nvdisasm was found above");
    let f = &p.forms[0];
    assert!(
        (0..128).all(|b| f.bits[b].name() != "wrong"),
        "{:?}",
        f.bits
    );
    assert!((32..40).all(|b| f.bits[b] == BitClass::Explained));
}

#[test]
fn the_cubin_screen_rejects_exactly_the_words_raw_mode_rejects() {
    let Some(nv) = require(Tool::Nvdisasm, "probe") else {
        return;
    };
    // The opcode, guard and control bits of IADD3: most of the words nvdisasm rejects
    // are among them (another opcode, an illegal control code).
    let flip = 0xffff | !((1u128 << FIRST_CONTROL_BIT) - 1);
    let seeds: Vec<Seed> = chosen()[..1]
        .iter()
        .map(|&form| Seed {
            form,
            word: probe::neutral_control(form.sample),
            flip,
        })
        .collect();
    let words: Vec<tangle_sass::Word> = seeds
        .iter()
        .flat_map(|s| (0..128).map(move |b| tangle_sass::Word(s.word.0 ^ (s.flip >> b & 1) << b)))
        .collect();
    let dir = tangle_oracle::scratch_dir();
    let mut screened = Nvdisasm::new(&nv.path, dir.path());
    let mut raw = Nvdisasm::new(&nv.path, dir.path());
    raw.screen = false;
    let a = screened.disassemble(ARCH, &words).expect("nvdisasm runs");
    let b = raw.disassemble(ARCH, &words).expect("nvdisasm runs");
    let rejected = a
        .iter()
        .filter(|t| matches!(t, RawText::Rejected(_)))
        .count();
    eprintln!(
        "{} words, {rejected} rejected; nvdisasm runs: screened {}, raw alone {}",
        words.len(),
        screened.calls(),
        raw.calls()
    );
    assert!(
        rejected >= 5,
        "too few rejected words to compare: {rejected}"
    );
    // The texts and the rejections agree (the addresses differ: each run places the words
    // anew, and none of these texts depends on its address).
    let text = |t: &RawText| match t {
        RawText::Text { text, .. } => Some(text.clone()),
        RawText::Rejected(_) => None,
    };
    let differ: Vec<String> = (0..words.len())
        .filter(|&k| text(&a[k]) != text(&b[k]))
        .map(|k| format!("{}: {:?} / {:?}", words[k], a[k], b[k]))
        .collect();
    assert!(differ.is_empty(), "screened / raw alone: {differ:#?}");
    assert_eq!(screened.calls(), 2);
    assert!(raw.calls() > rejected);
}
