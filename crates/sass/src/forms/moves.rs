//! Moves between register files and constant loads: S2R, CS2R, MOV, LDC, ULDC, and the
//! uniform datapath's UMOV, R2UR and S2UR.

use super::*;

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
            .o(r(32)),
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
    // LDC Rd, c[bank][Ra+off]: size 72-74 (.64 = 5), index register 24-31, offset 38-53,
    // bank 54-58.
    let mut ldc_src = Opnd::new(OpndKind::Mem(MemFmt::CIndexed), 24, 8);
    ldc_src.offset = vec![(38, 16)];
    ldc_src.ureg = Some((54, 5));
    v.push(
        Form::new("LDC", 0xb82, ALL, 0x0000000000007b82, 0x0000000000000800)
            .m(73, 3, &[(4, ""), (5, ".64")])
            .o(r(16))
            .o(ldc_src),
    );
    // ULDC URd, c[bank][off] (.64 at 73).
    v.push(
        Form::new("ULDC", 0xab9, ALL, 0x0000000000007ab9, 0x0000000000000800)
            .m(73, 3, &[(4, ""), (5, ".64")])
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
