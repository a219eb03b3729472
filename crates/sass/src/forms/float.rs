//! Floating point: FADD/FMUL/FFMA, FSETP, FMNMX, MUFU, the double-precision DADD, DSETP
//! and DFMA, HFMA2.MMA and conversions (F2I, I2F, I2FP, ...).

use super::*;

pub(super) fn float(v: &mut Vec<Form>) {
    let rnd = [(0, ""), (1, ".RM"), (2, ".RP"), (3, ".RZ")];
    let ftz = [(0, ""), (1, ".FTZ")];
    let sat = [(0, ""), (1, ".SAT")];
    // Float sources: A 24 (negate 72, |.| 73), B 32 (negate 63, |.| 62), C 64 (negate 75,
    // |.| 74); immediate operands are 32-bit floats at 32.
    let fa = || r(24).neg(72).abs(73).reuse(0);
    let fb = || r(32).neg(63).abs(62).reuse(1);
    // FADD / FMUL: .FTZ 80, rounding 78-79, .SAT 77.
    for (name, lo, hi) in [
        ("FADD", 0x800000ff03007221u64, 0x004fe20000000200u64),
        ("FADD", 0x3f80000004077421, 0x000fe20000000200),
        ("FMUL", 0x0000000203007220, 0x003fe20000410200),
        ("FMUL", 0x3f00000005057820, 0x000fe40000410000),
    ] {
        // FADD's register B takes reuse slot 2 (slot 1 is illegal there: FADD is A + C).
        let b = match (lo & 0xc00 != 0, name) {
            (true, _) => f32i(32),
            (false, "FADD") => r(32).neg(63).abs(62).reuse(2),
            _ => fb(),
        };
        v.push(
            fs(name, ALL, lo, hi)
                .m(80, 1, &ftz)
                .m(78, 2, &rnd)
                .m(77, 1, &sat)
                .o(r(16))
                .o(fa())
                .o(b),
        );
    }
    // FFMA: .FTZ 80, .FMZ 76, rounding 78-79, .SAT 77; B/C by selector.
    for (lo, hi) in [
        (0x0000000503057223u64, 0x000fd00000000806u64),
        (0x4020000003047423, 0x008fc60000000002),
        (0x3f3172180a0e7823, 0x000fca0000000005),
    ] {
        let (b, c) = match lo & 0xe00 {
            0x200 => (fb(), r(64).neg(75).abs(74).reuse(2)),
            0x400 => (r(64).neg(75).abs(74).reuse(1), f32i(32)),
            _ => (f32i(32), r(64).neg(75).abs(74).reuse(2)),
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
    // FSETP.cmp[.FTZ].logic Pd, Pq, A, B, Pp: compare 76-79, .FTZ 80, logic 74-75.
    let fcmp = [
        (0, ".F"),
        (1, ".LT"),
        (2, ".EQ"),
        (3, ".LE"),
        (4, ".GT"),
        (5, ".NE"),
        (6, ".GE"),
        (7, ".NUM"),
        (8, ".NAN"),
        (9, ".LTU"),
        (10, ".EQU"),
        (11, ".LEU"),
        (12, ".GTU"),
        (13, ".NEU"),
        (14, ".GEU"),
        (15, ".T"),
    ];
    for (lo, hi) in [
        (0x000000060300720bu64, 0x000fe20003f2e000u64),
        (0xc2fc00000600780b, 0x040fe40003f0e000),
    ] {
        let b = if lo & 0x800 != 0 { f32i(32) } else { fb() };
        v.push(
            fs("FSETP", ALL, lo, hi)
                .m(76, 4, &fcmp)
                .m(80, 1, &ftz)
                .m(74, 2, &[(0, ".AND"), (1, ".OR"), (2, ".XOR")])
                .o(p(81))
                .o(p(84))
                .o(fa())
                .o(b)
                .o(p(87).not(90)),
        );
    }
    // FMNMX Rd, A, B, Pp (Pp selects min or max).
    for (lo, hi) in [
        (0x0000000203047209u64, 0x000fcc0007800000u64),
        (0x42c8000005057809, 0x000fe40003800000),
    ] {
        let b = if lo & 0x800 != 0 { f32i(32) } else { fb() };
        v.push(
            fs("FMNMX", ALL, lo, hi)
                .m(80, 1, &ftz)
                .o(r(16))
                .o(fa())
                .o(b)
                .o(p(87).not(90)),
        );
    }
    // MUFU.op Rd, B: function 74-77, B at 32 (negate 63, |.| 62).
    v.push(
        fs("MUFU", ALL, 0x4000000300027308, 0x0000680000001400)
            .m(
                74,
                4,
                &[
                    (0, ".COS"),
                    (1, ".SIN"),
                    (2, ".EX2"),
                    (3, ".LG2"),
                    (4, ".RCP"),
                    (5, ".RSQ"),
                    (6, ".RCP64H"),
                    (7, ".RSQ64H"),
                    (8, ".SQRT"),
                ],
            )
            .o(r(16))
            .o(r(32).neg(63).abs(62)),
    );
}

pub(super) fn conversions(v: &mut Vec<Form>) {
    // F2I[.FTZ][.U32][.rnd][.NTZ] Rd, B (F32 to 32-bit integer): .FTZ 80, bit 72 = 1 signed
    // (0 prints .U32), rounding 78-79 (0 none, 1 FLOOR, 2 CEIL, 3 TRUNC), .NTZ 77.
    v.push(
        fs("F2I", ALL, 0x0000000300077305, 0x0000000000203100)
            .m(80, 1, &[(0, ""), (1, ".FTZ")])
            .m(72, 1, &[(1, ""), (0, ".U32")])
            .m(
                78,
                2,
                &[(0, ""), (1, ".FLOOR"), (2, ".CEIL"), (3, ".TRUNC")],
            )
            .m(77, 1, &[(0, ""), (1, ".NTZ")])
            .o(r(16))
            .o(r(32)),
    );
    // I2F[.U32][.rnd] Rd, B (32-bit integer to F32): bit 74 = 1 signed (0 prints .U32),
    // rounding 78-79 (0 none, 1 RM, 2 RP, 3 RZ).
    v.push(
        fs("I2F", ALL, 0x00000000000a7306, 0x0000000000201400)
            .m(74, 1, &[(1, ""), (0, ".U32")])
            .m(78, 2, &[(0, ""), (1, ".RM"), (2, ".RP"), (3, ".RZ")])
            .o(r(16))
            .o(r(32)),
    );
    // I2FP.F32.{S32,U32} Rd, B (SM86+; SM75/SM80 reject it): bit 74 = 1 signed.
    v.push(
        fs(
            "I2FP",
            &[Sm86, Sm89, Sm90],
            0x0000000400057245,
            0x0000000000201400,
        )
        .m(0, 0, &[(0, ".F32")])
        .m(74, 1, &[(1, ".S32"), (0, ".U32")])
        .o(r(16))
        .o(r(32)),
    );
}

pub(super) fn double(v: &mut Vec<Form>) {
    // DADD[.rnd] Rd, A, C: register pairs; A 24 (negate 72, |.| 73), the second source is in
    // the C slot (64-71, negate 75, |.| 74); rounding 78-79.
    v.push(
        fs("DADD", ALL, 0x0000000008087229, 0x000000000000000a)
            .m(78, 2, &[(0, ""), (1, ".RM"), (2, ".RP"), (3, ".RZ")])
            .o(r(16).pair())
            .o(r(24).pair().neg(72).abs(73).reuse(0))
            .o(r(64).pair().neg(75).abs(74).reuse(2)),
    );
    // DMUL[.rnd] Rd, A, B: register pairs; A 24 (negate 72, |.| 73), B 32 (negate 63,
    // |.| 62); rounding 78-79 (probed on SM86 from a ptxas word; the random-field test
    // checks every SM).
    v.push(
        fs("DMUL", ALL, 0x0000000604067228, 0x0000000000000000)
            .m(78, 2, &[(0, ""), (1, ".RM"), (2, ".RP"), (3, ".RZ")])
            .o(r(16).pair())
            .o(r(24).pair().neg(72).abs(73).reuse(0))
            .o(r(32).pair().neg(63).abs(62).reuse(1)),
    );
    // HFMA2 Rd, A, B, C on register halves (0x231): A 24 (negate 72, |.| 73), B 32 (negate
    // 63, |.| 62), C 64 (negate 84, |.| 83); .FTZ/.FMZ 80/76, .SAT 77. The operand swizzles
    // (A 74-75, B 60-61 and 86, C 81-82: `.F32`, `.H0_H0`, ...), .F32 output (78), .RELU
    // with its predicate (79) and .BF16_V2 (85) are constants here (ptxas's defaults).
    v.push(
        fs("HFMA2", ALL, 0x0000000500007231, 0x0000000000000004)
            .m_pieces(FTZ_FMZ_PIECES, FTZ_FMZ)
            .m(77, 1, &[(0, ""), (1, ".SAT")])
            .o(r(16))
            .o(r(24).neg(72).abs(73).reuse(0))
            .o(r(32).neg(63).abs(62).reuse(1))
            .o(r(64).neg(84).abs(83).reuse(2)),
    );
    // DSETP.cmp.logic Pd, Pq, A, B, Pp: pairs A 24 (negate 72, |.| 73), B 32 (negate 63,
    // |.| 62); compare 76-79 as FSETP's except that 0 is MIN and 15 is MAX. B's reuse flag
    // is slot 2 (bit 124), as FADD's: nvdisasm rejects slot 1 ("undefined value for table
    // TABLES_opex") on every SM; found by the random-field test.
    let dcmp = [
        (0, ".MIN"),
        (1, ".LT"),
        (2, ".EQ"),
        (3, ".LE"),
        (4, ".GT"),
        (5, ".NE"),
        (6, ".GE"),
        (7, ".NUM"),
        (8, ".NAN"),
        (9, ".LTU"),
        (10, ".EQU"),
        (11, ".LEU"),
        (12, ".GTU"),
        (13, ".NEU"),
        (14, ".GEU"),
        (15, ".MAX"),
    ];
    v.push(
        fs("DSETP", ALL, 0x000000ff0800722a, 0x0000000003f04000)
            .m(76, 4, &dcmp)
            .m(74, 2, &[(0, ".AND"), (1, ".OR"), (2, ".XOR")])
            .o(p(81))
            .o(p(84))
            .o(r(24).pair().neg(72).abs(73).reuse(0))
            .o(r(32).pair().neg(63).abs(62).reuse(2))
            .o(p(87).not(90)),
    );
}

pub(super) fn dfma(v: &mut Vec<Form>) {
    // DFMA[.rnd] Rd, A, B, C on register pairs: A 24 (negate 72), B/C by selector (0x2: B 32
    // negate 63, C 64 negate 75; 0x4: B 64, C the high word of a double at 32; 0x8: B the
    // high word at 32, C 64 negate 75); rounding 78-79.
    let f64i = || Opnd::new(OpndKind::F64Hi, 32, 32);
    for (lo, hi) in [
        (0x0000000a0408722bu64, 0x0000000000000008u64),
        (0x400800000408742b, 0x0000000000000008),
        (0x3ff800000408782b, 0x0000000000000008),
    ] {
        let (b, c) = match lo & 0xe00 {
            0x200 => (r(32).pair().neg(63).reuse(1), r(64).pair().neg(75).reuse(2)),
            0x400 => (r(64).pair().reuse(1), f64i()),
            _ => (f64i(), r(64).pair().neg(75).reuse(2)),
        };
        v.push(
            fs("DFMA", ALL, lo, hi)
                .m(78, 2, &[(0, ""), (1, ".RM"), (2, ".RP"), (3, ".RZ")])
                .o(r(16).pair())
                .o(r(24).pair().neg(72).reuse(0))
                .o(b)
                .o(c),
        );
    }
}

pub(super) fn more_conversions(v: &mut Vec<Form>) {
    // Conversions seen in ptxas output whose type fields are constants here.
    v.push(
        fs("F2I", ALL, 0x0000000800047311, 0x000000000030d900)
            .m(0, 0, &[(0, ".S64.F64.TRUNC")])
            .o(r(16).pair())
            .o(r(32).pair()),
    );
    v.push(
        fs("I2F", ALL, 0x0000000c000a7312, 0x0000000000301c00)
            .m(0, 0, &[(0, ".F64.S64")])
            .o(r(16).pair())
            .o(r(32).pair()),
    );
    // I2F with a constant-bank source (0xb06): as 0x306.
    v.push(
        fs("I2F", ALL, 0x00005c0000007b06, 0x0000000000209000)
            .m(74, 1, &[(1, ""), (0, ".U32")])
            .m(78, 2, &[(0, ""), (1, ".RM"), (2, ".RP"), (3, ".RZ")])
            .o(r(16))
            .o(cb()),
    );
}

pub(super) fn hfma2_mma(v: &mut Vec<Form>) {
    // HFMA2.MMA Rd, A, B, hi, lo: A 24 (negate 72, |.| 73), B 64 (negate 84, |.| 83), two
    // half-precision immediates printed high half (48-63) first, then low (32-47); .FTZ 80,
    // .FMZ 76, .SAT 77. ptxas uses it as a move of a constant. This encoding is illegal on
    // SM75.
    v.push(
        fs("HFMA2", SM80UP, 0x00000004ff077435, 0x00000000000001ff)
            .m(0, 0, &[(0, ".MMA")])
            .m_pieces(FTZ_FMZ_PIECES, FTZ_FMZ)
            .m(77, 1, &[(0, ""), (1, ".SAT")])
            .o(r(16))
            .o(r(24).neg(72).abs(73).reuse(0))
            .o(r(64).neg(84).abs(83).reuse(1))
            .o(Opnd::new(OpndKind::F16, 48, 16))
            .o(Opnd::new(OpndKind::F16, 32, 16)),
    );
}
