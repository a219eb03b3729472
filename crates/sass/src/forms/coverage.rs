//! Small forms found by the generated PTX corpus's refusal list (issue 12, coverage step
//! two), each probed with nvdisasm on the corpus's ptxas words, bit by bit and field by
//! field, on SM75 and SM90 (SM86 where noted; the from-scratch and random-field tests
//! check every SM the form lists).

use super::*;

/// QSPC's state spaces (73-74) before SM90, where 3 prints `.INVALID3`.
const QSPC_SPACES: &[(u64, &str)] = &[(0, ".G"), (1, ".L"), (2, ".S")];
/// QSPC's state spaces on SM90 (`isspacep.shared::cluster` is 3, `.D`).
const QSPC_SPACES_90: &[(u64, &str)] = &[(0, ".G"), (1, ".L"), (2, ".S"), (3, ".D")];

pub(super) fn coverage(v: &mut Vec<Form>) {
    // QSPC.E.space Pd, Rd, [Ra+off] (`isspacep`): Pd 81-83, a register 16-23 (ptxas writes
    // RZ), the address 24-31 with a signed 24-bit offset 40-63, `.E` 72 (the 64-bit
    // address), the space 73-74.
    for (arches, spaces) in [(PRE90, QSPC_SPACES), (&[Sm90][..], QSPC_SPACES_90)] {
        v.push(
            fs("QSPC", arches, 0x0000000004ff73aa, 0x0000000000000500)
                .m(72, 1, &[(0, ""), (1, ".E")])
                .m(73, 2, spaces)
                .o(p(81))
                .o(r(16))
                .o(mem(MemFmt::Global, 0)),
        );
    }
    // VABSDIFF[.U32] Rd, [Pd,] A, B, C (`vabsdiff` with an add): bit 73 clear prints
    // `.U32`; the predicate 81-83 is printed after Rd unless PT. VABSDIFF4[.U8][.ACC]
    // (`vabsdiff4`): 73 clear prints `.U8`, 75 `.ACC`. Bits 40-63, 72, 74-80 and 84-90
    // are ignored by nvdisasm (constants here).
    v.push(
        fs("VABSDIFF", ALL, 0x0000000504057214, 0x00000000000e0200)
            .m(73, 1, &[(1, ""), (0, ".U32")])
            .o(r(16))
            .o(p(81).hide(7))
            .o(r(24))
            .o(r(32))
            .o(r(64)),
    );
    v.push(
        fs("VABSDIFF4", ALL, 0x0000000500057215, 0x00000000000e0804)
            .m(73, 1, &[(1, ""), (0, ".U8")])
            .m(75, 1, &[(0, ""), (1, ".ACC")])
            .o(r(16))
            .o(p(81).hide(7))
            .o(r(24))
            .o(r(32))
            .o(r(64)),
    );
    // PMTRIG imm (`pmevent`): a 16-bit immediate 32-47, a predicate 87-89 (negated by
    // 90) printed before it unless it is PT; `!PT` is refused (the hidden operand would
    // lose its negation).
    v.push(
        fs("PMTRIG", ALL, 0x0000000800007801, 0x0000000003800000)
            .o(p(87).hide(7))
            .o(uimm(32, 16)),
    );
    // B2R.RESULT Rd[, Pd] (`bar.red.popc`'s result): Rd 16, Pd 81-83 printed unless PT.
    // Bit 78 clear is another form (`B2R Rd, imm`), not modelled.
    v.push(
        fs("B2R", ALL, 0x000000000005731c, 0x00000000000e4000)
            .m(0, 0, &[(0, ".RESULT")])
            .o(r(16))
            .o(p(81).hide(7)),
    );
    // BPT.mode [imm] (`trap` is `.TRAP`, `brkpt` `.INT`): the mode 84-86, a 3-bit
    // immediate 34-36 not printed when 0 (bits 32-33 are ignored: constants). nvdisasm
    // rejects any scoreboard on it. Modes 0, 1 and 7 are illegal; `.PAUSE` (2), `.DRAIN`
    // (5) and `.PAUSE_QUIET` (6) accept only a zero stall on SM80 and later (SM90 then
    // prints nothing for the pause modes), a control-code rule the form table cannot say:
    // not modelled.
    v.push(
        fs("BPT", ALL, 0x000000040000795c, 0x0000000000300000)
            .m(84, 3, &[(3, ".TRAP"), (4, ".INT")])
            .o(uimm(34, 3).hide(0))
            .no_sb(),
    );
    // FSET.BF.cmp[.FTZ].bool Rd, A, B, Pc (`set.f32` to a float mask): A 24 (negate 72,
    // absolute 73), B 32 (negate 63, absolute 62), the comparison 76-79, `.FTZ` 80, the
    // combiner 74-75, Pc 87-89 (negated by 90, always printed).
    v.push(
        fs("FSET", ALL, 0x000000050005720a, 0x0000000003801000)
            .m(0, 0, &[(0, ".BF")])
            .m(76, 4, &FCMP)
            .m(80, 1, &[(0, ""), (1, ".FTZ")])
            .m(74, 2, &LOGIC)
            .o(r(16))
            .o(r(24).neg(72).abs(73))
            .o(r(32).neg(63).abs(62))
            .o(p(87).not(90)),
    );
}

