//! Uniform-datapath arithmetic: ULEA, UIADD3, UFLO, ULOP3, USHF, UISETP, USEL, UPRMT, UPOPC,
//! UBREV, UIMAD, register-to-register UMOV, SM90's R2UR and PLOP3 with a uniform source.
//!
//! Uniform registers are 6-bit fields (bits 6-7 of the 8-bit slots are ignored by nvdisasm
//! and zero in ptxas output: constants); predicates are uniform predicates, and so is the
//! guard (`@!UP0`, see `Form::uniform_guard`). Every layout here was probed bit by bit on
//! every SM with the same result; ptxas emits them mostly for SM90.

use super::*;

pub(super) fn ulea(v: &mut Vec<Form>) {
    // ULEA[.HI][.X][.SX32] URd, [UPc,] A, B, [C,] shift[, UPp] (0x291, B a uniform register):
    // as LEA on uniform registers (6-bit fields 16, 24, 32, 64), uniform predicates; A
    // negate 72, B negate 63 (`~` under .X).
    for (hi_mod, sx32) in [(false, false), (true, false), (true, true)] {
        for x in [false, true] {
            let mut h = 0x000000000f8e003fu64;
            h |= (hi_mod as u64) << 16 | (sx32 as u64) << 9 | (x as u64) << 10;
            let (a, b) = if x {
                (ur(24).not(72), ur(32).not(63))
            } else {
                (ur(24).neg(72), ur(32).neg(63))
            };
            let mut f = fs("ULEA", ALL, 0x0000000405077291, h)
                .m(80, 1, if hi_mod { &[(1, ".HI")] } else { &[(0, "")] })
                .m(74, 1, if x { &[(1, ".X")] } else { &[(0, "")] })
                .m(73, 1, if sx32 { &[(1, ".SX32")] } else { &[(0, "")] })
                .o(ur(16))
                .o(up(81).hide(7))
                .o(a)
                .o(b);
            if hi_mod && !sx32 {
                f = f.o(ur(64));
            }
            f = f.o(uimm(75, 5));
            if x {
                f = f.o(up(87).not(90));
            }
            v.push(f);
        }
    }
}

pub(super) fn uiadd3_uflo(v: &mut Vec<Form>) {
    // UIADD3 URd, [UPc0,] [UPc1,] A, B, C on uniform registers (6-bit fields at 16, 24, 32,
    // 64): as IADD3 with uniform predicates. 0x890: B immediate; 0x290: B uniform register.
    for (lo, hi) in [
        (0x0000040004047890u64, 0x000000000fffe03fu64),
        (0x000000053f057290, 0x000000000fffe03f),
    ] {
        for x in [false, true] {
            let b = if lo & 0x800 != 0 {
                simm(32, 32)
            } else if x {
                ur(32).not(63)
            } else {
                ur(32).neg(63)
            };
            let a = if x { ur(24).not(72) } else { ur(24).neg(72) };
            let c = if x { ur(64).not(75) } else { ur(64).neg(75) };
            let mut f = fs("UIADD3", ALL, lo, hi | if x { 1 << 10 } else { 0 })
                .m(74, 1, if x { &[(1, ".X")] } else { &[(0, "")] })
                .o(ur(16))
                .o(up(81).hide(7))
                .o(up(84).hide(7))
                .o(a)
                .o(b)
                .o(c);
            if x {
                f = f.o(up(87).not(90)).o(up(77).not(80));
            }
            v.push(f);
        }
    }
    // UFLO[.U32][.SH] URd, [UPd,] B: bit 73 = 1 signed, .SH 74, UPd 81-83 hidden when UPT.
    v.push(
        fs("UFLO", ALL, 0x00000004000472bd, 0x00000000080e0000)
            .m(73, 1, &[(1, ""), (0, ".U32")])
            .m(74, 1, &[(0, ""), (1, ".SH")])
            .o(ur(16))
            .o(up(81).hide(7))
            .o(ur(32)),
    );
}

