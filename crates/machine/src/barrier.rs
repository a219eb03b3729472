//! The warp-barrier operations, as `../shared/barrier-semantics.md` §(a) models NVIDIA's
//! convergence barriers, with each lane holding its own copy of every barrier value:
//!
//! - `bar_set vB` (BSSY): every lane of the issuing group sets its copy of `vB` to the
//!   group's mask and clears its break flag;
//! - `bar_sync vB` (BSYNC): a lane whose break flag is set falls through; the others wait,
//!   each with the mask its copy holds *now* (captured: later changes do not move it);
//! - `bar_break vB, c` (BREAK): the lanes with `c` true leave the copies of every lane of
//!   the issuing group and set their own break flags; lanes elsewhere keep the old mask;
//! - `exit c` (EXIT): the lanes with `c` true end.
//!
//! A waiting lane is released when every lane of its captured mask (1) waits at the same
//! program point, (2) has ended, or (3) has its break flag for that barrier set. Lanes
//! released together leave as one group: the only place groups merge (`strict`).

use tangle_ir::{InstData, Operand, Value};
use tangle_lanes::value::OpFail;
use tangle_lanes::{lanes_of, Mask};
use tangle_sched::Event;

use crate::error::R;
use crate::exec::Issued;
use crate::state::{BarCopy, Group, Pc, Run, Status, Subgroup};

impl Run<'_, '_> {
    /// The barrier value an operand names.
    fn barrier_operand(&self, pc: Pc, o: Operand) -> R<Value> {
        match o {
            Operand::Value(v) => Ok(v),
            _ => Err(self.fail(
                pc,
                OpFail::Internal("a barrier operand is not an SSA value".into()),
            )),
        }
    }

    /// The error for `lane` using barrier `v` without a copy of it.
    fn no_copy(&self, pc: Pc, lane: usize, v: Value) -> crate::error::MachineError {
        self.fail(
            pc,
            OpFail::Undefined(format!("lane {lane} uses barrier {v}, which it never set")),
        )
    }

    /// `bar_set`.
    pub(crate) fn bar_set(&mut self, sg: &mut Subgroup, mut g: Group, id: &InstData) -> R<Issued> {
        let pc = g.pc();
        let value = id.result.expect("bar_set has a result");
        let depth = g.frames.len() - 1;
        for lane in lanes_of(g.mask) {
            let l = &mut sg.lanes[lane];
            let copy = BarCopy {
                depth,
                func: pc.func,
                value,
                mask: g.mask,
                broke: false,
            };
            match l.bar_mut(depth, pc.func, value) {
                Some(c) => *c = copy,
                None => l.bars.push(copy),
            }
        }
        self.stats.set += 1;
        // A cleared break flag can stop a waiter's release (rule 3) — never start one.
        g.pc_mut().idx += 1;
        Ok(Issued::on(Event::Instruction, g))
    }

    /// `bar_sync`.
    pub(crate) fn bar_sync(&mut self, sg: &mut Subgroup, g: Group, id: &InstData) -> R<Issued> {
        let pc = g.pc();
        let value = self.barrier_operand(pc, id.args[0])?;
        let depth = g.frames.len() - 1;
        let (mut through, mut waiting): (Mask, Mask) = (0, 0);
        for lane in lanes_of(g.mask) {
            let copy = *sg.lanes[lane]
                .bar(depth, pc.func, value)
                .ok_or_else(|| self.no_copy(pc, lane, value))?;
            if copy.broke {
                through |= 1 << lane;
            } else {
                sg.lanes[lane].wait = copy.mask;
                waiting |= 1 << lane;
            }
        }
        self.stats.sync += 1;
        let mut on = g.clone();
        on.mask = through;
        on.pc_mut().idx += 1;
        if waiting == 0 {
            return Ok(Issued::on(Event::Instruction, on));
        }
        match sg
            .groups
            .iter_mut()
            .find(|w| w.status == Status::Sync && w.frames == g.frames)
        {
            Some(w) => w.mask |= waiting,
            None => sg.groups.push(Group {
                mask: waiting,
                status: Status::Sync,
                ..g
            }),
        }
        self.release(sg);
        Ok(Issued::on(Event::Blocked, on))
    }

