//! The typed instruction API against facts known independently of the code: the text
//! nvdisasm prints for instructions built in Rust (the printer itself is checked against
//! nvdisasm by the corpus and from-scratch tests), and the registers each one reads and
//! writes, from the operations' definitions (IADD3 writes its carry-outs, BSSY its
//! barrier, a 64-bit load a register pair, ...).

use tangle_sass::typed::{
    b, p, r, ur, Addr, BoolOp, Guard, IntCmp, Loc, MachInst, MemSize, Operand, Val, PT, RZ,
};
use tangle_sass::{decode_typed, Arch, Control, Op, SassError, Word};

fn text(i: &MachInst, arch: Arch) -> String {
    i.text(arch, 0).unwrap()
}

#[test]
fn iadd3_builds_prints_and_has_its_roles() {
    for arch in Arch::ALL {
        let add = MachInst::build(Op::Iadd3)
            .o(r(1))
            .o(r(2))
            .o(r(3))
            .o(RZ)
            .finish(arch)
            .unwrap();
        assert_eq!(text(&add, arch), "IADD3 R1, R2, R3, RZ");
        assert_eq!(add.defs(), vec![Loc::R(1)]);
        assert_eq!(add.uses(), vec![Loc::R(2), Loc::R(3)]);
        // With a carry-out: the predicate is written.
        let add = MachInst::build(Op::Iadd3)
            .o(r(1))
            .o(p(0))
            .o(r(2))
            .o(-r(3))
            .o(RZ)
            .finish(arch)
            .unwrap();
        assert_eq!(text(&add, arch), "IADD3 R1, P0, R2, -R3, RZ");
        assert_eq!(add.defs(), vec![Loc::R(1), Loc::P(0)]);
        // .X reads its carry-ins.
        let addx = MachInst::build(Op::Iadd3)
            .m(".X")
            .o(r(5))
            .o(r(6))
            .o(!r(7))
            .o(RZ)
            .o(p(0))
            .o(!PT)
            .finish(arch)
            .unwrap();
        assert_eq!(text(&addx, arch), "IADD3.X R5, R6, ~R7, RZ, P0, !PT");
        assert_eq!(addx.defs(), vec![Loc::R(5)]);
        assert_eq!(addx.uses(), vec![Loc::R(6), Loc::R(7), Loc::P(0)]);
        // Decoding the word gives the same typed instruction back.
        let w = addx.encode(arch, 0x40).unwrap();
        assert_eq!(decode_typed(arch, w, 0x40).unwrap(), addx);
    }
}

#[test]
fn compares_take_typed_modifiers_and_write_predicates() {
    let arch = Arch::Sm86;
    let cmp = MachInst::build(Op::Isetp)
        .m(BoolOp::And)
        .m(IntCmp::Ge)
        .o(p(0))
        .o(PT)
        .o(r(2))
        .imm(0x10)
        .o(PT)
        .guard(Guard::p(p(3)).negate())
        .finish(arch)
        .unwrap();
    assert_eq!(text(&cmp, arch), "@!P3 ISETP.GE.AND P0, PT, R2, 0x10, PT");
    assert_eq!(cmp.modifier::<IntCmp>(), Some(IntCmp::Ge));
    assert_eq!(cmp.modifier::<BoolOp>(), Some(BoolOp::And));
    assert_eq!(cmp.defs(), vec![Loc::P(0)]);
    assert_eq!(cmp.uses(), vec![Loc::P(3), Loc::R(2)]);
    // The unsigned compare is the same operation with .U32.
    let u = MachInst::build(Op::Isetp)
        .m(IntCmp::Lt)
        .m(".U32")
        .m(BoolOp::Or)
        .o(p(1))
        .o(p(2))
        .o(r(4))
        .o(r(5))
        .o(!p(6))
        .finish(arch)
        .unwrap();
    assert_eq!(text(&u, arch), "ISETP.LT.U32.OR P1, P2, R4, R5, !P6");
    assert_eq!(u.defs(), vec![Loc::P(1), Loc::P(2)]);
    assert_eq!(u.uses(), vec![Loc::R(4), Loc::R(5), Loc::P(6)]);
}

