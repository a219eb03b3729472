//! Cubin listings as `cuobjdump -sass` prints them.
//!
//! cuobjdump spells instructions as nvdisasm does but names no labels: a branch target is its
//! absolute address (`BRA 0x1f0`, `CALL.REL.NOINC 0x860`). The layout, measured on the
//! corpus (every SM, `-O3` and `-G`) with cuobjdump 13.5:
//!
//! ```text
//! (empty line)
//! \tcode for sm_86
//! \t.target\tsm_86
//! (empty line)
//! \t\tFunction : <name>                 one block per code section, in section order
//! \t.headerflags\t@"EF_CUDA_SM86 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM86)"
//!         /*0000*/                   LDC.64 R2, c[0x0][0x160] ;      /* 0x00005800ff027b82 */
//!                                                                    /* 0x000e220000000a00 */
//! \t\t..........
//! (two empty lines)
//! ```
//!
//! The instruction text is laid out as nvdisasm lays it out ([`listing::instruction_line`]);
//! the two halves of the word follow as hex comments, low half first, in one column for the
//! whole file: two blanks after the longest instruction, where an instruction's length counts
//! its guard predicate *and* the full field before it (35 columns plus `@P0 ` plus the text:
//! the guard is right-aligned into the field when printed but counted as if it were not —
//! the only rule that fits every file of the corpus). `sm_90a` code adds
//! `EF_CUDA_ACCELERATORS` to the header flags, and the virtual SM is the one the code was
//! compiled from ([`Cubin::virtual_sm`]). Notes (`(*"SpillRefill"*)`) are not printed.

use crate::cubin::Cubin;
use crate::listing::{self, line_end, split_guard, GUARD_FIELD};
use crate::{decode, Arch};

/// The columns before the instruction text: eight blanks, `/*0000*/`, the guard field and
/// its blank.
const TEXT_COLUMN: usize = 8 + 8 + GUARD_FIELD + 1;

/// `cuobjdump -sass` of a cubin decoded for `arch`: the lines (without line ends) and how
/// many words were refused (printed as `<refused: ...>`, where cuobjdump prints text).
pub fn sass_listing(c: &Cubin, arch: Arch) -> listing::Listing {
    let target = listing::target_name(c, arch);
    let accelerators = if c.arch_specific {
        "EF_CUDA_ACCELERATORS "
    } else {
        ""
    };
    let flags = format!(
        "\t.headerflags\t@\"{accelerators}EF_CUDA_SM{n} EF_CUDA_VIRTUAL_SM(EF_CUDA_SM{v})\"",
        n = arch.number(),
        v = c.virtual_sm.unwrap_or(arch.number())
    );
    // (address comment + guard + text, length for the column, word) per instruction.
    let mut functions = Vec::new();
    let mut width = 0;
    let mut refused = 0;
    for f in &c.functions {
        let mut lines = Vec::new();
        for (i, &w) in f.words.iter().enumerate() {
            let addr = 16 * i as u64;
            let line = match decode(arch, w, addr) {
                Ok(inst) => {
                    let text = inst.text();
                    let (guard, rest) = split_guard(&text);
                    let end = line_end(rest, inst.control());
                    let counted = TEXT_COLUMN
                        + if guard.is_empty() { 0 } else { guard.len() + 1 }
                        + rest.len()
                        + end.len();
                    width = width.max(counted);
                    format!("        /*{addr:04x}*/{guard:>GUARD_FIELD$} {rest}{end}")
                }
                Err(e) => {
                    refused += 1;
                    format!("        /*{addr:04x}*/ <refused: {e}>")
                }
            };
            lines.push((line, w));
        }
        functions.push((&f.name, lines));
    }
    let column = width + 2;
    let mut out = vec![
        String::new(),
        format!("\tcode for {target}"),
        format!("\t.target\t{target}"),
        String::new(),
    ];
    for (name, lines) in functions {
        out.push(format!("\t\tFunction : {name}"));
        out.push(flags.clone());
        for (line, w) in lines {
            out.push(format!("{line:<column$}/* {:#018x} */", w.lo()));
            out.push(format!("{:<column$}/* {:#018x} */", "", w.hi()));
        }
        out.push("\t\t..........".into());
        out.push(String::new());
        out.push(String::new());
    }
    listing::Listing {
        lines: out,
        refused,
    }
}
