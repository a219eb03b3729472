//! Half precision: HADD2, HMUL2, HFMA2 (with its `.MMA` twin), HSET2, HSETP2 and HMNMX2 in
//! every operand form ptxas emits (issue 12).
//!
//! Fields, probed with nvdisasm 13.5 by flipping bits of ptxas's words from the generated
//! PTX corpus on every SM (black box: the printed text only):
//! - A: register 24-31, negate 72, |.| 73, swizzle 74-75; B (register in the B slot):
//!   32-39, negate 63, |.| 62, swizzle 60-61; a register in the C slot (HFMA2's C, or B
//!   of the immediate forms): 64-71, negate 84, |.| 83, swizzle 81-82. Swizzles print after
//!   the operand, its `|..|` and its `.reuse`: 0 nothing, 1 `.F32`, 2 `.H0_H0`, 3
//!   `.H1_H1` ([`crate::typed::Swizzle`]). On SM90 `.F32` prints `.INVALID1` except for
//!   HFMA2's register B, so those forms refuse it there. HFMA2's bit 86 next to B's
//!   swizzle prints `.INVALID6` (SM86+) and is a constant.
//! - Two f16 immediates (selector 0x4 / 0x8): high half 48-63 printed first, low 32-47.
//!   A constant bank (selector 0x6): `c[0x2] [0x0]`, with a blank, and B's flags.
//! - `.F32` output 78 and `.BF16_V2` 85 are one field (nvdisasm rejects both at once);
//!   in the immediate forms both change how the immediates print (one f32, or bf16
//!   halves), so they are constants there. `.FTZ` 80 (with `.FMZ` 76 in HMUL2/HFMA2),
//!   `.SAT` 77. HFMA2's `.RELU` (79) adds a predicate operand (87-90, hidden when PT)
//!   and is a twin form of the register forms (SM80+; SM75 ignores the bit); a constant
//!   in the immediate forms. HMNMX2's `.F32` prints `.INVALID1` on SM90.
//! - Reuse slots: A 0; B 2 in HADD2/HSET2/HSETP2 (as FADD), 1 in HMUL2/HMNMX2/HFMA2;
//!   HFMA2's C 2 (read from ptxas's control codes).
//! - HSET2/HSETP2: comparison 76-79 (FSETP's table), `.BF` 71 (HSET2: 1.0 rather than
//!   all ones), `.H_AND` 71 (HSETP2: both halves into the first predicate), logic 69-70,
//!   `.FTZ` 80; SM90's `.BF16_V2` is bit 65 (64 prints `.INVALID1`: constant).
//! - HMNMX2 (SM80+): `.NAN` 81 / `.XORSIGN` 82 (one field), the selecting predicate
//!   87-89 with its not 90; SM80 has no `.F32` or `.XORSIGN`; SM90's bit 65 (`.IS_A`)
//!   adds operands and is a constant.

use super::*;

const SAT: [(u64, &str); 2] = [(0, ""), (1, ".SAT")];
const FTZ: [(u64, &str); 2] = [(0, ""), (1, ".FTZ")];
/// `.F32` (78) and `.BF16_V2` (85) as one field.
const OUT_PIECES: &[(u8, u8)] = &[(78, 1), (85, 1)];
const OUT: [(u64, &str); 3] = [(0, ""), (1, ".F32"), (2, ".BF16_V2")];
const OUT_NO_BF16: [(u64, &str); 2] = [(0, ""), (1, ".F32")];
/// HFMA2's `.FTZ`/`.FMZ` field on SM90, where both bits print `.OOB`.
const FTZ_FMZ_OOB: [(u64, &str); 4] = [(0, ""), (1, ".FTZ"), (2, ".FMZ"), (3, ".OOB")];
const OUT_NO_F32: [(u64, &str); 2] = [(0, ""), (2, ".BF16_V2")];

/// The architectures of a form, split by whether `.F32` swizzles are legal (before SM90).
const GROUPS: [(&[Arch], bool); 2] = [(PRE90, true), (&[Sm90], false)];

