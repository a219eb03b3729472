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
    /// The index of its section in the section table.
    pub section: usize,
    /// The section's alignment (`sh_addralign`).
    pub align: u64,
    /// The section's `sh_flags` (`SHF_ALLOC` 0x2, `SHF_EXECINSTR` 0x4, ...).
    pub flags: u64,
    /// The section's `sh_info`: ptxas keeps the register count in bits 24-31 (nvdisasm's
    /// `.sectioninfo @"SHI_REGISTERS=N"`) and the function's symbol index below.
    pub info: u32,
    /// Its instruction words, from address 0 of the section.
    pub words: Vec<Word>,
}

/// Numbers of the `.nv.info` attributes (EIATTR_*) that tangle reads or writes, as
/// cuobjdump names them. Shared by the reader here, the simulator and the cubin writer
/// (`tangle-cubin`), so each number is written down once.
pub mod eiattr {
    /// EIATTR_MAX_THREADS: the block size `__launch_bounds__` allows (three 32-bit values).
    pub const MAX_THREADS: u8 = 0x05;
    /// EIATTR_PARAM_CBANK: constant-section symbol, parameter offset and size in bank 0.
    pub const PARAM_CBANK: u8 = 0x0a;
    /// EIATTR_REQNTID: the block size a kernel requires (`.reqntid`, three 32-bit values).
    pub const REQNTID: u8 = 0x10;
    /// EIATTR_FRAME_SIZE (in `.nv.info`): a function's local-memory frame in bytes.
    pub const FRAME_SIZE: u8 = 0x11;
    /// EIATTR_MIN_STACK_SIZE (in `.nv.info`): a function's stack need in bytes.
    pub const MIN_STACK_SIZE: u8 = 0x12;
    /// EIATTR_KPARAM_INFO: one parameter (index, ordinal, offset, flags with the size).
    pub const KPARAM_INFO: u8 = 0x17;
    /// EIATTR_CBANK_PARAM_SIZE: the parameters' total size in bytes.
    pub const CBANK_PARAM_SIZE: u8 = 0x19;
    /// EIATTR_MAXREG_COUNT: the register limit the kernel was compiled under (0xff: none).
    pub const MAXREG_COUNT: u8 = 0x1b;
    /// EIATTR_EXIT_INSTR_OFFSETS: byte offsets of the EXIT instructions.
    pub const EXIT_INSTR_OFFSETS: u8 = 0x1c;
    /// EIATTR_CRS_STACK_SIZE: the call/return/sync stack size.
    pub const CRS_STACK_SIZE: u8 = 0x1e;
    /// EIATTR_COOP_GROUP_INSTR_OFFSETS: warp-synchronous instructions of the source.
    pub const COOP_GROUP_INSTR_OFFSETS: u8 = 0x28;
    /// EIATTR_COOP_GROUP_MASK_REGIDS: the mask register of each of those.
    pub const COOP_GROUP_MASK_REGIDS: u8 = 0x29;
    /// EIATTR_REGCOUNT (in `.nv.info`): a function's register count.
    pub const REGCOUNT: u8 = 0x2f;
    /// EIATTR_INT_WARP_WIDE_INSTR_OFFSETS: warp-wide instructions the compiler added.
    pub const INT_WARP_WIDE_INSTR_OFFSETS: u8 = 0x31;
    /// The SM80-SM89 workaround flag ptxas writes with no value (cuobjdump has no name).
    pub const SW_WAR_NVAL: u8 = 0x35;
    /// EIATTR_SW_WAR: workaround bits (SM75 and SM90).
    pub const SW_WAR: u8 = 0x36;
    /// EIATTR_CUDA_API_VERSION.
    pub const CUDA_API_VERSION: u8 = 0x37;
    /// EIATTR_NUM_BARRIERS: the number of named CTA barriers (`BAR` ids) used.
    pub const NUM_BARRIERS: u8 = 0x4c;
    /// EIATTR_SPARSE_MMA_MASK (SM90).
    pub const SPARSE_MMA_MASK: u8 = 0x50;
    /// An attribute ptxas writes on every kernel that cuobjdump does not name.
    pub const UNNAMED_5F: u8 = 0x5f;
    /// EIATTR_LANGUAGE.
    pub const LANGUAGE: u8 = 0x66;
    /// EIATTR_NVSAL_SW_WAR (SM90).
    pub const NVSAL_SW_WAR: u8 = 0x6b;
    /// EIATTR_PREEXIT_USED (SM90).
    pub const PREEXIT_USED: u8 = 0x6d;

