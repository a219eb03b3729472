//! Surface loads, stores and reductions (`suld.b`, `sust.b`, `sust.p`, `sured.b`): SULD,
//! SUST and SURED, found by the generated PTX corpus (issue 12) and probed with nvdisasm
//! on ptxas words, bit by bit and field by field, on SM75, SM86 and SM90.
//!
//! Layout (every SM): the coordinates' first register 24-31 printed `[Ra]` (RZ prints
//! `???`: refused), the data register 16-23 (loads) or 32-39 (stores, reductions), the
//! surface handle a register at 64-71 before SM90 (RZ prints `???255`: refused) and on
//! SM90 a uniform register at 40-45 followed by an 8-bit immediate at 46-53
//! (`[R8], UR6, 0x0`; opcodes 0xf99, 0xf9d, 0xf9b, 0xf9f against 0x99a, 0x99e, 0x99c,
//! 0x3a0). Fields: `.BA` 72 (`.D` forms), the dimension 61-63 ([`DIMS`]), the cache
//! operation 84-86, the size 73-75 as LDG's (`.D` loads and stores), the memory order and
//! scope 77-80 (loads as LDG's, stores as STG's, reductions as RED's; on SM75 no
//! `.CONSTANT` loads, found by the random-field test), the out-of-range
//! mode 59-60 (0 `.IGN`, 1 nothing, 2 `.TRAP`), and for SURED the operation 87-89 and
//! type 73-75 ([`SURED_TYPES`]). SUST.P's 72-75 are a component mask that prints nothing
//! only when all four are set (a constant here). The result predicate 81-83 (hidden
//! when PT) and bit 76 are constants.

use super::memory::{CACHE_OPS, LD_ORDER, MEM_ORDER, SM75_LD_ORDER};
use super::*;

/// Surface dimensions, bits 61-63 (6 and 7 print `.INVALIDn`).
const DIMS: &[(u64, &str)] = &[
    (0, ".1D"),
    (1, ".1D_BUFFER"),
    (2, ".1D_ARRAY"),
    (3, ".2D"),
    (4, ".2D_ARRAY"),
    (5, ".3D"),
];

/// The out-of-range mode, bits 59-60 (3 prints `.INVALID3`).
const CLAMP: &[(u64, &str)] = &[(0, ".IGN"), (1, ""), (2, ".TRAP")];

/// `.D` access sizes, bits 73-75, as LDG's.
const SIZES: &[(u64, &str)] = &[
    (0, ".U8"),
    (1, ".S8"),
    (2, ".U16"),
    (3, ".S16"),
    (4, ""),
    (5, ".64"),
    (6, ".128"),
];

/// SURED's operand types, bits 73-75: 32-bit ones and 64-bit ones (register pairs).
const SURED_TYPES: [&[(u64, &str)]; 2] = [
    &[
        (0, ""),
        (1, ".S32"),
        (3, ".F32.FTZ.RN"),
        (4, ".F16x2.RN"),
        (6, ".SD32"),
    ],
    &[(2, ".U64"), (5, ".S64"), (7, ".SD64")],
];

/// SURED's operations, bits 87-89.
const SURED_OPS: &[(u64, &str)] = memory::REDUCTION_OPS;

/// The coordinates' register, `[Ra]` (no offset; RZ refused).
fn coords() -> Opnd {
    let mut o = shared(None);
    o.offset = Vec::new();
    o.rz_ok = false;
    o
}

/// One architecture group: its SMs, its opcodes (SULD, SUST.D, SUST.P, SURED), the
/// order tables (load, store, reduction) and whether the handle is a uniform register.
type Group = (
    &'static [Arch],
    [u16; 4],
    [&'static [(u64, &'static str)]; 3],
    bool,
);

pub(super) fn surfaces(v: &mut Vec<Form>) {
    let sm75: [&'static [(u64, &'static str)]; 3] = [
        &SM75_LD_ORDER[4..],
        &SM75_LD_ORDER[4..],
        &SM75_LD_ORDER[4..12],
    ];
    let later: [&'static [(u64, &'static str)]; 3] = [LD_ORDER, MEM_ORDER, MEM_ORDER];
    let groups: [Group; 3] = [
        (&[Sm75], [0x99a, 0x99e, 0x99c, 0x3a0], sm75, false),
        (SM80_89, [0x99a, 0x99e, 0x99c, 0x3a0], later, false),
        (&[Sm90], [0xf99, 0xf9d, 0xf9b, 0xf9f], later, true),
    ];
    for (arches, [ld, st, stp, red], [ld_order, st_order, red_order], uniform) in groups {
        let handle = |f: Form| {
            if uniform {
                f.o(ur(40)).o(uimm(46, 8))
            } else {
                f.o(Opnd {
                    rz_ok: false,
                    ..r(64)
                })
            }
        };
        // The samples: ptxas words with the fields above cleared or at ptxas's values;
        // the handle fields of the other layout are constants (ignored by nvdisasm).
        // Stores and reductions leave bits 16-23 at 0 (ignored by nvdisasm).
        let lo = |op: u16| 0x1000000004007000 | op as u64 | if op == ld { 4 << 16 } else { 0 };
        // SM90 sets bit 91 in these words (clear, nvdisasm rejects them there).
        let hi = |h: u64| if uniform { h | 1 << 27 } else { h };
        let d = |f: Form| {
            f.m(0, 0, &[(0, ".D")])
                .m(72, 1, &[(0, ""), (1, ".BA")])
                .m(61, 3, DIMS)
        };
        v.push(handle(
            d(fs("SULD", arches, lo(ld), hi(0x00000000001ea900)))
                .m(84, 3, CACHE_OPS)
                .m(73, 3, SIZES)
                .m(77, 4, ld_order)
                .m(59, 2, CLAMP)
                .o(r(16))
                .o(coords()),
        ));
        v.push(handle(
            d(fs("SUST", arches, lo(st), hi(0x000000000010ad00)))
                .no_write_sb()
                .m(84, 3, CACHE_OPS)
                .m(73, 3, SIZES)
                .m(77, 4, st_order)
                .m(59, 2, CLAMP)
                .o(coords())
                .o(r(32)),
        ));
        v.push(handle(
            fs("SUST", arches, lo(stp), hi(0x000000000010af00))
                .no_write_sb()
                .m(0, 0, &[(0, ".P")])
                .m(61, 3, DIMS)
                .m(84, 3, CACHE_OPS)
                .m(77, 4, st_order)
                .m(59, 2, CLAMP)
                .o(coords())
                .o(r(32)),
        ));
        for (tys, pair) in [(SURED_TYPES[0], false), (SURED_TYPES[1], true)] {
            let data = if pair { r(32).pair() } else { r(32) };
            v.push(handle(
                d(fs("SURED", arches, lo(red), hi(0x0000000000114100)))
                    .no_write_sb()
                    .m(87, 3, SURED_OPS)
                    .m(84, 3, CACHE_OPS)
                    .m(73, 3, tys)
                    .m(77, 4, red_order)
                    .m(59, 2, CLAMP)
                    .o(coords())
                    .o(data),
            ));
        }
    }
}