fn sw(o: Opnd, f32_ok: bool) -> Opnd {
    if f32_ok {
        o
    } else {
        o.no_f32()
    }
}
fn ha(f32_ok: bool) -> Opnd {
    sw(r(24).neg(72).abs(73).reuse(0).swz(74), f32_ok)
}
fn hb(slot: u8, f32_ok: bool) -> Opnd {
    sw(r(32).neg(63).abs(62).reuse(slot).swz(60), f32_ok)
}
fn hc(slot: u8, f32_ok: bool) -> Opnd {
    sw(r(64).neg(84).abs(83).reuse(slot).swz(81), f32_ok)
}
fn imm_hi() -> Opnd {
    Opnd::new(OpndKind::F16, 48, 16)
}
fn imm_lo() -> Opnd {
    Opnd::new(OpndKind::F16, 32, 16)
}

pub(super) fn half(v: &mut Vec<Form>) {
    add_mul(v);
    fma(v);
    compare(v);
    minmax(v);
}

/// HADD2 and HMUL2: register (0x230/0x232), two immediates (0x430, 0x832) and, for
/// HADD2, a constant bank (0x630).
fn add_mul(v: &mut Vec<Form>) {
    // HADD2 Rd, A, B: output type 78 (`.F32`; SM90 also 85 `.BF16_V2`), .FTZ 80, .SAT 77.
    // From SM86 on, A's |.| (73) is ignored with `.F32` (nvdisasm prints `R0` with the bit
    // set; found by the from-scratch test), so `.F32` is a form of its own there, with 73
    // a constant, and its A has no reuse slot (nvdisasm rejects slots 0 and 1: found by
    // the random-field test).
    let hadd2 = |arches: &[Arch], out: &[(u64, &'static str)], f32_ok: bool| {
        fs("HADD2", arches, 0xa00000ff00007230, 0x0000000000002800)
            .m_pieces(OUT_PIECES, out)
            .m(80, 1, &FTZ)
            .m(77, 1, &SAT)
            .o(r(16))
            .o(ha(f32_ok))
            .o(hb(2, f32_ok))
    };
    v.push(hadd2(&[Sm75, Sm80], &OUT_NO_BF16, true));
    v.push(hadd2(&[Sm86, Sm89], &OUT_NO_BF16[..1], true));
    v.push(hadd2(&[Sm90], &OUT_NO_F32, false));
    for (arches, f32_ok) in [(&[Sm86, Sm89][..], true), (&[Sm90][..], false)] {
        v.push(
            fs("HADD2", arches, 0x0000000500057230, 0x0000000000004000)
                .m(0, 0, &[(0, ".F32")])
                .m(80, 1, &FTZ)
                .m(77, 1, &SAT)
                .o(r(16))
                .o(sw(r(24).neg(72).swz(74), f32_ok))
                .o(hb(2, f32_ok)),
        );
    }
    for (arches, f32_ok) in GROUPS {
        let sm90 = !f32_ok;
        v.push(
            fs("HADD2", arches, 0x7bff7bff00007430, 0x0000000000000800)
                .m(80, 1, &FTZ)
                .m(77, 1, &SAT)
                .o(r(16))
                .o(ha(f32_ok))
                .o(imm_hi())
                .o(imm_lo()),
        );
        v.push(
            fs("HADD2", arches, 0x10800000ff047630, 0x0000000000000900)
                .m(80, 1, &FTZ)
                .m(77, 1, &SAT)
                .o(r(16))
                .o(ha(f32_ok))
                .o(sw(cb().neg(63).abs(62).swz(60).cb_blank(), f32_ok)),
        );
        // HMUL2 Rd, A, B: SM90 prints 78 as `.INVALID1` (constant there) and has 85.
        let out: &[(u64, &str)] = if sm90 { &OUT_NO_F32 } else { &OUT_NO_BF16 };
        v.push(
            fs("HMUL2", arches, 0x0000000600057232, 0x0000000000000000)
                .m_pieces(OUT_PIECES, out)
                .m_pieces(FTZ_FMZ_PIECES, FTZ_FMZ)
                .m(77, 1, &SAT)
                .o(r(16))
                .o(ha(f32_ok))
                .o(hb(1, f32_ok)),
        );
        v.push(
            fs("HMUL2", arches, 0xfe00fe0000007832, 0x0000000000000800)
                .m_pieces(FTZ_FMZ_PIECES, FTZ_FMZ)
                .m(77, 1, &SAT)
                .o(r(16))
                .o(ha(f32_ok))
                .o(imm_hi())
                .o(imm_lo()),
        );
    }
}

/// HFMA2 Rd, A, B, C: registers (0x231), immediates in C (0x431) or B (0x831); HFMA2.MMA
/// with registers (0x235) and an immediate B (0x835) on SM80+ (0x435 is in `float.rs`).
fn fma(v: &mut Vec<Form>) {
    for (arches, out, f32_ok) in [
        (&[Sm75][..], &OUT_NO_BF16[..], true),
        (SM80_89, &OUT[..], true),
        (&[Sm90][..], &OUT[..], false),
    ] {
        // SM90 prints `.FTZ` + `.FMZ` (3) as `.OOB`; before, `.INVALID3` (refused).
        let dn: &[(u64, &str)] = if f32_ok { FTZ_FMZ } else { &FTZ_FMZ_OOB };
        let regs = |f: Form| {
            f.o(r(16))
                .o(ha(f32_ok))
                // B's `.F32` is legal on SM90 too.
                .o(hb(1, true))
                .o(hc(2, f32_ok))
        };
        v.push(regs(
            fs("HFMA2", arches, 0x2000000500007231, 0x0000000000042804)
                .m_pieces(OUT_PIECES, out)
                .m_pieces(FTZ_FMZ_PIECES, dn)
                .m(77, 1, &SAT),
        ));
        // SM75 has no `.RELU` (bit 79 is ignored there: a constant).
        if arches != [Sm75] {
            v.push(relu(regs(
                fs("HFMA2", arches, 0x0000000500057231, 0x0000000003808004)
                    .m_pieces(OUT_PIECES, out)
                    .m_pieces(FTZ_FMZ_PIECES, dn),
            )));
        }
        v.push(
            fs("HFMA2", arches, 0x017bff0000057431, 0x0000000000000005)
                .m(78, 1, &OUT_NO_BF16)
                .m_pieces(FTZ_FMZ_PIECES, dn)
                .m(77, 1, &SAT)
                .o(r(16))
                .o(ha(f32_ok))
                .o(hc(1, true))
                .o(imm_hi())
                .o(imm_lo()),
        );
        v.push(
            fs("HFMA2", arches, 0x017bff0000057831, 0x0000000000000005)
                .m(78, 1, &OUT_NO_BF16)
                .m_pieces(FTZ_FMZ_PIECES, dn)
                .m(77, 1, &SAT)
                .o(r(16))
                .o(ha(f32_ok))
                .o(imm_hi())
                .o(imm_lo())
                .o(hc(2, f32_ok)),
        );
    }
    // HFMA2.MMA: no swizzles; 78 prints `.INVALID1` (constant); `.BF16_V2` 85 on SM90
    // only (SM80-SM89 ignore the bit: constant there).
    for (arches, bf16) in [(SM80_89, false), (&[Sm90][..], true)] {
        let f = fs("HFMA2", arches, 0x0000000500057235, 0x0000000000012004).m(0, 0, &[(0, ".MMA")]);
        let f = if bf16 {
            f.m(85, 1, &[(0, ""), (1, ".BF16_V2")])
        } else {
            f
        };
        let regs = |f: Form| {
            f.o(r(16))
                .o(r(24).neg(72).abs(73).reuse(0))
                .o(r(32).neg(63).abs(62).reuse(1))
                .o(r(64).neg(84).abs(83).reuse(2))
        };
        let ftz = f.m_pieces(FTZ_FMZ_PIECES, FTZ_FMZ);
        v.push(regs(ftz.clone().m(77, 1, &SAT)));
        let mut r = relu(regs(ftz));
        r.sample = Word::from_halves(0x0000000500057235, 0x0000000003818004);
        v.push(r);
    }
    v.push(
        fs("HFMA2", SM80UP, 0x3c003c0002037835, 0x0000000000000005)
            .m(0, 0, &[(0, ".MMA")])
            .m_pieces(FTZ_FMZ_PIECES, FTZ_FMZ)
            .m(77, 1, &SAT)
            .o(r(16))
            .o(r(24).neg(72).abs(73).reuse(0))
            .o(imm_hi())
            .o(imm_lo())
            .o(r(64).neg(84).abs(83).reuse(2)),
    );
}

/// The `.RELU` twin of an HFMA2 form (bit 79; negative results become 0): a predicate
/// operand 87-89 (not 90) follows, unprinted when it is PT; `.SAT` cannot go with it
/// (nvdisasm rejects the pair), so the form's sample has bit 77 clear.
fn relu(f: Form) -> Form {
    f.m(79, 1, &[(1, ".RELU")]).o(p(87).not(90).hide(7))
}

/// HSET2.[BF.]cmp[.FTZ].logic Rd, A, B, Pp and HSETP2.cmp[.H_AND][.FTZ].logic Pd, Pq, A,
/// B, Pp.
fn compare(v: &mut Vec<Form>) {
    for (arches, f32_ok) in GROUPS {
        let bf16 = |f: Form| {
            if f32_ok {
                f
            } else {
                f.m(65, 1, &[(0, ""), (1, ".BF16_V2")])
            }
        };
        v.push(
            bf16(fs("HSET2", arches, 0x3000000000007233, 0x0000000003806800))
                .m(71, 1, &[(0, ""), (1, ".BF")])
                .m(76, 4, &FCMP)
                .m(80, 1, &FTZ)
                .m(69, 2, &LOGIC)
                .o(r(16))
                .o(ha(f32_ok))
                .o(hb(2, f32_ok))
                .o(p(87).not(90)),
        );
        v.push(
            bf16(fs("HSETP2", arches, 0x0000000500007234, 0x0000000003911000))
                .m(76, 4, &FCMP)
                .m(71, 1, &[(0, ""), (1, ".H_AND")])
                .m(80, 1, &FTZ)
                .m(69, 2, &LOGIC)
                .o(p(81))
                .o(p(84))
                .o(ha(f32_ok))
                .o(hb(2, f32_ok))
                .o(p(87).not(90)),
        );
    }
}

/// HMNMX2[.F32|.BF16_V2][.FTZ][.NAN|.XORSIGN] Rd, A, B, Pp (SM80+).
fn minmax(v: &mut Vec<Form>) {
    for (arches, out, nan, f32_ok) in [
        (
            &[Sm80][..],
            &OUT_NO_F32[..],
            &[(0, ""), (1, ".NAN")][..],
            true,
        ),
        (
            &[Sm86, Sm89][..],
            &OUT[..],
            &[(0, ""), (1, ".NAN"), (2, ".XORSIGN")][..],
            true,
        ),
        (
            &[Sm90][..],
            &OUT_NO_F32[..],
            &[(0, ""), (1, ".NAN"), (2, ".XORSIGN")][..],
            false,
        ),
    ] {
        v.push(
            fs("HMNMX2", arches, 0x2000000500007240, 0x0000000007810800)
                .m_pieces(OUT_PIECES, out)
                .m(80, 1, &FTZ)
                .m_pieces(&[(81, 1), (82, 1)], nan)
                .o(r(16))
                .o(ha(f32_ok))
                .o(hb(1, f32_ok))
                .o(p(87).not(90)),
        );
    }
}