#[test]
fn convergence_barriers_define_and_use_their_register() {
    for arch in Arch::ALL {
        let bssy = MachInst::build(Op::Bssy)
            .o(b(0))
            .target(0x80)
            .finish(arch)
            .unwrap();
        let w = bssy.encode(arch, 0x10).unwrap();
        let back = decode_typed(arch, w, 0x10).unwrap();
        assert_eq!(back.target(), Some(0x80));
        assert_eq!(back.op(), Op::Bssy);
        assert_eq!(back.defs(), vec![Loc::B(0)]);
        assert!(back.uses().is_empty());
        assert_eq!(back.operands.iter().find_map(Operand::as_bar), Some(b(0)));
        let bsync = MachInst::build(Op::Bsync).o(b(0)).finish(arch).unwrap();
        assert_eq!(text(&bsync, arch), "BSYNC B0");
        assert_eq!(bsync.uses(), vec![Loc::B(0)]);
        assert!(bsync.defs().is_empty());
        let brk = MachInst::build(Op::Break)
            .o(b(2))
            .guard(Guard::p(p(1)))
            .finish(arch)
            .unwrap();
        assert_eq!(text(&brk, arch), "@P1 BREAK B2");
        assert_eq!(brk.defs(), vec![Loc::B(2)]);
        assert_eq!(brk.uses(), vec![Loc::P(1), Loc::B(2)]);
    }
}

#[test]
fn memory_operations_cover_register_pairs() {
    // SM86: `LDG.E.64 R2, [R4.64]` writes R2:R3, reads R4:R5 and the descriptor UR4:UR5.
    let ld = MachInst::build(Op::Ldg)
        .m(".E")
        .m(MemSize::B64)
        .o(r(2))
        .o(Addr::new(r(4), 0))
        .finish(Arch::Sm86)
        .unwrap();
    assert_eq!(text(&ld, Arch::Sm86), "LDG.E.64 R2, [R4.64]");
    assert_eq!(ld.defs(), vec![Loc::R(2), Loc::R(3)]);
    assert_eq!(
        ld.uses(),
        vec![Loc::R(4), Loc::R(5), Loc::Ur(4), Loc::Ur(5)]
    );
    // SM90 prints the descriptor.
    let ld = MachInst::build(Op::Ldg)
        .m(".E")
        .o(r(7))
        .o(Addr::new(r(4), 0x10).with_ureg(ur(6)))
        .finish(Arch::Sm90)
        .unwrap();
    assert_eq!(text(&ld, Arch::Sm90), "LDG.E R7, desc[UR6][R4.64+0x10]");
    assert_eq!(ld.defs(), vec![Loc::R(7)]);
    assert_eq!(
        ld.uses(),
        vec![Loc::R(4), Loc::R(5), Loc::Ur(6), Loc::Ur(7)]
    );
    // A store defines nothing.
    let st = MachInst::build(Op::Stg)
        .m(".E")
        .o(Addr::new(r(4), -0x10))
        .o(r(9))
        .finish(Arch::Sm80)
        .unwrap();
    assert_eq!(text(&st, Arch::Sm80), "STG.E [R4.64+-0x10], R9");
    assert!(st.defs().is_empty());
    // Sub-word stores and 128-bit loads (sizes probed with nvdisasm on SM75, SM86, SM90).
    let st8 = MachInst::build(Op::Stg)
        .m(".E")
        .m(MemSize::U8)
        .o(Addr::new(r(4), 0))
        .o(r(9))
        .finish(Arch::Sm86)
        .unwrap();
    assert_eq!(text(&st8, Arch::Sm86), "STG.E.U8 [R4.64], R9");
    assert_eq!(st8.modifier::<MemSize>(), Some(MemSize::U8));
    let ld128 = MachInst::build(Op::Ldg)
        .m(".E")
        .m(MemSize::B128)
        .o(r(8))
        .o(Addr::new(r(4), 0).with_ureg(ur(4)))
        .finish(Arch::Sm90)
        .unwrap();
    assert_eq!(text(&ld128, Arch::Sm90), "LDG.E.128 R8, desc[UR4][R4.64]");
    assert_eq!(
        ld128.defs(),
        vec![Loc::R(8), Loc::R(9), Loc::R(10), Loc::R(11)]
    );
    // 64-bit arithmetic: pairs everywhere.
    let dadd = MachInst::build(Op::Dadd)
        .o(r(2))
        .o(r(4))
        .o(-r(6))
        .finish(Arch::Sm75)
        .unwrap();
    assert_eq!(text(&dadd, Arch::Sm75), "DADD R2, R4, -R6");
    assert_eq!(dadd.defs(), vec![Loc::R(2), Loc::R(3)]);
    assert_eq!(
        dadd.uses(),
        vec![Loc::R(4), Loc::R(5), Loc::R(6), Loc::R(7)]
    );
    let wide = MachInst::build(Op::Imad)
        .m(".WIDE")
        .o(r(2))
        .o(r(3))
        .imm(4)
        .o(r(4))
        .finish(Arch::Sm89)
        .unwrap();
    assert_eq!(text(&wide, Arch::Sm89), "IMAD.WIDE R2, R3, 0x4, R4");
    assert_eq!(wide.defs(), vec![Loc::R(2), Loc::R(3)]);
    assert_eq!(wide.uses(), vec![Loc::R(3), Loc::R(4), Loc::R(5)]);
}

