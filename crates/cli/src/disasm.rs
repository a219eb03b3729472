//! `tangle disasm`: SASS text from a cubin or from raw 128-bit words.

use std::path::Path;
use std::process::ExitCode;

use tangle_sass::{cubin, disassemble, listing, words_from_bytes, Arch};

/// Disassembles `input`: a cubin (ELF; every `.text.<function>` section, in section order,
/// with nvdisasm's labels and symbol directives, see [`listing`]) or raw little-endian
/// 16-byte words (then `arch` is required; branch targets are absolute byte addresses).
/// With `cuobjdump`, a cubin is printed as `cuobjdump -sass` prints it
/// ([`tangle_sass::cuobjdump`]). Exit status 1 when some word was refused.
pub fn run(input: &Path, arch: Option<&str>, control: bool, cuobjdump: bool) -> ExitCode {
    let bytes = match std::fs::read(input) {
        Ok(b) => b,
        Err(e) => return crate::fail(format!("cannot read {}: {e}", input.display())),
    };
    let arch = match arch.map(str::parse::<Arch>).transpose() {
        Ok(a) => a,
        Err(e) => return crate::fail(e.to_string()),
    };
    let mut out = String::new();
    let refused;
    if cubin::is_elf(&bytes) {
        let c = match cubin::read(&bytes) {
            Ok(c) => c,
            Err(e) => return crate::fail(format!("{}: {e}", input.display())),
        };
        let Some(file_arch) = c.arch else {
            return crate::fail(format!("{}: sm_{} is not supported", input.display(), c.sm));
        };
        if arch.is_some_and(|a| a != file_arch) {
            return crate::fail(format!("{}: the cubin is for {file_arch}", input.display()));
        }
        let l = if cuobjdump {
            tangle_sass::cuobjdump::sass_listing(&c, file_arch)
        } else {
            listing::cubin_listing(&c, file_arch, control)
        };
        for line in &l.lines {
            out.push_str(line);
            out.push('\n');
        }
        refused = l.refused;
    } else {
        let Some(arch) = arch else {
            return crate::fail("raw words need --arch sm_XX".to_string());
        };
        if cuobjdump {
            return crate::fail(
                "--cuobjdump prints cubins; raw words have no functions".to_string(),
            );
        }
        let words = match words_from_bytes(&bytes) {
            Ok(w) => w,
            Err(e) => return crate::fail(format!("{}: {e}", input.display())),
        };
        let lines = disassemble(arch, &words, 0, control);
        refused = lines.iter().filter(|l| l.contains("<refused:")).count();
        for line in lines {
            out.push_str(&line);
            out.push('\n');
        }
    }
    print!("{out}");
    if refused > 0 {
        eprintln!("tangle disasm: {refused} word(s) refused (no known form explains every bit)");
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
