//! Waiting and release at convergence barriers (`BSYNC`), warp synchronisation
//! (`WARPSYNC`, `WARPSYNC.COLLECTIVE`) and block barriers (`BAR.SYNC`), exactly as
//! `../shared/barrier-semantics.md` §(a) states them, with the three rejected rules as
//! [`BarrierModel`] variants.
//!
//! A BSYNC waiter ℓ at `p` on `Bk` with captured mask W is released when every lane j of
//! W (1) waits at the BSYNC at `p` with ℓ in its own captured mask, (2) has exited, (3) has its break flag for `k` set, or
//! (4) is yielded — rule 4 only when the policy grants the yield-release (a
//! nondeterministic choice, [`BlockRun::grant_yield_release`]), and then `brk[j][k]` is set
//! for those j. Released lanes leave at `p+16` as one new group. Groups merge nowhere
//! else.

use tangle_sched::Event;

use crate::control::regroup_parts;
use crate::engine::{BarrierModel, BlockRun};
use crate::error::SimError;
use crate::kernel::Slot;
use crate::memory::Global;
use crate::operands::Cx;
use crate::warp::{lanes, Lane, Status, Warp};

/// How lane `j` stands towards a BSYNC waiter at `p` on `Bk`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stand {
    Arrived,
    Yielded,
    Missing,
}

fn stand(w: &Warp, model: BarrierModel, waiter: usize, j: usize, p: u32, k: u8) -> Stand {
    let lane = w.lanes[j];
    let arrived = match lane.status {
        // Rule 1, refined for recursion: j waits at the same BSYNC *and counts the waiter
        // in its own captured mask* (a recursive call waits at the same address with a
        // narrower mask; see docs/sim.md).
        Status::WaitB { w: wj, .. } if lane.pc == p && wj >> waiter & 1 == 1 => true,
        Status::Exited => true,
        _ if w.brk[k as usize] >> j & 1 == 1 => true,
        Status::WaitB { .. } | Status::WaitW { .. } | Status::WaitBar
            if model == BarrierModel::BlockedAnywhere =>
        {
            true
        }
        _ if model == BarrierModel::NotInOwnCopy && w.bget(j, k) >> j & 1 == 0 => true,
        _ => false,
    };
    if arrived {
        Stand::Arrived
    } else if w.yielded >> j & 1 == 1 {
        Stand::Yielded
    } else {
        Stand::Missing
    }
}

/// `BSYNC Bk` by the active lanes `a` of group `gi`.
pub fn bsync(run: &mut BlockRun<'_>, wi: usize, gi: usize, k: u8, a: u32) -> Event {
    let model = run.opts.model;
    let w = &mut run.warps[wi];
    let g = w.groups[gi];
    let next = g.pc + 16;
    let waiting = a & !w.brk[k as usize];
    if waiting == 0 {
        w.groups[gi].pc = next;
        return Event::Instruction;
    }
    // The whole wait is satisfied by lanes arriving now (and exited or broken ones), and
    // nobody else waits here: the group passes as it is.
    let others_here = lanes(!waiting)
        .any(|j| matches!(w.lanes[j].status, Status::WaitB { .. }) && w.lanes[j].pc == g.pc);
    let passes = !others_here
        && model != BarrierModel::BlockedAnywhere
        && lanes(waiting).all(|l| {
            let need = w.bget(l, k) & !waiting & !w.exited() & !w.brk[k as usize];
            let need = if model == BarrierModel::NotInOwnCopy {
                lanes(need).fold(0, |m, j| {
                    if w.bget(j, k) >> j & 1 == 1 {
                        m | 1 << j
                    } else {
                        m
                    }
                })
            } else {
                need
            };
            need == 0
        });
    if passes {
        w.groups[gi].pc = next;
        return Event::Instruction;
    }
    for l in lanes(waiting) {
        let cap = w.bget(l, k);
        w.lanes[l] = Lane {
            status: Status::WaitB { k, w: cap },
            pc: g.pc,
        };
    }
    regroup_parts(run, wi, gi, &[(g.mask & !waiting, next)], Event::Blocked);
    Event::Blocked
}

