//! The ELF container: section order, symbols, section and program headers, as ptxas 13.5
//! lays out a cubin for each SM (`docs/cubin.md`). A small hand-written writer: the
//! `object` crate's ELF writer cannot set the CUDA section types and `sh_info` packing
//! this needs without working around it at every step.

use tangle_sass::cubin::{
    ELFOSABI_CUDA, EM_CUDA, SHT_CUDA_CALLGRAPH, SHT_CUDA_COMPAT, SHT_CUDA_INFO, SHT_CUDA_RELOCINFO,
    SHT_NOBITS, SHT_SYMTAB, STB_GLOBAL, STB_LOCAL, STB_WEAK, STO_CUDA_ENTRY, STT_FUNC, STT_SECTION,
};
use tangle_sass::Arch;

use crate::info::{kernel_info, module_info, KernelSyms};
use crate::notes;
use crate::{param_base, param_layout, Facts, Kernel, SM90_RESERVED_SHARED};

const SHT_PROGBITS: u32 = 1;
const SHT_STRTAB: u32 = 3;
const SHT_NOTE: u32 = 7;
const SHT_RELA: u32 = 4;
const SHF_WRITE: u64 = 1;
const SHF_ALLOC: u64 = 2;
const SHF_EXECINSTR: u64 = 4;
const SHF_INFO_LINK: u64 = 0x40;
/// The flag ptxas sets on `.note.nv.cuinfo`.
const SHF_CUDA_CUINFO: u64 = 0x100_0000;
/// The flag ptxas sets on `.note.nv.tkinfo`.
const SHF_CUDA_TKINFO: u64 = 0x200_0000;
const STT_NOTYPE: u8 = 0;
const STT_OBJECT: u8 = 1;
const PT_LOAD: u32 = 1;
const PT_PHDR: u32 = 6;
const PF_X: u32 = 1;
const PF_W: u32 = 2;
const PF_R: u32 = 4;
const ET_EXEC: u16 = 2;
/// The CUDA ELF ABI version ptxas 13.5 writes (`EI_ABIVERSION`).
const CUDA_ABI_VERSION: u8 = 8;
/// The alignment of a code section.
const TEXT_ALIGN: u64 = 128;

/// One section before layout.
#[derive(Default)]
struct Sec {
    name: String,
    kind: u32,
    flags: u64,
    data: Vec<u8>,
    /// The memory size of an `SHT_NOBITS` section.
    nobits_size: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
}

/// One symbol before layout.
struct Sym {
    name: String,
    value: u64,
    size: u64,
    info: u8,
    other: u8,
    shndx: u16,
}

/// The section indexes of one kernel's sections.
struct KernelSecs {
    info: u32,
    text: u32,
    cbank: u32,
    shared: Option<u32>,
}

/// The size of `.nv.shared.<kernel>`: the kernel's bytes, on SM90 above the reserved
/// window.
fn shared_size(arch: Arch, k: &Kernel) -> u32 {
    match (arch, k.shared_bytes) {
        (_, 0) => 0,
        (Arch::Sm90, n) => n + SM90_RESERVED_SHARED,
        (_, n) => n,
    }
}