    /// Attribute format: no value.
    pub const FMT_NVAL: u8 = 1;
    /// Attribute format: a byte value (in a 16-bit field).
    pub const FMT_BVAL: u8 = 2;
    /// Attribute format: a 16-bit value.
    pub const FMT_HVAL: u8 = 3;
    /// Attribute format: a 16-bit size and that many bytes.
    pub const FMT_SVAL: u8 = 4;
}

/// `e_machine` of a cubin: EM_CUDA.
pub const EM_CUDA: u16 = 190;
/// `EI_OSABI` of a cubin (ELFOSABI_CUDA).
pub const ELFOSABI_CUDA: u8 = 0x41;
/// `sh_type` of `.nv.info` and `.nv.info.<function>` (SHT_CUDA_INFO).
pub const SHT_CUDA_INFO: u32 = 0x7000_0000;
/// `sh_type` of `.nv.callgraph`.
pub const SHT_CUDA_CALLGRAPH: u32 = 0x7000_0001;
/// `sh_type` of `.nv.rel.action`.
pub const SHT_CUDA_RELOCINFO: u32 = 0x7000_000b;
/// `sh_type` of SM90's `.nv.compat`.
pub const SHT_CUDA_COMPAT: u32 = 0x7000_0086;
/// `st_other` of a kernel's function symbol (cuobjdump prints it as ENTRY).
pub const STO_CUDA_ENTRY: u8 = 0x10;

/// ELF symbol type `STT_FUNC`.
pub const STT_FUNC: u8 = 2;
/// ELF symbol type `STT_OBJECT` (data).
pub const STT_OBJECT: u8 = 1;
/// ELF symbol type `STT_SECTION`.
pub const STT_SECTION: u8 = 3;
/// ELF symbol binding `STB_LOCAL`.
pub const STB_LOCAL: u8 = 0;
/// ELF symbol binding `STB_GLOBAL`.
pub const STB_GLOBAL: u8 = 1;
/// ELF symbol binding `STB_WEAK`.
pub const STB_WEAK: u8 = 2;

/// One entry of the symbol table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// Its name (for a section symbol: the section's name, as nvdisasm prints it).
    pub name: String,
    /// Its value: the offset in its section.
    pub value: u64,
    /// Its size in bytes.
    pub size: u64,
    /// `STT_*` type (low 4 bits of `st_info`).
    pub kind: u8,
    /// `STB_*` binding (high 4 bits of `st_info`).
    pub bind: u8,
    /// The index of the section it is defined in (`st_shndx`).
    pub section: usize,
    /// `st_other`: visibility in bits 0-1, [`STO_CUDA_ENTRY`] for a kernel entry point.
    pub other: u8,
}

/// Instruction offsets that an `.nv.info.<function>` section lists for its code section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InfoOffsets {
    /// The index of the `.nv.info.*` section.
    pub info_section: usize,
    /// The index of the code section it describes (its `sh_info`).
    pub section: usize,
    /// `(attribute, byte offset)` in attribute order.
    pub offsets: Vec<(u8, u64)>,
    /// Indirect branches (EIATTR_INDIRECT_BRANCH_TARGETS): the branch's offset and its
    /// targets' offsets.
    pub indirect: Vec<(u64, Vec<u64>)>,
    /// Spill stores and reloads (EIATTR_ANNOTATIONS entries of kind [`SPILL_REFILL`]): their
    /// offsets, in attribute order.
    pub spills: Vec<u64>,
}

