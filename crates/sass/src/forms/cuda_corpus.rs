//! Forms of the CUDA corpus's third-party and GPU-programmer kernels (issue 12: CUB and
//! cooperative groups from CCCL, `crates/sass/tests/corpus/`), each from a ptxas word of
//! that corpus checked with nvdisasm; the random-field test checks every field on every SM
//! listed.

use super::*;

pub(super) fn cuda_corpus(v: &mut Vec<Form>) {
    // SM90 `WARPSYNC.COLLECTIVE.ALL [Pp,] target` (0x948 with bit 86 set): the full-mask
    // twin of `WARPSYNC.COLLECTIVE Rm, target`, its target in the same bits (16-23 and
    // 34-81, in words). From cooperative groups' `coalesced_threads()` scans: raw offsets
    // 0x14 and 0x114 print targets 0x60 and 0x490 at addresses 0 and 0x30.
    v.push(
        fs("WARPSYNC", &[Sm90], 0x0000000000007948, 0x0000000003c00000)
            .no_sb()
            .m(0, 0, &[(0, ".COLLECTIVE.ALL")])
            .o(p(87).not(90).hide(7))
            .o(target(&[(16, 8), (34, 48)])),
    );
    // UIMAD URd, A, B, imm32 (0x4a4): as UIMAD 0x2a4 with B a uniform register at 64 and
    // C a signed immediate at 32 (`UIMAD UR4, UR4, UR5, -0x7fffffff`, cooperative groups'
    // grid sync).
    v.push(
        fs("UIMAD", ALL, 0x80000001040474a4, 0x000000000f8e0205)
            .m(73, 1, &[(1, ""), (0, ".U32")])
            .o(ur(16))
            .o(ur(24))
            .o(ur(64))
            .o(simm(32, 32)),
    );
    // USEL URd, A, imm32, UPp (0x887): B an immediate at 32 (`USEL UR4, UR4, 0x1, !UP0`).
    v.push(
        fs("USEL", ALL, 0x0000000104047887, 0x000000000c000000)
            .o(ur(16))
            .o(ur(24))
            .o(uimm(32, 32))
            .o(up(87).not(90)),
    );
    // UBMSK[.W] URd, A, imm32 (0x89b): BMSK on the uniform datapath, .W at 75 as BMSK's
    // (`UBMSK UR4, URZ, 0x4`).
    v.push(
        fs("UBMSK", ALL, 0x000000043f04789b, 0x0000000008000000)
            .m(75, 1, &[(0, ""), (1, ".W")])
            .o(ur(16))
            .o(ur(24))
            .o(uimm(32, 32)),
    );
    // IABS Rd, c[bank][offset] (0xa13): `IABS R3, c[0x0][0x168]`.
    v.push(
        fs("IABS", ALL, 0x00005a0000037a13, 0x0000000000000000)
            .o(r(16))
            .o(cb()),
    );
    // FADD Rd, A, c[bank][offset] (0x621): as FADD 0x221 with the constant in B's place,
    // negate 63, |.| 62 (probed: bits 74-75 and 64-71 print nothing, kept constant 0).
    v.push(
        fs("FADD", ALL, 0x00005e0008057621, 0x0000000000000000)
            .m(80, 1, &[(0, ""), (1, ".FTZ")])
            .m(78, 2, &[(0, ""), (1, ".RM"), (2, ".RP"), (3, ".RZ")])
            .m(77, 1, &[(0, ""), (1, ".SAT")])
            .o(r(16))
            .o(r(24).neg(72).abs(73).reuse(0))
            .o(cb().neg(63).abs(62)),
    );
    // CALL.ABS[.NOINC] [Pp,] Ra [imm] (0x343): the indirect call of `-G` builds (function
    // pointers, virtual calls), Ra at 24, then CALL.ABS's absolute immediate (0x943's field,
    // printed after a blank, and not at all when zero: `CALL.ABS.NOINC R26 0x4`).
    for (arches, pieces) in [
        (PRE90, &[(34u8, 47u8)][..]),
        (&[Sm90][..], &[(16, 8), (34, 47)][..]),
    ] {
        let mut abs = Opnd::new(OpndKind::UImm, 0, 0)
            .pieces(pieces)
            .scale(2)
            .hide(0);
        abs.blank_before = true;
        v.push(
            fs("CALL", arches, 0x000000001a007343, 0x0000000003c00000)
                .no_sb()
                .m(0, 0, &[(0, ".ABS")])
                .m(86, 1, &[(0, ""), (1, ".NOINC")])
                .o(p(87).not(90).hide(7))
                .o(r(24))
                .o(abs),
        );
    }
    // NANOSLEEP with a register (0x35d) and SM90's PREEXIT, which -G builds and cooperative
    // groups' grid sync use, are in `coverage.rs`.
}
