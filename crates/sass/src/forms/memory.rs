//! Memory: global, shared and local loads and stores, reductions and atomics (RED/REDG,
//! ATOMG, ATOMS), per SM.

use super::*;

/// The operations of ATOMG, ATOMS and RED in bits 87-90, the same on every SM.
pub(super) const ATOM_OPS: &[(u64, &str)] = &[
    (0, ".ADD"),
    (1, ".MIN"),
    (2, ".MAX"),
    (3, ".INC"),
    (4, ".DEC"),
    (5, ".AND"),
    (6, ".OR"),
    (7, ".XOR"),
    (8, ".EXCH"),
];

/// The eight reductions ADD..XOR, the first eight of [`ATOM_OPS`] and the same values in
/// bits 87-89 of every reduction that has no exchange (SURED, UTMAREDG, UBLKRED, REDAS).
pub(super) const REDUCTION_OPS: &[(u64, &str)] = ATOM_OPS.split_at(8).0;

/// The access sizes of LDG/STG and the loads and stores laid out like them, bits 73-75
/// (probed on SM75, SM86 and SM90): 0 .U8, 1 .S8, 2 .U16, 3 .S16, 4 32-bit, 5 .64, 6 .128
/// (7 prints .INVALID7, or .U.128 on SM75). In the order the forms are made.
pub(super) const GLOBAL_SIZES: [(u64, &str); 7] = [
    (4, ""),
    (5, ".64"),
    (0, ".U8"),
    (1, ".S8"),
    (2, ".U16"),
    (3, ".S16"),
    (6, ".128"),
];

/// Global cache operation, bits 84-86 of LDG/STG (and LDL/STL): 1, ptxas's default, prints
/// nothing; 6 and 7 print `.INVALIDn`. Probed on SM75, SM80 and SM90.
pub(super) const CACHE_OPS: &[(u64, &str)] = &[
    (0, ".EF"),
    (1, ""),
    (2, ".EL"),
    (3, ".LU"),
    (4, ".EU"),
    (5, ".NA"),
];

/// LDG's L2 prefetch size, bits 68-69 (`ld.global.L2::64B` ..; SM80-SM90).
const LTC: &[(u64, &str)] = &[(0, ""), (1, ".LTC64B"), (2, ".LTC128B"), (3, ".LTC256B")];

/// SM75 global memory order (79-80: 0 `.CONSTANT`, 1 weak, 2 `.STRONG`, 3 `.MMIO`) and
/// scope (77-78: CTA, SM, GPU, SYS) of LDG, one field 77-80; every value prints. ptxas's
/// default is 7, `.SYS`.
pub(super) const SM75_LD_ORDER: &[(u64, &str)] = &[
    (0, ".CONSTANT.CTA"),
    (1, ".CONSTANT.SM"),
    (2, ".CONSTANT.GPU"),
    (3, ".CONSTANT.SYS"),
    (4, ".CTA"),
    (5, ".SM"),
    (6, ".GPU"),
    (7, ".SYS"),
    (8, ".STRONG.CTA"),
    (9, ".STRONG.SM"),
    (10, ".STRONG.GPU"),
    (11, ".STRONG.SYS"),
    (12, ".MMIO.CTA"),
    (13, ".MMIO.SM"),
    (14, ".MMIO.GPU"),
    (15, ".MMIO.SYS"),
];

/// SM80-SM90 memory order and scope of LDG, bits 77-80: the table of RED/ATOMG/STG
/// ([`MEM_ORDER`]) except that 4 prints `.CONSTANT` (`ld.global.nc`).
pub(super) const LD_ORDER: &[(u64, &str)] = &[
    (0, ""),
    (1, ".CONSTANT.PRIVATE"),
    (2, ".CONSTANT.CTA"),
    (3, ".CONSTANT.CTA.PRIVATE"),
    (4, ".CONSTANT"),
    (5, ".STRONG.SM"),
    (6, ".STRONG.GPU.PRIVATE"),
    (7, ".STRONG.GPU"),
    (8, ".MMIO.GPU"),
    (9, ".CONSTANT.SM"),
    (10, ".STRONG.SYS"),
    (11, ".CONSTANT.SM.PRIVATE"),
    (12, ".MMIO.SYS"),
    (13, ".CONSTANT.VC"),
    (14, ".CONSTANT.VC.PRIVATE"),
    (15, ".CONSTANT.GPU"),
];