/// The `.nv.info` attributes whose values nvdisasm prints as instruction labels (observed on
/// the corpus: `.word .L_x_25@srel`): EIATTR_EXIT_INSTR_OFFSETS (0x1c),
/// EIATTR_COOP_GROUP_INSTR_OFFSETS (0x28) and EIATTR_INT_WARP_WIDE_INSTR_OFFSETS (0x31). Each
/// is a list of 32-bit byte offsets into the code section.
pub const OFFSET_ATTRIBUTES: [u8; 3] = [0x1c, 0x28, 0x31];

/// `.nv.info` attributes of fixed-size entries whose first 32 bits are an instruction offset,
/// `(attribute, entry size in bytes)`, which nvdisasm prints as labels (`.word .L_x_3@srel`),
/// numbered with the other offset lists (measured with nvdisasm 13.5):
/// - EIATTR_ATOM16_EMUL_INSTR_REG_MAP (0x2e, 8 bytes: then a 16-bit register number and 16
///   zero bits): the 16-bit atomics ptxas emulates with a CAS loop (`atomics_scoped.cu`);
/// - EIATTR_UNUSED_LOAD_BYTE_OFFSET (0x44, 8 bytes: then a 32-bit byte mask;
///   `vector_memory.cu`);
/// - EIATTR_INSTR_REG_MAP (0x40, 12 bytes: then two 32-bit words, cuobjdump prints e.g.
///   `0x40 0x40202 0xffffffff`): listed by ptxas for some `mbarrier` waits on SM80-SM89;
/// - EIATTR_MBARRIER_INSTR_OFFSETS (0x39, 16 bytes: cuobjdump prints each entry as the
///   offset, an instruction kind such as `MBARRIER_INIT`, `MBARRIER_ARRIVE` or
///   `MBARRIER_TEST_WAIT_PARITY`, an address `(R255 + UR63)` and a stride): the `mbarrier`
///   instructions of SM80-SM89.
///
/// The last two were found on the generated PTX corpus (`tangle disasm` against `nvdisasm -c`
/// on its sm_86 cubin, `crates/cli/benches/disasm_vs_nvdisasm.rs`), where nvdisasm's label
/// numbers ran 14 ahead of tangle's before they were read.
pub const OFFSET_ENTRY_ATTRIBUTES: [(u8, usize); 4] =
    [(0x2e, 8), (0x44, 8), (0x40, 12), (0x39, 16)];

/// EIATTR_INDIRECT_BRANCH_TARGETS: entries of a 32-bit branch offset, two 16-bit fields,
/// a 32-bit count and that many 32-bit target offsets (as nvdisasm prints the attribute).
pub const INDIRECT_BRANCH_TARGETS: u8 = 0x34;

/// EIATTR_ANNOTATIONS: ptxas lists its spill stores and reloads here (`-maxrregcount`,
/// `__maxnreg__`). Probed with cuobjdump and nvdisasm on patched cubins: entries of a 32-bit
/// kind and a 32-bit byte offset. Kind 1 is SpillRefill; nvdisasm gives every entry a label
/// (numbered with the other offset lists, in attribute order) and prints the note
/// `(*"SpillRefill"*)` after the instruction. Kinds 2 (InstructionInfo) and 3
/// (FunctionInfo) have longer entries of a layout not modelled here.
pub const ANNOTATIONS: u8 = 0x55;

/// The EIATTR_ANNOTATIONS kind of a spill store or reload.
pub const SPILL_REFILL: u32 = 1;

