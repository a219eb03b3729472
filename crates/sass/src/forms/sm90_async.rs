//! SM90's asynchronous-transaction barriers (`mbarrier` on SM90): the SYNCS operations
//! that arrive on and test a barrier in shared memory, found by the generated PTX corpus
//! (issue 12) and probed with nvdisasm on ptxas's words, bit by bit and field by field.
//!
//! Both forms address the barrier as a shared-memory operand `[Ra+URb+off]`: the register
//! 24-31 (RZ prints `[UR4]`), the uniform register 64-69 (URZ prints `[R4+URZ]`), a signed
//! 24-bit offset 40-63. Bits 70-71 are the operation (1 `.PHASECHK`, 0 `.ARRIVE`; 2 and 3
//! print `???n`), a constant of each form; bit 91 is set (clear, nvdisasm rejects them).

use super::*;

/// SYNCS.ARRIVE's arrival mode, bits 84-86 (6 and 7 print `.INVALIDn`).
const ARRIVE_MODES: &[(u64, &str)] = &[
    (0, ""),
    (1, ".A1T0"),
    (2, ".A0T1"),
    (3, ".A0TR"),
    (4, ".A0TX"),
    (5, ".ART0"),
];

pub(super) fn syncs(v: &mut Vec<Form>) {
    let barrier = || shared(Some(64));
    // SYNCS.PHASECHK.TRANS64[.TRYWAIT] Pp, [Ra+URb+off], Rc (`mbarrier.test_wait`,
    // `try_wait`): the result predicate 81-83, the phase parity Rc 32-39, `.TRYWAIT` 72.
    // Bits 73-80 and 84-90 are ignored by nvdisasm (constants here).
    v.push(
        fs("SYNCS", &[Sm90], 0x00000007040075a7, 0x000e24000800017f)
            .m(0, 0, &[(0, ".PHASECHK.TRANS64")])
            .m(72, 1, &[(0, ""), (1, ".TRYWAIT")])
            .o(p(81))
            .o(barrier())
            .o(r(32)),
    );
    // SYNCS.ARRIVE.TRANS64[.TMASK|.RED][.OPTOUT][.mode] Rd, [Ra+URb+off], Rc
    // (`mbarrier.arrive`, `expect_tx`, `complete_tx`, `arrive_drop`): the barrier's
    // 64-bit state before the arrival into Rd:Rd+1 16-23 (RZ when not wanted), the
    // count or transaction bytes Rc 32-39; 73-74 `.TMASK` / `.RED` (3 prints
    // `.INVALID3`), `.OPTOUT` 75, the arrival mode 84-86. Bits 72 and 76-80 are ignored.
    v.push(
        fs("SYNCS", &[Sm90], 0x000000ffff0479a7, 0x002e640008100006)
            .m(0, 0, &[(0, ".ARRIVE.TRANS64")])
            .m(73, 2, &[(0, ""), (1, ".TMASK"), (2, ".RED")])
            .m(75, 1, &[(0, ""), (1, ".OPTOUT")])
            .m(84, 3, ARRIVE_MODES)
            .o(r(16).pair())
            .o(barrier())
            .o(r(32)),
    );
}
