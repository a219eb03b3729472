//! Moves between the uniform predicates and a uniform register, the uniform twins of
//! P2R/R2P (`moves.rs`): `UP2UR.Bn URd, UPR, URa, mask` (0x883) and `UR2UP UPR, URa.Bn[,
//! mask]` (0x884), which ptxas writes around code that keeps uniform predicates live
//! (found by the generated PTX corpus, issue 12). Probed with nvdisasm 13.5 by flipping
//! every bit 12-104 of ptxas's words on SM80, SM89 and SM90 and by value on every SM:
//! URd 16-21, URa 24-29, the 32-bit mask 32-63 (UR2UP hides it when it is 0xff), the
//! byte 76-77 (`.B1`-`.B3`; 0 prints nothing); bit 91 (set by ptxas) is a constant (clear:
//! rejected). The predicates the mask selects are implicit operands
//! ([`crate::typed::MachInst::uses`], `defs`).

use super::*;

const BYTES: [(u64, &str); 4] = [(0, ""), (1, ".B1"), (2, ".B2"), (3, ".B3")];

pub(super) fn uniform_preds(v: &mut Vec<Form>) {
    v.push(
        fs("UP2UR", ALL, 0x000000ff3e3e7883, 0x0000000008003000)
            .m(76, 2, &BYTES)
            .o(ur(16))
            .o(Opnd::fixed("UPR"))
            .o(ur(24))
            .o(uimm(32, 32)),
    );
    // The byte prints after the register: a form per value (bits 76-77 a constant).
    for (b, sfx) in BYTES {
        v.push(
            fs(
                "UR2UP",
                ALL,
                0x000000ff3e007884,
                0x0000000008000000 | b << 12,
            )
            .o(Opnd::fixed("UPR"))
            .o(ur(24).suffix(sfx))
            .o(uimm(32, 32).hide(0xff)),
        );
    }
}