/// SM80-SM90 memory order and scope, bits 77-80, of STG, RED/REDG and ATOMG (probed on
/// SM80, SM86 and SM90 on every value).
pub(super) const MEM_ORDER: &[(u64, &str)] = &[
    (0, ""),
    (1, ".CONSTANT.PRIVATE"),
    (2, ".CONSTANT.CTA"),
    (3, ".CONSTANT.CTA.PRIVATE"),
    (4, ".STRONG.SM.PRIVATE"),
    (5, ".STRONG.SM"),
    (6, ".STRONG.GPU.PRIVATE"),
    (7, ".STRONG.GPU"),
    (8, ".MMIO.GPU"),
    (9, ".CONSTANT.SM"),
    (10, ".STRONG.SYS"),
    (11, ".CONSTANT.SM.PRIVATE"),
    (12, ".MMIO.SYS"),
    (13, ".CONSTANT.VC"),
    (14, ".CONSTANT.VC.PRIVATE"),
    (15, ".CONSTANT.GPU"),
];

/// SM75's L2 prefetch sizes: 3 prints `.INVALID3` there (found by the from-scratch test).
const SM75_LTC: &[(u64, &str)] = &[(0, ""), (1, ".LTC64B"), (2, ".LTC128B")];

pub(super) fn memory(v: &mut Vec<Form>) {
    // Global loads and stores. Bit 72 is .E (64-bit address), size 73-75 (below); address
    // register 24-31, signed byte offset 40-63; cache operation 84-86 ([`CACHE_OPS`]), LDG's
    // L2 prefetch 68-69 ([`LTC`]), memory order and scope 77-80 (per SM, loads and stores
    // apart). Printed in that order: `LDG.E.EF.LTC64B.S8.CONSTANT.SYS`. The predicate
    // fields (81-83, 64-67, 87) are constants. SM75 prints the scope (`.SYS`) and the
    // address without `.64`; SM80-SM89 carry a descriptor register in bits 32-37 that
    // nvdisasm does not print (constant UR4 here) unless bit 101 is set, which prints it:
    // `desc[UR4][R2.64+0x8]` (a form of its own); SM90 always prints it. The descriptor
    // register is in bits 32-37 for loads and 64-69 for stores (whose data register is at
    // 32). SM75 stores print order values 0-3 as `.INVALID0` (no constant stores).
    // SM80-SM90 also have SM75's opcodes 0x381/0x386: the address without a descriptor
    // (bits 90-91 clear), printed `[R4+0x8]` without `.64` (`ld.mmio`, libcu++'s
    // `atomic_ref`); bits 32-39 of the load, 64-69 of the store and bit 76 are ignored by
    // nvdisasm there (constant: ptxas's zeros). Probed on SM80, SM86 and SM90.
    type Orders = (
        &'static [(u64, &'static str)],
        &'static [(u64, &'static str)],
    );
    type Global = (&'static [Arch], u16, u16, u64, u64, MemFmt, Orders);
    let sm75_st: &'static [(u64, &'static str)] = &SM75_LD_ORDER[4..];
    let globals: [Global; 5] = [
        (
            &[Sm75],
            0x381,
            0x386,
            0x00000000001ee900,
            0x000000000010e900,
            MemFmt::Global,
            (SM75_LD_ORDER, sm75_st),
        ),
        (
            SM80_89,
            0x981,
            0x986,
            0x000000000c1e1900,
            0x000000000c101904,
            MemFmt::Global64,
            (LD_ORDER, MEM_ORDER),
        ),
        (
            SM80_89,
            0x981,
            0x986,
            0x000000200c1e1900,
            0x000000200c101904,
            MemFmt::GlobalDesc,
            (LD_ORDER, MEM_ORDER),
        ),
        (
            &[Sm90],
            0x981,
            0x986,
            0x000000000c1e1900,
            0x000000000c101904,
            MemFmt::GlobalDesc,
            (LD_ORDER, MEM_ORDER),
        ),
        (
            SM80UP,
            0x381,
            0x386,
            0x00000000001e0900,
            0x0000000000100900,
            MemFmt::GlobalPlain,
            (LD_ORDER, MEM_ORDER),
        ),
    ];
    for (arches, ld, st, ld_hi, st_hi, fmt, (ld_order, st_order)) in globals {
        let ur = if matches!(fmt, MemFmt::Global | MemFmt::GlobalPlain) {
            0
        } else {
            4u64 << 32
        };
        // Sizes 73-75 (probed on SM75, SM86 and SM90, loads and stores alike): 0 .U8, 1 .S8,
        // 2 .U16, 3 .S16, 4 32-bit, 5 .64, 6 .128 (7 prints .INVALID7, or .U.128 on SM75).
        for (size, sfx) in GLOBAL_SIZES {
            let size_bits = |hi: u64| (hi & !(7 << 9)) | size << 9;
            let data = |o: Opnd| if size == 5 { o.pair() } else { o };
            v.push(
                Form::new("LDG", ld, arches, ld as u64 | 0x7000 | ur, size_bits(ld_hi))
                    .m(0, 0, &[(0, ".E")])
                    .m(84, 3, CACHE_OPS)
                    .m(68, 2, if arches == [Sm75] { SM75_LTC } else { LTC })
                    .m(0, 0, &[(0, sfx)])
                    .m(77, 4, ld_order)
                    .o(data(r(16)))
                    .o(mem(fmt, 32)),
            );
            v.push(
                Form::new("STG", st, arches, st as u64 | 0x7000 | ur, size_bits(st_hi))
                    .no_write_sb()
                    .m(0, 0, &[(0, ".E")])
                    .m(84, 3, CACHE_OPS)
                    .m(0, 0, &[(0, sfx)])
                    .m(77, 4, st_order)
                    .o(mem(fmt, 64))
                    .o(data(r(32))),
            );
        }
    }
    // SM75 LDG with a uniform register added to the address (0x981, distinct from SM75's
    // plain 0x381): `LDG.E.SYS Rd, [Ra.U32+URb+off]`, `[Ra.64+URb+off]` with bit 90 set,
    // `[URb+off]` with an RZ base (bit 90 then prints nothing; ptxas sets it, so a clear
    // bit is refused there); UR
    // 32-37, signed offset 40-63; sizes, cache, L2 prefetch and order as above. Probed
    // with nvdisasm on ptxas words.
    for (size, sfx) in GLOBAL_SIZES {
        let mut addr = Opnd::new(OpndKind::Mem(MemFmt::GlobalUr), 24, 8);
        addr.offset = vec![(40, 24)];
        addr.ureg = Some((32, 6));
        addr.wide = Some(90);
        let data = if size == 5 { r(16).pair() } else { r(16) };
        v.push(
            Form::new(
                "LDG",
                0x981,
                &[Sm75],
                0x0000000412121981,
                (0x00000000081ee900 & !(7 << 9)) | size << 9,
            )
            .m(0, 0, &[(0, ".E")])
            .m(84, 3, CACHE_OPS)
            .m(68, 2, SM75_LTC)
            .m(0, 0, &[(0, sfx)])
            .m(77, 4, SM75_LD_ORDER)
            .o(data)
            .o(addr),
        );
    }
    // Shared loads and stores: address register 24-31, offset 40-63. LDS (0x984): with
    // bit 91 set a uniform register (32-37) is added to the address; .U at bit 76. STS:
    // 0x388 register data at 32; 0x988 (bit 91 set) adds a uniform register at 64-69.
    // nvdisasm prints .U only on SM75; elsewhere bit 76 is a constant 0 here.
    for (bit91, ur_ld) in [(0u64, None), (1 << 27, Some(32))] {
        v.push(
            Form::new(
                "LDS",
                0x984,
                &[Sm75],
                0x0000000000007984,
                0x0000000000000800 | bit91,
            )
            .m(76, 1, &[(0, ""), (1, ".U")])
            .m(73, 3, SHARED_SIZES)
            .o(r(16))
            .o(shared_x4(ur_ld)),
        );
        v.push(
            Form::new(
                "LDS",
                0x984,
                SM80UP,
                0x0000000000007984,
                0x0000000000000800 | bit91,
            )
            .m(73, 3, SHARED_SIZES)
            .o(r(16))
            .o(shared_x4(ur_ld)),
        );
    }
    v.push(
        Form::new("STS", 0x388, ALL, 0x0000000000007388, 0x0000000000000800)
            .no_write_sb()
            .m(73, 3, SHARED_SIZES)
            .o(shared_x4(None))
            .o(r(32)),
    );
    v.push(
        Form::new("STS", 0x988, ALL, 0x0000000000007988, 0x0000000008000800)
            .no_write_sb()
            .m(73, 3, SHARED_SIZES)
            .o(shared_x4(Some(64)))
            .o(r(32)),
    );
}

