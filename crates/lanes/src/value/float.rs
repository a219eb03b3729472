//! Float widths: scalars to and from `f64`, binary float arithmetic, `fma`, and f16
//! conversions (through the `half` crate).
//!
//! Every f16, f32 and f64 value is exact in `f64`, so operations compute in `f64` and round
//! once to the width. Rounding an `f64` to f16 must not go through a plain f32 rounding
//! (double rounding), and `half`'s own `f64` conversions do not round correctly (the
//! hardware path rounds through f32, half-rs #116; the software path drops the low 32
//! mantissa bits from the sticky bit, half-rs #151). So [`from_f`] rounds the `f64` to f32
//! *to odd* first (exact when representable, else the neighbour with an odd last bit),
//! which keeps the sticky information, and then lets `half` round that f32 to f16: with
//! 24 ≥ 11 + 2 bits this gives the correctly rounded f16.

use half::f16;

use super::{unsupported, OpFail};

/// A float scalar of width `w` (its bit pattern) as f64: exact for f16, f32 and f64.
pub fn to_f(b: u64, w: u32) -> Result<f64, OpFail> {
    match w {
        16 => Ok(f16::from_bits(b as u16).to_f64_const()),
        32 => Ok(f64::from(f32::from_bits(b as u32))),
        64 => Ok(f64::from_bits(b)),
        _ => unsupported(format!("f{w} arithmetic")),
    }
}

/// An f64 rounded to a float of width `w` (round to nearest even), as its bit pattern.
pub fn from_f(x: f64, w: u32) -> Result<u64, OpFail> {
    match w {
        16 => Ok(u64::from(
            f16::from_f32_const(round_to_odd_f32(x)).to_bits(),
        )),
        32 => Ok(u64::from((x as f32).to_bits())),
        64 => Ok(x.to_bits()),
        _ => unsupported(format!("f{w} arithmetic")),
    }
}

/// `x` rounded to f32 *to odd*: `x` itself when it is representable, otherwise whichever
/// of its two f32 neighbours has an odd significand. Rounding the result to nearest even at
/// a width of at most 22 bits gives the same as rounding `x` directly.
fn round_to_odd_f32(x: f64) -> f32 {
    let r = x as f32;
    if !r.is_finite() || f64::from(r) == x || r.to_bits() & 1 == 1 {
        return r;
    }
    // r is the even neighbour: step one unit in the last place towards x (away from r).
    let away_from_zero = (f64::from(r) < x) == (r > 0.0);
    if r == 0.0 {
        // |x| is below the smallest f32 subnormal: the odd neighbour is that subnormal.
        return f32::from_bits(1).copysign(x as f32);
    }
    if away_from_zero {
        f32::from_bits(r.to_bits() + 1)
    } else {
        f32::from_bits(r.to_bits() - 1)
    }
}

/// Binary float arithmetic in width `w`: computed in f64 and rounded once, which is exact
/// IEEE f16 and f32 arithmetic for + - * / (double rounding is innocuous for these, since
/// f64 has more than 2·24+2 bits of significand).
pub(crate) fn fbin(a: u64, b: u64, w: u32, f: impl Fn(f64, f64) -> f64) -> Result<u64, OpFail> {
    from_f(f(to_f(a, w)?, to_f(b, w)?), w)
}

/// Fused multiply-add `a * b + c` in width `w`, rounded once.
pub fn fma(a: u64, b: u64, c: u64, w: u32) -> Result<u64, OpFail> {
    match w {
        16 => {
            // The product of two f16 values is exact in f64; the sum is rounded to odd in
            // f64 (53 ≥ 11 + 2 bits), then to f16.
            let (a, b, c) = (to_f(a, 16)?, to_f(b, 16)?, to_f(c, 16)?);
            from_f(add_round_to_odd(a * b, c), 16)
        }
        32 => {
            let f = |x: u64| f32::from_bits(x as u32);
            Ok(u64::from(f(a).mul_add(f(b), f(c)).to_bits()))
        }
        64 => {
            let f = f64::from_bits;
            Ok(f(a).mul_add(f(b), f(c)).to_bits())
        }
        _ => unsupported(format!("f{w} arithmetic")),
    }
}

