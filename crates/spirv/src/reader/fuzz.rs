//! The reader's fuzzing invariants, as library code: the cargo-fuzz target
//! (`crates/spirv/fuzz`, target `read_binary`) and the mutation smoke test both call
//! [`check`].

/// Reads `data` as a SPIR-V binary. Whatever it is, the reader must answer with a module or
/// a positioned error, never panic. A module that reads must print as IR text that parses
/// back to the same text; one that also verifies must write back to SPIR-V that reads again
/// and verifies.
pub fn check(data: &[u8]) {
    let module = match super::read_binary(data) {
        Ok(m) => m,
        Err(e) => {
            assert!(e.pos.is_some(), "an input error without a position: {e}");
            return;
        }
    };
    let text = tangle_ir::text::print(&module);
    let reparsed = tangle_ir::text::parse(&text).expect("printed IR parses");
    assert_eq!(
        tangle_ir::text::print(&reparsed),
        text,
        "print -> parse -> print"
    );
    if tangle_ir::verify::verify(&module).is_ok() {
        let words =
            crate::writer::write(&module).expect("a verified module read from SPIR-V writes");
        let again = super::read_words(&words).expect("a written module reads back");
        assert!(
            tangle_ir::verify::verify(&again).is_ok(),
            "a written module verifies"
        );
    }
}

pub use super::binary::DecoderOutcome;

/// Reads `data` with the reader's direct instruction decoder and with rspirv's binary
/// parser: a module the decoder reads must be one rspirv's parser reads, to the same
/// instructions (`Err` describes the first difference). `tests/binary_decoder.rs` runs it
/// on the corpus, mutants and random instruction streams.
pub fn compare_decoders(data: &[u8]) -> Result<DecoderOutcome, String> {
    super::binary::compare_decoders(data)
}
