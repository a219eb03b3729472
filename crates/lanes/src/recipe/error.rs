//! How far a recipe's result is from the accurate value, in the unit its bounds are stated
//! in: shared by the recipes' tests and `examples/recipe_error.rs`, so the bound the tests
//! hold and the figure the example measures are the same quantity.

/// `|r - exact|` in units of the f32 spacing at `exact` (the subnormal spacing below the
/// normal range); 0 where `r` is `exact`.
pub fn ulps(r: u32, exact: f64) -> f64 {
    let r = f64::from(f32::from_bits(r));
    if r == exact {
        return 0.0;
    }
    let e = exact.abs().log2().floor().max(-126.0);
    (r - exact).abs() / (e - 23.0).exp2()
}
