//! Floating point: FADD/FMUL/FFMA, FSETP, FMNMX, MUFU, the double-precision DADD, DSETP
//! and DFMA, HFMA2.MMA with two immediates (0x435) and conversions (F2I, I2F, I2FP, ...).

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
    for (lo, hi) in [
        (0x000000060300720bu64, 0x000fe20003f2e000u64),
        (0xc2fc00000600780b, 0x040fe40003f0e000),
    ] {
        let b = if lo & 0x800 != 0 { f32i(32) } else { fb() };
        v.push(
            fs("FSETP", ALL, lo, hi)
                .m(76, 4, &FCMP)
                .m(80, 1, &ftz)
                .m(74, 2, &LOGIC)
                .o(p(81))
                .o(p(84))
                .o(fa())
                .o(b)
                .o(p(87).not(90)),
        );
    }
    // FMNMX Rd, A, B, Pp (Pp selects min or max). From SM80, bit 81 is `.NAN`
    // (`min.NaN`) and from SM86 bit 82 `.XORSIGN` (`min.xorsign.abs`), printed after
    // `.FTZ` in that order; SM75 ignores both bits and SM80 bit 82 (constants there).
    // Probed on every SM (SM80's ignored bit 82 found by the from-scratch test).
    for (lo, hi) in [
        (0x0000000203047209u64, 0x000fcc0007800000u64),
        (0x42c8000005057809, 0x000fe40003800000),
    ] {
        let b = || if lo & 0x800 != 0 { f32i(32) } else { fb() };
        v.push(
            fs("FMNMX", &[Sm75], lo, hi)
                .m(80, 1, &ftz)
                .o(r(16))
                .o(fa())
                .o(b())
                .o(p(87).not(90)),
        );
        v.push(
            fs("FMNMX", &[Sm80], lo, hi)
                .m(80, 1, &ftz)
                .m(81, 1, &[(0, ""), (1, ".NAN")])
                .o(r(16))
                .o(fa())
                .o(b())
                .o(p(87).not(90)),
        );
        v.push(
            fs("FMNMX", &[Sm86, Sm89, Sm90], lo, hi)
                .m(80, 1, &ftz)
                .m(81, 1, &[(0, ""), (1, ".NAN")])
                .m(82, 1, &[(0, ""), (1, ".XORSIGN")])
                .o(r(16))
                .o(fa())
                .o(b())
                .o(p(87).not(90)),
        );
    }
    // MUFU.op Rd, B: function 74-77, B at 32 (negate 63, |.| 62).
    v.push(
        fs("MUFU", ALL, 0x4000000300027308, 0x0000680000001400)
            .m(74, 4, MUFU_FUNCS)
            .o(r(16))
            .o(r(32).neg(63).abs(62)),
    );
}

