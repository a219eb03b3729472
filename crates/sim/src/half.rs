//! Packed half precision: HADD2, HMUL2 and HFMA2 (HFMA2.MMA included) on the two f16
//! lanes of a register, with operand swizzles (`.H0_H0`, `.H1_H1`), `|x|`, `-x`, f16x2
//! immediates, constant banks, `.FTZ` and `.SAT`.
//!
//! Semantics (PTX's `add/mul/fma.rn{.ftz}{.sat}.f16x2`): each lane is rounded once to
//! nearest even. Sums and products of two f16 values are exact in f64, so one conversion
//! rounds them correctly (with the crate's own f64-to-f16 rounding, [`round16`]); an FMA's f64 sum may be inexact, so it is rounded to odd first
//! (53 bits is more than 11 + 2, so the final rounding to f16 is then correct). `.FTZ`
//! flushes subnormal inputs and results to a zero of the same sign; `.SAT` clamps to
//! [0, 1] with NaN to +0. A NaN result is 0x7fff, CUDA's canonical half NaN (assumed from
//! the f32 rule; not yet checked on a GPU). HADD2/HMUL2 `.F32` (one f32 result, the low
//! lane) where both lanes are the same half, as ptxas's f16-to-f32 widening writes it.
//! Refused with a reason: other `.F32` outputs, `.F32` sources, `.BF16_V2`, `.RELU`,
//! `.FMZ` and `.OOB`.

use half::f16;
use tangle_sass::typed::{Swizzle, Val};
use tangle_sass::Op;

use crate::error::SimError;
use crate::kernel::Inst;
use crate::operands::{write, Cx};
use crate::round::two_sum;
use crate::warp::{lanes, Warp};

/// The canonical half-precision NaN.
const NAN16: u16 = 0x7fff;

fn flush(x: f16, on: bool) -> f16 {
    // Subnormal: exponent field 0, fraction not 0.
    let b = x.to_bits();
    if on && b & 0x7c00 == 0 && b & 0x03ff != 0 {
        f16::from_bits(x.to_bits() & 0x8000)
    } else {
        x
    }
}

/// `x` rounded to the nearest f16, ties to even, in one step. (`half`'s `f16::from_f64`
/// goes through f32 and so rounds twice: 1 + 2^-11 + 2^-30 gave 1 instead of 1 + 2^-10;
/// found by the test below.)
pub(crate) fn round16(x: f64) -> f16 {
    if x.is_nan() {
        return f16::from_bits(NAN16);
    }
    let sign = if x.is_sign_negative() { 0x8000u16 } else { 0 };
    let a = x.abs();
    // 65520 is the midpoint between 65504 and 2^16: it and above round to infinity.
    if a >= 65520.0 {
        return f16::from_bits(sign | 0x7c00);
    }
    if a < 2f64.powi(-14) {
        // Subnormal (or the smallest normal, 1024 * 2^-24, after rounding up): exact
        // scaling by a power of two, then one rounding.
        let q = (a * 2f64.powi(24)).round_ties_even() as u16;
        return f16::from_bits(sign | q);
    }
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let frac = ((a / 2f64.powi(e) - 1.0) * 1024.0).round_ties_even() as u32;
    let (e, frac) = if frac == 1024 { (e + 1, 0) } else { (e, frac) };
    if e + 15 >= 31 {
        return f16::from_bits(sign | 0x7c00);
    }
    f16::from_bits(sign | ((e + 15) as u16) << 10 | frac as u16)
}

/// `x * y + z` rounded once to f16 (round to odd in f64, then to nearest even).
fn fma16(x: f64, y: f64, z: f64) -> f16 {
    let p = x * y;
    let (s, e) = two_sum(p, z);
    if e == 0.0 || !s.is_finite() {
        return round16(s);
    }
    let bits = s.to_bits();
    let odd = if bits & 1 == 1 {
        s
    } else if (e > 0.0) == (s > 0.0) {
        f64::from_bits(bits + 1)
    } else {
        f64::from_bits(bits - 1)
    };
    round16(odd)
}

