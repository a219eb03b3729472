//! SM90's bulk and tensor-map copies, remote stores and reductions, SYNCS.EXCH/CCTL and
//! WARPGROUP.DEPBAR (`docs/sass-sm90-async.md`): the uniform registers each operand
//! covers, checked on ptxas's own words against the registers ptxas filled before them
//! (the kernels of the generated PTX corpus), and the control-code rule of
//! WARPGROUP.DEPBAR. No oracle needed.

use tangle_sass::roles::{memory_effect, Access, Space};
use tangle_sass::typed::Loc;
use tangle_sass::{decode, decode_typed, Arch, Control, LatencyClass, Op, SassError, Word};

/// Text, defs and uses of a ptxas word on SM90.
fn decode90(lo: u64, hi: u64) -> (String, Vec<Loc>, Vec<Loc>) {
    let i = decode_typed(Arch::Sm90, Word::from_halves(lo, hi), 0).unwrap();
    (i.text(Arch::Sm90, 0).unwrap(), i.defs(), i.uses())
}

fn urs(a: u8, n: u8) -> Vec<Loc> {
    (a..a + n).map(Loc::Ur).collect()
}

fn rs(a: u8, n: u8) -> Vec<Loc> {
    (a..a + n).map(Loc::R).collect()
}

/// The tensor-map copies: ptxas filled (with R2UR, ULEA and UIADD3 before each word) the
/// shared address, the mbarrier and one register per coordinate behind the first
/// operand, and the tensor map's 64-bit address behind the second.
#[test]
fn tensor_map_operands_cover_address_barrier_and_coordinates() {
    // `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier`: UR4 destination, UR5
    // mbarrier, UR6-UR7 the two coordinates; UR8:UR9 the tensor map.
    let (t, defs, uses) = decode90(0x00000004080075b4, 0x0001e40008008000);
    assert_eq!(t, "UTMALDG.2D [UR4], [UR8]");
    assert!(defs.is_empty());
    assert_eq!(uses, [urs(4, 4), urs(8, 2)].concat());
    // `.5d`: UR8 destination, UR9 mbarrier, UR10-UR14 coordinates, UR4:UR5 the map.
    let (t, _, uses) = decode90(0x00000008040075b4, 0x0001e40008020000);
    assert_eq!(t, "UTMALDG.5D [UR8], [UR4]");
    assert_eq!(uses, [urs(8, 7), urs(4, 2)].concat());
    // `.3d` store: UR4 the shared source, UR5-UR7 the coordinates.
    let (t, _, uses) = decode90(0x00000004080073b5, 0x0001f00008010000);
    assert_eq!(t, "UTMASTG.3D [UR4], [UR8]");
    assert_eq!(uses, [urs(4, 4), urs(8, 2)].concat());
    // `.3d` prefetch: the coordinates alone, UR4-UR6.
    let (t, _, uses) = decode90(0x00000004080075b8, 0x0003f00008010000);
    assert_eq!(t, "UTMAPF.L2.3D [UR4], [UR8]");
    assert_eq!(uses, [urs(4, 3), urs(8, 2)].concat());
    // `cp.reduce.async.bulk.tensor.2d ... .min`: UR4 source, UR5-UR6 coordinates.
    let (t, _, uses) = decode90(0x00000004080073b6, 0x0001e40008808000);
    assert_eq!(t, "UTMAREDG.2D.MIN [UR4], [UR8]");
    assert_eq!(uses, [urs(4, 3), urs(8, 2)].concat());
    // `prefetch.tensormap`: the map's address UR4:UR5.
    let (t, _, uses) = decode90(0x00000000040079b9, 0x0001f00008040000);
    assert_eq!(t, "UTMACCTL.PF [UR4]");
    assert_eq!(uses, urs(4, 2));
}

/// The bulk copies: a shared destination is its address and the mbarrier, a global one
/// a 64-bit pair; a shared source one register; the byte count one register.
#[test]
fn bulk_copy_operands_follow_the_direction() {
    // `cp.async.bulk.shared::cluster.global.mbarrier`: UR4 destination (sbuf + 512), UR5
    // the mbarrier (sbuf), UR8:UR9 the global source, UR6 the count (256 / 16).
    let (t, _, uses) = decode90(0x00000004080073ba, 0x0001e40008000206);
    assert_eq!(t, "UBLKCP.S.G [UR4], [UR8], UR6");
    assert_eq!(uses, [urs(4, 2), urs(8, 2), urs(6, 1)].concat());
    // `cp.async.bulk.global.shared::cta`: UR6:UR7 global, UR4 shared, UR5 the count.
    let (t, _, uses) = decode90(0x00000006040073ba, 0x0001f00008000405);
    assert_eq!(t, "UBLKCP.G.S [UR6], [UR4], UR5");
    assert_eq!(uses, [urs(6, 2), urs(4, 1), urs(5, 1)].concat());
    let (t, _, uses) = decode90(0x00000006040073bb, 0x0001e40008000405);
    assert_eq!(t, "UBLKRED.G.S.ADD [UR6], [UR4], UR5");
    assert_eq!(uses, [urs(6, 2), urs(4, 1), urs(5, 1)].concat());
    let (t, _, uses) = decode90(0x00000000060073bc, 0x0001f00008000004);
    assert_eq!(t, "UBLKPF.L2 [UR6], UR4");
    assert_eq!(uses, [urs(6, 2), urs(4, 1)].concat());
}

