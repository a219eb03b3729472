//! The machine form's verifier: register operands name registers of the right file and
//! components inside their tuples, branches name blocks, every block ends in an unguarded
//! branch or exit, phis name predecessors and agree with their sources' files, and (before
//! phi elimination) every register is defined exactly once and used only where defined.

use std::collections::HashSet;

use crate::mir::{MBlock, MFunc, MOpnd, RegClass, RegRef, VReg};

/// Whether the function is still in SSA form (before phi elimination).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Every register defined once.
    Ssa,
    /// Phis replaced by copies: registers may be defined several times.
    Copies,
}

/// Every rule `mf` breaks, one line each, with its block.
// Each operand kind checks its register first (which records a missing one) and then its
// own rule; nesting says that order better than match guards with side effects.
#[allow(clippy::collapsible_match)]
pub fn verify(mf: &MFunc, stage: Stage) -> Vec<String> {
    let mut errs = Vec::new();
    let nb = mf.blocks.len() as u32;
    let nv = mf.vregs.len() as u32;
    let preds = mf.preds();
    let mut defined: HashSet<VReg> = HashSet::new();
    let mut used: Vec<(MBlock, VReg)> = Vec::new();
    let check_ref = |r: RegRef, errs: &mut Vec<String>, at: &str| {
        if r.vreg.0 >= nv {
            errs.push(format!("{at}: register {} does not exist", r.vreg.0));
            return false;
        }
        if let Some(k) = r.sub {
            if k >= mf.info(r.vreg).width {
                errs.push(format!(
                    "{at}: component {k} of {}",
                    mf.reg_text(r.vreg.into())
                ));
            }
        }
        true
    };
    for (bi, b) in mf.blocks.iter().enumerate() {
        let blk = MBlock(bi as u32);
        for phi in &b.phis {
            let at = format!("{blk} phi");
            if !check_ref(phi.dst.into(), &mut errs, &at) {
                continue;
            }
            if stage == Stage::Ssa && !defined.insert(phi.dst) {
                errs.push(format!(
                    "{at}: {} defined twice",
                    mf.reg_text(phi.dst.into())
                ));
            }
            for (from, src) in &phi.srcs {
                if !preds[bi].contains(from) {
                    errs.push(format!("{at}: {from} is not a predecessor"));
                }
                if check_ref((*src).into(), &mut errs, &at) {
                    if mf.info(*src) != mf.info(phi.dst) {
                        errs.push(format!("{at}: source {} of another file", src.0));
                    }
                    used.push((blk, *src));
                }
            }
        }
        for (k, i) in b.insts.iter().chain(&b.term).enumerate() {
            let at = format!("{blk} i{k} {}", mf.inst_text(i));
            if let Some((p, _)) = i.guard {
                if check_ref(p.into(), &mut errs, &at) && mf.info(p).class != RegClass::P {
                    errs.push(format!("{at}: guard is not a predicate"));
                }
            }
            for o in &i.opnds {
                match *o {
                    MOpnd::Def(r) => {
                        if check_ref(r, &mut errs, &at)
                            && stage == Stage::Ssa
                            && !defined.insert(r.vreg)
                        {
                            errs.push(format!("{at}: {} defined twice", mf.reg_text(r)));
                        }
                    }
                    MOpnd::Use { r, .. } => {
                        if check_ref(r, &mut errs, &at) {
                            used.push((blk, r.vreg));
                        }
                    }
                    MOpnd::Mem { base: Some(v), .. } => {
                        if check_ref(v.into(), &mut errs, &at) {
                            if mf.info(v).class != RegClass::R {
                                errs.push(format!("{at}: address is not a general register"));
                            }
                            used.push((blk, v));
                        }
                    }
                    MOpnd::Target(t) if t.0 >= nb => {
                        errs.push(format!("{at}: branch to missing block {t}"))
                    }
                    MOpnd::SyncOf(v) => {
                        if check_ref(v.into(), &mut errs, &at) && mf.info(v).class != RegClass::B {
                            errs.push(format!("{at}: BSSY target of a non-barrier"));
                        }
                    }
                    _ => {}
                }
            }
        }
        match b.term.last() {
            Some(t) if t.is_branch() && t.guard.is_none() => {}
            _ => errs.push(format!(
                "{blk}: does not end in an unguarded branch or exit"
            )),
        }
        for i in &b.insts {
            if i.op == tangle_sass::Op::Bra {
                errs.push(format!("{blk}: a branch in the middle of the block"));
            }
        }
    }
    if stage == Stage::Ssa {
        for (blk, v) in used {
            if (v.0) < nv && !defined.contains(&v) {
                errs.push(format!(
                    "{blk}: {} used but never defined",
                    mf.reg_text(v.into())
                ));
            }
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::{MInst, MPhi};
    use tangle_sass::Op;

    /// `B0: %r0 = MOV 1; BRA B1`, `B1: %r1 = phi [B0: %r0]; EXIT`.
    fn good() -> MFunc {
        let mut f = MFunc::default();
        let b0 = f.block();
        let b1 = f.block();
        let r0 = f.vreg(RegClass::R, 1);
        let r1 = f.vreg(RegClass::R, 1);
        f.blocks[0].insts.push(MInst::new(Op::Mov).d(r0).imm(1));
        f.blocks[0]
            .term
            .push(MInst::new(Op::Bra).o(MOpnd::Target(b1)));
        f.blocks[1].phis.push(MPhi {
            dst: r1,
            srcs: vec![(b0, r0)],
        });
        f.blocks[1].term.push(MInst::new(Op::Exit));
        f
    }

    #[test]
    fn a_well_formed_function_passes() {
        assert_eq!(verify(&good(), Stage::Ssa), Vec::<String>::new());
    }

    #[test]
    fn each_broken_rule_is_reported() {
        // A second definition.
        let mut f = good();
        f.blocks[0]
            .insts
            .push(MInst::new(Op::Mov).d(VReg(0)).imm(2));
        assert!(verify(&f, Stage::Ssa)[0].contains("defined twice"));
        assert!(verify(&f, Stage::Copies).is_empty());
        // A use of a register nobody defines.
        let mut f = good();
        let r = f.vreg(RegClass::R, 1);
        f.blocks[1].insts.push(MInst::new(Op::Mov).d(VReg(1)).u(r));
        assert!(verify(&f, Stage::Ssa)
            .iter()
            .any(|e| e.contains("used but never defined")));
        // A guard that is not a predicate.
        let mut f = good();
        f.blocks[1].term[0].guard = Some((VReg(0), false));
        assert!(verify(&f, Stage::Copies)
            .iter()
            .any(|e| e.contains("guard is not a predicate")));
        // A block that falls off its end; a phi naming a block that is no predecessor.
        let mut f = good();
        f.blocks[0].term.clear();
        let errs = verify(&f, Stage::Ssa);
        assert!(errs.iter().any(|e| e.contains("does not end")), "{errs:?}");
        assert!(
            errs.iter().any(|e| e.contains("is not a predecessor")),
            "{errs:?}"
        );
        // A component outside its tuple, a branch to a missing block.
        let mut f = good();
        f.blocks[1]
            .insts
            .push(MInst::new(Op::Mov).d(VReg(1)).u(RegRef {
                vreg: VReg(0),
                sub: Some(1),
            }));
        f.blocks[1].term.insert(
            0,
            MInst::new(Op::Bra)
                .o(MOpnd::Target(MBlock(9)))
                .guard(VReg(0), false),
        );
        let errs = verify(&f, Stage::Copies);
        assert!(errs.iter().any(|e| e.contains("component 1")), "{errs:?}");
        assert!(errs.iter().any(|e| e.contains("missing block")), "{errs:?}");
    }
}