/// DSETP's comparisons (76-79): FSETP's, except that 0 is MIN and 15 is MAX.
const DCMP: [(u64, &str); 16] = [
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

/// Integer types of conversions, by the value of (signed bit, size 0-3): 8, 16, 32 and 64
/// bits, unsigned then signed; S32 prints nothing.
const INT_TYPES: [(u64, &str); 8] = [
    (0, ".U8"),
    (1, ".S8"),
    (2, ".U16"),
    (3, ".S16"),
    (4, ".U32"),
    (5, ""),
    (6, ".U64"),
    (7, ".S64"),
];

/// The 16/32-bit float types of F2I (84-85) and I2F (75-76): field width and values
/// before SM90 and on SM90 (one bit wider, with 4 `.BF16`).
const FLOAT_TYPES: [(u8, &[(u64, &str)]); 2] = [
    (2, &[(1, ".F16"), (2, "")]),
    (3, &[(1, ".F16"), (2, ""), (4, ".BF16")]),
];

/// F2I's rounding (78-79).
const F2I_RND: &[(u64, &str)] = &[(0, ""), (1, ".FLOOR"), (2, ".CEIL"), (3, ".TRUNC")];

/// `o` as an even register pair when `pair`.
fn pair_if(o: Opnd, pair: bool) -> Opnd {
    if pair {
        o.pair()
    } else {
        o
    }
}

pub(super) fn conversions(v: &mut Vec<Form>) {
    // F2I[.FTZ][.type][.F16][.rnd][.NTZ] Rd, B (F16/F32 to an integer of 8-32 bits): .FTZ
    // 80; the integer type is bit 72 (signed) and 75-76 (size: 8, 16, 32; [`INT_TYPES`]);
    // the float type 84-85 (1 .F16, 2 F32; 0 and 3 are illegal here, F64 is 0x311);
    // rounding 78-79 (none, FLOOR, CEIL, TRUNC); .NTZ 77. Probed on every SM. SM90 widens
    // the float type to 84-86 with 4 `.BF16` (bit 86 is ignored before; [`FLOAT_TYPES`]).
    for (arches, (width, floats)) in [(PRE90, FLOAT_TYPES[0]), (&[Sm90][..], FLOAT_TYPES[1])] {
        v.push(
            fs("F2I", arches, 0x0000000300077305, 0x0000000000203100)
                .m(80, 1, &[(0, ""), (1, ".FTZ")])
                .m_pieces(&[(72, 1), (75, 2)], &INT_TYPES[..6])
                .m(84, width, floats)
                .m(78, 2, F2I_RND)
                .m(77, 1, &[(0, ""), (1, ".NTZ")])
                .o(r(16))
                .o(r(32)),
        );
    }
    // F2I with an f32 immediate (0x905, `cvt.rpi.u32.f32` of a constant): the fields of
    // 0x305 with the float type fixed at F32 (84-85 = 2; F16 prints the immediate's low
    // half, 0 and 3 are rejected; SM90's bit 86 clear). Probed on SM75, SM80 and SM90.
    v.push(
        fs("F2I", ALL, 0x4120000000007905, 0x0000000000203000)
            .m(80, 1, &[(0, ""), (1, ".FTZ")])
            .m_pieces(&[(72, 1), (75, 2)], &INT_TYPES[..6])
            .m(78, 2, F2I_RND)
            .m(77, 1, &[(0, ""), (1, ".NTZ")])
            .o(r(16))
            .o(f32i(32)),
    );
    // I2F[.F16][.type][.rnd] Rd, B (an integer of 8-32 bits to F16/F32): the float type is
    // 75-76 (1 .F16, 2 F32; 0 and 3 print `???n`, refused), the integer type bit 74
    // (signed) and 84-85 (size); rounding 78-79 (none, RM, RP, RZ). SM90: the float type
    // is 75-77 with 4 `.BF16`.
    for (arches, (width, floats)) in [(PRE90, FLOAT_TYPES[0]), (&[Sm90][..], FLOAT_TYPES[1])] {
        v.push(
            fs("I2F", arches, 0x00000000000a7306, 0x0000000000201400)
                .m(75, width, floats)
                .m_pieces(&[(74, 1), (84, 2)], &INT_TYPES[..6])
                .m(78, 2, &[(0, ""), (1, ".RM"), (2, ".RP"), (3, ".RZ")])
                .o(r(16))
                .o(r(32)),
        );
    }
    // I2FP.F32.{S32,U32}[.rnd] Rd, B (SM86+; SM75/SM80 reject it): bit 74 = 1 signed.
    v.push(
        fs(
            "I2FP",
            &[Sm86, Sm89, Sm90],
            0x0000000400057245,
            0x0000000000201400,
        )
        .m(0, 0, &[(0, ".F32")])
        .m(74, 1, &[(1, ".S32"), (0, ".U32")])
        // Rounding 78-79: nearest or `.RZ` (`__int2float_rz`); nvdisasm prints 1 and 2 as
        // `.INVALIDn` (the directed modes go through I2F).
        .m(78, 2, &[(0, ""), (3, ".RZ")])
        .o(r(16))
        // B's reuse flag is slot 1 (`R0.reuse`, SM86-SM90; generated corpus).
        .o(r(32).reuse(1)),
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
    // DSETP.cmp.logic Pd, Pq, A, B, Pp: pairs A 24 (negate 72, |.| 73), B 32 (negate 63,
    // |.| 62); compare 76-79 as FSETP's except that 0 is MIN and 15 is MAX. B's reuse flag
    // is slot 2 (bit 124), as FADD's: nvdisasm rejects slot 1 ("undefined value for table
    // TABLES_opex") on every SM; found by the random-field test.

    v.push(
        fs("DSETP", ALL, 0x000000ff0800722a, 0x0000000003f04000)
            .m(76, 4, &DCMP)
            .m(74, 2, &LOGIC)
            .o(p(81))
            .o(p(84))
            .o(r(24).pair().neg(72).abs(73).reuse(0))
            .o(r(32).pair().neg(63).abs(62).reuse(2))
            .o(p(87).not(90)),
    );
}

/// The double-precision operations with an immediate second source (selector 0x4 for
/// DADD's C slot and DSETP's B, 0x8 for DMUL's B): the high word of a double at 32
/// ([`OpndKind::F64Hi`]), the other fields as the register forms. Samples from the
/// generated PTX corpus (`add.f64`, `mul.f64`, `setp.f64` with a double constant whose low
/// word is zero).
pub(super) fn double_imm(v: &mut Vec<Form>) {
    let f64i = || Opnd::new(OpndKind::F64Hi, 32, 32);
    let rnd = [(0, ""), (1, ".RM"), (2, ".RP"), (3, ".RZ")];
    for (name, lo) in [
        ("DADD", 0x0010000004047429u64),
        ("DMUL", 0x4350000006068828),
    ] {
        v.push(
            fs(name, ALL, lo & !0xf000 | 0x7000, 0)
                .m(78, 2, &rnd)
                .o(r(16).pair())
                .o(r(24).pair().neg(72).abs(73).reuse(0))
                .o(f64i()),
        );
    }
    v.push(
        fs("DSETP", ALL, 0x7ff000000600742a, 0x0000000003f0c200)
            .m(76, 4, &DCMP)
            .m(74, 2, &LOGIC)
            .o(p(81))
            .o(p(84))
            .o(r(24).pair().neg(72).abs(73).reuse(0))
            .o(f64i())
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
            // B negated by bit 75 (`DFMA R12, R10, -R2, 1` of double division).
            0x400 => (r(64).pair().neg(75).reuse(1), f64i()),
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
    // The wide conversions (0x311, 0x312): as 0x305/0x306 with 64-bit integers (size 3:
    // .U64/.S64) and F64 (float type 3) allowed; a 64-bit side is an even register pair.
    // One form per combination of widths, so each operand's alignment is fixed: a 64-bit
    // integer from F16/F32, an integer of 8-32 bits from F64, and 64-bit from F64.
    let f64t: &[(u64, &str)] = &[(3, ".F64")];
    for (arches, (width, small)) in [(PRE90, FLOAT_TYPES[0]), (&[Sm90][..], FLOAT_TYPES[1])] {
        for (ints, floats, d_pair, b_pair) in [
            (&INT_TYPES[6..], small, true, false),
            (&INT_TYPES[..6], f64t, false, true),
            (&INT_TYPES[6..], f64t, true, true),
        ] {
            let (d, b) = (pair_if(r(16), d_pair), pair_if(r(32), b_pair));
            v.push(
                fs("F2I", arches, 0x0000000800047311, 0x000000000030d900)
                    .m(80, 1, &[(0, ""), (1, ".FTZ")])
                    .m_pieces(&[(72, 1), (75, 2)], ints)
                    .m(84, width, floats)
                    .m(78, 2, F2I_RND)
                    .m(77, 1, &[(0, ""), (1, ".NTZ")])
                    .o(d)
                    .o(b),
            );
        }
        // I2F 0x312: float type 75-76 (75-77 on SM90) as 0x306 plus 3 `.F64`, integer type
        // 74 and 84-85. The same fields with B from a uniform register (0xd12, B at 32, bit
        // 91 set) or a constant bank (0xb12, `c[bank][off]` at 38-58), probed on SM75, SM86
        // and SM90 (issue 12: `I2F.U64.RP R10, c[0x2][0x0]`). nvdisasm prints a blank inside
        // the constant of an 8- or 16-bit integer to F64 (`c[0x2] [0x10]`), not of others.
        for (floats, ints, d_pair, b_pair) in [
            (small, &INT_TYPES[6..], false, true),
            (f64t, &INT_TYPES[..6], true, false),
            (f64t, &INT_TYPES[6..], true, true),
        ] {
            for (lo, hi, b) in [
                (0x0000000c000a7312u64, 0u64, pair_if(r(32), b_pair)),
                (0x00000006000a7d12, 1 << 27, pair_if(ur(32), b_pair)),
            ] {
                v.push(
                    fs("I2F", arches, lo, 0x0000000000301c00 | hi)
                        .m(75, width, floats)
                        .m_pieces(&[(74, 1), (84, 2)], ints)
                        .m(78, 2, &[(0, ""), (1, ".RM"), (2, ".RP"), (3, ".RZ")])
                        .o(pair_if(r(16), d_pair))
                        .o(b),
                );
            }
        }
        for (floats, ints, d_pair, b) in [
            (small, &INT_TYPES[6..], false, cb()),
            (f64t, &INT_TYPES[..4], true, cb().cb_blank()),
            (f64t, &INT_TYPES[4..], true, cb()),
        ] {
            v.push(
                fs("I2F", arches, 0x00800000000a7b12, 0x0000000000301c00)
                    .m(75, width, floats)
                    .m_pieces(&[(74, 1), (84, 2)], ints)
                    .m(78, 2, &[(0, ""), (1, ".RM"), (2, ".RP"), (3, ".RZ")])
                    .o(pair_if(r(16), d_pair))
                    .o(b),
            );
        }
    }
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

/// Float-to-float conversions and rounding: F2F[.FTZ].dst.src[.rnd] Rd, B (0x304 between
/// F16 and F32, 0x310 to or from F64), FRND[.FTZ][.type][.rnd] Rd, B (0x307 F16/F32,
/// 0x313 F64), and the saturating narrowing I2I.dst.S32.SAT Rd, B (0x238). Types: the
/// destination float type 75-76 and the source 84-85 (1 F16, 2 F32, 3 F64), one field
/// here (destination + 4 * source) holding only the pairs nvdisasm accepts; .FTZ 80;
/// rounding 78-79 (F2F: none, RM, RP, RZ; FRND: none, FLOOR, CEIL, TRUNC); B's negate 63
/// and |.| 62. FRND.F16's half select (60-61: `.H1`) is a constant here. I2I's
/// destination type is 76-77 (U8, S8, U16, S16). Probed on SM80 from the generated PTX
/// corpus; the from-scratch test checks every SM.
pub(super) fn float_conversions(v: &mut Vec<Form>) {
    let rnd = [(0, ""), (1, ".RM"), (2, ".RP"), (3, ".RZ")];
    let types = |d: u64, s: u64| d | s << 2;
    let b = || r(32).neg(63).abs(62);
    let f2f_pieces = &[(75, 2), (84, 2)];
    let narrow: &[(u64, &str)] = &[(types(1, 2), ".F16.F32"), (types(2, 1), ".F32.F16")];
    let from_f64: &[(u64, &str)] = &[(types(1, 3), ".F16.F64"), (types(2, 3), ".F32.F64")];
    let to_f64: &[(u64, &str)] = &[(types(3, 1), ".F64.F16"), (types(3, 2), ".F64.F32")];
    for (lo, hi, tys, d, src) in [
        (
            0x0000000000057304u64,
            0x0000000000208800u64,
            narrow,
            r(16),
            b(),
        ),
        (
            0x0000000400057310,
            0x0000000000301000,
            from_f64,
            r(16),
            b().pair(),
        ),
        (
            0x0000000400057310,
            0x0000000000301000,
            to_f64,
            r(16).pair(),
            b(),
        ),
    ] {
        v.push(
            fs("F2F", ALL, lo, hi)
                .m(80, 1, &[(0, ""), (1, ".FTZ")])
                .m_pieces(f2f_pieces, tys)
                .m(78, 2, &rnd)
                .o(d)
                .o(src),
        );
    }
    for (lo, hi, tys, d, src) in [
        (
            0x0000000000057307u64,
            0x0000000000104800u64,
            &[(types(1, 1), ".F16"), (types(2, 2), "")][..],
            r(16),
            b(),
        ),
        (
            0x0000000400047313,
            0x0000000000301800,
            &[(types(3, 3), ".F64")][..],
            r(16).pair(),
            b().pair(),
        ),
    ] {
        v.push(
            fs("FRND", ALL, lo, hi)
                .m(80, 1, &[(0, ""), (1, ".FTZ")])
                .m_pieces(f2f_pieces, tys)
                .m(78, 2, F2I_RND)
                .o(d)
                .o(src),
        );
    }
    v.push(
        fs("I2I", ALL, 0x0000000700077238, 0x0000000000003000)
            .m(76, 2, &[(0, ".U8"), (1, ".S8"), (2, ".U16"), (3, ".S16")])
            .m(0, 0, &[(0, ".S32.SAT")])
            .o(r(16))
            .o(r(32)),
    );
}