/// A cubin's architecture (from the ELF header flags), functions, symbols and the instruction
/// offsets its `.nv.info.*` sections list.
#[derive(Clone, Debug)]
pub struct Cubin {
    /// The architecture, when it is one of the supported ones.
    pub arch: Option<Arch>,
    /// The SM number in the header.
    pub sm: u32,
    /// Whether the code uses the SM's architecture-specific features (`sm_90a`): SM90's
    /// `.nv.compat` attribute 0x09 is 1 (probed: the only byte in which ptxas's cubins for
    /// `sm_90` and `sm_90a` of one source differ; cuobjdump then prints `sm_90a`).
    pub arch_specific: bool,
    /// `e_type`: 1 (`ET_REL`, a relocatable `-rdc` cubin) or 2 (`ET_EXEC`).
    pub elf_type: u16,
    /// The virtual architecture the code was compiled from (the PTX `.target`), from the
    /// `.note.nv.cuinfo` note: its descriptor's second 16-bit field (probed: a PTX file for
    /// `sm_75` compiled for `sm_89` gives 75 there and `EF_CUDA_VIRTUAL_SM(EF_CUDA_SM75)` in
    /// cuobjdump's header flags). `None` without the note.
    pub virtual_sm: Option<u32>,
    /// Every `.text.*` section, in section-table order.
    pub functions: Vec<Function>,
    /// The symbol table, in table order (entry 0, the null symbol, left out).
    pub symbols: Vec<Symbol>,
    /// Instruction offsets from `.nv.info.*` sections, in section-table order.
    pub info: Vec<InfoOffsets>,
    /// The relocations of code sections (`.rel.text.*`, `.rela.text.*`), in file order.
    pub relocs: Vec<Reloc>,
    /// The code addresses the debug sections of a `-G` build name through relocations
    /// (`.rela.debug_info`, `.rel.debug_loc`, ...: a function's start and end, its lexical
    /// blocks, its location ranges), sections in table order and each section's entries by
    /// offset in the patched section; nvdisasm labels them ([`crate::listing`]).
    pub debug_refs: Vec<(usize, u64)>,
}

/// R_CUDA_64: a 64-bit absolute address (what DWARF sections hold).
pub const R_CUDA_64: u32 = 2;

/// The code addresses `(section, offset)` a debug section's relocations name: symbol value
/// plus the addend (`.rela`) or the 64-bit value at the patched place (`.rel`), for
/// [`R_CUDA_64`] entries against symbols of code sections, by patched offset.
fn debug_refs(
    relocs: &[Reloc],
    patched: &[u8],
    symbols: &[Symbol],
    code: &[usize],
) -> Vec<(usize, u64)> {
    let mut v: Vec<(u64, (usize, u64))> = relocs
        .iter()
        .filter(|r| r.kind == R_CUDA_64)
        .filter_map(|r| {
            let s = symbols
                .get(r.symbol)
                .filter(|s| code.contains(&s.section))?;
            let addend = if r.addend != 0 {
                r.addend as u64
            } else {
                let at = usize::try_from(r.offset).ok()?;
                u64_at(patched.get(at..at.checked_add(8)?)?, 0)
            };
            Some((r.offset, (s.section, s.value.wrapping_add(addend))))
        })
        .collect();
    v.sort_by_key(|&(off, _)| off);
    v.into_iter().map(|(_, at)| at).collect()
}

/// `sh_type` of a relocation section without addends (`.rel.text.*`).
pub const SHT_REL: u32 = 9;
/// `sh_type` of a relocation section with addends (`.rela.text.*`).
pub const SHT_RELA: u32 = 4;

/// Relocation type 55 (named here after what it does): a symbol's whole 32-bit value into an immediate. ptxas uses it for
/// the sizes of texture and surface descriptors (`.nv.unified.texrefDescSize`,
/// `.nv.surfrefDescSize`, undefined weak symbols the driver fills in) that PTX's `txq`/`suq`
/// forms need; nvdisasm prints the operand as `` `(.nv.surfrefDescSize) `` (seen on the
/// generated PTX corpus, SM80-SM89).
pub const R_CUDA_ABS32_32: u32 = 55;
/// R_CUDA_ABS32_LO_32: the low 32 bits of an absolute address into an immediate (the
/// return address a `-G` build loads into R20 before `CALL.ABS`).
pub const R_CUDA_ABS32_LO_32: u32 = 56;
/// R_CUDA_ABS32_HI_32: the high 32 bits of an absolute address into an immediate.
pub const R_CUDA_ABS32_HI_32: u32 = 57;
/// R_CUDA_ABS47_34: the target of `CALL.ABS` (the callee's address).
pub const R_CUDA_ABS47_34: u32 = 58;
/// Relocation type 75: the target of SM90's `CALL.ABS` (measured on SM90 `-G` cubins,
/// where it takes the place of [`R_CUDA_ABS47_34`]).
pub const R_CUDA_SM90_CALL_ABS: u32 = 75;

