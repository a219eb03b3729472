//! Forms found by the generated PTX corpus (`tests/generated.rs`, issue 12), each probed
//! with nvdisasm on ptxas words of the corpus, bit by bit and value by value, on SM75,
//! SM86 and SM90 (the from-scratch and random-field tests check every SM).

use super::*;

/// A modifier's table of values.
type Values = &'static [(u64, &'static str)];

pub(super) fn generated(v: &mut Vec<Form>) {
    // MUFU.fn.F16 / .BF16 Rd, B[.H1] (0x308; `ex2.approx.f16`, `tanh.approx.bf16`): the
    // type is bit 73 before SM90 (bit 72 ignored there) and 72-73 on SM90 (1 `.F16`,
    // 2 `.BF16`, 3 illegal); B's half select 60-61 (1 `.H1`, 2 and 3 `.INVALIDn`) is a
    // form each, the suffix printed after the register. With the F32 type bits 60-61 are
    // ignored (constants of the F32 form).
    let types: [(&[Arch], u8, u8, Values); 2] = [
        (PRE90, 73, 1, &[(1, ".F16")]),
        (&[Sm90], 72, 2, &[(1, ".F16"), (2, ".BF16")]),
    ];
    for (arches, at, width, tys) in types {
        for (h1, sfx) in [(0u64, ""), (1, ".H1")] {
            v.push(
                fs(
                    "MUFU",
                    arches,
                    0x0000000000057308 | h1 << 60,
                    0x0000000000000a00,
                )
                .m(74, 4, MUFU_FUNCS_NO_64H)
                .m(at, width, tys)
                .o(r(16))
                .o(r(32).neg(63).abs(62).suffix(sfx)),
            );
        }
    }
    // CS2R.32 Rd, SR (0x805 with bit 80 clear; `mov.u32 %r, %clock`, `%pmN`): one
    // register, special register 72-79.
    v.push(
        Form::new("CS2R", 0x805, ALL, 0x0000000000007805, 0x0000000000005100)
            .m(0, 0, &[(0, ".32")])
            .o(r(16))
            .o(Opnd::new(OpndKind::SReg, 72, 8)),
    );
    // IDP.{4A,2A.LO,2A.HI}.A.B Rd, A, B, C (dp4a/dp2a): the mode is 76-77 (0 .4A, 1
    // .2A.LO, 3 .2A.HI, 2 illegal) and A's signedness 73 (set: signed), printed together
    // (.4A.S8, .2A.HI.U16), so one field; B's signedness 74 (.U8/.S8); C may be negated
    // (75). B a register (0x226), a constant (0xa26) or a uniform register (0xc26).
    let modes: &[(u64, &str)] = &[
        (0, ".4A.U8"),
        (1, ".4A.S8"),
        (2, ".2A.LO.U16"),
        (3, ".2A.LO.S16"),
        (6, ".2A.HI.U16"),
        (7, ".2A.HI.S16"),
    ];
    for (lo, hi) in [
        (0x0000000500057226u64, 0x0000000000003604u64),
        (0x0080000004057a26, 0x00000000000000ff),
        (0x0000000600007c26, 0x0000000008000005),
    ] {
        let sel = ((lo >> 8) & 0xe) as u16;
        let [a, b, c] = abc(sel, uimm(32, 32), true);
        v.push(
            fs("IDP", ALL, lo, hi)
                .m_pieces(&[(73, 1), (76, 2)], modes)
                .m(74, 1, &[(0, ".U8"), (1, ".S8")])
                .o(r(16))
                .o(a)
                .o(b)
                .o(c),
        );
    }
    // I2IP.dst.S32.SAT Rd, A, B, C[.H1] (cvt.pack.sat): destination type 76-77 (.U8 .S8
    // .U16 .S16); C's half select 72-73 (1 `.H1`; a form each). The saturation field
    // 74-75 differs by SM: ignored on SM75 and SM80 (always `.SAT`); on SM86 and SM89
    // 0 `.SAT`, 1 nothing, 2 `.SATRELU`; on SM90 0 nothing, 1 `.SAT`, 2 `.SATRELU` (3
    // prints `.INVALID3`).
    let dst: &[(u64, &str)] = &[(0, ".U8"), (1, ".S8"), (2, ".U16"), (3, ".S16")];
    let sats: [(&[Arch], u64, Values); 3] = [
        (&[Sm75, Sm80], 0x1004, &[]),
        (
            &[Sm86, Sm89],
            0x1004,
            &[(0, ".SAT"), (1, ""), (2, ".SATRELU")],
        ),
        (&[Sm90], 0x1404, &[(0, ""), (1, ".SAT"), (2, ".SATRELU")]),
    ];
    for (arches, hi, sat) in sats {
        for (h1, sfx) in [(0u64, ""), (1, ".H1")] {
            let f = fs("I2IP", arches, 0x0000000500057239, hi | h1 << 8).m(76, 2, dst);
            let f = if sat.is_empty() {
                f.m(0, 0, &[(0, ".S32.SAT")])
            } else {
                f.m(0, 0, &[(0, ".S32")]).m(74, 2, sat)
            };
            v.push(f.o(r(16)).o(r(24)).o(r(32)).o(r(64).suffix(sfx)));
        }
    }
}

