//! The table of instruction forms, with the facts behind each one.
//!
//! Every form was checked with nvdisasm 13.5 (`nvdisasm -b SMxx` on words flipped bit by bit
//! from a ptxas-emitted sample) on the architectures it lists. Bits not named by a field are
//! constants of the form: the sample's value, the only one accepted.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::form::{Form, MemFmt, Opnd, OpndKind};
use crate::{Arch, Word};

use Arch::*;

const ALL: &[Arch] = &Arch::ALL;
const PRE90: &[Arch] = &[Sm75, Sm80, Sm86, Sm89];
const SM80UP: &[Arch] = &[Sm80, Sm86, Sm89, Sm90];
const SM80_89: &[Arch] = &[Sm80, Sm86, Sm89];

fn r(at: u8) -> Opnd {
    Opnd::new(OpndKind::Reg, at, 8)
}
fn ur(at: u8) -> Opnd {
    Opnd::new(OpndKind::UReg, at, 6)
}
fn p(at: u8) -> Opnd {
    Opnd::new(OpndKind::Pred, at, 3)
}
fn up(at: u8) -> Opnd {
    Opnd::new(OpndKind::UPred, at, 3)
}
fn bar(at: u8) -> Opnd {
    Opnd::new(OpndKind::Bar, at, 4)
}
fn uimm(at: u8, w: u8) -> Opnd {
    Opnd::new(OpndKind::UImm, at, w)
}
fn simm(at: u8, w: u8) -> Opnd {
    Opnd::new(OpndKind::SImm, at, w)
}
fn f32i(at: u8) -> Opnd {
    Opnd::new(OpndKind::F32, at, 32)
}
fn cb() -> Opnd {
    Opnd::new(OpndKind::CBank, 38, 16).pieces(&[(38, 16), (54, 5)])
}
fn target(pieces: &[(u8, u8)]) -> Opnd {
    Opnd::new(OpndKind::Target, 0, 0).pieces(pieces).scale(2)
}
fn mem(fmt: MemFmt, desc_at: u8) -> Opnd {
    let mut o = Opnd::new(OpndKind::Mem(fmt), 24, 8);
    o.offset = vec![(40, 24)];
    if fmt == MemFmt::GlobalDesc {
        o.ureg = Some((desc_at, 6));
    }
    o
}

fn shared(ur_at: Option<u8>) -> Opnd {
    let mut o = Opnd::new(OpndKind::Mem(MemFmt::Shared), 24, 8);
    o.offset = vec![(40, 24)];
    o.ureg = ur_at.map(|a| (a, 6));
    o
}

/// A shared-memory address whose register may be scaled by 4 (bit 78: `[R0.X4]`).
fn shared_x4(ur_at: Option<u8>) -> Opnd {
    Opnd {
        x4: Some(78),
        ..shared(ur_at)
    }
}

/// Builds the table.
fn build() -> Vec<Form> {
    let mut v = Vec::new();
    control_flow(&mut v);
    moves(&mut v);
    integer(&mut v);
    memory(&mut v);
    more_integer(&mut v);
    float(&mut v);
    warp(&mut v);
    warp2(&mut v);
    misc(&mut v);
    atomics(&mut v);
    double(&mut v);
    sm75_atomics(&mut v);
    sm90_float_red(&mut v);
    tail(&mut v);
    v
}

