//! Moves to and from the return program counter (issue 12's RPCMOV refusals): ptxas moves
//! its 32-bit halves to and from general registers, `RPCMOV.32 Rpc.HI, R5` (0x352) and
//! `RPCMOV.32 R5, Rpc.HI` (0x353).
//! Probed bit by bit with nvdisasm on SM90 ptxas words of the generated PTX corpus, and on
//! SM75; nvdisasm prints the samples alike on SM75-SM90 (`docs/sass-facts.md`, "RPCMOV").

use super::*;

/// The return program counter's half: bit 31 (0 `Rpc.LO`, 1 `Rpc.HI`).
fn rpc() -> Opnd {
    Opnd::new(OpndKind::RpcHalf, 31, 1)
}

pub(super) fn rpcmov(v: &mut Vec<Form>) {
    // Only the guard, the half (31) and the register move the text: the register at 32 for
    // the write of Rpc, at 16 for the read. Flipping any other bit of 12-104 prints the
    // same text (no `.64` or other width exists), except bit 91, which nvdisasm rejects:
    // those bits are ptxas's zeros, constants of the forms.
    v.push(
        fs("RPCMOV", ALL, 0x0000000580009352, 0x0000000000000000)
            .m(0, 0, &[(0, ".32")])
            .o(rpc())
            .o(r(32)),
    );
    v.push(
        fs("RPCMOV", ALL, 0x0000000080059353, 0x0000000000000000)
            .m(0, 0, &[(0, ".32")])
            .o(r(16))
            .o(rpc()),
    );
}