/// PLOP3.LUT with general-register sources (0x21f; `lop3.b32` into a predicate): each
/// source's sign bit, printed `R0.SIGN`; A 24, B 32, C 64 with reuse slots 0-2
/// (`R0.reuse.SIGN`), Pd 81-83, Pq 84-86, the LUT 72-79 and the second LUT 16-23.
/// Probed on SM90; the from-scratch test checks every SM.
pub(super) fn plop3_sign(v: &mut Vec<Form>) {
    v.push(
        fs("PLOP3", ALL, 0x000000050000721f, 0x0000000000700204)
            .m(0, 0, &[(0, ".LUT")])
            .o(p(81))
            .o(p(84))
            .o(r(24).reuse(0).suffix(".SIGN"))
            .o(r(32).reuse(1).suffix(".SIGN"))
            .o(r(64).reuse(2).suffix(".SIGN"))
            .o(uimm(72, 8))
            .o(uimm(16, 8)),
    );
}

/// BAR beyond `BAR.SYNC id[, count]` (0xb1d): bits 77-78 are the mode (0 SYNC, 1 ARV,
/// 2 RED, 3 SCAN, not modelled), 74-75 RED's operation (0 `.POPC`, 1 `.AND`, 2 `.OR`),
/// 87-90 RED's predicate; `.DEFER_BLOCKING` (bit 80; a constant 0 on SM75, where ptxas
/// does not set it) is illegal with ARV, whose thread count is always printed. With opcode 0x51d
/// the barrier id is a register (32-39), the count an immediate (42-53, hidden when 0).
/// (0x31d, id and count in registers, prints both from bits 32-39: not modelled.) Probed
/// on SM86; samples from `bar.red`, `bar.arrive` and `barrier.sync %r` in the corpus.
pub(super) fn bar_variants(v: &mut Vec<Form>) {
    let ops: &[(u64, &str)] = &[(0, ".POPC"), (1, ".AND"), (2, ".OR")];
    let defer: &[(u64, &str)] = &[(0, ""), (1, ".DEFER_BLOCKING")];
    for (arches, sm80) in [(&[Sm75][..], false), (SM80UP, true)] {
        v.push(
            fs("BAR", arches, 0x0080800000007b1d, 0x0000000000002000)
                .no_write_sb()
                .m(0, 0, &[(0, ".ARV")])
                .o(uimm(54, 4))
                .o(uimm(42, 12)),
        );
        let red = fs("BAR", arches, 0x0000000000007b1d, 0x0000000000004000)
            .no_write_sb()
            .m(0, 0, &[(0, ".RED")])
            .m(74, 2, ops);
        let red = if sm80 { red.m(80, 1, defer) } else { red };
        v.push(red.o(uimm(54, 4)).o(uimm(42, 12).hide(0)).o(p(87).not(90)));
        let sync = fs("BAR", arches, 0x000000020000751d, 0x0000000000000000)
            .no_write_sb()
            .m(0, 0, &[(0, ".SYNC")]);
        let sync = if sm80 { sync.m(80, 1, defer) } else { sync };
        v.push(sync.o(r(32)).o(uimm(42, 12).hide(0)));
    }
}

