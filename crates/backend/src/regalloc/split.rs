//! Critical-edge splitting for the register allocator, which refuses every critical edge (an
//! edge from a block with several successors to a block with several predecessors, or to a
//! block with phis, which the allocator treats as a join whatever its predecessor count):
//! copies the allocator puts on an edge need a block of their own.
//!
//! Each split block is laid out right after the block it leaves, so a split fall-through edge
//! stays a fall-through (emission drops a final `BRA` to the next block); a split block that
//! receives no copies is threaded away after allocation ([`thread_jumps`]).

use tangle_sass::Op;

use crate::mir::{MBlock, MBlockData, MFunc, MInst, MOpnd};

/// Splits every critical edge of `mf` with an empty block holding one `BRA`, placed after
/// the edge's source in the layout. Branch targets and phi sources are renumbered.
pub fn split_critical_edges(mf: &mut MFunc) {
    let n = mf.blocks.len();
    let succs: Vec<Vec<MBlock>> = mf.blocks.iter().map(|b| b.succs()).collect();
    let mut npreds = vec![0usize; n];
    for ss in &succs {
        for s in ss {
            if let Some(c) = npreds.get_mut(s.0 as usize) {
                *c += 1;
            }
        }
    }
    // The new layout: each old block, then its split blocks (as `(from, to)` edges).
    let mut new_index = vec![0u32; n];
    let mut splits: Vec<Vec<(MBlock, MBlock)>> = vec![Vec::new(); n];
    let mut next = 0u32;
    for (b, ss) in succs.iter().enumerate() {
        new_index[b] = next;
        next += 1;
        if ss.len() < 2 {
            continue;
        }
        for &s in ss {
            // A block with phis is a join for the allocator even with one predecessor
            // (the lowering's SSA repair leaves such phis): its edge needs a block of its
            // own as much as a many-predecessor join's does.
            let join = npreds.get(s.0 as usize).is_some_and(|&c| c >= 2)
                || mf
                    .blocks
                    .get(s.0 as usize)
                    .is_some_and(|d| !d.phis.is_empty());
            if join {
                splits[b].push((MBlock(next), s));
                next += 1;
            }
        }
    }
    if next as usize == n {
        return;
    }
    let renumber = |b: MBlock| MBlock(new_index.get(b.0 as usize).copied().unwrap_or(b.0));
    let old = std::mem::take(&mut mf.blocks);
    let mut blocks: Vec<MBlockData> = Vec::with_capacity(next as usize);
    for (b, mut data) in old.into_iter().enumerate() {
        let edge_block = |t: MBlock| {
            splits[b]
                .iter()
                .find(|(_, to)| *to == t)
                .map(|(split, _)| *split)
        };
        for inst in &mut data.term {
            for o in &mut inst.opnds {
                if let MOpnd::Target(t) = o {
                    *t = edge_block(*t).unwrap_or_else(|| renumber(*t));
                }
            }
        }
        blocks.push(data);
        for &(_, to) in &splits[b] {
            let mut split = MBlockData::default();
            split
                .term
                .push(MInst::new(Op::Bra).o(MOpnd::Target(renumber(to))));
            blocks.push(split);
        }
    }
    // Phi sources: from the split block where the edge was split, else renumbered.
    for block in &mut blocks {
        for phi in &mut block.phis {
            for (from, _) in &mut phi.srcs {
                *from = renumber(*from);
            }
        }
    }
    for (b, edges) in splits.iter().enumerate() {
        for &(split, to) in edges {
            let target = &mut blocks[new_index[to.0 as usize] as usize];
            for phi in &mut target.phis {
                for (from, _) in &mut phi.srcs {
                    if from.0 == new_index[b] {
                        *from = split;
                    }
                }
            }
        }
    }
    mf.blocks = blocks;
}

