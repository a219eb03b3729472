//! Operand variants of forms defined elsewhere: the same operation with a constant-bank,
//! uniform-register or immediate source in place of a register (the operand-form selector,
//! bits 9-11, picks which). Each was probed bit by bit with nvdisasm on its SMs: the
//! modifier fields are those of the register form, the new source sits where `abc` puts
//! it. Samples come from ptxas output where the corpus has one; the others (FFMA's uniform
//! and c-bank C sources) are the register form's
//! ptxas sample with its selector changed, every other bit left as ptxas wrote it, except bit 91, which
//! uniform-register sources need set (as in every ptxas sample that has one).

use super::*;

/// Replaces the operand-form selector (bits 9-11) of a sample's low half.
fn with_sel(lo: u64, sel: u64) -> u64 {
    (lo & !0xe00) | sel << 8
}

pub(super) fn float_variants(v: &mut Vec<Form>) {
    let rnd = [(0, ""), (1, ".RM"), (2, ".RP"), (3, ".RZ")];
    let ftz = [(0, ""), (1, ".FTZ")];
    let sat = [(0, ""), (1, ".SAT")];
    let fa = || r(24).neg(72).abs(73).reuse(0);
    // FMUL with B a constant (0xa) or a uniform register (0xc): B's negate 63, |.| 62.
    // (FADD's are not modelled: FADD adds its C slot, and no ptxas sample was seen.)
    for (name, lo, hi) in [
        ("FMUL", 0x00005c0015157a20u64, 0x000fc80000400000u64),
        ("FMUL", 0x0000000815157c20, 0x000fc80008400000),
    ] {
        let b = if lo & 0xe00 == 0xa00 { cb() } else { ur(32) };
        v.push(
            fs(name, ALL, lo, hi)
                .m(80, 1, &ftz)
                .m(78, 2, &rnd)
                .m(77, 1, &sat)
                .o(r(16))
                .o(fa())
                .o(b.neg(63).abs(62)),
        );
    }
    // FFMA with a constant B (0xa) or C (0x6), a uniform B (0xc) or C (0xe): C's negate 75,
    // |.| 74; a register B in the C slot (64-71) takes reuse slot 1.
    let ffma = 0x0000000503057223u64;
    for (lo, hi) in [
        (0x00005c0015147a23u64, 0x004fca00000000ffu64),
        (with_sel(ffma, 0x6), 0x000fd00000000806),
        (with_sel(ffma, 0xc), 0x000fd00008000806),
        (with_sel(ffma, 0xe), 0x000fd00008000806),
    ] {
        let (b, c) = match lo & 0xe00 {
            0xa00 => (cb().neg(63).abs(62), r(64).neg(75).abs(74).reuse(2)),
            0x600 => (r(64).neg(75).abs(74).reuse(1), cb().neg(63).abs(62)),
            0xc00 => (ur(32).neg(63).abs(62), r(64).neg(75).abs(74).reuse(2)),
            _ => (r(64).neg(75).abs(74).reuse(1), ur(32).neg(63).abs(62)),
        };
        v.push(
            fs("FFMA", ALL, lo, hi)
                .m_pieces(FTZ_FMZ_PIECES, FTZ_FMZ)
                .m(78, 2, &rnd)
                .m(77, 1, &sat)
                .o(r(16))
                .o(fa())
                .o(b)
                .o(c),
        );
    }
    // I2F / I2FP.F32 from a uniform register (0xd06 / 0xc45): as from a register (bit 74
    // = 1 signed, I2F's rounding 78-79), B a uniform register at 32.
    v.push(
        fs("I2F", ALL, 0x0000000400157d06, 0x001fe20008201400)
            .m(74, 1, &[(1, ""), (0, ".U32")])
            .m(78, 2, &rnd)
            .o(r(16))
            .o(ur(32)),
    );
    v.push(
        fs(
            "I2FP",
            &[Sm86, Sm89, Sm90],
            0x0000000400157c45,
            0x001fe20008201400,
        )
        .m(0, 0, &[(0, ".F32")])
        .m(74, 1, &[(1, ".S32"), (0, ".U32")])
        // Rounding 78-79 as in the register form (`.RZ`; found by the generated corpus).
        .m(78, 2, &[(0, ""), (3, ".RZ")])
        .o(r(16))
        .o(ur(32)),
    );
}

pub(super) fn integer_variants(v: &mut Vec<Form>) {
    // IABS Rd, URb (0xc13): B a uniform register at 32.
    v.push(
        fs("IABS", ALL, 0x0000001600027c13, 0x000fe20008000000)
            .o(r(16))
            .o(ur(32)),
    );
    // PRMT Rd, A, imm32, C (0x816): the selector is an immediate at 32, C at 64.
    let [a, b, c] = abc(0x8, uimm(32, 32), false);
    v.push(
        fs("PRMT", ALL, 0x000077101b1b7816, 0x000fc800000000ff)
            .m(72, 3, super::integer::PRMT_MODES)
            .o(r(16))
            .o(a)
            .o(b)
            .o(c),
    );
    // VIADD Rd, A, URb (SM90, 0xc36): B a uniform register at 32, negated by bit 63
    // (`VIADD R16, R16, -UR4`, from a fuzz program's loop count).
    v.push(
        fs("VIADD", &[Sm90], 0x0000002800057c36, 0x002fe40008000000)
            .o(r(16))
            .o(r(24).reuse(0))
            .o(ur(32).neg(63)),
    );
}
