//! Cubin listings with nvdisasm's labels.
//!
//! For a cubin nvdisasm names branch targets instead of printing addresses: a target that is
//! a symbol prints as the symbol (`` CALL.REL.NOINC `($loops$collatz_steps) ``,
//! `` RET.REL.NODEC R2 `(loops) ``), any other as a label `.L_x_N`, and a line `.L_x_N:`
//! stands before the instruction it names. The numbers run over the whole file, in three
//! passes (measured with nvdisasm 13.5 on the corpus, every SM):
//!
//! 1. branch targets: the code sections in section-table order, each instruction in address
//!    order; a target that has a symbol or already has a label gets no new number;
//! 2. `.nv.info.*` instruction offsets ([`cubin::OFFSET_ATTRIBUTES`],
//!    [`cubin::OFFSET_ENTRY_ATTRIBUTES`], the branches and
//!    targets of [`cubin::INDIRECT_BRANCH_TARGETS`], the spills of [`cubin::ANNOTATIONS`]),
//!    sections in table order, attributes and their entries in order: *every* entry takes a new number, even where the address already
//!    has a label or a symbol (the number is then never printed: the first name wins);
//! 3. function ends, for the `.size` directives: function symbols in symbol-table order,
//!    each taking a new number (printed only where the end has no symbol and no label yet).
//!
//! At an address with a symbol the symbol is printed and no label; with several labels only
//! the first. An indirect branch (BRX) listed in EIATTR_INDIRECT_BRANCH_TARGETS carries
//! nvdisasm's annotation of its targets: `` BRX R4 -0xc0 (*"BRANCH_TARGETS .L_x_5,.L_x_6"*) ``;
//! a spill store or reload listed in EIATTR_ANNOTATIONS carries `(*"SpillRefill"*)` (once,
//! however often the offset is listed). Function symbols print as `.global`/`.weak` (non-local ones), `.type` and
//! `.size` directives and `name:`; other symbols (the section symbol `.text.name`) as
//! `name:` after them.

use std::collections::{HashMap, HashSet};

use crate::cubin::{
    self, Cubin, Reloc, Symbol, R_CUDA_ABS32_32, R_CUDA_ABS32_HI_32, R_CUDA_ABS32_LO_32,
    R_CUDA_ABS47_34, R_CUDA_SM90_CALL_ABS, STB_GLOBAL, STB_LOCAL, STB_WEAK, STO_CUDA_ENTRY,
    STT_FUNC, STT_OBJECT, STT_SECTION,
};
use crate::{decode, Arch, Control, Inst, SassError};

/// A cubin's code as text.
#[derive(Clone, Debug, Default)]
pub struct Listing {
    /// The lines, without line ends.
    pub lines: Vec<String>,
    /// How many words were refused (printed as `<refused: ...>` lines).
    pub refused: usize,
}

/// Labels of a whole cubin: `(section, byte address)` to label numbers, first one printed.
struct Names<'a> {
    labels: HashMap<(usize, u64), Vec<u32>>,
    /// Symbols per `(section, address)`: function symbols first (in table order), then the
    /// others.
    symbols: HashMap<(usize, u64), Vec<&'a Symbol>>,
    next: u32,
}

