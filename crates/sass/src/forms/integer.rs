//! Integer ALU: IADD3, LOP3, ISETP, VOTE, IMAD (with nvdisasm's alternative names), SHF,
//! SEL, IMNMX, POPC/BREV, FLO, LEA, IABS, PRMT, VIADD and VIMNMX.

use super::*;

pub(super) fn integer(v: &mut Vec<Form>) {
    // IADD3 Rd, [Pc0,] [Pc1,] Ra, B, Rc: carry-outs 81-83 / 84-86 (hidden when PT);
    // negate A 72, B 63 (register, constant-bank and uniform forms), C 75. With .X (74) the negates print as
    // `~` and the carry-ins 87-90 / 77-80 are operands; without .X they are constants.
    for (sel, lo, hi) in [
        (0x2u16, 0x0000000902097210u64, 0x000fe20007ffe0ffu64),
        (0x8, 0x0000000102027810, 0x000fe20007ffe0ff),
        (0xa, 0x00005c000b0b0a10, 0x000fe40007ffe0ff),
        (0xc, 0x0000000402027c10, 0x000fe2000fffe0ff),
    ] {
        let opc = (sel << 8) | 0x10;
        for x in [false, true] {
            let mut b = alu_b(sel, simm(32, 32));
            if sel != 0x8 {
                b = if x { b.not(63) } else { b.neg(63) };
            }
            let a = if x { r(24).not(72) } else { r(24).neg(72) }.reuse(0);
            let c = if x { r(64).not(75) } else { r(64).neg(75) }.reuse(2);
            let mut f = Form::new(
                "IADD3",
                opc,
                ALL,
                lo | (opc as u64),
                hi | if x { 1 << 10 } else { 0 },
            )
            .m(74, 1, if x { &[(1, ".X")] } else { &[(0, "")] })
            .o(r(16))
            .o(p(81).hide(7))
            .o(p(84).hide(7))
            .o(a)
            .o(b)
            .o(c);
            if x {
                f = f.o(p(87).not(90)).o(p(77).not(80));
            }
            v.push(f);
        }
    }
    // LOP3.LUT [Pd,] Rd, Ra, B, Rc, lut, Pp: output predicate 81-83 (hidden when PT),
    // LUT 72-79, .PAND 80, predicate input 87-89 (negate 90).
    for (sel, lo, hi) in [
        (0x2u16, 0x0000000903047212u64, 0x000fe400078e3cffu64),
        (0x8, 0x0000000103047812, 0x000fe400078e3cff),
        (0xa, 0x00005c0003047a12, 0x000fe400078e3cff),
        (0xc, 0x0000000403047c12, 0x000fe4000f8e3cff),
    ] {
        let opc = (sel << 8) | 0x12;
        v.push(
            Form::new("LOP3", opc, ALL, lo, hi)
                .m(0, 0, &[(0, ".LUT")])
                .m(80, 1, &[(0, ""), (1, ".PAND")])
                .o(p(81).hide(7))
                .o(r(16))
                .o(r(24).reuse(0))
                .o(alu_b(sel, uimm(32, 32)))
                .o(r(64).reuse(2))
                .o(uimm(72, 8))
                .o(p(87).not(90)),
        );
    }
    // ISETP.cmp[.U32].logic Pd, Pq, Ra, B, Pp: compare 76-78 (0 F, 1 LT, 2 EQ, 3 LE, 4 GT,
    // 5 NE, 6 GE, 7 T), .U32 73, logic 74-75,
    // Pd 81-83, Pq 84-86, Pp 87-89 (negate 90). .EX (72) is a constant 0 here. Bit 73 is
    // *signed*: 1 prints nothing, 0 prints .U32.
    let cmp = [
        (0, ".F"),
        (1, ".LT"),
        (2, ".EQ"),
        (3, ".LE"),
        (4, ".GT"),
        (5, ".NE"),
        (6, ".GE"),
        (7, ".T"),
    ];
    for (sel, lo, hi) in [
        (0x2u16, 0x0000000c0a00720cu64, 0x000fe40003f01070u64),
        (0x8, 0x000000010200780c, 0x000fe40003f06270),
        (0xa, 0x00005c0002007a0c, 0x000fe40003f06270),
        (0xc, 0x0000000407007c0c, 0x000fda000bf06270),
    ] {
        let opc = (sel << 8) | 0x0c;
        v.push(
            Form::new("ISETP", opc, ALL, lo, hi)
                .m(76, 3, &cmp)
                .m(73, 1, &[(1, ""), (0, ".U32")])
                .m(74, 2, &[(0, ".AND"), (1, ".OR"), (2, ".XOR")])
                .o(p(81))
                .o(p(84))
                .o(r(24).reuse(0))
                .o(alu_b(sel, simm(32, 32)))
                .o(p(87).not(90)),
        );
        // .EX (bit 72): the carry-in predicate 68-70 (negate 71) is printed last; SM75 does
        // not print it when it is PT (probed on every SM).
        for (arches, carry) in [
            (&[Sm75][..], p(68).not(71).hide(7)),
            (SM80UP, p(68).not(71)),
        ] {
            v.push(
                Form::new("ISETP", opc, arches, lo, hi | 1 << 8)
                    .m(76, 3, &cmp)
                    .m(73, 1, &[(1, ""), (0, ".U32")])
                    .m(74, 2, &[(0, ".AND"), (1, ".OR"), (2, ".XOR")])
                    .m(72, 1, &[(1, ".EX")])
                    .o(p(81))
                    .o(p(84))
                    .o(r(24).reuse(0))
                    .o(alu_b(sel, simm(32, 32)))
                    .o(p(87).not(90))
                    .o(carry),
            );
        }
    }
    // VOTE.mode [Rd,] Pd, Pp: Rd 16-23 (hidden when RZ), mode 72-73, Pd 81-83, Pp 87-90.
    v.push(
        Form::new("VOTE", 0x806, ALL, 0x0000000000007806, 0x0000000000000000)
            .m(72, 2, &[(0, ".ALL"), (1, ".ANY"), (2, ".EQ")])
            .o(r(16).hide(255))
            .o(p(81))
            .o(p(87).not(90)),
    );
    mad(v);
}

