//! Floating-point operations: single and double precision arithmetic, compares, min/max,
//! the multi-function unit and conversions (packed half precision is in `half.rs`).
//!
//! Only round-to-nearest-even is modelled for arithmetic; a directed rounding modifier
//! (`.RM`, `.RP`, `.RZ`) is refused as unsupported rather than computed wrongly. MUFU
//! returns the correctly rounded function value where hardware returns an approximation
//! within a few ulps: code that refines it (division, square root) gets the exact answer.

use half::f16;
use tangle_sass::typed::{BoolOp, FloatCmp, MufuOp};
use tangle_sass::Op;

use crate::error::SimError;
use crate::kernel::Inst;
use crate::operands::{write, write_pred, Cx};
use crate::round::{self, two_sum, Round};
use crate::warp::{lanes, Warp};

fn ftz32(x: f32, on: bool) -> f32 {
    if on && x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// A 32-bit float source with `|x|` and `-x` applied.
fn f32src(cx: &Cx<'_>, w: &Warp, i: &Inst, k: usize, l: usize) -> Result<f32, SimError> {
    let mut b = cx.rd(w, i, k, l)?;
    let o = &i.m.operands[k];
    if o.abs {
        b &= 0x7fff_ffff;
    }
    if o.neg {
        b ^= 0x8000_0000;
    }
    Ok(f32::from_bits(b))
}

/// A 64-bit float source with `|x|` and `-x` applied.
fn f64src(cx: &Cx<'_>, w: &Warp, i: &Inst, k: usize, l: usize) -> Result<f64, SimError> {
    let mut b = cx.rd64(w, i, k, l)?;
    let o = &i.m.operands[k];
    if o.abs {
        b &= !(1 << 63);
    }
    if o.neg {
        b ^= 1 << 63;
    }
    Ok(f64::from_bits(b))
}

fn rounding(i: &Inst) -> Round {
    if i.has("RM") {
        Round::Down
    } else if i.has("RP") {
        Round::Up
    } else if i.has("RZ") {
        Round::Zero
    } else {
        Round::Nearest
    }
}

/// The next f32 towards +infinity (`up`) or -infinity.
fn step_f32(x: f32, up: bool) -> f32 {
    if x.is_nan() || (x.is_infinite() && (x > 0.0) == up) {
        return x;
    }
    if x == 0.0 {
        let tiny = f32::from_bits(1);
        return if up { tiny } else { -tiny };
    }
    let b = x.to_bits();
    f32::from_bits(if (x > 0.0) == up { b + 1 } else { b - 1 })
}

/// Rounds the exact value `hi + lo` (an f64 and the error term of the f64 operation
/// that produced it) to f32 in direction `r`.
fn to_f32(hi: f64, lo: f64, r: Round) -> f32 {
    let n = hi as f32;
    if r == Round::Nearest || n.is_nan() || hi.is_infinite() {
        return n;
    }
    // The sign of (exact - n): hi - n is exact (n is within an f32 ulp of hi).
    let d = (hi - n as f64) + lo;
    let above = d > 0.0;
    let below = d < 0.0;
    let toward_zero = if n > 0.0 || (n == 0.0 && hi > 0.0) {
        Round::Down
    } else {
        Round::Up
    };
    let r = if r == Round::Zero { toward_zero } else { r };
    match r {
        Round::Up if above => step_f32(n, true),
        Round::Down if below => step_f32(n, false),
        _ => n,
    }
}

/// The comparison of FSETP/DSETP (ordered unless a `U` variant).
fn fcmp(cmp: Option<FloatCmp>, x: f64, y: f64) -> bool {
    let un = x.is_nan() || y.is_nan();
    match cmp {
        Some(FloatCmp::F) | None => false,
        Some(FloatCmp::T) => true,
        Some(FloatCmp::Lt) => x < y,
        Some(FloatCmp::Eq) => x == y,
        Some(FloatCmp::Le) => x <= y,
        Some(FloatCmp::Gt) => x > y,
        Some(FloatCmp::Ne) => !un && x != y,
        Some(FloatCmp::Ge) => x >= y,
        Some(FloatCmp::Num) => !un,
        Some(FloatCmp::Nan) => un,
        Some(FloatCmp::Ltu) => un || x < y,
        Some(FloatCmp::Equ) => un || x == y,
        Some(FloatCmp::Leu) => un || x <= y,
        Some(FloatCmp::Gtu) => un || x > y,
        Some(FloatCmp::Neu) => un || x != y,
        Some(FloatCmp::Geu) => un || x >= y,
    }
}

fn combine(op: Option<BoolOp>, x: bool, p: bool) -> bool {
    match op {
        Some(BoolOp::Or) => x || p,
        Some(BoolOp::Xor) => x ^ p,
        _ => x && p,
    }
}

/// IEEE minNum / maxNum (a NaN operand yields the other; -0 < +0).
fn fminmax(x: f32, y: f32, min: bool) -> f32 {
    if x.is_nan() && y.is_nan() {
        return f32::from_bits(0x7fff_ffff);
    }
    if x.is_nan() {
        return y;
    }
    if y.is_nan() {
        return x;
    }
    if x == y {
        // Equal, or -0 and +0: min takes the negative one, max the positive one.
        let negative = if x.is_sign_negative() { x } else { y };
        let positive = if x.is_sign_positive() { x } else { y };
        return if min { negative } else { positive };
    }
    if min == (x < y) {
        x
    } else {
        y
    }
}

/// Float to integer with saturation (NaN gives 0), rounded as F2I's modifier says.
fn f2i(v: f64, i: &Inst, bits: u32, signed: bool) -> u64 {
    let r = if i.has("TRUNC") {
        v.trunc()
    } else if i.has("FLOOR") {
        v.floor()
    } else if i.has("CEIL") {
        v.ceil()
    } else {
        v.round_ties_even()
    };
    if r.is_nan() {
        return 0;
    }
    match (bits, signed) {
        (32, true) => r.clamp(i32::MIN as f64, i32::MAX as f64) as i32 as u32 as u64,
        (32, false) => r.clamp(0.0, u32::MAX as f64) as u32 as u64,
        (_, true) => r as i64 as u64,
        (_, false) => r as u64,
    }
}

/// FCHK's predicate: whether the division `x / y` must leave ptxas's fast path (a
/// reciprocal refined by fused multiply-adds) for its exact slow path. Hardware's test
/// is not documented; this one is conservative: the fast path is kept only where every
/// step stays among normal numbers far from overflow: `x` and `y` finite, nonzero and
/// normal, `y`'s exponent within ±125 (its reciprocal normal), `x`'s at least -102 (the
/// residual `x - y*q` exact), and the quotient's exponent within ±125. Everything else
/// takes the slow path, which computes every case exactly, so a too-cautious test only
/// changes the path, never the result (the sweep holds both paths against the host).
fn fchk(x: f32, y: f32) -> bool {
    let normal = |v: f32| v.is_normal();
    if !normal(x) || !normal(y) {
        return true;
    }
    let exp = |v: f32| ((v.to_bits() >> 23) & 0xff) as i32 - 127;
    let (ex, ey) = (exp(x), exp(y));
    !(ey.abs() <= 125 && ex >= -102 && (ex - ey).abs() <= 125)
}

/// Executes a floating-point operation; `Ok(false)` if `i` is none.
pub fn exec(cx: &mut Cx<'_>, w: &mut Warp, i: &Inst, a: u32) -> Result<bool, SimError> {
    let s = &i.srcs;
    let d = &i.dsts;
    let ftz = i.has("FTZ") || i.has("FMZ");
    let sat = i.has("SAT");
    let fin = |x: f32| {
        let x = ftz32(x, ftz);
        if sat {
            if x.is_nan() {
                0.0
            } else {
                x.clamp(0.0, 1.0)
            }
        } else {
            x
        }
    };
    match i.op() {
        Op::Fadd | Op::Fmul | Op::Ffma => {
            let mode = rounding(i);
            for l in lanes(a) {
                let x = ftz32(f32src(cx, w, i, s[0], l)?, ftz);
                let y = ftz32(f32src(cx, w, i, s[1], l)?, ftz);
                // Products of two f32 are exact in f64; sums are exact with their TwoSum
                // error term, so every mode rounds the exact value once.
                let r = match (i.op(), mode) {
                    (Op::Fadd, Round::Nearest) => x + y,
                    (Op::Fmul, Round::Nearest) => x * y,
                    (Op::Fadd, m) => {
                        let (hi, lo) = two_sum(x as f64, y as f64);
                        to_f32(hi, lo, m)
                    }
                    (Op::Fmul, m) => to_f32(x as f64 * y as f64, 0.0, m),
                    (_, Round::Nearest) => {
                        let z = ftz32(f32src(cx, w, i, s[2], l)?, ftz);
                        x.mul_add(y, z)
                    }
                    (_, m) => {
                        let z = ftz32(f32src(cx, w, i, s[2], l)?, ftz);
                        let (hi, lo) = two_sum(x as f64 * y as f64, z as f64);
                        to_f32(hi, lo, m)
                    }
                };
                // An exact zero takes IEEE's sign for the mode (`.RM` gives -0 for a
                // cancelling sum): the f64 sum's rule, which the nearest f32 keeps.
                let r = if r == 0.0 && mode != Round::Nearest {
                    let (p, z) = match i.op() {
                        Op::Fadd => (x as f64, y as f64),
                        Op::Fmul => (x as f64 * y as f64, 0.0),
                        _ => (
                            x as f64 * y as f64,
                            ftz32(f32src(cx, w, i, s[2], l)?, ftz) as f64,
                        ),
                    };
                    let zero = if i.op() == Op::Fmul {
                        p
                    } else {
                        round::add(p, z, mode)
                    };
                    if zero == 0.0 {
                        f32::from_bits((zero.is_sign_negative() as u32) << 31)
                    } else {
                        r
                    }
                } else {
                    r
                };
                write(w, i, d[0], l, &[fin(r).to_bits()]);
            }
        }
        Op::Fsetp | Op::Dsetp => {
            let cmp = i.m.modifier::<FloatCmp>();
            let bop = i.m.modifier::<BoolOp>();
            for l in lanes(a) {
                let (x, y) = if i.op() == Op::Fsetp {
                    (
                        ftz32(f32src(cx, w, i, s[0], l)?, ftz) as f64,
                        ftz32(f32src(cx, w, i, s[1], l)?, ftz) as f64,
                    )
                } else {
                    (f64src(cx, w, i, s[0], l)?, f64src(cx, w, i, s[1], l)?)
                };
                let p = cx.pred(w, i, s[2], l);
                if i.op() == Op::Dsetp && (i.has("MIN") || i.has("MAX")) {
                    // DSETP.MIN/.MAX (fmin/fmax of doubles): the first predicate selects A
                    // (the smaller, or larger, one; a NaN loses to a number; of -0 and +0
                    // min takes -0), the second says both are NaN (ptxas then quiets B).
                    let min = i.has("MIN");
                    let picks_a = y.is_nan()
                        || (!x.is_nan()
                            && (if min { x < y } else { x > y }
                                || (x == y && x.is_sign_negative() == min)));
                    let both_nan = x.is_nan() && y.is_nan();
                    write_pred(w, i, d[0], l, combine(bop, picks_a, p));
                    write_pred(w, i, d[1], l, combine(bop, both_nan, p));
                    continue;
                }
                let r = fcmp(cmp, x, y);
                write_pred(w, i, d[0], l, combine(bop, r, p));
                write_pred(w, i, d[1], l, combine(bop, !r, p));
            }
        }
        Op::Fmnmx => {
            for l in lanes(a) {
                let x = ftz32(f32src(cx, w, i, s[0], l)?, ftz);
                let y = ftz32(f32src(cx, w, i, s[1], l)?, ftz);
                let min = cx.pred(w, i, s[2], l);
                write(w, i, d[0], l, &[fminmax(x, y, min).to_bits()]);
            }
        }
        Op::Mufu => {
            let f =
                i.m.modifier::<MufuOp>()
                    .ok_or_else(|| cx.unsupported(i, "MUFU without a function"))?;
            for l in lanes(a) {
                let x = f32src(cx, w, i, s[0], l)?;
                let r = match f {
                    MufuOp::Rcp => (1.0 / x as f64) as f32,
                    MufuOp::Rsq => (1.0 / (x as f64).sqrt()) as f32,
                    MufuOp::Sqrt => x.sqrt(),
                    MufuOp::Ex2 => (x as f64).exp2() as f32,
                    MufuOp::Lg2 => (x as f64).log2() as f32,
                    MufuOp::Sin => ((x as f64) * std::f64::consts::TAU).sin() as f32,
                    MufuOp::Cos => ((x as f64) * std::f64::consts::TAU).cos() as f32,
                    MufuOp::Rcp64h | MufuOp::Rsq64h => {
                        let v = f64::from_bits((x.to_bits() as u64) << 32);
                        let r = if f == MufuOp::Rcp64h {
                            1.0 / v
                        } else {
                            1.0 / v.sqrt()
                        };
                        write(w, i, d[0], l, &[(r.to_bits() >> 32) as u32]);
                        continue;
                    }
                };
                write(w, i, d[0], l, &[ftz32(r, true).to_bits()]);
            }
        }
        Op::F2i => {
            let signed = !i.has("U32") && !i.has("U64");
            let bits = if i.has("S64") || i.has("U64") { 64 } else { 32 };
            for l in lanes(a) {
                let v = if i.has("F64") {
                    f64src(cx, w, i, s[0], l)?
                } else {
                    ftz32(f32src(cx, w, i, s[0], l)?, ftz) as f64
                };
                let r = f2i(v, i, bits, signed);
                write(
                    w,
                    i,
                    d[0],
                    l,
                    &[r as u32, (r >> 32) as u32][..bits as usize / 32],
                );
            }
        }
        Op::I2f | Op::I2fp => {
            let mode = rounding(i);
            if i.has("F16") || i.has("BF16") {
                return Err(cx.unsupported(i, "conversions to half precision are not modelled"));
            }
            let unsigned = i.has("U32") || i.has("U64") || i.has("U8") || i.has("U16");
            let wide_src = i.has("S64") || i.has("U64");
            let f64_dst = i.has("F64");
            for l in lanes(a) {
                let v: f64 = if wide_src {
                    let x = cx.rd64(w, i, s[0], l)?;
                    if unsigned {
                        x as f64
                    } else {
                        x as i64 as f64
                    }
                } else {
                    // The source's integer type: 8 or 16 bits are the register's low bits.
                    let x = cx.rd(w, i, s[0], l)?;
                    match (i.has("S8"), i.has("U8"), i.has("S16"), i.has("U16")) {
                        (true, ..) => x as i8 as f64,
                        (_, true, ..) => x as u8 as f64,
                        (_, _, true, _) => x as i16 as f64,
                        (.., true) => x as u16 as f64,
                        _ if unsigned => x as f64,
                        _ => x as i32 as f64,
                    }
                };
                // A 64-bit integer, exact in i128, rounds once in the instruction's mode.
                let exact = if wide_src {
                    let x = cx.rd64(w, i, s[0], l)?;
                    Some(if unsigned {
                        x as i128
                    } else {
                        x as i64 as i128
                    })
                } else {
                    None
                };
                if f64_dst {
                    let r = exact.map_or(v, |x| round::int_to_f64(x, mode));
                    let b = r.to_bits();
                    write(w, i, d[0], l, &[b as u32, (b >> 32) as u32]);
                } else {
                    let r = if let Some(x) = exact {
                        round::int_to_f32(x, mode)
                    } else {
                        // A 32-bit integer is exact in f64.
                        to_f32(v, 0.0, mode)
                    };
                    write(w, i, d[0], l, &[r.to_bits()]);
                }
            }
        }
        Op::F2f => {
            // F2F[.FTZ][.RM|.RP|.RZ].dst.src: the destination's float type is printed first.
            let tys: Vec<&str> = i
                .comps
                .iter()
                .copied()
                .filter(|c| matches!(*c, "F16" | "F32" | "F64"))
                .collect();
            let [dst, src] = tys[..] else {
                return Err(cx.unsupported(i, "F2F without a destination and a source type"));
            };
            let mode = rounding(i);
            // Directed rounding is modelled where ptxas was seen to emit it: f64 to f32.
            if mode != Round::Nearest && (dst, src) != ("F32", "F64") {
                return Err(cx.unsupported(
                    i,
                    "directed rounding of F2F other than F32.F64 is not modelled",
                ));
            }
            for l in lanes(a) {
                let v = match src {
                    "F64" => f64src(cx, w, i, s[0], l)?,
                    "F32" => ftz32(f32src(cx, w, i, s[0], l)?, ftz) as f64,
                    _ => {
                        let b = cx.rd(w, i, s[0], l)?;
                        let o = &i.m.operands[s[0]];
                        let b = if o.abs { b & 0x7fff } else { b };
                        let b = if o.neg { b ^ 0x8000 } else { b };
                        f16::from_bits(b as u16).to_f64()
                    }
                };
                match dst {
                    "F64" => {
                        let b = v.to_bits();
                        write(w, i, d[0], l, &[b as u32, (b >> 32) as u32]);
                    }
                    // One rounding in the mode from the f64 (exact for every f32 and f16
                    // source).
                    "F32" => write(w, i, d[0], l, &[ftz32(to_f32(v, 0.0, mode), ftz).to_bits()]),
                    // `f16::from_f64` rounds twice (through f32): F2F.F16.F64 of
                    // 1 + 2^-11 + 2^-30 must give 1 + 2^-10. NaNs keep `half`'s payload.
                    _ => {
                        let h = if v.is_nan() {
                            f16::from_f64(v)
                        } else {
                            crate::half::round16(v)
                        };
                        write(w, i, d[0], l, &[h.to_bits() as u32])
                    }
                }
            }
        }
        Op::Dadd | Op::Dmul | Op::Dfma => {
            let mode = rounding(i);
            for l in lanes(a) {
                let x = f64src(cx, w, i, s[0], l)?;
                let y = f64src(cx, w, i, s[1], l)?;
                let r = match i.op() {
                    Op::Dadd => round::add(x, y, mode),
                    Op::Dmul => round::mul(x, y, mode),
                    _ => round::fma(x, y, f64src(cx, w, i, s[2], l)?, mode),
                };
                let b = r.to_bits();
                write(w, i, d[0], l, &[b as u32, (b >> 32) as u32]);
            }
        }
        Op::Frnd => {
            if i.has("F16") {
                return Err(cx.unsupported(i, "half-precision rounding is not modelled"));
            }
            let f = |v: f64| {
                if i.has("FLOOR") {
                    v.floor()
                } else if i.has("CEIL") {
                    v.ceil()
                } else if i.has("TRUNC") {
                    v.trunc()
                } else {
                    v.round_ties_even()
                }
            };
            for l in lanes(a) {
                if i.has("F64") {
                    let b = f(f64src(cx, w, i, s[0], l)?).to_bits();
                    write(w, i, d[0], l, &[b as u32, (b >> 32) as u32]);
                } else {
                    let x = ftz32(f32src(cx, w, i, s[0], l)?, ftz);
                    // Rounding an f32 to an integer is exact in f64 and back.
                    write(w, i, d[0], l, &[ftz32(f(x as f64) as f32, ftz).to_bits()]);
                }
            }
        }
        Op::Fchk => {
            for l in lanes(a) {
                let x = f32src(cx, w, i, s[0], l)?;
                let y = f32src(cx, w, i, s[1], l)?;
                write_pred(w, i, d[0], l, fchk(x, y));
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}