/// `p + c` in f64 rounded to odd (see [`round_to_odd_f32`]), using the exact error of the
/// rounded sum (Knuth's TwoSum).
fn add_round_to_odd(p: f64, c: f64) -> f64 {
    let s = p + c;
    if !s.is_finite() {
        return s;
    }
    let bb = s - p;
    let err = (p - (s - bb)) + (c - bb);
    if err == 0.0 || s.to_bits() & 1 == 1 {
        return s;
    }
    // s != 0 here: a sum that rounds to zero is exact.
    if (err > 0.0) == (s > 0.0) {
        f64::from_bits(s.to_bits() + 1)
    } else {
        f64::from_bits(s.to_bits() - 1)
    }
}

/// f32 → f16 bits, rounding to nearest even (overflow to infinity; NaN stays NaN, quiet).
pub fn f32_to_f16(x: f32) -> u16 {
    f16::from_f32_const(x).to_bits()
}

/// f16 bits → f32 (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    f16::from_bits(h).to_f32_const()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_conversions() {
        for (x, h) in [
            (1.0f32, 0x3c00u16),
            (-2.0, 0xc000),
            (65504.0, 0x7bff),
            (65520.0, 0x7c00),
            (5.960_464_5e-8, 0x0001),
            (0.1, 0x2e66),
        ] {
            assert_eq!(f32_to_f16(x), h, "{x}");
        }
        for h in [0u16, 1, 0x3ff, 0x400, 0x3c00, 0x7bff, 0xc000, 0x7c00] {
            assert_eq!(f32_to_f16(f16_to_f32(h)), h);
        }
    }

    /// The magnitude of a finite f16 in units of 2^-24.
    fn units(h: u16) -> i128 {
        let (e, m) = (i128::from(h >> 10 & 0x1f), i128::from(h & 0x3ff));
        if e == 0 {
            m
        } else {
            (1024 + m) << (e - 1)
        }
    }

    /// The correctly rounded f16 (nearest, ties to even) of `num / den` (`den > 0`),
    /// computed exactly with integers: an independent reference.
    fn round_rational(num: i128, den: i128) -> u16 {
        let sign = if num < 0 { 0x8000 } else { 0 };
        let m = num.abs() << 24;
        // lo: the largest finite f16 magnitude not above |num / den| (0x7c00 stands for
        // 65536, the rounding boundary of infinity).
        let (mut lo, mut hi) = (0u16, 0x7c00u16);
        let val = |h: u16| if h == 0x7c00 { 65536 << 24 } else { units(h) };
        if val(hi) * den <= m {
            return sign | 0x7c00;
        }
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if val(mid) * den <= m {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let h = match (2 * m).cmp(&((val(lo) + val(hi)) * den)) {
            std::cmp::Ordering::Less => lo,
            std::cmp::Ordering::Greater => hi,
            std::cmp::Ordering::Equal if lo & 1 == 0 => lo,
            std::cmp::Ordering::Equal => hi,
        };
        sign | h
    }

    fn signed(h: u16) -> i128 {
        if h & 0x8000 != 0 {
            -units(h)
        } else {
            units(h)
        }
    }

    /// Finite nonzero f16 values of both signs, subnormals and extremes included.
    fn grid(step: usize) -> Vec<u16> {
        let mut v: Vec<u16> = (1..0x7c00).step_by(step).collect();
        v.extend([
            0x0001, 0x03ff, 0x0400, 0x1000, 0x2e66, 0x3c00, 0x3c01, 0x3bff, 0x7bff,
        ]);
        let neg: Vec<u16> = v.iter().map(|h| h | 0x8000).collect();
        v.extend(neg);
        v
    }

    #[test]
    fn f64_to_f16_rounds_once() {
        let p = |e: i32| 2f64.powi(e);
        for (x, h) in [
            (1.0 + p(-11), 0x3c00u16),                   // tie: to even
            (1.0 + p(-10) + p(-11), 0x3c02),             // tie: to even
            (1.0 + p(-11) + p(-22), 0x3c01),             // above the tie (half-rs #151)
            (1.0 + p(-11) + p(-52), 0x3c01),             // just above, in the low f64 bits
            (0x1f_fdff_ffffu64 as f64 * p(-26), 0x67ff), // 2047.49999…, not 2048 (half-rs #116)
            (p(-25), 0x0000),                            // half the smallest subnormal: to even
            (p(-25) + p(-60), 0x0001),                   // above it
            (-p(-26), 0x8000),                           // underflow keeps the sign
            (65519.99, 0x7bff),
            (65520.0, 0x7c00), // the tie above the largest: infinity
            (1e300, 0x7c00),
            (f64::NEG_INFINITY, 0xfc00),
        ] {
            assert_eq!(from_f(x, 16).unwrap(), u64::from(h), "{x:e}");
        }
        assert!(to_f(from_f(f64::NAN, 16).unwrap(), 16).unwrap().is_nan());
        // Pseudo-random f64 values in the f16 range, against the exact reference.
        let mut r = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            // Exponent in [-30, 16], any significand and sign.
            let e = (r >> 52) % 47;
            let bits = (r & 0x800f_ffff_ffff_ffff) | (1023 - 30 + e) << 52;
            let x = f64::from_bits(bits);
            let m = i128::from(bits & 0xf_ffff_ffff_ffff | 1 << 52);
            let m = if x < 0.0 { -m } else { m };
            // x = m * 2^(e - 30 - 52)
            let want = round_rational(m, 1 << (82 - e));
            assert_eq!(from_f(x, 16).unwrap(), u64::from(want), "{x:e}");
        }
    }

    #[test]
    fn f16_arithmetic_is_correctly_rounded() {
        let g = grid(97);
        for &a in &g {
            for &b in &g {
                let (x, y) = (u64::from(a), u64::from(b));
                let (ia, ib) = (signed(a), signed(b));
                let add = fbin(x, y, 16, |p, q| p + q).unwrap();
                assert_eq!(
                    add,
                    u64::from(round_rational(ia + ib, 1 << 24)),
                    "{a:#x}+{b:#x}"
                );
                let sub = fbin(x, y, 16, |p, q| p - q).unwrap();
                assert_eq!(
                    sub,
                    u64::from(round_rational(ia - ib, 1 << 24)),
                    "{a:#x}-{b:#x}"
                );
                let mul = fbin(x, y, 16, |p, q| p * q).unwrap();
                assert_eq!(
                    mul,
                    u64::from(round_rational(ia * ib, 1 << 48)),
                    "{a:#x}*{b:#x}"
                );
                let div = fbin(x, y, 16, |p, q| p / q).unwrap();
                let (n, d) = if ib < 0 { (-ia, -ib) } else { (ia, ib) };
                assert_eq!(div, u64::from(round_rational(n, d)), "{a:#x}/{b:#x}");
            }
        }
    }

    #[test]
    fn f16_fma_is_fused_and_correctly_rounded() {
        let g = grid(1009);
        for &a in &g {
            for &b in &g {
                for &c in &g {
                    let (x, y, z) = (u64::from(a), u64::from(b), u64::from(c));
                    let exact = signed(a) * signed(b) + (signed(c) << 24);
                    let got = fma(x, y, z, 16).unwrap();
                    if exact == 0 {
                        assert_eq!(got & 0x7fff, 0, "fma({a:#x}, {b:#x}, {c:#x})");
                    } else {
                        let want = round_rational(exact, 1 << 48);
                        assert_eq!(got, u64::from(want), "fma({a:#x}, {b:#x}, {c:#x})");
                    }
                }
            }
        }
        // 3 * 0.0999755859375 = 0.29992675781 exactly; minus its f16 rounding 0.2998046875
        // leaves 2^-13 when fused (0 when rounded first).
        assert_eq!(fma(0x4200, 0x2e66, 0xb4cc, 16).unwrap(), 0x0800);
    }
}
