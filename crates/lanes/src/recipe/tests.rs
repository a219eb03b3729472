//! The recipes against f64 libm (accurate far beyond f32 here) on a bounded sample: each
//! within tangle's own bound (the measured maximum, rounded up: a wrong coefficient
//! fails it) and within Vulkan's; special operands exactly.

use super::*;

/// A deterministic sample of f32 bit patterns: every 2^k-th pattern plus a
/// multiplicative-congruential walk, both signs, finite values only.
fn sample(n: usize) -> Vec<u32> {
    let mut v = Vec::with_capacity(2 * n);
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 0..n {
        s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        v.push((s >> 32) as u32);
        v.push((i as u64 * (1u64 << 32) / n as u64) as u32);
    }
    v.retain(|&b| f32::from_bits(b).is_finite());
    v
}

#[test]
fn every_recipe_is_well_formed() {
    for &op in DEFINED {
        let r = for_glsl(op).unwrap();
        assert_eq!(r.check(), Ok(()), "{}", r.name);
    }
    assert!(for_glsl(GlslOp::FAbs).is_none());
}

#[test]
fn the_checker_rejects_bad_shapes() {
    let bad = |steps: Vec<Step>| Recipe {
        name: "bad",
        arity: 1,
        steps,
    };
    assert!(bad(vec![Step::Arg(0), Step::Add(0, 2)]).check().is_err());
    assert!(bad(vec![Step::Arg(1)]).check().is_err());
    assert!(bad(vec![Step::Arg(0), Step::Sel(0, 0, 0)]).check().is_err());
    assert!(bad(vec![Step::Arg(0), Step::Cmp(FCmp::Lt, 0, 0)])
        .check()
        .is_err());
    let cmp = Step::Cmp(FCmp::Lt, 0, 0);
    assert!(bad(vec![Step::Arg(0), cmp, Step::Add(1, 0)])
        .check()
        .is_err());
    assert!(bad(vec![Step::Arg(0), cmp, Step::Sel(1, 0, 0)])
        .check()
        .is_ok());
}

#[test]
fn atan_is_within_its_bound() {
    let worst = worst1(GlslOp::Atan, &sample(200_000), f64::atan);
    // tangle's bound (docs/interp.md: the whole f32 range measured at 1.9 ulp); Vulkan's
    // is 4096 ulp.
    assert!(
        worst.0 <= 2.0,
        "atan({:#x}) is {} ulp off",
        worst.1,
        worst.0
    );
}

#[test]
fn atan2_is_within_its_bound() {
    let r = for_glsl(GlslOp::Atan2).unwrap();
    let mut worst = (0.0f64, 0u32, 0u32);
    let xs = sample(600);
    for &y in &xs {
        for &x in &xs {
            let (fy, fx) = (f32::from_bits(y), f32::from_bits(x));
            if fy == 0.0 && fx == 0.0 {
                continue;
            }
            let e = ulps(r.eval(&[y, x]), f64::from(fy).atan2(f64::from(fx)));
            if e > worst.0 {
                worst = (e, y, x);
            }
        }
    }
    assert!(
        worst.0 <= 3.0,
        "atan2({:#x}, {:#x}) is {} ulp off",
        worst.1,
        worst.2,
        worst.0
    );
}

#[test]
fn special_operands_give_ieee_results() {
    let atan = for_glsl(GlslOp::Atan).unwrap();
    let atan2 = for_glsl(GlslOp::Atan2).unwrap();
    let pio2 = std::f32::consts::FRAC_PI_2.to_bits();
    let pi = std::f32::consts::PI.to_bits();
    let pio4 = std::f32::consts::FRAC_PI_4.to_bits();
    let (inf, neg) = (0x7f80_0000u32, 0x8000_0000u32);
    assert_eq!(atan.eval(&[0]), 0);
    assert_eq!(atan.eval(&[neg]), neg);
    assert_eq!(atan.eval(&[inf]), pio2);
    assert_eq!(atan.eval(&[inf | neg]), pio2 | neg);
    assert_eq!(atan.eval(&[1.0f32.to_bits()]), pio4);
    assert_eq!(atan.eval(&[0x7fc0_0001]), CANONICAL_NAN);
    assert_eq!(atan.eval(&[0xff80_0001]), CANONICAL_NAN);
    let one = 1.0f32.to_bits();
    assert_eq!(atan2.eval(&[0, one]), 0);
    assert_eq!(atan2.eval(&[neg, one]), neg);
    assert_eq!(atan2.eval(&[0, one | neg]), pi);
    assert_eq!(atan2.eval(&[neg, one | neg]), pi | neg);
    assert_eq!(atan2.eval(&[one, 0]), pio2);
    assert_eq!(atan2.eval(&[one | neg, neg]), pio2 | neg);
    assert_eq!(atan2.eval(&[inf, inf]), pio4);
    assert_eq!(
        atan2.eval(&[inf | neg, inf | neg]),
        0x4016_cbe4 | neg // 3π/4 rounded to f32
    );
    assert_eq!(atan2.eval(&[one, inf | neg]), pi);
    assert_eq!(atan2.eval(&[CANONICAL_NAN, one]), CANONICAL_NAN);
    assert_eq!(atan2.eval(&[one, 0xffc0_0000]), CANONICAL_NAN);
}

