//! Global addresses whose text does not say everything (issue 12): the SM80-SM89 memory
//! descriptor register nvdisasm does not print, and the SM80-SM90 address mode without a
//! descriptor, printed without `.64`. Words are ptxas's (sm_80/sm_86, the CUDA corpus and
//! small PTX files), texts nvdisasm's.

use tangle_sass::typed::{r, ur, Addr, Loc, MachInst, MemSize, Val};
use tangle_sass::{decode, decode_typed, encode, Arch, Control, Op, Word};

fn word(lo: u64, hi: u64) -> Word {
    Word(u128::from(lo) | u128::from(hi) << 64)
}

fn addr_of(m: &MachInst) -> Addr {
    m.operands
        .iter()
        .find_map(|o| match o.val {
            Val::Mem(a) => Some(a),
            _ => None,
        })
        .unwrap()
}

#[test]
fn an_unprinted_descriptor_decodes_keeps_its_register_and_assembles_as_ur4() {
    // CUB's `LDG.E R5, [R4.64]` with its descriptor in UR6 (bits 32-37), and ptxas's own
    // with UR4: nvdisasm prints both alike.
    let cub = word(0x0000000604057981, 0x0000a2000c1e1900);
    let ours = word(0x0000000404057981, 0x0000a2000c1e1900);
    for arch in [Arch::Sm80, Arch::Sm86, Arch::Sm89] {
        let inst = decode(arch, cub, 0).unwrap();
        assert_eq!(inst.text(), "LDG.E R5, [R4.64]");
        // The typed instruction keeps UR6 and gives the word back.
        let m = decode_typed(arch, cub, 0).unwrap();
        assert_eq!(addr_of(&m).desc, ur(6));
        assert_eq!(m.encode(arch, 0).unwrap(), cub);
        // It reads the descriptor pair it names, not UR4:UR5.
        assert_eq!(m.uses(), vec![Loc::R(4), Loc::R(5), Loc::Ur(6), Loc::Ur(7)]);
        // Text -> word writes the canonical UR4.
        assert_eq!(
            encode(arch, "LDG.E R5, [R4.64]", Control::decode(cub), 0).unwrap(),
            ours
        );
        // The builder takes the register as a field of the address.
        let built = MachInst::build(Op::Ldg)
            .m(".E")
            .o(r(5))
            .o(Addr::new(r(4), 0).with_desc(ur(6)))
            .control(m.control)
            .finish(arch)
            .unwrap();
        assert_eq!(built.encode(arch, 0).unwrap(), cub);
        let plain = MachInst::build(Op::Ldg)
            .m(".E")
            .o(r(5))
            .o(Addr::new(r(4), 0))
            .control(m.control)
            .finish(arch)
            .unwrap();
        assert_eq!(plain.encode(arch, 0).unwrap(), ours);
        assert_eq!(
            plain.uses(),
            vec![Loc::R(4), Loc::R(5), Loc::Ur(4), Loc::Ur(5)]
        );
    }
    // Stores keep it in bits 64-69: CUB's `STG.E [R2.64], R5` with UR36.
    let st = word(0x0000000502007986, 0x000fe2000c101924);
    let m = decode_typed(Arch::Sm86, st, 0).unwrap();
    assert_eq!(
        decode(Arch::Sm86, st, 0).unwrap().text(),
        "STG.E [R2.64], R5"
    );
    assert_eq!(addr_of(&m).desc, ur(36));
    assert_eq!(m.encode(Arch::Sm86, 0).unwrap(), st);
    // A form whose address has no such field takes UR4 only.
    let sm90 = MachInst::build(Op::Ldg)
        .m(".E")
        .o(r(5))
        .o(Addr::new(r(4), 0).with_ureg(ur(6)).with_desc(ur(8)))
        .finish(Arch::Sm90);
    assert!(sm90.is_err());
}

#[test]
fn an_address_without_a_descriptor_is_its_own_typed_mode() {
    // `ld.mmio.relaxed.sys.global` (ptxas, sm_86): LDG 0x381, printed without `.64`.
    let arch = Arch::Sm86;
    let mmio = word(0x00000800040d7381, 0x000ea200001f8900);
    assert_eq!(
        decode(arch, mmio, 0).unwrap().text(),
        "LDG.E.MMIO.SYS R13, [R4+0x8]"
    );
    let m = decode_typed(arch, mmio, 0).unwrap();
    let a = addr_of(&m);
    assert!(a.no_desc);
    assert_eq!(m.uses(), vec![Loc::R(4), Loc::R(5)]);
    let built = MachInst::build(Op::Ldg)
        .m(".E")
        .m(".MMIO.SYS")
        .o(r(13))
        .o(Addr::new(r(4), 8).without_desc())
        .control(m.control)
        .finish(arch)
        .unwrap();
    assert_eq!(built.encode(arch, 0).unwrap(), mmio);
    // The same operands with a descriptor are the other form, `[R4.64+0x8]`.
    let desc = MachInst::build(Op::Ldg)
        .m(".E")
        .m(".MMIO.SYS")
        .o(r(13))
        .o(Addr::new(r(4), 8))
        .finish(arch)
        .unwrap();
    assert_eq!(desc.form.opcode, 0x981);
    assert_eq!(
        desc.text(arch, 0).unwrap(),
        "LDG.E.MMIO.SYS R13, [R4.64+0x8]"
    );
    // Generic accesses (sm_80, `atom.cas.b64`'s emulation loop): LD 0x980 with bits 90-91
    // clear and ST 0x385, offsets in 32-63, the store's data in 64-71.
    for (lo, hi, text) in [
        (0x0000000002087980, 0x002ea40000100b00, "LD.E.64 R8, [R2]"),
        (0x0000000002007385, 0x0001e40000100b06, "ST.E.64 [R2], R6"),
        (
            0x000000180a007385,
            0x0203e8000011890d,
            "ST.E.MMIO.SYS [R10+0x18], R13",
        ),
    ] {
        for arch in [Arch::Sm80, Arch::Sm90] {
            let w = word(lo, hi);
            assert_eq!(decode(arch, w, 0).unwrap().text(), text, "{arch}");
            let m = decode_typed(arch, w, 0).unwrap();
            assert!(addr_of(&m).no_desc);
            assert_eq!(m.encode(arch, 0).unwrap(), w);
        }
    }
    let st = MachInst::build(Op::St)
        .m(".E")
        .m(MemSize::B64)
        .o(Addr::new(r(2), 0).without_desc())
        .o(r(6))
        .finish(Arch::Sm80)
        .unwrap();
    assert_eq!(st.text(Arch::Sm80, 0).unwrap(), "ST.E.64 [R2], R6");
    assert_eq!(st.form.opcode, 0x385);
}
