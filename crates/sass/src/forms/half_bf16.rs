//! HFMA2 with bfloat16 immediates (`.BF16_V2`, bit 85): in the immediate forms the bit
//! makes nvdisasm print both immediates as bf16 halves ([`OpndKind::Bf16`]), so these are
//! forms of their own beside `half.rs`'s f16 ones. Probed with nvdisasm 13.5 on ptxas's
//! words (`fma.rn.bf16x2` with constants; the generated and CUDA corpora) and on the
//! f16 forms' samples with bit 85 set: HFMA2 0x431 and 0x831 print `.BF16_V2` on SM80-SM90,
//! HFMA2.MMA 0x835 on SM90 only (SM80-SM89 ignore bit 85 there, a constant of the f16
//! form). `.F32` (78) cannot go with `.BF16_V2` (nvdisasm rejects the pair), so it is a
//! constant here; `.FTZ`/`.FMZ` and `.SAT` are as in the f16 forms.

use super::*;

const SAT: [(u64, &str); 2] = [(0, ""), (1, ".SAT")];

/// The two bf16 immediates, high half (48-63) printed first.
fn imm_hi() -> Opnd {
    Opnd::new(OpndKind::Bf16, 48, 16)
}
fn imm_lo() -> Opnd {
    Opnd::new(OpndKind::Bf16, 32, 16)
}

pub(super) fn hfma2_bf16(v: &mut Vec<Form>) {
    // SM90 prints `.FTZ` + `.FMZ` as `.OOB`; before, `.INVALID3` (refused).
    let oob: &[(u64, &str)] = &[(0, ""), (1, ".FTZ"), (2, ".FMZ"), (3, ".OOB")];
    for (arches, f32_ok, dn) in [(SM80_89, true, FTZ_FMZ), (&[Sm90][..], false, oob)] {
        let a = || {
            let a = r(24).neg(72).abs(73).reuse(0).swz(74);
            if f32_ok {
                a
            } else {
                a.no_f32()
            }
        };
        // HFMA2.BF16_V2 Rd, A, B, imm, imm (0x431: immediates in C).
        v.push(
            fs("HFMA2", arches, 0x3f803f8000057431, 0x0000000000200005)
                .m(0, 0, &[(0, ".BF16_V2")])
                .m_pieces(FTZ_FMZ_PIECES, dn)
                .m(77, 1, &SAT)
                .o(r(16))
                .o(a())
                .o(r(64).neg(84).abs(83).reuse(1).swz(81))
                .o(imm_hi())
                .o(imm_lo()),
        );
        // HFMA2.BF16_V2 Rd, A, imm, imm, C (0x831: immediates in B).
        v.push(
            fs("HFMA2", arches, 0x3f803f8000057831, 0x0000000000200005)
                .m(0, 0, &[(0, ".BF16_V2")])
                .m_pieces(FTZ_FMZ_PIECES, dn)
                .m(77, 1, &SAT)
                .o(r(16))
                .o(a())
                .o(imm_hi())
                .o(imm_lo())
                .o({
                    let c = r(64).neg(84).abs(83).reuse(2).swz(81);
                    if f32_ok {
                        c
                    } else {
                        c.no_f32()
                    }
                }),
        );
    }
    // HFMA2.MMA.BF16_V2 Rd, A, imm, imm, C (0x835, SM90).
    v.push(
        fs("HFMA2", &[Sm90], 0x3f803f8000057835, 0x0000000000200005)
            .m(0, 0, &[(0, ".MMA")])
            .m(0, 0, &[(0, ".BF16_V2")])
            .m_pieces(FTZ_FMZ_PIECES, FTZ_FMZ)
            .m(77, 1, &SAT)
            .o(r(16))
            .o(r(24).neg(72).abs(73).reuse(0))
            .o(imm_hi())
            .o(imm_lo())
            .o(r(64).neg(84).abs(83).reuse(2)),
    );
}
