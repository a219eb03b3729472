//! SM90's bulk and tensor-map copies (`cp.async.bulk*`, `cp.reduce.async.bulk*`), their
//! cache control, the asynchronous stores to another block of the cluster (`st.async`,
//! `red.async`) and the remaining SYNCS operations (`mbarrier.init`, `mbarrier.inval`),
//! found by the generated PTX corpus (issue 12) and probed with nvdisasm on ptxas's words,
//! bit by bit and field by field (`docs/sass-sm90-async.md`).
//!
//! The copies address everything through uniform registers printed as `[URx]` (no
//! offset): the first operand's register 32-37, the second's 24-29, a third uniform
//! register 64-69 (the byte count of UBLK*). Bit 76 adds a printed `desc[URx]` operand and
//! bit 91 clear makes nvdisasm reject or rename them: constants here (ptxas writes 0 and 1).
//! How many consecutive uniform registers each `[URx]` covers depends on the direction and
//! the tensor's dimension (`roles::bulk_ureg_width`).

use super::*;

/// A `[URx]` operand: a uniform register at `at`, no offset.
fn ur_addr(at: u8) -> Opnd {
    let mut o = Opnd::new(OpndKind::Mem(MemFmt::UrAddr), 0, 0).pieces(&[]);
    o.ureg = Some((at, 6));
    o
}

/// The tensor's dimension, bits 79-81 (5-7 print `.INVALIDn`).
const TMA_DIMS: &[(u64, &str)] = &[(0, ".1D"), (1, ".2D"), (2, ".3D"), (3, ".4D"), (4, ".5D")];

/// The reduction of UTMAREDG, UBLKRED and REDAS, bits 87-89 (bit 90 is ignored by the
/// bulk reductions and prints `.INVALIDn` on REDAS: a constant).
const RED_OPS: &[(u64, &str)] = memory::REDUCTION_OPS;

/// The direction of UBLKCP and UBLKRED, bits 73-74: destination then source space
/// (`.G` global, `.S` shared). UBLKRED's source must be shared (`.???0` otherwise).
const BULK_DIRS: &[(u64, &str)] = &[(0, ".G.G"), (1, ".S.G"), (2, ".G.S"), (3, ".S.S")];

/// UBLKCP's L2 prefetch size 81-82 and `.SEQUENCED` 83, one field in print order.
const BULK_CACHE: &[(u64, &str)] = &[
    (0, ""),
    (1, ".LTC64B"),
    (2, ".LTC128B"),
    (3, ".LTC256B"),
    (4, ".SEQUENCED"),
    (5, ".LTC64B.SEQUENCED"),
    (6, ".LTC128B.SEQUENCED"),
    (7, ".LTC256B.SEQUENCED"),
];

/// UBLKRED's element type, bits 81-84 (9-15 print `.INVALIDn`).
const BULK_RED_TYPES: &[(u64, &str)] = &[
    (0, ""),
    (1, ".S32"),
    (2, ".U64"),
    (3, ".S64"),
    (4, ".F16.RN"),
    (5, ".F32.RN"),
    (6, ".F32.FTZ.RN"),
    (7, ".F64.RN"),
    (8, ".BF16.RN"),
];

pub(super) fn bulk(v: &mut Vec<Form>) {
    // UTMALDG.dim [URa], [URb] (`cp.async.bulk.tensor` global -> shared): URa 32-37 is
    // the shared destination, then the mbarrier, then the coordinates; URb 24-29 the
    // tensor map (a 64-bit address). Bit 82 is ignored.
    v.push(
        fs("UTMALDG", &[Sm90], 0x00000004080075b4, 0x0001e40008000000)
            .m(79, 3, TMA_DIMS)
            .o(ur_addr(32))
            .o(ur_addr(24)),
    );
    // UTMASTG.dim[.IM2COL] [URa], [URb] (shared -> global): URa the shared source, then
    // the coordinates; `.IM2COL` 82.
    v.push(
        fs("UTMASTG", &[Sm90], 0x00000004080073b5, 0x0001f00008008000)
            .m(79, 3, TMA_DIMS)
            .m(82, 1, &[(0, ""), (1, ".IM2COL")])
            .o(ur_addr(32))
            .o(ur_addr(24)),
    );
    // UTMAREDG.dim[.IM2COL].op [URa], [URb] (`cp.reduce.async.bulk.tensor`): as UTMASTG,
    // with the reduction 87-89.
    v.push(
        fs("UTMAREDG", &[Sm90], 0x00000004060073b6, 0x0001e40008000000)
            .m(79, 3, TMA_DIMS)
            .m(82, 1, &[(0, ""), (1, ".IM2COL")])
            .m(87, 3, RED_OPS)
            .o(ur_addr(32))
            .o(ur_addr(24)),
    );
    // UTMAPF.L2.dim [URa], [URb] (`cp.async.bulk.prefetch.tensor`): URa the coordinates
    // alone. Bit 82 is ignored.
    v.push(
        fs("UTMAPF", &[Sm90], 0x00000004060075b8, 0x0003f00008000000)
            .m(0, 0, &[(0, ".L2")])
            .m(79, 3, TMA_DIMS)
            .o(ur_addr(32))
            .o(ur_addr(24)),
    );
    // UTMACCTL.PF|.IV [URa] (`prefetch.tensormap`, the tensor map's cache line): the
    // tensor map 24-29, `.IV`/`.PF` 82 (83 ignored).
    v.push(
        fs("UTMACCTL", &[Sm90], 0x00000000040079b9, 0x0001f00008040000)
            .m(82, 1, &[(0, ".IV"), (1, ".PF")])
            .o(ur_addr(24)),
    );
    // UBLKCP.dst.src[.cache] [URa], [URb], URc (`cp.async.bulk`): destination 32-37
    // (shared: the address and the mbarrier), source 24-29, byte count / 16 in URc 64-69.
    v.push(
        fs("UBLKCP", &[Sm90], 0x00000004080073ba, 0x0001e40008000206)
            .m(73, 2, BULK_DIRS)
            .m(75, 1, &[(0, ""), (1, ".MULTICAST")])
            .m(81, 3, BULK_CACHE)
            .o(ur_addr(32))
            .o(ur_addr(24))
            .o(ur(64)),
    );
    // UBLKRED.dst.src.op[.type] [URa], [URb], URc (`cp.reduce.async.bulk`): as UBLKCP,
    // the reduction 87-89 and the element type 81-84.
    v.push(
        fs("UBLKRED", &[Sm90], 0x00000006040073bb, 0x0001e40008000405)
            .m(73, 2, &[(2, ".G.S"), (3, ".S.S")])
            .m(87, 3, RED_OPS)
            .m(81, 4, BULK_RED_TYPES)
            .o(ur_addr(32))
            .o(ur_addr(24))
            .o(ur(64)),
    );
    // UBLKPF.L2 [URa], URc (`cp.async.bulk.prefetch.L2`): the global address 24-29, the
    // byte count / 16 in URc 64-69.
    v.push(
        fs("UBLKPF", &[Sm90], 0x00000000060073bc, 0x0001f00008000004)
            .m(0, 0, &[(0, ".L2")])
            .o(ur_addr(24))
            .o(ur(64)),
    );
}

