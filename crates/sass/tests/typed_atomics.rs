//! The atomics and memory forms of issue 12's last step (`forms/atomics_more.rs`) on
//! ptxas's own words, without an oracle: each word must decode to the text nvdisasm 13.5
//! printed for it (recorded here from `cuobjdump -sass` of the PTX named), encode back to
//! itself through the typed instruction, and read and write the registers the operation is
//! defined to (a 64-bit atomic returns a pair, an address in a uniform register reads the
//! pair, SM90's global accesses read their descriptor pair).

use tangle_sass::roles::{memory_effect, Access, Space};
use tangle_sass::typed::{p, r, ur, Addr, Loc, MachInst};
use tangle_sass::{decode_typed, Arch, Op, Word};

/// Decodes `(lo, hi)` on `arch`, checks nvdisasm's text and the typed round trip.
fn decoded(arch: Arch, lo: u64, hi: u64, nvdisasm: &str) -> MachInst {
    let w = Word::from_halves(lo, hi);
    let inst = decode_typed(arch, w, 0).unwrap_or_else(|e| panic!("{nvdisasm}: {e}"));
    assert_eq!(inst.text(arch, 0).unwrap(), nvdisasm);
    assert_eq!(
        inst.encode(arch, 0).unwrap(),
        w,
        "{nvdisasm}: typed round trip"
    );
    inst
}

fn regs(first: u8, n: u8) -> Vec<Loc> {
    (first..first + n).map(Loc::R).collect()
}

#[test]
fn sm90_float_atomics_return_and_read_register_pairs() {
    // `atom.global.add.f64` (sm_90): Rd and the data are pairs; the address and its
    // descriptor are pairs too.
    let atomg = decoded(
        Arch::Sm90,
        0x00000804021079a3,
        0x02116a00081effc4,
        "ATOMG.E.ADD.F64.RN.STRONG.GPU PT, R16, desc[UR4][R2.64+0x8], R4",
    );
    assert_eq!(atomg.defs(), regs(16, 2));
    assert_eq!(
        atomg.uses(),
        [regs(2, 2), vec![Loc::Ur(4), Loc::Ur(5)], regs(4, 2)].concat()
    );
    assert_eq!(
        memory_effect(Op::Atomg),
        Some((Space::Global, Access::Atomic))
    );
    // `atom.global.v2.f32.add`: two floats, a pair.
    let v2 = decoded(
        Arch::Sm90,
        0x0000100e020e79a3,
        0x000ea200081ef5c4,
        "ATOMG.E.ADD.F32x2.FTZ.RN.STRONG.GPU PT, R14, desc[UR4][R2.64+0x10], R14",
    );
    assert_eq!(v2.defs(), regs(14, 2));
    // `atom.add.f32` on a generic pointer: one register, and the predicate ptxas tests.
    let f32 = decoded(
        Arch::Sm90,
        0x0000000e0a0079a2,
        0x004364000810f3c4,
        "ATOM.E.ADD.F32.FTZ.RN.STRONG.GPU P0, R0, desc[UR4][R10.64], R14",
    );
    assert_eq!(f32.defs(), vec![Loc::P(0), Loc::R(0)]);
    assert_eq!(
        memory_effect(Op::Atom),
        Some((Space::Generic, Access::Atomic))
    );
    // `red.relaxed.sm.global.add.f32`: the memory order is a field.
    let red = decoded(
        Arch::Sm90,
        0x00000805020079a6,
        0x004fe2000c10b384,
        "REDG.E.ADD.F32.FTZ.RN.STRONG.SM desc[UR4][R2.64+0x8], R5",
    );
    assert!(red.defs().is_empty());
    // Built from scratch, the F64 reduction takes the pair form and prints as nvdisasm
    // prints ptxas's `atomicAdd(double*)` without a result.
    let built = MachInst::build(Op::Redg)
        .m(".E")
        .m(".ADD")
        .m(".F64.RN")
        .m(".STRONG.GPU")
        .o(Addr::new(r(8), 0).with_ureg(ur(4)))
        .o(r(14))
        .finish(Arch::Sm90)
        .unwrap();
    assert_eq!(
        built.text(Arch::Sm90, 0).unwrap(),
        "REDG.E.ADD.F64.RN.STRONG.GPU desc[UR4][R8.64], R14"
    );
    assert_eq!(
        built.uses(),
        [regs(8, 2), vec![Loc::Ur(4), Loc::Ur(5)], regs(14, 2)].concat()
    );
    // An odd pair is refused, as nvdisasm's `.F64` operands are register pairs.
    assert!(MachInst::build(Op::Redg)
        .m(".E")
        .m(".ADD")
        .m(".F64.RN")
        .m(".STRONG.GPU")
        .o(Addr::new(r(8), 0).with_ureg(ur(4)))
        .o(r(15))
        .finish(Arch::Sm90)
        .is_err());
}

