//! The generated PTX corpus: PTX for the instructions of the PTX ISA that ptxas accepts on
//! SM75 and later, written from tables of types, modifiers, rounding modes, scopes, state
//! spaces and operand kinds (special float immediates included), so that SASS coverage is
//! measured on what the ISA allows rather than on what our own kernels happen to contain.
//!
//! Every kernel has the same frame: it loads its inputs from a per-thread address (so ptxas
//! can fold nothing), runs one instruction (or a short sequence where the instruction needs
//! set-up), and stores the result. [`module`] writes the kernels for one target as one PTX
//! module, so each SM costs one ptxas call. [`ISA`] is the PTX ISA's instruction list with,
//! for each entry, either the kernels that cover it or the reason it is left out; the test
//! `generated.rs` checks that the two agree.
//!
//! `cargo run -p tangle-sass --example ptxgen -- DIR` writes the modules to a directory;
//! `cargo run -p tangle-sass --example ptxgen -- --coverage` prints the coverage table.

#![allow(dead_code)]

mod cases;
mod isa;

pub use isa::ISA;

/// What a kernel's instruction writes, which decides the store that keeps it alive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Out {
    /// `%h0` (16 bits).
    R16,
    /// `%r0` (32 bits).
    R32,
    /// `%rd0` (64 bits).
    R64,
    /// `%p0`.
    Pred,
    /// Nothing: the body has its own side effect (a store, a barrier, an atomic).
    None,
}

/// One generated kernel.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The PTX ISA instruction it covers (a name of [`ISA`]).
    pub isa: &'static str,
    /// The lowest SM that accepts it (75 for every Turing-and-later instruction).
    pub min_sm: u32,
    /// Only for the architecture-specific target `sm_90a` (wgmma, setmaxnreg).
    pub sm90a_only: bool,
    /// The instruction(s), using the frame's registers.
    pub body: String,
    /// What to store.
    pub out: Out,
}

/// Where a kernel is compiled: an SM number, and whether it is the `a` variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// 75, 80, 86, 89 or 90.
    pub sm: u32,
    /// `sm_90a` (architecture-specific features).
    pub arch_specific: bool,
}

impl Target {
    /// The `.target` / `-arch` name (`sm_90a`).
    pub fn name(self) -> String {
        format!(
            "sm_{}{}",
            self.sm,
            if self.arch_specific { "a" } else { "" }
        )
    }
    /// Whether `k` is compiled for this target (`sm_90a` compiles only the kernels that
    /// need it: the others are compiled for `sm_90` already).
    pub fn accepts(self, k: &Kernel) -> bool {
        k.min_sm <= self.sm && k.sm90a_only == self.arch_specific
    }
}

/// The targets of the generated corpus: the five SMs, and `sm_90a` for its own kernels.
pub const TARGETS: [Target; 6] = [
    Target {
        sm: 75,
        arch_specific: false,
    },
    Target {
        sm: 80,
        arch_specific: false,
    },
    Target {
        sm: 86,
        arch_specific: false,
    },
    Target {
        sm: 89,
        arch_specific: false,
    },
    Target {
        sm: 90,
        arch_specific: false,
    },
    Target {
        sm: 90,
        arch_specific: true,
    },
];

/// Every generated kernel, for every target.
pub fn kernels() -> Vec<Kernel> {
    cases::all()
}

/// The PTX ISA version the modules declare (the newest ptxas 13.5 accepts).
pub const PTX_VERSION: &str = "9.5";

/// The frame's register declarations and input loads: `%rd9` is this thread's 64-byte
/// slot; `%r1..%r4`, `%rd1..%rd4`, `%h1..%h4` and `%p1`, `%p2` are inputs read from it;
/// `%r0`, `%rd0`, `%h0`, `%p0` are outputs; `%r5..%r8`, `%rd5..%rd8`, `%h5..%h8`, `%p3`,
/// `%p4` are free for set-up.
const PROLOGUE: &str = "\
 .reg .pred %p<5>; .reg .b16 %h<9>; .reg .b32 %r<9>; .reg .b64 %rd<10>;
 ld.param.u64 %rd9, [pa];
 cvta.to.global.u64 %rd9, %rd9;
 mov.u32 %r8, %tid.x;
 mul.wide.u32 %rd8, %r8, 64;
 add.s64 %rd9, %rd9, %rd8;
 ld.global.b32 %r1, [%rd9]; ld.global.b32 %r2, [%rd9+4];
 ld.global.b32 %r3, [%rd9+8]; ld.global.b32 %r4, [%rd9+12];
 ld.global.b64 %rd1, [%rd9+16]; ld.global.b64 %rd2, [%rd9+24];
 ld.global.b64 %rd3, [%rd9+32]; ld.global.b64 %rd4, [%rd9+40];
 ld.global.b16 %h1, [%rd9+48]; ld.global.b16 %h2, [%rd9+50];
 ld.global.b16 %h3, [%rd9+52]; ld.global.b16 %h4, [%rd9+54];
 setp.ne.b32 %p1, %r4, 0; setp.lt.s32 %p2, %r3, 7;
";

/// The store that keeps `out` alive.
fn epilogue(out: Out) -> &'static str {
    match out {
        Out::R16 => " st.global.b16 [%rd9], %h0;\n",
        Out::R32 => " st.global.b32 [%rd9], %r0;\n",
        Out::R64 => " st.global.b64 [%rd9], %rd0;\n",
        Out::Pred => " selp.b32 %r8, 1, 0, %p0; st.global.b32 [%rd9], %r8;\n",
        Out::None => "",
    }
}

/// The PTX module of `kernels` for `target`: module-scope buffers in every state space,
/// a device function for calls, and one `.entry` per kernel named `k<index>` (the index
/// into `kernels`, so a ptxas error names the kernel).
pub fn module(target: Target, kernels: &[Kernel]) -> String {
    let mut s = format!(
        ".version {PTX_VERSION}\n.target {}\n.address_size 64\n\n\
         .global .align 16 .b8 gbuf[1024];\n\
         .shared .align 16 .b8 sbuf[1024];\n\
         .const .align 16 .b8 cbuf[1024];\n\
         .func (.param .b32 fr) fid(.param .b32 fa) {{\n .reg .b32 %t;\n \
         ld.param.b32 %t, [fa];\n add.s32 %t, %t, 3;\n st.param.b32 [fr], %t;\n ret;\n}}\n\n",
        target.name()
    );
    for (i, k) in kernels.iter().enumerate() {
        if !target.accepts(k) {
            continue;
        }
        s.push_str(&format!(
            "// {}\n.visible .entry k{i}(.param .u64 pa)\n{{\n{PROLOGUE}{}\n{}}}\n\n",
            k.isa,
            k.body.trim_end(),
            epilogue(k.out)
        ));
    }
    s
}
