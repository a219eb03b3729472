//! Uniform-datapath arithmetic: ULEA, UIADD3 and UFLO.

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
