//! F2FP's SM89/SM90 layouts beyond `.PACK_AB`/`.MERGE_C` (`forms/generated.rs`): the fp8
//! conversions of `cvt.rn.satfinite[.relu].{e4m3x2,e5m2x2}.{f32,f16x2}` and
//! `cvt.rn.f16x2.{e4m3x2,e5m2x2}`, found by the generated PTX corpus (issue 12) and probed
//! with nvdisasm 13.5 on ptxas's words: every combination of bits 73-78, 86-87 and 89-90,
//! then every bit 12-104 flipped, on SM89 and SM90 (`docs/sass-facts.md`, "F2FP").
//!
//! The layout is bits 73, 74, 78, 89 and 90 together (`.PACK_AB` 0, `.MERGE_C` 78,
//! `.PACK_AB_MERGE_C` 78+90, `.PACK_B` 78+89, `.UNPACK_B` 74+89 with the source type in 73,
//! `.UNPACK_B_MERGE_C` 73+90; other values are rejected). The destination type is
//! [`F2FP_DST`]; `.SATFINITE` is 77 and `.RELU` 75. Bits 79-81 (`.RZ`/`.RS` in `.PACK_AB`)
//! are rejected by SM89 in these layouts and print `.???1/2/4` on SM90, so they are
//! constants (zero). Fields nvdisasm ignores in a layout (A 24-31 where only B is read, C
//! 64-71 in `.UNPACK_B` and `.PACK_B`, `.SATFINITE` there, bit 88 in `.UNPACK_B_MERGE_C`)
//! are constants with ptxas's values (0xff, 0xff, 0, 0): a word with another value is
//! refused, never printed wrong.

use super::*;

/// F2FP's destination type on SM89/SM90, bits 76 and 86-87 (value `b76 | b86 << 1 | b87 <<
/// 2`), printed before the source type: 2 is rejected, 6 and 7 print `.???6`/`.???7`.
pub(super) const F2FP_DST_PIECES: &[(u8, u8)] = &[(76, 1), (86, 2)];
/// The values of [`F2FP_DST_PIECES`].
pub(super) const F2FP_DST: &[(u64, &str)] = &[
    (0, ".F16"),
    (1, ".BF16"),
    (3, ".TF32"),
    (4, ".E5M2"),
    (5, ".E4M3"),
];

/// `.UNPACK_B`'s destination and source types as one field (73 the source, then
/// [`F2FP_DST_PIECES`]), so that the typed builder cannot swap the two when both are fp8
/// (`.E4M3.E5M2`).
const UNPACK_TYPES_PIECES: &[(u8, u8)] = &[(73, 1), (76, 1), (86, 2)];
/// The values of [`UNPACK_TYPES_PIECES`]: `source | destination << 1`.
const UNPACK_TYPES: &[(u64, &str)] = &[
    (0, ".F16.E5M2"),
    (1, ".F16.E4M3"),
    (2, ".BF16.E5M2"),
    (3, ".BF16.E4M3"),
    (6, ".TF32.E5M2"),
    (7, ".TF32.E4M3"),
    (8, ".E5M2.E5M2"),
    (9, ".E5M2.E4M3"),
    (10, ".E4M3.E5M2"),
    (11, ".E4M3.E4M3"),
];

/// C's half select (bit 72) and B's (bit 88 in `.UNPACK_B`): a form per value.
const HALVES: [(u64, &str); 2] = [(0, ""), (1, ".H1")];

pub(super) fn f2fp_fp8(v: &mut Vec<Form>) {
    let arches = &[Sm89, Sm90];
    let sat = &[(0, ""), (1, ".SATFINITE")];
    let relu = &[(0, ""), (1, ".RELU")];
    for (h1, sfx) in HALVES {
        // `.F32.PACK_AB_MERGE_C Rd, A, B, C[.H1]`: two f32 values into the half of C
        // that C's select does not name (cvt.*.{e4m3x2,e5m2x2}.f32).
        v.push(
            fs(
                "F2FP",
                arches,
                0x000000050005723e,
                0x00000000048070ff | h1 << 8,
            )
            .m(77, 1, sat)
            .m(75, 1, relu)
            .m_pieces(F2FP_DST_PIECES, F2FP_DST)
            .m(0, 0, &[(0, ".F32.PACK_AB_MERGE_C")])
            .o(r(16))
            .o(r(24))
            .o(r(32))
            .o(r(64).suffix(sfx)),
        );
        // `.F16.UNPACK_B_MERGE_C Rd, B, C[.H1]`: an f16x2 value (cvt.*.{e4m3x2,e5m2x2}.f16x2).
        v.push(
            fs(
                "F2FP",
                arches,
                0x00000000ff05723e,
                0x0000000004803aff | h1 << 8,
            )
            .m(77, 1, sat)
            .m(75, 1, relu)
            .m_pieces(F2FP_DST_PIECES, F2FP_DST)
            .m(0, 0, &[(0, ".F16.UNPACK_B_MERGE_C")])
            .o(r(16))
            .o(r(32))
            .o(r(64).suffix(sfx)),
        );
        // `.UNPACK_B Rd, B[.H1]`: an fp8 pair to f16x2 (cvt.rn.f16x2.{e4m3x2,e5m2x2}), the
        // source type in bit 73 (`.E5M2`, `.E4M3`; [`UNPACK_TYPES`]), B's half select in
        // bit 88.
        v.push(
            fs(
                "F2FP",
                arches,
                0x00000000ff05723e,
                0x00000000020006ff | h1 << 24,
            )
            .m(75, 1, relu)
            .m_pieces(UNPACK_TYPES_PIECES, UNPACK_TYPES)
            .m(0, 0, &[(0, ".UNPACK_B")])
            .o(r(16))
            .o(r(32).suffix(sfx)),
        );
    }
    // `.TF32.F32.PACK_B Rd, B`: no PTX of the corpus gives it; SM89 rejects every other
    // destination type, SM90 prints them `.???n`, so the type is a constant.
    v.push(
        fs("F2FP", arches, 0x00000000ff05723e, 0x00000000024050ff)
            .m(75, 1, relu)
            .m(0, 0, &[(0, ".TF32.F32.PACK_B")])
            .o(r(16))
            .o(r(32)),
    );
}
