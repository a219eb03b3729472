//! The refinement sequences of `sqrt.rs` and `ddiv.rs`, step for step in Rust (`mul_add`
//! is a correctly rounded FMA, as FFMA and DFMA are), run with the MUFU seed moved by
//! several units of its last place in both directions: the result must still be the
//! correctly rounded one, so it does not depend on how the hardware rounds MUFU (the
//! simulator returns the correctly rounded function value, `docs/sim.md`). The emitted
//! code itself is checked against the reference on the simulator
//! (`tests/data/wide/sqrt.amber`, `ddiv.amber`, ...).

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// ptxas's `sqrt.rn.f32` fast path (`MUFU.RSQ` seed `y`, one FFMA correction).
fn sqrt32_seq(x: f32, y: f32) -> f32 {
    let s = x * y;
    let h = y * 0.5;
    let r = (-s).mul_add(s, x);
    r.mul_add(h, s)
}

/// Why f32 roots go through the f64 sequence: ptxas's f32 sequence is exact with the
/// correctly rounded seed (the simulator's MUFU.RSQ) but not with a seed one unit off,
/// well within MUFU.RSQ's error bound, so on the simulator it would pass without telling
/// anything about the hardware.
#[test]
fn ptxas_f32_sqrt_depends_on_the_seeds_last_bit() {
    let mut wrong = [0u32; 3];
    for bits in 0x3f80_0000u32..0x4080_0000 {
        let x = f32::from_bits(bits);
        let want = (x as f64).sqrt() as f32;
        let seed = (1.0 / (x as f64).sqrt()) as f32;
        for (k, d) in [-1i32, 0, 1].into_iter().enumerate() {
            let y = f32::from_bits((seed.to_bits() as i32 + d) as u32);
            if sqrt32_seq(x, y).to_bits() != want.to_bits() {
                wrong[k] += 1;
            }
        }
    }
    assert_eq!(
        wrong,
        [3, 0, 2],
        "operands rounded wrongly with seeds -1, 0, +1 ulp off"
    );
}

/// The high word of `1 / sqrt(v)` (`v`'s high word only), as MUFU.RSQ64H returns it
/// in the simulator, moved by `d` units of that word's last place.
fn rsq64h(m: f64, d: i64) -> f64 {
    let v = f64::from_bits(m.to_bits() & 0xffff_ffff_0000_0000);
    let r = 1.0 / v.sqrt();
    f64::from_bits((((r.to_bits() >> 32) as i64 + d) as u64) << 32)
}

/// `dsqrt_1_4` with the seed `r`.
fn dsqrt_seq(m: f64, r: f64) -> f64 {
    let t = r * r;
    let e = m.mul_add(-t, 1.0);
    let h = e.mul_add(0.375, 0.5);
    let u = r * e;
    let r2 = h.mul_add(u, r);
    let s = m * r2;
    let r2h = r2 * 0.5;
    let res = s.mul_add(-s, m);
    res.mul_add(r2h, s)
}

#[test]
fn dsqrt_is_correctly_rounded_for_seeds_within_four_units() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for i in 0..400_000u32 {
        // Random m in [1, 4), and exact squares of random 26-bit integers scaled there.
        let m = if i % 4 == 0 {
            let k = (rng.next() >> 38) | (1 << 25);
            let sq = (k * k) as f64;
            let e = sq.log2().floor() as i32;
            let e = e - e.rem_euclid(2);
            sq / 2f64.powi(e)
        } else {
            let bits = 0x3ff0_0000_0000_0000 | (rng.next() >> 12);
            let x = f64::from_bits(bits);
            if i % 2 == 0 {
                x * 2.0
            } else {
                x
            }
        };
        assert!((1.0..4.0).contains(&m));
        let want = m.sqrt();
        for d in -4..=4 {
            let got = dsqrt_seq(m, rsq64h(m, d));
            assert_eq!(got.to_bits(), want.to_bits(), "sqrt({m:e}) with seed {d:+}");
        }
    }
}

/// The high word of `1 / v` (`v`'s high word only), as MUFU.RCP64H returns it in the
/// simulator, moved by `d`; the low word 1, as ptxas sets it.
fn rcp64h(b: f64, d: i64) -> f64 {
    let v = f64::from_bits(b.to_bits() & 0xffff_ffff_0000_0000);
    let r = 1.0 / v;
    f64::from_bits(((((r.to_bits() >> 32) as i64 + d) as u64) << 32) | 1)
}

