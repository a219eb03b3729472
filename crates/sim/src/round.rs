//! Directed rounding for double precision and 64-bit integer conversions: the nearest result
//! of Rust's arithmetic, moved one step when the exact value lies on the other side of it.
//! The side is found with error-free transformations (TwoSum, the FMA residual of a
//! product) and, for a fused multiply-add, the sign of an exact sum of four doubles (a
//! nonoverlapping expansion, Shewchuk's grow-expansion). Where a product underflows (below
//! 2^-969 its residual is not exact) the operands are first scaled by powers of two.

use std::cmp::Ordering;

/// A rounding direction of the `.RM`, `.RP`, `.RZ` modifiers (or none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round {
    /// Round to nearest, ties to even.
    Nearest,
    /// Toward minus infinity (`.RM`).
    Down,
    /// Toward plus infinity (`.RP`).
    Up,
    /// Toward zero (`.RZ`).
    Zero,
}

/// `a + b` with its rounding error (Knuth's TwoSum); exact for finite sums.
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// The next f64 toward +infinity (`up`) or -infinity.
pub fn step_f64(x: f64, up: bool) -> f64 {
    if x.is_nan() || (x.is_infinite() && (x > 0.0) == up) {
        return x;
    }
    if x == 0.0 {
        let tiny = f64::from_bits(1);
        return if up { tiny } else { -tiny };
    }
    let b = x.to_bits();
    f64::from_bits(if (x > 0.0) == up { b + 1 } else { b - 1 })
}

/// The sign of the exact sum of `terms` (finite doubles).
pub fn exact_sign(terms: &[f64]) -> Ordering {
    let mut e: Vec<f64> = Vec::new();
    for &t in terms {
        let mut q = t;
        let mut next = Vec::with_capacity(e.len() + 1);
        for &c in &e {
            let (s, err) = two_sum(q, c);
            if err != 0.0 {
                next.push(err);
            }
            q = s;
        }
        next.push(q);
        e = next;
    }
    // Components grow in magnitude and do not overlap: the largest nonzero one decides.
    e.iter()
        .rev()
        .find(|&&c| c != 0.0)
        .map_or(Ordering::Equal, |&c| {
            c.partial_cmp(&0.0).unwrap_or(Ordering::Equal)
        })
}

/// Rounds in direction `r` an exact value whose nearest double is `n` and which compares
/// with `n` as `side` (`Greater`: the exact value is above `n`). `negative` is the exact
/// value's sign (for `.RZ`).
pub fn directed(n: f64, side: Ordering, r: Round, negative: bool) -> f64 {
    let r = match r {
        Round::Zero if negative => Round::Up,
        Round::Zero => Round::Down,
        r => r,
    };
    match (r, side) {
        (Round::Up, Ordering::Greater) => step_f64(n, true),
        (Round::Down, Ordering::Less) => step_f64(n, false),
        _ => n,
    }
}

/// The side of the exact value relative to a nearest result `n` that overflowed to an
/// infinity from finite operands: the exact value is finite, so below +inf, above -inf.
fn overflow_side(n: f64) -> Ordering {
    if n > 0.0 {
        Ordering::Less
    } else {
        Ordering::Greater
    }
}

/// `x + y` rounded in direction `r`.
pub fn add(x: f64, y: f64, r: Round) -> f64 {
    let (s, e) = two_sum(x, y);
    if r == Round::Nearest || !x.is_finite() || !y.is_finite() || s.is_nan() {
        return s;
    }
    if s.is_infinite() {
        return directed(s, overflow_side(s), r, s < 0.0);
    }
    if s == 0.0 && e == 0.0 {
        // An exact zero: IEEE's sign rules (-0 from two negative zeros, and under `.RM`
        // from a cancelling sum or a negative zero operand).
        let (nx, ny) = (x.is_sign_negative(), y.is_sign_negative());
        let negative = if x == 0.0 && y == 0.0 {
            if r == Round::Down {
                nx || ny
            } else {
                nx && ny
            }
        } else {
            r == Round::Down
        };
        return if negative { -0.0 } else { 0.0 };
    }
    let side = e.partial_cmp(&0.0).unwrap_or(Ordering::Equal);
    directed(s, side, r, s < 0.0 || (s == 0.0 && e < 0.0))
}

/// The side of the exact `x * y + z` relative to `n` (finite, nonzero `x * y`). The
/// product's residual `fma(x, y, -p)` is exact only while the product stays above 2^-969
/// (Boldo and Muller); below it `x` and `y` are scaled up by 2^600 each (and `z`, `n` by
/// 2^1200, exact), unless `z` is so large that the product lies below half its ulp: then
/// `n` is `z` and the product's sign is the side.
fn product_side(x: f64, y: f64, z: f64, n: f64) -> Ordering {
    let p = x * y;
    if p.abs() >= f64::from_bits(0x0360_0000_0000_0000) {
        let e = x.mul_add(y, -p);
        return exact_sign(&[p, e, z, -n]);
    }
    let product_sign = if x.is_sign_negative() != y.is_sign_negative() {
        Ordering::Less
    } else {
        Ordering::Greater
    };
    if z.abs() > 2f64.powi(-200) {
        return match exact_sign(&[z, -n]) {
            Ordering::Equal => product_sign,
            side => side,
        };
    }
    let s = 2f64.powi(600);
    let (xs, ys) = (x * s, y * s);
    let (zs, ns) = (z * s * s, n * s * s);
    let ps = xs * ys;
    let es = xs.mul_add(ys, -ps);
    exact_sign(&[ps, es, zs, -ns])
}