/// Lays out the cubin.
pub fn layout(arch: Arch, kernels: &[Kernel], facts: &[Facts]) -> Vec<u8> {
    let sm90 = arch == Arch::Sm90;
    // Section indexes first: symbols and attributes refer to them.
    let mut next = 1u32;
    let mut take = || {
        let i = next;
        next += 1;
        i
    };
    let (shstrtab, strtab, symtab) = (take(), take(), take());
    // SM90: an empty `.debug_frame` where ptxas puts its unwind table. cuobjdump refuses
    // an SM90 cubin whose notes stand at indexes 4 and 5 (probed by inserting empty
    // sections into a cubin: it accepts them at 5 and 6, as ptxas writes them; the rule
    // behind it is not known), so the placeholder keeps ptxas's indexes.
    let debug_frame = sm90.then(&mut take);
    let (tkinfo, cuinfo, info) = (take(), take(), take());
    let compat = sm90.then(&mut take);
    let infos: Vec<u32> = kernels.iter().map(|_| take()).collect();
    let callgraph = take();
    let rel_action = (!sm90).then(&mut take);
    // SM90: an empty relocation section per kernel (ptxas writes one for kernels with
    // shared memory, and `.rela.debug_frame`; cuobjdump refuses an SM90 cubin with no
    // relocation section at all).
    let relas: Vec<u32> = if sm90 {
        kernels.iter().map(|_| take()).collect()
    } else {
        Vec::new()
    };
    let mut secs_of: Vec<KernelSecs> = infos
        .iter()
        .map(|&i| KernelSecs {
            info: i,
            text: 0,
            cbank: 0,
            shared: None,
        })
        .collect();
    let mut reserved = None;
    if sm90 {
        for s in &mut secs_of {
            s.text = take();
        }
        // ptxas writes the reserved window's section and symbols on every SM90 cubin,
        // shared memory or not (cuobjdump refuses an SM90 cubin without them).
        reserved = Some(take());
        for (s, k) in secs_of.iter_mut().zip(kernels) {
            s.shared = (k.shared_bytes > 0).then(&mut take);
        }
        for s in &mut secs_of {
            s.cbank = take();
        }
    } else {
        for s in &mut secs_of {
            s.cbank = take();
        }
        for s in &mut secs_of {
            s.text = take();
        }
        for (s, k) in secs_of.iter_mut().zip(kernels) {
            s.shared = (k.shared_bytes > 0).then(&mut take);
        }
    }
    let section_count = next;

    // Symbols: locals (section symbols) first, then the kernels and SM90's reserved
    // shared-memory symbols.
    let section_sym = |name: String, shndx: u32| Sym {
        name,
        value: 0,
        size: 0,
        info: (STB_LOCAL << 4) | STT_SECTION,
        other: 0,
        shndx: shndx as u16,
    };
    let mut syms = vec![
        Sym {
            name: String::new(),
            value: 0,
            size: 0,
            info: 0,
            other: 0,
            shndx: 0,
        },
        section_sym(".note.nv.tkinfo".into(), tkinfo),
        section_sym(".note.nv.cuinfo".into(), cuinfo),
    ];
    let mut cbank_syms = Vec::new();
    for (k, s) in kernels.iter().zip(&secs_of) {
        syms.push(section_sym(format!(".text.{}", k.name), s.text));
        if let Some(sh) = s.shared {
            syms.push(section_sym(format!(".nv.shared.{}", k.name), sh));
        }
        if !sm90 {
            cbank_syms.push(syms.len() as u32);
            syms.push(section_sym(format!(".nv.constant0.{}", k.name), s.cbank));
        }
    }
    syms.push(section_sym(".nv.callgraph".into(), callgraph));
    if let Some(r) = rel_action {
        syms.push(section_sym(".nv.rel.action".into(), r));
    }
    let first_global = syms.len() as u32;
    let mut func_syms = Vec::new();
    for (k, s) in kernels.iter().zip(&secs_of) {
        func_syms.push(syms.len() as u32);
        syms.push(Sym {
            name: k.name.clone(),
            value: 0,
            size: 16 * k.code.len() as u64,
            info: (STB_GLOBAL << 4) | STT_FUNC,
            other: STO_CUDA_ENTRY,
            shndx: s.text as u16,
        });
    }
    if let Some(r) = reserved {
        syms.push(Sym {
            name: ".nv.reservedSmem.offset0".into(),
            value: 0,
            size: 4,
            info: (STB_WEAK << 4) | STT_OBJECT,
            other: 0,
            shndx: 0,
        });
        syms.push(Sym {
            name: "__nv_reservedSMEM_offset_0_alias".into(),
            value: 0,
            size: 0,
            info: (STB_WEAK << 4) | STT_NOTYPE,
            other: 0xa0,
            shndx: r as u16,
        });
    }
    // SM90: ptxas puts the constant banks' section symbols after the globals and sets
    // the symbol table's `sh_info` to the number of symbols rather than to the first
    // global (cuobjdump refuses an SM90 cubin laid out as the other SMs').
    let first_global = if sm90 {
        for (k, s) in kernels.iter().zip(&secs_of) {
            cbank_syms.push(syms.len() as u32);
            syms.push(section_sym(format!(".nv.constant0.{}", k.name), s.cbank));
        }
        syms.len() as u32
    } else {
        first_global
    };
    let ksyms: Vec<KernelSyms> = func_syms
        .iter()
        .zip(&cbank_syms)
        .map(|(&func, &cbank)| KernelSyms { func, cbank })
        .collect();

    // String tables.
    let mut strs = StrTab::default();
    let mut symtab_data = Vec::new();
    for s in &syms {
        let name = if s.name.is_empty() {
            0
        } else {
            strs.add(&s.name)
        };
        symtab_data.extend(name.to_le_bytes());
        symtab_data.push(s.info);
        symtab_data.push(s.other);
        symtab_data.extend(s.shndx.to_le_bytes());
        symtab_data.extend(s.value.to_le_bytes());
        symtab_data.extend(s.size.to_le_bytes());
    }

    // Section contents, by index.
    let mut secs: Vec<Sec> = (0..section_count).map(|_| Sec::default()).collect();
    secs[strtab as usize] = Sec {
        name: ".strtab".into(),
        kind: SHT_STRTAB,
        data: strs.bytes,
        align: 1,
        ..Sec::default()
    };
    secs[symtab as usize] = Sec {
        name: ".symtab".into(),
        kind: SHT_SYMTAB,
        data: symtab_data,
        link: strtab,
        info: first_global,
        align: 8,
        entsize: 24,
        ..Sec::default()
    };
    secs[tkinfo as usize] = Sec {
        name: ".note.nv.tkinfo".into(),
        kind: SHT_NOTE,
        flags: SHF_CUDA_TKINFO,
        data: notes::tkinfo(arch),
        align: 4,
        ..Sec::default()
    };
    secs[cuinfo as usize] = Sec {
        name: ".note.nv.cuinfo".into(),
        kind: SHT_NOTE,
        flags: SHF_CUDA_CUINFO | if sm90 { SHF_INFO_LINK } else { 0 },
        data: notes::cuinfo(arch),
        link: tkinfo,
        info: compat.unwrap_or(0),
        align: 4,
        ..Sec::default()
    };
    secs[info as usize] = Sec {
        name: ".nv.info".into(),
        kind: SHT_CUDA_INFO,
        data: module_info(kernels, facts, &ksyms),
        link: symtab,
        align: 4,
        ..Sec::default()
    };
    if let Some(d) = debug_frame {
        secs[d as usize] = Sec {
            name: ".debug_frame".into(),
            kind: SHT_PROGBITS,
            align: 1,
            ..Sec::default()
        };
    }
    if let Some(c) = compat {
        secs[c as usize] = Sec {
            name: ".nv.compat".into(),
            kind: SHT_CUDA_COMPAT,
            data: notes::SM90_COMPAT.to_vec(),
            align: 4,
            ..Sec::default()
        };
    }
    secs[callgraph as usize] = Sec {
        name: ".nv.callgraph".into(),
        kind: SHT_CUDA_CALLGRAPH,
        data: notes::callgraph(),
        link: symtab,
        align: 4,
        entsize: 8,
        ..Sec::default()
    };
    if let Some(r) = rel_action {
        secs[r as usize] = Sec {
            name: ".nv.rel.action".into(),
            kind: SHT_CUDA_RELOCINFO,
            data: notes::REL_ACTION.to_vec(),
            align: 8,
            entsize: 8,
            ..Sec::default()
        };
    }
    for (&r, (k, ks)) in relas.iter().zip(kernels.iter().zip(&secs_of)) {
        secs[r as usize] = Sec {
            name: format!(".rela.text.{}", k.name),
            kind: SHT_RELA,
            flags: SHF_INFO_LINK,
            link: symtab,
            info: ks.text,
            align: 8,
            entsize: 24,
            ..Sec::default()
        };
    }
    if let Some(r) = reserved {
        secs[r as usize] = Sec {
            name: ".nv.shared.reserved.0".into(),
            kind: SHT_NOBITS,
            flags: SHF_WRITE | SHF_ALLOC,
            align: 1,
            ..Sec::default()
        };
    }
    for (((k, f), s), ks) in kernels.iter().zip(facts).zip(&secs_of).zip(&ksyms) {
        secs[s.info as usize] = Sec {
            name: format!(".nv.info.{}", k.name),
            kind: SHT_CUDA_INFO,
            flags: SHF_INFO_LINK,
            data: kernel_info(arch, k, f, ks),
            link: symtab,
            info: s.text,
            align: 4,
            ..Sec::default()
        };
        let (_, params) = param_layout(&k.params);
        secs[s.cbank as usize] = Sec {
            name: format!(".nv.constant0.{}", k.name),
            kind: SHT_PROGBITS,
            flags: SHF_ALLOC | SHF_INFO_LINK,
            data: vec![0; (param_base(arch) + params) as usize],
            info: s.text,
            align: 4,
            ..Sec::default()
        };
        secs[s.text as usize] = Sec {
            name: format!(".text.{}", k.name),
            kind: SHT_PROGBITS,
            flags: SHF_ALLOC | SHF_EXECINSTR,
            data: k.code.iter().flat_map(|w| w.to_le_bytes()).collect(),
            link: symtab,
            info: if sm90 {
                ks.func
            } else {
                (f.registers << 24) | ks.func
            },
            align: TEXT_ALIGN,
            ..Sec::default()
        };
        if let Some(sh) = s.shared {
            secs[sh as usize] = Sec {
                name: format!(".nv.shared.{}", k.name),
                kind: SHT_NOBITS,
                flags: SHF_WRITE | SHF_ALLOC | SHF_INFO_LINK,
                nobits_size: shared_size(arch, k) as u64,
                info: s.text,
                align: 4,
                ..Sec::default()
            };
        }
    }
    let mut shstr = StrTab::default();
    let names: Vec<u32> = secs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if i == 0 {
                0
            } else if i == shstrtab as usize {
                shstr.add(".shstrtab")
            } else {
                shstr.add(&s.name)
            }
        })
        .collect();
    secs[shstrtab as usize] = Sec {
        name: ".shstrtab".into(),
        kind: SHT_STRTAB,
        data: shstr.bytes,
        align: 1,
        ..Sec::default()
    };

    // File offsets: the header, the contents in section order, the section headers, the
    // program headers.
    let mut out = vec![0u8; 64];
    let mut offsets = vec![0u64; secs.len()];
    for (i, s) in secs.iter().enumerate().skip(1) {
        let a = s.align.max(1) as usize;
        while out.len() % a != 0 {
            out.push(0);
        }
        offsets[i] = out.len() as u64;
        if s.kind != SHT_NOBITS {
            out.extend(&s.data);
        }
    }
    while out.len() % 8 != 0 {
        out.push(0);
    }
    let shoff = out.len() as u64;
    for (i, s) in secs.iter().enumerate() {
        let size = if s.kind == SHT_NOBITS {
            s.nobits_size
        } else {
            s.data.len() as u64
        };
        out.extend(names[i].to_le_bytes());
        out.extend(s.kind.to_le_bytes());
        out.extend(s.flags.to_le_bytes());
        out.extend(0u64.to_le_bytes()); // sh_addr
        out.extend(offsets[i].to_le_bytes());
        out.extend(size.to_le_bytes());
        out.extend(s.link.to_le_bytes());
        out.extend(s.info.to_le_bytes());
        out.extend(s.align.to_le_bytes());
        out.extend(s.entsize.to_le_bytes());
    }

    // Program headers: the table itself, the code (and on SM75-SM89 the constant banks
    // before it), the shared memory, and on SM90 the constant banks.
    let span = |idx: &mut dyn Iterator<Item = u32>| {
        let v: Vec<u32> = idx.collect();
        let start = v.iter().map(|&i| offsets[i as usize]).min().unwrap_or(0);
        let end = v
            .iter()
            .map(|&i| offsets[i as usize] + secs[i as usize].data.len() as u64)
            .max()
            .unwrap_or(0);
        (start, end - start)
    };
    let code = if sm90 {
        span(&mut secs_of.iter().map(|s| s.text))
    } else {
        span(&mut secs_of.iter().flat_map(|s| [s.cbank, s.text]))
    };
    let shared_mem: u64 = kernels.iter().map(|k| shared_size(arch, k) as u64).sum();
    let shared_at = secs_of
        .iter()
        .filter_map(|s| s.shared)
        .map(|i| offsets[i as usize])
        .min();
    let phnum = 3 + shared_at.is_some() as u64 + sm90 as u64;
    let phoff = out.len() as u64;
    let table = (phoff, 56 * phnum);
    let mut phdrs = vec![
        (PT_PHDR, PF_R, table.0, table.1, table.1),
        (PT_LOAD, PF_R, table.0, table.1, table.1),
        (PT_LOAD, PF_R | PF_X, code.0, code.1, code.1),
    ];
    if let Some(at) = shared_at {
        phdrs.push((PT_LOAD, PF_R | PF_W, at, 0, shared_mem));
    }
    if sm90 {
        let c = span(&mut secs_of.iter().map(|s| s.cbank));
        phdrs.push((PT_LOAD, PF_R, c.0, c.1, c.1));
    }
    for (kind, flags, off, filesz, memsz) in phdrs {
        out.extend(kind.to_le_bytes());
        out.extend(flags.to_le_bytes());
        out.extend(off.to_le_bytes());
        out.extend(0u64.to_le_bytes()); // p_vaddr
        out.extend(0u64.to_le_bytes()); // p_paddr
        out.extend(filesz.to_le_bytes());
        out.extend(memsz.to_le_bytes());
        out.extend(8u64.to_le_bytes()); // p_align
    }

    // The ELF header.
    let mut h = Vec::with_capacity(64);
    h.extend(b"\x7fELF");
    h.extend([
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
    h.extend(ET_EXEC.to_le_bytes());
    h.extend(EM_CUDA.to_le_bytes());
    h.extend(1u32.to_le_bytes());
    h.extend(0u64.to_le_bytes()); // e_entry
    h.extend(phoff.to_le_bytes());
    h.extend(shoff.to_le_bytes());
    h.extend(e_flags(arch).to_le_bytes());
    h.extend(64u16.to_le_bytes());
    h.extend(56u16.to_le_bytes());
    h.extend((phnum as u16).to_le_bytes());
    h.extend(64u16.to_le_bytes());
    h.extend((secs.len() as u16).to_le_bytes());
    h.extend((shstrtab as u16).to_le_bytes());
    out[..64].copy_from_slice(&h);
    out
}

/// `e_flags` of a cubin of ABI version 8: the SM number in bits 8-15, with the bits ptxas
/// 13.5 sets on every SM (0x0600_0004).
pub fn e_flags(arch: Arch) -> u32 {
    0x0600_0004 | (arch.number() << 8)
}

/// A string table under construction (index 0 is the empty string).
struct StrTab {
    bytes: Vec<u8>,
}

impl Default for StrTab {
    fn default() -> StrTab {
        StrTab { bytes: vec![0] }
    }
}

impl StrTab {
    fn add(&mut self, s: &str) -> u32 {
        let at = self.bytes.len() as u32;
        self.bytes.extend(s.as_bytes());
        self.bytes.push(0);
        at
    }
}