/// The largest error of the one-operand `op` over `xs` against `exact`, in ulps, and where.
fn worst1(op: GlslOp, xs: &[u32], exact: fn(f64) -> f64) -> (f64, u32) {
    let r = for_glsl(op).unwrap();
    let mut worst = (0.0f64, 0u32);
    for &x in xs {
        let want = exact(f64::from(f32::from_bits(x)));
        let got = r.eval(&[x]);
        let e = if want.is_infinite() || want == 0.0 || want.abs() > f64::from(f32::MAX) {
            // Beyond the range: the rounded value exactly (0, a subnormal, infinity).
            if got == (want as f32).to_bits() {
                0.0
            } else {
                ulps(got, want)
            }
        } else {
            ulps(got, want)
        };
        if e > worst.0 {
            worst = (e, x);
        }
    }
    worst
}

#[test]
fn exp2_and_exp_are_within_their_bounds() {
    // Every operand where the result is neither 0 nor infinite, sampled, and beyond.
    let xs: Vec<u32> = sample(100_000)
        .into_iter()
        .filter(|&b| f32::from_bits(b).abs() < 200.0)
        .collect();
    let (e2, at2) = worst1(GlslOp::Exp2, &xs, f64::exp2);
    let (e, at) = worst1(GlslOp::Exp, &xs, f64::exp);
    // tangle's bounds (docs/interp.md); Vulkan's is 3 + 2|x| ulp, at least 3.
    assert!(e2 <= 1.0, "exp2({at2:#x}) is {e2} ulp off");
    assert!(e <= 1.0, "exp({at:#x}) is {e} ulp off");
}

#[test]
fn log2_and_log_are_within_their_bounds() {
    let xs: Vec<u32> = sample(100_000)
        .into_iter()
        .filter(|&b| f32::from_bits(b) > 0.0)
        .collect();
    let (e2, at2) = worst1(GlslOp::Log2, &xs, f64::log2);
    let (e, at) = worst1(GlslOp::Log, &xs, f64::ln);
    // Vulkan: 3 ulp outside [0.5, 2], absolute 2^-21 inside (where these are in ulps of
    // results below 1, far tighter).
    assert!(e2 <= 1.5, "log2({at2:#x}) is {e2} ulp off");
    assert!(e <= 2.0, "log({at:#x}) is {e} ulp off");
}

#[test]
fn pow_is_exp2_of_y_log2_x() {
    let pow = for_glsl(GlslOp::Pow).unwrap();
    let exp2 = for_glsl(GlslOp::Exp2).unwrap();
    let log2 = for_glsl(GlslOp::Log2).unwrap();
    let xs: Vec<u32> = sample(300)
        .into_iter()
        .filter(|&b| f32::from_bits(b) > 0.0)
        .collect();
    let ys = sample(300);
    for &x in &xs {
        for &y in &ys {
            let t = f32::from_bits(y) * f32::from_bits(log2.eval(&[x]));
            assert_eq!(
                pow.eval(&[x, y]),
                exp2.eval(&[t.to_bits()]),
                "pow({x:#x}, {y:#x})"
            );
        }
    }
}

#[test]
fn exp_and_log_special_operands() {
    let f = |op: GlslOp, x: f32| f32::from_bits(for_glsl(op).unwrap().eval(&[x.to_bits()]));
    for op in [GlslOp::Exp2, GlslOp::Exp] {
        assert_eq!(f(op, 0.0), 1.0);
        assert_eq!(f(op, -0.0), 1.0);
        assert_eq!(f(op, f32::INFINITY), f32::INFINITY);
        assert_eq!(f(op, f32::NEG_INFINITY).to_bits(), 0);
        assert_eq!(f(op, 200.0), f32::INFINITY);
        assert_eq!(f(op, -200.0).to_bits(), 0);
        assert_eq!(f(op, f32::NAN).to_bits(), CANONICAL_NAN);
        // Far beyond the range (exp's low word of x log2 e is large there).
        assert_eq!(f(op, -1.627_964_4e14).to_bits(), 0);
        assert_eq!(f(op, 1e30), f32::INFINITY);
        assert_eq!(f(op, -1e30).to_bits(), 0);
    }
    for k in -149..128 {
        assert_eq!(
            f(GlslOp::Exp2, k as f32),
            (k as f64).exp2() as f32,
            "exp2({k})"
        );
        let p = (k as f64).exp2() as f32;
        assert_eq!(f(GlslOp::Log2, p), k as f32, "log2(2^{k})");
    }
    assert_eq!(f(GlslOp::Exp2, 128.0), f32::INFINITY);
    assert_eq!(f(GlslOp::Exp2, -150.0).to_bits(), 0);
    assert_eq!(f(GlslOp::Exp2, -149.5).to_bits(), 1);
    for op in [GlslOp::Log2, GlslOp::Log] {
        assert_eq!(f(op, 1.0).to_bits(), 0);
        assert_eq!(f(op, 0.0), f32::NEG_INFINITY);
        assert_eq!(f(op, -0.0), f32::NEG_INFINITY);
        assert_eq!(f(op, f32::INFINITY), f32::INFINITY);
        assert_eq!(f(op, -1.0).to_bits(), CANONICAL_NAN);
        assert_eq!(f(op, f32::NAN).to_bits(), CANONICAL_NAN);
    }
}
