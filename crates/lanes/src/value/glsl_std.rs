//! GLSL.std.450 extended instructions.

use tangle_ir::glsl::GlslOp;
use tangle_ir::{Type, TypeData, TypeTable};

use super::float::{f16_to_f32, f32_to_f16, fma, from_f, to_f};
use super::{
    first_poison, lift, mask, num_width, sext, undef_like, unsupported, with_refs, OpFail,
    OpResult, Poison, Val,
};

/// `x * 2^e` with one rounding: `x`'s binary exponent is moved by `e` (clamped to where the
/// result is surely zero or infinite), and a result below `f64`'s normal range is formed in
/// two exact-then-rounding steps.
fn ldexp(x: f64, e: i64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let e = e.clamp(-2200, 2200) as i32;
    let pow2 = |k: i32| f64::from_bits(((k + 1023) as u64) << 52);
    // Split x = m * 2^xe with 1 <= |m| < 2 (x may be subnormal: scale it up first).
    let (x, bias) = if x.abs() < f64::MIN_POSITIVE {
        (x * pow2(64), -64)
    } else {
        (x, 0)
    };
    let xe = ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let m = x * pow2(-xe);
    let target = xe + bias + e;
    if target > 1023 {
        m * f64::INFINITY
    } else if target >= -1022 {
        m * pow2(target)
    } else if target < -1100 {
        m * 0.0
    } else {
        // m * 2^(target + 128) is normal and exact; the final step rounds once.
        (m * pow2(target + 128)) * pow2(-128)
    }
}

/// `Modf`/`Frexp` of one component of width `w`: (fraction, whole part) or (significand,
/// exponent at width `ew`), as GLSL.std.450 defines them.
fn split_one(op: GlslOp, bits: u64, w: u32, ew: u32) -> Result<(u64, u64), OpFail> {
    let x = to_f(bits, w)?;
    if matches!(op, GlslOp::Modf | GlslOp::ModfStruct) {
        // Both parts carry x's sign; an infinity is all whole part.
        let whole = x.trunc();
        let fract = if x.is_infinite() {
            0.0f64.copysign(x)
        } else {
            (x - whole).copysign(x)
        };
        return Ok((from_f(fract, w)?, from_f(whole, w)?));
    }
    // x = m * 2^e with 0.5 <= |m| < 1; zero gives (x, 0); infinities and NaN give (x, 0)
    // (the exponent is undefined there).
    if x == 0.0 || !x.is_finite() {
        return Ok((bits, 0));
    }
    let mut e = 0i64;
    let mut m = x;
    while m.abs() >= 1.0 {
        m /= 2.0;
        e += 1;
    }
    while m.abs() < 0.5 {
        m *= 2.0;
        e -= 1;
    }
    Ok((from_f(m, w)?, (e as u64) & mask(ew)))
}

/// The two results of `Modf`, `ModfStruct`, `Frexp` or `FrexpStruct` on `x` (a scalar or a
/// vector): the first of type `x`'s, the second the whole part or the exponent (`ew` bits).
pub fn glsl_split(
    types: &TypeTable,
    op: GlslOp,
    xty: Type,
    ew: u32,
    x: &Val,
) -> Result<(Val, Val), OpFail> {
    let w = num_width(types, xty)?;
    match x {
        Val::Comp(cs) => {
            let mut a = Vec::with_capacity(cs.len());
            let mut b = Vec::with_capacity(cs.len());
            for c in cs {
                let (p, q) = split_one(op, c.bits(), w, ew)?;
                a.push(Val::Bits(p));
                b.push(Val::Bits(q));
            }
            Ok((Val::Comp(a), Val::Comp(b)))
        }
        v => {
            let (p, q) = split_one(op, v.bits(), w, ew)?;
            Ok((Val::Bits(p), Val::Bits(q)))
        }
    }
}