pub(super) fn f_a(w: Word) -> u64 {
    w.get(24, 8)
}
fn is_rz(v: u64) -> bool {
    v == 255
}

/// nvdisasm's names for IMAD (probed on every selector): with .X clear, `.MOV` when A is RZ
/// or a register/immediate B is RZ/0; for an immediate B, `.IADD` when B is 1 and C is not
/// RZ (B = 1 with C = RZ is `.MOV`), `.SHL` when B is a power of two 2..2^30 other than
/// 2^16 and C is RZ (probed on every power of two, signed and .U32, SM75 and SM90:
/// `IMAD.U32 R21, R4, 0x10000, RZ` keeps its name).
/// Uniform-register forms (0xc, 0xe) have no other names.
fn imad_alias(w: Word) -> u64 {
    if w.bit(74) {
        return 0;
    }
    let sel = w.get(9, 3);
    let a_rz = is_rz(f_a(w));
    match sel {
        1 => (a_rz || is_rz(w.get(32, 8))) as u64,
        2 | 3 => (a_rz || is_rz(w.get(64, 8))) as u64,
        5 => a_rz as u64,
        4 => {
            let b = w.get(32, 32);
            // -RZ counts as RZ here (checked).
            let c_rz = is_rz(w.get(64, 8));
            if a_rz || b == 0 || (b == 1 && c_rz) {
                1
            } else if b == 1 {
                2
            } else if c_rz && b.is_power_of_two() && b <= 1 << 30 && b != 0x10000 {
                3
            } else {
                0
            }
        }
        _ => 0,
    }
}

