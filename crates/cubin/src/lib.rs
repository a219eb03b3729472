//! The cubin writer of tangle: kernels (SASS words and a description of their interface) to
//! an ELF file laid out as ptxas writes one for SM75-SM90, so that cuobjdump, nvdisasm, the
//! CUDA driver and tangle's own reader and simulator load it.
//!
//! * [`Kernel`] describes one kernel: its name, its code (128-bit words from address 0),
//!   its parameters ([`Param`]: size and alignment), static shared memory, the local-memory
//!   frame and the optional launch bounds.
//! * [`write`] lays the kernels out in one cubin for an [`Arch`]. What can be computed from
//!   the code is computed ([`Facts`]: register count, EXIT offsets, named barriers,
//!   convergence barriers), never taken from the caller.
//! * [`param_layout`] gives the offsets the parameters get in constant bank 0, so code
//!   that reads them (`c[0x0][0x160]`) can be generated before the cubin is written.
//!
//! The layout, every attribute and how it is computed, and the differences from ptxas's
//! cubins are described in `docs/cubin.md`.

mod elf;
mod facts;
mod info;
mod notes;

pub use facts::{analyze, Facts};
pub use tangle_sass::Arch;

use thiserror::Error;

/// One kernel parameter: its size and alignment in bytes, as the C ABI lays it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its size in bytes (1 to 4095 for one parameter; ptxas's attribute has 14 bits).
    pub size: u32,
    /// Its alignment in bytes (a power of two).
    pub align: u32,
}

impl Param {
    /// A parameter of `size` bytes aligned to its size (pointers, `int`, `double`), or to 8
    /// for larger sizes.
    pub fn sized(size: u32) -> Param {
        Param {
            size,
            align: size.clamp(1, 8).next_power_of_two(),
        }
    }
}

/// One kernel to write: its code and its interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// The symbol name (`add`, `_Z3addPi`).
    pub name: String,
    /// The instruction words, from address 0 of its `.text.<name>` section.
    pub code: Vec<tangle_sass::Word>,
    /// The parameters in order; [`param_layout`] says where each lies in constant bank 0.
    pub params: Vec<Param>,
    /// Static shared memory in bytes, as the code addresses it (on SM90 the writer adds the
    /// 0x400 bytes ptxas reserves below it; see `docs/cubin.md`).
    pub shared_bytes: u32,
    /// The local-memory frame (stack) per thread in bytes.
    pub local_frame: u32,
    /// `__launch_bounds__`'s block size limit (EIATTR_MAX_THREADS), when given.
    pub max_threads: Option<[u32; 3]>,
    /// The required block size (`.reqntid`, EIATTR_REQNTID), when given.
    pub reqntid: Option<[u32; 3]>,
    /// The register limit the code was allocated under (EIATTR_MAXREG_COUNT); `None`
    /// writes ptxas's "no limit", 0xff.
    pub max_registers: Option<u32>,
}

impl Kernel {
    /// A kernel with code and nothing else: no parameters, no shared or local memory, no
    /// launch bounds.
    pub fn new(name: impl Into<String>, code: Vec<tangle_sass::Word>) -> Kernel {
        Kernel {
            name: name.into(),
            code,
            params: Vec::new(),
            shared_bytes: 0,
            local_frame: 0,
            max_threads: None,
            reqntid: None,
            max_registers: None,
        }
    }

    /// The same kernel with parameters of these sizes, each aligned as [`Param::sized`].
    pub fn with_param_sizes(mut self, sizes: &[u32]) -> Kernel {
        self.params = sizes.iter().map(|&s| Param::sized(s)).collect();
        self
    }
}