/// `WARPSYNC` (plain, `.ALL`, `.EXCLUSIVE`, or `.COLLECTIVE` with target `collective`) by
/// the lanes of `waits`, each with its mask.
pub fn warpsync(
    run: &mut BlockRun<'_>,
    wi: usize,
    gi: usize,
    waits: &[(usize, u32)],
    collective: Option<u32>,
    cb0: &[u8],
    global: &mut Global,
) -> Result<Event, SimError> {
    let w = &run.warps[wi];
    let g = w.groups[gi];
    let next = g.pc + 16;
    let a = waits.iter().fold(0u32, |m, (l, _)| m | 1 << l);
    let exited = w.exited();
    let others_waiting = lanes(!a).any(|j| match w.lanes[j].status {
        Status::WaitW { mask, .. } => mask & a != 0,
        _ => false,
    });
    let alone = waits.iter().all(|&(_, m)| m & !exited & !a == 0);
    if a == 0 || (alone && !others_waiting) {
        if let (Some(t), true) = (collective, a != 0) {
            run_collective(run, wi, &[(g.pc, a)], cb0, global)?;
            let ev = regroup_parts(
                run,
                wi,
                gi,
                &[(a, t), (g.mask & !a, next)],
                Event::Instruction,
            );
            return Ok(ev);
        }
        run.warps[wi].groups[gi].pc = next;
        return Ok(Event::Instruction);
    }
    let w = &mut run.warps[wi];
    for &(l, m) in waits {
        w.lanes[l] = Lane {
            status: Status::WaitW {
                mask: m,
                collective,
            },
            pc: g.pc,
        };
    }
    regroup_parts(run, wi, gi, &[(g.mask & !a, next)], Event::Blocked);
    Ok(Event::Blocked)
}

/// Runs the one-instruction bodies of `WARPSYNC.COLLECTIVE` sites `(site pc, lanes)` as
/// one warp-wide operation.
fn run_collective(
    run: &mut BlockRun<'_>,
    wi: usize,
    sites: &[(u32, u32)],
    cb0: &[u8],
    global: &mut Global,
) -> Result<(), SimError> {
    let kernel = run.kernel;
    let mut parts = Vec::new();
    for &(pc, m) in sites {
        match kernel.code.get(pc as usize / 16 + 1) {
            Some(Slot::Inst(i)) => {
                let a = crate::control::guard_mask(&run.warps[wi], i, m);
                parts.push((&**i, a));
            }
            _ => {
                return Err(SimError::Refused {
                    site: crate::error::Site {
                        block: run.block,
                        warp: wi as u32,
                        lane: None,
                        pc: pc + 16,
                    },
                    reason: "the body of WARPSYNC.COLLECTIVE is not a decodable instruction".into(),
                })
            }
        }
    }
    let block = run.block;
    let BlockRun { warps, shared, .. } = run;
    let mut cx = Cx {
        kernel,
        cb0,
        global,
        shared,
        block,
        warp: wi as u32,
        pc: sites[0].0 + 16,
    };
    if parts.iter().all(|(i, _)| i.op() == tangle_sass::Op::Nop) {
        // `__syncwarp()` at several sites: an empty body.
        return Ok(());
    }
    if !crate::warpops::is_warp_op(parts[0].0.op()) {
        return Err(cx.unsupported(
            parts[0].0,
            "a collective body that is not a warp-wide operation",
        ));
    }
    crate::warpops::exec(&mut cx, &mut warps[wi], &parts)
}

