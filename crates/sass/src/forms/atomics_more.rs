//! Atomics and memory forms the CUDA and generated PTX corpora showed after the first
//! atomics forms (issue 12): generic compare-and-swap, SM90's float atomics and
//! reductions, SM75's accesses through a uniform-register address and SM80-SM89's
//! `ATOMS.ARRIVE.64`. Each from a ptxas word, every field flipped and read back with
//! nvdisasm (`docs/sass-facts.md`, "Atomics and memory"); the random-field test checks
//! every field value on every SM listed, `tests/typed_atomics.rs` the words and roles.

use super::*;

pub(super) fn atomics_more(v: &mut Vec<Form>) {
    // ATOM.E.CAS[.type].order Pd, Rd, [Ra+off], B, C (0x38b, `atom.cas` without a state
    // space, and the compare-and-store of ptxas's generic float and 64-bit atomic loops):
    // ATOMG 0x3a9's layout (`memory.rs`), the address printed without `.64` on every SM;
    // B 32-39, C 64-71, offset 40-63; operation 87-88: 0 `.CAS`, 1 `.CAST`, 3
    // `.CAST.SPIN` (2 prints `.CAS` too: refused); type 73-75: 0 nothing, 1 `.S32`, 2
    // `.64` with register pairs (4 is `.INVALID4`, SM90's `.128`: not modelled); memory
    // order 77-80 as ATOMG's. Samples: sm_80/sm_90 ptxas words of `atom.cas.b64` and
    // `atom.add.f64` on generic pointers. Probed on SM75, SM86 and SM90; SM75's ptxas words
    // (`atom.cas.b32`/`.b64` on sm_75) have the same constant bits, with SM75's order and
    // scope table (`.CTA` .. `.STRONG.SYS`, as ATOMG.CAS's).
    let sm75_order: &'static [(u64, &'static str)] = &memory::SM75_LD_ORDER[4..12];
    for (arches, hi, orders) in [
        (&[Sm75][..], 0x0000000000114506u64, sm75_order),
        (SM80UP, 0x000000000010e506, memory::MEM_ORDER),
    ] {
        for (types, pair) in [
            (&[(0u64, ""), (1, ".S32")][..], false),
            (&[(2, ".64")][..], true),
        ] {
            let data = |o: Opnd| if pair { o.pair() } else { o };
            v.push(
                fs("ATOM", arches, 0x0000000402ff738b, hi)
                    .m(0, 0, &[(0, ".E")])
                    .m(87, 2, &[(0, ".CAS"), (1, ".CAST"), (3, ".CAST.SPIN")])
                    .m(73, 3, types)
                    .m(77, 4, orders)
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
}

/// SM90's float types of REDG 0x9a6, ATOMG 0x9a3 and ATOM 0x9a2 (bits 73-76) on one
/// register: 9 `.F32.FTZ.RN`, 12 `.F32.RN`, 0 `.F16x2.RN`, 3 `.BF16x2.RN`.
const SM90_FLOAT_SINGLE: &[(u64, &str)] = &[
    (9, ".F32.FTZ.RN"),
    (12, ".F32.RN"),
    (0, ".F16x2.RN"),
    (3, ".BF16x2.RN"),
];
/// The same field's types on a register pair: 15 `.F64.RN`, 1 `.F16x4.RN`, 4
/// `.BF16x4.RN`, 10 `.F32x2.FTZ.RN`, 13 `.F32x2.RN`.
const SM90_FLOAT_PAIR: &[(u64, &str)] = &[
    (15, ".F64.RN"),
    (1, ".F16x4.RN"),
    (4, ".BF16x4.RN"),
    (10, ".F32x2.FTZ.RN"),
    (13, ".F32x2.RN"),
];
/// The same field's types on four registers (`atom.global.v4.f32.add`, `.v8.f16`,
/// `.v8.bf16`): 11 `.F32x4.FTZ.RN`, 14 `.F32x4.RN`, 2 `.F16x8.RN`, 5 `.BF16x8.RN`.
const SM90_FLOAT_QUAD: &[(u64, &str)] = &[
    (11, ".F32x4.FTZ.RN"),
    (14, ".F32x4.RN"),
    (2, ".F16x8.RN"),
    (5, ".BF16x8.RN"),
];
/// The three register counts of SM90's float types: one register, a pair, a quad.
const SM90_FLOAT_TYPES: [(&[(u64, &str)], u8); 3] = [
    (SM90_FLOAT_SINGLE, 1),
    (SM90_FLOAT_PAIR, 2),
    (SM90_FLOAT_QUAD, 4),
];

/// `o` as `regs` consecutive registers (1, a pair or a quad).
fn regs(o: Opnd, regs: u8) -> Opnd {
    match regs {
        2 => o.pair(),
        4 => o.quad(),
        _ => o,
    }
}

/// The operations of SM90's float atomics and reductions, bits 87-89: ADD 0, MIN 2, MAX 4
/// (odd values print `.INVALIDn`; bit 90 is ignored in ATOM/ATOMG, rejected in REDG).
const SM90_FLOAT_OPS: &[(u64, &str)] = &[(0, ".ADD"), (2, ".MIN"), (4, ".MAX")];

/// SM90's float reduction, `REDG.E.op.type.order desc[URx][Ra.64+off], Rb` (0x9a6):
/// address and data as REDG (0x98e); operation 87-89 with ADD 0, MIN 2, MAX 4 (odd values
/// print `.INVALIDn`); type 73-76, probed on SM90 (issue 12 made it a field; it was the
/// constant `.F32.FTZ.RN`): 0 `.F16x2.RN`, 3 `.BF16x2.RN`, 9 `.F32.FTZ.RN`, 12 `.F32.RN`
/// on one register, 1 `.F16x4.RN`, 4 `.BF16x4.RN`, 10 `.F32x2.FTZ.RN`, 13 `.F32x2.RN`,
/// 15 `.F64.RN` on a pair, 11 `.F32x4.FTZ.RN`, 14 `.F32x4.RN`, 2 `.F16x8.RN`, 5
/// `.BF16x8.RN` on a quad (one form per register count); 6-8 print `.INVALIDn`. Memory order and scope 77-80 as REDG 0x98e's ([`memory::MEM_ORDER`];
/// `red.relaxed.sys`, `.sm`: found by the generated PTX corpus); cache 84-86 (printed after
/// the operation, `.EF`) is ptxas's constant.
pub(super) fn sm90_float_red(v: &mut Vec<Form>) {
    for (types, count) in SM90_FLOAT_TYPES {
        let data = regs(r(32), count);
        v.push(
            fs(
                "REDG",
                &[Sm90],
                0x000000000a0079a6,
                0x000000000c10e188 | types[0].0 << 9,
            )
            .no_write_sb()
            .m(0, 0, &[(0, ".E")])
            .m(87, 3, SM90_FLOAT_OPS)
            .m(73, 4, types)
            .m(77, 4, memory::MEM_ORDER)
            .o(mem(MemFmt::GlobalDesc, 64))
            .o(data),
        );
    }
}

/// SM90's float atomics with a result, `ATOM.E.op.type.order Pd, Rd, desc[URx][Ra.64+off],
/// Rb` (generic, 0x9a2) and `ATOMG` (global, 0x9a3): `atomicAdd(double*)`,
/// `atom.add.f16x2`, `atom.global.v2.f32.add`, `.v4.f32` (four registers). The layout of ATOM 0x98a / ATOMG 0x9a8
/// (`memory.rs`: Pd 81-83, Rd 16, address 24 with offset 40-63 and descriptor 64-69, Rb
/// 32, order and scope 77-80) with REDG 0x9a6's float operations and types. Probed bit by
/// bit on SM90 ptxas words; cache 84-86 (printed after the operation, `.EF`) and the
/// other address mode (bit 71, `[R2.64+UR4]`) are ptxas's constants.
pub(super) fn sm90_float_atomics(v: &mut Vec<Form>) {
    for (name, lo, hi) in [
        ("ATOM", 0x00000010020479a2u64, 0x000000000810ffc4u64),
        ("ATOMG", 0x00000804021079a3, 0x00000000081effc4),
    ] {
        for (types, count) in SM90_FLOAT_TYPES {
            let data = |o: Opnd| regs(o, count);
            v.push(
                fs(name, &[Sm90], lo, (hi & !(0xf << 9)) | types[0].0 << 9)
                    .m(0, 0, &[(0, ".E")])
                    .m(87, 3, SM90_FLOAT_OPS)
                    .m(73, 4, types)
                    .m(77, 4, memory::MEM_ORDER)
                    .o(p(81))
                    .o(data(r(16)))
                    .o(Opnd {
                        rz_ok: false,
                        ..mem(MemFmt::GlobalDesc, 64)
                    })
                    .o(data(r(32))),
            );
        }
    }
}

/// SM75's generic and global accesses whose address is a uniform register (bit 91), as
/// ptxas writes them when the pointer is a kernel parameter (`cuda::atomic_ref` on a
/// generic pointer, `atomicAdd(double*)`, `isspacep`): the address is SM75 LDG 0x981's
/// [`MemFmt::GlobalUr`] (`[UR4+0x8]`, `[R2.64+UR4]`; register 24-31, `.64` at 90 (ptxas
/// sets it with an RZ base, where it prints nothing), signed offset 40-63), the uniform
/// register 32-37 for LD and QSPC, 64-69 for ST (data at 32). Probed bit by bit with
/// nvdisasm on ptxas words (`docs/sass-facts.md`, "SM75 uniform-register addresses").
pub(super) fn sm75_uniform_address(v: &mut Vec<Form>) {
    let sizes = memory::GLOBAL_SIZES;
    let addr = |ur_at: u8| {
        let mut a = Opnd::new(OpndKind::Mem(MemFmt::GlobalUr), 24, 8);
        a.offset = vec![(40, 24)];
        a.ureg = Some((ur_at, 6));
        a.wide = Some(90);
        a
    };
    let sm75_ltc: &[(u64, &str)] = &[(0, ""), (1, ".LTC64B"), (2, ".LTC128B")];
    for (size, sfx) in sizes {
        let data = |o: Opnd| if size == 5 { o.pair() } else { o };
        // LD.E[.cache][.ltc][.size].order Rd, [URa+off] (0x980): cache 84-86, L2
        // prefetch 68-69, size 73-75, order and scope 77-80 as SM75's LDG; bit 76
        // (`.PRIVATE`) and 87 (`.ZD` with a predicate) are ptxas's zeros.
        v.push(
            fs(
                "LD",
                &[Sm75],
                0x00000004ff007980,
                0x000000000c110100 | size << 9,
            )
            .m(0, 0, &[(0, ".E")])
            .m(84, 3, memory::CACHE_OPS)
            .m(68, 2, sm75_ltc)
            .m(0, 0, &[(0, sfx)])
            .m(77, 4, memory::SM75_LD_ORDER)
            .o(data(r(16)))
            .o(addr(32)),
        );
        // ST.E[.cache][.size].order [URa+off], Rb (0x985): the orders without
        // `.CONSTANT` (0-3 print `.INVALID0`).
        v.push(
            fs(
                "ST",
                &[Sm75],
                0x00000800ff007985,
                0x000000000c110104 | size << 9,
            )
            .no_write_sb()
            .m(0, 0, &[(0, ".E")])
            .m(84, 3, memory::CACHE_OPS)
            .m(0, 0, &[(0, sfx)])
            .m(77, 4, &memory::SM75_LD_ORDER[4..])
            .o(addr(64))
            .o(data(r(32))),
        );
    }
    // QSPC.E.space Pd, Rd, [URa+off] (0x9aa): as the register form 0x3aa
    // (`coverage.rs`), `.E` (72) ptxas's 1 (clear, nvdisasm prints `.???0` with a `.64`
    // base).
    v.push(
        fs("QSPC", &[Sm75], 0x00000004ffff79aa, 0x000000000c000100)
            .m(0, 0, &[(0, ".E")])
            .m(73, 2, &[(0, ".G"), (1, ".L"), (2, ".S")])
            .o(p(81))
            .o(r(16))
            .o(addr(32)),
    );
}

/// SM75's generic atomics with a uniform-register address, `ATOM.E.op.type.order Pd, Rd,
/// [URx+off], Rb` (0x98a, bit 91; the warp-aggregated `atomicAdd` of a parameter
/// pointer): operation 87-90 and type 73-75 as ATOMG's (`memory.rs`: `.S32`, `.64`,
/// `.F32.FTZ.RN`, `.F16x2.RN`, `.S64`, `.F64.RN`; 64-bit types on pairs), SM75's order
/// and scope 77-80 (`.CTA` .. `.STRONG.SYS`; 0-3 print `.INVALIDn`); Pd 81-83, Rd 16, Rb
/// 32, the uniform register 64-69 with a signed offset 40-63. The register base 24-31
/// (nvdisasm prints `[R254.64+UR4]`) is ptxas's RZ, a constant here as in the RED/ATOMG
/// forms of [`MemFmt::UrAddr`]; cache 84-86 and `.PRIVATE` 76 are constants. Probed bit
/// by bit on an SM75 ptxas word of the CUDA corpus.
pub(super) fn sm75_generic_ur_atomics(v: &mut Vec<Form>) {
    let mut ur_addr = Opnd::new(OpndKind::Mem(MemFmt::UrAddr), 0, 0).pieces(&[]);
    ur_addr.offset = vec![(40, 24)];
    ur_addr.ureg = Some((64, 6));
    let types: [&[(u64, &str)]; 2] = [
        &[(0, ""), (1, ".S32"), (3, ".F32.FTZ.RN"), (4, ".F16x2.RN")],
        &[(2, ".64"), (5, ".S64"), (6, ".F64.RN")],
    ];
    for (wide, tys) in types.iter().enumerate() {
        let data = |o: Opnd| if wide == 1 { o.pair() } else { o };
        v.push(
            fs(
                "ATOM",
                &[Sm75],
                0x00000007ffff098a,
                (0x00000000081f0344 & !(7 << 9)) | tys[0].0 << 9,
            )
            .m(0, 0, &[(0, ".E")])
            .m(87, 4, memory::ATOM_OPS)
            .m(73, 3, tys)
            .m(77, 4, &memory::SM75_LD_ORDER[4..12])
            .o(p(81))
            .o(data(r(16)))
            .o(ur_addr.clone())
            .o(data(r(32))),
        );
    }
    // ATOMS.ARRIVE.64 Rd, [Ra+URb+off] (0xf8c; `mbarrier.arrive` on SM80-SM89, whose
    // state it returns in a pair): the address as ATOMS.POPC.INC's (`gaps.rs`), with its
    // scale 78-79 (`[RZ.X4+URZ]`); bits 73-74 (`.64`, 2; others print `???n`) and 87-90
    // (nvdisasm rejects other values) are constants. Probed on SM80; SM90 and SM75 reject
    // the word.
    v.push(
        fs("ATOMS", SM80_89, 0x00000000ff047f8c, 0x000000000c80043f)
            .m(0, 0, &[(0, ".ARRIVE.64")])
            .o(r(16).pair())
            .o(shared_x4(Some(64))),
    );
}

/// Atomics that SM90's generated PTX corpus showed after the float atomics, probed bit by
/// bit with nvdisasm on ptxas's words (`docs/sass-facts.md`, "Atomics and memory"):
/// * `ATOMG.E.op.type.order Pd, Rd, [Ra+off], Rb` (0x3a8 on SM80-SM90, bits 90-91 clear:
///   the address without a descriptor of LDG 0x381, [`MemFmt::GlobalPlain`]; SM75's
///   0x3a8 is its own form in `memory.rs`): Pd 81-83, Rd 16, address 24 with offset
///   40-63 (RZ prints `[RZ]`), Rb 32, operation 87-90 ([`memory::ATOM_OPS`]; 9 prints
///   `.SAFEADD`, not modelled), order and scope 77-80 ([`memory::MEM_ORDER`]); type as the
///   descriptor forms': 73-76 on SM80-SM89 (`.S32`, `.64`, `.F32.FTZ.RN`, `.F16x2.RN`,
///   `.S64`, `.F64.RN`), 73-75 on SM90 (`.S32`, `.64`, `.S64`, and 4 `.128` on a quad:
///   `atom.exch.b128`), bit 76 ignored there. Bits 64-71 (where the descriptor forms keep
///   theirs), 84-86 (cache) and 92-104 are ptxas's zeros; nvdisasm ignores 64-71.
/// * `ATOMS.op.64 Rd, [Ra+URb+off], Rb` (0x98c with bit 74, every SM: `atomicExch` on a
///   shared 64-bit word with a uniform register in the address): ATOMS 0x98c's address
///   (uniform register 64-69) with its scale 78-79 (`.X4`, `.X8`, `.X16`), operation 87-90
///   (ADD .. EXCH; 9-15 print `.INVALIDn`), pairs; type 73-75 is the constant 2 (`.64`).
pub(super) fn plain_address_atomics(v: &mut Vec<Form>) {
    type Types = &'static [(u64, &'static str)];
    /// The arches, their types with each one's register count, and the type field's width.
    type Family<'a> = (&'a [Arch], &'a [(Types, u8)], u8);
    let sm80_types: [(Types, u8); 2] = [
        (
            &[(0, ""), (1, ".S32"), (3, ".F32.FTZ.RN"), (4, ".F16x2.RN")],
            1,
        ),
        (&[(2, ".64"), (5, ".S64"), (6, ".F64.RN")], 2),
    ];
    let sm90_types: [(Types, u8); 3] = [
        (&[(0, ""), (1, ".S32")], 1),
        (&[(2, ".64"), (3, ".S64")], 2),
        (&[(4, ".128")], 4),
    ];
    let families: [Family<'_>; 2] = [(SM80_89, &sm80_types, 4), (&[Sm90], &sm90_types, 3)];
    for (arches, types, type_width) in families {
        for &(tys, count) in types {
            let data = |o: Opnd| regs(o, count);
            v.push(
                fs(
                    "ATOMG",
                    arches,
                    0x0000000904ff73a8,
                    0x00000000001e0100 | tys[0].0 << 9,
                )
                .m(0, 0, &[(0, ".E")])
                .m(87, 4, memory::ATOM_OPS)
                .m(73, type_width, tys)
                .m(77, 4, memory::MEM_ORDER)
                .o(p(81))
                .o(data(r(16)))
                .o(mem(MemFmt::GlobalPlain, 0))
                .o(data(r(32))),
            );
        }
    }
    // LDGMC.E.op.type.STRONG.SYS Rd, [Ra.64+URb+off] (0x9a4, SM90: `multimem.ld_reduce`):
    // Rd 16, the address as SM75 LDG 0x981's [`MemFmt::GlobalUr`] (register 24, not RZ, `.64`
    // at 70, uniform register 64-69, signed offset 40-63; bit 71 prints the
    // `desc[URx][Ra.64]` form, not modelled), type 73-75 (`.32`, `.S32`, `.64`, `.S64`
    // on pairs; 4-7 print `.INVALIDn`), operation 87-90 (ADD 0, MIN 1, MAX 2, AND 5, OR
    // 6, XOR 7; the others print `.INVALIDn`); 77-80 hold ptxas's 10 (`.STRONG.SYS`),
    // nvdisasm rejects every other value; 76 and 81-86 are ignored. Probed bit by bit on
    // the SM90 word of the generated PTX corpus.
    let mut multimem = Opnd::new(OpndKind::Mem(MemFmt::GlobalUr), 24, 8);
    multimem.offset = vec![(40, 24)];
    multimem.ureg = Some((64, 6));
    multimem.wide = Some(70);
    // nvdisasm prints an RZ base as `???255.64`: refused.
    multimem.rz_ok = false;
    let ops: &[(u64, &str)] = &[
        (0, ".ADD"),
        (1, ".MIN"),
        (2, ".MAX"),
        (5, ".AND"),
        (6, ".OR"),
        (7, ".XOR"),
    ];
    for (tys, count) in [
        (&[(0, ".32"), (1, ".S32")][..], 1),
        (&[(2, ".64"), (3, ".S64")][..], 2),
    ] {
        v.push(
            fs(
                "LDGMC",
                &[Sm90],
                0x00000000040579a4,
                0x000000000801417f | tys[0].0 << 9,
            )
            .m(0, 0, &[(0, ".E")])
            .m(87, 4, ops)
            .m(73, 3, tys)
            .m(0, 0, &[(0, ".STRONG.SYS")])
            .o(regs(r(16), count))
            .o(multimem.clone()),
        );
    }
    v.push(
        fs("ATOMS", ALL, 0x000000040704798c, 0x000000000c000404)
            .m(87, 4, memory::ATOM_OPS)
            .m(0, 0, &[(0, ".64")])
            .o(r(16).pair())
            .o(shared_x4(Some(64)))
            .o(r(32).pair()),
    );
}
