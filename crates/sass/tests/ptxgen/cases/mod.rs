//! The generated kernels, family by family (the sections of the PTX ISA's chapter 9.7).
//!
//! Registers follow the frame of `mod.rs`: outputs `%r0`/`%rd0`/`%h0`/`%p0`, inputs
//! `%r1..4`, `%rd1..4`, `%h1..4`, `%p1`, `%p2`, scratch `%r5..8`, `%rd5..8`, `%h5..8`,
//! `%p3`, `%p4`; `%rd9` is the thread's global slot.

use super::{Kernel, Out};

mod arith;
mod data;
mod memory;
mod sm90_async;
mod sync;

use arith::*;
use data::*;
use memory::*;
use sm90_async::*;
use sync::*;

/// The integer types.
const INTS: [&str; 6] = ["s16", "u16", "s32", "u32", "s64", "u64"];
/// Signed integer types.
const SINTS: [&str; 3] = ["s16", "s32", "s64"];
/// Float rounding modes.
const RND: [&str; 4] = ["rn", "rz", "rm", "rp"];
/// Integer comparisons (signed and unsigned spellings).
const ICMP: [&str; 10] = ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"];
/// Float comparisons.
const FCMP: [&str; 14] = [
    "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
];
/// 32-bit float immediates: special values (NaNs with and without payload, signalling
/// NaNs, infinities, denormals, extremes, negative zero) and ordinary ones.
pub const F32_IMMS: [&str; 18] = [
    "0f7FC00000",
    "0fFFFFFFFF",
    "0f7FBFFFFF",
    "0fFFC00000",
    "0f7FFFFFFF",
    "0f7F800001",
    "0fFFA00000",
    "0f7F800000",
    "0fFF800000",
    "0f00000001",
    "0f807FFFFF",
    "0f00800000",
    "0f7F7FFFFF",
    "0fFF7FFFFF",
    "0f80000000",
    "0f3DCCCCCD",
    "0f3F800000",
    "0f4B000001",
];
/// 64-bit float immediates, as [`F32_IMMS`] (some with low bits no SASS immediate holds).
pub const F64_IMMS: [&str; 15] = [
    "0d7FF8000000000000",
    "0d7FFFFFFF00000000",
    "0dFFF7FFFF00000000",
    "0dFFF8000000000000",
    "0d7FF0000000000001",
    "0d7FF4000000000000",
    "0d7FF0000000000000",
    "0dFFF0000000000000",
    "0d0000000000000001",
    "0d0010000000000000",
    "0d7FEFFFFFFFFFFFFF",
    "0d8000000000000000",
    "0d3FF8000000000000",
    "0d3FB999999999999A",
    "0d41CDCD6500000000",
];
/// 16-bit float bit patterns (moved into a register, which ptxas folds into immediates).
pub const F16_BITS: [&str; 12] = [
    "0x7E00", "0x7FFF", "0xFDFF", "0xFE00", "0x7C01", "0x7C00", "0xFC00", "0x0001", "0x03FF",
    "0x7BFF", "0x8000", "0x3C00",
];

/// The register of `ty` numbered `i`: `%h` for 16-bit types, `%r` for 32-bit ones and the
/// packed pairs, `%rd` for 64-bit ones, `%p` for predicates.
pub fn reg(ty: &str, i: u32) -> String {
    let bits = ty.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    match (ty, bits) {
        ("pred", _) => format!("%p{i}"),
        (_, "16") => format!("%h{i}"),
        (_, "64") => format!("%rd{i}"),
        _ => format!("%r{i}"),
    }
}

/// The output of a destination of `ty`.
fn out_of(ty: &str) -> Out {
    match reg(ty, 0).as_str() {
        "%p0" => Out::Pred,
        "%h0" => Out::R16,
        "%rd0" => Out::R64,
        _ => Out::R32,
    }
}

/// `t` with `{d}`, `{a}`, `{b}`, `{c}` replaced by registers 0-3 of `ty` and `{t}` by `ty`.
fn fill(t: &str, ty: &str) -> String {
    t.replace("{d}", &reg(ty, 0))
        .replace("{a}", &reg(ty, 1))
        .replace("{b}", &reg(ty, 2))
        .replace("{c}", &reg(ty, 3))
        .replace("{t}", ty)
}

struct Gen {
    v: Vec<Kernel>,
}

impl Gen {
    fn k(&mut self, isa: &'static str, min_sm: u32, out: Out, body: impl Into<String>) {
        self.v.push(Kernel {
            isa,
            min_sm,
            sm90a_only: false,
            body: body.into(),
            out,
        });
    }
    fn k90a(&mut self, isa: &'static str, out: Out, body: impl Into<String>) {
        self.v.push(Kernel {
            isa,
            min_sm: 90,
            sm90a_only: true,
            body: body.into(),
            out,
        });
    }
    /// One kernel per type: `t` filled for `ty`, output of `ty`.
    fn typed(&mut self, isa: &'static str, min_sm: u32, t: &str, tys: &[&str]) {
        for ty in tys {
            self.k(isa, min_sm, out_of(ty), fill(t, ty));
        }
    }
}

/// Every kernel.
pub fn all() -> Vec<Kernel> {
    let mut g = Gen { v: Vec::new() };
    integer(&mut g);
    extended(&mut g);
    float(&mut g);
    half(&mut g);
    compare(&mut g);
    logic(&mut g);
    data(&mut g);
    convert(&mut g);
    memory(&mut g);
    async_copy(&mut g);
    sm90_async(&mut g);
    texture(&mut g);
    control(&mut g);
    sync(&mut g);
    atomics(&mut g);
    warp(&mut g);
    matrix(&mut g);
    video(&mut g);
    misc(&mut g);
    g.v
}