/// The result lane: `.FTZ`, `.SAT` and NaN canonicalisation applied.
fn finish(r: f16, ftz: bool, sat: bool) -> u16 {
    if r.is_nan() {
        return if sat { 0 } else { NAN16 };
    }
    let r = flush(r, ftz);
    if sat {
        if r.to_f32() <= 0.0 {
            return 0;
        }
        if r.to_f32() >= 1.0 {
            return f16::ONE.to_bits();
        }
    }
    r.to_bits()
}

/// The two lanes (low, high) of each source of `i` for `lane`.
fn sources(cx: &Cx<'_>, w: &Warp, i: &Inst, lane: usize) -> Result<Vec<[u16; 2]>, SimError> {
    let s = &i.srcs;
    let mut out = Vec::with_capacity(3);
    let mut k = 0;
    while k < s.len() {
        let o = &i.m.operands[s[k]];
        if let Val::F16(hi) = o.val {
            // Two immediates, the high half printed (and stored in the operand list) first.
            let Some(Val::F16(lo)) = s.get(k + 1).map(|&j| i.m.operands[j].val) else {
                return Err(cx.unsupported(i, "a half immediate without its pair"));
            };
            out.push([lo, hi]);
            k += 2;
            continue;
        }
        let v = cx.rd(w, i, s[k], lane)?;
        let (lo, hi) = (v as u16, (v >> 16) as u16);
        let mut p = match o.swz {
            Swizzle::H1H0 => [lo, hi],
            Swizzle::H0H0 => [lo, lo],
            Swizzle::H1H1 => [hi, hi],
            Swizzle::F32 => return Err(cx.unsupported(i, "`.F32` half sources are not modelled")),
        };
        for h in &mut p {
            if o.abs {
                *h &= 0x7fff;
            }
            if o.neg {
                *h ^= 0x8000;
            }
        }
        out.push(p);
        k += 1;
    }
    Ok(out)
}

