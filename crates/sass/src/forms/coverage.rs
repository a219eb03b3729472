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
