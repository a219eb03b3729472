//! Control flow: NOP, EXIT, BSSY/BSYNC/BREAK, BRA (also with a uniform condition), BRX,
//! WARPSYNC with a mask, BMOV, CALL/RET and YIELD.

use super::*;

pub(super) fn control_flow(v: &mut Vec<Form>) {
    // NOP: no fields.
    v.push(Form::new(
        "NOP",
        0x918,
        ALL,
        0x0000000000007918,
        0x0000000000000000,
    ));
    // EXIT [Pp]: predicate 87-89, negate 90; hidden when PT.
    v.push(
        Form::new("EXIT", 0x94d, ALL, 0x000000000000794d, 0x0000000003800000)
            .no_sb()
            .o(p(87).not(90).hide(7)),
    );
    // BSYNC Bn: barrier 16-19; predicate 87-90 as EXIT.
    v.push(
        Form::new("BSYNC", 0x941, ALL, 0x0000000000007941, 0x0000000003800000)
            .no_sb()
            .o(p(87).not(90).hide(7))
            .o(bar(16)),
    );
    // BREAK Bn.
    v.push(
        Form::new("BREAK", 0x942, ALL, 0x0000000000007942, 0x0000000003800000)
            .no_sb()
            .o(p(87).not(90).hide(7))
            .o(bar(16)),
    );
    // BSSY Bn, target: barrier 16-19, target offset bits 34-63 (x4 bytes, signed).
    v.push(
        Form::new("BSSY", 0x945, ALL, 0x0000000000007945, 0x0000000003800000)
            .no_sb()
            .o(p(87).not(90).hide(7))
            .o(bar(16))
            .o(target(&[(34, 30)])),
    );
    // BRA [Pp,] target: before SM90 the offset is bits 34-81 (x4 bytes); SM90 adds bits 16-23
    // as offset bits 2-9. .U (32), .DIV (33).
    let bra_mods = [(0, ""), (1, ".U"), (2, ".DIV"), (3, ".CONV")];
    v.push(
        Form::new("BRA", 0x947, PRE90, 0x0000000000007947, 0x0000000000000000)
            .no_sb()
            .m(32, 2, &bra_mods)
            .o(p(87).not(90).hide(7))
            .o(target(&[(34, 48)])),
    );
    v.push(
        Form::new(
            "BRA",
            0x947,
            &[Sm90],
            0x0000000000007947,
            0x0000000000000000,
        )
        .no_sb()
        // SM90: bit 84 prints `.ANY` after `.U` (`BRA.U.ANY`, a warp-uniform vote
        // branch), and is ignored with the other values (so those words are refused).
        .m_pieces(
            &[(32, 2), (84, 1)],
            &[(0, ""), (1, ".U"), (2, ".DIV"), (3, ".CONV"), (5, ".U.ANY")],
        )
        .o(p(87).not(90).hide(7))
        .o(target(&[(16, 8), (34, 48)])),
    );
    // BRX[.INC|.DEC] [Pp,] Ra offset: an indirect branch to Ra plus the next instruction's
    // address plus a signed offset, encoded as BRA's target (x4; SM90 adds bits 16-23 as
    // offset bits 2-9) but printed as the plain offset after a blank (not at all when 0).
    // .INC/.DEC 85-86.
    for (arches, pieces) in [
        (PRE90, &[(34u8, 48u8)][..]),
        (&[Sm90][..], &[(16, 8), (34, 48)][..]),
    ] {
        let mut off = simm(0, 0).pieces(pieces).scale(2).hide(0);
        off.blank_before = true;
        v.push(
            Form::new("BRX", 0x949, arches, 0x0000000000007949, 0x0000000003800000)
                .no_sb()
                .m(85, 2, &[(0, ""), (1, ".INC"), (2, ".DEC")])
                .o(p(87).not(90).hide(7))
                .o(r(24))
                .o(off),
        );
    }
    // WARPSYNC with an immediate mask (32-63).
    v.push(
        Form::new(
            "WARPSYNC",
            0x948,
            PRE90,
            0x0000000000007948,
            0x0000000003800000,
        )
        .no_sb()
        .o(p(87).not(90).hide(7))
        .o(uimm(32, 32)),
    );
    // WARPSYNC with a constant-bank mask (0xb48) before SM90: `WARPSYNC c[0x0][0x168]`.
    v.push(
        Form::new(
            "WARPSYNC",
            0xb48,
            PRE90,
            0x0000000000007b48,
            0x0000000003800000,
        )
        .no_sb()
        .o(p(87).not(90).hide(7))
        .o(cb()),
    );
    // WARPSYNC with a register mask: bits 32-39 before SM90, bits 24-31 on SM90 (where
    // bit 85 prints .EXCLUSIVE; the other
    // byte is ignored by nvdisasm there, so it is a constant of the form). On SM80-SM89
    // bit 86 prints .EXCLUSIVE (ptxas's `__reduce_add_sync` fallback, `WARPSYNC.EXCLUSIVE
    // R9`; nvdisasm 13.5 ignores that bit on SM75, so it stays a constant there).
    v.push(
        Form::new(
            "WARPSYNC",
            0x348,
            &[Sm75],
            0x0000000000007348,
            0x0000000003800000,
        )
        .no_sb()
        .o(p(87).not(90).hide(7))
        .o(r(32)),
    );
    v.push(
        Form::new(
            "WARPSYNC",
            0x348,
            SM80_89,
            0x0000000000007348,
            0x0000000003800000,
        )
        .no_sb()
        .m(86, 1, &[(0, ""), (1, ".EXCLUSIVE")])
        .o(p(87).not(90).hide(7))
        .o(r(32)),
    );
    v.push(
        Form::new(
            "WARPSYNC",
            0x348,
            &[Sm90],
            0x0000000000007348,
            0x0000000003800000,
        )
        .no_sb()
        .m(85, 1, &[(0, ""), (1, ".EXCLUSIVE")])
        .o(p(87).not(90).hide(7))
        .o(r(24)),
    );
    // SM90 `WARPSYNC.COLLECTIVE [Pp,] Rm, target` (bit 86 set; bit 85 is then illegal) opens
    // a region closed by `ENDCOLLECTIVE [Pp]` (0x91b); the target is a branch target as
    // BRA's on SM90 (bits 16-23 and 34-81), so it takes a label. Probed with nvdisasm on
    // ptxas words from `__syncwarp(mask)` in divergent code.
    v.push(
        Form::new(
            "WARPSYNC",
            0x348,
            &[Sm90],
            0x0000000000007348,
            0x0000000003c00000,
        )
        .no_sb()
        .m(0, 0, &[(0, ".COLLECTIVE")])
        .o(p(87).not(90).hide(7))
        .o(r(24))
        .o(target(&[(16, 8), (34, 48)])),
    );
    v.push(
        Form::new(
            "ENDCOLLECTIVE",
            0x91b,
            &[Sm90],
            0x000000000000791b,
            0x0000000003800000,
        )
        .no_sb()
        .o(p(87).not(90).hide(7)),
    );
    // BMOV.32 Bn, Rb (0x356): restores convergence barrier 24-27 from register 32-39
    // (bit 84 prints .PQUAD, a constant 0 here). It takes a read scoreboard, no write one.
    v.push(
        Form::new("BMOV", 0x356, ALL, 0x0000000000007356, 0x0000000000000000)
            .no_write_sb()
            .m(0, 0, &[(0, ".32")])
            .o(bar(24))
            .o(r(32)),
    );
    // BMOV.32.CLEAR RZ, Bn: destination 16-23, barrier 24-27.
    v.push(
        Form::new("BMOV", 0x355, ALL, 0x0000000000007355, 0x0000000000100000)
            .no_read_sb()
            .m(84, 1, &[(1, ".32.CLEAR")])
            .o(r(16))
            .o(bar(24)),
    );
}

