//! More warp-level tensor-core forms: SM89's fp8 QMMA (`mma` on `.e4m3`/`.e5m2`), found
//! by the generated PTX corpus (issue 12) and probed with nvdisasm on ptxas's words, bit
//! by bit and field by field (`docs/sass-sm90-async.md`, "Tensor cores"). On SM90 ptxas
//! writes fp8 `mma` as HMMA, so QMMA is an SM89 form.

use super::*;

pub(super) fn qmma(v: &mut Vec<Form>) {
    // QMMA.shape.D.A.B Rd, Ra.ROW, Rb.COL, Rc: D 16, A 24 (negated by 72), B 32 (negated
    // by 63), C 64; the shape 75-76 (0 `.16816`, 1 `.16832`; 2 and 3 print
    // `.INVALIDn`), the result type 77 (`.F16`, `.F32`), A's type 78 and B's 79
    // (`.E4M3`, `.E5M2`; one modifier, so the builder cannot swap them). The layouts
    // `.ROW` (73 clear) and `.COL` (74 set) are fixed (other values print `.???n`); bit
    // 80 is the sparse `.SP` form with two more operands and 87-90 the inverted uniform
    // predicate of HMMA: constants.
    let types: &[(u64, &str)] = &[
        (0, ".E4M3.E4M3"),
        (1, ".E5M2.E4M3"),
        (2, ".E4M3.E5M2"),
        (3, ".E5M2.E5M2"),
    ];
    v.push(
        fs("QMMA", &[Sm89], 0x000000040404727a, 0x004ff60000002c04)
            .m(75, 1, &[(0, ".16816"), (1, ".16832")])
            .m(77, 1, &[(0, ".F16"), (1, ".F32")])
            .m(78, 2, types)
            .o(r(16))
            .o(r(24).neg(72).suffix(".ROW"))
            .o(r(32).neg(63).suffix(".COL"))
            .o(r(64)),
    );
}