#[test]
fn generic_compare_and_swap_covers_its_operands() {
    // `atom.cas.b64` on a generic pointer (sm_75): P0 and the old value pair are written;
    // address, compare and new value pairs read.
    let cas = decoded(
        Arch::Sm75,
        0x000008040806738b,
        0x000ea20000114506,
        "ATOM.E.CAS.64.STRONG.GPU P0, R6, [R8+0x8], R4, R6",
    );
    assert_eq!(cas.defs(), [vec![Loc::P(0)], regs(6, 2)].concat());
    assert_eq!(cas.uses(), [regs(8, 2), regs(4, 2), regs(6, 2)].concat());
    // sm_80 `atom.relaxed.cta.cas.b32` prints SM80's scope table; ptxas's float loops
    // store with `.CAST.SPIN` (sm_90).
    decoded(
        Arch::Sm80,
        0x0000100c0200738b,
        0x020ea200001ea10d,
        "ATOM.E.CAS.STRONG.SM PT, R0, [R2+0x10], R12, R13",
    );
    let spin = decoded(
        Arch::Sm90,
        0x000000040a05738b,
        0x000ea400019ea105,
        "ATOM.E.CAST.SPIN.STRONG.SM PT, R5, [R10], R4, R5",
    );
    assert_eq!(spin.defs(), vec![Loc::R(5)]);
    // Built: the compare-and-swap with a predicate result.
    let built = MachInst::build(Op::Atom)
        .m(".E")
        .m(".CAS")
        .m(".64")
        .m(".STRONG.GPU")
        .o(p(0))
        .o(r(6))
        .o(Addr::new(r(8), 8))
        .o(r(4))
        .o(r(6))
        .finish(Arch::Sm80)
        .unwrap();
    assert_eq!(
        built.text(Arch::Sm80, 0).unwrap(),
        "ATOM.E.CAS.64.STRONG.GPU P0, R6, [R8+0x8], R4, R6"
    );
}

#[test]
fn sm75_uniform_addresses_read_the_uniform_pair() {
    // `ld.relaxed.cta.u32` and `st.relaxed.cta.u32` through a parameter pointer (sm_75):
    // the address is UR4:UR5.
    let ld = decoded(
        Arch::Sm75,
        0x00000004ff007980,
        0x000ea2000c110900,
        "LD.E.STRONG.CTA R0, [UR4]",
    );
    assert_eq!(ld.defs(), vec![Loc::R(0)]);
    assert_eq!(ld.uses(), vec![Loc::Ur(4), Loc::Ur(5)]);
    let st = decoded(
        Arch::Sm75,
        0x00000800ff007985,
        0x0003e8000c110904,
        "ST.E.STRONG.CTA [UR4+0x8], R0",
    );
    assert!(st.defs().is_empty());
    assert_eq!(st.uses(), vec![Loc::Ur(4), Loc::Ur(5), Loc::R(0)]);
    // `isspacep.global`/`.shared` of a parameter.
    let q = decoded(
        Arch::Sm75,
        0x00000004ffff79aa,
        0x000ee2000c020500,
        "QSPC.E.S P1, RZ, [UR4]",
    );
    assert_eq!(q.defs(), vec![Loc::P(1)]);
    // `red.global.add.f64` and `atom.global.add.f64` of a parameter: data pairs.
    let red = decoded(
        Arch::Sm75,
        0x00000002ff00798e,
        0x0011e8000c114d04,
        "RED.E.ADD.F64.RN.STRONG.GPU [UR4], R2",
    );
    assert_eq!(
        red.uses(),
        [vec![Loc::Ur(4), Loc::Ur(5)], regs(2, 2)].concat()
    );
    let atomg = decoded(
        Arch::Sm75,
        0x00001002ff0479a8,
        0x0000a200081f4d44,
        "ATOMG.E.ADD.F64.RN.STRONG.GPU PT, R4, [UR4+0x10], R2",
    );
    assert_eq!(atomg.defs(), regs(4, 2));
    // The CUDA corpus's warp-aggregated `atomicAdd` on a generic parameter pointer.
    let atom = decoded(
        Arch::Sm75,
        0x00000007ffff098a,
        0x0023e200081f0344,
        "@P0 ATOM.E.ADD.S32.STRONG.CTA PT, RZ, [UR4], R7",
    );
    assert!(atom.defs().is_empty());
    assert_eq!(
        atom.uses(),
        vec![Loc::P(0), Loc::Ur(4), Loc::Ur(5), Loc::R(7)]
    );
}