fn mad(v: &mut Vec<Form>) {
    // IMAD (0x24), IMAD.WIDE (0x25), IMAD.HI (0x27): Rd 16, A/B/C by selector, .U32 when bit
    // 73 is 0, .X at 74 (then the carry-in predicate 87-89, negate 90, is printed last;
    // without .X it is a constant). WIDE and HI may write a carry-out predicate (81-83,
    // hidden when PT).
    let samples: [(u16, u64, u64); 7] = [
        (0x2, 0x0000000402057224, 0x000fe200078e0203),
        (0x4, 0x00000008ff007424, 0x000fe200078e00ff),
        (0x6, 0x00000a00ff017624, 0x000fe400078e00ff),
        (0x8, 0x0000000104047824, 0x000fe200078e0215),
        (0xa, 0x00005c000d0d7a24, 0x000fc800078e02ff),
        (0xc, 0x0000000405057c24, 0x000fe2000f8e0200),
        (0xe, 0x00000005ff087e24, 0x000fe2000f8e00ff),
    ];
    for (low, name_mod) in [(0x24u16, ""), (0x25, ".WIDE"), (0x27, ".HI")] {
        for (sel, lo, hi) in samples {
            // WIDE/HI with an immediate or uniform C (0x4, 0xe): not checked; left out.
            if low != 0x24 && (sel == 0x4 || sel == 0xe) {
                continue;
            }
            let opc = (sel << 8) | low;
            let lo = (lo & !0xfff) | opc as u64;
            for x in [false, true] {
                let [a, b, mut c] = abc(sel, simm(32, 32), true);
                if x && c.neg.is_some() {
                    // Under .X the C negate bit prints as `~`.
                    c.not = c.neg.take();
                }
                let mut d = r(16);
                if low == 0x25 {
                    // 64-bit result and addend: even register pairs.
                    d = d.pair();
                    if c.kind == OpndKind::Reg && sel != 0x4 && sel != 0x6 && sel != 0xe {
                        c = c.pair();
                    }
                }
                let mut f = Form::new("IMAD", opc, ALL, lo, hi | if x { 1 << 10 } else { 0 });
                f = match low {
                    0x24 => f.alias(
                        imad_alias,
                        &[(0, ""), (1, ".MOV"), (2, ".IADD"), (3, ".SHL")],
                    ),
                    _ => f.m(0, 0, &[(0, name_mod)]),
                };
                f = f
                    .m(73, 1, &[(1, ""), (0, ".U32")])
                    .m(74, 1, if x { &[(1, ".X")] } else { &[(0, "")] })
                    .o(d);
                if low != 0x24 {
                    f = f.o(p(81).hide(7));
                }
                f = f.o(a).o(b).o(c);
                if x {
                    f = f.o(p(87).not(90));
                }
                v.push(f);
            }
        }
    }
}