#[test]
fn predicate_register_moves_have_implicit_operands() {
    let arch = Arch::Sm80;
    // R2P PR, R8, 0x5 writes P0 and P2.
    let r2p = MachInst::build(Op::R2p)
        .o(r(8))
        .imm(5)
        .finish(arch)
        .unwrap();
    assert_eq!(text(&r2p, arch), "R2P PR, R8, 0x5");
    assert_eq!(r2p.defs(), vec![Loc::P(0), Loc::P(2)]);
    assert_eq!(r2p.uses(), vec![Loc::R(8)]);
    // The byte select is given as a modifier.
    let r2p = MachInst::build(Op::R2p)
        .m(".B1")
        .o(r(8))
        .imm(5)
        .finish(arch)
        .unwrap();
    assert_eq!(text(&r2p, arch), "R2P PR, R8.B1, 0x5");
    // P2R R9, PR, RZ, 0x3 reads P0 and P1.
    let p2r = MachInst::build(Op::P2r)
        .o(r(9))
        .o(RZ)
        .imm(3)
        .finish(arch)
        .unwrap();
    assert_eq!(text(&p2r, arch), "P2R R9, PR, RZ, 0x3");
    assert_eq!(p2r.defs(), vec![Loc::R(9)]);
    assert_eq!(p2r.uses(), vec![Loc::P(0), Loc::P(1)]);
}

#[test]
fn control_bits_and_reuse_are_typed() {
    let arch = Arch::Sm86;
    let ctl = Control {
        stall: 4,
        yield_bit: true,
        write_sb: None,
        read_sb: None,
        wait: 0b1,
        reuse: 0,
    };
    let fma = MachInst::build(Op::Ffma)
        .o(r(1))
        .o(Operand::from(r(2)).reuse())
        .o(r(3))
        .o(r(4))
        .control(ctl)
        .finish(arch)
        .unwrap();
    assert_eq!(text(&fma, arch), "FFMA R1, R2.reuse, R3, R4");
    let w = fma.encode(arch, 0).unwrap();
    assert_eq!(Control::decode(w).to_string(), "[B0-----:R-:W-:Y:S04]");
    assert_eq!(Control::decode(w).reuse, 1);
    // A load sets a write scoreboard; decoding gives it back as Some.
    let s2r = MachInst::build(Op::S2r)
        .o(r(0))
        .o(Val::SReg(0x21))
        .control(Control {
            write_sb: Some(0),
            ..ctl
        })
        .finish(arch)
        .unwrap();
    let w = s2r.encode(arch, 0).unwrap();
    assert_eq!(decode_typed(arch, w, 0).unwrap().control.write_sb, Some(0));
}