/// LDS/STS sizes, bits 73-75 (every SM; 7 prints `???7`/`.INVALID7`): nvdisasm accepts
/// odd registers for .64 and .128, as for LDL/STL. Probed on SM75, SM80 and SM90; the
/// sub-word and wide ones come from the generated PTX corpus and `-G` builds.
const SHARED_SIZES: &[(u64, &str)] = &[
    (0, ".U8"),
    (1, ".S8"),
    (2, ".U16"),
    (3, ".S16"),
    (4, ""),
    (5, ".64"),
    (6, ".128"),
];

/// Generic-address loads and stores (`ld`/`st` without a state space): LD (0x980) has
/// LDG's layout on every SM (SM75 `[Ra]` with `.SYS`, SM80-SM89 `[Ra.64]` with the
/// unprinted UR4 descriptor in 32-37, SM90 `desc[URx][Ra.64]`); ST is 0x985 with STG's
/// layout on SM80-SM90, and 0x385 on SM75 with the data register in 64-71. SM80-SM90 also
/// have the address without a descriptor (LD 0x980 with bits 90-91 clear, ST 0x385:
/// `LD.E.64 R6, [R4]`, [`MemFmt::GlobalPlain`], told apart in the typed API by
/// `Addr::no_desc`). Without a descriptor (SM75's LD, every 0x385) the signed offset is
/// 32-63. Sizes 73-75 and the memory order and scope 77-80 as LDG's and STG's;
/// cache bits are ptxas's constants. Samples from the generated PTX corpus and `-G` builds.
pub(super) fn generic(v: &mut Vec<Form>) {
    let sizes = GLOBAL_SIZES;
    type Generic = (&'static [Arch], &'static str, u16, u64, MemFmt);
    let forms: [Generic; 8] = [
        (&[Sm75], "LD", 0x980, 0x000000000010eb00, MemFmt::Global),
        (SM80_89, "LD", 0x980, 0x000000000c101300, MemFmt::Global64),
        (&[Sm90], "LD", 0x980, 0x000000000c101b00, MemFmt::GlobalDesc),
        (SM80_89, "ST", 0x985, 0x000000000c101904, MemFmt::Global64),
        (&[Sm90], "ST", 0x985, 0x000000000c101b04, MemFmt::GlobalDesc),
        (&[Sm75], "ST", 0x385, 0x000000000010eb02, MemFmt::Global),
        (SM80UP, "LD", 0x980, 0x0000000000100b00, MemFmt::GlobalPlain),
        (SM80UP, "ST", 0x385, 0x0000000000100b06, MemFmt::GlobalPlain),
    ];
    for (arches, name, op, hi, fmt) in forms {
        let plain = matches!(fmt, MemFmt::Global | MemFmt::GlobalPlain);
        let ur = if plain { 0 } else { 4u64 << 32 };
        for (size, sfx) in sizes {
            let hi = (hi & !(7 << 9)) | size << 9;
            let data = |o: Opnd| if size == 5 { o.pair() } else { o };
            // Memory order and scope 77-80 as LDG's (LD) and STG's (ST); SM75's table for
            // both there (the CUDA corpus's `cuda::atomic_ref` loads and stores).
            // SM75 ST prints the `.CONSTANT` orders (0-3) as `.INVALID0` (found by the
            // random-field test): refused.
            let order = match (arches, name) {
                ([Sm75], "LD") => SM75_LD_ORDER,
                ([Sm75], _) => SM75_LD_ORDER.split_at(4).1,
                (_, "LD") => LD_ORDER,
                _ => MEM_ORDER,
            };
            let f = Form::new(name, op, arches, op as u64 | 0x7000 | ur, hi)
                .m(0, 0, &[(0, ".E")])
                .m(0, 0, &[(0, sfx)])
                .m(77, 4, order);
            // Without a descriptor register the offset is 32 bits wide (32-63; found by
            // the random-field test).
            let mut addr = mem(fmt, if name == "LD" { 32 } else { 64 });
            if plain {
                addr.offset = vec![(32, 32)];
            }
            v.push(match (name, op) {
                ("LD", _) => f.o(data(r(16))).o(addr),
                (_, 0x385) => f.no_write_sb().o(addr).o(data(r(64))),
                _ => f.no_write_sb().o(addr).o(data(r(32))),
            });
        }
    }
}

