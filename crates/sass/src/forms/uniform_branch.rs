//! Branches on a uniform predicate (issue 12's miscellaneous refusals): `BRA.U[.ANY]
//! [Pp,] [!]UPq, target` (0x547), ptxas's branch on a warp-uniform condition kept in a
//! uniform predicate. Probed bit by bit with nvdisasm on an SM90 ptxas word of the
//! generated PTX corpus, and on SM80; the random-field test checks every field on every SM
//! listed.

use super::*;

pub(super) fn uniform_branch(v: &mut Vec<Form>) {
    // The uniform predicate is 24-26 with its negation at 27 (28-31 are ignored by
    // nvdisasm: ptxas's zeros); 32-33 print `.U` for 1 (0 and 3 print `.???n`), and bit 84
    // adds `.ANY` on SM90 (SM80-SM89 ignore it: there it is ptxas's zero, found by the
    // random-field test); 85-86 (`.INC`/`.DEC`) are ptxas's zeros; the predicate 87-89 with its
    // negation at 90 as BRA's (hidden when PT); the target as BRA's, SM90 with bits 16-23.
    let any: &[(u64, &str)] = &[(1, ".U"), (5, ".U.ANY")];
    for (arches, pieces, mods) in [
        (SM80_89, &[(34u8, 48u8)][..], &any[..1]),
        (&[Sm90][..], &[(16, 8), (34, 48)][..], any),
    ] {
        v.push(
            fs("BRA", arches, 0x0000000108007547, 0x0000000008000000)
                .no_sb()
                .m_pieces(&[(32, 2), (84, 1)], mods)
                .o(p(87).not(90).hide(7))
                .o(up(24).not(27))
                .o(target(pieces)),
        );
    }
}