/// A relocation of a code section: the loader patches the instruction at `offset` with the
/// address of symbol `symbol` (an index into [`Cubin::symbols`]) plus `addend`. nvdisasm
/// prints the patched operand symbolically (`docs/sass.md`, "Debug builds").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reloc {
    /// The section index of the code section patched (`sh_info` of the relocation section).
    pub section: usize,
    /// The byte offset of the patched instruction in that section.
    pub offset: u64,
    /// The symbol, as an index into [`Cubin::symbols`] (ELF symbol index minus one).
    pub symbol: usize,
    /// The relocation type (`R_CUDA_*`).
    pub kind: u32,
    /// The addend (0 for `.rel` sections).
    pub addend: i64,
}

/// The relocations of a `.rel`/`.rela` section (`rela`: 24-byte entries with an addend).
fn relocations(d: &[u8], section: usize, rela: bool) -> Result<Vec<Reloc>, SassError> {
    let size = if rela { 24 } else { 16 };
    if d.len() % size != 0 {
        return Err(err(format!(
            "relocation section of {} bytes is not a list of {size}-byte entries",
            d.len()
        )));
    }
    d.chunks_exact(size)
        .map(|e| {
            let info = u64_at(e, 8);
            let symbol = ((info >> 32) as usize)
                .checked_sub(1)
                .ok_or_else(|| err("relocation against the null symbol"))?;
            Ok(Reloc {
                section,
                offset: u64_at(e, 0),
                symbol,
                kind: info as u32,
                addend: if rela { u64_at(e, 16) as i64 } else { 0 },
            })
        })
        .collect()
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

/// One section header.
struct Section<'a> {
    name: &'a [u8],
    kind: u32,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    flags: u64,
}

/// `SHT_SYMTAB`.
pub const SHT_SYMTAB: u32 = 2;
/// `SHT_NOBITS`.
pub const SHT_NOBITS: u32 = 8;

/// The SM number of a cubin's header and its section headers, names resolved.
fn parse_sections(bytes: &[u8]) -> Result<(u32, Vec<Section<'_>>), SassError> {
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
    let header = |i: u64| {
        let at = i
            .checked_mul(shentsize)
            .and_then(|o| o.checked_add(shoff))
            .ok_or_else(|| err("section header offset overflow"))?;
        slice(bytes, at, 64)
    };
    let strtab = header(shstrndx)?;
    let names = slice(bytes, u64_at(strtab, 24), u64_at(strtab, 32))?;
    let mut sections = Vec::new();
    for i in 0..shnum {
        let sh = header(i)?;
        sections.push(Section {
            name: c_str(names, u32_at(sh, 0) as usize, ".shstrtab")?,
            kind: u32_at(sh, 4),
            offset: u64_at(sh, 24),
            size: u64_at(sh, 32),
            link: u32_at(sh, 40),
            info: u32_at(sh, 44),
            align: u64_at(sh, 48),
            flags: u64_at(sh, 8),
        });
    }
    Ok((sm, sections))
}

/// One section of a cubin with its contents, for readers that need more than the code
/// (the SASS simulator reads `.nv.constant0.*`, `.nv.shared.*` and `.nv.info.*`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawSection {
    /// The section's name (`.nv.constant0._Z2kPi`).
    pub name: String,
    /// `sh_type` (`SHT_NOBITS` = 8 has no contents in the file).
    pub kind: u32,
    /// `sh_info` (for `.nv.info.*`: the index of the code section described).
    pub info: u32,
    /// `sh_size`: the size in memory (for `SHT_NOBITS` sections too).
    pub size: u64,
    /// The contents (empty for `SHT_NOBITS`).
    pub data: Vec<u8>,
}

