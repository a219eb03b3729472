//! Warp-level and synchronisation operations: SHFL, BAR, PLOP3, VOTEU, REDUX, MATCH,
//! WARPSYNC.ALL (SM90), CCTL, MEMBAR, ERRBAR and CGAERRBAR.

use super::*;

pub(super) fn warp(v: &mut Vec<Form>) {
    // SHFL.mode Pd, Rd, A, lane, clamp: mode 58-59 (0 IDX, 1 UP, 2 DOWN, 3 BFLY), Pd 81-83
    // (always printed), A 24. 0xf89: lane immediate 53-57, clamp immediate 40-52;
    // 0x989: lane immediate, clamp register 64; 0x589: lane register 32, clamp immediate;
    // 0x389: lane register 32, clamp register 64 (sm_75's shuffle loops over
    // `__activemask()`: `SHFL.IDX PT, R4, R6, R19, R4`).
    let modes = [(0, ".IDX"), (1, ".UP"), (2, ".DOWN"), (3, ".BFLY")];
    for (lo, hi) in [
        (0x0c201f0000077f89u64, 0x00006200000e0000u64),
        (0x0420000003087989, 0x000e6200000000ff),
        (0x00001f0609067589, 0x000e2400000e0000),
        (0x0000001306047389, 0x00006200000e0004),
    ] {
        let (lane, clamp) = match lo & 0xf00 {
            0xf00 => (uimm(53, 5), uimm(40, 13)),
            0x900 => (uimm(53, 5), r(64)),
            0x300 => (r(32), r(64)),
            _ => (r(32), uimm(40, 13)),
        };
        v.push(
            fs("SHFL", ALL, lo, hi)
                .m(58, 2, &modes)
                .o(p(81))
                .o(r(16))
                .o(r(24))
                .o(lane)
                .o(clamp),
        );
    }
    // BAR.SYNC id[, count]: barrier id 54-57, thread count 42-53 (hidden when 0).
    // SM80+: bit 80 set prints .DEFER_BLOCKING; SM75 prints plain BAR.SYNC (bit 80 clear).
    v.push(
        fs("BAR", &[Sm75], 0x0000000000007b1d, 0x0000000000000000)
            .no_write_sb()
            .m(0, 0, &[(0, ".SYNC")])
            .o(uimm(54, 4))
            .o(uimm(42, 12).hide(0)),
    );
    v.push(
        fs("BAR", SM80UP, 0x0000000000007b1d, 0x0000000000010000)
            .no_write_sb()
            .m(0, 0, &[(0, ".SYNC")])
            .m(80, 1, &[(0, ""), (1, ".DEFER_BLOCKING")])
            .o(uimm(54, 4))
            .o(uimm(42, 12).hide(0)),
    );
}

pub(super) fn ur6(at: u8) -> Opnd {
    ur(at)
}

pub(super) fn warp2(v: &mut Vec<Form>) {
    // PLOP3.LUT Pd, Pq, Pa, Pb, Pc, lut, lut2: Pd 81-83, Pq 84-86, Pa 87-89 (! 90),
    // Pb 77-79 (! 80), Pc 68-70 (! 71), lut bits 0-2 at 64-66 and 3-7 at 72-76, second
    // lut 16-23. Bit 67 (uniform Pc) is a constant 0 here.
    v.push(
        fs("PLOP3", ALL, 0x000000000000781c, 0x0000000000703c20)
            .m(0, 0, &[(0, ".LUT")])
            .o(p(81))
            .o(p(84))
            .o(p(87).not(90))
            .o(p(77).not(80))
            .o(p(68).not(71))
            .o(uimm(0, 0).pieces(&[(64, 3), (72, 5)]))
            .o(uimm(16, 8)),
    );
    // VOTEU.mode [URd,] UPd, Pp (checked on every SM): URd 16-21 (hidden when URZ), mode
    // 72-73 (0 ALL, 1 ANY, 2 EQ), UPd 81-83, Pp 87-90.
    v.push(
        fs("VOTEU", ALL, 0x0000000000047886, 0x00000000038e0100)
            .m(72, 2, &[(0, ".ALL"), (1, ".ANY"), (2, ".EQ")])
            .o(ur6(16).hide(63))
            .o(up(81))
            .o(p(87).not(90)),
    );
    // REDUX[.op][.S32] URd, A (SM80+): op 78-80 (0 AND prints nothing, 1 OR, 2 XOR, 3 SUM,
    // 4 MIN, 5 MAX), .S32 73, URd 16-21, A 24.
    v.push(
        fs("REDUX", SM80UP, 0x00000000060573c4, 0x000000000000c000)
            .m(
                78,
                3,
                &[
                    (0, ""),
                    (1, ".OR"),
                    (2, ".XOR"),
                    (3, ".SUM"),
                    (4, ".MIN"),
                    (5, ".MAX"),
                ],
            )
            .m(73, 1, &[(0, ""), (1, ".S32")])
            .o(ur6(16))
            .o(r(24)),
    );
    // MATCH.ANY[.U64] Rd, A and MATCH.ALL[.U64] Pd, Rd, A: bit 79 set = ANY, clear = ALL
    // (with Pd 81-83); .U64 73 (A is a pair).
    for (u64, sfx) in [(0u64, ""), (1 << 9, ".U64")] {
        let a = if u64 != 0 { r(24).pair() } else { r(24) };
        v.push(
            fs("MATCH", ALL, 0x00000000020073a1, 0x00000000000e8000 | u64)
                .m(0, 0, &[(0, ".ANY")])
                .m(0, 0, &[(0, sfx)])
                .o(r(16))
                .o(a.clone()),
        );
        v.push(
            fs(
                "MATCH",
                ALL,
                0x00000000020073a1,
                (0x00000000000e8000 | u64) & !(1 << 15),
            )
            .m(0, 0, &[(0, ".ALL")])
            .m(0, 0, &[(0, sfx)])
            .o(p(81))
            .o(r(16))
            .o(a),
        );
    }
    // SM90 WARPSYNC.ALL [Pp]: the immediate-mask opcode 0x948 prints no mask on SM90.
    v.push(
        fs("WARPSYNC", &[Sm90], 0x0000000000007948, 0x0000000003800000)
            .no_sb()
            .m(0, 0, &[(0, ".ALL")])
            .o(p(87).not(90).hide(7)),
    );
}

