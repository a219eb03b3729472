//! Reading the code of a cubin (an NVIDIA ELF file).
//!
//! Only the ELF header and the section table are read. ptxas places the section header table
//! at offsets that are not 8-byte aligned (e.g. 0x25f4), which the `object` crate's
//! zero-copy ELF reader rejects ("Invalid ELF section header offset/size/alignment"), so the
//! few fields needed are read here by hand, with bounds checks.

use crate::{Arch, SassError, Word};

/// The code of one function: the `.text.<name>` section.
#[derive(Clone, Debug)]
pub struct Function {
    /// The function's name (the section name without `.text.`).
    pub name: String,
    /// Its instruction words, from address 0 of the section.
    pub words: Vec<Word>,
}

/// A cubin's architecture (from the ELF header flags) and functions, in section order.
#[derive(Clone, Debug)]
pub struct Cubin {
    /// The architecture, when it is one of the supported ones.
    pub arch: Option<Arch>,
    /// The SM number in the header.
    pub sm: u32,
    /// Every `.text.*` section, in section-table order.
    pub functions: Vec<Function>,
}

/// Whether `bytes` look like an ELF file.
pub fn is_elf(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\x7fELF")
}

fn err(msg: impl Into<String>) -> SassError {
    SassError::Cubin(msg.into())
}

fn slice(bytes: &[u8], off: u64, len: u64) -> Result<&[u8], SassError> {
    let end = off.checked_add(len).ok_or_else(|| err("offset overflow"))?;
    bytes
        .get(off as usize..end as usize)
        .ok_or_else(|| err(format!("range {off:#x}+{len:#x} is outside the file")))
}

fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"))
}

/// Reads a 64-bit little-endian cubin.
pub fn read(bytes: &[u8]) -> Result<Cubin, SassError> {
    let h = slice(bytes, 0, 64).map_err(|_| err("shorter than an ELF header"))?;
    if !is_elf(h) || h[4] != 2 || h[5] != 1 {
        return Err(err("not a 64-bit little-endian ELF file"));
    }
    let flags = u32_at(h, 0x30);
    // CUDA ELF e_flags: ABI version 8 cubins (CUDA 12.8 and later) keep the SM number in
    // bits 8-15; older ones in bits 0-7.
    let sm = if h[8] >= 8 {
        (flags >> 8) & 0xff
    } else {
        flags & 0xff
    };
    let shoff = u64_at(h, 0x28);
    let shentsize = u16_at(h, 0x3a) as u64;
    let shnum = u16_at(h, 0x3c) as u64;
    let shstrndx = u16_at(h, 0x3e) as u64;
    if shentsize < 64 {
        return Err(err("section header entries shorter than 64 bytes"));
    }
    let header = |i: u64| slice(bytes, shoff + i * shentsize, 64);
    let strtab = header(shstrndx)?;
    let names = slice(bytes, u64_at(strtab, 24), u64_at(strtab, 32))?;
    let mut functions = Vec::new();
    for i in 0..shnum {
        let sh = header(i)?;
        let name_off = u32_at(sh, 0) as usize;
        let name = names
            .get(name_off..)
            .ok_or_else(|| err("section name outside .shstrtab"))?;
        let name = &name[..name.iter().position(|&c| c == 0).unwrap_or(name.len())];
        let Some(fname) = name.strip_prefix(b".text.") else {
            continue;
        };
        let data = slice(bytes, u64_at(sh, 24), u64_at(sh, 32))?;
        let words = crate::words_from_bytes(data)?;
        functions.push(Function {
            name: String::from_utf8_lossy(fname).into_owned(),
            words,
        });
    }
    Ok(Cubin {
        arch: Arch::from_number(sm),
        sm,
        functions,
    })
}
