//! Warp-level tensor-core forms (`mma`, `wmma`): HMMA and DMMA, found by the generated
//! PTX corpus (issue 12) and probed with nvdisasm on its ptxas words, bit by bit and field
//! by field, on SM75, SM80 and SM90. The registers each operand covers (a matrix
//! fragment: up to four consecutive registers) follow from the shape and types
//! (`roles::width_of`).

use super::*;

/// HMMA's shapes, bits 75 (set: K 16) and 78 (set: K 4); both set print `.INVALID3`.
const HMMA_SHAPES: &[(u64, &str)] = &[(0, ".1688"), (1, ".16816"), (2, ".1684")];

pub(super) fn tensor(v: &mut Vec<Form>) {
    // HMMA.shape.D[.SATFINITE][.in] Rd, A, B, C[, UPp]: D 16, A 24 (negated by 72), B 32
    // (negated by 63), C 64; the result type 76 (set `.F32`, clear `.F16`); SM75's
    // `.SATFINITE` 77 (ignored later); the input type 82-83 from SM80 on (0 f16, 1
    // `.BF16`, 2 `.TF32`; 3 prints `.INVALID3`, illegal on SM90; on SM75 both bits must
    // be clear or set and print nothing: a constant here). Bit 73 is the sparse form
    // `.SP` with two more operands (a form of its own below). SM90 adds a uniform predicate
    // 87-89 (negated by 90) printed last; SM80-SM89 ignore those bits.
    // Reuse: A slot 0 (SM80 and later; illegal on SM75), B slot 1; slot 2 is illegal.
    // SM90's uniform predicate is stored inverted (0 prints nothing, 1 `UP6`, 4 `UP3`):
    // the predicate operands cannot say that, so those bits are constants (0, UPT).
    let d = || r(16);
    let a = || r(24).neg(72).reuse(0);
    let b = || r(32).neg(63).reuse(1);
    let c = || r(64);
    v.push(
        fs("HMMA", &[Sm75], 0x000000000410723c, 0x0000000000001010)
            .m_pieces(&[(75, 1), (78, 1)], HMMA_SHAPES)
            .m(76, 1, &[(0, ".F16"), (1, ".F32")])
            .m(77, 1, &[(0, ""), (1, ".SATFINITE")])
            .o(d())
            .o(r(24).neg(72))
            .o(b())
            .o(c()),
    );
    let inputs: &[(u64, &str)] = &[(0, ""), (1, ".BF16"), (2, ".TF32")];
    v.push(
        fs("HMMA", SM80UP, 0x00000008080c723c, 0x000000000000180c)
            .m_pieces(&[(75, 1), (78, 1)], HMMA_SHAPES)
            .m(76, 1, &[(0, ".F16"), (1, ".F32")])
            .m(82, 2, inputs)
            .o(d())
            .o(a())
            .o(b())
            .o(c()),
    );
    // HMMA.SP.shape.D[.in] Rd, A, B, C, E, sel (`mma.sp`, SM80 and later): bit 73 set
    // (`.SP`; HMMA's other fields as above), the sparsity metadata register E 40-47 and
    // the thread selector 48-49; bit 50 prints `.reuse` after E (no control-code slot:
    // ptxas's 0, a constant here), 51-62 are ignored. Shapes as HMMA's (0 `.1688`, 1
    // `.16816`, 3 `.16832`; 2 prints `.INVALID2`). SM90's uniform predicate 87-90 is a
    // constant as in HMMA. Probed bit by bit on SM80 and SM90 ptxas words of the
    // generated PTX corpus.
    let sparse_shapes: &[(u64, &str)] = &[(0, ".1688"), (1, ".16816"), (3, ".16832")];
    v.push(
        fs("HMMA", SM80UP, 0x000006040404723c, 0x0000000000005a04)
            .m(0, 0, &[(0, ".SP")])
            .m_pieces(&[(75, 1), (78, 1)], sparse_shapes)
            .m(76, 1, &[(0, ".F16"), (1, ".F32")])
            .m(82, 2, inputs)
            .o(d())
            .o(a())
            .o(b())
            .o(c())
            .o(r(40))
            .o(uimm(48, 2)),
    );
    // DMMA.884[.rnd] Rd, A, B, C (`mma.m8n8k4.f64`): D 16, A 24 (negate 72, absolute 73,
    // reuse slot 0), B 32 (negate 63, absolute 62, slot 1), C 64 (negate 75, absolute
    // 74), rounding 78-79. The shape is bit 76 before SM90 (set prints `.???1`) and 76-77
    // on SM90, which names it `.8x8x4` and has 16x8xK shapes whose fragments are eight
    // registers (not modelled).
    let rnd: &[(u64, &str)] = &[(0, ""), (1, ".RM"), (2, ".RP"), (3, ".RZ")];
    for (arches, shape, width) in [(SM80_89, ".884", 1u8), (&[Sm90][..], ".8x8x4", 2)] {
        v.push(
            fs("DMMA", arches, 0x000000060404723f, 0x0000000000000008)
                .m(76, width, &[(0, shape)])
                .m(78, 2, rnd)
                .o(r(16))
                .o(r(24).neg(72).abs(73).reuse(0))
                .o(r(32).neg(63).abs(62).reuse(1))
                .o(r(64).neg(75).abs(74)),
        );
    }
    // IMMA.shape.A.B[.SAT] Rd, Ra.ROW, Rb.COL, Rc (`mma` on 8-bit integers, SM80 and
    // later): D 16, A 24, B 32, C 64; the shape 75 and 85-86 in one field (`.8816`,
    // `.16816`, `.16832`; 6 is the 4-bit `.16864`, 1 and 3 print `.INVALIDn`), A's type
    // 76 (`.U8`, `.S8`; 77 and the 4-bit flag 83 constants), B's 78 (79 and 84
    // constants), `.SAT` 82; the layouts `.ROW` (73 clear) and `.COL` (74 set) are fixed
    // (other values print `.???n`). Bit 72 is the sparse `.SP` form (not modelled), and
    // SM90's inverted uniform predicate 87-90 is a constant as in HMMA. SM75's IMMA has
    // another layout (not modelled).
    // A's and B's types are one modifier, so the builder cannot swap them.
    let int8: &[(u64, &str)] = &[(0, ".U8.U8"), (1, ".S8.U8"), (2, ".U8.S8"), (3, ".S8.S8")];
    v.push(
        fs("IMMA", SM80UP, 0x0000000404047237, 0x0000000000445c04)
            .m_pieces(
                &[(75, 1), (85, 2)],
                &[(0, ".8816"), (4, ".16816"), (5, ".16832")],
            )
            .m_pieces(&[(76, 1), (78, 1)], int8)
            .m(82, 1, &[(0, ""), (1, ".SAT")])
            .o(r(16))
            .o(r(24).suffix(".ROW"))
            .o(r(32).suffix(".COL"))
            .o(r(64)),
    );
}