fn control_flow(v: &mut Vec<Form>) {
    // NOP: no fields.
    v.push(Form::new(
        "NOP",
        0x918,
        ALL,
        0x0000000000007918,
        0x0000000000000000,
    ));
    // EXIT [Pp]: predicate 87-89, negate 90; hidden when PT.
    v.push(
        Form::new("EXIT", 0x94d, ALL, 0x000000000000794d, 0x0000000003800000)
            .no_sb()
            .o(p(87).not(90).hide(7)),
    );
    // BSYNC Bn: barrier 16-19; predicate 87-90 as EXIT.
    v.push(
        Form::new("BSYNC", 0x941, ALL, 0x0000000000007941, 0x0000000003800000)
            .no_sb()
            .o(p(87).not(90).hide(7))
            .o(bar(16)),
    );
    // BREAK Bn.
    v.push(
        Form::new("BREAK", 0x942, ALL, 0x0000000000007942, 0x0000000003800000)
            .no_sb()
            .o(p(87).not(90).hide(7))
            .o(bar(16)),
    );
    // BSSY Bn, target: barrier 16-19, target offset bits 34-63 (x4 bytes, signed).
    v.push(
        Form::new("BSSY", 0x945, ALL, 0x0000000000007945, 0x0000000003800000)
            .no_sb()
            .o(p(87).not(90).hide(7))
            .o(bar(16))
            .o(target(&[(34, 30)])),
    );
    // BRA [Pp,] target: before SM90 the offset is bits 34-81 (x4 bytes); SM90 adds bits 16-23
    // as offset bits 2-9. .U (32), .DIV (33).
    let bra_mods = [(0, ""), (1, ".U"), (2, ".DIV"), (3, ".CONV")];
    v.push(
        Form::new("BRA", 0x947, PRE90, 0x0000000000007947, 0x0000000000000000)
            .no_sb()
            .m(32, 2, &bra_mods)
            .o(p(87).not(90).hide(7))
            .o(target(&[(34, 48)])),
    );
    v.push(
        Form::new(
            "BRA",
            0x947,
            &[Sm90],
            0x0000000000007947,
            0x0000000000000000,
        )
        .no_sb()
        .m(32, 2, &bra_mods)
        .o(p(87).not(90).hide(7))
        .o(target(&[(16, 8), (34, 48)])),
    );
    // BRX[.INC|.DEC] [Pp,] Ra offset: an indirect branch to Ra plus the next instruction's
    // address plus a signed offset, encoded as BRA's target (x4; SM90 adds bits 16-23 as
    // offset bits 2-9) but printed as the plain offset after a blank (not at all when 0).
    // .INC/.DEC 85-86.
    for (arches, pieces) in [
        (PRE90, &[(34u8, 48u8)][..]),
        (&[Sm90][..], &[(16, 8), (34, 48)][..]),
    ] {
        let mut off = simm(0, 0).pieces(pieces).scale(2).hide(0);
        off.blank_before = true;
        v.push(
            Form::new("BRX", 0x949, arches, 0x0000000000007949, 0x0000000003800000)
                .no_sb()
                .m(85, 2, &[(0, ""), (1, ".INC"), (2, ".DEC")])
                .o(p(87).not(90).hide(7))
                .o(r(24))
                .o(off),
        );
    }
    // WARPSYNC with an immediate mask (32-63).
    v.push(
        Form::new(
            "WARPSYNC",
            0x948,
            PRE90,
            0x0000000000007948,
            0x0000000003800000,
        )
        .no_sb()
        .o(p(87).not(90).hide(7))
        .o(uimm(32, 32)),
    );
    // WARPSYNC with a register mask: bits 32-39 before SM90, bits 24-31 on SM90 (where
    // bit 85 prints .EXCLUSIVE; the other
    // byte is ignored by nvdisasm there, so it is a constant of the form).
    v.push(
        Form::new(
            "WARPSYNC",
            0x348,
            PRE90,
            0x0000000000007348,
            0x0000000003800000,
        )
        .no_sb()
        .o(p(87).not(90).hide(7))
        .o(r(32)),
    );
    v.push(
        Form::new(
            "WARPSYNC",
            0x348,
            &[Sm90],
            0x0000000000007348,
            0x0000000003800000,
        )
        .no_sb()
        .m(85, 1, &[(0, ""), (1, ".EXCLUSIVE")])
        .o(p(87).not(90).hide(7))
        .o(r(24)),
    );
    // BMOV.32 Bn, Rb (0x356): restores convergence barrier 24-27 from register 32-39
    // (bit 84 prints .PQUAD, a constant 0 here). It takes a read scoreboard, no write one.
    v.push(
        Form::new("BMOV", 0x356, ALL, 0x0000000000007356, 0x0000000000000000)
            .no_write_sb()
            .m(0, 0, &[(0, ".32")])
            .o(bar(24))
            .o(r(32)),
    );
    // BMOV.32.CLEAR RZ, Bn: destination 16-23, barrier 24-27.
    v.push(
        Form::new("BMOV", 0x355, ALL, 0x0000000000007355, 0x0000000000100000)
            .no_read_sb()
            .m(84, 1, &[(1, ".32.CLEAR")])
            .o(r(16))
            .o(bar(24)),
    );
}

fn moves(v: &mut Vec<Form>) {
    // S2R Rd, SR: destination 16-23, special register 72-79.
    v.push(
        Form::new("S2R", 0x919, ALL, 0x0000000000007919, 0x0000000000000000)
            .o(r(16))
            .o(Opnd::new(OpndKind::SReg, 72, 8)),
    );
    // CS2R Rd, SR (0x805): a 64-bit read (bit 80 set; clear prints .32, not modelled) of
    // special register 72-79 into the pair Rd 16-23.
    v.push(
        Form::new("CS2R", 0x805, ALL, 0x0000000000007805, 0x000000000001ff00)
            .o(r(16).pair())
            .o(Opnd::new(OpndKind::SReg, 72, 8)),
    );
    // MOV Rd, Rb / imm32 / c[][] / URb; lane mask 72-75 is 0xf (constant).
    v.push(
        Form::new("MOV", 0x202, ALL, 0x0000000000007202, 0x0000000000000f00)
            .o(r(16))
            .o(r(32)),
    );
    v.push(
        Form::new("MOV", 0x802, ALL, 0x0000000000007802, 0x0000000000000f00)
            .o(r(16))
            .o(uimm(32, 32)),
    );
    v.push(
        Form::new("MOV", 0xa02, ALL, 0x00000a0000017a02, 0x0000000000000f00)
            .o(r(16))
            .o(cb()),
    );
    v.push(
        Form::new("MOV", 0xc02, ALL, 0x0000000500057c02, 0x0000000008000f00)
            .o(r(16))
            .o(ur(32)),
    );
    // LDC Rd, c[bank][Ra+off]: size 72-74 (.64 = 5), index register 24-31, offset 38-53,
    // bank 54-58.
    let mut ldc_src = Opnd::new(OpndKind::Mem(MemFmt::CIndexed), 24, 8);
    ldc_src.offset = vec![(38, 16)];
    ldc_src.ureg = Some((54, 5));
    v.push(
        Form::new("LDC", 0xb82, ALL, 0x0000000000007b82, 0x0000000000000800)
            .m(73, 3, &[(4, ""), (5, ".64")])
            .o(r(16))
            .o(ldc_src),
    );
    // ULDC URd, c[bank][off] (.64 at 73).
    v.push(
        Form::new("ULDC", 0xab9, ALL, 0x0000000000007ab9, 0x0000000000000800)
            .m(73, 3, &[(4, ""), (5, ".64")])
            .o(ur(16))
            .o(cb()),
    );
}

/// The second source (`B`) of a three-source ALU op by operand-form selector (bits 9-11):
/// 0x2 register 32-39, 0x8 immediate 32-63, 0xa constant bank, 0xc uniform register 32-37.
fn alu_b(sel: u16, imm: Opnd) -> Opnd {
    match sel {
        0x2 => r(32).reuse(1),
        0x8 => imm,
        0xa => cb(),
        _ => ur(32),
    }
}

