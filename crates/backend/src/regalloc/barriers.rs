//! Barrier values in SSA form for the allocator. In the machine form a convergence barrier
//! is one virtual register: `BSSY` defines it, `BSYNC` reads it, and `BREAK` *changes it in
//! place* (the breaking lanes leave it) while reading it. The allocator relies on values
//! never changing (a spill copy taken before a `BREAK` and restored after would undo it), so
//! each `BREAK` becomes a new value tied to the register it reads (`docs/regalloc.md`, "What
//! the client must say"), and joins of paths with different versions get phis.
//!
//! This is SSA construction for the barrier registers that some `BREAK` updates: phis at the
//! iterated dominance frontier of their definitions, where the barrier is live (pruned SSA,
//! so no phi reads a version a path does not define), then renaming along the dominator
//! tree. Other registers are already SSA and map to themselves.

use std::collections::HashMap;

use tangle_sass::Op;

use crate::error::CompileError;
use crate::mir::{MFunc, MOpnd, RegClass, VReg};

/// The barrier versions of a function: which allocator value each barrier operand reads or
/// writes, and the phis that join versions.
#[derive(Clone, Debug, Default)]
pub struct BarrierSsa {
    /// `(block, instruction, operand)` of a barrier use → its version (only for barriers some
    /// `BREAK` updates; others read their own register).
    pub uses: HashMap<(usize, usize, usize), u32>,
    /// `(block, instruction)` of a `BREAK` → the version it defines.
    pub break_defs: HashMap<(usize, usize), u32>,
    /// Per block, its barrier phis: the version defined and, per predecessor in the order of
    /// [`MFunc::preds`], the version it brings.
    pub phis: Vec<Vec<(u32, Vec<u32>)>>,
    /// Versions created here are numbered from the function's register count on; this many.
    pub extra: u32,
}