/// Evaluates a GLSL.std.450 instruction for one invocation. The transcendental functions
/// `crate::recipe` defines (atan, atan2, exp, exp2, log, log2, pow) follow their recipes, bit for bit on every host;
/// the others not yet moved there use Rust's `f64` functions rounded to the result width
/// (not correctly rounded in general, and host-dependent).
/// `atys` are the operands' types (`Ldexp`'s exponent may be narrower or wider than 32 bits).
pub fn glsl(types: &TypeTable, op: GlslOp, rty: Type, atys: &[Type], args: &[Val]) -> OpResult {
    use GlslOp as G;
    // Ops that combine components (geometry, packing) are undefined as a whole when any
    // operand component is; the others go component by component through `lift`.
    if let Some(p) = first_poison(args) {
        if matches!(
            op,
            G::PackHalf2x16
                | G::UnpackHalf2x16
                | G::ModfStruct
                | G::FrexpStruct
                | G::Length
                | G::Distance
                | G::Normalize
                | G::Cross
                | G::Reflect
                | G::Determinant
                | G::MatrixInverse
        ) {
            return Ok(undef_like(types, rty, p));
        }
    }
    if matches!(op, G::Determinant | G::MatrixInverse) {
        return super::matrix::glsl(types, op, atys[0], &args[0]);
    }
    if matches!(op, G::ModfStruct | G::FrexpStruct) {
        // The result is a struct of the two parts, which has no component width of its own.
        let TypeData::Struct { members, .. } = types.get(rty) else {
            return unsupported(format!("{} result that is not a struct", op.name()));
        };
        let ew = num_width(types, members[1].ty)?;
        let (a, b) = glsl_split(types, op, members[0].ty, ew, &args[0])?;
        return Ok(Val::Comp(vec![a, b]));
    }
    if let Some(recipe) = crate::recipe::for_glsl(op) {
        return with_refs(args, |refs| by_recipe(types, op, recipe, rty, refs));
    }
    with_refs(args, |refs| glsl_refs(types, op, rty, atys, args, refs))
}

/// A transcendental function by its recipe (`crate::recipe`), component by component:
/// f32 directly, f16 widened exactly to f32 and the f32 result rounded once to f16. The
/// operands where GLSL.std.450 leaves the function undefined are poison first. f64 is
/// refused: GLSL.std.450 allows these functions on 16- and 32-bit floats only.
fn by_recipe(
    types: &TypeTable,
    op: GlslOp,
    recipe: &crate::recipe::Recipe,
    rty: Type,
    refs: &[&Val],
) -> OpResult {
    let w = num_width(types, rty)?;
    if !matches!(w, 16 | 32) {
        return unsupported(format!(
            "GLSL.std.450 {} on f{w} (only 16- and 32-bit floats are allowed)",
            op.name()
        ));
    }
    lift(refs, &mut |v| {
        let xs: Vec<f64> = v
            .iter()
            .map(|a| to_f(a.bits(), w))
            .collect::<Result<_, _>>()?;
        if let Some(why) = undefined_at(op, &xs) {
            return Ok(Poison::here(why));
        }
        let args: Vec<u32> = xs.iter().map(|&x| (x as f32).to_bits()).collect();
        let r = recipe.eval(&args);
        Ok(Val::Bits(if w == 16 {
            u64::from(f32_to_f16(f32::from_bits(r)))
        } else {
            u64::from(r)
        }))
    })
}

/// Why GLSL.std.450 leaves `op` undefined at the operands `xs`, if it does.
fn undefined_at(op: GlslOp, xs: &[f64]) -> Option<&'static str> {
    match op {
        GlslOp::Atan2 if xs[0] == 0.0 && xs[1] == 0.0 => Some("atan2 with x and y both 0"),
        GlslOp::Log if xs[0] <= 0.0 => Some("log of x <= 0"),
        GlslOp::Log2 if xs[0] <= 0.0 => Some("log2 of x <= 0"),
        GlslOp::Pow if xs[0] < 0.0 || (xs[0] == 0.0 && xs[1] <= 0.0) => {
            Some("pow with x < 0, or x = 0 and y <= 0")
        }
        _ => None,
    }
}

