//! A [`Program`] as a CUDA kernel, the sibling of [`crate::glsl`]: the same buffers, the
//! same records at the same words, so the buffer a cubin computes can be compared word for
//! word with the reference interpreter's at subgroup size 32.
//!
//! Tangles are observed as the CTS observes them in GLSL, through the set of lanes
//! executing together: `subgroupBallot(true)` is `__activemask()` (the lanes of the warp
//! that execute it together), `subgroupElect()` is "this lane is the lowest of
//! `__activemask()`", and the collectives run over `__activemask()` with warp intrinsics
//! (`__reduce_add_sync` from sm_80, shuffles otherwise). CUDA promises nothing about
//! which lanes execute together, so the buffer shows exactly how ptxas's code reconverged.
//!
//! The entry point is one `extern "C" __global__` kernel per program, taking the output
//! buffer (`o`, the records) and the input buffer (`inp`, [`crate::ast::INPUT`]); one
//! block of [`Program::local_size`] threads in x. `loc` is a local passed by reference to
//! the helpers, the loop indices are locals of the function holding the loop.

use std::fmt::Write as _;

use crate::ast::{Collective, Program, Stmt};
use crate::clike::CLike;

/// The only subgroup size a CUDA kernel has: the warp.
pub const WARP: u32 = 32;

/// How the kernel is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CudaOptions {
    /// Mark the helpers `__noinline__`, so ptxas sees calls (`CALL`/`RET`) rather than
    /// inlined bodies.
    pub noinline: bool,
}

/// The device functions every kernel uses (observations over `__activemask()`); written
/// once per translation unit, before the kernels.
pub const PRELUDE: &str = r#"// tangle fuzz programs as CUDA: one kernel per program, observations over __activemask().
static __device__ __forceinline__ unsigned tangle_elect() {
  unsigned m = __activemask();
  return (threadIdx.x & 31u) == (unsigned)(__ffs(m) - 1) ? 1u : 0u;
}
static __device__ __forceinline__ unsigned tangle_sum(unsigned x) {
  unsigned m = __activemask();
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(m, x);
#else
  unsigned s = 0;
  for (unsigned l = 0; l < 32u; ++l)
    if ((m >> l) & 1u) s += __shfl_sync(m, x, l);
  return s;
#endif
}
static __device__ __forceinline__ unsigned tangle_inclusive_sum(unsigned x) {
  unsigned m = __activemask();
  unsigned me = threadIdx.x & 31u, s = 0;
  for (unsigned l = 0; l < 32u; ++l)
    if ((m >> l) & 1u) { unsigned v = __shfl_sync(m, x, l); if (l <= me) s += v; }
  return s;
}
static __device__ __forceinline__ unsigned tangle_broadcast_first(unsigned x) {
  unsigned m = __activemask();
  return __shfl_sync(m, x, __ffs(m) - 1);
}
"#;

/// The name of the kernel `to_cuda` writes for `tag` (a seed, say).
pub fn kernel_name(tag: u64) -> String {
    format!("tangle_fuzz_{tag}")
}

/// The CUDA source of `program` as kernel [`kernel_name`]`(tag)`, its helpers named after
/// it; needs [`PRELUDE`] once before it in the translation unit.
pub fn to_cuda(program: &Program, tag: u64, opts: CudaOptions) -> String {
    let name = kernel_name(tag);
    let mut s = String::new();
    let e = Emit {
        stride: program.local_size * crate::ast::RECORD_WORDS,
        name: name.clone(),
        loops: program.loops,
    };
    let inline = if opts.noinline {
        "__noinline__"
    } else {
        "__forceinline__"
    };
    // Helpers last first: each calls only the ones after it.
    for (k, body) in program.functions.iter().enumerate().rev() {
        let _ = writeln!(
            s,
            "static __device__ {inline} void {name}_helper{k}(unsigned arg, unsigned *o, \
             const unsigned *inp, unsigned &loc) {{"
        );
        e.locals(&mut s);
        e.list(&mut s, body, 1);
        s.push_str("}\n");
    }
    let _ = writeln!(
        s,
        "extern \"C\" __global__ void {name}(unsigned *o, const unsigned *inp) {{\n  unsigned loc = 0u;"
    );
    e.locals(&mut s);
    e.list(&mut s, &program.body, 1);
    s.push_str("}\n");
    s
}

/// A translation unit of several programs, each `(tag, program, options)`.
pub fn translation_unit<'a>(
    programs: impl IntoIterator<Item = (u64, &'a Program, CudaOptions)>,
) -> String {
    let mut s = String::from(PRELUDE);
    for (tag, p, opts) in programs {
        s.push_str(&to_cuda(p, tag, opts));
    }
    s
}

struct Emit {
    stride: u32,
    name: String,
    loops: u32,
}

const LANE: &str = "(threadIdx.x & 31u)";
const INV: &str = "threadIdx.x";

impl Emit {
    fn locals(&self, s: &mut String) {
        if self.loops > 0 {
            let names: Vec<String> = (0..self.loops).map(|l| format!("i{l} = 0u")).collect();
            let _ = writeln!(s, "  unsigned {};", names.join(", "));
            for l in 0..self.loops {
                let _ = writeln!(s, "  (void)i{l};");
            }
        }
    }

    fn record(&self, s: &mut String, pad: &str, id: u32, value: &str) {
        let _ = writeln!(
            s,
            "{pad}{{ unsigned w = {value}; unsigned b = loc * {}u + {INV} * 5u; \
             o[b] = w; o[b + 1u] = 0u; o[b + 2u] = 0u; o[b + 3u] = 0u; o[b + 4u] = {}u; loc++; }}",
            self.stride,
            id + 1
        );
    }
}

impl CLike for Emit {
    const LANE_BITS: &'static str = LANE;
    const LANE: &'static str = LANE;
    const INV: &'static str = INV;
    const ELECT: &'static str = "tangle_elect()";

    fn observation(&self, s: &mut String, pad: &str, st: &Stmt) {
        match st {
            Stmt::Ballot { id } => self.record(s, pad, *id, "__activemask()"),
            Stmt::Elect { id } => self.record(s, pad, *id, "tangle_elect()"),
            Stmt::Collective { id, op } => {
                let f = match op {
                    Collective::Sum => "tangle_sum",
                    Collective::InclusiveSum => "tangle_inclusive_sum",
                    Collective::BroadcastFirst => "tangle_broadcast_first",
                };
                self.record(s, pad, *id, &format!("{f}({INV} + 1u)"));
            }
            _ => unreachable!("not an observation: {st:?}"),
        }
    }

    fn call(&self, func: u32, arg: &str) -> String {
        format!("{}_helper{func}({arg}, o, inp, loc)", self.name)
    }
}