/// Every section of a cubin, in section-table order (index 0, the null section, included).
pub fn sections(bytes: &[u8]) -> Result<Vec<RawSection>, SassError> {
    let (_, sections) = parse_sections(bytes)?;
    sections
        .iter()
        .map(|s| {
            let data = if s.kind == SHT_NOBITS {
                Vec::new()
            } else {
                slice(bytes, s.offset, s.size)?.to_vec()
            };
            Ok(RawSection {
                name: String::from_utf8_lossy(s.name).into_owned(),
                kind: s.kind,
                info: s.info,
                size: s.size,
                data,
            })
        })
        .collect()
}

/// Reads a 64-bit little-endian cubin.
pub fn read(bytes: &[u8]) -> Result<Cubin, SassError> {
    let (sm, sections) = parse_sections(bytes)?;
    let data = |s: &Section<'_>| -> Result<&[u8], SassError> {
        if s.kind == SHT_NOBITS {
            Ok(&[])
        } else {
            slice(bytes, s.offset, s.size)
        }
    };
    let mut functions = Vec::new();
    let mut info = Vec::new();
    let mut symbols = Vec::new();
    let mut arch_specific = false;
    let mut virtual_sm = None;
    let mut relocs = Vec::new();
    let mut debug_sections = Vec::new();
    for (i, s) in sections.iter().enumerate() {
        let patched = sections.get(s.info as usize);
        if matches!(s.kind, SHT_REL | SHT_RELA) {
            let rs = relocations(data(s)?, s.info as usize, s.kind == SHT_RELA)?;
            match patched {
                Some(t) if t.name.starts_with(b".text.") => relocs.extend(rs),
                Some(t) if t.name.starts_with(b".debug") || t.name.starts_with(b".nv_debug") => {
                    debug_sections.push((rs, data(t)?))
                }
                _ => {}
            }
        }
        if s.name == b".note.nv.cuinfo" {
            virtual_sm = note_descriptor(data(s)?)
                .and_then(|d| d.get(2..4))
                .map(|v| u16_at(v, 0) as u32);
        }
        if s.kind == SHT_CUDA_COMPAT {
            arch_specific = compat_value(data(s)?, COMPAT_ARCH_SPECIFIC).is_some_and(|v| v != 0);
        }
        if let Some(fname) = s.name.strip_prefix(b".text.") {
            functions.push(Function {
                name: String::from_utf8_lossy(fname).into_owned(),
                section: i,
                align: s.align,
                flags: s.flags,
                info: s.info,
                words: crate::words_from_bytes(data(s)?)?,
            });
        } else if s.name.starts_with(b".nv.info.") {
            let (offsets, indirect, spills) = info_offsets(data(s)?)?;
            info.push(InfoOffsets {
                info_section: i,
                section: s.info as usize,
                offsets,
                indirect,
                spills,
            });
        } else if s.kind == SHT_SYMTAB {
            let strs = sections
                .get(s.link as usize)
                .ok_or_else(|| err("symbol table links to no string table"))?;
            let strs = data(strs)?;
            let table = data(s)?;
            for (k, e) in table.chunks_exact(24).enumerate().skip(1) {
                let kind = e[4] & 0xf;
                let shndx = u16_at(e, 6) as usize;
                let name = if kind == STT_SECTION {
                    sections
                        .get(shndx)
                        .ok_or_else(|| err(format!("symbol {k} names no section")))?
                        .name
                } else {
                    c_str(strs, u32_at(e, 0) as usize, ".strtab")?
                };
                symbols.push(Symbol {
                    name: String::from_utf8_lossy(name).into_owned(),
                    value: u64_at(e, 8),
                    size: u64_at(e, 16),
                    kind,
                    bind: e[4] >> 4,
                    section: shndx,
                    other: e[5],
                });
            }
        }
    }
    let code: Vec<usize> = functions.iter().map(|f: &Function| f.section).collect();
    let debug_refs = debug_sections
        .iter()
        .flat_map(|(rs, patched)| debug_refs(rs, patched, &symbols, &code))
        .collect();
    Ok(Cubin {
        arch: Arch::from_number(sm),
        sm,
        arch_specific,
        elf_type: u16_at(bytes, 0x10),
        virtual_sm,
        functions,
        symbols,
        info,
        relocs,
        debug_refs,
    })
}