pub(super) fn more_integer(v: &mut Vec<Form>) {
    // SHF.dir[.W].type[.HI] Rd, A, B, C: direction 76 (1 = R), .W 75, type 73-74
    // (0 S64, 1 U64, 2 S32, 3 U32), .HI 80. B/C by selector; immediates unsigned.
    let shf_dir = [(0, ".L"), (1, ".R")];
    let shf_ty = [(0, ".S64"), (1, ".U64"), (2, ".S32"), (3, ".U32")];
    for (lo, hi) in [
        (0x000000080f0e7219u64, 0x000fe400000006ffu64),
        (0x0000000d0a177819, 0x000fe2000000120b),
        (0xfffffffe05057419, 0x000fd40000010e02),
        (0x00005c00030b7619, 0x000fe40000010e09),
        (0x00005c00ff077a19, 0x000fe20000011e03),
        // B a uniform register (0xc19; `shf` by a kernel parameter, every SM).
        (0x0000000804067c19, 0x0000000008001205),
    ] {
        let sel = ((lo >> 8) & 0xe) as u16;
        let [a, b, c] = abc(sel, uimm(32, 32), false);
        v.push(
            fs("SHF", ALL, lo, hi)
                .m(76, 1, &shf_dir)
                .m(75, 1, &[(0, ""), (1, ".W")])
                .m(73, 2, &shf_ty)
                .m(80, 1, &[(0, ""), (1, ".HI")])
                .o(r(16))
                .o(a)
                .o(b)
                .o(c),
        );
    }
    // SEL Rd, A, B, Pp / FSEL: predicate 87-89, negate 90.
    for (name, lo, hi) in [
        ("SEL", 0x0000000d0c127207u64, 0x000fe20004800000u64),
        ("SEL", 0xffffffffff087807, 0x000fe40004000000),
        ("FSEL", 0x0000000a080a7208, 0x002fe40000000000),
        // A float immediate B (the generated PTX corpus: `selp.f32` with a constant).
        ("FSEL", 0x3f80000006067808, 0x0000000004800000),
    ] {
        let b = match (lo & 0x800 != 0, name) {
            (true, "FSEL") => f32i(32),
            (true, _) => uimm(32, 32),
            // FSEL's register B may be absolute or negated (bits 62, 63: `FSEL R5, R5,
            // |R4|, !P0` of fmodf, `FSEL R8, R4, -R4, !P0` of sinf).
            (false, "FSEL") => r(32).neg(63).abs(62).reuse(1),
            _ => r(32).reuse(1),
        };
        // FSEL's A may be negated or absolute too (bits 72, 73: `FSEL R5, -R6, R6, !P1`).
        let a = if name == "FSEL" {
            r(24).neg(72).abs(73).reuse(0)
        } else {
            r(24).reuse(0)
        };
        v.push(fs(name, ALL, lo, hi).o(r(16)).o(a).o(b).o(p(87).not(90)));
    }
    // IMNMX[.U32] Rd, A, B, Pp: bit 73 = 1 signed (0 prints .U32), predicate 87-90.
    for (lo, hi) in [
        (0x0000000903027217u64, 0x000fc40003800200u64),
        (0xfffffffd07007817, 0x001fe20007800200),
        (0x00005c0003027a17, 0x000fe20007800200),
    ] {
        let sel = ((lo >> 8) & 0xe) as u16;
        let [a, b, _] = abc(sel, simm(32, 32), false);
        v.push(
            fs("IMNMX", ALL, lo, hi)
                .m(73, 1, &[(1, ""), (0, ".U32")])
                .o(r(16))
                .o(a)
                .o(b)
                .o(p(87).not(90)),
        );
    }
    // POPC Rd, B / BREV Rd, B: B at 32 (register, or uniform register with bit 91).
    v.push(
        fs("POPC", ALL, 0x0000000a00067309, 0x000fe20000000000)
            .o(r(16))
            .o(r(32)),
    );
    v.push(
        fs("POPC", ALL, 0x00000006000b7d09, 0x000f220008000000)
            .o(r(16))
            .o(ur(32)),
    );
    v.push(
        fs("BREV", ALL, 0x0000000900067301, 0x000e220000000000)
            .o(r(16))
            .o(r(32)),
    );
    // FLO[.U32][.SH] Rd, B: bit 73 = 1 signed (0 prints .U32), .SH 74; B complemented by
    // 63 (`~R4`, `bfind` of a negated value; probed on SM75).
    v.push(
        fs("FLO", ALL, 0x0000001200147300, 0x0002a200000e0000)
            .m(73, 1, &[(1, ""), (0, ".U32")])
            .m(74, 1, &[(0, ""), (1, ".SH")])
            .o(r(16))
            .o(r(32).not(63)),
    );
    // FLO from a uniform register (0xd00, bit 91 set; nvdisasm rejects it clear), probed on
    // SM75, SM86 and SM90 (issue #12: `FLO` on a uniform register in user code).
    v.push(
        fs("FLO", ALL, 0x0000000400147d00, 0x0002a200080e0000)
            .m(73, 1, &[(1, ""), (0, ".U32")])
            .m(74, 1, &[(0, ""), (1, ".SH")])
            .o(r(16))
            .o(ur(32)),
    );
}