fn integer(v: &mut Vec<Form>) {
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
    // ISETP.cmp[.U32].logic Pd, Pq, Ra, B, Pp: compare 76-78, .U32 73, logic 74-75,
    // Pd 81-83, Pq 84-86, Pp 87-89 (negate 90). .EX (72) is a constant 0 here. Bit 73 is
    // *signed*: 1 prints nothing, 0 prints .U32.
    let cmp = [
        (1, ".LT"),
        (2, ".EQ"),
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

/// Operands A, B, C of a three-source op for operand-form selector `sel` (bits 9-11):
/// 0x2 B=R32 C=R64; 0x4 B=R64 C=imm32; 0x6 B=R64 C=c[][]; 0x8 B=imm32 C=R64;
/// 0xa B=c[][] C=R64; 0xc B=UR32 C=R64; 0xe B=R64 C=UR32. C in bits 64-71 may be negated
/// (bit 75); reuse slots are 0, 1, 2 for A, B, C where they are registers in 24/32/64.
fn abc(sel: u16, imm: Opnd, neg_c: bool) -> [Opnd; 3] {
    let a = r(24).reuse(0);
    let rc = if neg_c {
        r(64).neg(75).reuse(2)
    } else {
        r(64).reuse(2)
    };
    match sel {
        0x2 => [a, r(32).reuse(1), rc],
        0x4 => [a, r(64).reuse(1), imm],
        0x6 => [a, r(64).reuse(1), cb()],
        0x8 => [a, imm, rc],
        0xa => [a, cb(), rc],
        0xc => [a, ur(32), rc],
        _ => [a, r(64).reuse(1), ur(32)],
    }
}

fn f_a(w: Word) -> u64 {
    w.get(24, 8)
}
fn is_rz(v: u64) -> bool {
    v == 255
}

/// nvdisasm's names for IMAD (probed on every selector): with .X clear, `.MOV` when A is RZ
/// or a register/immediate B is RZ/0; for an immediate B, `.IADD` when B is 1 and C is not
/// RZ (B = 1 with C = RZ is `.MOV`), `.SHL` when B is a power of two 2..2^30 and C is RZ.
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
            } else if c_rz && b.is_power_of_two() && b <= 1 << 30 {
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

fn memory(v: &mut Vec<Form>) {
    // Global loads and stores. Bit 72 is .E (64-bit address), size 73-75 (4 = 32-bit,
    // 5 = .64); address register 24-31, signed byte offset 40-63. Cache, scope and
    // predicate fields are constants (ptxas's defaults). SM75 prints `.SYS` and the address
    // without `.64`; SM80-SM89 carry a descriptor register in bits 32-37 that nvdisasm does
    // not print (constant UR4 here); SM90 prints it as `desc[URx]`. The descriptor register
    // is in bits 32-37 for loads and 64-69 for stores (whose data register is at 32).
    type Global = (&'static [Arch], u16, u16, u64, u64, MemFmt, &'static str);
    let globals: [Global; 6] = [
        (
            &[Sm75],
            0x381,
            0x386,
            0x00000000001ee900,
            0x000000000010e900,
            MemFmt::Global,
            ".SYS",
        ),
        (
            SM80_89,
            0x981,
            0x986,
            0x000000000c1e1900,
            0x000000000c101904,
            MemFmt::Global64,
            "",
        ),
        (
            &[Sm90],
            0x981,
            0x986,
            0x000000000c1e1900,
            0x000000000c101904,
            MemFmt::GlobalDesc,
            "",
        ),
        (&[], 0, 0, 0, 0, MemFmt::Global, ""),
        (&[], 0, 0, 0, 0, MemFmt::Global, ""),
        (&[], 0, 0, 0, 0, MemFmt::Global, ""),
    ];
    for (arches, ld, st, ld_hi, st_hi, fmt, scope) in globals {
        if arches.is_empty() {
            continue;
        }
        let ur = if fmt == MemFmt::Global { 0 } else { 4u64 << 32 };
        for (size, sfx) in [(4u64, ""), (5, ".64")] {
            let size_bits = |hi: u64| (hi & !(7 << 9)) | size << 9;
            let data = |o: Opnd| if size == 5 { o.pair() } else { o };
            v.push(
                Form::new("LDG", ld, arches, ld as u64 | 0x7000 | ur, size_bits(ld_hi))
                    .m(0, 0, &[(0, ".E")])
                    .m(0, 0, &[(0, sfx)])
                    .m(0, 0, &[(0, scope)])
                    .o(data(r(16)))
                    .o(mem(fmt, 32)),
            );
            v.push(
                Form::new("STG", st, arches, st as u64 | 0x7000 | ur, size_bits(st_hi))
                    .no_write_sb()
                    .m(0, 0, &[(0, ".E")])
                    .m(0, 0, &[(0, sfx)])
                    .m(0, 0, &[(0, scope)])
                    .o(mem(fmt, 64))
                    .o(data(r(32))),
            );
        }
    }
    // Shared loads and stores: address register 24-31, offset 40-63. LDS (0x984): with
    // bit 91 set a uniform register (32-37) is added to the address; .U at bit 76. STS:
    // 0x388 register data at 32; 0x988 (bit 91 set) adds a uniform register at 64-69.
    // nvdisasm prints .U only on SM75; elsewhere bit 76 is a constant 0 here.
    for (bit91, ur_ld) in [(0u64, None), (1 << 27, Some(32))] {
        v.push(
            Form::new(
                "LDS",
                0x984,
                &[Sm75],
                0x0000000000007984,
                0x0000000000000800 | bit91,
            )
            .m(76, 1, &[(0, ""), (1, ".U")])
            .o(r(16))
            .o(shared_x4(ur_ld)),
        );
        v.push(
            Form::new(
                "LDS",
                0x984,
                SM80UP,
                0x0000000000007984,
                0x0000000000000800 | bit91,
            )
            .o(r(16))
            .o(shared_x4(ur_ld)),
        );
    }
    v.push(
        Form::new("STS", 0x388, ALL, 0x0000000000007388, 0x0000000000000800)
            .no_write_sb()
            .o(shared_x4(None))
            .o(r(32)),
    );
    v.push(
        Form::new("STS", 0x988, ALL, 0x0000000000007988, 0x0000000008000800)
            .no_write_sb()
            .o(shared_x4(Some(64)))
            .o(r(32)),
    );
}

/// A form from a ptxas sample word `(lo, hi)`; the opcode is taken from the sample.
fn fs(name: &'static str, arches: &[Arch], lo: u64, hi: u64) -> Form {
    Form::new(name, (lo & 0xfff) as u16, arches, lo, hi)
}

fn more_integer(v: &mut Vec<Form>) {
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
    ] {
        let b = if lo & 0x800 != 0 {
            uimm(32, 32)
        } else {
            r(32).reuse(1)
        };
        v.push(
            fs(name, ALL, lo, hi)
                .o(r(16))
                .o(r(24).reuse(0))
                .o(b)
                .o(p(87).not(90)),
        );
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
    // FLO[.U32][.SH] Rd, B: bit 73 = 1 signed (0 prints .U32), .SH 74.
    v.push(
        fs("FLO", ALL, 0x0000001200147300, 0x0002a200000e0000)
            .m(73, 1, &[(1, ""), (0, ".U32")])
            .m(74, 1, &[(0, ""), (1, ".SH")])
            .o(r(16))
            .o(r(32)),
    );
}

fn float(v: &mut Vec<Form>) {
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
                .m(80, 1, &ftz)
                .m(76, 1, &[(0, ""), (1, ".FMZ")])
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

fn warp(v: &mut Vec<Form>) {
    // SHFL.mode Pd, Rd, A, lane, clamp: mode 58-59 (0 IDX, 1 UP, 2 DOWN, 3 BFLY), Pd 81-83
    // (always printed), A 24. 0xf89: lane immediate 53-57, clamp immediate 40-52;
    // 0x989: lane immediate, clamp register 64; 0x589: lane register 32, clamp immediate.
    let modes = [(0, ".IDX"), (1, ".UP"), (2, ".DOWN"), (3, ".BFLY")];
    for (lo, hi) in [
        (0x0c201f0000077f89u64, 0x00006200000e0000u64),
        (0x0420000003087989, 0x000e6200000000ff),
        (0x00001f0609067589, 0x000e2400000e0000),
    ] {
        let (lane, clamp) = match lo & 0xf00 {
            0xf00 => (uimm(53, 5), uimm(40, 13)),
            0x900 => (uimm(53, 5), r(64)),
            _ => (r(32), uimm(40, 13)),
        };
        v.push(
            fs("SHFL", ALL, lo, hi)
                .m(58, 2, &modes)
                .o(p(81))
                .o(r(16))
                .o(r(24))
                .o(lane)
                .o(clamp),
        );
    }
    // BAR.SYNC id[, count]: barrier id 54-57, thread count 42-53 (hidden when 0).
    // SM80+: bit 80 set prints .DEFER_BLOCKING; SM75 prints plain BAR.SYNC (bit 80 clear).
    v.push(
        fs("BAR", &[Sm75], 0x0000000000007b1d, 0x0000000000000000)
            .no_write_sb()
            .m(0, 0, &[(0, ".SYNC")])
            .o(uimm(54, 4))
            .o(uimm(42, 12).hide(0)),
    );
    v.push(
        fs("BAR", SM80UP, 0x0000000000007b1d, 0x0000000000010000)
            .no_write_sb()
            .m(0, 0, &[(0, ".SYNC")])
            .m(80, 1, &[(0, ""), (1, ".DEFER_BLOCKING")])
            .o(uimm(54, 4))
            .o(uimm(42, 12).hide(0)),
    );
    // CALL.REL[.NOINC] [Pp,] target and RET.REL[.NODEC] [Pp,] Ra target: .NOINC/.NODEC bit
    // 86; target as BRA's (SM90 adds bits 16-23); RET's return register 24-31.
    for (arches, pieces) in [
        (PRE90, &[(34u8, 48u8)][..]),
        (&[Sm90][..], &[(16, 8), (34, 48)][..]),
    ] {
        v.push(
            fs("CALL", arches, 0x0000000000007944, 0x0000000003c00000)
                .no_sb()
                .m(0, 0, &[(0, ".REL")])
                .m(86, 1, &[(0, ""), (1, ".NOINC")])
                .o(p(87).not(90).hide(7))
                .o(target(pieces)),
        );
        let mut t = target(pieces);
        t.blank_before = true;
        v.push(
            fs("RET", arches, 0x0000000000007950, 0x0000000003c00000)
                .no_sb()
                .m(0, 0, &[(0, ".REL")])
                .m(86, 1, &[(0, ""), (1, ".NODEC")])
                .o(p(87).not(90).hide(7))
                .o(r(24))
                .o(t),
        );
    }
    // BRA with a uniform-register condition (bit 91, SM80+; SM75 ignores the register):
    // only .DIV/.CONV exist (nvdisasm prints .INVALIDn otherwise); UR 24-29, `~` at 30.
    let bra_mods = [(2, ".DIV"), (3, ".CONV")];
    for (arches, pieces) in [
        (SM80_89, &[(34u8, 48u8)][..]),
        (&[Sm90][..], &[(16, 8), (34, 48)][..]),
    ] {
        v.push(
            fs("BRA", arches, 0x0000000000007947, 0x0000000008000000)
                .no_sb()
                .m(32, 2, &bra_mods)
                .o(p(87).not(90).hide(7))
                .o(ur(24).not(30))
                .o(target(pieces)),
        );
    }
    // VIADD Rd, A, imm32 (SM90): unsigned immediate at 32.
    v.push(
        fs("VIADD", &[Sm90], 0x0180000005097836, 0x000fe40000000000)
            .o(r(16))
            .o(r(24).reuse(0))
            .o(uimm(32, 32)),
    );
}

fn ur6(at: u8) -> Opnd {
    ur(at)
}

fn warp2(v: &mut Vec<Form>) {
    // PLOP3.LUT Pd, Pq, Pa, Pb, Pc, lut, lut2: Pd 81-83, Pq 84-86, Pa 87-89 (! 90),
    // Pb 77-79 (! 80), Pc 68-70 (! 71), lut bits 0-2 at 64-66 and 3-7 at 72-76, second
    // lut 16-23. Bit 67 (uniform Pc) is a constant 0 here.
    v.push(
        fs("PLOP3", ALL, 0x000000000000781c, 0x0000000000703c20)
            .m(0, 0, &[(0, ".LUT")])
            .o(p(81))
            .o(p(84))
            .o(p(87).not(90))
            .o(p(77).not(80))
            .o(p(68).not(71))
            .o(uimm(0, 0).pieces(&[(64, 3), (72, 5)]))
            .o(uimm(16, 8)),
    );
    // VOTEU.mode [URd,] UPd, Pp (checked on every SM): URd 16-21 (hidden when URZ), mode
    // 72-73 (0 ALL, 1 ANY, 2 EQ), UPd 81-83, Pp 87-90.
    v.push(
        fs("VOTEU", ALL, 0x0000000000047886, 0x00000000038e0100)
            .m(72, 2, &[(0, ".ALL"), (1, ".ANY"), (2, ".EQ")])
            .o(ur6(16).hide(63))
            .o(up(81))
            .o(p(87).not(90)),
    );
    // REDUX[.op][.S32] URd, A (SM80+): op 78-80 (0 AND prints nothing, 1 OR, 2 XOR, 3 SUM,
    // 4 MIN, 5 MAX), .S32 73, URd 16-21, A 24.
    v.push(
        fs("REDUX", SM80UP, 0x00000000060573c4, 0x000000000000c000)
            .m(
                78,
                3,
                &[
                    (0, ""),
                    (1, ".OR"),
                    (2, ".XOR"),
                    (3, ".SUM"),
                    (4, ".MIN"),
                    (5, ".MAX"),
                ],
            )
            .m(73, 1, &[(0, ""), (1, ".S32")])
            .o(ur6(16))
            .o(r(24)),
    );
    // MATCH.ANY[.U64] Rd, A and MATCH.ALL[.U64] Pd, Rd, A: bit 79 set = ANY, clear = ALL
    // (with Pd 81-83); .U64 73 (A is a pair).
    for (u64, sfx) in [(0u64, ""), (1 << 9, ".U64")] {
        let a = if u64 != 0 { r(24).pair() } else { r(24) };
        v.push(
            fs("MATCH", ALL, 0x00000000020073a1, 0x00000000000e8000 | u64)
                .m(0, 0, &[(0, ".ANY")])
                .m(0, 0, &[(0, sfx)])
                .o(r(16))
                .o(a.clone()),
        );
        v.push(
            fs(
                "MATCH",
                ALL,
                0x00000000020073a1,
                (0x00000000000e8000 | u64) & !(1 << 15),
            )
            .m(0, 0, &[(0, ".ALL")])
            .m(0, 0, &[(0, sfx)])
            .o(p(81))
            .o(r(16))
            .o(a),
        );
    }
    // SM90 WARPSYNC.ALL [Pp]: the immediate-mask opcode 0x948 prints no mask on SM90.
    v.push(
        fs("WARPSYNC", &[Sm90], 0x0000000000007948, 0x0000000003800000)
            .no_sb()
            .m(0, 0, &[(0, ".ALL")])
            .o(p(87).not(90).hide(7)),
    );
}

fn misc(v: &mut Vec<Form>) {
    // LEA[.HI][.X][.SX32] Rd, [Pc,] A, B, [C,] shift[, Pp]: Pc 81-83 (hidden when PT), A 24
    // (negate 72, `~` under .X), B by selector, shift 75-79, .X 74 (adds Pp 87-90), .HI 80
    // (adds C at 64 unless .SX32, bit 73).
    for (sel, lo, hi) in [
        (0x2u16, 0x0000000902027211u64, 0x000000000780f0ffu64),
        (0x8, 0x0000000105047811, 0x000000000780f0ff),
        (0xa, 0x0000580005027a11, 0x000000000780f0ff),
        (0xc, 0x0000000605027c11, 0x000000000f80f0ff),
    ] {
        let [_, b, _] = abc(sel, uimm(32, 32), false);
        for (hi_mod, sx32) in [(false, false), (true, false), (true, true)] {
            for x in [false, true] {
                let a = if x { r(24).not(72) } else { r(24).neg(72) }.reuse(0);
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
    // IABS Rd, B.
    v.push(
        fs("IABS", ALL, 0x00000007000a7213, 0x0000000000000000)
            .o(r(16))
            .o(r(32)),
    );
    // PRMT Rd, A, B, C (selectors 0x2, 0x6).
    for (lo, hi) in [
        (0x0000000803087216u64, 0x0000000000000009u64),
        (0x00005c0003087616, 0x000000000000000b),
    ] {
        let sel = ((lo >> 8) & 0xe) as u16;
        let [a, b, c] = abc(sel, uimm(32, 32), false);
        v.push(fs("PRMT", ALL, lo, hi).o(r(16)).o(a).o(b).o(c));
    }
    // MEMBAR.SC.{CTA,GPU}: scope 76-77 (0 CTA, 2 GPU).
    v.push(
        fs("MEMBAR", ALL, 0x0000000000007992, 0x0000000000000000)
            .no_write_sb()
            .m(0, 0, &[(0, ".SC")])
            .m(76, 2, &[(0, ".CTA"), (2, ".GPU")]),
    );
    v.push(fs("ERRBAR", ALL, 0x00000000000079ab, 0x0000000000000000));
    v.push(
        fs("CCTL", ALL, 0x00000000ff00798f, 0x0000000002000000)
            .no_sb()
            .m(0, 0, &[(0, ".IVALL")]),
    );
    v.push(fs("CGAERRBAR", &[Sm90], 0x00000000000075ab, 0x0000000000000000).no_sb());
    // Uniform datapath: UMOV URd, imm32; R2UR URd, A; S2UR URd, SR.
    v.push(
        fs("UMOV", ALL, 0x0000040000047882, 0x0000000000000000)
            .o(ur(16))
            .o(uimm(32, 32)),
    );
    // R2UR [Pd,] URd, A (Pd 81-83 hidden when PT): this encoding (from SM80) is rejected
    // by nvdisasm on SM90.
    v.push(
        fs("R2UR", PRE90, 0x00000000020673c2, 0x00000000000e0000)
            .o(p(81).hide(7))
            .o(ur(16))
            .o(r(24)),
    );
    v.push(
        fs("S2UR", ALL, 0x00000000000579c3, 0x0000000000008800)
            .o(ur(16))
            .o(Opnd::new(OpndKind::SUReg, 72, 8)),
    );
}

fn atomics(v: &mut Vec<Form>) {
    // RED (REDG on SM90) [addr], data and ATOMG Pd, Rd, [addr], data: address 24-31 with
    // offset 40-63 as LDG's, data 32-39, operation 87-89 (RED) / 87-90 (ATOMG), type 73-74
    // (0 U32 prints nothing, 1 .S32, 2 .64 with register pairs); .STRONG.GPU and cache bits
    // are constants. The descriptor register sits in 64-69 (unprinted UR4 on SM75-SM89,
    // `desc[URx]` on SM90). ATOMG's Pd 81-83 is always printed. SM75 reads these constant
    // bits differently (.SYS, an added UR4): not modelled there yet.
    let red_ops: &[(u64, &'static str)] = &[
        (0, ".ADD"),
        (1, ".MIN"),
        (2, ".MAX"),
        (3, ".INC"),
        (4, ".DEC"),
        (5, ".AND"),
        (6, ".OR"),
        (7, ".XOR"),
    ];
    let atom_ops: &[(u64, &'static str)] = &[
        (0, ".ADD"),
        (1, ".MIN"),
        (2, ".MAX"),
        (3, ".INC"),
        (4, ".DEC"),
        (5, ".AND"),
        (6, ".OR"),
        (7, ".XOR"),
        (8, ".EXCH"),
    ];
    let types: [(u64, &'static str, &[u64]); 3] =
        [(0, "", &[]), (1, ".S32", &[0, 1, 2]), (2, ".64", &[0])];
    for (arches, red, fmt, red_hi, atom_hi) in [
        (
            SM80_89,
            "RED",
            MemFmt::Global64,
            0x000000000c10e184u64,
            0x00000000081ee1c4u64,
        ),
        (
            &[Sm90][..],
            "REDG",
            MemFmt::GlobalDesc,
            0x000000000c10e188,
            0x00000000081ee1c8,
        ),
    ] {
        // Float reduction: type 3 prints .F32.FTZ.RN (ADD only) on SM80-SM89; on SM90 the
        // same bits print .S64 (SM90's float reduction is opcode 0x9a6, not modelled).
        if red == "RED" {
            v.push(
                fs(
                    red,
                    arches,
                    0x000004090400098e,
                    ((red_hi & !(0xf << 9)) | 3 << 9) & !(7 << 23),
                )
                .no_write_sb()
                .m(0, 0, &[(0, ".E")])
                .m(87, 3, &[(0, ".ADD")])
                .m(0, 0, &[(0, ".F32.FTZ.RN")])
                .m(0, 0, &[(0, ".STRONG.GPU")])
                .o(mem(fmt, 64))
                .o(r(32)),
            );
        }
        for (ty, ty_name, only) in types {
            let pick = |ops: &[(u64, &'static str)]| -> Vec<(u64, &'static str)> {
                ops.iter()
                    .copied()
                    .filter(|(o, _)| only.is_empty() || only.contains(o))
                    .collect()
            };
            let data = |o: Opnd| if ty == 2 { o.pair() } else { o };
            let hi_t = |hi: u64| (hi & !(0xf << 9)) | ty << 9;
            v.push(
                fs(red, arches, 0x000004090400098e, hi_t(red_hi) & !(7 << 23))
                    .no_write_sb()
                    .m(0, 0, &[(0, ".E")])
                    .m(87, 3, &pick(red_ops))
                    .m(0, 0, &[(0, ty_name)])
                    .m(0, 0, &[(0, ".STRONG.GPU")])
                    .o(mem(fmt, 64))
                    .o(data(r(32))),
            );
            v.push(
                fs(
                    "ATOMG",
                    arches,
                    0x00000003040f89a8,
                    hi_t(atom_hi) & !(0xf << 23),
                )
                .m(0, 0, &[(0, ".E")])
                .m(87, 4, &pick(atom_ops))
                .m(0, 0, &[(0, ty_name)])
                .m(0, 0, &[(0, ".STRONG.GPU")])
                .o(p(81))
                .o(data(r(16)))
                .o(Opnd {
                    rz_ok: false,
                    ..mem(fmt, 64)
                })
                .o(data(r(32))),
            );
        }
    }
}

/// SM90's float reduction, REDG.E.op.F32.FTZ.RN.STRONG.GPU desc[URx][Ra.64+off], Rb (0x9a6):
/// address and data as REDG (0x98e); operation 87-89 with ADD 0, MIN 2, MAX 4 (1 prints
/// `.INVALID25`); the type bits 73-76 are a constant (.F32.FTZ.RN; other values print
/// vector types .F32x2/.F32x4/.F16x4, not modelled).
fn sm90_float_red(v: &mut Vec<Form>) {
    v.push(
        fs("REDG", &[Sm90], 0x000000000a0079a6, 0x000000000c10f388)
            .no_write_sb()
            .m(0, 0, &[(0, ".E")])
            .m(87, 3, &[(0, ".ADD"), (2, ".MIN"), (4, ".MAX")])
            .m(0, 0, &[(0, ".F32.FTZ.RN")])
            .m(0, 0, &[(0, ".STRONG.GPU")])
            .o(mem(MemFmt::GlobalDesc, 64))
            .o(r(32)),
    );
}

fn sm75_atomics(v: &mut Vec<Form>) {
    // SM75 RED/ATOMG with a uniform-register address (bit 91; `[UR4+0x4]`): address
    // register 64-69, offset 40-63; the GPR address field is a constant RZ. Operation,
    // type and the printed .STRONG.GPU as on SM80.
    let mut addr = Opnd::new(OpndKind::Mem(MemFmt::UrAddr), 0, 0).pieces(&[]);
    addr.offset = vec![(40, 24)];
    addr.ureg = Some((64, 6));
    let ops: &[(u64, &'static str)] = &[
        (0, ".ADD"),
        (1, ".MIN"),
        (2, ".MAX"),
        (3, ".INC"),
        (4, ".DEC"),
        (5, ".AND"),
        (6, ".OR"),
        (7, ".XOR"),
        (8, ".EXCH"),
    ];
    let types: [(u64, &'static str, &[u64]); 3] =
        [(0, "", &[]), (1, ".S32", &[0, 1, 2]), (2, ".64", &[0])];
    for (ty, ty_name, only) in types {
        let pick = |n: usize| -> Vec<(u64, &'static str)> {
            ops[..n]
                .iter()
                .copied()
                .filter(|(o, _)| only.is_empty() || only.contains(o))
                .collect()
        };
        let data = |o: Opnd| if ty == 2 { o.pair() } else { o };
        v.push(
            fs(
                "RED",
                &[Sm75],
                0x00000405ff00098e,
                (0x000000000c114104 & !(0xf << 9) & !(7 << 23)) | ty << 9,
            )
            .no_write_sb()
            .m(0, 0, &[(0, ".E")])
            .m(87, 3, &pick(8))
            .m(0, 0, &[(0, ty_name)])
            .m(0, 0, &[(0, ".STRONG.GPU")])
            .o(addr.clone())
            .o(data(r(32))),
        );
        v.push(
            fs(
                "ATOMG",
                &[Sm75],
                0x00000003ff0489a8,
                (0x00000000081f4144 & !(0xf << 9) & !(0xf << 23)) | ty << 9,
            )
            .m(0, 0, &[(0, ".E")])
            .m(87, 4, &pick(9))
            .m(0, 0, &[(0, ty_name)])
            .m(0, 0, &[(0, ".STRONG.GPU")])
            .o(p(81))
            .o(data(r(16)))
            .o(addr.clone())
            .o(data(r(32))),
        );
    }
    // SM75 float reduction: type 3 (73-74) prints .F32.FTZ.RN, as on SM80-SM89; ADD only.
    v.push(
        fs(
            "RED",
            &[Sm75],
            0x00000405ff00098e,
            (0x000000000c114104 & !(0xf << 9) & !(7 << 23)) | 3 << 9,
        )
        .no_write_sb()
        .m(0, 0, &[(0, ".E")])
        .m(87, 3, &[(0, ".ADD")])
        .m(0, 0, &[(0, ".F32.FTZ.RN")])
        .m(0, 0, &[(0, ".STRONG.GPU")])
        .o(addr.clone())
        .o(r(32)),
    );
    // ATOMG.E.CAS.STRONG.GPU Pd, Rd, [Ra+off], B, C (0x3a9, 32-bit): nvdisasm prints the
    // address without `.64` on every SM; B 32-39, C 64-71; the constant bits differ
    // between SM75 and SM80+.
    for (arches, hi) in [
        (&[Sm75][..], 0x00000000001f4103u64),
        (SM80UP, 0x00000000001ee103),
    ] {
        v.push(
            fs("ATOMG", arches, 0x00000c02061173a9, hi)
                .m(0, 0, &[(0, ".E.CAS.STRONG.GPU")])
                .o(p(81))
                .o(r(16))
                .o(Opnd {
                    rz_ok: false,
                    ..mem(MemFmt::Global, 0)
                })
                // SM75 prints a B of RZ as `???255`: refused there.
                .o(Opnd {
                    rz_ok: arches != [Sm75],
                    ..r(32)
                })
                .o(r(64)),
        );
    }
    // SM75 ATOMS: as on SM80+, but ptxas leaves bits 64-71 at 0xff.
    let atom_ops = ops.to_vec();
    v.push(
        fs("ATOMS", &[Sm75], 0x00040008ffff038c, 0x00000000000000ff)
            .m(87, 4, &atom_ops)
            .m(73, 1, &[(0, ""), (1, ".S32")])
            .o(r(16))
            .o(shared(None))
            .o(r(32)),
    );
}

fn double(v: &mut Vec<Form>) {
    // DADD[.rnd] Rd, A, C: register pairs; A 24 (negate 72, |.| 73), the second source is in
    // the C slot (64-71, negate 75, |.| 74); rounding 78-79.
    v.push(
        fs("DADD", ALL, 0x0000000008087229, 0x000000000000000a)
            .m(78, 2, &[(0, ""), (1, ".RM"), (2, ".RP"), (3, ".RZ")])
            .o(r(16).pair())
            .o(r(24).pair().neg(72).abs(73).reuse(0))
            .o(r(64).pair().neg(75).abs(74).reuse(2)),
    );
    // DSETP.cmp.logic Pd, Pq, A, B, Pp: pairs A 24 (negate 72, |.| 73), B 32 (negate 63,
    // |.| 62); compare 76-79 as FSETP's except that 0 is MIN and 15 is MAX.
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
            .o(r(32).pair().neg(63).abs(62).reuse(1))
            .o(p(87).not(90)),
    );
    // ATOMS.op[.type] Rd, [Ra+off], data (0x38c): operation 87-90 (as ATOMG), type 73-74.
    let atom_ops = [
        (0, ".ADD"),
        (1, ".MIN"),
        (2, ".MAX"),
        (3, ".INC"),
        (4, ".DEC"),
        (5, ".AND"),
        (6, ".OR"),
        (7, ".XOR"),
        (8, ".EXCH"),
    ];
    // ATOMS with a uniform register added to the address (0x98c, bit 91; UR 64-69).
    v.push(
        fs("ATOMS", ALL, 0x00000006ffff098c, 0x0000000008000004)
            .m(87, 4, &atom_ops)
            .m(73, 1, &[(0, ""), (1, ".S32")])
            .o(r(16))
            .o(shared(Some(64)))
            .o(r(32)),
    );
    v.push(
        fs("ATOMS", SM80UP, 0x00040008ffff038c, 0x0000000000000000)
            .m(87, 4, &atom_ops)
            .m(73, 1, &[(0, ""), (1, ".S32")])
            .o(r(16))
            .o(shared(None))
            .o(r(32)),
    );
}

fn tail(v: &mut Vec<Form>) {
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
    // VIMNMX[.U32] Rd, A, B, Pp (SM90): bit 72 = 1 signed; B register 32 or immediate.
    for (lo, hi) in [
        (0x0000000903027248u64, 0x0000000007fe0100u64),
        (0xfffffffd07007848, 0x0000000007fe0100),
    ] {
        let b = if lo & 0x800 != 0 {
            simm(32, 32)
        } else {
            r(32).reuse(1)
        };
        v.push(
            fs("VIMNMX", &[Sm90], lo, hi)
                .m(72, 1, &[(1, ""), (0, ".U32")])
                .o(r(16))
                .o(r(24).reuse(0))
                .o(b)
                .o(p(87).not(90)),
        );
    }
    // HFMA2.MMA Rd, A, B, hi, lo: A 24 (negate 72, |.| 73), B 64 (negate 84, |.| 83), two
    // half-precision immediates printed high half (48-63) first, then low (32-47); .FTZ 80,
    // .FMZ 76, .SAT 77. ptxas uses it as a move of a constant. This encoding is illegal on
    // SM75.
    v.push(
        fs("HFMA2", SM80UP, 0x00000004ff077435, 0x00000000000001ff)
            .m(0, 0, &[(0, ".MMA")])
            .m(80, 1, &[(0, ""), (1, ".FTZ")])
            .m(76, 1, &[(0, ""), (1, ".FMZ")])
            .m(77, 1, &[(0, ""), (1, ".SAT")])
            .o(r(16))
            .o(r(24).neg(72).abs(73).reuse(0))
            .o(r(64).neg(84).abs(83).reuse(1))
            .o(Opnd::new(OpndKind::F16, 48, 16))
            .o(Opnd::new(OpndKind::F16, 32, 16)),
    );
    // YIELD [Pp].
    v.push(
        fs("YIELD", ALL, 0x0000000000007946, 0x0000000003800000)
            .no_sb()
            .o(p(87).not(90).hide(7)),
    );
}

/// Every form, in decode priority order.
pub fn all() -> &'static [Form] {
    &table().forms
}

struct Table {
    forms: Vec<Form>,
    by_opcode: HashMap<u16, Vec<usize>>,
    by_name: HashMap<&'static str, Vec<usize>>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut forms = build();
        for f in &mut forms {
            f.cached_mask = f.const_mask();
        }
        let mut by_opcode: HashMap<u16, Vec<usize>> = HashMap::new();
        let mut by_name: HashMap<&'static str, Vec<usize>> = HashMap::new();
        for (i, f) in forms.iter().enumerate() {
            by_opcode.entry(f.opcode).or_default().push(i);
            by_name.entry(f.name).or_default().push(i);
        }
        Table {
            forms,
            by_opcode,
            by_name,
        }
    })
}

/// The forms of `arch` with opcode bits `opcode`, in table order.
pub fn for_opcode(arch: Arch, opcode: u16) -> impl Iterator<Item = &'static Form> {
    let t = table();
    t.by_opcode
        .get(&opcode)
        .into_iter()
        .flatten()
        .map(|&i| &t.forms[i])
        .filter(move |f| f.on(arch))
}

/// The forms of `arch` whose base mnemonic is `name`, in table order.
pub fn by_name(arch: Arch, name: &str) -> impl Iterator<Item = &'static Form> + '_ {
    let t = table();
    t.by_name
        .get(name)
        .into_iter()
        .flatten()
        .map(|&i| &t.forms[i])
        .filter(move |f| f.on(arch))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::form::{pieces_mask, GUARD_BITS};

    #[test]
    fn fields_do_not_overlap_and_samples_decode() {
        for f in all() {
            let mut seen: u128 = GUARD_BITS;
            let mut check = |m: u128, what: &str| {
                assert_eq!(seen & m, 0, "{} {:#x}: {what} overlaps", f.name, f.opcode);
                seen |= m;
            };
            for m in &f.mods {
                check(pieces_mask(&m.pieces), "modifier");
            }
            for o in &f.ops {
                check(o.bits(), "operand");
            }
            assert_eq!(f.sample.get(0, 12) as u16, f.opcode, "{}", f.name);
        }
    }
}
