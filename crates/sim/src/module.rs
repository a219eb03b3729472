//! Module-scope data of a cubin: `__device__` variables (`.nv.global.init` with their
//! initial values, `.nv.global` zeroed) laid out in one region of global memory at
//! [`MODULE_BASE`], and the relocations that put their addresses into the constant banks
//! and into the variables themselves (ptxas reads a variable's address from bank 4:
//! `ULDC.64 UR4, c[0x4][0x0]` with `R_CUDA_64` against the variable's symbol).
//!
//! Relocation kinds, as cuobjdump names them and as ptxas 13.5 numbers them (read from the
//! cubins of probe kernels, `docs/sim.md`): 2 is `R_CUDA_64`, the 64-bit address of the
//! symbol plus the addend (REL sections: the 64 bits already there; RELA: the entry's).
//! A symbol's address is [`MODULE_BASE`] plus its section's place in the region plus its
//! value for data, and its offset in the code for a function of the kernel's own section
//! (function pointers: `CALL.REL.NOINC Ra` jumps to that offset, as RET does). Any other
//! kind in a section the simulator loads is a load error naming it.

use tangle_sass::cubin::{RawSection, Symbol};

use crate::error::SimError;

/// Where the module's global variables start in the simulator's address space (below the
/// launch's buffers at [`crate::memory::GLOBAL_BASE`]).
pub const MODULE_BASE: u64 = 0x7e00_0000_0000;

/// ELF `SHT_RELA` and `SHT_REL`.
const SHT_RELA: u32 = 4;
const SHT_REL: u32 = 9;

/// `R_CUDA_64`.
const R_CUDA_64: u32 = 2;

/// Whether a section holds module-scope global variables.
fn is_global_data(name: &str) -> bool {
    name == ".nv.global" || name == ".nv.global.init"
}

/// The module's global-variable sections: (section index, place in the region, contents;
/// zeros for `.nv.global`).
pub fn sections(secs: &[RawSection]) -> Vec<(usize, u64, Vec<u8>)> {
    let mut out = Vec::new();
    let mut end = 0u64;
    for (k, s) in secs.iter().enumerate() {
        if !is_global_data(&s.name) {
            continue;
        }
        let at = end.div_ceil(256) * 256;
        let data = if s.data.is_empty() {
            vec![0; s.size as usize]
        } else {
            s.data.clone()
        };
        end = at + data.len() as u64;
        out.push((k, at, data));
    }
    out
}

/// The region's image from [`sections`] (after [`relocate`]).
pub fn image(globals: &[(usize, u64, Vec<u8>)]) -> Vec<u8> {
    let mut image = Vec::new();
    for (_, at, data) in globals {
        image.resize(*at as usize, 0);
        image.extend_from_slice(data);
    }
    image
}

/// Applies every relocation that targets one of `patch` (section index and the bytes
/// loaded from it, changed in place). `code_section` is the kernel's code section.
pub fn relocate(
    secs: &[RawSection],
    symbols: &[Symbol],
    places: &[(usize, u64)],
    code_section: usize,
    patch: &mut [(usize, &mut Vec<u8>)],
) -> Result<(), SimError> {
    let err = |m: String| SimError::Load(m);
    for rs in secs {
        let rela = match rs.kind {
            SHT_RELA => true,
            SHT_REL => false,
            _ => continue,
        };
        let Some((_, bytes)) = patch.iter_mut().find(|(k, _)| *k == rs.info as usize) else {
            continue;
        };
        let entry = if rela { 24 } else { 16 };
        for e in rs.data.chunks_exact(entry) {
            let u64_at = |o: usize| u64::from_le_bytes(e[o..o + 8].try_into().expect("8"));
            let (offset, info) = (u64_at(0) as usize, u64_at(8));
            let (sym, kind) = ((info >> 32) as usize, info as u32);
            if kind != R_CUDA_64 {
                return Err(err(format!(
                    "{}: relocation kind {kind} at {offset:#x} is not modelled (R_CUDA_64 is)",
                    rs.name
                )));
            }
            let s = sym
                .checked_sub(1)
                .and_then(|i| symbols.get(i))
                .ok_or_else(|| err(format!("{}: relocation names no symbol ({sym})", rs.name)))?;
            let base = if s.section == code_section {
                0
            } else if let Some((_, at)) = places.iter().find(|(k, _)| *k == s.section) {
                MODULE_BASE + at
            } else {
                return Err(err(format!(
                    "{}: relocation against `{}`, which is neither a global variable nor in \
                     the kernel's code",
                    rs.name, s.name
                )));
            };
            let target = bytes.get_mut(offset..offset + 8).ok_or_else(|| {
                err(format!(
                    "{}: relocation at {offset:#x} past its section",
                    rs.name
                ))
            })?;
            let addend = if rela {
                u64_at(16)
            } else {
                u64::from_le_bytes(target.try_into().expect("8"))
            };
            let v = base.wrapping_add(s.value).wrapping_add(addend);
            target.copy_from_slice(&v.to_le_bytes());
        }
    }
    Ok(())
}