pub(super) fn lea(v: &mut Vec<Form>) {
    // LEA[.HI][.X][.SX32] Rd, [Pc,] A, B, [C,] shift[, Pp]: Pc 81-83 (hidden when PT), A 24
    // (negate 72, `~` under .X), B by selector (a register, constant or uniform register B
    // has its negate at 63, `~` under .X), shift 75-79, .X 74 (adds Pp 87-90), .HI 80
    // (adds C at 64 unless .SX32, bit 73).
    for (sel, lo, hi) in [
        (0x2u16, 0x0000000902027211u64, 0x000000000780f0ffu64),
        (0x8, 0x0000000105047811, 0x000000000780f0ff),
        (0xa, 0x0000580005027a11, 0x000000000780f0ff),
        (0xc, 0x0000000605027c11, 0x000000000f80f0ff),
    ] {
        let [_, b0, _] = abc(sel, uimm(32, 32), false);
        for (hi_mod, sx32) in [(false, false), (true, false), (true, true)] {
            for x in [false, true] {
                let a = if x { r(24).not(72) } else { r(24).neg(72) }.reuse(0);
                let b = match (sel, x) {
                    (0x8, _) => b0.clone(),
                    (_, false) => b0.clone().neg(63),
                    (_, true) => b0.clone().not(63),
                };
                let mut h = hi & !(0x1f << 11) & !(1 << 16) & !(1 << 9) & !(1 << 10);
                h |= (hi_mod as u64) << 16 | (sx32 as u64) << 9 | (x as u64) << 10;
                let mut f = fs("LEA", ALL, lo, h)
                    .m(80, 1, if hi_mod { &[(1, ".HI")] } else { &[(0, "")] })
                    .m(74, 1, if x { &[(1, ".X")] } else { &[(0, "")] })
                    .m(73, 1, if sx32 { &[(1, ".SX32")] } else { &[(0, "")] })
                    .o(r(16))
                    .o(p(81).hide(7))
                    .o(a)
                    .o(b.clone());
                if hi_mod && !sx32 {
                    f = f.o(r(64).reuse(2));
                }
                f = f.o(uimm(75, 5));
                if x {
                    f = f.o(p(87).not(90));
                }
                v.push(f);
            }
        }
    }
}

/// PRMT's byte-permute mode, bits 72-74 (`prmt.b32.f4e` ..; every SM, every operand form;
/// 7 prints `.INVALID7`).
pub(super) const PRMT_MODES: &[(u64, &str)] = &[
    (0, ""),
    (1, ".F4E"),
    (2, ".B4E"),
    (3, ".RC8"),
    (4, ".ECL"),
    (5, ".ECR"),
    (6, ".RC16"),
];

pub(super) fn iabs_prmt(v: &mut Vec<Form>) {
    // IABS Rd, B: B at 32 (reuse slot 1).
    v.push(
        fs("IABS", ALL, 0x00000007000a7213, 0x0000000000000000)
            .o(r(16))
            .o(r(32).reuse(1)),
    );
    // PRMT Rd, A, B, C (selectors 0x2, 0x6).
    for (lo, hi) in [
        (0x0000000803087216u64, 0x0000000000000009u64),
        (0x00005c0003087616, 0x000000000000000b),
    ] {
        let sel = ((lo >> 8) & 0xe) as u16;
        let [a, b, c] = abc(sel, uimm(32, 32), false);
        v.push(
            fs("PRMT", ALL, lo, hi)
                .m(72, 3, PRMT_MODES)
                .o(r(16))
                .o(a)
                .o(b)
                .o(c),
        );
    }
}

