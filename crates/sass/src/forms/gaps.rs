//! Forms of ordinary ptxas code that the SASS simulator reached (issue 16: its probes, CUDA
//! corpus and the generated sweep of `crates/sim/tests/sweep.rs`), each from a ptxas word
//! checked with nvdisasm (`crates/sass/tests/sim_gaps.rs`); the random-field test checks
//! every field on every SM listed.

use super::*;

/// Global sizes (73-75) as LDG/STG's.
const SIZES: [(u64, &str); 7] = memory::GLOBAL_SIZES;

pub(super) fn sim_gaps(v: &mut Vec<Form>) {
    // SM75 STG with a uniform register added to the address (0x986, the store of SM75's
    // LDG 0x981): `STG.E.U8.SYS [R2.64+UR4], R5`; UR 64-69, `.64` base with bit 90, data
    // 32-39, signed offset 40-63; `[UR4+0x4]` with an RZ base.
    for (size, sfx) in SIZES {
        let mut addr = Opnd::new(OpndKind::Mem(MemFmt::GlobalUr), 24, 8);
        addr.offset = vec![(40, 24)];
        addr.ureg = Some((64, 6));
        addr.wide = Some(90);
        let data = if size == 5 { r(32).pair() } else { r(32) };
        v.push(
            Form::new(
                "STG",
                0x986,
                &[Sm75],
                0x0000000502007986,
                (0x000000000c10e104 & !(7 << 9)) | size << 9,
            )
            .no_write_sb()
            .m(0, 0, &[(0, ".E")])
            .m(0, 0, &[(0, sfx)])
            .m(0, 0, &[(0, ".SYS")])
            .o(addr)
            .o(data),
        );
    }
    // FCHK Pd, A, B (float division's range check before its fast path): Pd 81-83, A 24,
    // B a register at 32 (0x302) or a float immediate (0x902).
    for lo in [0x0000000502007302u64, 0x4040000002007902] {
        let b = if lo & 0x800 != 0 { f32i(32) } else { r(32) };
        v.push(fs("FCHK", ALL, lo, 0).o(p(81)).o(r(24)).o(b));
    }
    // MUFU.RCP64H / .RSQ64H Rd, imm: the high word of a double immediate at 32 (0x908,
    // `MUFU.RCP64H R7, 3` of a division by a constant).
    v.push(
        fs("MUFU", ALL, 0x4008000000077908, 0x0000000000001800)
            .m(74, 4, &[(6, ".RCP64H"), (7, ".RSQ64H")])
            .o(r(16))
            .o(Opnd::new(OpndKind::F64Hi, 32, 32)),
    );
    // MUFU.fn Rd, imm (0x908 with a single-precision function: `rsqrt.approx.f32` of a
    // NaN constant): the f32 immediate at 32-63 (no negate or absolute-value bits: 62 and
    // 63 are the float's), functions as the register form's; 10-15 print `.INVALIDn`.
    // Probed on SM75 and SM90.
    v.push(
        fs("MUFU", ALL, 0xffc0000000067908, 0x0000000000001400)
            .m(74, 4, MUFU_FUNCS_NO_64H)
            .o(r(16))
            .o(f32i(32)),
    );
    // DMUL Rd, A, c[][] (0xa28) and, on SM90, DMUL Rd, A, URb (0xc28; bit 91 set): the
    // constant or uniform source in the B slot.
    let rnd = [(0, ""), (1, ".RM"), (2, ".RP"), (3, ".RZ")];
    v.push(
        fs("DMUL", ALL, 0x0080020004047a28, 0)
            .m(78, 2, &rnd)
            .o(r(16).pair())
            .o(r(24).pair().neg(72).abs(73).reuse(0))
            .o(cb()),
    );
    v.push(
        fs("DMUL", &[Sm90], 0x0000000604047c28, 0x0000000008000000)
            .m(78, 2, &rnd)
            .o(r(16).pair())
            .o(r(24).pair().neg(72).abs(73).reuse(0))
            .o(ur(32).neg(63)),
    );
    // DFMA with a constant source: B (0xa2b, C a register pair at 64, negate 75) or C
    // (0x62b, B a register pair at 64); SM90 DFMA with a uniform B (0xc2b, negate 63).
    v.push(
        fs("DFMA", ALL, 0x0080000006087a2b, 0x0000000000000002)
            .m(78, 2, &rnd)
            .o(r(16).pair())
            .o(r(24).pair().neg(72).reuse(0))
            .o(cb())
            .o(r(64).pair().neg(75).reuse(2)),
    );
    v.push(
        fs("DFMA", ALL, 0x008000000c12762b, 0x0000000000000012)
            .m(78, 2, &rnd)
            .o(r(16).pair())
            .o(r(24).pair().neg(72).reuse(0))
            .o(r(64).pair().reuse(1))
            .o(cb()),
    );
    v.push(
        fs("DFMA", &[Sm90], 0x8000000606087c2b, 0x0000000008000002)
            .m(78, 2, &rnd)
            .o(r(16).pair())
            .o(r(24).pair().neg(72).reuse(0))
            .o(ur(32).neg(63))
            .o(r(64).pair().neg(75).reuse(2)),
    );
    // DADD Rd, A, c[][] (0x629, the second source a constant; sinf/pow) and, on SM90,
    // DFMA Rd, A, B, URc (0xe2b, C a uniform register at 32).
    v.push(
        fs("DADD", ALL, 0x00800c0014167629, 0)
            .m(78, 2, &rnd)
            .o(r(16).pair())
            .o(r(24).pair().neg(72).abs(73).reuse(0))
            .o(cb()),
    );
    v.push(
        fs("DFMA", &[Sm90], 0x0000000606087e2b, 0x0000000008000008)
            .m(78, 2, &rnd)
            .o(r(16).pair())
            .o(r(24).pair().neg(72).reuse(0))
            .o(r(64).pair().reuse(1))
            .o(ur(32).neg(63)),
    );
    // FADD Rd, A, URb (0xe21, bit 91 set; `FADD.FTZ R7, -RZ, -UR4` of a division by a
    // constant): the uniform source at 32, negate 63, |.| 62.
    v.push(
        fs("FADD", ALL, 0x80000004ff077e21, 0x0000000008010100)
            .m(80, 1, &[(0, ""), (1, ".FTZ")])
            .m(78, 2, &rnd)
            .m(77, 1, &[(0, ""), (1, ".SAT")])
            .o(r(16))
            .o(r(24).neg(72).abs(73).reuse(0))
            .o(ur(32).neg(63).abs(62)),
    );
    // MUFU.op Rd, URb (0xd08, bit 91 set: `MUFU.RCP R2, UR4` of a division by a uniform
    // value) and, on SM90, DADD Rd, A, URb (0xe29).
    v.push(
        fs("MUFU", ALL, 0x0000000400027d08, 0x0000000008001000)
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
            .o(ur(32).neg(63).abs(62)),
    );
    v.push(
        fs("DADD", &[Sm90], 0x000000060c167e29, 0x0000000008000100)
            .m(78, 2, &rnd)
            .o(r(16).pair())
            .o(r(24).pair().neg(72).abs(73).reuse(0))
            .o(ur(32).neg(63).abs(62)),
    );
    // ATOMS.EXCH.64 Rd, [Ra+off], B (0x38c with bit 74: `atomicExch` on a shared
    // `unsigned long long`; ptxas builds the other 64-bit shared atomics from CAS loops),
    // register pairs; SM75 leaves 64-71 at 0xff.
    for (arches, hi) in [
        (&[Sm75][..], 0x00000000000004ffu64),
        (SM80UP, 0x0000000000000400),
    ] {
        v.push(
            fs("ATOMS", arches, 0x0000000205ff738c, hi | 0x0000000004000000)
                .m(87, 4, &[(8, ".EXCH")])
                .m(0, 0, &[(0, ".64")])
                .o(r(16).pair())
                .o(shared(None))
                .o(r(32).pair()),
        );
    }
    // ATOMS.POPC.INC.32 Rd, [Ra+URb+off] (0xf8c): ptxas's warp-aggregated
    // `atomicAdd(&shared, 1)`, one increment per active lane. SM80-SM89 only: on SM90
    // nvdisasm prints these bits as `ATOMS.ARRIVE` (mbarrier), and on SM75 it rejects some
    // of the random test's control codes (unit `uC`), a rule not yet found.
    v.push(
        fs("ATOMS", SM80_89, 0x00000000ffff7f8c, 0x000000000d00003f)
            .m(0, 0, &[(0, ".POPC.INC.32")])
            .o(r(16))
            .o(shared(Some(64))),
    );
    // VIADDMNMX[.U32] Rd, A, B, C, Pp (SM90, 0x446): min (Pp true) or max of A + B and C;
    // B a register at 64 (negate 75), C an immediate at 32; bit 72 = 1 signed as in
    // VIMNMX.
    v.push(
        fs("VIADDMNMX", &[Sm90], 0xb960000009087446, 0x0000000007800908)
            .m(72, 1, &[(1, ""), (0, ".U32")])
            .o(r(16))
            .o(r(24).reuse(0))
            .o(r(64).neg(75).reuse(1))
            .o(uimm(32, 32))
            .o(p(87).not(90)),
    );
    // NANOSLEEP[.RAND][.WARP][.SYNCS] imm (0x95d, `__nanosleep`): the duration at 32;
    // `.RAND` 86, `.WARP` 85 (ptxas sets it on SM75 only), SM90's `.SYNCS` 84 (ignored
    // before SM90), as the register form 0x35d (`coverage.rs`); both from `nanosleep`.
    nanosleep(v, 0x000000640000795d, uimm(32, 32));
    // ATOMS.CAS / ATOMS.CAST.SPIN Rd, [Ra+off], B, C (0x38d): compare-and-swap in shared
    // memory (`atomicCAS`) and the compare-and-store of ptxas's shared float and 64-bit
    // atomic loops (Rd = 1 when it stored); B at 32, C at 64; `.64` at 74 (pairs).
    for (wide, sfx) in [(0u64, ""), (1, ".64")] {
        let data = |o: Opnd| if wide == 1 { o.pair() } else { o };
        v.push(
            fs(
                "ATOMS",
                ALL,
                0x0000000600ff738d,
                0x0000000000000007 | wide << 10,
            )
            .m(87, 2, &[(0, ".CAS"), (3, ".CAST.SPIN")])
            .m(0, 0, &[(0, sfx)])
            .o(data(r(16)))
            .o(shared(None))
            .o(data(r(32)))
            .o(data(r(64))),
        );
    }
    // ATOMG.E.CAS.64 (0x3a9 with bit 74: 64-bit `atomicCAS`) is a value of the CAS
    // forms' type field (`memory.rs`), with every memory order.
}