impl<'a> Names<'a> {
    fn new(c: &'a Cubin) -> Names<'a> {
        let mut symbols: HashMap<(usize, u64), Vec<&Symbol>> = HashMap::new();
        let code: Vec<usize> = c.functions.iter().map(|f| f.section).collect();
        for s in c.symbols.iter().filter(|s| code.contains(&s.section)) {
            symbols.entry((s.section, s.value)).or_default().push(s);
        }
        // Non-local functions first, then the section symbol, then local functions (static
        // device functions, which `-G` keeps out of line): nvdisasm prints
        // `.text._ZN..._INTERNAL_...:` before such a function's `.type` (measured on the
        // `-G` corpus, whose symbol tables hold the local function before the section).
        for v in symbols.values_mut() {
            v.sort_by_key(|s| match (s.kind, s.bind) {
                (STT_FUNC, b) if b != STB_LOCAL => 0,
                (STT_SECTION, _) => 1,
                _ => 2,
            });
        }
        Names {
            labels: HashMap::new(),
            symbols,
            next: 0,
        }
    }

    fn new_label(&mut self, at: (usize, u64)) {
        self.labels.entry(at).or_default().push(self.next);
        self.next += 1;
    }

    /// What an address prints as: its first symbol, else its first label.
    fn name(&self, at: (usize, u64)) -> Option<String> {
        if let Some(s) = self.symbols.get(&at).and_then(|v| v.first()) {
            return Some(s.name.clone());
        }
        self.labels
            .get(&at)
            .and_then(|v| v.first())
            .map(|n| format!(".L_x_{n}"))
    }
}

/// The instructions of one code section, decoded.
type Decoded = Vec<Result<Inst, SassError>>;

/// Disassembles every code section of `c` (decoded for `arch`) with nvdisasm's labels and
/// symbol directives; with `control`, each instruction carries its control annotation.
pub fn cubin_listing(c: &Cubin, arch: Arch, control: bool) -> Listing {
    let decoded: Vec<Decoded> = c
        .functions
        .iter()
        .map(|f| {
            f.words
                .iter()
                .enumerate()
                .map(|(i, &w)| decode(arch, w, 16 * i as u64))
                .collect()
        })
        .collect();
    let mut names = Names::new(c);
    let in_code = |f: &cubin::Function, t: u64| t % 16 == 0 && t <= 16 * f.words.len() as u64;
    // Relocations by patched instruction, each section's in address order.
    let mut relocs: HashMap<(usize, u64), &Reloc> = HashMap::new();
    let mut sorted: Vec<&Reloc> = c.relocs.iter().collect();
    sorted.sort_by_key(|r| {
        (
            c.functions.iter().position(|f| f.section == r.section),
            r.offset,
        )
    });
    // Pass 0: the addresses relocations name (`-G` builds' return addresses), before any
    // branch target (measured: a `-G` cubin's first labels are these, in section order).
    for r in &sorted {
        relocs.insert((r.section, r.offset), r);
        if let Some(at) = reloc_address(c, r) {
            if !names.symbols.contains_key(&at) && !names.labels.contains_key(&at) {
                names.new_label(at);
            }
        }
    }
    // Pass 1: branch targets.
    for (f, insts) in c.functions.iter().zip(&decoded) {
        for inst in insts.iter().flatten() {
            let Some(t) = inst.target().filter(|&t| in_code(f, t)) else {
                continue;
            };
            let at = (f.section, t);
            if !names.symbols.contains_key(&at) && !names.labels.contains_key(&at) {
                names.new_label(at);
            }
        }
    }
    // Pass 1b: the code addresses a `-G` build's debug sections name (measured: numbered
    // after the branch targets and before the .nv.info offsets; a named address takes no
    // number).
    for &at in &c.debug_refs {
        if !names.symbols.contains_key(&at) && !names.labels.contains_key(&at) {
            names.new_label(at);
        }
    }
    // Pass 2: offsets listed by .nv.info sections.
    let mut indirect: HashMap<(usize, u64), &[u64]> = HashMap::new();
    let mut spills: HashSet<(usize, u64)> = HashSet::new();
    for info in &c.info {
        spills.extend(info.spills.iter().map(|&off| (info.section, off)));
        for (b, targets) in &info.indirect {
            indirect.insert((info.section, *b), targets);
        }
        for &(_, off) in &info.offsets {
            names.new_label((info.section, off));
        }
    }
    // Pass 3: function ends.
    for s in c.symbols.iter().filter(|s| s.kind == STT_FUNC) {
        if !c.functions.iter().any(|f| f.section == s.section) {
            continue;
        }
        names.new_label((s.section, s.value.wrapping_add(s.size)));
    }

    let mut out = Listing::default();
    // nvdisasm puts a note (`(*"SpillRefill"*)`) in a column of its own: where the widest
    // instruction line without a note ends (in the whole file), with the `;` right after it.
    let mut widest = 0;
    let mut annotated: Vec<(usize, String, String)> = Vec::new();
    out.lines
        .push(format!("\t.target\t{}", target_name(c, arch)));
    out.lines.push(String::new());
    out.lines
        .push(format!("\t.elftype\t@\"{}\"", elf_type_name(c.elf_type)));
    for (f, insts) in c.functions.iter().zip(&decoded) {
        out.lines.push(String::new());
        out.lines.push(String::new());
        out.lines.push(format!(
            "//--------------------- {:<25} --------------------------",
            format!(".text.{}", f.name)
        ));
        out.lines.push(format!(
            "\t.section\t.text.{},\"{}\",@progbits",
            f.name,
            section_flags(f.flags)
        ));
        // SM90 cubins keep no register count here, and nvdisasm then prints no line.
        if f.info >> 24 != 0 {
            out.lines.push(format!(
                "\t.sectioninfo\t@\"SHI_REGISTERS={}\"",
                f.info >> 24
            ));
        }
        out.lines.push(format!("\t.align\t{}", f.align));
        for i in 0..=insts.len() {
            let addr = 16 * i as u64;
            names_at(&names, f.section, addr, &mut out.lines);
            let Some(inst) = insts.get(i) else {
                continue;
            };
            let line = match inst {
                Ok(inst) => {
                    let reloc = relocs.get(&(f.section, addr));
                    let text = match reloc.and_then(|r| relocated_text(c, &names, r, inst)) {
                        Some(text) => text,
                        None => inst.text_with_labels(&|t| {
                            if in_code(f, t) {
                                names.name((f.section, t))
                            } else {
                                None
                            }
                        }),
                    };
                    let note = indirect
                        .get(&(f.section, addr))
                        .map(|targets| {
                            let names: Vec<String> = targets
                                .iter()
                                .map(|&t| {
                                    names
                                        .name((f.section, t))
                                        .unwrap_or_else(|| format!("{t:#x}"))
                                })
                                .collect();
                            format!(" (*\"BRANCH_TARGETS {}\"*)", names.join(","))
                        })
                        .unwrap_or_default();
                    let spill = if spills.contains(&(f.section, addr)) {
                        " (*\"SpillRefill\"*)"
                    } else {
                        ""
                    };
                    let control = control.then(|| inst.control());
                    let note = format!("{note}{spill}");
                    if note.is_empty() {
                        let line = instruction_line(addr, control, &text, inst.control());
                        widest = widest.max(line.len());
                        line
                    } else {
                        // Placed once the widest plain line is known.
                        let at = out.lines.len();
                        annotated.push((
                            at,
                            instruction_line(addr, control, &text, inst.control()),
                            note,
                        ));
                        String::new()
                    }
                }
                Err(e) => {
                    out.refused += 1;
                    format!("        /*{addr:04x}*/ <refused: {e}> /* {} */", f.words[i])
                }
            };
            out.lines.push(line);
        }
    }
    for (at, line, note) in annotated {
        let bare = line.trim_end_matches(';').trim_end();
        out.lines[at] = format!("{bare:<widest$}{};", note.trim_start());
    }
    // Data symbols that are not local (SM90's `.nv.reservedSmem.offset0`) and functions
    // defined elsewhere (`__assertfail`, which a -G build of libcu++ code calls) close the
    // listing, in symbol-table order; nvdisasm leaves out local ones, such as a
    // `__constant__` table (`vector_memory.cu`).
    let objects: Vec<&Symbol> = c
        .symbols
        .iter()
        .filter(|s| {
            s.bind != STB_LOCAL && (s.kind == STT_OBJECT || (s.kind == STT_FUNC && s.section == 0))
        })
        .collect();
    if !objects.is_empty() {
        out.lines.push(String::new());
        out.lines.push(String::new());
        out.lines
            .push("//--------------------- SYMBOLS --------------------------".into());
        out.lines.push(String::new());
        for s in objects {
            if s.kind == STT_FUNC {
                out.lines.push(format!("\t.type\t\t{},@function", s.name));
                continue;
            }
            out.lines.push(format!("\t.type\t\t{},@object", s.name));
            out.lines
                .push(format!("\t.size\t\t{},{:#x}", s.name, s.size));
        }
    }
    out
}

/// The code address an address relocation (`R_CUDA_ABS32_LO_32`/`HI_32`) names: its
/// symbol's section and value plus the addend.
fn reloc_address(c: &Cubin, r: &Reloc) -> Option<(usize, u64)> {
    if !matches!(r.kind, R_CUDA_ABS32_LO_32 | R_CUDA_ABS32_HI_32) {
        return None;
    }
    let s = c.symbols.get(r.symbol)?;
    c.functions
        .iter()
        .any(|f| f.section == s.section)
        .then(|| (s.section, s.value.wrapping_add_signed(r.addend)))
}

/// nvdisasm's text of a relocated instruction whose patched field is still zero:
/// `MOV R20, 32@lo((_Z4leafi + .L_x_0@srel))` for an address relocation,
/// `` CALL.ABS.NOINC `(callee)` `` for a call target, `` MOV R5, `(.nv.surfrefDescSize) `` for
/// a symbol's value; `None` for other relocations.
fn relocated_text(c: &Cubin, names: &Names<'_>, r: &Reloc, inst: &Inst) -> Option<String> {
    let text = inst.text();
    let sym = &c.symbols.get(r.symbol)?.name;
    match r.kind {
        R_CUDA_ABS47_34 | R_CUDA_SM90_CALL_ABS => {
            let head = text.strip_suffix(" 0x0")?;
            head.starts_with("CALL.ABS")
                .then(|| format!("{head} `({sym})"))
        }
        R_CUDA_ABS32_32 => {
            let head = text.strip_suffix(", 0x0")?;
            (r.addend == 0).then(|| format!("{head}, `({sym})"))
        }
        R_CUDA_ABS32_LO_32 | R_CUDA_ABS32_HI_32 => {
            let head = text.strip_suffix(", 0x0")?;
            let half = if r.kind == R_CUDA_ABS32_LO_32 {
                "lo"
            } else {
                "hi"
            };
            // The symbol's own address (a function pointer taken, a table of function
            // pointers, a vtable) prints bare.
            if r.addend == 0 {
                return Some(format!("{head}, 32@{half}({sym})"));
            }
            let at = reloc_address(c, r)?;
            let label = names.name(at)?;
            Some(format!("{head}, 32@{half}(({sym} + {label}@srel))"))
        }
        _ => None,
    }
}

/// The column layout both NVIDIA disassemblers use: after the address comment, the guard
/// predicate right-aligned in a field of [`GUARD_FIELD`] characters, a blank, the rest of the
/// instruction, then its end: ` ;`, or `;` without the blank when the instruction has no
/// stall and a clear yield bit (ptxas's padding NOPs, a function's final self-branch, every
/// instruction of a `-G` build: observed on every line of the corpus, both tools alike).
/// With an `annotation` (tangle's `--control`), the line is `/*0070*/ [control] text ;`.
pub fn instruction_line(addr: u64, annotation: Option<Control>, text: &str, c: Control) -> String {
    if let Some(a) = annotation {
        // tangle's own form with control codes (no NVIDIA tool prints them): single blanks.
        return format!("        /*{addr:04x}*/ {a} {text} ;");
    }
    let (guard, rest) = split_guard(text);
    format!(
        "        /*{addr:04x}*/{guard:>GUARD_FIELD$} {rest}{}",
        line_end(rest, c)
    )
}

/// The width of the guard-predicate field (`@!UP0` fits).
pub const GUARD_FIELD: usize = 18;

/// `(guard, rest)`: `("@!P0", "BRA ...")`, or `("", text)` without a guard. A guard on a
/// uniform predicate (`@!UP0 ULOP3.LUT ...`) is not split off: both tools print it inline at
/// the text's column (observed on every uniform-guarded instruction of the corpus).
pub fn split_guard(text: &str) -> (&str, &str) {
    match text.strip_prefix('@').and_then(|_| text.split_once(' ')) {
        Some((g, rest)) if !g.contains("UP") => (g, rest),
        _ => ("", text),
    }
}

/// How an instruction line ends after the instruction text `rest` (see
/// [`instruction_line`]). A special float as the last operand (`+INF`, `-QNAN`, `+SNAN`) keeps
/// the blank nvdisasm prints after every special float (`FADD R5, R0, +SNAN  ;`, two blanks in
/// both NVIDIA tools' listings: seen on the generated PTX corpus), which the instruction's
/// own text leaves out ([`crate::Inst::text`] ends at its last operand).
pub fn line_end(rest: &str, c: Control) -> &'static str {
    let special_last = ["INF", "QNAN", "SNAN"].iter().any(|name| {
        rest.strip_suffix(name)
            .is_some_and(|r| r.ends_with(['+', '-']))
    });
    match (special_last, c.stall == 0 && !c.yield_bit) {
        (false, true) => ";",
        (false, false) | (true, true) => " ;",
        (true, false) => "  ;",
    }
}