pub(super) fn vimnmx(v: &mut Vec<Form>) {
    // VIMNMX[.type][.RELU] Rd, A, B, Pp (SM90): the type is 72-73 (0 `.U32`, 1 S32,
    // printed as nothing, 2 `.U16x2`, 3 `.S16x2`; `min.u16x2` ..), `.RELU` bit 76
    // (`max.relu`), printed after the type. B a register at 32 (0x248), a signed immediate
    // (0x848) or a uniform register (0xc48). Probed on SM90.
    let types: &[(u64, &str)] = &[(1, ""), (0, ".U32"), (2, ".U16x2"), (3, ".S16x2")];
    for (lo, hi) in [
        (0x0000000903027248u64, 0x0000000007fe0100u64),
        (0xfffffffd07007848, 0x0000000007fe0100),
        (0x0000000400057c48, 0x000000000bfe0000),
    ] {
        let b = match lo & 0xe00 {
            0x800 => simm(32, 32),
            0xc00 => ur(32),
            _ => r(32).reuse(1),
        };
        v.push(
            fs("VIMNMX", &[Sm90], lo, hi)
                .m(72, 2, types)
                .m(76, 1, &[(0, ""), (1, ".RELU")])
                .o(r(16))
                .o(r(24).reuse(0))
                .o(b)
                .o(p(87).not(90)),
        );
    }
}

pub(super) fn viadd(v: &mut Vec<Form>) {
    // VIADD Rd, A, imm32 (SM90): unsigned immediate at 32.
    v.push(
        fs("VIADD", &[Sm90], 0x0180000005097836, 0x000fe40000000000)
            .o(r(16))
            .o(r(24).reuse(0))
            .o(uimm(32, 32)),
    );
    // VIADD[.16x2] Rd, A, [-]B (0x236, SM90; `add.u16x2`): B a register at 32 negated by
    // 63, `.16x2` bit 73 (two 16-bit lanes; clear: one 32-bit add); bit 75 is ignored by
    // nvdisasm (zero). Probed bit by bit on ptxas's word of the generated corpus.
    v.push(
        fs("VIADD", &[Sm90], 0x0000000500057236, 0x0000000000000200)
            .m(73, 1, &[(0, ""), (1, ".16x2")])
            .o(r(16))
            .o(r(24).reuse(0))
            .o(r(32).neg(63).reuse(1)),
    );
}

/// SGXT[.W][.U32] Rd, A, B (sign- or zero-extend from bit B, `szext`) and BMSK[.W] Rd, A, B
/// (a mask of B bits from bit A, `bmsk`): .W (wrap) 75; SGXT's bit 73 = 1 signed (0 prints
/// .U32). B a register (0x2) or an immediate (0x8, SGXT). Probed on SM80 from the
/// generated PTX corpus; the from-scratch test checks every SM.
pub(super) fn sgxt_bmsk(v: &mut Vec<Form>) {
    for (lo, hi) in [
        (0x000000050005721au64, 0x0000000000000000u64),
        (0x000000040409781a, 0x0000000000000000),
    ] {
        let b = if lo & 0x800 != 0 {
            uimm(32, 32)
        } else {
            r(32).reuse(1)
        };
        v.push(
            fs("SGXT", ALL, lo, hi)
                .m(75, 1, &[(0, ""), (1, ".W")])
                .m(73, 1, &[(1, ""), (0, ".U32")])
                .o(r(16))
                .o(r(24).reuse(0))
                .o(b),
        );
    }
    v.push(
        fs("BMSK", ALL, 0x000000050005721b, 0x0000000000000000)
            .m(75, 1, &[(0, ""), (1, ".W")])
            .o(r(16))
            .o(r(24).reuse(0))
            .o(r(32).reuse(1)),
    );
}