/// SM90's `R2UR.OR Pd, URd, Ra` (0x2ca with bit 84 set; the predicate result of a
/// uniform-register move that ORs the lanes, from `elect`/`redux` code): Pd 81-83 is
/// always printed. Probed on SM90.
pub(super) fn r2ur_or(v: &mut Vec<Form>) {
    v.push(
        fs("R2UR", &[Sm90], 0x00000000050502ca, 0x0000000000120000)
            .m(0, 0, &[(0, ".OR")])
            .o(p(81))
            .o(ur(16))
            .o(r(24).reuse(0)),
    );
}

/// I2F[.F16].U32/.S32[.rnd] Rd, imm32 (0x906; `cvt.rp.f32.u32` of a constant): the
/// layout of the register form 0x306 with a 32-bit immediate at 32, printed unsigned
/// for `.U32` and signed for S32, so one form per signedness (bit 74) with the integer
/// size a constant 32 bits. Probed on SM86.
pub(super) fn i2f_imm(v: &mut Vec<Form>) {
    let rnd: &[(u64, &str)] = &[(0, ""), (1, ".RM"), (2, ".RP"), (3, ".RZ")];
    let floats: [(&[Arch], u8, Values); 2] = [
        (PRE90, 2, &[(1, ".F16"), (2, "")]),
        (&[Sm90], 3, &[(1, ".F16"), (2, ""), (4, ".BF16")]),
    ];
    for (arches, width, fl) in floats {
        for (signed, ty, imm) in [(0u64, ".U32", uimm(32, 32)), (1, "", simm(32, 32))] {
            v.push(
                fs(
                    "I2F",
                    arches,
                    0x0000001000007906,
                    0x0000000000209000 | signed << 10,
                )
                .m(75, width, fl)
                .m(0, 0, &[(0, ty)])
                .m(78, 2, rnd)
                .o(r(16))
                .o(imm),
            );
        }
    }
}

/// F2FP, the packing conversion of two F32 values to F16x2 or BF16x2 (0x23e; `cvt.rn.f16x2.f32`,
/// `cvt.rn.relu.bf16x2.f32`): `.PACK_AB Rd, A, B` (A 24, B 32) and `.MERGE_C Rd, B, C`
/// (bit 78 set: one value merged into C's other half, C 64). Fields: `.SATFINITE` 77,
/// `.RELU` 75, BF16 76, printed in that order; `.RZ` is 79-80 = 3 (1 and 2 are illegal or
/// `???n`). SM80 and SM86 print the type as `.BF16` or nothing, SM89 and SM90 as
/// `.F16.F32`/`.BF16.F32`, and there the destination type is 76 with 86-87
/// (`convert_fp8::F2FP_DST`: also `.TF32`, `.E5M2`, `.E4M3`). The fp8 layouts are in
/// `convert_fp8.rs`; `.RS` (bit 81) is not modelled. Probed on SM80, SM89 and SM90.
pub(super) fn f2fp(v: &mut Vec<Form>) {
    // (arches, type field, its values, whether the source `.F32` prints)
    type Types = (&'static [Arch], &'static [crate::form::Piece], Values, bool);
    let types: [Types; 2] = [
        (&[Sm80, Sm86], &[(76, 1)], &[(0, ""), (1, ".BF16")], false),
        (
            &[Sm89, Sm90],
            super::convert_fp8::F2FP_DST_PIECES,
            super::convert_fp8::F2FP_DST,
            true,
        ),
    ];
    for (arches, pieces, tys, prints_f32) in types {
        let head = |f: Form| {
            let f = f
                .m(77, 1, &[(0, ""), (1, ".SATFINITE")])
                .m(75, 1, &[(0, ""), (1, ".RELU")])
                .m_pieces(pieces, tys);
            if prints_f32 {
                f.m(0, 0, &[(0, ".F32")])
            } else {
                f
            }
        };
        v.push(
            head(fs("F2FP", arches, 0x000000050005723e, 0x00000000000000ff))
                .m(0, 0, &[(0, ".PACK_AB")])
                .m(79, 2, &[(0, ""), (3, ".RZ")])
                .o(r(16))
                .o(r(24))
                .o(r(32)),
        );
        // `.PACK_AB Rd, A, imm` (0x83e: B an f32 immediate at 32-63; `atomicAdd(__half2*)`
        // packing a constant; bits 64-71 ignored by nvdisasm, ptxas's 0xff). Issue 12.
        v.push(
            head(fs("F2FP", arches, 0x3f0000000006783e, 0x00000000000000ff))
                .m(0, 0, &[(0, ".PACK_AB")])
                .m(79, 2, &[(0, ""), (3, ".RZ")])
                .o(r(16))
                .o(r(24))
                .o(f32i(32)),
        );
        v.push(
            head(fs("F2FP", arches, 0x00000000ff00723e, 0x00000000000040ff))
                .m(0, 0, &[(0, ".MERGE_C")])
                .m(79, 2, &[(0, ""), (3, ".RZ")])
                .o(r(16))
                .o(r(32))
                .o(r(64)),
        );
    }
}