#[test]
fn shared_arrive_returns_the_barrier_state_pair() {
    // `mbarrier.arrive.shared.b64` (sm_80): the 64-bit state into R4:R5.
    let arrive = decoded(
        Arch::Sm80,
        0x00020000ff047f8c,
        0x001e22000c80043f,
        "ATOMS.ARRIVE.64 R4, [URZ+0x200]",
    );
    assert_eq!(arrive.defs(), regs(4, 2));
    assert!(arrive.uses().is_empty());
    assert_eq!(
        memory_effect(Op::Atoms),
        Some((Space::Shared, Access::Atomic))
    );
}

#[test]
fn sm90_four_register_float_atomics_cover_a_quad() {
    // `atom.global.v4.f32.add` (sm_90): the result and the data are four registers each,
    // the address and its descriptor pairs.
    let atomg = decoded(
        Arch::Sm90,
        0x00000004020479a3,
        0x004ea800081ef7c4,
        "ATOMG.E.ADD.F32x4.FTZ.RN.STRONG.GPU PT, R4, desc[UR4][R2.64], R4",
    );
    assert_eq!(atomg.defs(), regs(4, 4));
    assert_eq!(
        atomg.uses(),
        [regs(2, 2), vec![Loc::Ur(4), Loc::Ur(5)], regs(4, 4)].concat()
    );
    // `red.global.v4.f32.add`: no result, four data registers.
    let red = decoded(
        Arch::Sm90,
        0x00000004020079a6,
        0x004fe2000c10f784,
        "REDG.E.ADD.F32x4.FTZ.RN.STRONG.GPU desc[UR4][R2.64], R4",
    );
    assert!(red.defs().is_empty());
    assert_eq!(
        red.uses(),
        [regs(2, 2), vec![Loc::Ur(4), Loc::Ur(5)], regs(4, 4)].concat()
    );
    // Built from scratch: `.BF16x8` takes the quad form; a quad must start at a multiple
    // of 4 (ptxas's alignment), a pair's alignment is not enough.
    let build = |data: u8| {
        MachInst::build(Op::Redg)
            .m(".E")
            .m(".MAX")
            .m(".BF16x8.RN")
            .m(".STRONG.SYS")
            .o(Addr::new(r(2), 0x10).with_ureg(ur(6)))
            .o(r(data))
            .finish(Arch::Sm90)
    };
    let built = build(8).unwrap();
    assert_eq!(
        built.text(Arch::Sm90, 0).unwrap(),
        "REDG.E.MAX.BF16x8.RN.STRONG.SYS desc[UR6][R2.64+0x10], R8"
    );
    assert_eq!(
        built.uses(),
        [regs(2, 2), vec![Loc::Ur(6), Loc::Ur(7)], regs(8, 4)].concat()
    );
    assert!(build(6).is_err());
}

#[test]
fn plain_address_atomics_read_their_address_pair() {
    // An exchange of the sm_90 generated PTX corpus with an address without a memory
    // descriptor, printed without `.64`; SM80 prints the same word alike.
    for arch in [Arch::Sm80, Arch::Sm90] {
        let exch = decoded(
            arch,
            0x0000000904ff73a8,
            0x001fe200041ee100,
            "ATOMG.E.EXCH.STRONG.GPU PT, RZ, [R4], R9",
        );
        assert!(exch.defs().is_empty());
        assert_eq!(exch.uses(), [regs(4, 2), vec![Loc::R(9)]].concat());
    }
    // SM90's `.128` exchange returns and reads four registers.
    let wide = MachInst::build(Op::Atomg)
        .m(".E")
        .m(".EXCH")
        .m(".128")
        .m(".STRONG.GPU")
        .o(p(0))
        .o(r(8))
        .o(Addr::new(r(2), 0x20).without_desc())
        .o(r(12))
        .finish(Arch::Sm90)
        .unwrap();
    assert_eq!(
        wide.text(Arch::Sm90, 0).unwrap(),
        "ATOMG.E.EXCH.128.STRONG.GPU P0, R8, [R2+0x20], R12"
    );
    assert_eq!(wide.defs(), [vec![Loc::P(0)], regs(8, 4)].concat());
    assert_eq!(wide.uses(), [regs(2, 2), regs(12, 4)].concat());
    // `atomicExch` on a shared `unsigned long long` with a uniform register in the
    // address (sm_90; every SM prints the word alike): pairs in and out.
    for arch in [Arch::Sm75, Arch::Sm86, Arch::Sm90] {
        let atoms = decoded(
            arch,
            0x000000040704798c,
            0x008e28000c000404,
            "ATOMS.EXCH.64 R4, [R7+UR4], R4",
        );
        assert_eq!(atoms.defs(), regs(4, 2));
        assert_eq!(
            atoms.uses(),
            [vec![Loc::R(7), Loc::Ur(4)], regs(4, 2)].concat()
        );
    }
}