/// Ends a block after each `BSYNC` that has more than an unconditional branch after it: the
/// rest goes to a new block laid out right after (a fall-through, so it costs no
/// instruction). A `BSYNC` may reconverge the warp, and the allocator knows divergence per
/// block ([`super::divergence`]), so code after the sync can then hold uniform values.
pub fn split_after_syncs(mf: &mut MFunc) {
    let cut_points = |b: &MBlockData| -> Vec<usize> {
        let mut cuts = Vec::new();
        for (k, i) in b.insts.iter().enumerate() {
            let rest_is_a_jump = k + 1 == b.insts.len()
                && matches!(b.term.as_slice(), [t] if t.op == Op::Bra && t.guard.is_none());
            if i.op == Op::Bsync && !rest_is_a_jump {
                cuts.push(k + 1);
            }
        }
        cuts
    };
    let cuts: Vec<Vec<usize>> = mf.blocks.iter().map(cut_points).collect();
    if cuts.iter().all(|c| c.is_empty()) {
        return;
    }
    let n = mf.blocks.len();
    // Each old block's first and last piece in the new layout.
    let mut first = vec![0u32; n];
    let mut last = vec![0u32; n];
    let mut next = 0u32;
    for b in 0..n {
        first[b] = next;
        next += 1 + cuts[b].len() as u32;
        last[b] = next - 1;
    }
    let old = std::mem::take(&mut mf.blocks);
    for (b, mut data) in old.into_iter().enumerate() {
        for inst in data.insts.iter_mut().chain(&mut data.term) {
            for o in &mut inst.opnds {
                if let MOpnd::Target(t) = o {
                    *t = MBlock(first[t.0 as usize]);
                }
            }
        }
        for phi in &mut data.phis {
            for (from, _) in &mut phi.srcs {
                *from = MBlock(last[from.0 as usize]);
            }
        }
        let mut rest = std::mem::take(&mut data.insts);
        let term = std::mem::take(&mut data.term);
        let mut piece = data;
        let mut at = 0;
        for (c, &cut) in cuts[b].iter().enumerate() {
            let tail = rest.split_off(cut - at);
            at = cut;
            piece.insts = rest;
            let next_piece = MBlock(first[b] + 1 + c as u32);
            piece
                .term
                .push(MInst::new(Op::Bra).o(MOpnd::Target(next_piece)));
            mf.blocks.push(piece);
            piece = MBlockData::default();
            rest = tail;
        }
        piece.insts = rest;
        piece.term = term;
        mf.blocks.push(piece);
    }
}

