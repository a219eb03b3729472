//! Golden tables: instruction words with the text nvdisasm printed for them, checked into
//! `tests/golden/` so the decoder and encoder are tested where the NVIDIA tools are absent.
//! Written by the oracle tests under `TANGLE_BLESS=1` (`corpus.rs`: every distinct corpus
//! word; `scratch.rs`: every eighth word built from scratch; `random.rs`: four random
//! instructions per form; `generated.rs`: every fourth exact word of the generated PTX
//! corpus); read by `golden.rs`.
//!
//! One file per source and SM, `<source>-sm_XX.tsv`: comment lines start with `#`; each
//! other line is `addr<TAB>0xLO 0xHI<TAB>control<TAB>text`, where `text` is nvdisasm's
//! (normalised as the tests compare it) at byte address `addr` and `control` the word's
//! control annotation as tangle prints it (nvdisasm prints none).

#![allow(dead_code)]

use std::path::PathBuf;

use tangle_sass::{Arch, Control, Word};

/// The directory of the golden tables.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("golden")
}

/// Whether the tests should rewrite the golden tables (`TANGLE_BLESS=1`).
pub fn blessing() -> bool {
    std::env::var("TANGLE_BLESS").is_ok_and(|v| v == "1")
}

/// Writes the golden table of `source` for `arch`: `(addr, word, nvdisasm text)` rows.
pub fn write(source: &str, arch: Arch, rows: &[(u64, Word, String)]) {
    let mut s = format!(
        "# golden table: {source} words on {arch}, text as nvdisasm prints it\n\
         # rewrite: TANGLE_BLESS=1 cargo test -p tangle-sass --test {source}\n\
         # addr\tword\tcontrol\ttext\n"
    );
    for (addr, w, text) in rows {
        s.push_str(&format!(
            "{addr:#06x}\t{w}\t{}\t{text}\n",
            Control::decode(*w)
        ));
    }
    std::fs::create_dir_all(dir()).unwrap();
    std::fs::write(dir().join(format!("{source}-{arch}.tsv")), s).unwrap();
}