impl BlockRun<'_> {
    /// Releases every waiter whose condition holds after warp `wi` issued, until none does:
    /// BSYNC and WARPSYNC waiters depend only on the lanes of their own warp, block barriers
    /// on every warp.
    pub fn release_all(
        &mut self,
        wi: usize,
        cb0: &[u8],
        global: &mut Global,
    ) -> Result<(), SimError> {
        loop {
            let mut changed = false;
            if self.warps[wi]
                .lanes
                .iter()
                .any(|l| l.status != Status::Ready && l.status != Status::Exited)
            {
                changed |= self.release_bsync(wi);
                changed |= self.release_warpsync(wi, cb0, global)?;
            }
            changed |= self.release_bar();
            if !changed {
                return Ok(());
            }
        }
    }

    fn release_bsync(&mut self, wi: usize) -> bool {
        let model = self.opts.model;
        let w = &self.warps[wi];
        let mut sites: Vec<(u32, u8, u32)> = Vec::new();
        for (l, lane) in w.lanes.iter().enumerate() {
            if let Status::WaitB { k, .. } = lane.status {
                match sites.iter_mut().find(|s| s.0 == lane.pc) {
                    Some(s) => s.2 |= 1 << l,
                    None => sites.push((lane.pc, k, 1 << l)),
                }
            }
        }
        let mut changed = false;
        for (p, k, at_p) in sites {
            let w = &self.warps[wi];
            let (mut plain, mut via_yield, mut yielders) = (0u32, 0u32, 0u32);
            for l in lanes(at_p) {
                let Status::WaitB { w: cap, .. } = w.lanes[l].status else {
                    continue;
                };
                let mut ok = true;
                let mut ys = 0;
                for j in lanes(cap) {
                    match stand(w, model, l, j, p, k) {
                        Stand::Arrived => {}
                        Stand::Yielded => ys |= 1 << j,
                        Stand::Missing => ok = false,
                    }
                }
                if ok && ys == 0 {
                    plain |= 1 << l;
                } else if ok {
                    via_yield |= 1 << l;
                    yielders |= ys;
                }
            }
            let mut released = plain;
            if via_yield != 0 && self.grant_yield_release() {
                released |= via_yield;
                self.warps[wi].brk[k as usize] |= yielders;
            }
            if released != 0 {
                let w = &mut self.warps[wi];
                for l in lanes(released) {
                    w.lanes[l].status = Status::Ready;
                }
                let id = self.gid();
                let step = self.step;
                self.warps[wi].add_group(id, released, p + 16, step);
                changed = true;
            }
        }
        changed
    }

    fn release_warpsync(
        &mut self,
        wi: usize,
        cb0: &[u8],
        global: &mut Global,
    ) -> Result<bool, SimError> {
        let model = self.opts.model;
        let w = &self.warps[wi];
        let exited = w.exited();
        let waiting = w.mask_where(|s| matches!(s, Status::WaitW { .. }));
        if waiting == 0 {
            return Ok(false);
        }
        let blocked = if model == BarrierModel::BlockedAnywhere {
            w.mask_where(|s| !matches!(s, Status::Ready | Status::Exited))
        } else {
            waiting
        };
        let mut released = 0u32;
        for l in lanes(waiting) {
            if let Status::WaitW { mask, .. } = w.lanes[l].status {
                if mask & !exited & !blocked == 0 {
                    released |= 1 << l;
                }
            }
        }
        if released == 0 {
            return Ok(false);
        }
        // Collective lanes run their bodies together, then go to their targets; plain
        // lanes go on after their WARPSYNC, merged by program point.
        let mut coll_sites: Vec<(u32, u32)> = Vec::new();
        let mut dests: Vec<(u32, u32)> = Vec::new();
        for l in lanes(released) {
            let lane = w.lanes[l];
            let (pc, to) = match lane.status {
                Status::WaitW {
                    collective: Some(t),
                    ..
                } => {
                    match coll_sites.iter_mut().find(|s| s.0 == lane.pc) {
                        Some(s) => s.1 |= 1 << l,
                        None => coll_sites.push((lane.pc, 1 << l)),
                    }
                    (lane.pc, t)
                }
                _ => (lane.pc, lane.pc + 16),
            };
            let _ = pc;
            match dests.iter_mut().find(|d| d.1 == to) {
                Some(d) => d.0 |= 1 << l,
                None => dests.push((1 << l, to)),
            }
        }
        for l in lanes(released) {
            self.warps[wi].lanes[l].status = Status::Ready;
        }
        if !coll_sites.is_empty() {
            run_collective(self, wi, &coll_sites, cb0, global)?;
        }
        for (m, pc) in dests {
            let id = self.gid();
            let step = self.step;
            self.warps[wi].add_group(id, m, pc, step);
        }
        Ok(true)
    }

    fn release_bar(&mut self) -> bool {
        if self.bar_waiters == 0 {
            return false;
        }
        let all_there = self.warps.iter().all(|w| {
            w.lanes
                .iter()
                .all(|l| matches!(l.status, Status::WaitBar | Status::Exited))
        });
        let any = self
            .warps
            .iter()
            .any(|w| w.lanes.iter().any(|l| l.status == Status::WaitBar));
        if !all_there || !any {
            return false;
        }
        self.bar_waiters = 0;
        for wi in 0..self.warps.len() {
            let mut dests: Vec<(u32, u32)> = Vec::new();
            for (l, lane) in self.warps[wi].lanes.iter().enumerate() {
                if lane.status == Status::WaitBar {
                    match dests.iter_mut().find(|d| d.1 == lane.pc + 16) {
                        Some(d) => d.0 |= 1 << l,
                        None => dests.push((1 << l, lane.pc + 16)),
                    }
                }
            }
            for (m, pc) in dests {
                for l in lanes(m) {
                    self.warps[wi].lanes[l].status = Status::Ready;
                }
                let id = self.gid();
                let step = self.step;
                self.warps[wi].add_group(id, m, pc, step);
            }
        }
        true
    }
}