    /// `bar_break`.
    pub(crate) fn bar_break(
        &mut self,
        sg: &mut Subgroup,
        mut g: Group,
        id: &InstData,
    ) -> R<Issued> {
        let pc = g.pc();
        let value = self.barrier_operand(pc, id.args[0])?;
        let depth = g.frames.len() - 1;
        let mut breakers: Mask = 0;
        for lane in lanes_of(g.mask) {
            if self.condition(sg, pc, lane, id.args[1], "bar_break condition")? {
                breakers |= 1 << lane;
            }
        }
        for lane in lanes_of(g.mask) {
            let copy = sg.lanes[lane]
                .bar_mut(depth, pc.func, value)
                .ok_or_else(|| self.no_copy(pc, lane, value))?;
            copy.mask &= !breakers;
            if breakers >> lane & 1 != 0 {
                copy.broke = true;
            }
        }
        self.stats.brk += 1;
        g.pc_mut().idx += 1;
        if breakers != 0 {
            self.release(sg);
        }
        Ok(Issued::on(Event::Instruction, g))
    }

    /// `exit`.
    pub(crate) fn exit_op(&mut self, sg: &mut Subgroup, mut g: Group, id: &InstData) -> R<Issued> {
        let pc = g.pc();
        let mut ending: Mask = 0;
        for lane in lanes_of(g.mask) {
            if self.condition(sg, pc, lane, id.args[0], "exit condition")? {
                ending |= 1 << lane;
            }
        }
        self.stats.exit += 1;
        g.pc_mut().idx += 1;
        if ending == 0 {
            return Ok(Issued::on(Event::Instruction, g));
        }
        self.end_lanes(sg, &mut g, ending);
        Ok(Issued::on(Event::Exited, g))
    }

    /// The lanes of a waiting group whose release rule holds, and the lanes they still
    /// wait for (for reports).
    pub(crate) fn releasable(&self, sg: &Subgroup, w: &Group) -> (Mask, Mask) {
        let pc = w.pc();
        let depth = w.frames.len() - 1;
        let m = self.machine.module;
        let inst = m.funcs[pc.func].blocks[pc.block].insts[pc.idx];
        let Some(Operand::Value(value)) = m.funcs[pc.func].insts[inst].args.first().copied() else {
            return (0, 0);
        };
        let (mut released, mut missing): (Mask, Mask) = (0, 0);
        for lane in lanes_of(w.mask) {
            let absent = lanes_of(sg.lanes[lane].wait & !w.mask).filter(|&j| {
                !sg.exited(j)
                    && !sg.lanes[j]
                        .bar(depth, pc.func, value)
                        .is_some_and(|c| c.broke)
            });
            let mut ok = true;
            for j in absent {
                ok = false;
                missing |= 1 << j;
            }
            if ok {
                released |= 1 << lane;
            }
        }
        (released, missing)
    }

    /// Whether `g`, about to issue the `bar_sync` at its pc, would release any lane there
    /// (its own lanes included) if it arrived now.
    pub(crate) fn arrival_releases(&self, sg: &Subgroup, g: &Group) -> bool {
        let pc = g.pc();
        let depth = g.frames.len() - 1;
        let m = self.machine.module;
        let inst = m.funcs[pc.func].blocks[pc.block].insts[pc.idx];
        let Some(Operand::Value(value)) = m.funcs[pc.func].insts[inst].args.first().copied() else {
            return true;
        };
        // Who would wait there, and with which captured mask.
        let mut waiters: Vec<(usize, Mask)> = Vec::new();
        if let Some(w) = sg
            .groups
            .iter()
            .find(|w| w.status == Status::Sync && w.frames == g.frames)
        {
            waiters.extend(lanes_of(w.mask).map(|l| (l, sg.lanes[l].wait)));
        }
        for lane in lanes_of(g.mask) {
            match sg.lanes[lane].bar(depth, pc.func, value) {
                Some(c) if !c.broke => waiters.push((lane, c.mask)),
                Some(_) => {}
                None => return true,
            }
        }
        let at: Mask = waiters.iter().fold(0, |m, (l, _)| m | 1 << l);
        waiters.iter().any(|&(_, w)| {
            lanes_of(w & !at).all(|j| {
                sg.exited(j)
                    || sg.lanes[j]
                        .bar(depth, pc.func, value)
                        .is_some_and(|c| c.broke)
            })
        })
    }

    /// Releases every waiter whose rule holds; the lanes released at one `bar_sync` leave
    /// it as one group.
    pub(crate) fn release(&mut self, sg: &mut Subgroup) {
        let mut i = 0;
        while i < sg.groups.len() {
            if sg.groups[i].status == Status::Sync {
                let (released, _) = self.releasable(sg, &sg.groups[i]);
                if released != 0 {
                    let w = &mut sg.groups[i];
                    w.mask &= !released;
                    let mut out = w.clone();
                    out.mask = released;
                    out.status = Status::Ready;
                    out.pc_mut().idx += 1;
                    out.last_issued = self.steps;
                    sg.groups.push(out);
                    if sg.groups[i].mask == 0 {
                        sg.groups.swap_remove(i);
                        continue;
                    }
                }
            }
            i += 1;
        }
    }
}
