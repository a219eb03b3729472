//! `tangle asm`: raw 128-bit words from SASS text.

use std::path::Path;
use std::process::ExitCode;

use tangle_sass::{assemble, Arch};

/// Assembles `input` (one instruction per line, optional `[B------:R-:W-:Y:S01]` control
/// annotation; nvdisasm's syntax, with absolute branch targets or, as nvdisasm prints
/// cubins, labels: `name:` lines and `` `(name) `` targets, per `.section`) into
/// little-endian words, the sections' words one after the other.
pub fn run(input: &Path, arch: &str, output: &Path) -> ExitCode {
    let arch = match arch.parse::<Arch>() {
        Ok(a) => a,
        Err(e) => return crate::fail(e.to_string()),
    };
    let text = match std::fs::read_to_string(input) {
        Ok(t) => t,
        Err(e) => return crate::fail(format!("cannot read {}: {e}", input.display())),
    };
    let words = match assemble(arch, &text) {
        Ok(w) => w,
        Err(e) => return crate::fail(format!("{}: {e}", input.display())),
    };
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    if let Err(e) = std::fs::write(output, bytes) {
        return crate::fail(format!("cannot write {}: {e}", output.display()));
    }
    ExitCode::SUCCESS
}