/// The `.target` name: `sm_90a` for SM90 code that uses its architecture-specific features.
pub fn target_name(c: &Cubin, arch: Arch) -> String {
    if c.arch_specific {
        format!("{arch}a")
    } else {
        arch.to_string()
    }
}

/// nvdisasm's name of an ELF `e_type`.
fn elf_type_name(t: u16) -> String {
    match t {
        1 => "ET_REL".into(),
        2 => "ET_EXEC".into(),
        3 => "ET_DYN".into(),
        n => format!("ET_{n:#x}"),
    }
}

/// `sh_flags` as an assembler's section flags (`"ax"`).
fn section_flags(flags: u64) -> String {
    [(0x2, 'a'), (0x1, 'w'), (0x4, 'x')]
        .iter()
        .filter(|(bit, _)| flags & bit != 0)
        .map(|&(_, c)| c)
        .collect()
}

/// The directive and label lines that stand before address `addr` of section `sec`.
fn names_at(names: &Names<'_>, sec: usize, addr: u64, lines: &mut Vec<String>) {
    if let Some(syms) = names.symbols.get(&(sec, addr)) {
        for s in syms {
            if s.kind == STT_FUNC {
                match s.bind {
                    STB_GLOBAL => lines.push(format!("        .global         {}", s.name)),
                    STB_WEAK => lines.push(format!("        .weak           {}", s.name)),
                    _ => {}
                }
                lines.push(format!("        .type           {},@function", s.name));
                let end = names
                    .name((sec, s.value.wrapping_add(s.size)))
                    .unwrap_or_else(|| format!("{:#x}", s.value.wrapping_add(s.size)));
                lines.push(format!(
                    "        .size           {},({end} - {})",
                    s.name, s.name
                ));
                if s.other & STO_CUDA_ENTRY != 0 {
                    let visibility = ["STV_DEFAULT", "STV_INTERNAL", "STV_HIDDEN", "STV_PROTECTED"]
                        [(s.other & 3) as usize];
                    lines.push(format!(
                        "        .other          {},@\"STO_CUDA_ENTRY {visibility}\"",
                        s.name
                    ));
                }
            }
            lines.push(format!("{}:", s.name));
        }
        return;
    }
    if let Some(n) = names.labels.get(&(sec, addr)).and_then(|v| v.first()) {
        lines.push(format!(".L_x_{n}:"));
    }
}