pub(super) fn remote_and_syncs(v: &mut Vec<Form>) {
    // STAS[.size] [Ra.64+off], Rb (`st.async` to another block's shared memory with an
    // mbarrier): the address 24-31 (Ra the address, Ra+1 the mbarrier), a signed 24-bit
    // offset 40-63, the data 32-39; the size 73-75 (4 nothing, 5 `.64`, 6 `.128`; others
    // `.INVALIDn`). Bit 90 and a uniform register 64-69 (`[R4.U32+URZ]`, `[R4.64+UR62]`)
    // are another address form, and 77-80 print `???` orders: constants.
    let remote = || {
        let mut m = Opnd::new(OpndKind::Mem(MemFmt::Global64), 24, 8);
        m.offset = vec![(40, 24)];
        // RZ prints `???255`.
        m.rz_ok = false;
        m
    };
    v.push(
        fs("STAS", &[Sm90], 0x0000000004007dbd, 0x004fe2000c00083f)
            .m(73, 3, &[(4, ""), (5, ".64"), (6, ".128")])
            .o(remote())
            .o(r(32))
            .no_write_sb(),
    );
    // REDAS.op[.type] [Ra.64+off], Rb (`red.async`): as STAS, the reduction 87-89 and the
    // type 73-75 (0 nothing, 1 `.S32`, 2 `.64`). Bit 72 is the `.U32` address form.
    v.push(
        fs("REDAS", &[Sm90], 0x0000000004007dbe, 0x004fe2000800013f)
            .m(87, 3, RED_OPS)
            .m(73, 3, &[(0, ""), (1, ".S32"), (2, ".64")])
            .o(remote())
            .o(r(32))
            .no_write_sb(),
    );
    // SYNCS.EXCH.64 URd, [URa+off], URc (`mbarrier.init`): the previous value into the
    // uniform pair URd 16-21 (URZ: not wanted), the barrier's shared address URa 24-29
    // with a signed 24-bit offset 40-63, the new 64-bit value URc:URc+1 32-37. Bits
    // 72-73 are the operation (1 `.EXCH`; others print `???n`).
    let mut exch_addr = Opnd::new(OpndKind::Mem(MemFmt::UrAddr), 0, 0).pieces(&[]);
    exch_addr.ureg = Some((24, 6));
    exch_addr.offset = vec![(40, 24)];
    // Its guard is a uniform predicate (`@UP4`), as on the uniform datapath.
    let mut exch = fs("SYNCS", &[Sm90], 0x00000004063f75b2, 0x0030700008000100)
        .m(0, 0, &[(0, ".EXCH.64")])
        .o(ur(16))
        .o(exch_addr)
        .o(ur(32));
    exch.uniform_guard = true;
    v.push(exch);
    // SYNCS.CCTL.IV|.WB [Ra+URb+off] (`mbarrier.inval`): the barrier as SYNCS.ARRIVE's,
    // `.IV`/`.WB` 72; bit 73 prints `???1` and bit 91 clear `.IVALL` without an operand.
    v.push(
        fs("SYNCS", &[Sm90], 0x00000000ff0079b1, 0x000fe20008000004)
            .m(0, 0, &[(0, ".CCTL")])
            .m(72, 1, &[(0, ".IV"), (1, ".WB")])
            .o(shared(Some(64))),
    );
}

pub(super) fn warpgroup_depbar(v: &mut Vec<Form>) {
    // WARPGROUP.DEPBAR.LE gsb0, n (`wgmma.wait_group n`): waits until at most n groups of
    // the warpgroup's HGMMAs are pending. n is 72-74 (75 ignored); `gsb0` is 84-86 (other
    // values print `???n`), `.LE` bit 47 (clear prints `.???0`), bit 80 set (clear is
    // WARPGROUP.ARRIVE). nvdisasm rejects any scoreboard and any wait mask on it: the
    // form says so (`Form::no_wait`), so the decoder refuses such words and the encoder
    // such control codes.
    v.push(
        fs("WARPGROUP", &[Sm90], 0x00008000000079c5, 0x000fe40000010100)
            .m(0, 0, &[(0, ".DEPBAR.LE")])
            .o(Opnd::fixed("gsb0"))
            .o(uimm(72, 3))
            .no_sb()
            .no_wait(),
    );
}