/// `mbarrier.init` (SYNCS.EXCH.64: the 64-bit initial state in UR4:UR5, computed by
/// UIADD3/USHF before it), `st.async`/`red.async` (R4 the remote address, R5 the remote
/// mbarrier, from `LEA R5, R6, R5, 0x18`) and their memory effects.
#[test]
fn syncs_exch_and_remote_stores_read_pairs() {
    let (t, defs, uses) = decode90(0x00000004063f75b2, 0x0030700008000100);
    assert_eq!(t, "SYNCS.EXCH.64 URZ, [UR6], UR4");
    assert!(defs.is_empty());
    assert_eq!(uses, [urs(6, 1), urs(4, 2)].concat());
    let (t, _, uses) = decode90(0x00000000ff0079b1, 0x000fe20008000004);
    assert_eq!(t, "SYNCS.CCTL.IV [UR4]");
    assert_eq!(uses, urs(4, 1));
    let (t, defs, uses) = decode90(0x0000000004007dbe, 0x004fe2000800013f);
    assert_eq!(t, "REDAS.ADD [R4.64], R0");
    assert!(defs.is_empty());
    assert_eq!(uses, [rs(4, 2), rs(0, 1)].concat());
    let (t, _, uses) = decode90(0x0000000004007dbd, 0x004fe2000c00083f);
    assert_eq!(t, "STAS [R4.64], R0");
    assert_eq!(uses, [rs(4, 2), rs(0, 1)].concat());
    assert_eq!(
        memory_effect(Op::Stas),
        Some((Space::Shared, Access::Store))
    );
    assert_eq!(
        memory_effect(Op::Redas),
        Some((Space::Shared, Access::Atomic))
    );
    assert_eq!(
        memory_effect(Op::Utmaldg),
        Some((Space::Generic, Access::Atomic))
    );
    assert_eq!(memory_effect(Op::Utmapf), None);
    assert_eq!(LatencyClass::of(Op::Utmaldg), LatencyClass::GlobalMem);
}

/// SM89's fp8 QMMA: the fragments of `mma.m16n8k32` (A four registers, B two, C/D four
/// floats or two f16 pairs) and of `m16n8k16` (A two, B one), on ptxas's words for the
/// `mma.sync.aligned.m16n8k32.row.col.{f32.e4m3.e4m3.f32, f16.e5m2.e4m3.f16}` and
/// `m16n8k16.row.col.f32.e4m3.e4m3.f32` in the generator's frame, compiled for sm_89
/// (`{%r1, %r2}, {%r3}` for m16n8k16: A in R4, R5, B in R6).
#[test]
fn qmma_fragments_follow_shape_and_accumulator() {
    let decode89 = |lo: u64, hi: u64| {
        let i = decode_typed(Arch::Sm89, Word::from_halves(lo, hi), 0).unwrap();
        (i.text(Arch::Sm89, 0).unwrap(), i.defs(), i.uses())
    };
    let (t, defs, uses) = decode89(0x000000040404727a, 0x004ff60000002c04);
    assert_eq!(t, "QMMA.16832.F32.E4M3.E4M3 R4, R4.ROW, R4.COL, R4");
    assert_eq!(defs, rs(4, 4));
    assert_eq!(uses, [rs(4, 4), rs(4, 2), rs(4, 4)].concat());
    let (t, defs, uses) = decode89(0x000000040404727a, 0x004ff60000004c06);
    assert_eq!(t, "QMMA.16832.F16.E5M2.E4M3 R4, R4.ROW, R4.COL, R6");
    assert_eq!(defs, rs(4, 2));
    assert_eq!(uses, [rs(4, 4), rs(4, 2), rs(6, 2)].concat());
    let (t, _, uses) = decode89(0x000000060404727a, 0x004fde0000002404);
    assert_eq!(t, "QMMA.16816.F32.E4M3.E4M3 R4, R4.ROW, R6.COL, R4");
    assert_eq!(uses, [rs(4, 2), rs(6, 1), rs(4, 4)].concat());
    assert_eq!(LatencyClass::of(Op::Qmma), LatencyClass::Fp64);
}

/// `wgmma.wait_group 1`: nvdisasm rejects WARPGROUP.DEPBAR with any wait mask (or
/// scoreboard), so the decoder refuses such a word and the encoder such a control code.
#[test]
fn warpgroup_depbar_takes_no_wait_mask() {
    let (lo, hi) = (0x00008000000079c5u64, 0x000fe40000010100u64);
    let w = Word::from_halves(lo, hi);
    let i = decode_typed(Arch::Sm90, w, 0).unwrap();
    assert_eq!(
        i.text(Arch::Sm90, 0).unwrap(),
        "WARPGROUP.DEPBAR.LE gsb0, 0x1"
    );
    assert_eq!(i.encode(Arch::Sm90, 0).unwrap(), w);
    for wait in [1u8, 0x20] {
        let mut bad = i.clone();
        bad.control = Control { wait, ..i.control };
        assert!(
            matches!(bad.encode(Arch::Sm90, 0), Err(SassError::BadInst { .. })),
            "wait mask {wait:#x} encoded"
        );
        let mut word = w;
        bad.control.encode(&mut word);
        assert!(
            decode(Arch::Sm90, word, 0).is_err(),
            "wait mask {wait:#x} decoded"
        );
    }
    // The same word's neighbour WARPGROUP.ARRIVE (bit 80 clear) takes a wait mask.
    let arrive = Word::from_halves(0x00000000000079c5, 0x008fe20000000000);
    assert_eq!(
        decode(Arch::Sm90, arrive, 0).unwrap().text(),
        "WARPGROUP.ARRIVE"
    );
}
