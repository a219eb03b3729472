//! The stand-in register assignment the back end used before the SSA register allocator
//! ([`crate::regalloc`]); kept, selected by [`crate::Allocator::StandIn`], as the baseline
//! its register counts are compared with (`docs/backend.md`). Critical edges into blocks with phis are split, phis
//! become copies (through fresh temporaries, so a parallel copy never reads a register it
//! has just written), liveness is computed on the result, and each register file is
//! coloured greedily on the interference graph (tuples at aligned bases). It is correct
//! whatever the program (interference comes from liveness, not from SSA shape) but not
//! frugal, and it does not spill: more live registers than a file holds is an error.

use std::collections::{BTreeSet, HashMap};

use tangle_sass::Op;

use crate::error::CompileError;
use crate::mir::{MBlock, MFunc, MInst, MOpnd, RegClass, VReg};

/// Physical register numbers, one per virtual register (the first of a tuple).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Assignment {
    /// `phys[v]`: the register (or tuple base) of virtual register `v`.
    pub phys: Vec<u8>,
    /// Registers used per file: one past the highest general register written.
    pub gprs: u32,
    /// Convergence barriers used.
    pub barriers: u32,
}

/// General registers the assignment never hands out: R1 is the local-memory stack pointer
/// (as ptxas keeps it).
const RESERVED_R: [u8; 1] = [1];

/// Splits critical edges into blocks with phis and replaces phis with copies at the end of
/// each predecessor's body.
pub fn eliminate_phis(mf: &mut MFunc) {
    // Split critical edges.
    let nblocks = mf.blocks.len();
    for bi in 0..nblocks {
        let succs = mf.blocks[bi].succs();
        if succs.len() < 2 {
            continue;
        }
        for s in succs {
            if mf.blocks[s.0 as usize].phis.is_empty() {
                continue;
            }
            let e = mf.block();
            mf.blocks[e.0 as usize]
                .term
                .push(MInst::new(Op::Bra).o(MOpnd::Target(s)));
            for i in &mut mf.blocks[bi].term {
                for o in &mut i.opnds {
                    if *o == MOpnd::Target(s) {
                        *o = MOpnd::Target(e);
                    }
                }
            }
            for phi in &mut mf.blocks[s.0 as usize].phis {
                for (from, _) in &mut phi.srcs {
                    if from.0 as usize == bi {
                        *from = e;
                    }
                }
            }
        }
    }
    // Phis to copies.
    for bi in 0..mf.blocks.len() {
        let phis = std::mem::take(&mut mf.blocks[bi].phis);
        if phis.is_empty() {
            continue;
        }
        let mut per_pred: HashMap<MBlock, Vec<(VReg, VReg)>> = HashMap::new();
        for phi in &phis {
            for (from, src) in &phi.srcs {
                per_pred.entry(*from).or_default().push((phi.dst, *src));
            }
        }
        let mut preds: Vec<_> = per_pred.into_iter().collect();
        preds.sort_by_key(|(b, _)| *b);
        for (from, copies) in preds {
            let mut temps = Vec::new();
            for (dst, src) in &copies {
                let info = mf.info(*dst);
                let t = mf.vreg(info.class, info.width);
                let body = &mut mf.blocks[from.0 as usize].insts;
                body.extend(copy(t, *src, info.class));
                temps.push((*dst, t, info.class));
            }
            for (dst, t, class) in temps {
                mf.blocks[from.0 as usize].insts.extend(copy(dst, t, class));
            }
        }
    }
}

/// A register copy `dst := src` of class `class`.
fn copy(dst: VReg, src: VReg, class: RegClass) -> Vec<MInst> {
    match class {
        RegClass::P => vec![MInst::new(Op::Plop3)
            .m(".LUT")
            .d(dst)
            .f(tangle_sass::typed::PT)
            .u(src)
            .f(tangle_sass::typed::PT)
            .f(tangle_sass::typed::PT)
            .imm(0xf0)
            .imm(0)],
        _ => vec![MInst::new(Op::Mov).d(dst).u(src)],
    }
}

/// The registers live into each block.
fn liveness(mf: &MFunc) -> Vec<BTreeSet<VReg>> {
    let n = mf.blocks.len();
    let mut live_in = vec![BTreeSet::new(); n];
    let succs: Vec<Vec<MBlock>> = mf.blocks.iter().map(|b| b.succs()).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for bi in (0..n).rev() {
            let mut live: BTreeSet<VReg> = BTreeSet::new();
            for s in &succs[bi] {
                live.extend(live_in[s.0 as usize].iter().copied());
            }
            let b = &mf.blocks[bi];
            for i in b.insts.iter().chain(&b.term).rev() {
                step(i, &mut live);
            }
            if live != live_in[bi] {
                live_in[bi] = live;
                changed = true;
            }
        }
    }
    live_in
}

