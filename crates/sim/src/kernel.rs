//! Loading a kernel: its code (decoded once, lazily refused), its parameter layout in
//! constant bank 0, its static shared memory and its other constant banks.
//!
//! The parameter layout comes from the kernel's `.nv.info.<name>` section, which ptxas
//! writes as a list of attributes (format byte, attribute byte, then a 16-bit value or a
//! 16-bit size and that many bytes):
//! - `EIATTR_PARAM_CBANK` (0x0a, sized, 8 bytes): the constant section's symbol, then the
//!   parameters' offset in bank 0 (16 bits) and their total size (16 bits);
//! - `EIATTR_KPARAM_INFO` (0x17, sized, 12 bytes, one per parameter): an index (32 bits),
//!   the ordinal (16 bits), the offset from the first parameter (16 bits) and flags whose
//!   bits 18-31 are the size in bytes.
//!
//! Probed with ptxas 13.5 (`docs/sim.md`): the parameters start at 0x160 on SM75-SM89 and
//! 0x210 on SM90, which is what [`default_param_base`] answers when a kernel has no
//! `EIATTR_PARAM_CBANK` (a kernel without parameters).

use tangle_sass::cubin;
use tangle_sass::typed::{Loc, MachInst};
use tangle_sass::{decode_typed, Arch, Op, Word};

use crate::error::SimError;

/// One instruction slot of the code: decoded, or the decoder's reason for refusing it
/// (reported only if execution reaches it).
#[derive(Clone, Debug)]
pub enum Slot {
    /// A decoded instruction.
    Inst(Box<Inst>),
    /// A word the SASS layer refuses, with its reason.
    Refused(String),
}

/// A decoded instruction with what the simulator reads from it on every execution.
#[derive(Clone, Debug)]
pub struct Inst {
    /// The typed instruction.
    pub m: MachInst,
    /// Its modifier components (`WIDE`, `U32`, ...), read once.
    pub comps: Vec<&'static str>,
    /// The indexes of its source operands (role `Use`), in order.
    pub srcs: Vec<usize>,
    /// The indexes of its destination operands (role `Def`), in order.
    pub dsts: Vec<usize>,
    /// The registers it writes (every register of a pair), for hazard mode.
    pub defs: Vec<Loc>,
    /// The registers it reads, the guard included, for hazard mode.
    pub uses: Vec<Loc>,
}

impl Inst {
    /// Wraps a typed instruction.
    pub fn new(m: MachInst) -> Inst {
        let comps = m.components();
        let mut srcs = Vec::new();
        let mut dsts = Vec::new();
        for (i, r) in m.roles().iter().enumerate() {
            if r.defines() {
                dsts.push(i);
            } else {
                srcs.push(i);
            }
        }
        // Hazard mode tracks the register files with latencies: not the convergence
        // barriers (BMOV's scoreboard guards its general register), and not the SM80-89
        // memory descriptor UR4:UR5 that global accesses read implicitly (late, at address
        // generation: ptxas issues them 2 cycles after the R2UR that sets it).
        let explicit_ur = |n: u8| {
            m.operands
                .iter()
                .any(|o| matches!(o.val, tangle_sass::typed::Val::UReg(u) if u.0 == n || u.0 + 1 == n)
                    || matches!(o.val, tangle_sass::typed::Val::Mem(a) if a.ureg.is_some_and(|u| u.0 == n || u.0 + 1 == n)))
        };
        let defs: Vec<Loc> = m
            .defs()
            .into_iter()
            .filter(|l| !matches!(l, Loc::B(_)))
            .collect();
        // The descriptor pair itself (UR4:UR5 in ptxas's code, others in CUB's; the SASS
        // layer's `Addr::desc`).
        let descriptor_ur = |n: u8| {
            m.form.ops.iter().zip(&m.operands).any(|(o, x)| {
                o.desc.is_some()
                    && matches!(x.val, tangle_sass::typed::Val::Mem(a) if a.desc.0 == n || a.desc.0 + 1 == n)
            })
        };
        let uses: Vec<Loc> = m
            .uses()
            .into_iter()
            .filter(|l| match l {
                Loc::B(_) => false,
                Loc::Ur(n) if *n == 4 || *n == 5 || descriptor_ur(*n) => explicit_ur(*n),
                _ => true,
            })
            .collect();
        Inst {
            m,
            comps,
            srcs,
            dsts,
            defs,
            uses,
        }
    }

    /// The operation.
    pub fn op(&self) -> Op {
        self.m.op()
    }