/// The `.nv.compat` attribute whose value is 1 in an `sm_90a` cubin and 0 in an `sm_90` one.
pub const COMPAT_ARCH_SPECIFIC: u8 = 0x09;

/// The value of attribute `attr` of a `.nv.compat` section: attributes as in `.nv.info` (a
/// format byte, an attribute byte, then a 16-bit value, or for format 4 a 16-bit length and
/// that many bytes).
fn compat_value(d: &[u8], attr: u8) -> Option<u16> {
    let mut at = 0;
    while at + 4 <= d.len() {
        let (fmt, a, v) = (d[at], d[at + 1], u16_at(d, at + 2));
        at += 4;
        if fmt == 4 {
            at += v as usize;
        } else if a == attr {
            return Some(v);
        }
    }
    None
}

/// The descriptor of the first ELF note in `d` (a 32-bit name size, descriptor size and type,
/// then the name and the descriptor, each padded to 4 bytes).
fn note_descriptor(d: &[u8]) -> Option<&[u8]> {
    let name = u32_at(d.get(0..4)?, 0) as usize;
    let len = u32_at(d.get(4..8)?, 0) as usize;
    let at = 12 + name.div_ceil(4) * 4;
    d.get(at..at.checked_add(len)?)
}

/// The NUL-terminated string at `off` of a string table.
fn c_str<'a>(table: &'a [u8], off: usize, what: &str) -> Result<&'a [u8], SassError> {
    let s = table
        .get(off..)
        .ok_or_else(|| err(format!("name offset {off:#x} outside {what}")))?;
    Ok(&s[..s.iter().position(|&c| c == 0).unwrap_or(s.len())])
}

/// What [`info_offsets`] finds: `(attribute, offset)` pairs, indirect branches and spills.
type InfoFound = (Vec<(u8, u64)>, Vec<(u64, Vec<u64>)>, Vec<u64>);