/// Removes blocks that hold nothing but an unguarded `BRA` (split blocks that received no
/// copies), sending every branch to them straight to where they go. The entry block stays.
pub fn thread_jumps(mf: &mut MFunc) {
    let n = mf.blocks.len();
    let forward = |b: usize| -> Option<MBlock> {
        let data = &mf.blocks[b];
        match (
            data.insts.is_empty(),
            data.phis.is_empty(),
            data.term.as_slice(),
        ) {
            (true, true, [only]) if only.op == Op::Bra && only.guard.is_none() => {
                match only.opnds.as_slice() {
                    [MOpnd::Target(t)] => Some(*t),
                    _ => None,
                }
            }
            _ => None,
        }
    };
    // Where each block's jumps end up (chains followed, cycles of empty blocks left alone).
    let mut dest: Vec<MBlock> = (0..n as u32).map(MBlock).collect();
    let mut removed = vec![false; n];
    for (b, d) in dest.iter_mut().enumerate().skip(1) {
        let mut at = b;
        let mut steps = 0;
        while let Some(t) = forward(at) {
            if steps > n || t.0 as usize >= n {
                break;
            }
            at = t.0 as usize;
            steps += 1;
        }
        if at != b && forward(at).is_none() {
            *d = MBlock(at as u32);
            removed[b] = true;
        }
    }
    if !removed.iter().any(|&r| r) {
        return;
    }
    let mut new_index = vec![0u32; n];
    let mut next = 0u32;
    for b in 0..n {
        new_index[b] = next;
        if !removed[b] {
            next += 1;
        }
    }
    let old = std::mem::take(&mut mf.blocks);
    for (b, mut data) in old.into_iter().enumerate() {
        if removed[b] {
            continue;
        }
        for inst in data.insts.iter_mut().chain(&mut data.term) {
            for o in &mut inst.opnds {
                if let MOpnd::Target(t) = o {
                    *t = MBlock(new_index[dest[t.0 as usize].0 as usize]);
                }
            }
        }
        mf.blocks.push(data);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::{MPhi, RegClass};

    /// b0: `@p BRA b2; BRA b1`; b1: `BRA b2`; b2: phi [b0: x, b1: y]; EXIT.
    fn diamond_without_else() -> MFunc {
        let mut f = MFunc::default();
        let (b0, b1, b2) = (f.block(), f.block(), f.block());
        let p = f.vreg(RegClass::P, 1);
        let x = f.vreg(RegClass::R, 1);
        let y = f.vreg(RegClass::R, 1);
        let z = f.vreg(RegClass::R, 1);
        f.blocks[0].insts.push(MInst::new(Op::Mov).d(x).imm(1));
        f.blocks[0]
            .term
            .push(MInst::new(Op::Bra).o(MOpnd::Target(b2)).guard(p, false));
        f.blocks[0]
            .term
            .push(MInst::new(Op::Bra).o(MOpnd::Target(b1)));
        f.blocks[1].insts.push(MInst::new(Op::Mov).d(y).imm(2));
        f.blocks[1]
            .term
            .push(MInst::new(Op::Bra).o(MOpnd::Target(b2)));
        f.blocks[2].phis.push(MPhi {
            dst: z,
            srcs: vec![(b0, x), (b1, y)],
        });
        f.blocks[2].term.push(MInst::new(Op::Exit));
        f
    }

    #[test]
    fn the_critical_edge_gets_a_block_after_its_source() {
        let mut f = diamond_without_else();
        split_critical_edges(&mut f);
        assert_eq!(f.blocks.len(), 4);
        // b0 -> b1 (split) -> b3 (old b2); b0 -> b2 (old b1) -> b3.
        assert_eq!(f.blocks[0].succs(), vec![MBlock(1), MBlock(2)]);
        assert_eq!(f.blocks[1].succs(), vec![MBlock(3)]);
        assert_eq!(f.blocks[2].succs(), vec![MBlock(3)]);
        let srcs: Vec<MBlock> = f.blocks[3].phis[0].srcs.iter().map(|s| s.0).collect();
        assert_eq!(srcs, vec![MBlock(1), MBlock(2)]);
        assert!(crate::verify::verify(&f, crate::verify::Stage::Ssa).is_empty());
        // Nothing was put in the split block: threading removes it again.
        f.blocks[3].phis.clear();
        thread_jumps(&mut f);
        assert_eq!(f.blocks.len(), 3);
        assert_eq!(f.blocks[0].succs(), vec![MBlock(2), MBlock(1)]);
    }

    #[test]
    fn code_after_a_sync_gets_a_block_of_its_own() {
        let mut f = diamond_without_else();
        let bar = f.vreg(RegClass::B, 1);
        let w = f.vreg(RegClass::R, 1);
        f.blocks[0].insts.insert(0, MInst::new(Op::Bssy).d(bar));
        f.blocks[2].insts.push(MInst::new(Op::Bsync).u(bar));
        f.blocks[2].insts.push(MInst::new(Op::Mov).d(w).imm(3));
        split_after_syncs(&mut f);
        assert_eq!(f.blocks.len(), 4);
        assert_eq!(f.blocks[2].insts.len(), 1);
        assert_eq!(f.blocks[2].succs(), vec![MBlock(3)]);
        assert_eq!(f.blocks[3].insts[0].op, Op::Mov);
        assert_eq!(f.blocks[3].term[0].op, Op::Exit);
        assert!(crate::verify::verify(&f, crate::verify::Stage::Ssa).is_empty());
        // A sync followed by a jump alone is left as it is.
        let before = f.clone();
        split_after_syncs(&mut f);
        assert_eq!(f, before);
    }

    #[test]
    fn a_function_without_critical_edges_is_unchanged() {
        let mut f = diamond_without_else();
        f.blocks[0].term.remove(0);
        f.blocks[2].phis[0].srcs.remove(0);
        let before = f.clone();
        split_critical_edges(&mut f);
        assert_eq!(f, before);
    }
}
