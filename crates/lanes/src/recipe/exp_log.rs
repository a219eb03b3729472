//! The exponential and logarithm recipes: `exp2`, `exp`, `log2`, `log`, and `pow` as
//! `exp2(y · log2(x))` (see `docs/interp.md`, "Transcendental functions").

use super::coefficients::{EXP2, LOG2};
use super::{Builder, FCmp, Recipe, Slot, CANONICAL_NAN};

/// 1.5 · 2^23: adding it rounds an f32 of magnitude below 2^22 to an integer (to nearest
/// even), which then sits in the sum's low significand bits.
const ROUNDER: f32 = 12_582_912.0;
/// log2(e) as an f32 plus the f32 nearest to the rest.
const LOG2E_HI: f32 = std::f32::consts::LOG2_E;
const LOG2E_LO: f32 = f32::from_bits(0x32a5_7060);
/// ln(2) as an f32 with its last 8 significand bits clear (so `e · LN2_HI` is exact for
/// the integers `e` here, |e| < 256) plus the f32 nearest to the rest.
const LN2_HI: f32 = f32::from_bits(0x3f31_7200);
const LN2_LO: f32 = f32::from_bits(0x35bf_be8e);

/// `2^(hi + lo)` for `lo` a small correction (0 for `exp2`): `hi` clamped to
/// [-151, 129] (beyond, the result is 0 or infinite either way), `n` its nearest integer
/// (by [`ROUNDER`]), `f = (hi - n) + lo` (the subtraction exact), `2^f` by the polynomial,
/// then scaled by `2^n` in two exact-then-rounding products (`2^⌊n/2⌋`, `2^⌈n/2⌉`, each a
/// normal f32 built in the exponent field), so a subnormal or overflowing result is
/// rounded once.
fn exp2_parts(b: &mut Builder, hi: Slot, lo: Slot) -> Slot {
    let low = b.f(-151.0);
    let high = b.f(129.0);
    let below = b.cmp(FCmp::Lt, hi, low);
    let x = b.sel(below, low, hi);
    let above = b.cmp(FCmp::Gt, x, high);
    let x = b.sel(above, high, x);
    let rounder = b.f(ROUNDER);
    let y = b.add(x, rounder);
    let n_f = b.sub(y, rounder);
    let f = b.sub(x, n_f);
    let f = b.add(f, lo);
    let p = b.poly(f, &EXP2);
    // n as an integer: y's bits less the rounder's.
    let minus_rounder = b.word(ROUNDER.to_bits().wrapping_neg());
    let n = b.iadd(y, minus_rounder);
    let n1 = b.sar(n, 1);
    let one = b.word(1);
    let odd = b.and(n, one);
    let n2 = b.iadd(n1, odd);
    let bias = b.word(127);
    let e1 = b.iadd(n1, bias);
    let s1 = b.shl(e1, 23);
    let e2 = b.iadd(n2, bias);
    let s2 = b.shl(e2, 23);
    let r = b.mul(p, s1);
    b.mul(r, s2)
}

/// `exp2(x)`.
pub(super) fn exp2() -> Recipe {
    let mut b = Builder::new();
    let x = b.arg(0);
    let zero = b.f(0.0);
    let r = exp2_parts(&mut b, x, zero);
    b.finish("Exp2", 1, r)
}

/// `exp(x) = 2^(x · log2 e)`, the product kept as two f32 (`hi` rounded, `lo` its error by
/// `fma` plus `x · LOG2E_LO`); `lo` is dropped where `|hi| ≥ 152`, where `hi` is clamped
/// and `lo` (up to half an ulp of `hi`, 2^22 at 2^47, NaN at ∞) would otherwise land in
/// the polynomial's argument: there the result is 0 or ∞ without it.
pub(super) fn exp() -> Recipe {
    let mut b = Builder::new();
    let x = b.arg(0);
    let l_hi = b.f(LOG2E_HI);
    let l_lo = b.f(LOG2E_LO);
    let hi = b.mul(x, l_hi);
    let zero = b.f(0.0);
    let neg_hi = b.sub(zero, hi);
    let err = b.fma(x, l_hi, neg_hi);
    let lo = b.fma(x, l_lo, err);
    let a = b.abs(hi);
    let limit = b.f(152.0);
    let inside = b.cmp(FCmp::Lt, a, limit);
    let lo = b.sel(inside, lo, zero);
    let r = exp2_parts(&mut b, hi, lo);
    b.finish("Exp", 1, r)
}