/// Liveness backwards over one instruction. A guarded instruction may leave its results
/// unwritten, so its definitions do not end the old values' lives.
fn step(i: &MInst, live: &mut BTreeSet<VReg>) {
    if i.guard.is_none() {
        for d in i.defs() {
            if d.sub.is_none() {
                live.remove(&d.vreg);
            }
        }
    }
    for u in i.uses() {
        live.insert(u.vreg);
    }
}

/// Assigns physical registers to every virtual register of `mf` (phis eliminated).
pub fn assign(mf: &MFunc) -> Result<Assignment, CompileError> {
    let live_in = liveness(mf);
    let nv = mf.vregs.len();
    let mut edges: Vec<BTreeSet<VReg>> = vec![BTreeSet::new(); nv];
    let succs: Vec<Vec<MBlock>> = mf.blocks.iter().map(|b| b.succs()).collect();
    let add = |a: VReg, b: VReg, edges: &mut Vec<BTreeSet<VReg>>| {
        if a != b && mf.info(a).class == mf.info(b).class {
            edges[a.0 as usize].insert(b);
            edges[b.0 as usize].insert(a);
        }
    };
    let mut seen = vec![false; nv];
    for (bi, b) in mf.blocks.iter().enumerate() {
        let mut live: BTreeSet<VReg> = BTreeSet::new();
        for s in &succs[bi] {
            live.extend(live_in[s.0 as usize].iter().copied());
        }
        for i in b.insts.iter().chain(&b.term).rev() {
            let defs: Vec<VReg> = i.defs().map(|d| d.vreg).collect();
            for &d in &defs {
                seen[d.0 as usize] = true;
                for &l in &live {
                    add(d, l, &mut edges);
                }
                for &e in &defs {
                    add(d, e, &mut edges);
                }
                // Sources read by the instruction and its results are different registers
                // only where the SASS operation needs it; reading and writing one register
                // in one instruction is fine, so no edge from defs to uses here, except
                // for a pair construction, written as two MOVs (the first must not
                // overwrite the second's source).
                if i.is_pack() {
                    for u in i.uses() {
                        add(d, u.vreg, &mut edges);
                    }
                }
            }
            step(i, &mut live);
            for u in i.uses() {
                seen[u.vreg.0 as usize] = true;
            }
        }
        // Registers live into the entry (read before written on some path) meet every
        // other register live there.
        if bi == 0 {
            let v: Vec<VReg> = live.iter().copied().collect();
            for &a in &v {
                for &c in &v {
                    add(a, c, &mut edges);
                }
            }
        }
    }
    let mut phys = vec![0u8; nv];
    let mut done = vec![false; nv];
    let mut gprs = 0u32;
    let mut barriers = 0u32;
    for v in 0..nv {
        if !seen[v] {
            continue;
        }
        let info = mf.vregs[v];
        let (limit, what): (u32, &'static str) = match info.class {
            RegClass::R => (255, "general registers"),
            RegClass::P => (7, "predicates"),
            RegClass::Ur => (63, "uniform registers"),
            RegClass::Up => (7, "uniform predicates"),
            RegClass::B => (16, "convergence barriers"),
        };
        let w = info.width as u32;
        let mut taken = vec![false; limit as usize + 4];
        for n in &edges[v] {
            let ni = n.0 as usize;
            if done[ni] {
                let nw = mf.vregs[ni].width as usize;
                for k in 0..nw {
                    if let Some(t) = taken.get_mut(phys[ni] as usize + k) {
                        *t = true;
                    }
                }
            }
        }
        let mut pick = None;
        let mut base = 0u32;
        while base + w <= limit {
            let free = (base..base + w).all(|k| {
                let reserved = (info.class == RegClass::R && RESERVED_R.contains(&(k as u8)))
                    // UR4:UR5 hold the global memory descriptor.
                    || (info.class == RegClass::Ur && (k == 4 || k == 5));
                !taken[k as usize] && !reserved
            });
            if free {
                pick = Some(base);
                break;
            }
            base += w;
        }
        let Some(base) = pick else {
            return Err(CompileError::Registers { what, limit });
        };
        phys[v] = base as u8;
        done[v] = true;
        match info.class {
            RegClass::R => gprs = gprs.max(base + w),
            RegClass::B => barriers = barriers.max(base + 1),
            _ => {}
        }
    }
    Ok(Assignment {
        phys,
        gprs: gprs.max(2),
        barriers,
    })
}