    /// Whether the modifier component `c` (no dot) is printed.
    pub fn has(&self, c: &str) -> bool {
        self.comps.contains(&c)
    }
}

/// A kernel parameter: where it lies in constant bank 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its position in the kernel's parameter list, from 0.
    pub ordinal: u32,
    /// Its offset from the first parameter.
    pub offset: u32,
    /// Its size in bytes.
    pub size: u32,
}

/// A kernel ready to run.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The architecture of its code.
    pub arch: Arch,
    /// Its (mangled) name.
    pub name: String,
    /// The code, one slot per 16 bytes from address 0 of its section.
    pub code: Vec<Slot>,
    /// The parameters, by ordinal.
    pub params: Vec<Param>,
    /// The offset of the first parameter in constant bank 0.
    pub param_base: u32,
    /// The size of constant bank 0 (at least `param_base` plus the parameters).
    pub cbank0_size: u32,
    /// Static shared memory in bytes (`.nv.shared.<name>`).
    pub static_shared: u32,
    /// Other constant banks (`.nv.constantN`, N > 0) with their contents.
    pub banks: Vec<(u8, Vec<u8>)>,
    /// The module's `__device__` variables, relocated, from [`crate::module::MODULE_BASE`]
    /// (empty when it has none).
    pub globals: Vec<u8>,
}

/// Where ptxas 13.5 puts the first kernel parameter in constant bank 0.
pub fn default_param_base(arch: Arch) -> u32 {
    match arch {
        Arch::Sm90 => 0x210,
        _ => 0x160,
    }
}

/// Where ptxas reads the initial local-memory stack pointer (`MOV R1, c[0x0][0x28]`).
pub const CB_LOCAL_TOP: u32 = 0x28;

/// Decodes `words` (a code section from address 0) into slots.
pub fn decode_code(arch: Arch, words: &[Word]) -> Vec<Slot> {
    words
        .iter()
        .enumerate()
        .map(|(i, &w)| match decode_typed(arch, w, 16 * i as u64) {
            Ok(m) => Slot::Inst(Box::new(Inst::new(m))),
            Err(e) => match relaxed_memory_decode(arch, w, 16 * i as u64) {
                Some(m) => Slot::Inst(Box::new(Inst::new(m))),
                None => Slot::Refused(e.to_string()),
            },
        })
        .collect()
}

/// The bits of a global memory access that the SASS layer's forms keep constant but
/// ptxas varies, and that change nothing the simulator models: the memory descriptor
/// register of SM80-SM89 (bits 32-37 of loads, 64-69 of stores, reductions and atomics,
/// which nvdisasm does not print: the SASS layer refused words whose descriptor is not UR4
/// until issue 12 and decodes them now, keeping it in `Addr::desc`) and the memory order and scope (bits 77-80: `.STRONG.SYS` of `volatile`
/// accesses; the simulator's memory is sequentially consistent whatever they say). Also
/// bit 67 of `UPLOP3` (0x89c), which nvdisasm 13.5 ignores on every SM (the text is the
/// same set or clear, so the SASS layer keeps it constant) and ptxas leaves clear at times
/// (a `ptxas` fuzz campaign program, seed 433 on sm_86): in `PLOP3` it marks the third
/// source as a uniform predicate, which every source of `UPLOP3` is.
fn relaxed_bits(opcode: u64) -> u128 {
    let order = 0xf << 77;
    match opcode {
        0x381 | 0x981 => order | (0x3f << 32),
        0x386 | 0x986 | 0x98e | 0x9a8 | 0x3a9 => order | (0x3f << 64),
        0x89c => 1 << 67,
        _ => 0,
    }
}

/// Decodes a global memory access whose only difference from a known form lies in
/// [`relaxed_bits`]: the word is decoded with those bits taken from the form's sample,
/// where the form keeps them constant.
fn relaxed_memory_decode(arch: Arch, w: Word, addr: u64) -> Option<MachInst> {
    let opcode = w.get(0, 12);
    let relaxed = relaxed_bits(opcode);
    if relaxed == 0 {
        return None;
    }
    tangle_sass::forms::all()
        .iter()
        .filter(|f| f.opcode as u64 == opcode && f.arches & arch.bit() != 0)
        .find_map(|f| {
            let patch = relaxed & f.const_mask();
            let w2 = Word((w.0 & !patch) | (f.sample.0 & patch));
            decode_typed(arch, w2, addr).ok()
        })
}

