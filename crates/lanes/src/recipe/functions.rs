//! The recipes, one function each (see `docs/interp.md`, "Transcendental functions").

use super::coefficients::ATAN;
use super::{Builder, FCmp, Recipe, Slot};

/// π/2 as an f32 plus the f32 nearest to the rest.
const PIO2_HI: f32 = std::f32::consts::FRAC_PI_2;
const PIO2_LO: f32 = f32::from_bits(0xb33b_bd2e);
/// π/4 rounded to f32 (what the fit gives at 1 is a unit below it).
const PIO4: f32 = std::f32::consts::FRAC_PI_4;
/// π as an f32 plus the f32 nearest to the rest.
const PI_HI: f32 = std::f32::consts::PI;
const PI_LO: f32 = f32::from_bits(0xb3bb_bd2e);

/// `atan(t)` for `t` in [0, 1] (or NaN): `t + t s P(s)` with `s = t²`.
fn atan_01(b: &mut Builder, t: Slot) -> Slot {
    let s = b.mul(t, t);
    let p = b.poly(s, &ATAN);
    let q = b.mul(s, p);
    b.fma(t, q, t)
}

/// The angle of a reduced ratio `t = small / large` in [0, 1], as both recipes reduce:
/// `atan(t)`, π/4 exactly where the two magnitudes `p` and `q` are equal, and `π/2 - that`
/// where `swapped` (the ratio was taken the other way up).
fn atan_unreduced(b: &mut Builder, t: Slot, (p, q): (Slot, Slot), swapped: Slot) -> Slot {
    let r = atan_01(b, t);
    let equal = b.cmp(FCmp::Eq, p, q);
    let pio4 = b.f(PIO4);
    let r = b.sel(equal, pio4, r);
    let c = b.minus_from(PIO2_HI, PIO2_LO, r);
    b.sel(swapped, c, r)
}

/// `atan(x)`: `t = |x|`, or `1/|x|` where `|x| > 1` and then `π/2 - atan(t)`; π/4
/// exactly where `|x| = 1`; the sign of `x` put back last (so `atan(-0) = -0` and
/// `atan(±∞) = ±π/2`).
pub(super) fn atan() -> Recipe {
    let mut b = Builder::new();
    let x = b.arg(0);
    let a = b.abs(x);
    let one = b.f(1.0);
    let big = b.cmp(FCmp::Gt, a, one);
    let inv = b.div(one, a);
    let t = b.sel(big, inv, a);
    let r = atan_unreduced(&mut b, t, (a, one), big);
    let s = b.sign(x);
    let r = b.or(r, s);
    b.finish("Atan", 1, r)
}

/// `atan2(y, x)`: `atan(t)` of `t = min(|x|, |y|) / max(|x|, |y|)` (π/4 exactly where they
/// are equal, so two infinities give π/4), `π/2 - that` where `|y| > |x|`, `π - that`
/// where `x < 0`, and
/// the sign of `y` last (`atan2(±0, x < 0) = ±π`). `atan2(0, 0)` is undefined: the caller
/// decides it before the recipe.
pub(super) fn atan2() -> Recipe {
    let mut b = Builder::new();
    let y = b.arg(0);
    let x = b.arg(1);
    let ay = b.abs(y);
    let ax = b.abs(x);
    let steep = b.cmp(FCmp::Gt, ay, ax);
    let num = b.sel(steep, ax, ay);
    let den = b.sel(steep, ay, ax);
    let q = b.div(num, den);
    let r = atan_unreduced(&mut b, q, (ax, ay), steep);
    let zero = b.f(0.0);
    let left = b.cmp(FCmp::Lt, x, zero);
    let c = b.minus_from(PI_HI, PI_LO, r);
    let r = b.sel(left, c, r);
    let s = b.sign(y);
    let r = b.or(r, s);
    b.finish("Atan2", 2, r)
}
