//! What the writer computes from a kernel's code: the register count, the EXIT offsets,
//! the named CTA barriers and the convergence barriers used. Each instruction is decoded
//! with the typed API of `tangle-sass` and read through its `defs`/`uses` and operands,
//! so nothing here depends on how the code was produced.

use tangle_sass::typed::decode_typed_relaxed;
use tangle_sass::typed::{Loc, Val};
use tangle_sass::{Arch, Op};

use crate::{param_base, param_layout, CubinError, Kernel};

/// The attributes of one kernel that follow from its code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Facts {
    /// The highest general register the code reads or writes (every register of a pair or
    /// quad counted), `None` when it uses none.
    pub highest_register: Option<u8>,
    /// The register count written to EIATTR_REGCOUNT and `.text`'s `sh_info`: the registers
    /// `R0..=highest` plus the two ptxas always reserves above them (`docs/cubin.md`).
    pub registers: u32,
    /// Byte offsets of every EXIT (predicated ones included), in address order.
    pub exit_offsets: Vec<u32>,
    /// EIATTR_NUM_BARRIERS: the highest named barrier id a `BAR` uses plus one (16 when an
    /// id comes from a register), 0 when there is no `BAR`.
    pub named_barriers: u32,
    /// The highest convergence barrier register (`B0`..`B15`) used plus one.
    pub convergence_barriers: u32,
    /// Whether the code opens convergence scopes (`BSSY`).
    pub uses_bssy: bool,
}

/// The fewest registers ptxas ever reports (a kernel that only reads its stack pointer).
const MIN_REGISTERS: u32 = 4;
/// The registers ptxas's count has above the highest one the code names.
const RESERVED_REGISTERS: u32 = 2;

/// Computes the [`Facts`] of `kernel`'s code on `arch`, refusing instructions the writer
/// cannot describe (`docs/cubin.md`, "Refused").
pub fn analyze(arch: Arch, kernel: &Kernel) -> Result<Facts, CubinError> {
    let (_, param_bytes) = param_layout(&kernel.params);
    let cbank0_end = param_base(arch) + param_bytes;
    let code_bytes = 16 * kernel.code.len() as i64;
    let mut highest: Option<u8> = None;
    let mut exits = Vec::new();
    let mut named = 0u32;
    let mut conv = 0u32;
    let mut uses_bssy = false;
    for (i, &w) in kernel.code.iter().enumerate() {
        let offset = 16 * i as u64;
        let unsupported = |what: String| CubinError::Unsupported {
            kernel: kernel.name.clone(),
            offset,
            what,
        };
        let m = decode_typed_relaxed(arch, w, offset).map_err(|e| CubinError::Undecodable {
            kernel: kernel.name.clone(),
            offset,
            why: e.to_string(),
        })?;
        for loc in m.defs().into_iter().chain(m.uses()) {
            match loc {
                Loc::R(r) => highest = highest.max(Some(r)),
                Loc::B(b) => conv = conv.max(b as u32 + 1),
                _ => {}
            }
        }
        let comps = m.components();
        match m.op() {
            Op::Exit => exits.push(offset as u32),
            Op::Bssy => uses_bssy = true,
            Op::Brx => return Err(unsupported(
                "an indirect branch (BRX needs EIATTR_INDIRECT_BRANCH_TARGETS and a jump table)"
                    .into(),
            )),
            Op::Call if comps.contains(&"ABS") => {
                return Err(unsupported(
                    "an absolute call (CALL.ABS needs a relocation)".into(),
                ))
            }
            Op::Call if m.operands.iter().any(|o| matches!(o.val, Val::Reg(_))) => {
                return Err(unsupported("an indirect call".into()))
            }
            Op::Bar => {
                let id = m.operands.iter().find_map(|o| match o.val {
                    Val::Imm(v) => Some(v as u32 + 1),
                    Val::Reg(_) => Some(16),
                    _ => None,
                });
                named = named.max(id.unwrap_or(1).min(16));
            }
            _ => {}
        }
        for o in &m.operands {
            match o.val {
                Val::CBank { bank, .. } | Val::CBankIdx { bank, .. } if bank != 0 => {
                    return Err(unsupported(format!(
                        "constant bank {bank} (only bank 0 is written)"
                    )))
                }
                Val::CBank { offset, .. } if offset as u32 >= cbank0_end => {
                    return Err(unsupported(format!(
                        "a read of c[0x0][{offset:#x}], past the parameters (they end at {cbank0_end:#x})"
                    )))
                }
                _ => {}
            }
        }
        if let Some(t) = m.target() {
            let absolute = m.op() == Op::Ret || comps.contains(&"ABS");
            if !absolute && (t < 0 || t >= code_bytes) {
                return Err(unsupported(format!(
                    "a branch target {t:#x} outside the kernel's {code_bytes:#x} bytes of code"
                )));
            }
        }
    }
    let used = highest.map_or(0, |h| h as u32 + 1);
    Ok(Facts {
        highest_register: highest,
        registers: (used + RESERVED_REGISTERS).max(MIN_REGISTERS),
        exit_offsets: exits,
        named_barriers: named,
        convergence_barriers: conv,
        uses_bssy,
    })
}