#[test]
fn sm75_uniform_address_atomics_take_every_operation_and_type() {
    // `tests/corpus/ur_atomics.ptx` on sm_75: `red.global.min.s64`, `atom.global.xor.b64`,
    // `atom.global.exch.b64` and the relaxed system-scope forms of a parameter pointer.
    let red = decoded(
        Arch::Sm75,
        0x00004802ff00798e,
        0x0009f6000c914b04,
        "RED.E.MIN.S64.STRONG.GPU [UR4+0x48], R2",
    );
    assert!(red.defs().is_empty());
    assert_eq!(
        red.uses(),
        [vec![Loc::Ur(4), Loc::Ur(5)], regs(2, 2)].concat()
    );
    let xor = decoded(
        Arch::Sm75,
        0x00016802ff0879a8,
        0x010ee8000b9f4544,
        "ATOMG.E.XOR.64.STRONG.GPU PT, R8, [UR4+0x168], R2",
    );
    assert_eq!(xor.defs(), regs(8, 2));
    let exch = decoded(
        Arch::Sm75,
        0x00017802ff0a79a8,
        0x000ee8000c1f4544,
        "ATOMG.E.EXCH.64.STRONG.GPU PT, R10, [UR4+0x178], R2",
    );
    assert_eq!(exch.defs(), regs(10, 2));
    assert_eq!(
        exch.uses(),
        [vec![Loc::Ur(4), Loc::Ur(5)], regs(2, 2)].concat()
    );
    decoded(
        Arch::Sm75,
        0x00020802ff00798e,
        0x000fe8000c916b04,
        "RED.E.MIN.S64.STRONG.SYS [UR4+0x208], R2",
    );
    let sys = decoded(
        Arch::Sm75,
        0x00021002ff0079a8,
        0x004ea8000c1f6144,
        "ATOMG.E.EXCH.STRONG.SYS PT, R0, [UR4+0x210], R2",
    );
    assert_eq!(sys.defs(), vec![Loc::R(0)]);
}

#[test]
fn sm75_uniform_addresses_print_negative_offsets_as_nvdisasm_does() {
    // The CUDA corpus's `atomicInc` and `atomicMax` below a parameter pointer (sm_75):
    // nvdisasm prints the negative offset after a `+`.
    decoded(
        Arch::Sm75,
        0xfffff015ff0779a8,
        0x000ea800099f4144,
        "ATOMG.E.INC.STRONG.GPU PT, R7, [UR4+-0x10], R21",
    );
    decoded(
        Arch::Sm75,
        0xfffff80eff00898e,
        0x0003e2000d110104,
        "@!P0 RED.E.MAX.STRONG.CTA [UR4+-0x8], R14",
    );
}

#[test]
fn multimem_load_reduce_reads_its_address_and_uniform_register() {
    // `multimem.ld_reduce.relaxed.sys.global.add.u32` (sm_90 generated PTX corpus): a
    // global load whose address adds a uniform register (URZ here) to a 64-bit register.
    let ld = decoded(
        Arch::Sm90,
        0x00000000040579a4,
        0x004ea8000801417f,
        "LDGMC.E.ADD.32.STRONG.SYS R5, [R4.64+URZ]",
    );
    assert_eq!(ld.defs(), vec![Loc::R(5)]);
    assert_eq!(
        memory_effect(Op::Ldgmc),
        Some((Space::Global, Access::Load))
    );
    // The 64-bit forms return a pair.
    let wide = MachInst::build(Op::Ldgmc)
        .m(".E")
        .m(".MIN")
        .m(".S64")
        .m(".STRONG.SYS")
        .o(r(6))
        .o(Addr {
            wide: true,
            ..Addr::new(r(2), 0x40).with_ureg(ur(8))
        })
        .finish(Arch::Sm90)
        .unwrap();
    assert_eq!(
        wide.text(Arch::Sm90, 0).unwrap(),
        "LDGMC.E.MIN.S64.STRONG.SYS R6, [R2.64+UR8+0x40]"
    );
    assert_eq!(wide.defs(), regs(6, 2));
}
