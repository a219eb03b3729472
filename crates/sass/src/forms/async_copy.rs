//! Asynchronous copies from global to shared memory (`cp.async`, SM80 and later):
//! LDGSTS, its commit LDGDEPBAR and the mbarrier arrival ARRIVES, found by the generated
//! PTX corpus (issue 12) and probed with nvdisasm on its ptxas words, bit by bit and field
//! by field, on SM80, SM86 and SM90.

use super::*;

/// LDGSTS's cache operation, bits 84-86 (1 prints nothing; 6 and 7 `.INVALIDn`).
const LDGSTS_CACHE: &[(u64, &str)] = &[
    (0, ".EF"),
    (1, ""),
    (2, ".EL"),
    (3, ".LU"),
    (4, ".EU"),
    (5, ".NA"),
];

/// LDGSTS's L2 prefetch size, bits 71-72.
const LDGSTS_L2: &[(u64, &str)] = &[(0, ""), (1, ".LTC64B"), (2, ".LTC128B"), (3, ".LTC256B")];

/// LDGSTS's access size, bits 73-75 (other values print `.INVALIDn`).
const LDGSTS_SIZES: &[(u64, &str)] = &[(4, ""), (5, ".64"), (6, ".128")];

pub(super) fn async_copy(v: &mut Vec<Form>) {
    // LDGSTS.E[.BYPASS][.cache][.L2][.size][.ZFILL] [Rs+off], [Ra.64+off][, Pz]: the
    // shared address 16-23 with a signed 20-bit offset 44-63, the global address 24-31
    // with a signed 12-bit offset 32-43; SM90 prints its descriptor (64-69), SM80-SM89
    // do not (bit 101, which prints it, clear: an unprinted field, UR4 from the assembler).
    // `.BYPASS` is bit 81 clear, `.ZFILL` 82 set; the zero-fill predicate 87-89 (negated
    // by 90) is printed unless it is PT. The memory order 77-80 prints after `.ZFILL`
    // (`.CONSTANT.PRIVATE`, ...): ptxas writes 0, the only value accepted here; bit 76
    // clear adds a uniform register to the global address (not modelled).
    let sm90 = {
        let mut m = mem(MemFmt::GlobalDesc, 64);
        m.offset = vec![(32, 12)];
        m
    };
    let sm80 = {
        let mut m = mem(MemFmt::Global64, 64);
        m.offset = vec![(32, 12)];
        m
    };
    let smem = {
        let mut m = shared(None);
        m.pieces = vec![(16, 8)];
        m.offset = vec![(44, 20)];
        m
    };
    for (arches, hi, global) in [
        (SM80_89, 0x0000000008161c44u64, sm80),
        (&[Sm90][..], 0x0000000008161c46, sm90),
    ] {
        v.push(
            fs("LDGSTS", arches, 0x0000000004077fae, hi)
                .m(0, 0, &[(0, ".E")])
                .m(81, 1, &[(1, ""), (0, ".BYPASS")])
                .m(84, 3, LDGSTS_CACHE)
                .m(71, 2, LDGSTS_L2)
                .m(73, 3, LDGSTS_SIZES)
                .m(82, 1, &[(0, ""), (1, ".ZFILL")])
                .o(smem.clone())
                .o(global)
                .o(p(87).not(90).hide(7)),
        );
    }
    // LDGDEPBAR (`cp.async.commit_group`): no operands; bits 16-90 are ignored.
    v.push(fs("LDGDEPBAR", SM80UP, 0x00000000000079af, 0));
    // ARRIVES.LDGSTSBAR.64 [Ra+URb+off] (`cp.async.mbarrier.arrive`): the shared address
    // 24-31 (RZ prints `[UR4]`), the uniform register 64-69, a signed 24-bit offset 40-63;
    // bits 72-75 are the operation and size (constants: other values print `???n`). SM90
    // has `.ARVCNT` / `.TRANSCNT` at 70-71 (`.noinc`), which SM80-SM89 ignore. nvdisasm
    // rejects a write scoreboard on it (a read scoreboard is fine).
    let bar_addr = || shared(Some(64));
    v.push(
        fs("ARRIVES", SM80_89, 0x00000000ff0099b0, 0x0000000008000a04)
            .m(0, 0, &[(0, ".LDGSTSBAR.64")])
            .o(bar_addr())
            .no_write_sb(),
    );
    v.push(
        fs("ARRIVES", &[Sm90], 0x00000000ff0099b0, 0x0000000008000a04)
            .m(0, 0, &[(0, ".LDGSTSBAR.64")])
            .m(70, 2, &[(0, ""), (1, ".ARVCNT"), (2, ".TRANSCNT")])
            .o(bar_addr())
            .no_write_sb(),
    );
}