/// Builds the barrier versions of `mf` (critical edges already split).
pub fn build(mf: &MFunc) -> Result<BarrierSsa, CompileError> {
    let n = mf.blocks.len();
    let nv = mf.vregs.len();
    let mut out = BarrierSsa {
        phis: vec![Vec::new(); n],
        ..BarrierSsa::default()
    };
    // The barriers some BREAK updates, each given a dense index.
    let mut vars: HashMap<VReg, usize> = HashMap::new();
    let mut var_regs: Vec<VReg> = Vec::new();
    for b in &mf.blocks {
        for i in b.insts.iter().chain(&b.term) {
            if i.op == Op::Break {
                if let Some(u) = i.uses().find(|u| mf.info(u.vreg).class == RegClass::B) {
                    vars.entry(u.vreg).or_insert_with(|| {
                        var_regs.push(u.vreg);
                        var_regs.len() - 1
                    });
                }
            }
        }
    }
    if vars.is_empty() {
        return Ok(out);
    }
    let nvars = var_regs.len();
    let preds = mf.preds();
    let succs: Vec<Vec<usize>> = mf
        .blocks
        .iter()
        .map(|b| b.succs().iter().map(|s| s.0 as usize).collect())
        .collect();
    let (rpo, idom) = dominators(n, &succs, &preds);

    // Liveness of each barrier: read before its BSSY in a block, or live out and not set.
    let mut gen = vec![vec![false; nvars]; n];
    let mut kill = vec![vec![false; nvars]; n];
    let mut defs_in: Vec<Vec<usize>> = vec![Vec::new(); nvars];
    for (bi, b) in mf.blocks.iter().enumerate() {
        for i in b.insts.iter().chain(&b.term) {
            for u in i.uses() {
                if let Some(&x) = vars.get(&u.vreg) {
                    if !kill[bi][x] {
                        gen[bi][x] = true;
                    }
                }
            }
            for d in i.defs() {
                if let Some(&x) = vars.get(&d.vreg) {
                    kill[bi][x] = true;
                    defs_in[x].push(bi);
                }
            }
            if i.op == Op::Break {
                for u in i.uses() {
                    if let Some(&x) = vars.get(&u.vreg) {
                        defs_in[x].push(bi);
                    }
                }
            }
        }
    }
    let mut live_in = gen.clone();
    let mut changed = true;
    while changed {
        changed = false;
        for &b in rpo.iter().rev() {
            for x in 0..nvars {
                if live_in[b][x] || kill[b][x] {
                    continue;
                }
                if succs[b].iter().any(|&s| live_in[s][x]) {
                    live_in[b][x] = true;
                    changed = true;
                }
            }
        }
    }

    // Dominance frontiers (Cooper, Harvey and Kennedy), then phis at the iterated frontier.
    let mut frontier: Vec<Vec<usize>> = vec![Vec::new(); n];
    for b in 0..n {
        if preds[b].len() < 2 || idom[b] == usize::MAX {
            continue;
        }
        for p in &preds[b] {
            let mut runner = p.0 as usize;
            while runner != idom[b] && runner != usize::MAX {
                if !frontier[runner].contains(&b) {
                    frontier[runner].push(b);
                }
                runner = idom[runner];
            }
        }
    }
    let mut next_version = nv as u32;
    // phi_of[block][var]: the version its phi defines.
    let mut phi_of: Vec<HashMap<usize, u32>> = vec![HashMap::new(); n];
    for x in 0..nvars {
        let mut work = defs_in[x].clone();
        let mut has_phi = vec![false; n];
        while let Some(b) = work.pop() {
            for &f in &frontier[b] {
                if !has_phi[f] && live_in[f][x] {
                    has_phi[f] = true;
                    phi_of[f].insert(x, next_version);
                    next_version += 1;
                    work.push(f);
                }
            }
        }
    }

    // Renaming along the dominator tree (iteratively: trees can be deep).
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &b in &rpo {
        if b != 0 && idom[b] != usize::MAX {
            children[idom[b]].push(b);
        }
    }
    let mut phi_srcs: Vec<HashMap<usize, Vec<Option<u32>>>> = phi_of
        .iter()
        .enumerate()
        .map(|(b, m)| m.keys().map(|&x| (x, vec![None; preds[b].len()])).collect())
        .collect();
    let mut current: Vec<Vec<u32>> = vec![Vec::new(); nvars];
    enum Step {
        Enter(usize),
        Leave(Vec<usize>),
    }
    let mut stack = vec![Step::Enter(0)];
    while let Some(step) = stack.pop() {
        let b = match step {
            Step::Enter(b) => b,
            Step::Leave(pushed) => {
                for x in pushed {
                    current[x].pop();
                }
                continue;
            }
        };
        let mut pushed = Vec::new();
        for (&x, &v) in &phi_of[b] {
            current[x].push(v);
            pushed.push(x);
        }
        let block = &mf.blocks[b];
        for (k, i) in block.insts.iter().chain(&block.term).enumerate() {
            for (j, o) in i.opnds.iter().enumerate() {
                if let MOpnd::Use { r, .. } = o {
                    if let Some(&x) = vars.get(&r.vreg) {
                        let v = *current[x].last().ok_or_else(|| {
                            CompileError::Internal(format!(
                                "barrier {} read in .B{b} where no path sets it",
                                mf.reg_text(r.vreg.into())
                            ))
                        })?;
                        out.uses.insert((b, k, j), v);
                    }
                }
            }
            if i.op == Op::Break {
                if let Some(x) = i.uses().find_map(|u| vars.get(&u.vreg).copied()) {
                    out.break_defs.insert((b, k), next_version);
                    current[x].push(next_version);
                    pushed.push(x);
                    next_version += 1;
                }
            }
            for d in i.defs() {
                if let Some(&x) = vars.get(&d.vreg) {
                    current[x].push(d.vreg.0);
                    pushed.push(x);
                }
            }
        }
        for &s in &succs[b] {
            let slot = preds[s].iter().position(|p| p.0 as usize == b);
            for (&x, srcs) in phi_srcs[s].iter_mut() {
                if let (Some(slot), Some(&v)) = (slot, current[x].last()) {
                    srcs[slot] = Some(v);
                }
            }
        }
        stack.push(Step::Leave(pushed));
        for &c in children[b].iter().rev() {
            stack.push(Step::Enter(c));
        }
    }
    for b in 0..n {
        let mut list: Vec<(usize, u32)> = phi_of[b].iter().map(|(&x, &v)| (x, v)).collect();
        list.sort();
        for (x, v) in list {
            let srcs = phi_srcs[b][&x]
                .iter()
                .map(|s| {
                    s.ok_or_else(|| {
                        CompileError::Internal(format!(
                            "barrier {} is live into .B{b} but not set on every path",
                            mf.reg_text(var_regs[x].into())
                        ))
                    })
                })
                .collect::<Result<Vec<u32>, _>>()?;
            out.phis[b].push((v, srcs));
        }
    }
    out.extra = next_version - nv as u32;
    Ok(out)
}

/// The reverse post-order of the blocks reachable from block 0 and each block's immediate
/// dominator (`usize::MAX` for the entry and unreachable blocks), by the iterative algorithm
/// of Cooper, Harvey and Kennedy.
pub fn dominators(
    n: usize,
    succs: &[Vec<usize>],
    preds: &[Vec<crate::mir::MBlock>],
) -> (Vec<usize>, Vec<usize>) {
    let mut seen = vec![false; n];
    let mut post = Vec::with_capacity(n);
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    seen[0] = true;
    while let Some((b, k)) = stack.pop() {
        if let Some(&s) = succs[b].get(k) {
            stack.push((b, k + 1));
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
        }
    }
    let rpo: Vec<usize> = post.into_iter().rev().collect();
    let mut order = vec![usize::MAX; n];
    for (i, &b) in rpo.iter().enumerate() {
        order[b] = i;
    }
    let mut idom = vec![usize::MAX; n];
    idom[0] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for &b in rpo.iter().skip(1) {
            let mut new = usize::MAX;
            for p in &preds[b] {
                let p = p.0 as usize;
                if idom[p] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX {
                    p
                } else {
                    let (mut x, mut y) = (p, new);
                    while x != y {
                        while order[x] > order[y] {
                            x = idom[x];
                        }
                        while order[y] > order[x] {
                            y = idom[y];
                        }
                    }
                    x
                };
            }
            if new != usize::MAX && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom[0] = usize::MAX;
    (rpo, idom)
}