pub(super) fn atomics(v: &mut Vec<Form>) {
    // RED (REDG on SM90) [addr], data and ATOMG Pd, Rd, [addr], data: address 24-31 with
    // offset 40-63 as LDG's, data 32-39, operation 87-89 (RED) / 87-90 (ATOMG), type and
    // scope fields below; cache bits are constants. The descriptor register sits in 64-69
    // (unprinted UR4 on SM80-SM89, `desc[URx]` on SM90). ATOMG's Pd 81-83 is always printed.
    let red_ops: &[(u64, &'static str)] = &[
        (0, ".ADD"),
        (1, ".MIN"),
        (2, ".MAX"),
        (3, ".INC"),
        (4, ".DEC"),
        (5, ".AND"),
        (6, ".OR"),
        (7, ".XOR"),
    ];
    // Memory order and scope, bits 77-80: [`MEM_ORDER`] (RED and ATOMG alike).
    const SCOPES: &[(u64, &str)] = MEM_ORDER;
    // Operand types, bits 73-76 on SM80-SM89 (7-15 print .INVALIDn) and 73-75 on SM90
    // (bit 76 ignored; 4 is ATOMG's .128, not modelled): 32-bit types and 64-bit types,
    // whose data registers are pairs.
    type Types = &'static [(u64, &'static str)];
    let sm80_types: [Types; 2] = [
        &[(0, ""), (1, ".S32"), (3, ".F32.FTZ.RN"), (4, ".F16x2.RN")],
        &[(2, ".64"), (5, ".S64"), (6, ".F64.RN")],
    ];
    let sm90_types: [Types; 2] = [&[(0, ""), (1, ".S32")], &[(2, ".64"), (3, ".S64")]];
    // SM75 (register addresses, printed without `.64`; ATOMG is opcode 0x3a8 there): the
    // types of SM80-SM89 in bits 73-75 (bit 76 prints .PRIVATE after the scope, a constant
    // 0 here); scopes 4-11 in bits 77-80 (0-3 and 12-15 print .INVALIDn).
    const SM75_SCOPES: &[(u64, &str)] = &[
        (4, ".CTA"),
        (5, ".SM"),
        (6, ".GPU"),
        (7, ".SYS"),
        (8, ".STRONG.CTA"),
        (9, ".STRONG.SM"),
        (10, ".STRONG.GPU"),
        (11, ".STRONG.SYS"),
    ];
    type Family = (
        &'static [Arch],
        &'static str,
        MemFmt,
        (u64, u64),
        (u64, u64),
        [Types; 2],
        u8,
        &'static [(u64, &'static str)],
    );
    let families: [Family; 4] = [
        (
            SM80_89,
            "RED",
            MemFmt::Global64,
            (0x000004090400098e, 0x000000000c10e184),
            (0x00000003040f89a8, 0x00000000081ee1c4),
            sm80_types,
            4,
            SCOPES,
        ),
        // SM80-SM89 with bit 101 set: the descriptor is printed, `desc[UR6][R2.64+0x8]`
        // (as LDG's; found by the generated PTX corpus).
        (
            SM80_89,
            "RED",
            MemFmt::GlobalDesc,
            (0x000004090400098e, 0x000000200c10e184),
            (0x00000003040f89a8, 0x00000020081ee1c4),
            sm80_types,
            4,
            SCOPES,
        ),
        (
            &[Sm90],
            "REDG",
            MemFmt::GlobalDesc,
            (0x000004090400098e, 0x000000000c10e188),
            (0x00000003040f89a8, 0x00000000081ee1c8),
            sm90_types,
            3,
            SCOPES,
        ),
        (
            &[Sm75],
            "RED",
            MemFmt::Global,
            (0x000000150400798e, 0x0000000001114300),
            (0x0003201a040073a8, 0x00000000001f41ff),
            sm80_types,
            3,
            SM75_SCOPES,
        ),
    ];
    for (arches, red, fmt, (red_lo, red_hi), (atom_lo, atom_hi), types, type_width, scopes) in
        families
    {
        for (wide, tys) in types.iter().enumerate() {
            let data = |o: Opnd| if wide == 1 { o.pair() } else { o };
            // Type and scope bits become fields; the sample's values there are cleared.
            let clear = |hi: u64| hi & !(0xf << 9) & !(0xf << 13);
            v.push(
                fs(red, arches, red_lo, clear(red_hi) & !(7 << 23))
                    .no_write_sb()
                    .m(0, 0, &[(0, ".E")])
                    .m(87, 3, red_ops)
                    .m(73, type_width, tys)
                    .m(77, 4, scopes)
                    .o(mem(fmt, 64))
                    .o(data(r(32))),
            );
            v.push(
                fs("ATOMG", arches, atom_lo, clear(atom_hi) & !(0xf << 23))
                    .m(0, 0, &[(0, ".E")])
                    .m(87, 4, ATOM_OPS)
                    .m(73, type_width, tys)
                    .m(77, 4, scopes)
                    .o(p(81))
                    .o(data(r(16)))
                    .o(Opnd {
                        rz_ok: false,
                        ..mem(fmt, 64)
                    })
                    .o(data(r(32))),
            );
        }
    }
    // ATOM (generic address, `atom` without a state space): ATOMG's fields at opcode 0x98a
    // (0x38a on SM75), the descriptor as LDG's. Samples from the generated PTX corpus.
    type Generic = (
        &'static [Arch],
        MemFmt,
        u64,
        u64,
        [Types; 2],
        u8,
        &'static [(u64, &'static str)],
    );
    let generic: [Generic; 3] = [
        (
            SM80_89,
            MemFmt::Global64,
            0x000000070405798a,
            0x00000000099ee1c4,
            sm80_types,
            4,
            SCOPES,
        ),
        (
            &[Sm90],
            MemFmt::GlobalDesc,
            0x0000000704ff798a,
            0x000000000a1ee1c4,
            sm90_types,
            3,
            SCOPES,
        ),
        (
            &[Sm75],
            MemFmt::Global,
            0x0000000604ff738a,
            0x00000000001145ff,
            sm80_types,
            3,
            SM75_SCOPES,
        ),
    ];
    for (arches, fmt, lo, hi, types, type_width, scopes) in generic {
        for (wide, tys) in types.iter().enumerate() {
            let data = |o: Opnd| if wide == 1 { o.pair() } else { o };
            let clear = |hi: u64| hi & !(0xf << 9) & !(0xf << 13) & !(0xf << 23);
            v.push(
                fs("ATOM", arches, lo, clear(hi))
                    .m(0, 0, &[(0, ".E")])
                    .m(87, 4, ATOM_OPS)
                    .m(73, type_width, tys)
                    .m(77, 4, scopes)
                    .o(p(81))
                    .o(data(r(16)))
                    .o(Opnd {
                        rz_ok: false,
                        ..mem(fmt, 64)
                    })
                    .o(data(r(32))),
            );
        }
    }
}

