//! The smallest cubin nvdisasm reads: an ELF header, a section-name table and one code
//! section holding the probe's words.
//!
//! In raw mode (`-b SMxx`) nvdisasm stops at the first word it rejects. Given a cubin, it
//! checks every word of a code section and names the address of each one it rejects
//! before giving up, so one run finds every rejected word of a batch (measured with
//! nvdisasm 13.5: 6,006 rejected words of 60,000, all named, in one run). The probe screens
//! each batch this way ([`super::nvdisasm`]), then prints the rest in raw mode, whose text
//! has no labels.

use crate::cubin::{ELFOSABI_CUDA, EM_CUDA};
use crate::Arch;

const SHT_PROGBITS: u32 = 1;
const SHT_STRTAB: u32 = 3;
const SHF_ALLOC_EXECINSTR: u64 = 0x6;
const ET_EXEC: u16 = 2;
/// The CUDA ELF ABI version ptxas 13.5 writes; with it the SM number is in `e_flags`
/// bits 8-15.
const CUDA_ABI_VERSION: u8 = 8;
/// Where the code section starts in the file (its alignment).
const TEXT_OFFSET: usize = 128;
const NAMES: &[u8] = b"\0.shstrtab\0.text.probe\0";
/// Offsets of the two names in [`NAMES`].
const SHSTRTAB_NAME: u32 = 1;
const TEXT_NAME: u32 = 11;

/// A cubin for `arch` whose one code section, `.text.probe` at address 0, holds `code`.
pub fn code_cubin(arch: Arch, code: &[u8]) -> Vec<u8> {
    let names_at = TEXT_OFFSET + code.len();
    let sections_at = (names_at + NAMES.len()).next_multiple_of(8);
    let mut out = Vec::with_capacity(sections_at + 3 * 64);
    out.extend(b"\x7fELF");
    out.extend([
        2,
        1,
        1,
        ELFOSABI_CUDA,
        CUDA_ABI_VERSION,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
    ]);
    out.extend(ET_EXEC.to_le_bytes());
    out.extend(EM_CUDA.to_le_bytes());
    out.extend(1u32.to_le_bytes()); // e_version
    out.extend(0u64.to_le_bytes()); // e_entry
    out.extend(0u64.to_le_bytes()); // e_phoff: no program headers
    out.extend((sections_at as u64).to_le_bytes());
    // The flags ptxas 13.5 sets on every SM, with the SM number in bits 8-15.
    out.extend((0x0600_0004u32 | arch.number() << 8).to_le_bytes());
    out.extend(64u16.to_le_bytes()); // e_ehsize
    out.extend(56u16.to_le_bytes()); // e_phentsize
    out.extend(0u16.to_le_bytes()); // e_phnum
    out.extend(64u16.to_le_bytes()); // e_shentsize
    out.extend(3u16.to_le_bytes()); // e_shnum
    out.extend(1u16.to_le_bytes()); // e_shstrndx
    out.resize(TEXT_OFFSET, 0);
    out.extend(code);
    out.extend(NAMES);
    out.resize(sections_at, 0);
    out.extend([0u8; 64]);
    section(
        &mut out,
        SHSTRTAB_NAME,
        SHT_STRTAB,
        0,
        names_at,
        NAMES.len(),
        1,
    );
    let text = (TEXT_NAME, SHT_PROGBITS, SHF_ALLOC_EXECINSTR);
    section(
        &mut out,
        text.0,
        text.1,
        text.2,
        TEXT_OFFSET,
        code.len(),
        128,
    );
    out
}

/// Appends one section header (no address, link, info or entry size).
fn section(
    out: &mut Vec<u8>,
    name: u32,
    kind: u32,
    flags: u64,
    offset: usize,
    size: usize,
    align: u64,
) {
    out.extend(name.to_le_bytes());
    out.extend(kind.to_le_bytes());
    out.extend(flags.to_le_bytes());
    out.extend(0u64.to_le_bytes()); // sh_addr
    out.extend((offset as u64).to_le_bytes());
    out.extend((size as u64).to_le_bytes());
    out.extend(0u32.to_le_bytes()); // sh_link
    out.extend(0u32.to_le_bytes()); // sh_info
    out.extend(align.to_le_bytes());
    out.extend(0u64.to_le_bytes()); // sh_entsize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tangle_reads_the_code_back() {
        let words = [crate::Word(0x1234), crate::Word(u128::MAX >> 2)];
        let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let bytes = code_cubin(Arch::Sm90, &code);
        let c = crate::cubin::read(&bytes).expect("a cubin tangle reads");
        assert_eq!((c.arch, c.sm), (Some(Arch::Sm90), 90));
        assert_eq!(c.functions.len(), 1);
        assert_eq!(c.functions[0].name, "probe");
        assert_eq!(c.functions[0].words, words);
    }
}