pub(super) fn yield_op(v: &mut Vec<Form>) {
    // YIELD [Pp].
    v.push(
        fs("YIELD", ALL, 0x0000000000007946, 0x0000000003800000)
            .no_sb()
            .o(p(87).not(90).hide(7)),
    );
}

pub(super) fn calls(v: &mut Vec<Form>) {
    // CALL.REL[.NOINC] [Pp,] target and RET.REL[.NODEC] [Pp,] Ra target: .NOINC/.NODEC bit
    // 86; target as BRA's (SM90 adds bits 16-23); RET's return register 24-31.
    for (arches, pieces) in [
        (PRE90, &[(34u8, 48u8)][..]),
        (&[Sm90][..], &[(16, 8), (34, 48)][..]),
    ] {
        v.push(
            fs("CALL", arches, 0x0000000000007944, 0x0000000003c00000)
                .no_sb()
                .m(0, 0, &[(0, ".REL")])
                .m(86, 1, &[(0, ""), (1, ".NOINC")])
                .o(p(87).not(90).hide(7))
                .o(target(pieces)),
        );
        let mut t = target(pieces);
        t.blank_before = true;
        v.push(
            fs("RET", arches, 0x0000000000007950, 0x0000000003c00000)
                .no_sb()
                .m(0, 0, &[(0, ".REL")])
                .m(86, 1, &[(0, ""), (1, ".NODEC")])
                .o(p(87).not(90).hide(7))
                .o(r(24))
                .o(t),
        );
        // CALL.REL[.NOINC] [Pp,] Ra target (0x344): an indirect call through a function
        // pointer (`k_icall`'s table), the register at 24 holding the callee's offset from
        // the function the target names, as RET's return register does.
        let mut t = target(pieces);
        t.blank_before = true;
        v.push(
            fs("CALL", arches, 0x0000000002007344, 0x0000000003c00000)
                .no_sb()
                .m(0, 0, &[(0, ".REL")])
                .m(86, 1, &[(0, ""), (1, ".NOINC")])
                .o(p(87).not(90).hide(7))
                .o(r(24))
                .o(t),
        );
        // CALL.ABS[.NOINC] [Pp,] imm (0x943; `-G` builds call other functions this way,
        // through a relocation the loader applies): an absolute address in the target
        // field without its top bit 81, printed unsigned (probed on SM75, SM80 and SM90;
        // the sign and width found by the random-field test).
        let top = pieces.len() - 1;
        let mut call_pieces = pieces.to_vec();
        call_pieces[top].1 -= 1;
        let abs = Opnd::new(OpndKind::UImm, 0, 0)
            .pieces(&call_pieces)
            .scale(2);
        v.push(
            fs("CALL", arches, 0x0000000000007943, 0x0000000003c00000)
                .no_sb()
                .m(0, 0, &[(0, ".ABS")])
                .m(86, 1, &[(0, ""), (1, ".NOINC")])
                .o(p(87).not(90).hide(7))
                .o(abs),
        );
        // RET.ABS[.NODEC] [Pp,] Ra imm (bit 85; `-G` builds return this way): the target
        // field holds an absolute address, printed as a signed number and never as a
        // label (probed on SM80 and SM90 with every piece of the field).
        let mut abs = Opnd::new(OpndKind::SImm, 0, 0).pieces(pieces).scale(2);
        abs.blank_before = true;
        v.push(
            fs("RET", arches, 0x0000000000007950, 0x0000000003e00000)
                .no_sb()
                .m(0, 0, &[(0, ".ABS")])
                .m(86, 1, &[(0, ""), (1, ".NODEC")])
                .o(p(87).not(90).hide(7))
                .o(r(24))
                .o(abs),
        );
    }
    // BRA with a uniform-register condition (bit 91, SM80+; SM75 ignores the register):
    // only .DIV/.CONV exist (nvdisasm prints .INVALIDn otherwise); UR 24-29, `~` at 30.
    let bra_mods = [(2, ".DIV"), (3, ".CONV")];
    for (arches, pieces) in [
        (SM80_89, &[(34u8, 48u8)][..]),
        (&[Sm90][..], &[(16, 8), (34, 48)][..]),
    ] {
        v.push(
            fs("BRA", arches, 0x0000000000007947, 0x0000000008000000)
                .no_sb()
                .m(32, 2, &bra_mods)
                .o(p(87).not(90).hide(7))
                .o(ur(24).not(30))
                .o(target(pieces)),
        );
    }
}
