//! Float widths: scalars to and from `f64`, binary float arithmetic, and f16 conversions.

use super::{unsupported, OpFail};

/// A float scalar as f64 (exact for f32 and f64).
pub fn to_f(b: u64, w: u32) -> Result<f64, OpFail> {
    match w {
        32 => Ok(f64::from(f32::from_bits(b as u32))),
        64 => Ok(f64::from_bits(b)),
        _ => unsupported(format!("f{w} arithmetic")),
    }
}

/// An f64 rounded to a float of width `w` (round to nearest even).
pub fn from_f(x: f64, w: u32) -> Result<u64, OpFail> {
    match w {
        32 => Ok(u64::from((x as f32).to_bits())),
        64 => Ok(x.to_bits()),
        _ => unsupported(format!("f{w} arithmetic")),
    }
}

/// Binary float arithmetic in width `w`: computed in f64 and rounded once, which is exact
/// IEEE f32 arithmetic for + - * / (double rounding is innocuous for these, since f64 has
/// more than 2·24+2 bits of significand).
pub(crate) fn fbin(a: u64, b: u64, w: u32, f: impl Fn(f64, f64) -> f64) -> Result<u64, OpFail> {
    from_f(f(to_f(a, w)?, to_f(b, w)?), w)
}

/// f32 → f16 bits, rounding to nearest even (overflow to infinity, NaN kept quiet).
pub fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 255 {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 31 {
        return sign | 0x7c00;
    }
    let round = |half: u32, rem: u32, halfway: u32| {
        if rem > halfway || (rem == halfway && half & 1 == 1) {
            half + 1
        } else {
            half
        }
    };
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let r = round(m >> shift, m & ((1 << shift) - 1), 1 << (shift - 1));
        return sign | r as u16;
    }
    let half = ((e as u32) << 10) | (man >> 13);
    sign | round(half, man & 0x1fff, 0x1000) as u16
}

/// f16 bits → f32 (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = (h >> 10) & 0x1f;
    let man = u32::from(h & 0x3ff);
    if exp == 0 {
        return sign * man as f32 * 2f32.powi(-24);
    }
    let bits = (u32::from(h & 0x8000) << 16)
        | if exp == 31 {
            0x7f80_0000 | man << 13
        } else {
            (u32::from(exp) + 112) << 23 | man << 13
        };
    f32::from_bits(bits)
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
}