/// Runs HADD2, HMUL2 or HFMA2 on the lanes `a`; `Ok(false)` for any other operation.
pub fn exec(cx: &mut Cx<'_>, w: &mut Warp, i: &Inst, a: u32) -> Result<bool, SimError> {
    let op = i.op();
    let want = match op {
        Op::Hadd2 | Op::Hmul2 => 2,
        Op::Hfma2 => 3,
        _ => return Ok(false),
    };
    for c in ["BF16_V2", "RELU", "FMZ", "OOB"] {
        if i.has(c) {
            return Err(cx.unsupported(i, format!("half precision `.{c}` is not modelled")));
        }
    }
    let (ftz, sat) = (i.has("FTZ"), i.has("SAT"));
    // `.F32`: one f32 result from the low lane. Modelled where the lanes cannot differ
    // (every register source swizzled to one half: ptxas's widening `HADD2.F32 R,
    // R.H0_H0, -RZ.H0_H0`), without `.FTZ`/`.SAT`.
    let f32_out = i.has("F32");
    if f32_out {
        let one_half = i.srcs.iter().all(|&k| {
            let o = &i.m.operands[k];
            !matches!(o.val, Val::Reg(_) | Val::CBank { .. })
                || matches!(o.swz, Swizzle::H0H0 | Swizzle::H1H1)
        });
        if !one_half || ftz || sat {
            return Err(cx.unsupported(
                i,
                "half precision `.F32` with both lanes, `.FTZ` or `.SAT` is not modelled",
            ));
        }
    }
    for l in lanes(a) {
        let src = sources(cx, w, i, l)?;
        if src.len() != want {
            return Err(cx.unsupported(i, "an unexpected half-precision operand layout"));
        }
        let v = |k: usize, h: usize| flush(f16::from_bits(src[k][h]), ftz).to_f64();
        if f32_out {
            // Sums and products of f16 values are exact in f64; `as f32` rounds once.
            let r = match op {
                Op::Hadd2 => (v(0, 0) + v(1, 0)) as f32,
                Op::Hmul2 => (v(0, 0) * v(1, 0)) as f32,
                _ => return Err(cx.unsupported(i, "HFMA2 `.F32` is not modelled")),
            };
            let bits = if r.is_nan() { 0x7fff_ffff } else { r.to_bits() };
            write(w, i, i.dsts[0], l, &[bits]);
            continue;
        }
        let mut out = 0u32;
        for h in 0..2 {
            let r = match op {
                Op::Hadd2 => round16(v(0, h) + v(1, h)),
                Op::Hmul2 => round16(v(0, h) * v(1, h)),
                _ => fma16(v(0, h), v(1, h), v(2, h)),
            };
            out |= (finish(r, ftz, sat) as u32) << (16 * h);
        }
        write(w, i, i.dsts[0], l, &[out]);
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values from Python's IEEE half conversion (`struct.pack('<e', x)`, round
    /// to nearest even), computed outside this crate.
    #[test]
    fn fma_rounds_once() {
        // 1 + 2^-11 (a tie in f16) plus a tiny addend must round up, not to even:
        // struct.unpack('<H', struct.pack('<e', 1 + 2**-11 + 2**-30)) == (0x3c01,)
        let r = fma16(1.0 + 2f64.powi(-11), 1.0, 2f64.powi(-30));
        assert_eq!(r.to_bits(), 0x3c01);
        // The tie itself rounds to even: struct.pack('<e', 1 + 2**-11) -> 0x3c00.
        assert_eq!(fma16(1.0 + 2f64.powi(-11), 1.0, 0.0).to_bits(), 0x3c00);
        // 65504 * 2 overflows to +inf (0x7c00).
        assert_eq!(fma16(65504.0, 2.0, 0.0).to_bits(), 0x7c00);
    }

    /// Every f16 value and every midpoint between neighbours, against Python's
    /// conversion: exact values map to themselves, midpoints to the even neighbour.
    #[test]
    fn round16_is_one_rounding() {
        for b in 0u16..0x7c00 {
            let x = f16::from_bits(b).to_f64();
            assert_eq!(round16(x).to_bits(), b);
            assert_eq!(round16(-x).to_bits(), b | 0x8000);
            let next = f16::from_bits(b + 1).to_f64();
            let mid = (x + next) / 2.0;
            let even = if b & 1 == 0 { b } else { b + 1 };
            assert_eq!(round16(mid).to_bits(), even, "midpoint above {b:#x}");
        }
        // struct.pack("<e", 65519.99) -> 0x7bff (65504); 65520 is too large for struct
        // (it rounds to infinity).
        assert_eq!(round16(65519.99).to_bits(), 0x7bff);
        assert_eq!(round16(65520.0).to_bits(), 0x7c00);
        // struct.pack('<e', 2**-25) -> 0x0000 (tie to even), 3 * 2**-26 -> 0x0001.
        assert_eq!(round16(2f64.powi(-25)).to_bits(), 0);
        assert_eq!(round16(3.0 * 2f64.powi(-26)).to_bits(), 1);
    }

    #[test]
    fn saturate_and_flush() {
        assert_eq!(finish(f16::from_f32(1.5), false, true), 0x3c00);
        assert_eq!(finish(f16::from_f32(-0.5), false, true), 0);
        assert_eq!(finish(f16::NAN, false, true), 0);
        assert_eq!(finish(f16::NAN, false, false), NAN16);
        // The smallest subnormal, 2^-24 (0x0001), flushes to +0; -2^-24 to -0.
        assert_eq!(finish(f16::from_bits(0x0001), true, false), 0);
        assert_eq!(finish(f16::from_bits(0x8001), true, false), 0x8000);
        assert_eq!(finish(f16::from_bits(0x0001), false, false), 1);
    }
}
