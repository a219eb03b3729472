//! Moves between register files and constant loads: S2R, CS2R, MOV, LDC, ULDC, P2R and R2P
//! (predicates to and from a register), and the uniform datapath's UMOV, R2UR and S2UR.

use super::*;

/// LDC/ULDC sizes (bits 73-75), probed on every SM.
const CONST_SIZES: &[(u64, &str)] = &[
    (0, ".U8"),
    (1, ".S8"),
    (2, ".U16"),
    (3, ".S16"),
    (4, ""),
    (5, ".64"),
];

pub(super) fn moves(v: &mut Vec<Form>) {
    // S2R Rd, SR: destination 16-23, special register 72-79.
    v.push(
        Form::new("S2R", 0x919, ALL, 0x0000000000007919, 0x0000000000000000)
            .o(r(16))
            .o(Opnd::new(OpndKind::SReg, 72, 8)),
    );
    // CS2R Rd, SR (0x805): a 64-bit read (bit 80 set; clear prints .32, not modelled) of
    // special register 72-79 into the pair Rd 16-23.
    v.push(
        Form::new("CS2R", 0x805, ALL, 0x0000000000007805, 0x000000000001ff00)
            .o(r(16).pair())
            .o(Opnd::new(OpndKind::SReg, 72, 8)),
    );
    // MOV Rd, Rb / imm32 / c[][] / URb; lane mask 72-75 is 0xf (constant).
    v.push(
        Form::new("MOV", 0x202, ALL, 0x0000000000007202, 0x0000000000000f00)
            .o(r(16))
            .o(r(32).reuse(1)),
    );
    v.push(
        Form::new("MOV", 0x802, ALL, 0x0000000000007802, 0x0000000000000f00)
            .o(r(16))
            .o(uimm(32, 32)),
    );
    v.push(
        Form::new("MOV", 0xa02, ALL, 0x00000a0000017a02, 0x0000000000000f00)
            .o(r(16))
            .o(cb()),
    );
    v.push(
        Form::new("MOV", 0xc02, ALL, 0x0000000500057c02, 0x0000000008000f00)
            .o(r(16))
            .o(ur(32)),
    );
    // LDC Rd, c[bank][Ra+off]: size 73-75 (0 .U8, 1 .S8, 2 .U16, 3 .S16, 4 32-bit, 5 .64;
    // 6 and 7 print .INVALID6/7), index register 24-31, offset 38-53, bank 54-58.
    let mut ldc_src = Opnd::new(OpndKind::Mem(MemFmt::CIndexed), 24, 8);
    ldc_src.offset = vec![(38, 16)];
    ldc_src.ureg = Some((54, 5));
    v.push(
        Form::new("LDC", 0xb82, ALL, 0x0000000000007b82, 0x0000000000000800)
            .m(73, 3, CONST_SIZES)
            .o(r(16))
            .o(ldc_src),
    );
    // ULDC URd, c[bank][off]: size 73-75 as LDC's.
    v.push(
        Form::new("ULDC", 0xab9, ALL, 0x0000000000007ab9, 0x0000000000000800)
            .m(73, 3, CONST_SIZES)
            .o(ur(16))
            .o(cb()),
    );
}

pub(super) fn uniform_moves(v: &mut Vec<Form>) {
    // Uniform datapath: UMOV URd, imm32; R2UR URd, A; S2UR URd, SR.
    v.push(
        fs("UMOV", ALL, 0x0000040000047882, 0x0000000000000000)
            .o(ur(16))
            .o(uimm(32, 32)),
    );
    // R2UR [Pd,] URd, A (Pd 81-83 hidden when PT): this encoding (from SM80) is rejected
    // by nvdisasm on SM90.
    v.push(
        fs("R2UR", PRE90, 0x00000000020673c2, 0x00000000000e0000)
            .o(p(81).hide(7))
            .o(ur(16))
            .o(r(24)),
    );
    v.push(
        fs("S2UR", ALL, 0x00000000000579c3, 0x0000000000008800)
            .o(ur(16))
            .o(Opnd::new(OpndKind::SUReg, 72, 8)),
    );
}

pub(super) fn p2r_r2p(v: &mut Vec<Form>) {
    // P2R[.Bn] Rd, PR, Ra, mask (0x803): the predicates selected by the 32-bit mask (bits
    // 32-63) are written into byte n (76-77: .B1-.B3, 0 prints nothing) of Ra's value, the
    // result to Rd (16-23); Ra at 24 (reuse slot 0). SM75-SM89 print the mask signed
    // (`-0x7ffffffc`), SM90 unsigned (`0x80000004`).
    let bytes = [(0, ""), (1, ".B1"), (2, ".B2"), (3, ".B3")];
    for (arches, mask) in [(PRE90, simm(32, 32)), (&[Sm90][..], uimm(32, 32))] {
        v.push(
            fs("P2R", arches, 0x00000004ff087803, 0x0000000000000000)
                .m(76, 2, &bytes)
                .o(r(16))
                .o(Opnd::fixed("PR"))
                .o(r(24).reuse(0))
                .o(mask),
        );
    }
    // R2P PR, Ra[.Bn], mask (0x804): byte n of Ra (76-77) sets the predicates the mask
    // (32-63, unsigned) selects. The byte prints after the register, so each value is a
    // form of its own (bits 76-77 a constant); bits 16-23 are ignored by nvdisasm (zero).
    for (b, sfx) in bytes {
        v.push(
            fs("R2P", ALL, 0x0000000708007804, b << 12)
                .o(Opnd::fixed("PR"))
                .o(r(24).reuse(0).suffix(sfx))
                .o(uimm(32, 32)),
        );
    }
}