#[test]
fn bad_instructions_are_typed_errors() {
    let arch = Arch::Sm86;
    let bad = |r: Result<MachInst, SassError>| match r {
        Err(SassError::BadInst { .. }) => {}
        other => panic!("expected BadInst, got {other:?}"),
    };
    // IMAD.WIDE writes a pair: R3 is odd.
    bad(MachInst::build(Op::Imad)
        .m(".WIDE")
        .o(r(3))
        .o(r(3))
        .imm(4)
        .o(r(4))
        .finish(arch));
    // A predicate where a register goes.
    bad(MachInst::build(Op::Iadd3)
        .o(r(1))
        .o(r(2))
        .o(p(3))
        .o(r(4))
        .o(RZ)
        .finish(arch));
    // BRA takes no write scoreboard.
    bad(MachInst::build(Op::Bra)
        .target(0)
        .control(Control {
            write_sb: Some(1),
            ..Control::default()
        })
        .finish(arch));
    // An immediate too wide for LOP3's LUT.
    bad(MachInst::build(Op::Lop3)
        .m(".LUT")
        .o(r(1))
        .o(r(2))
        .o(r(3))
        .o(r(4))
        .imm(0x100)
        .o(PT)
        .finish(arch));
    // A modifier no ISETP prints.
    bad(MachInst::build(Op::Isetp)
        .m(".WIDE")
        .o(p(0))
        .o(PT)
        .o(r(2))
        .o(r(3))
        .o(PT)
        .finish(arch));
    // A typed instruction whose fields were edited out of range.
    let mut add = MachInst::build(Op::Iadd3)
        .o(r(1))
        .o(r(2))
        .o(r(3))
        .o(RZ)
        .finish(arch)
        .unwrap();
    add.operands[0] = Operand::new(Val::Pred(p(1)));
    assert!(matches!(
        add.encode(arch, 0),
        Err(SassError::BadInst { .. })
    ));
}

#[test]
fn imad_alternative_names_follow_the_operands() {
    // nvdisasm (probed on every power of two, SM75 and SM90): .SHL for 2..2^30 except 2^16.
    for (b, expected) in [
        (0x100, "IMAD.SHL.U32 R21, R4, 0x100, RZ"),
        (0x8, "IMAD.SHL.U32 R21, R4, 0x8, RZ"),
        (0x10000, "IMAD.U32 R21, R4, 0x10000, RZ"),
        (0x3, "IMAD.U32 R21, R4, 0x3, RZ"),
        (0x1, "IMAD.MOV.U32 R21, R4, 0x1, RZ"),
    ] {
        for arch in Arch::ALL {
            let i = MachInst::build(Op::Imad)
                .m(".U32")
                .o(r(21))
                .o(r(4))
                .imm(b)
                .o(RZ)
                .finish(arch)
                .unwrap();
            assert_eq!(text(&i, arch), expected, "{arch}");
        }
    }
}

#[test]
fn half_precision_swizzles_build_print_and_are_checked() {
    use tangle_sass::typed::Swizzle;
    for arch in Arch::ALL {
        let add = MachInst::build(Op::Hadd2)
            .o(r(1))
            .o(Operand::from(r(2)).swz(Swizzle::H0H0).abs())
            .o((-r(3)).swz(Swizzle::H1H1))
            .finish(arch)
            .unwrap();
        // The swizzle follows `|..|` (nvdisasm: `|R4|.reuse.H0_H0`).
        assert_eq!(text(&add, arch), "HADD2 R1, |R2|.H0_H0, -R3.H1_H1");
        assert_eq!(add.uses(), vec![Loc::R(2), Loc::R(3)]);
        let back = decode_typed(arch, add.encode(arch, 0).unwrap(), 0).unwrap();
        assert_eq!(back.operands[1].swz, Swizzle::H0H0);
        assert_eq!(back.operands[2].swz, Swizzle::H1H1);
        // HSETP2 writes both predicates.
        let cmp = MachInst::build(Op::Hsetp2)
            .m(tangle_sass::typed::FloatCmp::Lt)
            .m(BoolOp::And)
            .o(p(0))
            .o(p(1))
            .o(r(4))
            .o(Operand::from(r(5)).swz(Swizzle::H0H0))
            .o(PT)
            .finish(arch)
            .unwrap();
        assert_eq!(text(&cmp, arch), "HSETP2.LT.AND P0, P1, R4, R5.H0_H0, PT");
        assert_eq!(cmp.defs(), vec![Loc::P(0), Loc::P(1)]);
        // `.F32` sources: legal before SM90, `.INVALID1` (so refused) on SM90.
        let f32 = MachInst::build(Op::Hadd2)
            .o(r(1))
            .o(Operand::from(r(2)).swz(Swizzle::F32))
            .o(r(3))
            .finish(arch);
        match arch {
            Arch::Sm90 => assert!(f32.is_err(), "{arch:?}"),
            _ => assert_eq!(text(&f32.unwrap(), arch), "HADD2 R1, R2.F32, R3"),
        }
    }
    // A swizzle on an operand that has none is an error.
    assert!(MachInst::build(Op::Iadd3)
        .o(r(1))
        .o(Operand::from(r(2)).swz(Swizzle::H0H0))
        .o(r(3))
        .o(RZ)
        .finish(Arch::Sm86)
        .is_err());
}