pub(super) fn uniform_alu(v: &mut Vec<Form>) {
    // ULOP3.LUT [UPd,] URd, A, B, C, lut, UPp: as LOP3. UPd 81-83 (hidden when UPT), LUT
    // 72-79, .PAND 80, UPp 87-89 (! 90). 0x292: B a uniform register; 0x892: B imm32.
    for (lo, hi) in [
        (0x0000000a0b147292u64, 0x000000000f8e9610u64),
        (0x000000550e107892, 0x000000000f8efc3f),
    ] {
        let b = if lo & 0x800 != 0 {
            uimm(32, 32)
        } else {
            ur(32)
        };
        v.push(
            fs("ULOP3", ALL, lo, hi)
                .m(0, 0, &[(0, ".LUT")])
                .m(80, 1, &[(0, ""), (1, ".PAND")])
                .o(up(81).hide(7))
                .o(ur(16))
                .o(ur(24))
                .o(b)
                .o(ur(64))
                .o(uimm(72, 8))
                .o(up(87).not(90)),
        );
    }
    // USHF.dir[.W].type[.HI] URd, A, B, C: as SHF (direction 76, .W 75, type 73-74, .HI
    // 80). 0x299: B a uniform register; 0x899: B an unsigned immediate.
    for (lo, hi) in [
        (0x000000113f167299u64, 0x0000000008011404u64),
        (0x00000007282a7899, 0x0000000008010213),
    ] {
        let b = if lo & 0x800 != 0 {
            uimm(32, 32)
        } else {
            ur(32)
        };
        v.push(
            fs("USHF", ALL, lo, hi)
                .m(76, 1, &[(0, ".L"), (1, ".R")])
                .m(75, 1, &[(0, ""), (1, ".W")])
                .m(73, 2, &[(0, ".S64"), (1, ".U64"), (2, ".S32"), (3, ".U32")])
                .m(80, 1, &[(0, ""), (1, ".HI")])
                .o(ur(16))
                .o(ur(24))
                .o(b)
                .o(ur(64)),
        );
    }
    // UISETP.cmp[.U32].logic[.EX] UPd, UPq, A, B, UPp[, UPc] (0x28c, B a uniform register):
    // as ISETP. Compare 76-78 (0 F ... 7 T), bit 73 = 1 signed, logic 74-75, .EX 72 with the
    // carry-in UPc 68-70 (! 71), printed on every SM (a constant UPT without .EX).
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
    for (ex, lo, hi) in [
        (false, 0x0000000c1600728cu64, 0x000000000bf61270u64),
        (true, 0x000000271600728c, 0x000000000bf04120),
    ] {
        let mut f = fs("UISETP", ALL, lo, hi)
            .m(76, 3, &cmp)
            .m(73, 1, &[(1, ""), (0, ".U32")])
            .m(74, 2, &[(0, ".AND"), (1, ".OR"), (2, ".XOR")])
            .m(72, 1, if ex { &[(1, ".EX")] } else { &[(0, "")] })
            .o(up(81))
            .o(up(84))
            .o(ur(24))
            .o(ur(32))
            .o(up(87).not(90));
        if ex {
            f = f.o(up(68).not(71));
        }
        v.push(f);
    }
    // USEL URd, A, B, UPp (0x287): UPp 87-89 (! 90).
    v.push(
        fs("USEL", ALL, 0x0000000c161f7287, 0x000000000d800000)
            .o(ur(16))
            .o(ur(24))
            .o(ur(32))
            .o(up(87).not(90)),
    );
    // UPRMT URd, A, B, C: 0x296 B a uniform register, 0x896 B an unsigned immediate; C 64.
    // Bit 72 selects a mode (`.???1`, not modelled: a constant 0).
    for (lo, hi) in [
        (0x0000001c14207296u64, 0x000000000800000cu64),
        (0x0000888004047896, 0x000000000800003f),
    ] {
        let b = if lo & 0x800 != 0 {
            uimm(32, 32)
        } else {
            ur(32)
        };
        v.push(fs("UPRMT", ALL, lo, hi).o(ur(16)).o(ur(24)).o(b).o(ur(64)));
    }
    // UPOPC URd, B (0x2bf) and UBREV URd, B (0x2be): B at 32.
    for (name, lo) in [
        ("UPOPC", 0x00000014001f72bfu64),
        ("UBREV", 0x00000014001672be),
    ] {
        v.push(fs(name, ALL, lo, 0x0000000008000000).o(ur(16)).o(ur(32)));
    }
    // UIMAD[.WIDE][.U32][.X] URd, [UPd,] A, B, C[, UPp]: as IMAD without alternative names.
    // Bit 73 = 1 signed, .X 74 (adds the carry-in UPp 87-89, ! 90; C's negate bit 75 then
    // prints `~`). .WIDE (0x2a5, 0x8a5) writes a carry-out UPd 81-83, hidden when UPT.
    // 0x2a4/0x2a5: B a uniform register; 0x8a5: B a signed immediate.
    for (lo, hi) in [
        (0x0000000d040672a4u64, 0x000000000f8e023fu64),
        (0x0000000c140a72a5, 0x000000000f8e000a),
        (0x00000004140888a5, 0x000000000f8e0008),
    ] {
        let wide = lo & 0xff == 0xa5;
        for x in [false, true] {
            let b = if lo & 0x800 != 0 {
                simm(32, 32)
            } else {
                ur(32)
            };
            let c = if x { ur(64).not(75) } else { ur(64).neg(75) };
            let mut f = fs("UIMAD", ALL, lo, hi | (x as u64) << 10)
                .m(0, 0, &[(0, if wide { ".WIDE" } else { "" })])
                .m(73, 1, &[(1, ""), (0, ".U32")])
                .m(74, 1, if x { &[(1, ".X")] } else { &[(0, "")] })
                .o(ur(16));
            if wide {
                f = f.o(up(81).hide(7));
            }
            f = f.o(ur(24)).o(b).o(c);
            if x {
                f = f.o(up(87).not(90));
            }
            v.push(f);
        }
    }
    // UMOV URd, URb (0xc82): B at 32.
    v.push(
        fs("UMOV", ALL, 0x0000000600077c82, 0x0000000008000000)
            .o(ur(16))
            .o(ur(32)),
    );
    // SM90 R2UR [Pd,] URd, A (0x2ca): Pd 81-83 hidden when PT; bit 84 (.OR, which prints
    // Pd) is a constant 0. The guard is an ordinary predicate.
    // The source's reuse flag (bit 122) prints `.reuse` on SM90 only (nvdisasm ignores it
    // before, so the SM75-89 form keeps it a constant).
    v.push(
        fs("R2UR", &[Sm90], 0x00000000022972ca, 0x00000000000e0000)
            .o(p(81).hide(7))
            .o(ur(16))
            .o(r(24).reuse(0)),
    );
    // PLOP3.LUT with bit 67 set: its third source is a uniform predicate (68-70, ! 71).
    v.push(
        fs("PLOP3", ALL, 0x000000000000781c, 0x0000000003f2f008)
            .m(0, 0, &[(0, ".LUT")])
            .o(p(81))
            .o(p(84))
            .o(p(87).not(90))
            .o(p(77).not(80))
            .o(up(68).not(71))
            .o(uimm(0, 0).pieces(&[(64, 3), (72, 5)]))
            .o(uimm(16, 8)),
    );
}