/// `log2(x)` as (exponent, `log2` of the significand): a subnormal `x` scaled by 2^23
/// first (the exponent less 23); `m` the significand in [1, 2), halved (and the exponent
/// incremented) above √2, so `r = m - 1` (exact) lies in [√½ - 1, √2 - 1]; the exponent
/// converted to f32 exactly by [`ROUNDER`]'s bits; `log2(1 + r) = r · L(r)`. Finite
/// positive `x` only: [`log2_special`] handles the rest.
fn log2_parts(b: &mut Builder, x: Slot) -> (Slot, Slot) {
    let tiny = b.f(f32::MIN_POSITIVE);
    let small = b.cmp(FCmp::Lt, x, tiny);
    let scale = b.f(8_388_608.0);
    let scaled = b.mul(x, scale);
    let xs = b.sel(small, scaled, x);
    let minus23 = b.f(-23.0);
    let zero = b.f(0.0);
    let adjust = b.sel(small, minus23, zero);
    let field = b.shr(xs, 23);
    let minus_bias = b.word(127u32.wrapping_neg());
    let e = b.iadd(field, minus_bias);
    let frac_mask = b.word(0x007f_ffff);
    let frac = b.and(xs, frac_mask);
    let one_bits = b.word(1.0f32.to_bits());
    let m = b.or(frac, one_bits);
    let sqrt2 = b.f(std::f32::consts::SQRT_2);
    let big = b.cmp(FCmp::Gt, m, sqrt2);
    let half = b.f(0.5);
    let halved = b.mul(m, half);
    let m = b.sel(big, halved, m);
    let one_word = b.word(1);
    let zero_word = b.word(0);
    let inc = b.sel(big, one_word, zero_word);
    let e = b.iadd(e, inc);
    let rounder_bits = b.word(ROUNDER.to_bits());
    let e_bits = b.iadd(e, rounder_bits);
    let rounder = b.f(ROUNDER);
    let e_f = b.sub(e_bits, rounder);
    let e_f = b.add(e_f, adjust);
    let one = b.f(1.0);
    let r = b.sub(m, one);
    let p = b.poly(r, &LOG2);
    let lg = b.mul(r, p);
    (e_f, lg)
}

/// `log2`'s special operands on a result `r` of [`log2_parts`]: `-∞` at ±0, `+∞` at `+∞`,
/// NaN below 0 and at NaN.
fn log2_special(b: &mut Builder, x: Slot, r: Slot) -> Slot {
    let zero = b.f(0.0);
    let is_zero = b.cmp(FCmp::Eq, x, zero);
    let neg_inf = b.f(f32::NEG_INFINITY);
    let r = b.sel(is_zero, neg_inf, r);
    let inf = b.f(f32::INFINITY);
    let is_inf = b.cmp(FCmp::Eq, x, inf);
    let r = b.sel(is_inf, inf, r);
    let negative = b.cmp(FCmp::Lt, x, zero);
    let nan = b.cmp(FCmp::Nan, x, x);
    let q = b.word(CANONICAL_NAN);
    let r = b.sel(negative, q, r);
    b.sel(nan, q, r)
}

/// `log2(x) = e + r · L(r)` (one rounding in the sum).
fn log2_of(b: &mut Builder, x: Slot) -> Slot {
    let (e, lg) = log2_parts(b, x);
    let r = b.add(e, lg);
    log2_special(b, x, r)
}

/// `log2(x)`.
pub(super) fn log2() -> Recipe {
    let mut b = Builder::new();
    let x = b.arg(0);
    let r = log2_of(&mut b, x);
    b.finish("Log2", 1, r)
}

/// `log(x) = e · ln 2 + ln 2 · r · L(r)`: `e · LN2_HI` exact, so
/// `fma(e, LN2_HI, fma(e, LN2_LO, ln2 · lg))`.
pub(super) fn log() -> Recipe {
    let mut b = Builder::new();
    let x = b.arg(0);
    let (e, lg) = log2_parts(&mut b, x);
    let ln2 = b.f(std::f32::consts::LN_2);
    let t = b.mul(lg, ln2);
    let lo = b.f(LN2_LO);
    let t = b.fma(e, lo, t);
    let hi = b.f(LN2_HI);
    let r = b.fma(e, hi, t);
    let r = log2_special(&mut b, x, r);
    b.finish("Log", 1, r)
}

/// `pow(x, y) = exp2(y · log2(x))`, literally the formula Vulkan's bound is inherited
/// from (so `pow(x, 0)` is 1 only where `log2(x)` is finite). The undefined operands
/// (x < 0; x = 0 with y ≤ 0) are decided before the recipe.
pub(super) fn pow() -> Recipe {
    let mut b = Builder::new();
    let x = b.arg(0);
    let y = b.arg(1);
    let l = log2_of(&mut b, x);
    let t = b.mul(y, l);
    let zero = b.f(0.0);
    let r = exp2_parts(&mut b, t, zero);
    b.finish("Pow", 2, r)
}