#[test]
fn coverage_forms_read_and_write_their_registers() {
    // `BAR.SYNC R5, R5` (`bar.sync a, b` with both in registers): nvdisasm prints one
    // field twice, so two different registers are refused.
    let bar = MachInst::build(Op::Bar)
        .m(".SYNC")
        .o(r(5))
        .o(r(5))
        .finish(Arch::Sm75)
        .unwrap();
    assert_eq!(text(&bar, Arch::Sm75), "BAR.SYNC R5, R5");
    assert_eq!(bar.uses(), vec![Loc::R(5), Loc::R(5)]);
    assert!(MachInst::build(Op::Bar)
        .m(".SYNC")
        .o(r(5))
        .o(r(6))
        .finish(Arch::Sm75)
        .is_err());
    // `STSM.16.M88.4 [R5], R4` stores four matrices from R4..R7 and writes no register.
    let stsm = MachInst::build(Op::Stsm)
        .m(".16")
        .m(".M88")
        .m(".4")
        .o(Addr::new(r(5), 0))
        .o(r(4))
        .finish(Arch::Sm90)
        .unwrap();
    assert_eq!(text(&stsm, Arch::Sm90), "STSM.16.M88.4 [R5], R4");
    assert!(stsm.defs().is_empty());
    assert_eq!(
        stsm.uses(),
        vec![Loc::R(5), Loc::R(4), Loc::R(5), Loc::R(6), Loc::R(7)]
    );
    // `HMMA.16816.F32 R4, R8, R12, R4` (mma.m16n8k16 f16 -> f32): D and C are four
    // floats, A eight halves (four registers), B four halves (two).
    let mma = MachInst::build(Op::Hmma)
        .m(".16816")
        .m(".F32")
        .m("")
        .o(r(4))
        .o(r(8))
        .o(r(12))
        .o(r(4))
        .finish(Arch::Sm80)
        .unwrap();
    assert_eq!(text(&mma, Arch::Sm80), "HMMA.16816.F32 R4, R8, R12, R4");
    let regs = |a: u8, n: u8| (a..a + n).map(Loc::R).collect::<Vec<_>>();
    assert_eq!(mma.defs(), regs(4, 4));
    assert_eq!(mma.uses(), [regs(8, 4), regs(12, 2), regs(4, 4)].concat());
    // `IMMA.16832.S8.S8.SAT R4, R8.ROW, R12.COL, R4` (mma.m16n8k32 s8): A 16 bytes per
    // lane (four registers), B eight (two), C and D four int32. The operand suffixes are
    // given as modifiers, as `.H1`.
    let imma = MachInst::build(Op::Imma)
        .m(".16832")
        .m(".S8.S8")
        .m(".SAT")
        .m(".ROW")
        .m(".COL")
        .o(r(4))
        .o(r(8))
        .o(r(12))
        .o(r(4))
        .finish(Arch::Sm86)
        .unwrap();
    assert_eq!(
        text(&imma, Arch::Sm86),
        "IMMA.16832.S8.S8.SAT R4, R8.ROW, R12.COL, R4"
    );
    assert_eq!(imma.defs(), regs(4, 4));
    assert_eq!(imma.uses(), [regs(8, 4), regs(12, 2), regs(4, 4)].concat());
    // Sparse `mma.sp.m16n8k32` f16 -> f32 (the generated PTX corpus's word on sm_80): A
    // holds the kept half of 16x32 (four registers), B 32x8 halves (four), then the
    // metadata register and the selector.
    let w = Word::from_halves(0x000006040404723c, 0x004ff60000005a04);
    let sp = decode_typed(Arch::Sm80, w, 0).unwrap();
    assert_eq!(
        text(&sp, Arch::Sm80),
        "HMMA.SP.16832.F32 R4, R4, R4, R4, R6, 0x0"
    );
    assert_eq!(sp.encode(Arch::Sm80, 0).unwrap(), w);
    assert_eq!(sp.defs(), regs(4, 4));
    assert_eq!(
        sp.uses(),
        [regs(4, 4), regs(4, 4), regs(4, 4), vec![Loc::R(6)]].concat()
    );
    // `mma.sp.m16n8k8.tf32`: A 16x4 and B 8x8 32-bit elements, two registers each.
    let tf32 = MachInst::build(Op::Hmma)
        .m(".SP")
        .m(".1688")
        .m(".F32")
        .m(".TF32")
        .o(r(16))
        .o(r(8))
        .o(r(12))
        .o(r(16))
        .o(r(7))
        .o(Operand::new(Val::Imm(1)))
        .finish(Arch::Sm90)
        .unwrap();
    assert_eq!(
        text(&tf32, Arch::Sm90),
        "HMMA.SP.1688.F32.TF32 R16, R8, R12, R16, R7, 0x1"
    );
    assert_eq!(
        tf32.uses(),
        [regs(8, 2), regs(12, 2), regs(16, 4), vec![Loc::R(7)]].concat()
    );
}