/// Cache control on an address (`prefetch.global.L1`, `applypriority`, `discard`):
/// `CCTL.E.op [Ra+off]` (0x98f with bit 72, `.E`; the address as SM75's global ones, a
/// signed 32-bit offset at 32) and `CCTLL.op [Ra+off]` (0x990, local: the address as a
/// shared one). The operation is 87-90: 0 `.PF1`, 1 `.PF2`, 2 `.WB`, 3 `.IV`, 5 `.RS`,
/// and from SM80 9 `.PML2`, 10 `.DML2`, 11 `.RML2` (CCTL only); other values are illegal.
/// Bits 78-80 (`.U`, `.C`) are constants. Probed on SM75, SM86 and SM90.
pub(super) fn cctl(v: &mut Vec<Form>) {
    let ops: &[(u64, &str)] = &[(0, ".PF1"), (1, ".PF2"), (2, ".WB"), (3, ".IV"), (5, ".RS")];
    let l2: &[(u64, &str)] = &[
        (0, ".PF1"),
        (1, ".PF2"),
        (2, ".WB"),
        (3, ".IV"),
        (5, ".RS"),
        (9, ".PML2"),
        (10, ".DML2"),
        (11, ".RML2"),
    ];
    for (arches, table) in [(&[Sm75][..], ops), (SM80UP, l2)] {
        let mut addr = mem(MemFmt::Global, 0);
        addr.offset = vec![(32, 32)];
        v.push(
            fs("CCTL", arches, 0x000000000200798f, 0x0000000000000100)
                .no_sb()
                .m(0, 0, &[(0, ".E")])
                .m(87, 4, table)
                .o(addr),
        );
    }
    v.push(
        fs("CCTLL", ALL, 0x0000000002007990, 0x0000000000000000)
            .no_sb()
            .m(87, 3, ops)
            .o(shared(None)),
    );
}

/// LDSM.16.shape[.count] Rd, [Ra+off] (0x83b; `ldmatrix`): the shape 78-79 (`.M88`,
/// `.MT88` transposed, `.M816`, `.M832`), the matrix count 72-73 (one, `.2`, `.4`; 3 prints
/// `.INVALID3`) giving 1, 2 or 4 destination registers (odd ones accepted), the shared
/// address as LDS's, with or without a uniform register (bit 91). Probed on SM75,
/// SM86 and SM90.
pub(super) fn ldsm(v: &mut Vec<Form>) {
    // With bit 91 set a uniform register (32-37) is added to the address, `[R0+UR4]`
    // (SM90's ptxas words). Modelled from SM80: SM75 prints the offset unsigned after a
    // uniform register with an RZ base (`[UR29+0xfffff6]`; found by the random-field
    // test), where SM80-SM90 print it signed.
    let shapes: &[(u64, &str)] = &[(0, ".M88"), (1, ".MT88"), (2, ".M816"), (3, ".M832")];
    for (arches, bit91, ureg) in [(ALL, 0u64, None), (SM80UP, 1 << 27, Some(32))] {
        v.push(
            fs(
                "LDSM",
                arches,
                0x000000000004783b,
                0x0000000000004100 | bit91,
            )
            .m(0, 0, &[(0, ".16")])
            .m(78, 2, shapes)
            .m(72, 2, &[(0, ""), (1, ".2"), (2, ".4")])
            .o(r(16))
            .o(shared(ureg)),
        );
    }
}
