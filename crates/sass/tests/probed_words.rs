//! Words ptxas writes for the forms of issue 12's f2fp step (fp8 F2FP, bf16 immediates,
//! VIADD.16x2, UP2UR/UR2UP, DEPBAR, RPCMOV), with the text nvdisasm prints for them
//! (`tests/probed-words.tsv`), checked without any NVIDIA tool: each decodes to that text
//! on its SM, assembles back from it, survives the typed round trip, and is refused on
//! the SMs where nvdisasm has no such form.

mod typed_check;

use tangle_sass::{decode, encode, Arch, Control, Word};

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