/// A constant-bank offset's two low bits (38-39) are not in the text: nvdisasm prints the
/// offset rounded down to a word (probed: `c[0x0][0x29]`'s word prints `c[0x0][0x28]`,
/// 0xffff prints `-0x4`). The decoder prints the same, the typed instruction keeps the
/// bits, and the assembler refuses a text offset that is not a multiple of 4.
#[test]
fn constant_bank_offsets_print_rounded_to_a_word() {
    for arch in Arch::ALL {
        for (offset, printed) in [
            (0x29u16, "0x28"),
            (0x2b, "0x28"),
            (0xffff, "-0x4"),
            (0x8003, "-0x8000"),
        ] {
            let mov = MachInst::build(Op::Mov)
                .o(r(1))
                .o(Operand::cbank(0, offset))
                .finish(arch)
                .unwrap();
            let w = mov.encode(arch, 0).unwrap();
            assert_eq!(w.get(38, 16), u64::from(offset), "{arch}");
            let inst = tangle_sass::decode(arch, w, 0).unwrap();
            assert_eq!(inst.text(), format!("MOV R1, c[0x0][{printed}]"), "{arch}");
            assert_eq!(decode_typed(arch, w, 0).unwrap(), mov, "{arch}");
        }
        let ctl = Control::default();
        assert!(tangle_sass::encode(arch, "MOV R1, c[0x0][0x29]", ctl, 0).is_err());
        assert!(tangle_sass::encode(arch, "MOV R1, c[0x0][0x28]", ctl, 0).is_ok());
    }
}