/// The instruction offsets listed by an `.nv.info.*` section: a sequence of attributes, each
/// a format byte and an attribute byte; format 4 (a sized value) is followed by a 16-bit
/// length and that many bytes, every other format by a 16-bit value.
fn info_offsets(d: &[u8]) -> Result<InfoFound, SassError> {
    let mut out = Vec::new();
    let mut indirect = Vec::new();
    let mut spills = Vec::new();
    let mut at = 0;
    while at + 4 <= d.len() {
        let (fmt, attr) = (d[at], d[at + 1]);
        let len = u16_at(d, at + 2) as usize;
        at += 4;
        if fmt != 4 {
            continue;
        }
        let body = d.get(at..at + len).ok_or_else(|| {
            err(format!(
                ".nv.info attribute {attr:#x} runs past its section"
            ))
        })?;
        if OFFSET_ATTRIBUTES.contains(&attr) {
            out.extend(body.chunks_exact(4).map(|c| (attr, u32_at(c, 0) as u64)));
        } else if let Some(&(_, size)) = OFFSET_ENTRY_ATTRIBUTES.iter().find(|e| e.0 == attr) {
            if body.len() % size != 0 {
                return Err(err(format!(
                    ".nv.info attribute {attr:#x} of {} bytes is not a list of {size}-byte entries",
                    body.len()
                )));
            }
            out.extend(body.chunks_exact(size).map(|c| (attr, u32_at(c, 0) as u64)));
        } else if attr == INDIRECT_BRANCH_TARGETS {
            let mut k = 0;
            while k + 12 <= body.len() {
                let branch = u32_at(body, k) as u64;
                let n = u32_at(body, k + 8) as usize;
                let targets = body
                    .get(k + 12..k + 12 + 4 * n)
                    .ok_or_else(|| err("indirect branch targets run past their attribute"))?;
                let targets: Vec<u64> = targets
                    .chunks_exact(4)
                    .map(|c| u32_at(c, 0) as u64)
                    .collect();
                out.push((attr, branch));
                out.extend(targets.iter().map(|&t| (attr, t)));
                indirect.push((branch, targets));
                k += 12 + 4 * n;
            }
        } else if attr == ANNOTATIONS {
            if body.len() % 8 != 0 {
                return Err(err(format!(
                    "EIATTR_ANNOTATIONS of {} bytes is not a list of 8-byte entries",
                    body.len()
                )));
            }
            for e in body.chunks_exact(8) {
                let (kind, off) = (u32_at(e, 0), u32_at(e, 4) as u64);
                if kind != SPILL_REFILL {
                    return Err(err(format!(
                        "EIATTR_ANNOTATIONS entry of kind {kind} (at offset {off:#x}) is not \
                         modelled (kind 1, SpillRefill, is)"
                    )));
                }
                out.push((attr, off));
                spills.push(off);
            }
        }
        at += len;
    }
    Ok((out, indirect, spills))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(fmt: u8, attr: u8, body: &[u32]) -> Vec<u8> {
        let mut v = vec![fmt, attr];
        v.extend(((4 * body.len()) as u16).to_le_bytes());
        v.extend(body.iter().flat_map(|x| x.to_le_bytes()));
        v
    }

    #[test]
    fn annotations_list_spills_in_attribute_order() {
        let mut d = attr(4, ANNOTATIONS, &[1, 0x2c0, 1, 0x2e0]);
        d.extend(attr(4, 0x1c, &[0xf30]));
        let (offsets, indirect, spills) = info_offsets(&d).unwrap();
        assert_eq!(offsets, [(0x55, 0x2c0), (0x55, 0x2e0), (0x1c, 0xf30)]);
        assert!(indirect.is_empty());
        assert_eq!(spills, [0x2c0, 0x2e0]);
    }

    #[test]
    fn debug_refs_name_code_addresses_by_patched_offset() {
        let sym = |section| Symbol {
            name: "f".into(),
            value: 0x100,
            size: 0,
            kind: STT_FUNC,
            bind: STB_GLOBAL,
            section,
            other: 0,
        };
        let symbols = [sym(20), sym(7)];
        let reloc = |offset, symbol, kind, addend| Reloc {
            section: 9,
            offset,
            symbol,
            kind,
            addend,
        };
        // A `.rel` entry reads its addend from the patched place (0x40 at offset 8).
        let mut patched = vec![0u8; 24];
        patched[8] = 0x40;
        let relocs = [
            reloc(16, 0, R_CUDA_64, 0x1110),
            reloc(8, 0, R_CUDA_64, 0),
            reloc(0, 1, R_CUDA_64, 0x20),
            reloc(4, 0, R_CUDA_ABS47_34, 0x30),
        ];
        let refs = debug_refs(&relocs, &patched, &symbols, &[20]);
        assert_eq!(refs, [(20, 0x140), (20, 0x1210)]);
        // A patched place past the section's end names nothing.
        assert!(debug_refs(&[reloc(20, 0, R_CUDA_64, 0)], &patched, &symbols, &[20]).is_empty());
    }

    #[test]
    fn offset_pair_attributes_list_their_first_words() {
        let mut d = attr(4, 0x2e, &[0x620, 18, 0x670, 18]);
        d.extend(attr(4, 0x44, &[0x240, 0xff0f]));
        let (offsets, _, spills) = info_offsets(&d).unwrap();
        assert_eq!(offsets, [(0x2e, 0x620), (0x2e, 0x670), (0x44, 0x240)]);
        assert!(spills.is_empty());
        let d = attr(4, 0x44, &[0x240, 0xff0f, 0x250]);
        assert!(matches!(info_offsets(&d), Err(SassError::Cubin(_))));
    }

    #[test]
    fn other_annotation_kinds_are_refused() {
        let d = attr(4, ANNOTATIONS, &[2, 0x2c0]);
        assert!(matches!(info_offsets(&d), Err(SassError::Cubin(_))));
        let d = attr(4, ANNOTATIONS, &[1, 0x2c0, 1]);
        assert!(matches!(info_offsets(&d), Err(SassError::Cubin(_))));
    }
}
