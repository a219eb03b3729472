//! The `.nv.info` attribute lists: the module-wide `.nv.info` (register count, frame and
//! stack size per function) and each kernel's `.nv.info.<kernel>`, in the order ptxas 13.5
//! writes them for each SM (read from its cubins; `docs/cubin.md` lists them).
//!
//! An attribute is a format byte, an attribute byte, then either a 16-bit value
//! (`EIFMT_NVAL`, `EIFMT_BVAL`, `EIFMT_HVAL`) or a 16-bit size and that many bytes
//! (`EIFMT_SVAL`).

use tangle_sass::cubin::eiattr::*;
use tangle_sass::Arch;

use crate::{param_base, param_layout, Facts, Kernel};

/// ptxas's EIATTR_CUDA_API_VERSION for CUDA 13.5 (135), which the writer claims to match.
pub const CUDA_API_VERSION_135: u32 = 0x87;
/// EIATTR_LANGUAGE's value on ptxas's kernels (cuobjdump prints it as PTX).
const LANGUAGE_PTX: u32 = 3;

/// A growing attribute list.
#[derive(Default)]
pub struct Attrs(pub Vec<u8>);

impl Attrs {
    /// An attribute with a 16-bit value (formats NVAL, BVAL, HVAL).
    fn value(&mut self, fmt: u8, attr: u8, v: u16) {
        self.0.extend([fmt, attr]);
        self.0.extend(v.to_le_bytes());
    }

    /// A sized attribute (SVAL) of 32-bit words.
    fn words(&mut self, attr: u8, words: &[u32]) {
        self.0.extend([FMT_SVAL, attr]);
        self.0.extend(((4 * words.len()) as u16).to_le_bytes());
        for w in words {
            self.0.extend(w.to_le_bytes());
        }
    }

    /// A sized attribute of raw bytes.
    fn bytes(&mut self, attr: u8, b: &[u8]) {
        self.0.extend([FMT_SVAL, attr]);
        self.0.extend((b.len() as u16).to_le_bytes());
        self.0.extend(b);
    }
}

/// Symbol indexes the attributes refer to.
pub struct KernelSyms {
    /// The kernel's function symbol.
    pub func: u32,
    /// The section symbol of its `.nv.constant0.<kernel>`.
    pub cbank: u32,
}

/// The module-wide `.nv.info`: for each kernel its register count and frame size, then
/// for each its minimum stack size (the frame: the writer's kernels call nothing).
pub fn module_info(kernels: &[Kernel], facts: &[Facts], syms: &[KernelSyms]) -> Vec<u8> {
    let mut a = Attrs::default();
    for ((k, f), s) in kernels.iter().zip(facts).zip(syms) {
        a.words(REGCOUNT, &[s.func, f.registers]);
        a.words(FRAME_SIZE, &[s.func, k.local_frame]);
    }
    for (k, s) in kernels.iter().zip(syms) {
        a.words(MIN_STACK_SIZE, &[s.func, k.local_frame]);
    }
    a.0
}

/// The parameter attributes: EIATTR_KPARAM_INFO for each parameter, last first (as ptxas
/// orders them).
fn kparams(a: &mut Attrs, k: &Kernel) {
    let (offsets, _) = param_layout(&k.params);
    for (ordinal, (p, off)) in k.params.iter().zip(offsets).enumerate().rev() {
        let mut b = Vec::with_capacity(12);
        b.extend(0u32.to_le_bytes()); // index
        b.extend((ordinal as u16).to_le_bytes());
        b.extend((off as u16).to_le_bytes());
        // Flags: log-alignment of the pointee 0-7 (0), space 8-11 (0), constant bank
        // 12-16 (0x1f: "CBANK"), size 18-31.
        let flags = (0x1f << 12) | (p.size << 18);
        b.extend(flags.to_le_bytes());
        a.bytes(KPARAM_INFO, &b);
    }
}

/// EIATTR_PARAM_CBANK and EIATTR_CBANK_PARAM_SIZE, when the kernel has parameters.
fn cbank(a: &mut Attrs, arch: Arch, k: &Kernel, s: &KernelSyms, size_first: bool) {
    if k.params.is_empty() {
        return;
    }
    let (_, total) = param_layout(&k.params);
    let word = param_base(arch) | (total << 16);
    if size_first {
        a.value(FMT_HVAL, CBANK_PARAM_SIZE, total as u16);
        a.words(PARAM_CBANK, &[s.cbank, word]);
    } else {
        a.words(PARAM_CBANK, &[s.cbank, word]);
        a.value(FMT_HVAL, CBANK_PARAM_SIZE, total as u16);
    }
}

/// The attributes every SM shares after the parameters: the register limit, the named
/// barriers, ptxas's unnamed 0x5f, the EXIT offsets, the launch bounds and the CRS stack.
fn middle(a: &mut Attrs, arch: Arch, k: &Kernel, f: &Facts) {
    a.value(
        FMT_HVAL,
        MAXREG_COUNT,
        k.max_registers.unwrap_or(0xff) as u16,
    );
    if f.named_barriers > 0 {
        a.value(FMT_BVAL, NUM_BARRIERS, f.named_barriers as u16);
    }
    a.value(
        FMT_HVAL,
        UNNAMED_5F,
        if arch == Arch::Sm90 { 0x101 } else { 0 },
    );
    if !f.exit_offsets.is_empty() {
        a.words(EXIT_INSTR_OFFSETS, &f.exit_offsets);
    }
    if let Some(d) = k.max_threads {
        a.words(MAX_THREADS, &d);
    }
    if let Some(d) = k.reqntid {
        a.words(REQNTID, &d);
    }
    if f.uses_bssy {
        a.words(CRS_STACK_SIZE, &[0]);
    }
}

/// A kernel's `.nv.info.<kernel>` in ptxas's order for `arch`.
pub fn kernel_info(arch: Arch, k: &Kernel, f: &Facts, s: &KernelSyms) -> Vec<u8> {
    let mut a = Attrs::default();
    a.words(LANGUAGE, &[LANGUAGE_PTX]);
    match arch {
        Arch::Sm75 => {
            a.words(SW_WAR, &[1]);
            a.words(CUDA_API_VERSION, &[CUDA_API_VERSION_135]);
            cbank(&mut a, arch, k, s, false);
            kparams(&mut a, k);
            middle(&mut a, arch, k, f);
        }
        Arch::Sm80 | Arch::Sm86 | Arch::Sm89 => {
            a.words(CUDA_API_VERSION, &[CUDA_API_VERSION_135]);
            if arch != Arch::Sm89 {
                // ptxas writes this flag on SM80 and SM86 only.
                a.value(FMT_NVAL, SW_WAR_NVAL, 0);
            }
            cbank(&mut a, arch, k, s, false);
            kparams(&mut a, k);
            middle(&mut a, arch, k, f);
        }
        Arch::Sm90 => {
            a.words(CUDA_API_VERSION, &[CUDA_API_VERSION_135]);
            kparams(&mut a, k);
            a.value(FMT_HVAL, SPARSE_MMA_MASK, 0);
            middle(&mut a, arch, k, f);
            cbank(&mut a, arch, k, s, true);
            a.words(SW_WAR, &[8]);
            a.value(FMT_HVAL, NVSAL_SW_WAR, 1);
            a.value(FMT_BVAL, PREEXIT_USED, 0);
        }
    }
    a.0
}
