//! Measures the error of the transcendental recipes (`tangle_lanes::recipe`) against f64
//! libm, in units in the last place of f32 at the accurate value, and prints the maximum
//! and where it occurs, next to Vulkan's bound.
//!
//! `cargo run --release -p tangle-lanes --example recipe_error -- [STRIDE] [GRID]`:
//! one-operand functions (atan, exp2, exp, log2, log) over every STRIDE-th f32 bit
//! pattern whose accurate result is finite (default 1: all of them), atan2 and pow over
//! the GRID x GRID pairs of an evenly spaced set of patterns of both signs (default
//! 2048; pow where the accurate result is a finite nonzero f32).

use tangle_ir::glsl::GlslOp;
use tangle_lanes::recipe::{for_glsl, ulps};

/// A one-operand function: its op, its accurate value in f64, Vulkan's bound in words.
type OneOperand = (GlslOp, fn(f64) -> f64, &'static str);

fn main() {
    let mut args = std::env::args().skip(1);
    let stride: u32 = args.next().map_or(1, |s| s.parse().expect("STRIDE"));
    let grid: u32 = args.next().map_or(2048, |s| s.parse().expect("GRID"));
    let one_operand: [OneOperand; 5] = [
        (GlslOp::Atan, f64::atan, "4096 ulp"),
        (GlslOp::Exp2, f64::exp2, "3 + 2|x| ulp"),
        (GlslOp::Exp, f64::exp, "3 + 2|x| ulp"),
        (
            GlslOp::Log2,
            f64::log2,
            "3 ulp outside [0.5, 2], absolute 2^-21 inside",
        ),
        (
            GlslOp::Log,
            f64::ln,
            "3 ulp outside [0.5, 2], absolute 2^-21 inside",
        ),
    ];
    for (op, exact, vulkan) in one_operand {
        let r = for_glsl(op).expect("a recipe");
        let mut worst = (0.0f64, 0u32);
        let mut n = 0u64;
        let mut x = 0u32;
        loop {
            let v = f32::from_bits(x);
            let want = exact(f64::from(v));
            // Finite operands whose accurate result is finite and in f32's range (the
            // log's domain; exp's results below the smallest subnormal count too).
            if v.is_finite() && want.is_finite() && want.abs() <= f64::from(f32::MAX) {
                let e = ulps(r.eval(&[x]), want);
                if e > worst.0 {
                    worst = (e, x);
                }
                n += 1;
            }
            x = match x.checked_add(stride) {
                Some(v) => v,
                None => break,
            };
        }
        println!(
            "{}: {n} operands, max {:.3} ulp at {:#010x} ({:e}); Vulkan: {vulkan}",
            r.name,
            worst.0,
            worst.1,
            f32::from_bits(worst.1)
        );
    }
    let atan2 = for_glsl(GlslOp::Atan2).expect("atan2");
    let pats: Vec<u32> = (0..grid)
        .map(|i| (u64::from(i) * 0x1_0000_0000 / u64::from(grid)) as u32)
        .filter(|&b| f32::from_bits(b).is_finite())
        .collect();
    let mut worst = (0.0f64, 0u32, 0u32);
    let mut n = 0u64;
    for &y in &pats {
        for &x in &pats {
            let (fy, fx) = (f32::from_bits(y), f32::from_bits(x));
            if fy == 0.0 && fx == 0.0 {
                continue;
            }
            let e = ulps(atan2.eval(&[y, x]), f64::from(fy).atan2(f64::from(fx)));
            if e > worst.0 {
                worst = (e, y, x);
            }
            n += 1;
        }
    }
    println!(
        "atan2: {n} pairs, max {:.3} ulp at ({:#010x}, {:#010x}); Vulkan: 4096 ulp",
        worst.0, worst.1, worst.2
    );
    let pow = for_glsl(GlslOp::Pow).expect("pow");
    let mut worst = (0.0f64, 0u32, 0u32);
    let mut n = 0u64;
    for &x in pats.iter().filter(|&&b| f32::from_bits(b) > 0.0) {
        for &y in &pats {
            let want = f64::from(f32::from_bits(x)).powf(f64::from(f32::from_bits(y)));
            if !(want.is_finite() && want != 0.0 && want.abs() <= f64::from(f32::MAX)) {
                continue;
            }
            let e = ulps(pow.eval(&[x, y]), want);
            if e > worst.0 {
                worst = (e, x, y);
            }
            n += 1;
        }
    }
    println!(
        "pow: {n} pairs, max {:.3} ulp at ({:#010x}, {:#010x}); Vulkan: inherited from exp2(y log2 x)",
        worst.0, worst.1, worst.2
    );
}