/// `x * y` rounded in direction `r`.
pub fn mul(x: f64, y: f64, r: Round) -> f64 {
    let p = x * y;
    if r == Round::Nearest || !x.is_finite() || !y.is_finite() || p.is_nan() {
        return p;
    }
    if p.is_infinite() {
        return directed(p, overflow_side(p), r, p < 0.0);
    }
    if x == 0.0 || y == 0.0 {
        return p;
    }
    let negative = x.is_sign_negative() != y.is_sign_negative();
    directed(p, product_side(x, y, 0.0, p), r, negative)
}

/// `x * y + z` rounded once in direction `r`.
pub fn fma(x: f64, y: f64, z: f64, r: Round) -> f64 {
    let n = x.mul_add(y, z);
    if r == Round::Nearest || !x.is_finite() || !y.is_finite() || !z.is_finite() || n.is_nan() {
        return n;
    }
    if n.is_infinite() {
        return directed(n, overflow_side(n), r, n < 0.0);
    }
    let p = x * y;
    if !p.is_finite() {
        // The product overflows but the sum does not: the exact value is beyond doubles'
        // reach of this check; keep the nearest result.
        return n;
    }
    if x == 0.0 || y == 0.0 {
        return add(p, z, r);
    }
    let side = product_side(x, y, z, n);
    if n == 0.0 && side == Ordering::Equal {
        // An exact zero: as a sum's.
        return add(p, z, r);
    }
    let negative = n < 0.0 || (n == 0.0 && side == Ordering::Less);
    directed(n, side, r, negative)
}

/// A 64-bit integer (`value`, exact in i128) converted to f64 in direction `r`.
pub fn int_to_f64(value: i128, r: Round) -> f64 {
    let n = value as f64;
    let side = value.cmp(&(n as i128));
    directed(n, side, r, value < 0)
}

/// A 64-bit integer converted to f32 in direction `r`.
pub fn int_to_f32(value: i128, r: Round) -> f32 {
    let n = value as f32;
    let side = value.cmp(&(n as i128));
    let r = match r {
        Round::Zero if value < 0 => Round::Up,
        Round::Zero => Round::Down,
        r => r,
    };
    let step = |x: f32, up: bool| {
        if x == 0.0 {
            let tiny = f32::from_bits(1);
            return if up { tiny } else { -tiny };
        }
        let b = x.to_bits();
        f32::from_bits(if (x > 0.0) == up { b + 1 } else { b - 1 })
    };
    match (r, side) {
        (Round::Up, Ordering::Greater) => step(n, true),
        (Round::Down, Ordering::Less) => step(n, false),
        _ => n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force on small binary fractions: doubles with few bits make exact rational
    /// arithmetic in i128 possible, so each directed result is checked against the
    /// definition (the nearest double on the right side of the exact value).
    #[test]
    fn directed_results_bracket_the_exact_value() {
        let vals: Vec<f64> = (-40..40)
            .map(|k| k as f64 * 0.375 + 1.0 / 3.0)
            .chain([1e-300, -1e-300, 1e300, f64::MAX, -f64::MAX, 0.1, 7.0])
            .collect();
        for &x in &vals {
            for &y in &vals {
                let lo = add(x, y, Round::Down);
                let hi = add(x, y, Round::Up);
                let n = x + y;
                assert!(lo <= n && n <= hi, "{x} + {y}");
                assert!(hi == lo || step_f64(lo, true) == hi, "{x} + {y}: {lo} {hi}");
                let (_, e) = two_sum(x, y);
                if e == 0.0 && n.is_finite() {
                    assert_eq!(lo, hi, "{x} + {y} is exact");
                }
                let lo = mul(x, y, Round::Down);
                let hi = mul(x, y, Round::Up);
                assert!(lo <= x * y && x * y <= hi, "{x} * {y}");
                let z = 0.3;
                let lo = fma(x, y, z, Round::Down);
                let hi = fma(x, y, z, Round::Up);
                let n = x.mul_add(y, z);
                assert!(lo <= n && n <= hi, "fma {x} {y}");
                assert!(hi == lo || step_f64(lo, true) == hi || !n.is_finite());
                let tz = fma(x, y, z, Round::Zero);
                assert!(tz.abs() <= n.abs(), "fma rz {x} {y}");
            }
        }
        assert_eq!(
            int_to_f32((1 << 40) + 1, Round::Up),
            (1u64 << 40) as f32 + 131072.0
        );
        assert_eq!(int_to_f32((1 << 40) + 1, Round::Down), (1u64 << 40) as f32);
        assert_eq!(
            int_to_f32(-(1 << 40) - 1, Round::Zero),
            -((1u64 << 40) as f32)
        );
        assert_eq!(
            int_to_f64((1 << 60) + 1, Round::Up),
            (1u64 << 60) as f64 + 256.0
        );
        assert_eq!(add(1.0, -1.0, Round::Down).to_bits(), (-0.0f64).to_bits());
        assert_eq!(add(1.0, -1.0, Round::Up).to_bits(), 0.0f64.to_bits());
        assert_eq!(add(f64::MAX, f64::MAX, Round::Zero), f64::MAX);
    }
}