/// [`glsl`] with `refs` referring to `args`.
fn glsl_refs(
    types: &TypeTable,
    op: GlslOp,
    rty: Type,
    atys: &[Type],
    args: &[Val],
    refs: &[&Val],
) -> OpResult {
    use GlslOp as G;
    let w = num_width(types, rty)?;
    let f1 = |f: fn(f64) -> f64| {
        move |v: &[&Val]| -> OpResult { Ok(Val::Bits(from_f(f(to_f(v[0].bits(), w)?), w)?)) }
    };
    // A one-operand float function whose result GLSL.std.450 leaves undefined where
    // `undefined(x)` holds.
    let f1_domain = |f: fn(f64) -> f64, undefined: fn(f64) -> bool, why: &'static str| {
        move |v: &[&Val]| -> OpResult {
            let x = to_f(v[0].bits(), w)?;
            if undefined(x) {
                return Ok(Poison::here(why));
            }
            Ok(Val::Bits(from_f(f(x), w)?))
        }
    };
    match op {
        G::Modf | G::Frexp => unsupported(format!(
            "{} writes through a pointer: the interpreter runs it as a memory operation",
            op.name()
        )),
        G::FAbs => lift(refs, &mut |v| Ok(Val::Bits(v[0].bits() & mask(w - 1)))),
        G::SAbs => lift(refs, &mut |v| {
            Ok(Val::Bits(sext(v[0].bits(), w).unsigned_abs() & mask(w)))
        }),
        G::Floor => lift(refs, &mut f1(f64::floor)),
        G::Ceil => lift(refs, &mut f1(f64::ceil)),
        G::Trunc => lift(refs, &mut f1(f64::trunc)),
        G::RoundEven => lift(refs, &mut f1(f64::round_ties_even)),
        G::Fract => lift(refs, &mut f1(|x| x - x.floor())),
        G::Sqrt => lift(
            refs,
            &mut f1_domain(f64::sqrt, |x| x < 0.0, "sqrt of x < 0"),
        ),
        G::Sin => lift(refs, &mut f1(f64::sin)),
        G::Cos => lift(refs, &mut f1(f64::cos)),
        G::UMin | G::UMax | G::SMin | G::SMax => lift(refs, &mut |v| {
            let (a, b) = (v[0].bits(), v[1].bits());
            let pick_a = match op {
                G::UMin => a <= b,
                G::UMax => a >= b,
                G::SMin => sext(a, w) <= sext(b, w),
                _ => sext(a, w) >= sext(b, w),
            };
            Ok(Val::Bits(if pick_a { a } else { b }))
        }),
        G::FMin | G::FMax | G::NMin | G::NMax => lift(refs, &mut |v| {
            let (a, b) = (to_f(v[0].bits(), w)?, to_f(v[1].bits(), w)?);
            // NaN operands: the other operand (the N* behaviour; documented for F* too).
            let r = if matches!(op, G::FMin | G::NMin) {
                a.min(b)
            } else {
                a.max(b)
            };
            Ok(Val::Bits(from_f(r, w)?))
        }),
        G::UClamp | G::SClamp => lift(refs, &mut |v| {
            let (x, lo, hi) = (v[0].bits(), v[1].bits(), v[2].bits());
            let min_above_max = if op == G::UClamp {
                lo > hi
            } else {
                sext(lo, w) > sext(hi, w)
            };
            if min_above_max {
                return Ok(Poison::here("clamp with minVal > maxVal"));
            }
            Ok(Val::Bits(if op == G::UClamp {
                x.max(lo).min(hi)
            } else {
                sext(x, w).max(sext(lo, w)).min(sext(hi, w)) as u64 & mask(w)
            }))
        }),
        G::Fma => lift(refs, &mut |v| {
            Ok(Val::Bits(fma(v[0].bits(), v[1].bits(), v[2].bits(), w)?))
        }),
        G::FindILsb => lift(refs, &mut |v| {
            let x = v[0].bits();
            Ok(Val::Bits(if x == 0 {
                mask(w)
            } else {
                u64::from(x.trailing_zeros())
            }))
        }),
        G::FindUMsb | G::FindSMsb => lift(refs, &mut |v| {
            let mut x = v[0].bits() & mask(w);
            if op == G::FindSMsb && sext(x, w) < 0 {
                x = !x & mask(w);
            }
            Ok(Val::Bits(if x == 0 {
                mask(w)
            } else {
                u64::from(63 - x.leading_zeros())
            }))
        }),
        G::Round => lift(refs, &mut f1(f64::round)),
        G::FSign => lift(
            refs,
            &mut f1(|x| {
                if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else {
                    x
                }
            }),
        ),
        G::SSign => lift(refs, &mut |v| {
            Ok(Val::Bits(sext(v[0].bits(), w).signum() as u64 & mask(w)))
        }),
        G::Radians => lift(refs, &mut f1(f64::to_radians)),
        G::Degrees => lift(refs, &mut f1(f64::to_degrees)),
        G::Tan => lift(refs, &mut f1(f64::tan)),
        G::Asin => lift(
            refs,
            &mut f1_domain(f64::asin, |x| x.abs() > 1.0, "asin of |x| > 1"),
        ),
        G::Acos => lift(
            refs,
            &mut f1_domain(f64::acos, |x| x.abs() > 1.0, "acos of |x| > 1"),
        ),
        G::Sinh => lift(refs, &mut f1(f64::sinh)),
        G::Cosh => lift(refs, &mut f1(f64::cosh)),
        G::Tanh => lift(refs, &mut f1(f64::tanh)),
        G::Asinh => lift(refs, &mut f1(f64::asinh)),
        G::Acosh => lift(
            refs,
            &mut f1_domain(f64::acosh, |x| x < 1.0, "acosh of x < 1"),
        ),
        G::Atanh => lift(
            refs,
            &mut f1_domain(f64::atanh, |x| x.abs() >= 1.0, "atanh of |x| >= 1"),
        ),
        G::InverseSqrt => lift(
            refs,
            &mut f1_domain(|x| 1.0 / x.sqrt(), |x| x <= 0.0, "inversesqrt of x <= 0"),
        ),
        G::Ldexp => {
            // The exponent is a signed integer of any width: sign-extend it from its own width.
            let ew = match atys.get(1) {
                Some(&t) => num_width(types, t)?,
                None => 32,
            };
            lift(refs, &mut |v| {
                let a = to_f(v[0].bits(), w)?;
                Ok(Val::Bits(from_f(ldexp(a, sext(v[1].bits(), ew)), w)?))
            })
        }
        G::Step => lift(refs, &mut |v| {
            let a = to_f(v[0].bits(), w)?;
            let r = if to_f(v[1].bits(), w)? < a { 0.0 } else { 1.0 };
            Ok(Val::Bits(from_f(r, w)?))
        }),
        G::FClamp | G::NClamp | G::FMix | G::SmoothStep => lift(refs, &mut |v| {
            let (a, b, c) = (
                to_f(v[0].bits(), w)?,
                to_f(v[1].bits(), w)?,
                to_f(v[2].bits(), w)?,
            );
            if matches!(op, G::FClamp | G::NClamp) && b > c {
                return Ok(Poison::here("clamp with minVal > maxVal"));
            }
            if op == G::SmoothStep && a >= b {
                return Ok(Poison::here("smoothstep with edge0 >= edge1"));
            }
            let r = match op {
                // clamp(x, lo, hi)
                G::FClamp | G::NClamp => a.max(b).min(c),
                G::FMix => a * (1.0 - c) + b * c,
                _ => {
                    let t = ((c - a) / (b - a)).clamp(0.0, 1.0);
                    t * t * (3.0 - 2.0 * t)
                }
            };
            Ok(Val::Bits(from_f(r, w)?))
        }),
        G::PackHalf2x16 => {
            let Val::Comp(c) = &args[0] else {
                return unsupported("packHalf2x16 of a scalar");
            };
            let lo = u64::from(f32_to_f16(f32::from_bits(c[0].bits() as u32)));
            let hi = u64::from(f32_to_f16(f32::from_bits(c[1].bits() as u32)));
            Ok(Val::Bits(lo | hi << 16))
        }
        G::UnpackHalf2x16 => {
            let b = args[0].bits();
            let h = |x: u64| Val::Bits(u64::from(f16_to_f32(x as u16).to_bits()));
            Ok(Val::Comp(vec![h(b & 0xffff), h(b >> 16 & 0xffff)]))
        }
        G::Length | G::Distance | G::Normalize | G::Cross | G::Reflect => {
            // The operands' width: the result's for vector results, and f32/f64 alike for
            // length and distance (taken from the first component's type via the result).
            let comps = |v: &Val| -> Result<Vec<f64>, OpFail> {
                match v {
                    Val::Comp(c) => c.iter().map(|x| to_f(x.bits(), w)).collect(),
                    x => Ok(vec![to_f(x.bits(), w)?]),
                }
            };
            let a = comps(&args[0])?;
            let b = if args.len() > 1 {
                comps(&args[1])?
            } else {
                Vec::new()
            };
            let len = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
            let out: Vec<f64> = match op {
                G::Length => vec![len(&a)],
                G::Distance => vec![len(&a
                    .iter()
                    .zip(&b)
                    .map(|(x, y)| x - y)
                    .collect::<Vec<_>>())],
                G::Normalize => {
                    let l = len(&a);
                    a.iter().map(|x| x / l).collect()
                }
                G::Cross => vec![
                    a[1] * b[2] - b[1] * a[2],
                    a[2] * b[0] - b[2] * a[0],
                    a[0] * b[1] - b[0] * a[1],
                ],
                _ => {
                    let d: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
                    a.iter().zip(&b).map(|(i, n)| i - 2.0 * d * n).collect()
                }
            };
            let vals: Vec<Val> = out
                .into_iter()
                .map(|x| from_f(x, w).map(Val::Bits))
                .collect::<Result<_, _>>()?;
            Ok(if matches!(types.get(rty), TypeData::Vector { .. }) {
                Val::Comp(vals)
            } else {
                vals.into_iter().next().unwrap_or(Val::Bits(0))
            })
        }
        #[allow(unreachable_patterns)]
        other => unsupported(format!("GLSL.std.450 {}", other.name())),
    }
}
