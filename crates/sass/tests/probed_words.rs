//! Words ptxas writes for the forms of issue 12's f2fp step (fp8 F2FP, bf16 immediates,
//! VIADD.16x2, UP2UR/UR2UP, DEPBAR, RPCMOV), with the text nvdisasm prints for them
//! (`tests/probed-words.tsv`), checked without any NVIDIA tool: each decodes to that text
//! on its SM, assembles back from it (DEPBAR with bit 87 clear: to the word with the bit
//! set, the only difference), survives the typed round trip, and is refused on the SMs
//! where nvdisasm has no such form.

mod typed_check;

use tangle_sass::{decode, encode, same_but_unprinted, Arch, Control, Word};

fn rows() -> Vec<(Arch, Word, String)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/probed-words.tsv");
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let [arch, word, theirs] = f[..] else {
                panic!("{}: expected 3 columns: {l}", path.display());
            };
            (
                arch.parse().unwrap(),
                Word::parse_hex(word).unwrap(),
                theirs.to_string(),
            )
        })
        .collect()
}

#[test]
fn probed_words_print_assemble_and_round_trip() {
    let rows = rows();
    assert!(rows.len() >= 20, "only {} rows", rows.len());
    let mut failures = Vec::new();
    for (arch, w, theirs) in &rows {
        let at = format!("{arch} {w} `{theirs}`");
        match decode(*arch, *w, 0) {
            Ok(i) if i.text() == *theirs => {}
            Ok(i) => failures.push(format!("{at}: tangle prints `{}`", i.text())),
            Err(e) => failures.push(format!("{at}: refused: {e}")),
        }
        match encode(*arch, theirs, Control::decode(*w), 0) {
            Ok(back) if back == *w => {}
            // DEPBAR's bit 87, which nvdisasm ignores: the text gives ptxas's usual 1.
            Ok(back)
                if theirs.starts_with("DEPBAR")
                    && back.0 == w.0 | 1 << 87
                    && same_but_unprinted(*arch, *w, back, 0) => {}
            Ok(back) => failures.push(format!("{at}: assembles to {back}")),
            Err(e) => failures.push(format!("{at}: not assembled: {e}")),
        }
        if let Err(e) = typed_check::typed_round_trip(*arch, *w, 0) {
            failures.push(format!("{at}: typed round trip: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The fp8 F2FP layouts exist from SM89 on: SM80 and SM86 refuse the words.
#[test]
fn fp8_conversions_are_refused_before_sm89() {
    for (arch, w, theirs) in rows() {
        if arch == Arch::Sm89 && theirs.starts_with("F2FP") {
            for old in [Arch::Sm80, Arch::Sm86] {
                assert!(decode(old, w, 0).is_err(), "{old} decodes `{theirs}`");
            }
        }
    }
}

/// UP2UR reads and UR2UP writes the uniform predicates their mask selects (implicit
/// operands, as P2R and R2P with the predicates).
#[test]
fn uniform_predicate_moves_name_the_predicates_of_their_mask() {
    use tangle_sass::decode_typed;
    use tangle_sass::typed::Loc;
    let all: Vec<Loc> = (0..7).map(Loc::Up).collect();
    // UP2UR.B3 UR62, UPR, UR62, 0xff
    let up2ur = Word::from_halves(0x000000ff3e3e7883, 0x000fc80008003000);
    let t = decode_typed(Arch::Sm90, up2ur, 0).unwrap();
    assert_eq!(t.defs(), vec![Loc::Ur(62)]);
    let mut uses = vec![Loc::Ur(62)];
    uses.extend(&all);
    assert_eq!(t.uses(), uses);
    // UR2UP UPR, UR62.B3 (mask 0xff, hidden), and with mask 0x5: UP0 and UP2.
    let ur2up = Word::from_halves(0x000000ff3e007884, 0x000fc60008003000);
    let t = decode_typed(Arch::Sm90, ur2up, 0).unwrap();
    assert_eq!(t.defs(), all);
    assert_eq!(t.uses(), vec![Loc::Ur(62)]);
    let ur2up5 = Word::from_halves(0x000000053e007884, 0x000fc60008003000);
    let t = decode_typed(Arch::Sm90, ur2up5, 0).unwrap();
    assert_eq!(t.text(Arch::Sm90, 0).unwrap(), "UR2UP UPR, UR62.B3, 0x5");
    assert_eq!(t.defs(), vec![Loc::Up(0), Loc::Up(2)]);
}

/// DEPBAR's bit 87 prints nothing (nvdisasm ignores it on every SM): the typed instruction
/// keeps the word's value, and text gives ptxas's usual value, 1 (it clears the bit only
/// for `cp.async.wait_group`).
#[test]
fn depbar_bit_87_is_kept_by_the_typed_instruction_and_set_from_text() {
    use tangle_sass::decode_typed;
    for arch in Arch::ALL {
        let clear = Word::from_halves(0x000080400000791a, 0x000fc80000000000);
        let set = Word::from_halves(clear.lo(), clear.hi() | 1 << 23);
        for w in [clear, set] {
            assert_eq!(decode(arch, w, 0).unwrap().text(), "DEPBAR.LE SB0, 0x1");
            assert_eq!(
                decode_typed(arch, w, 0).unwrap().encode(arch, 0).unwrap(),
                w
            );
        }
        let ctl = Control::decode(clear);
        assert_eq!(encode(arch, "DEPBAR.LE SB0, 0x1", ctl, 0).unwrap(), set);
    }
}

/// RPCMOV's half of the return program counter is an operand with a role: the move to
/// `Rpc.HI` writes it and reads the register; the move from it reads it (and the guard).
#[test]
fn return_pc_moves_write_or_read_the_half_they_name() {
    use tangle_sass::decode_typed;
    use tangle_sass::typed::{Loc, RpcHalf};
    for arch in Arch::ALL {
        // @!P1 RPCMOV.32 Rpc.HI, R5
        let to_rpc = Word::from_halves(0x0000000580009352, 0x001fcc0000000000);
        let t = decode_typed(arch, to_rpc, 0).unwrap();
        assert_eq!(t.defs(), vec![Loc::Rpc(RpcHalf::Hi)], "{arch}");
        assert_eq!(t.uses(), vec![Loc::P(1), Loc::R(5)], "{arch}");
        // @!P1 RPCMOV.32 R4, Rpc.LO
        let from_rpc = Word::from_halves(0x0000000000049353, 0x000fe20000000000);
        let t = decode_typed(arch, from_rpc, 0).unwrap();
        assert_eq!(t.defs(), vec![Loc::R(4)], "{arch}");
        assert_eq!(t.uses(), vec![Loc::P(1), Loc::Rpc(RpcHalf::Lo)], "{arch}");
    }
}
