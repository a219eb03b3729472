//! The typed round trip shared by the corpus and from-scratch tests: a word that decodes
//! becomes a typed instruction that encodes back to the word, and building the same
//! instruction from its operation, printed modifiers and operands gives the word again,
//! but for the bits a silent modifier holds (DEPBAR's bit 87: no printed component names
//! them, so the builder writes the default, as the assembler does).

use tangle_sass::typed::{MachInst, Operand};
use tangle_sass::{decode_typed, same_but_unprinted, Arch, Word};

/// `.c` as a `&'static str` (modifiers are static text), leaked once per distinct component.
fn intern(c: &str) -> &'static str {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static SEEN: OnceLock<Mutex<HashMap<String, &'static str>>> = OnceLock::new();
    let mut seen = SEEN.get_or_init(Default::default).lock().unwrap();
    seen.entry(c.to_string())
        .or_insert_with(|| Box::leak(format!(".{c}").into_boxed_str()))
}

/// `Ok` when `w` (which decodes on `arch` at `addr`) survives both round trips.
pub fn typed_round_trip(arch: Arch, w: Word, addr: u64) -> Result<(), String> {
    let t = decode_typed(arch, w, addr).map_err(|e| format!("decode_typed: {e}"))?;
    let back = t.encode(arch, addr).map_err(|e| format!("encode: {e}"))?;
    if back != w {
        return Err(format!("typed re-encoding gives {back}"));
    }
    let mut b = MachInst::build(t.op()).guard(t.guard).control(t.control);
    for c in t.components() {
        b = b.m(intern(c));
    }
    for o in &t.operands {
        b = b.o(Operand::clone(o));
    }
    let built = b.finish(arch).map_err(|e| format!("builder: {e}"))?;
    let again = built
        .encode(arch, addr)
        .map_err(|e| format!("built encode: {e}"))?;
    if again != w && !same_but_unprinted(arch, w, again, addr) {
        return Err(format!(
            "the builder chose form {:#05x} ({}) and gives {again}",
            built.form.opcode,
            built.suffix()
        ));
    }
    Ok(())
}