/// The sections of the symbols that the relocations of code section `from` name.
pub fn called_sections(secs: &[RawSection], symbols: &[Symbol], from: usize) -> Vec<usize> {
    let mut out = Vec::new();
    for rs in secs {
        let entry = match rs.kind {
            SHT_RELA => 24,
            SHT_REL => 16,
            _ => continue,
        };
        if rs.info as usize != from {
            continue;
        }
        for e in rs.data.chunks_exact(entry) {
            let info = u64::from_le_bytes(e[8..16].try_into().expect("8"));
            let sym = (info >> 32) as usize;
            if let Some(s) = sym.checked_sub(1).and_then(|i| symbols.get(i)) {
                if !out.contains(&s.section) {
                    out.push(s.section);
                }
            }
        }
    }
    out
}

/// `R_CUDA_ABS32_LO_32`, `R_CUDA_ABS32_HI_32`: the low or high word of an address in an
/// instruction's 32-bit immediate (bits 32-63; `-G` builds' return addresses, `MOV R20,
/// 32@lo(...)`).
const R_CUDA_ABS32_LO_32: u32 = 56;
const R_CUDA_ABS32_HI_32: u32 = 57;
/// `R_CUDA_ABS47_34`: an absolute code address in bits 34-80, in units of 4 bytes
/// (`CALL.ABS.NOINC` of `-G` builds).
const R_CUDA_ABS47_34: u32 = 58;
/// `R_CUDA_ABS55_16_34`: SM90's `CALL.ABS` address in units of 4 bytes, its low 8 bits in
/// bits 16-23 and the rest in 34-80.
const R_CUDA_ABS55_16_34: u32 = 75;

/// Applies the relocations of the code sections in `bases` (section index, byte address in
/// the combined code) to `words`. A word whose relocation kind is not modelled is returned
/// with the reason (the simulator refuses it if execution reaches it).
pub fn relocate_code(
    secs: &[RawSection],
    symbols: &[Symbol],
    places: &[(usize, u64)],
    bases: &[(usize, u64)],
    words: &mut [tangle_sass::Word],
) -> Result<Vec<(usize, String)>, SimError> {
    let err = |m: String| SimError::Load(m);
    let mut refused = Vec::new();
    for rs in secs {
        let rela = match rs.kind {
            SHT_RELA => true,
            SHT_REL => false,
            _ => continue,
        };
        let Some(&(_, base)) = bases.iter().find(|(k, _)| *k == rs.info as usize) else {
            continue;
        };
        let entry = if rela { 24 } else { 16 };
        for e in rs.data.chunks_exact(entry) {
            let u64_at = |o: usize| u64::from_le_bytes(e[o..o + 8].try_into().expect("8"));
            let (offset, info) = (u64_at(0), u64_at(8));
            let (sym, kind) = ((info >> 32) as usize, info as u32);
            let at = ((base + offset) / 16) as usize;
            let Some(w) = words.get_mut(at) else {
                return Err(err(format!(
                    "{}: relocation at {offset:#x} past its code",
                    rs.name
                )));
            };
            let s = sym
                .checked_sub(1)
                .and_then(|i| symbols.get(i))
                .ok_or_else(|| err(format!("{}: relocation names no symbol ({sym})", rs.name)))?;
            let target = if let Some((_, b)) = bases.iter().find(|(k, _)| *k == s.section) {
                b + s.value
            } else if let Some((_, p)) = places.iter().find(|(k, _)| *k == s.section) {
                MODULE_BASE + p + s.value
            } else {
                refused.push((
                    at,
                    format!("a relocation against `{}`, which is not loaded", s.name),
                ));
                continue;
            };
            if kind == R_CUDA_ABS55_16_34 {
                let pieces = [(16u8, 8u8), (34, 47)];
                let addend = if rela {
                    u64_at(16)
                } else {
                    tangle_sass::form::get_pieces(*w, &pieces) << 2
                };
                let v = target.wrapping_add(addend) >> 2;
                tangle_sass::form::set_pieces(w, &pieces, v & ((1u64 << 55) - 1));
                continue;
            }
            let (lo, width, shift) = match kind {
                R_CUDA_ABS32_LO_32 => (32, 32, 0),
                R_CUDA_ABS32_HI_32 => (32, 32, 32),
                R_CUDA_ABS47_34 => (34, 47, 2),
                _ => {
                    refused.push((at, format!("relocation kind {kind} is not modelled")));
                    continue;
                }
            };
            let addend = if rela {
                u64_at(16)
            } else {
                w.get(lo, width) << shift
            };
            let v = target.wrapping_add(addend);
            let field = if kind == R_CUDA_ABS32_HI_32 {
                v >> 32
            } else {
                v >> shift
            };
            w.set(lo, width, field & ((1u64 << width) - 1));
        }
    }
    Ok(refused)
}
