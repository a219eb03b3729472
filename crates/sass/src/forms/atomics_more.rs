//! Atomics the CUDA and generated PTX corpora showed after the first atomics forms
//! (issue 12): generic compare-and-swap. Each from a ptxas word, every field flipped and
//! read back with nvdisasm (`docs/sass.md`, "Atomics, issue 12"); the random-field test
//! checks every field value on every SM listed.

use super::*;

pub(super) fn atomics_more(v: &mut Vec<Form>) {
    // ATOM.E.CAS[.type].order Pd, Rd, [Ra+off], B, C (0x38b, `atom.cas` without a state
    // space, and the compare-and-store of ptxas's generic float and 64-bit atomic loops):
    // ATOMG 0x3a9's layout (`memory.rs`), the address printed without `.64` on every SM;
    // B 32-39, C 64-71, offset 40-63; operation 87-88: 0 `.CAS`, 1 `.CAST`, 3
    // `.CAST.SPIN` (2 prints `.CAS` too: refused); type 73-75: 0 nothing, 1 `.S32`, 2
    // `.64` with register pairs (4 is `.INVALID4`, SM90's `.128`: not modelled); memory
    // order 77-80 as ATOMG's. Samples: sm_80/sm_90 ptxas words of `atom.cas.b64` and
    // `atom.add.f64` on generic pointers. Probed on SM75, SM86 and SM90; SM75 (whose
    // constant bits ptxas may set otherwise) is left out until a ptxas word shows them.
    for (types, pair) in [
        (&[(0u64, ""), (1, ".S32")][..], false),
        (&[(2, ".64")][..], true),
    ] {
        let data = |o: Opnd| if pair { o.pair() } else { o };
        v.push(
            fs("ATOM", SM80UP, 0x0000000402ff738b, 0x000000000010e506)
                .m(0, 0, &[(0, ".E")])
                .m(87, 2, &[(0, ".CAS"), (1, ".CAST"), (3, ".CAST.SPIN")])
                .m(73, 3, types)
                .m(77, 4, memory::MEM_ORDER)
                .o(p(81))
                .o(data(r(16)))
                .o(Opnd {
                    rz_ok: false,
                    ..mem(MemFmt::Global, 0)
                })
                .o(data(r(32)))
                .o(data(r(64))),
        );
    }
}

/// SM90's float reduction, `REDG.E.op.type.STRONG.GPU desc[URx][Ra.64+off], Rb` (0x9a6):
/// address and data as REDG (0x98e); operation 87-89 with ADD 0, MIN 2, MAX 4 (odd values
/// print `.INVALIDn`); type 73-76, probed on SM90 (issue 12 made it a field; it was the
/// constant `.F32.FTZ.RN`): 0 `.F16x2.RN`, 3 `.BF16x2.RN`, 9 `.F32.FTZ.RN`, 12 `.F32.RN`
/// on one register, 1 `.F16x4.RN`, 4 `.BF16x4.RN`, 10 `.F32x2.FTZ.RN`, 13 `.F32x2.RN`,
/// 15 `.F64.RN` on a pair; 6-8 print `.INVALIDn`; the four-register types 2, 5, 11, 14
/// (`.F16x8`, `.BF16x8`, `.F32x4`) are not modelled (the register count by modifier knows
/// no such suffix yet). The memory order is ptxas's constant `.STRONG.GPU`.
pub(super) fn sm90_float_red(v: &mut Vec<Form>) {
    const SINGLE: &[(u64, &str)] = &[
        (9, ".F32.FTZ.RN"),
        (12, ".F32.RN"),
        (0, ".F16x2.RN"),
        (3, ".BF16x2.RN"),
    ];
    const PAIR: &[(u64, &str)] = &[
        (15, ".F64.RN"),
        (1, ".F16x4.RN"),
        (4, ".BF16x4.RN"),
        (10, ".F32x2.FTZ.RN"),
        (13, ".F32x2.RN"),
    ];
    for (types, pair) in [(SINGLE, false), (PAIR, true)] {
        let data = if pair { r(32).pair() } else { r(32) };
        v.push(
            fs("REDG", &[Sm90], 0x000000000a0079a6, 0x000000000c10e188)
                .no_write_sb()
                .m(0, 0, &[(0, ".E")])
                .m(87, 3, &[(0, ".ADD"), (2, ".MIN"), (4, ".MAX")])
                .m(73, 4, types)
                .m(0, 0, &[(0, ".STRONG.GPU")])
                .o(mem(MemFmt::GlobalDesc, 64))
                .o(data),
        );
    }
}