pub(super) fn sm75_atomics(v: &mut Vec<Form>) {
    // SM75 RED/ATOMG with a uniform-register address (bit 91; `[UR4+0x4]`, ptxas's
    // choice when the pointer is a kernel parameter): address register 64-69, offset
    // 40-63; the register field 24-31 (nvdisasm prints `[R254.64+UR4]`) is ptxas's RZ, a
    // constant. Operation 87-89 (RED, ADD .. XOR) / 87-90 (ATOMG, .. EXCH; 9 prints
    // `.SAFEADD`, not modelled), type 73-75 with SM80-SM89's values (64-bit types on
    // pairs; 7 prints `.INVALID7`), order and scope 77-80 with SM75's table (`.CTA` ..
    // `.STRONG.SYS`; 0-3 and 12-15 print `.INVALIDn`); bit 76 (`.PRIVATE`) and the cache
    // 84-86 are ptxas's. nvdisasm prints every operation with every type; ptxas writes
    // each pair `red.global`/`atom.global` have on sm_75 (`tests/corpus/ur_atomics.ptx`).
    let mut addr = Opnd::new(OpndKind::Mem(MemFmt::UrAddr), 0, 0).pieces(&[]);
    addr.offset = vec![(40, 24)];
    addr.ureg = Some((64, 6));
    let types: [(&[(u64, &'static str)], bool); 2] = [
        (
            &[(0, ""), (1, ".S32"), (3, ".F32.FTZ.RN"), (4, ".F16x2.RN")],
            false,
        ),
        (&[(2, ".64"), (5, ".S64"), (6, ".F64.RN")], true),
    ];
    let orders: &'static [(u64, &'static str)] = &SM75_LD_ORDER[4..12];
    for (tys, pair) in types {
        let data = |o: Opnd| if pair { o.pair() } else { o };
        let ty_bits = |hi: u64, ops: u64| (hi & !(7 << 9) & !(ops << 23)) | tys[0].0 << 9;
        v.push(
            fs(
                "RED",
                &[Sm75],
                0x00000405ff00098e,
                ty_bits(0x000000000c114104, 7),
            )
            .no_write_sb()
            .m(0, 0, &[(0, ".E")])
            .m(87, 3, REDUCTION_OPS)
            .m(73, 3, tys)
            .m(77, 4, orders)
            .o(addr.clone())
            .o(data(r(32))),
        );
        v.push(
            fs(
                "ATOMG",
                &[Sm75],
                0x00000003ff0489a8,
                ty_bits(0x00000000081f4144, 0xf),
            )
            .m(0, 0, &[(0, ".E")])
            .m(87, 4, ATOM_OPS)
            .m(73, 3, tys)
            .m(77, 4, orders)
            .o(p(81))
            .o(data(r(16)))
            .o(addr.clone())
            .o(data(r(32))),
        );
    }
    // ATOMG.E.CAS[.type].order Pd, Rd, [Ra+off], B, C (0x3a9): nvdisasm prints the
    // address without `.64` on every SM; B 32-39, C 64-71; type 73-75 (0 nothing, 1
    // `.S32`, 2 `.64` with register pairs; SM90's 4 `.128` not modelled), memory order and
    // scope 77-80 as ATOMG's (SM75: `.CTA` .. `.STRONG.SYS`); the other constant bits
    // differ between SM75 and SM80+.
    let sm75_order: &'static [(u64, &'static str)] = &SM75_LD_ORDER[4..12];
    for (arches, hi, orders) in [
        (&[Sm75][..], 0x00000000001f4103u64, sm75_order),
        (SM80UP, 0x00000000001ee103, MEM_ORDER),
    ] {
        for (types, pair) in [
            (&[(0u64, ""), (1, ".S32")][..], false),
            (&[(2, ".64")][..], true),
        ] {
            let data = |o: Opnd| if pair { o.pair() } else { o };
            v.push(
                fs("ATOMG", arches, 0x00000c02061173a9, hi)
                    .m(0, 0, &[(0, ".E.CAS")])
                    .m(73, 3, types)
                    .m(77, 4, orders)
                    .o(p(81))
                    .o(data(r(16)))
                    .o(Opnd {
                        rz_ok: false,
                        ..mem(MemFmt::Global, 0)
                    })
                    // SM75 prints a B of RZ as `???255`: refused there.
                    .o(Opnd {
                        rz_ok: arches != [Sm75],
                        ..data(r(32))
                    })
                    .o(data(r(64))),
            );
        }
    }
    // SM75 ATOMS: as on SM80+, but ptxas leaves bits 64-71 at 0xff.
    v.push(
        fs("ATOMS", &[Sm75], 0x00040008ffff038c, 0x00000000000000ff)
            .m(87, 4, ATOM_OPS)
            .m(73, 1, &[(0, ""), (1, ".S32")])
            .o(r(16))
            .o(shared(None))
            .o(r(32)),
    );
}