/// Texture operations: the registers each vector operand covers, checked on ptxas's own
/// words against the registers ptxas filled before them and read after them (the kernels
/// of the generated PTX corpus, `docs/sass-texture-syncs.md`). nvdisasm prints only the
/// first register of each vector.
#[test]
fn texture_operands_cover_the_registers_ptxas_fills() {
    use tangle_sass::Word;
    let regs = |a: u8, n: u8| (a..a + n).map(Loc::R).collect::<Vec<_>>();
    let decode = |arch: Arch, lo: u64, hi: u64| {
        let i = decode_typed(arch, Word::from_halves(lo, hi), 0).unwrap();
        (text(&i, arch), i.defs(), i.uses())
    };
    // `tex.2d.v4` with all four results used: x, y in R4, R5 and z, w in R6, R7; the
    // coordinates x, y in R4, R5; the handle in R6 and the level (-32.0) in R7.
    let (t, defs, uses) = decode(Arch::Sm75, 0x3800000604047361, 0x004f4400019e0f06);
    assert_eq!(t, "TEX.SCR.B.LL R6, R4, R4, R6, 2D");
    // In operand order: the second destination first, as printed.
    assert_eq!(defs, [regs(6, 2), regs(4, 2)].concat());
    assert_eq!(uses, [regs(4, 2), regs(6, 2)].concat());
    // Three results (x, z, w: mask 0xd, then `IADD3 R11, R9, R10, R11`): x, z in R10, R11
    // and w in R9. `tex.2d.v2.f16x2` (four f16 results, then `IMAD.IADD R9, R0, 0x1,
    // R8`): x, y packed in R0 and z, w in R8. (ptxas set reuse flags with a clear yield
    // bit on both, which tangle refuses by design: cleared here.)
    let (t, defs, _) = decode(Arch::Sm75, 0x38000006040a7361, 0x004f4200019e0d09);
    assert_eq!(t, "TEX.SCR.B.LL R9, R10, R4, R6, 2D, 0xd");
    assert_eq!(defs, [regs(9, 1), regs(10, 2)].concat());
    let (t, defs, _) = decode(Arch::Sm75, 0x3800000604007361, 0x000f4400019e8f08);
    assert_eq!(t, "TEX.SCR.B.F16.RN.LL R8, R0, R4, R6, 2D");
    assert_eq!(defs, [regs(8, 1), regs(0, 1)].concat());
    // `tex.2d` with offsets {1, -1}, results x and w (mask 0x9): the handle R8, the level
    // R9 and the packed offsets 0xf1 in R10.
    let (t, defs, uses) = decode(Arch::Sm75, 0x2800000804047361, 0x004f4400019e19ff);
    assert_eq!(t, "TEX.B.LL.AOFFI RZ, R4, R4, R8, 2D, 0x9");
    assert_eq!(defs, regs(4, 2));
    assert_eq!(uses, [regs(4, 2), regs(8, 3)].concat());
    // `tex.grad.2d` before SM90: the handle then x, y in R8..R10; the gradients
    // dPdx.x, dPdy.x, dPdx.y, dPdy.y in R12..R15.
    let (t, defs, uses) = decode(Arch::Sm75, 0x2800000c0808736d, 0x010f4400001e09ff);
    assert_eq!(t, "TXD.B RZ, R8, R8, R12, 2D, 0x9");
    assert_eq!(defs, regs(8, 2));
    assert_eq!(uses, [regs(8, 3), regs(12, 4)].concat());
    // On SM90 the handle is the uniform pair UR6:UR7: x, y in R14, R15, the gradients in
    // R4..R7.
    let (t, defs, uses) = decode(Arch::Sm90, 0x200006040e0c9f6c, 0x02036200081e09ff);
    assert_eq!(t, "@!P1 TXD RZ, R12, R14, R4, UR6, 0x0, 2D, 0x9");
    assert_eq!(defs, regs(12, 2));
    assert_eq!(
        uses,
        [
            vec![Loc::P(1)],
            regs(14, 2),
            regs(4, 4),
            vec![Loc::Ur(6), Loc::Ur(7)]
        ]
        .concat()
    );
    // `tld4.r.2d`: x, y in R4, R5, the handle in R0.
    let (t, _, uses) = decode(Arch::Sm75, 0x3800000004047364, 0x004f4400001e09ff);
    assert_eq!(t, "TLD4.SCR.R.B RZ, R4, R4, R0, 2D, 0x9");
    assert_eq!(uses, [regs(4, 2), regs(0, 1)].concat());
    // `tld4` on SM90 leaves Rb out when it is RZ: only x, y and the handle are read.
    let (t, _, uses) = decode(Arch::Sm90, 0x200006ff04069f63, 0x02236200091e09ff);
    assert_eq!(t, "@!P1 TLD4.B RZ, R6, R4, UR6, 0x0, 2D, 0x9");
    assert_eq!(
        uses,
        [vec![Loc::P(1)], regs(4, 2), vec![Loc::Ur(6), Loc::Ur(7)]].concat()
    );
    // `txq.width` before SM90: the handle in R4 and the level (0) in R5; one result.
    let (t, defs, uses) = decode(Arch::Sm75, 0x0800000004057370, 0x004f4400000001ff);
    assert_eq!(t, "TXQ.B RZ, R5, R4, TEX_HEADER_DIMENSION, 0x1");
    assert_eq!(defs, regs(5, 1));
    assert_eq!(uses, regs(4, 2));
}
