//! Which blocks may run while the warp is split, for the allocator: uniform registers and
//! predicates are one copy per warp, so none may be written where another group of the
//! warp may be running or waiting with values in them (`docs/regalloc.md`, divergent blocks).
//!
//! A conservative analysis of the machine form, needing nothing from the IR: the warp is
//! *converged* at the entry; a branch guarded by a (per-lane) predicate splits it, so both
//! successors are divergent; an unguarded branch, a branch on a uniform predicate, a
//! branch selection marked uniform (`MInst::uniform`: a constant condition, or any IR branch
//! of a kernel the IR's uniformity analysis finds never diverging) and a guarded `EXIT`
//! (exited lanes are gone) keep the state; a block is converged when every
//! edge into it is. A `BSYNC` reconverges the warp when its `BSSY` ran converged and no
//! `BREAK` updates that barrier (all lanes that entered the scope wait there together; a
//! lane that breaks may still be running elsewhere). The greatest fixed point is taken, so a
//! loop whose every iteration reconverges stays converged.

use std::collections::HashMap;

use tangle_sass::Op;

use crate::mir::{MBlock, MFunc, RegClass, VReg};

/// The blocks of `mf` that may run divergent, in layout order.
pub fn divergent_blocks(mf: &MFunc) -> Vec<MBlock> {
    let n = mf.blocks.len();
    let preds = mf.preds();
    let broken: Vec<VReg> = mf
        .blocks
        .iter()
        .flat_map(|b| b.insts.iter().chain(&b.term))
        .filter(|i| i.op == Op::Break)
        .flat_map(|i| i.uses().map(|u| u.vreg).collect::<Vec<_>>())
        .collect();
    let mut converged_in = vec![true; n];
    // Whether each barrier's BSSY ran converged (optimistic start, lowered to a fixed point).
    let mut set_converged: HashMap<VReg, bool> = HashMap::new();
    // Per block, whether each edge out leaves converged: (target, converged).
    let mut changed = true;
    while changed {
        changed = false;
        let mut edges_out: Vec<Vec<(MBlock, bool)>> = vec![Vec::new(); n];
        for (bi, b) in mf.blocks.iter().enumerate() {
            let mut conv = converged_in[bi];
            for i in &b.insts {
                match i.op {
                    Op::Bssy => {
                        if let Some(d) = i.defs().next() {
                            let old = set_converged.get(&d.vreg).copied().unwrap_or(true);
                            if old && !conv {
                                set_converged.insert(d.vreg, false);
                                changed = true;
                            } else {
                                set_converged.entry(d.vreg).or_insert(conv);
                            }
                        }
                    }
                    Op::Bsync => {
                        if let Some(u) = i.uses().next() {
                            let set = set_converged.get(&u.vreg).copied().unwrap_or(true);
                            if set && !broken.contains(&u.vreg) {
                                conv = true;
                            }
                        }
                    }
                    _ => {}
                }
            }
            for t in &b.term {
                let splits = match (t.op, t.guard) {
                    (Op::Bra, Some((p, _))) => mf.info(p).class != RegClass::Up && !t.uniform,
                    _ => false,
                };
                for s in t.opnds.iter().filter_map(|o| match o {
                    crate::mir::MOpnd::Target(s) => Some(*s),
                    _ => None,
                }) {
                    edges_out[bi].push((s, conv && !splits));
                }
                if splits {
                    // The lanes that fall through go on apart from those that branched.
                    conv = false;
                }
            }
        }
        for (bi, into) in preds.iter().enumerate().skip(1) {
            let conv = into.iter().all(|p| {
                edges_out[p.0 as usize]
                    .iter()
                    .filter(|(s, _)| s.0 as usize == bi)
                    .all(|(_, c)| *c)
            });
            if converged_in[bi] && !conv {
                converged_in[bi] = false;
                changed = true;
            }
        }
    }
    (0..n)
        .filter(|&b| !converged_in[b])
        .map(|b| MBlock(b as u32))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::{MInst, MOpnd};

    /// b0: BSSY b; @p BRA b2; BRA b1 / b1: BRA b2 / b2: BSYNC b; BRA b3 / b3: EXIT.
    fn if_then(break_it: bool) -> MFunc {
        let mut f = MFunc::default();
        let (_, b1, b2, b3) = (f.block(), f.block(), f.block(), f.block());
        let p = f.vreg(RegClass::P, 1);
        let bar = f.vreg(RegClass::B, 1);
        f.blocks[0].insts.push(MInst::new(Op::Bssy).d(bar));
        f.blocks[0]
            .term
            .push(MInst::new(Op::Bra).o(MOpnd::Target(b2)).guard(p, false));
        f.blocks[0]
            .term
            .push(MInst::new(Op::Bra).o(MOpnd::Target(b1)));
        if break_it {
            f.blocks[1]
                .insts
                .push(MInst::new(Op::Break).u(bar).guard(p, true));
        }
        f.blocks[1]
            .term
            .push(MInst::new(Op::Bra).o(MOpnd::Target(b2)));
        f.blocks[2].insts.push(MInst::new(Op::Bsync).u(bar));
        f.blocks[2]
            .term
            .push(MInst::new(Op::Bra).o(MOpnd::Target(b3)));
        f.blocks[3].term.push(MInst::new(Op::Exit));
        f
    }

    #[test]
    fn a_sync_reconverges_what_a_branch_split() {
        assert_eq!(
            divergent_blocks(&if_then(false)),
            vec![MBlock(1), MBlock(2)]
        );
        // A break on the barrier: lanes may be elsewhere after the sync.
        assert_eq!(
            divergent_blocks(&if_then(true)),
            vec![MBlock(1), MBlock(2), MBlock(3)]
        );
    }

    #[test]
    fn a_branch_on_a_uniform_predicate_keeps_the_warp_together() {
        let mut f = if_then(false);
        let up = f.vreg(RegClass::Up, 1);
        f.blocks[0].term[0].guard = Some((up, false));
        assert_eq!(divergent_blocks(&f), Vec::<MBlock>::new());
    }
}