pub(super) fn atoms(v: &mut Vec<Form>) {
    // ATOMS.op[.type] Rd, [Ra+off], data (0x38c): operation 87-90 (as ATOMG), type 73-74.
    // ATOMS with a uniform register added to the address (0x98c, bit 91; UR 64-69).
    v.push(
        fs("ATOMS", ALL, 0x00000006ffff098c, 0x0000000008000004)
            .m(87, 4, ATOM_OPS)
            .m(73, 1, &[(0, ""), (1, ".S32")])
            .o(r(16))
            .o(shared(Some(64)))
            .o(r(32)),
    );
    v.push(
        fs("ATOMS", SM80UP, 0x00040008ffff038c, 0x0000000000000000)
            .m(87, 4, ATOM_OPS)
            .m(73, 1, &[(0, ""), (1, ".S32")])
            .o(r(16))
            .o(shared(None))
            .o(r(32)),
    );
}

pub(super) fn local(v: &mut Vec<Form>) {
    // LDL[.cache][.size] Rd, [Ra+off] (0x983) and STL[.cache][.size] [Ra+off], Rb (0x387),
    // the same on every SM: address register 24-31 (RZ is dropped before an offset, as in
    // shared addresses), signed offset 40-63, size 73-75, cache 84-86 (ptxas leaves 1, which
    // prints nothing); STL's data at 32. nvdisasm accepts odd registers for .64 and .128.
    // Bit 91 would add a uniform register to the address (not emitted by ptxas; a
    // constant 0 here).
    let sizes = [
        (0, ".U8"),
        (1, ".S8"),
        (2, ".U16"),
        (3, ".S16"),
        (4, ""),
        (5, ".64"),
        (6, ".128"),
    ];
    let cache = [
        (0, ".EF"),
        (1, ""),
        (2, ".EL"),
        (3, ".LU"),
        (4, ".EU"),
        (5, ".NA"),
    ];
    v.push(
        fs("LDL", ALL, 0x000050000c047983, 0x0000000000100400)
            .m(84, 3, &cache)
            .m(73, 3, &sizes)
            .o(r(16))
            .o(shared(None)),
    );
    v.push(
        fs("STL", ALL, 0x0000000a15007387, 0x0000000000100a00)
            .no_write_sb()
            .m(84, 3, &cache)
            .m(73, 3, &sizes)
            .o(shared(None))
            .o(r(32)),
    );
}
