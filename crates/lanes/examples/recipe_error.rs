//! Measures the error of the transcendental recipes (`tangle_lanes::recipe`) against f64
//! libm, in units in the last place of f32 at the accurate value, and prints the maximum
//! and where it occurs, next to Vulkan's bound.
//!
//! `cargo run --release -p tangle-lanes --example recipe_error -- [STRIDE] [GRID]`:
//! one-operand functions over every STRIDE-th non-negative finite f32 bit pattern
//! (default 1: all of them; the recipes are odd, so the negative half mirrors it),
//! two-operand ones over the GRID x GRID pairs of an evenly spaced set of patterns of
//! both signs (default 2048).

use tangle_ir::glsl::GlslOp;
use tangle_lanes::recipe::for_glsl;

/// `|r - exact|` in units of the f32 spacing at `exact` (the subnormal spacing below the
/// normal range).
fn ulps(r: u32, exact: f64) -> f64 {
    let r = f64::from(f32::from_bits(r));
    if r == exact {
        return 0.0;
    }
    let e = exact.abs().log2().floor().max(-126.0);
    (r - exact).abs() / (e - 23.0).exp2()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let stride: u32 = args.next().map_or(1, |s| s.parse().expect("STRIDE"));
    let grid: u32 = args.next().map_or(2048, |s| s.parse().expect("GRID"));
    let atan = for_glsl(GlslOp::Atan).expect("atan");
    let mut worst = (0.0f64, 0u32);
    let mut n = 0u64;
    let mut x = 0u32;
    while x < 0x7f80_0000 {
        let e = ulps(atan.eval(&[x]), f64::from(f32::from_bits(x)).atan());
        if e > worst.0 {
            worst = (e, x);
        }
        n += 1;
        x = match x.checked_add(stride) {
            Some(v) => v,
            None => break,
        };
    }
    println!(
        "atan: {n} operands, max {:.3} ulp at {:#010x} ({:e}); Vulkan: 4096 ulp",
        worst.0,
        worst.1,
        f32::from_bits(worst.1)
    );
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
}