pub(super) fn uniform_more(v: &mut Vec<Form>) {
    // UISETP with B a signed immediate (0x88c, 32-63): otherwise as with a uniform register.
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
    for ex in [false, true] {
        let mut f = fs(
            "UISETP",
            ALL,
            0x000000041600788c,
            0x000fe2000bf61270 | (ex as u64) << 8,
        )
        .m(76, 3, &cmp)
        .m(73, 1, &[(1, ""), (0, ".U32")])
        .m(74, 2, &[(0, ".AND"), (1, ".OR"), (2, ".XOR")])
        .m(72, 1, if ex { &[(1, ".EX")] } else { &[(0, "")] })
        .o(up(81))
        .o(up(84))
        .o(ur(24))
        .o(simm(32, 32))
        .o(up(87).not(90));
        if ex {
            f = f.o(up(68).not(71));
        }
        v.push(f);
    }
    // UPLOP3.LUT UPd, UPq, UPa, UPb, UPc, lut, lut2 (0x89c): PLOP3's layout on uniform
    // predicates (81, 84, 87 ! 90, 77 ! 80, 68 ! 71; lut 64-66 and 72-76, lut2 16-23).
    v.push(
        fs("UPLOP3", ALL, 0x000000000000789c, 0x0000000003f2f008)
            .m(0, 0, &[(0, ".LUT")])
            .o(up(81))
            .o(up(84))
            .o(up(87).not(90))
            .o(up(77).not(80))
            .o(up(68).not(71))
            .o(uimm(0, 0).pieces(&[(64, 3), (72, 5)]))
            .o(uimm(16, 8)),
    );
}