/// Barriers, sleeps, matrix moves and SM90's operand-less synchronisation found by the
/// generated corpus's refusal list, probed with nvdisasm as the forms above.
pub(super) fn coverage_sync(v: &mut Vec<Form>) {
    // BAR.SYNC/ARV Ra, Ra (0x31d, `bar.sync a, b` with both in registers): nvdisasm
    // prints bits 32-39 twice (bits 24-31 are ignored; the encoder refuses two different
    // registers). `.ARV` is bit 77; SM80 and later add `.DEFER_BLOCKING` at 80, which
    // `.ARV` does not take (nvdisasm rejects it). SM75 rejects bit 80; 78 is `.SCAN` or
    // `.RED` with a predicate (not modelled).
    let both = || r(32);
    v.push(
        fs("BAR", &[Sm75], 0x000000000000731d, 0)
            .no_write_sb()
            .m(77, 1, &[(0, ".SYNC"), (1, ".ARV")])
            .o(both())
            .o(both()),
    );
    v.push(
        fs("BAR", SM80UP, 0x000000000000731d, 0)
            .no_write_sb()
            .m_pieces(
                &[(77, 1), (80, 1)],
                &[(0, ".SYNC"), (2, ".SYNC.DEFER_BLOCKING"), (1, ".ARV")],
            )
            .o(both())
            .o(both()),
    );
    // NANOSLEEP[.RAND][.WARP][.SYNCS] Ra (0x35d, `__nanosleep` with a register): Ra 32,
    // `.RAND` 86, `.WARP` 85, SM90's `.SYNCS` 84 (ignored before SM90); bits 87-90 print a
    // predicate before Ra unless PT (a constant here). nvdisasm rejects any scoreboard.
    // The immediate form 0x95d is in `gaps.rs`.
    nanosleep(v, 0x000000020000735d, r(32));
    // MOVM.16.MT88 Rd, Ra (`movmatrix.sync.aligned.m8n8.trans.b16`): Rd 16, Ra 24, one
    // register each (two halves of the 8x8 matrix per lane). The shape 78-79 has
    // `.M832` and `.M864` too, whose register counts nvdisasm cannot show: not modelled.
    v.push(
        fs("MOVM", ALL, 0x000000000005723a, 0)
            .m(0, 0, &[(0, ".16.MT88")])
            .o(r(16))
            .o(r(24)),
    );
    // STSM.16.shape[.count] [Ra+off], Rb (SM90, `stmatrix`): the shared address as LDSM's
    // (24-31, a signed 24-bit offset 40-63; bit 91 adds a uniform register 64-69), the data
    // 32 (one register per 8x8 matrix), the shape 78 (`.M88`, `.MT88` transposed), the
    // count 72-73 (3 prints `.INVALID3`); bit 75 set prints `.???1` for the size. A store:
    // nvdisasm rejects a write scoreboard.
    let shapes: &[(u64, &str)] = &[(0, ".M88"), (1, ".MT88")];
    for (bit91, ureg) in [(0u64, None), (1 << 27, Some(64))] {
        v.push(
            fs("STSM", &[Sm90], 0x0000000400007844, bit91)
                .m(0, 0, &[(0, ".16")])
                .m(78, 1, shapes)
                .m(72, 2, &[(0, ""), (1, ".2"), (2, ".4")])
                .o(shared(ureg))
                .o(r(32))
                .no_write_sb(),
        );
    }
    // SM90's operand-less instructions: bits 16-90 are ignored by nvdisasm (constants
    // here), except FENCE.VIEW.ASYNC's space 72 (`.S` shared, `.G` global) and
    // WARPGROUP's 79-80 (other values rejected).
    // UCGABAR_ARV and UCGABAR_WAIT need bit 91 set (nvdisasm rejects it clear).
    for (name, lo, hi) in [
        ("PREEXIT", 0x000000000000782du64, 0u64),
        ("ACQBULK", 0x000000000000782e, 0),
        ("UCGABAR_ARV", 0x00000000000079c7, 0x0000000008000000),
        ("UCGABAR_WAIT", 0x0000000000007dc7, 0x0000000008000000),
        ("UTMACMDFLUSH", 0x00000000000079b7, 0),
    ] {
        v.push(fs(name, &[Sm90], lo, hi));
    }
    // ELECT[.IGNOREKILL] Pd, URd, Pc (`elect.sync`): Pd 81-83, URd 16-21 (the elected
    // lane), Pc 87-89 negated by 90 (the member mask's predicate), `.IGNOREKILL` 85; bit
    // 91 makes the last operand a uniform register (not modelled).
    v.push(
        fs("ELECT", &[Sm90], 0x000000000004782f, 0x0000000003800000)
            .m(85, 1, &[(0, ""), (1, ".IGNOREKILL")])
            .o(p(81))
            .o(ur(16))
            .o(p(87).not(90)),
    );
    // F2IP.type.F32[.TRUNC][.NTZ][.RELU] Rd, A, B, C[.H1] (SM86 and later, `cvt.pack`
    // of a float to an 8-bit integer into a byte of A and C): D 16, A 24, B 32, C 64
    // (`.H1` 72); the type 76 (`.U8`, `.S8`; 77 prints `.INVALID2`), rounding 78-79 (0
    // nothing, 3 `.TRUNC`; 1 and 2 print `.INVALIDn`), `.NTZ` 74, `.RELU` 75.
    for (h1, sfx) in [(0u64, ""), (1, ".H1")] {
        v.push(
            fs("F2IP", &[Sm86, Sm89, Sm90], 0x00000000ff007243, h1 << 8)
                .m(76, 1, &[(0, ".U8"), (1, ".S8")])
                .m(0, 0, &[(0, ".F32")])
                .m(78, 2, &[(0, ""), (3, ".TRUNC")])
                .m(74, 1, &[(0, ""), (1, ".NTZ")])
                .m(75, 1, &[(0, ""), (1, ".RELU")])
                .o(r(16))
                .o(r(24))
                .o(r(32))
                .o(r(64).suffix(sfx)),
        );
    }
    // nvdisasm rejects any scoreboard on WARPGROUP and a read scoreboard on FENCE.
    // (`WARPGROUP.DEPBAR.LE gsb0, n`, bits 47 and 80, accepts no wait mask either:
    // `sm90_bulk.rs`.)
    v.push(
        fs("WARPGROUP", &[Sm90], 0x00000000000079c5, 0)
            .m(0, 0, &[(0, ".ARRIVE")])
            .no_sb(),
    );
    v.push(
        fs("FENCE", &[Sm90], 0x00000000000073c6, 0)
            .m(0, 0, &[(0, ".VIEW.ASYNC")])
            .m(72, 1, &[(0, ".S"), (1, ".G")])
            .no_read_sb(),
    );
}