/// The functions of a cubin that are kernels (have an `.nv.info.<name>` section), by name.
pub fn kernel_names(bytes: &[u8]) -> Result<Vec<String>, SimError> {
    let c = cubin::read(bytes).map_err(|e| SimError::Load(e.to_string()))?;
    let secs = cubin::sections(bytes).map_err(|e| SimError::Load(e.to_string()))?;
    Ok(c.functions
        .iter()
        .filter(|f| {
            secs.iter()
                .any(|s| s.name == format!(".nv.info.{}", f.name))
        })
        .map(|f| f.name.clone())
        .collect())
}

/// Whether the mangled `full` names the function `short`: equal, or an Itanium mangling
/// `_Z<len><short>...`.
fn names_match(full: &str, short: &str) -> bool {
    full == short || full.starts_with(&format!("_Z{}{}", short.len(), short))
}

/// Loads kernel `name` (its mangled name, or its plain name for a mangled C++ function)
/// from cubin bytes.
pub fn load(bytes: &[u8], name: &str) -> Result<Kernel, SimError> {
    let load_err = |e: tangle_sass::SassError| SimError::Load(e.to_string());
    let c = cubin::read(bytes).map_err(load_err)?;
    let arch = c
        .arch
        .ok_or_else(|| SimError::Load(format!("sm_{} is not supported (SM75-SM90 are)", c.sm)))?;
    let secs = cubin::sections(bytes).map_err(load_err)?;
    let matching: Vec<&cubin::Function> = c
        .functions
        .iter()
        .filter(|f| names_match(&f.name, name))
        .collect();
    let f = match matching.as_slice() {
        [f] => *f,
        [] => {
            let known: Vec<String> = kernel_names(bytes)?;
            return Err(SimError::Load(format!(
                "no kernel `{name}` (kernels: {})",
                known.join(", ")
            )));
        }
        many => {
            return match many.iter().find(|f| f.name == name) {
                Some(f) => load_function(arch, f, &secs, &c.symbols, &c.functions),
                None => Err(SimError::Load(format!(
                    "`{name}` is ambiguous: {}",
                    many.iter()
                        .map(|f| f.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))),
            }
        }
    };
    load_function(arch, f, &secs, &c.symbols, &c.functions)
}

fn load_function(
    arch: Arch,
    f: &cubin::Function,
    secs: &[cubin::RawSection],
    symbols: &[cubin::Symbol],
    functions: &[cubin::Function],
) -> Result<Kernel, SimError> {
    let info = secs
        .iter()
        .find(|s| s.name == format!(".nv.info.{}", f.name))
        .ok_or_else(|| {
            SimError::Load(format!(
                "`{}` has no .nv.info section: it is a device function, not a kernel",
                f.name
            ))
        })?;
    let (params, base) = parse_params(&info.data)?;
    let param_base = base.unwrap_or_else(|| default_param_base(arch));
    let param_end = params
        .iter()
        .map(|p| param_base + p.offset + p.size)
        .max()
        .unwrap_or(param_base);
    let cbank0_size = secs
        .iter()
        .find(|s| s.name == format!(".nv.constant0.{}", f.name))
        .map_or(param_end, |s| (s.size as u32).max(param_end));
    let static_shared = secs
        .iter()
        .find(|s| s.name == format!(".nv.shared.{}", f.name))
        .map_or(0, |s| s.size as u32);
    // Other constant banks: `.nv.constantN.<kernel>` (ptxas's jump tables, in bank 2) or
    // a module-wide `.nv.constantN`; the kernel's own wins.
    let mut banks: Vec<(u8, Vec<u8>)> = Vec::new();
    let mut bank_sections: Vec<usize> = Vec::new();
    for (index, s) in secs.iter().enumerate() {
        let Some(rest) = s.name.strip_prefix(".nv.constant") else {
            continue;
        };
        let (num, owner) = match rest.split_once('.') {
            Some((n, o)) => (n, Some(o)),
            None => (rest, None),
        };
        let Ok(n) = num.parse::<u8>() else { continue };
        if n == 0 || n >= 32 || owner.is_some_and(|o| o != f.name) {
            continue;
        }
        match banks.iter().position(|(b, _)| *b == n) {
            Some(k) if owner.is_some() => {
                banks[k].1 = s.data.clone();
                bank_sections[k] = index;
            }
            Some(_) => {}
            None => {
                banks.push((n, s.data.clone()));
                bank_sections.push(index);
            }
        }
    }
    // `__device__` variables and the relocations that hold their (and functions')
    // addresses, in the banks and in the variables.
    let mut globals = crate::module::sections(secs);
    let places: Vec<(usize, u64)> = globals.iter().map(|(k, at, _)| (*k, *at)).collect();
    {
        let mut patch: Vec<(usize, &mut Vec<u8>)> = bank_sections
            .iter()
            .copied()
            .zip(banks.iter_mut().map(|(_, d)| d))
            .collect();
        patch.extend(globals.iter_mut().map(|(k, _, d)| (*k, d)));
        crate::module::relocate(secs, symbols, &places, f.section, &mut patch)?;
    }
    let globals = crate::module::image(&globals);
    // The code: the kernel's section at 0, then the sections of the device functions it
    // reaches through relocations (`-G` builds call them with `CALL.ABS`), each at a
    // 128-byte boundary, with their relocations applied.
    let mut words = f.words.clone();
    let mut bases = vec![(f.section, 0u64)];
    let mut next = 0;
    while next < bases.len() {
        // The code sections the relocations of section `bases[next]` name.
        let from = bases[next].0;
        next += 1;
        for g in crate::module::called_sections(secs, symbols, from) {
            let Some(func) = functions.iter().find(|h| h.section == g) else {
                continue;
            };
            if bases.iter().any(|(k, _)| *k == g) {
                continue;
            }
            words.resize(words.len().div_ceil(8) * 8, tangle_sass::Word(0));
            bases.push((g, words.len() as u64 * 16));
            words.extend_from_slice(&func.words);
        }
    }
    let refused = crate::module::relocate_code(secs, symbols, &places, &bases, &mut words)?;
    let mut code = decode_code(arch, &words);
    for (at, why) in refused {
        code[at] = Slot::Refused(why);
    }
    Ok(Kernel {
        arch,
        name: f.name.clone(),
        code,
        params,
        param_base,
        cbank0_size,
        static_shared,
        banks,
        globals,
    })
}

/// The parameters listed by EIATTR_KPARAM_INFO, sorted by ordinal, and the base offset
/// from EIATTR_PARAM_CBANK when present.
fn parse_params(d: &[u8]) -> Result<(Vec<Param>, Option<u32>), SimError> {
    let u16_at = |o: usize| u16::from_le_bytes([d[o], d[o + 1]]) as u32;
    let u32_at = |o: usize| u32::from_le_bytes([d[o], d[o + 1], d[o + 2], d[o + 3]]);
    let mut params = Vec::new();
    let mut base = None;
    let mut at = 0;
    while at + 4 <= d.len() {
        let (fmt, attr, len) = (d[at], d[at + 1], u16_at(at + 2) as usize);
        at += 4;
        if fmt != 4 {
            continue;
        }
        if at + len > d.len() {
            return Err(SimError::Load(format!(
                ".nv.info attribute {attr:#x} at {:#x} runs past its section",
                at - 4
            )));
        }
        match attr {
            0x0a if len >= 8 => base = Some(u16_at(at + 4)),
            0x17 if len >= 12 => params.push(Param {
                ordinal: u16_at(at + 4),
                offset: u16_at(at + 6),
                size: (u32_at(at + 8) >> 18) & 0x3fff,
            }),
            _ => {}
        }
        at += len;
    }
    params.sort_by_key(|p| p.ordinal);
    for (i, p) in params.iter().enumerate() {
        if p.ordinal != i as u32 {
            return Err(SimError::Load(format!(
                "parameter ordinals are not 0..{}: ordinal {} missing",
                params.len(),
                i
            )));
        }
    }
    Ok((params, base))
}

impl Kernel {
    /// A kernel from raw code words with a given parameter layout (for SASS that did not
    /// come from a cubin: hand-written, or another compiler's dump).
    pub fn from_words(arch: Arch, name: &str, words: &[Word], param_sizes: &[u32]) -> Kernel {
        let mut params = Vec::new();
        let mut off = 0u32;
        for (i, &size) in param_sizes.iter().enumerate() {
            let align = size.clamp(1, 8);
            off = off.div_ceil(align) * align;
            params.push(Param {
                ordinal: i as u32,
                offset: off,
                size,
            });
            off += size;
        }
        let param_base = default_param_base(arch);
        Kernel {
            arch,
            name: name.to_string(),
            code: decode_code(arch, words),
            params,
            param_base,
            cbank0_size: param_base + off,
            static_shared: 0,
            banks: Vec::new(),
            globals: Vec::new(),
        }
    }
}