/// `ddiv_1_2` with the seed `r0`.
fn ddiv_seq(a: f64, b: f64, r0: f64) -> f64 {
    let e = (-b).mul_add(r0, 1.0);
    let e2 = e.mul_add(e, e);
    let r1 = r0.mul_add(e2, r0);
    let e3 = (-b).mul_add(r1, 1.0);
    let r2 = r1.mul_add(e3, r1);
    let q0 = a * r2;
    let res = (-b).mul_add(q0, a);
    r2.mul_add(res, q0)
}

/// `2^e` for `e` in the normal range.
fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// The whole of `ddiv` on finite non-zero operands, step for step, with the seed moved
/// by `d`.
fn ddiv_model(a: f64, b: f64, d: i64) -> f64 {
    let norm = |x: f64| -> (f64, i32) {
        let x = x.abs();
        let (xs, bias) = if x.to_bits() >> 52 == 0 {
            (x * pow2(64), 1023 + 64)
        } else {
            (x, 1023)
        };
        let e = (xs.to_bits() >> 52) as i32 - bias;
        let m = f64::from_bits((xs.to_bits() & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
        (m, e)
    };
    let (an, ea) = norm(a);
    let (bn, eb) = norm(b);
    let q = ddiv_seq(an, bn, rcp64h(bn, d));
    let rem = (-bn).mul_add(q, an);
    let e = (ea - eb).clamp(-1700, 1700);
    let e1 = e >> 1;
    let e2 = e - e1;
    let t = q * pow2(e1) * pow2(e2);
    let q1 = q * pow2(e1);
    let back = t * pow2(-e2);
    let diff = q1 - back;
    let h = f64::from_bits(((-52 - e2).max(1) as u64) << 52);
    let t = if diff.abs() == h && rem != 0.0 {
        let step: i64 = if rem > 0.0 { 1 } else { -1 };
        let qn = f64::from_bits((q.to_bits() as i64 + step) as u64);
        qn * pow2(e1) * pow2(e2)
    } else {
        t
    };
    if (a < 0.0) != (b < 0.0) {
        -t
    } else {
        t
    }
}

#[test]
fn ddiv_is_correctly_rounded_for_seeds_within_four_units() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    for _ in 0..300_000 {
        let a = f64::from_bits(0x3ff0_0000_0000_0000 | (rng.next() >> 12));
        let b = f64::from_bits(0x3ff0_0000_0000_0000 | (rng.next() >> 12));
        for d in -4..=4 {
            let got = ddiv_seq(a, b, rcp64h(b, d));
            assert_eq!(got.to_bits(), (a / b).to_bits(), "{a:e} / {b:e} seed {d:+}");
        }
    }
}

#[test]
fn ddiv_model_is_correctly_rounded_over_the_whole_range() {
    let mut rng = Rng(0xfeed_face_cafe_beef);
    let mut subnormal = 0;
    let mut ties = 0;
    for i in 0..300_000u32 {
        // Random bits (every exponent, subnormals included), and quotients forced near
        // and below the subnormal range, and exact halfway cases there.
        let (a, b) = match i % 3 {
            0 => (f64::from_bits(rng.next()), f64::from_bits(rng.next())),
            1 => {
                let a = f64::from_bits(rng.next() >> 2 & 0x000f_ffff_ffff_ffff | 1);
                let b = f64::from_bits(0x3ff0_0000_0000_0000 | (rng.next() >> 12));
                (a, b * pow2((rng.next() % 60) as i32 - 5))
            }
            _ => {
                // a / b = (2k + 1) 2^-1075 exactly (halfway between two subnormals),
                // then a moved by -1, 0 or +1 unit: just below, on and just above.
                let k = rng.next() >> 36;
                let bb = (rng.next() >> 40) | (1 << 23);
                let a = ((2 * k + 1) * bb) as f64 * pow2(-998);
                let b = bb as f64 * pow2(77);
                let step = (i / 3 % 3) as i64 - 1;
                (f64::from_bits((a.to_bits() as i64 + step) as u64), b)
            }
        };
        if !a.is_finite() || !b.is_finite() || a == 0.0 || b == 0.0 {
            continue;
        }
        let want = a / b;
        if want != 0.0 && want.abs() < f64::MIN_POSITIVE {
            subnormal += 1;
        }
        for d in [-3, 0, 3] {
            let got = ddiv_model(a, b, d);
            assert_eq!(got.to_bits(), want.to_bits(), "{a:e} / {b:e} seed {d:+}");
        }
        let q = (a / b).abs();
        if q < f64::MIN_POSITIVE && i % 3 == 2 {
            ties += 1;
        }
    }
    assert!(subnormal > 10_000, "{subnormal} subnormal quotients");
    assert!(ties > 10_000, "{ties} halfway-built quotients");
}

/// `fmod_f32`'s exact remainder, step for step, on f32 magnitudes `a` and `b` (finite,
/// `b` non-zero); `fixups` counts the one-off corrections taken (below 0, at or above MB).
fn fmod_model(a: f64, b: f64, fixups: &mut [u32; 2]) -> f64 {
    let field = |x: f64| ((x.to_bits() >> 52) & 0x7ff) as i32;
    let (ea, eb) = (field(a), field(b));
    let ma = a * pow2(1046 - ea);
    let mb = b * pow2(1046 - eb);
    let d = ea - eb;
    if d < 0 {
        return a;
    }
    let mut r = if ma >= mb { ma - mb } else { ma };
    let inv = ddiv_seq(1.0, mb * pow2(-23), rcp64h(mb * pow2(-23), 0)) * pow2(-23);
    for i in 0..10 {
        let k = (d - 29 * i).clamp(0, 29);
        let xs = r * pow2(k);
        let q = (xs * inv).trunc();
        let mut rem = (-mb).mul_add(q, xs);
        if rem < 0.0 {
            rem += mb;
            fixups[0] += 1;
        }
        if rem >= mb {
            rem -= mb;
            fixups[1] += 1;
        }
        r = rem;
    }
    r * pow2(eb - 1023 - 23)
}

#[test]
fn fmod_model_is_the_exact_remainder() {
    let mut rng = Rng(0x5eed_f00d_0000_0001);
    let mut fixups = [0u32; 2];
    let mut far = 0;
    for _ in 0..200_000 {
        // Random finite non-zero f32 magnitudes over every exponent.
        let f = |rng: &mut Rng| loop {
            let x = f32::from_bits((rng.next() >> 33) as u32);
            if x.is_finite() && x != 0.0 {
                return x as f64;
            }
        };
        let (a, b) = (f(&mut rng), f(&mut rng));
        let want = a % b;
        let got = fmod_model(a, b, &mut fixups);
        assert_eq!(got.to_bits(), want.to_bits(), "{a:e} % {b:e}");
        if ((a.to_bits() >> 52) as i32 - (b.to_bits() >> 52) as i32) > 232 {
            far += 1;
        }
    }
    assert!(far > 500, "{far} pairs need more than eight steps");
    let _ = fixups;
}

/// The reduction step's quotient `trunc(x / MB)` from the reciprocal is one off next to
/// multiples of MB (x up to 2^53), and the one correction makes the residue exact.
#[test]
fn fmod_step_corrections_are_needed_and_enough() {
    let mut rng = Rng(0x0bad_cafe_1234_5678);
    let mut off = [0u32; 2];
    for _ in 0..200_000 {
        let mb = ((rng.next() >> 40) | (1 << 23)) as f64;
        let inv = ddiv_seq(1.0, mb * pow2(-23), rcp64h(mb * pow2(-23), 0)) * pow2(-23);
        let c = ((rng.next() >> 35) | (1 << 28)) as f64;
        for j in [-2.0, -1.0, 0.0, 1.0, 2.0] {
            let x = c.mul_add(mb, j);
            let exact_q = ((x as u64) / (mb as u64)) as f64;
            let q = (x * inv).trunc();
            let mut rem = (-mb).mul_add(q, x);
            if q > exact_q {
                off[0] += 1;
            }
            if q < exact_q {
                off[1] += 1;
            }
            if rem < 0.0 {
                rem += mb;
            }
            if rem >= mb {
                rem -= mb;
            }
            assert_eq!(rem, x % mb, "{x} mod {mb}");
        }
    }
    assert!(
        off[0] > 0 && off[1] > 0,
        "quotients too large, too small: {off:?}"
    );
}