pub(super) fn membar(v: &mut Vec<Form>) {
    // MEMBAR.{SC,ALL}.scope: bit 79 .ALL (clear .SC), scope 76-78 (0 CTA, 1 SM, 2 GPU,
    // 3 SYS, 5 VC; 4 and 7 print .INVALIDn, and SM90's 6 .CTA.PARTIAL is not modelled).
    // Probed on SM75, SM80 and SM90; `-G` builds emit MEMBAR.SC.VC.
    v.push(
        fs("MEMBAR", ALL, 0x0000000000007992, 0x0000000000000000)
            .no_write_sb()
            .m(79, 1, &[(0, ".SC"), (1, ".ALL")])
            .m(
                76,
                3,
                &[
                    (0, ".CTA"),
                    (1, ".SM"),
                    (2, ".GPU"),
                    (3, ".SYS"),
                    (5, ".VC"),
                ],
            ),
    );
    v.push(fs("ERRBAR", ALL, 0x00000000000079ab, 0x0000000000000000));
    v.push(
        fs("CCTL", ALL, 0x00000000ff00798f, 0x0000000002000000)
            .no_sb()
            .m(0, 0, &[(0, ".IVALL")]),
    );
    v.push(fs("CGAERRBAR", &[Sm90], 0x00000000000075ab, 0x0000000000000000).no_sb());
}

pub(super) fn depbar(v: &mut Vec<Form>) {
    // DEPBAR.LE SBn, count (0x91a): wait until scoreboard n (44-46) counts at most `count`
    // (38-43); bit 47 is .LE (clear: the list form below). Bits 32-37 add a list of
    // scoreboards (`, {5,0}`; [`OpndKind::SbList`], hidden when empty). One form per
    // scoreboard, whose name is part of the operand text. It takes no scoreboards of its
    // own (nvdisasm rejects a DEPBAR with a write scoreboard). Values 6 and 7 print
    // `INVALID6`/`INVALID7` and are refused. Bit 87 is a field nvdisasm ignores on every SM
    // (ptxas sets it, but clears it for `cp.async.wait_group`): a silent modifier (both
    // values print nothing), so the typed instruction keeps it and text gives ptxas's 1
    // ([`crate::Mod::is_silent`]).
    const SB: [&str; 6] = ["SB0", "SB1", "SB2", "SB3", "SB4", "SB5"];
    for (n, name) in SB.iter().enumerate() {
        v.push(
            fs(
                "DEPBAR",
                ALL,
                0x000080000000791a | (n as u64) << 44,
                0x000fe20000800000,
            )
            .no_sb()
            .m(0, 0, &[(0, ".LE")])
            .m(87, 1, &[(1, ""), (0, "")])
            .o(Opnd::fixed(name))
            .o(uimm(38, 6))
            .o(sb_list()),
        );
    }
    // `DEPBAR {5,4,3,2,1,0}` (bit 47 clear: no `.LE`, no scoreboard and count, whose bits
    // 38-46 nvdisasm then ignores, constants here); with an empty list a bare `DEPBAR`.
    // ptxas clears bit 87 here, so its silent field defaults to 0.
    v.push(
        fs("DEPBAR", ALL, 0x0000003f0000791a, 0)
            .no_sb()
            .m(87, 1, &[(0, ""), (1, "")])
            .o(sb_list()),
    );
}

/// DEPBAR's scoreboard list (bits 32-37), printed after the other operands when not empty.
fn sb_list() -> Opnd {
    Opnd::new(OpndKind::SbList, 32, 6).hide(0)
}