/// Everything that can make [`write`] refuse its input. Each names the kernel and, where an
/// instruction is at fault, its byte offset in the kernel's code.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum CubinError {
    /// The description itself is wrong (empty or duplicate name, a bad alignment, sizes
    /// that do not fit their fields).
    #[error("kernel `{kernel}`: {why}")]
    BadKernel {
        /// The kernel's name.
        kernel: String,
        /// What is wrong.
        why: String,
    },
    /// A word the SASS layer cannot decode: its registers and effects are unknown, so the
    /// attributes computed from the code would be guesses.
    #[error("kernel `{kernel}`, instruction at {offset:#x}: cannot decode: {why}")]
    Undecodable {
        /// The kernel's name.
        kernel: String,
        /// The instruction's byte offset.
        offset: u64,
        /// The decoder's reason.
        why: String,
    },
    /// An instruction that needs something this writer does not produce (a relocation, an
    /// indirect call target list, a constant bank other than 0, ...).
    #[error("kernel `{kernel}`, instruction at {offset:#x}: {what} is not supported by the cubin writer")]
    Unsupported {
        /// The kernel's name.
        kernel: String,
        /// The instruction's byte offset.
        offset: u64,
        /// What it needs.
        what: String,
    },
}

/// Where ptxas 13.5 puts the first kernel parameter in constant bank 0 (probed for every
/// SM; `docs/sim.md`): 0x160 on SM75-SM89, 0x210 on SM90.
pub fn param_base(arch: Arch) -> u32 {
    match arch {
        Arch::Sm90 => 0x210,
        _ => 0x160,
    }
}

/// The size of the SM90 shared-memory window ptxas reserves below a kernel's own shared
/// variables (its `.nv.shared.<kernel>` section includes it; addresses start above it).
pub const SM90_RESERVED_SHARED: u32 = 0x400;

/// The offsets of `params` from the first parameter (add [`param_base`] for the address
/// in constant bank 0) and their total size: each parameter aligned to its alignment, in
/// order, the total not rounded up (ptxas's EIATTR_CBANK_PARAM_SIZE).
pub fn param_layout(params: &[Param]) -> (Vec<u32>, u32) {
    let mut offsets = Vec::with_capacity(params.len());
    let mut at = 0u32;
    for p in params {
        let a = p.align.max(1);
        at = at.div_ceil(a) * a;
        offsets.push(at);
        at += p.size;
    }
    (offsets, at)
}

/// Writes `kernels` as one cubin for `arch`.
pub fn write(arch: Arch, kernels: &[Kernel]) -> Result<Vec<u8>, CubinError> {
    check(kernels)?;
    let facts = kernels
        .iter()
        .map(|k| analyze(arch, k))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(elf::layout(arch, kernels, &facts))
}

/// Refuses descriptions whose values do not fit the fields they are written to.
fn check(kernels: &[Kernel]) -> Result<(), CubinError> {
    for (i, k) in kernels.iter().enumerate() {
        let bad = |why: String| CubinError::BadKernel {
            kernel: k.name.clone(),
            why,
        };
        if k.name.is_empty() || k.name.contains('\0') {
            return Err(bad("a kernel name must be non-empty and hold no NUL".into()));
        }
        if kernels[..i].iter().any(|o| o.name == k.name) {
            return Err(bad("two kernels have this name".into()));
        }
        if k.code.is_empty() {
            return Err(bad("no code".into()));
        }
        for (n, p) in k.params.iter().enumerate() {
            if p.size == 0 || p.size >= 1 << 14 {
                return Err(bad(format!(
                    "parameter {n} has size {}, outside 1..16383",
                    p.size
                )));
            }
            if !p.align.is_power_of_two() {
                return Err(bad(format!(
                    "parameter {n} has alignment {}, not a power of two",
                    p.align
                )));
            }
        }
        let (_, total) = param_layout(&k.params);
        if total > 0x1000 {
            return Err(bad(format!(
                "the parameters take {total} bytes, more than the 4096 constant bank 0 holds"
            )));
        }
        if let Some(m) = k.max_registers {
            if !(1..=255).contains(&m) {
                return Err(bad(format!("a register limit of {m} is outside 1..255")));
            }
        }
        for (what, dims) in [("max_threads", k.max_threads), ("reqntid", k.reqntid)] {
            if dims.is_some_and(|d| d.contains(&0)) {
                return Err(bad(format!("{what} has a zero dimension")));
            }
        }
    }
    Ok(())
}
