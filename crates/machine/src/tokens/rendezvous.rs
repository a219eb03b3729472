//! Issuing token operations and subgroup operations on the token engine, and releasing the
//! lanes that wait at a rendezvous.
//!
//! - `conv_entry` and `conv_loop` compute each lane's key from its own state and go on;
//! - a controlled call keys the callee's frame by the call's token instance;
//! - a subgroup operation: the group's lanes split by the key of the operation's token and
//!   wait (status [`Status::Token`]) with every lane already waiting there with that key;
//! - `conv_anchor`: the lanes wait by call frame.
//!
//! A waiting group is released when no other live lane of the subgroup may still arrive
//! there with its key (`reach.rs`): the subgroup operation then runs over exactly its lanes,
//! or the anchor gives them one fresh key. Releases are tried when no group of the subgroup
//! can issue, so every lane that can move has moved; the result does not depend on the
//! schedule. When no group of the whole workgroup can move and some wait at an anchor, the
//! anchor's maximal choice cannot be had (each waits for lanes that wait elsewhere): the
//! waiting anchor group with the lowest subgroup and lane goes with the lanes it has
//! ([`Run::release_anchor`]), the implementation-defined choice that keeps the run going.

use tangle_ir::{Inst, Op, TangleOp};
use tangle_lanes::value::OpFail;
use tangle_lanes::{lanes_of, Mask};
use tangle_sched::Event;

use super::keys::{KeyData, KeyId};
use crate::error::R;
use crate::exec::Issued;
use crate::state::{Group, Pc, Run, Status, Subgroup};

/// Whether the token engine issues `op` itself: the token operations and the subgroup
/// operations.
pub(crate) fn handles(op: &Op) -> bool {
    matches!(
        op,
        Op::Group { .. }
            | Op::Tangle(TangleOp::ConvEntry | TangleOp::ConvAnchor | TangleOp::ConvLoop)
    )
}

impl Run<'_, '_> {
    /// The key of token value `v` for `lane` at `pc`.
    fn token_key(&self, sg: &Subgroup, pc: Pc, lane: usize, v: tangle_ir::Value) -> R<KeyId> {
        sg.lanes[lane]
            .frames
            .last()
            .expect("frame")
            .tok
            .value(v)
            .ok_or_else(|| {
                self.fail(
                    pc,
                    OpFail::Undefined(format!("token {v} used before it is defined")),
                )
            })
    }

    /// Issues token operation or subgroup operation `inst` for `g` (see [`handles`]).
    pub(crate) fn token_issue(&mut self, sg: &mut Subgroup, mut g: Group, inst: Inst) -> R<Issued> {
        let pc = g.pc();
        let m = self.machine.module;
        let id = &m.funcs[pc.func].insts[inst];
        match id.op {
            Op::Tangle(TangleOp::ConvEntry) => {
                let res = id.result.expect("conv_entry has a result");
                for lane in lanes_of(g.mask) {
                    let tf = &mut sg.lanes[lane].frames.last_mut().expect("frame").tok;
                    let k = self.tokens.intern(KeyData::Entry { frame: tf.frame });
                    tf.set(res, k);
                }
            }
            Op::Tangle(TangleOp::ConvLoop) => {
                let res = id.result.expect("conv_loop has a result");
                let parent = id.conv.ok_or_else(|| {
                    self.fail(pc, OpFail::Internal("conv_loop without a token".into()))
                })?;
                for lane in lanes_of(g.mask) {
                    let p = self.token_key(sg, pc, lane, parent)?;
                    let tf = &mut sg.lanes[lane].frames.last_mut().expect("frame").tok;
                    let count = tf.bump(inst, p);
                    let k = self.tokens.intern(KeyData::Loop {
                        func: pc.func,
                        inst,
                        parent: p,
                        count,
                    });
                    tf.set(res, k);
                }
            }
            Op::Tangle(TangleOp::ConvAnchor) => {
                let mut by_key: Vec<(KeyId, Mask)> = Vec::new();
                for lane in lanes_of(g.mask) {
                    let f = sg.lanes[lane].frames.last().expect("frame").tok.frame;
                    add(&mut by_key, f, lane);
                }
                return Ok(self.arrive(sg, &g, by_key));
            }
            Op::Group { .. } => {
                let Some(t) = id.conv else {
                    return Err(self.fail(
                        pc,
                        OpFail::Unsupported(
                            "a subgroup operation without a token on the token engine".into(),
                        ),
                    ));
                };
                let mut by_key: Vec<(KeyId, Mask)> = Vec::new();
                for lane in lanes_of(g.mask) {
                    let k = self.token_key(sg, pc, lane, t)?;
                    add(&mut by_key, k, lane);
                }
                return Ok(self.arrive(sg, &g, by_key));
            }
            _ => unreachable!("token_issue on an operation it does not handle"),
        }
        g.pc_mut().idx += 1;
        Ok(Issued::on(Event::Instruction, g))
    }

    /// Puts the lanes of `g` (by key) into the waiting groups at its point.
    fn arrive(&mut self, sg: &mut Subgroup, g: &Group, by_key: Vec<(KeyId, Mask)>) -> Issued {
        for (k, mask) in by_key {
            match sg
                .groups
                .iter_mut()
                .find(|w| w.status == Status::Token(k) && w.frames == g.frames)
            {
                Some(w) => w.mask |= mask,
                None => sg.groups.push(Group {
                    mask,
                    status: Status::Token(k),
                    ..g.clone()
                }),
            }
        }
        Issued {
            event: Event::Blocked,
            cont: None,
        }
    }

    /// Keys the frames the lanes `mask` just entered by call `inst` at `pc`: a controlled
    /// call by its token's instance, an uncontrolled one (of a non-convergent function)
    /// per lane.
    pub(crate) fn token_call(
        &mut self,
        sg: &mut Subgroup,
        pc: Pc,
        mask: Mask,
        inst: Inst,
    ) -> R<()> {
        let conv = self.machine.module.funcs[pc.func].insts[inst].conv;
        for lane in lanes_of(mask) {
            let n = sg.lanes[lane].frames.len();
            let caller = &sg.lanes[lane].frames[n - 2].tok;
            let key = match conv {
                Some(t) => {
                    let kc = caller.value(t).ok_or_else(|| {
                        self.fail(
                            pc,
                            OpFail::Undefined(format!("token {t} used before it is defined")),
                        )
                    })?;
                    KeyData::Call {
                        func: pc.func,
                        inst,
                        token: kc,
                    }
                }
                None => KeyData::Alone {
                    serial: self.tokens.serial(),
                    depth: (n - 1) as u32,
                },
            };
            let k = self.tokens.intern(key);
            sg.lanes[lane].frames[n - 1].tok.frame = k;
        }
        Ok(())
    }

    /// The lanes outside `w` (a group waiting at a rendezvous) that may still arrive there
    /// with its key.
    pub(crate) fn token_missing(&self, sg: &Subgroup, w: &Group) -> Mask {
        let Status::Token(k) = w.status else {
            return 0;
        };
        let pc = w.pc();
        let m = self.machine.module;
        let inst = m.funcs[pc.func].blocks[pc.block].insts[pc.idx];
        let id = &m.funcs[pc.func].insts[inst];
        let (frame, token) = match id.op {
            Op::Tangle(TangleOp::ConvAnchor) => (k, None),
            _ => match id.conv {
                Some(v) => (self.tokens.frame_of(k), Some((v, k))),
                None => return 0,
            },
        };
        let at = (pc.block, pc.idx);
        let mut missing: Mask = 0;
        for o in &sg.groups {
            if std::ptr::eq(o, w) {
                continue;
            }
            for lane in lanes_of(o.mask) {
                if !sg.exited(lane)
                    && self.may_arrive(sg, lane, &o.frames, pc.func, at, frame, token)
                {
                    missing |= 1 << lane;
                }
            }
        }
        missing
    }

    /// Releases every waiting group no other lane may still join; returns whether any
    /// went.
    pub(crate) fn token_release(&mut self, sg: &mut Subgroup) -> R<bool> {
        let mut any = false;
        let mut i = 0;
        while i < sg.groups.len() {
            if matches!(sg.groups[i].status, Status::Token(_))
                && self.token_missing(sg, &sg.groups[i]) == 0
            {
                self.release_group(sg, i)?;
                any = true;
            }
            i += 1;
        }
        Ok(any)
    }

    /// Lets waiting group `i` go: runs its subgroup operation over its lanes, or gives the
    /// anchor's lanes one fresh key.
    fn release_group(&mut self, sg: &mut Subgroup, i: usize) -> R<()> {
        let w = sg.groups[i].clone();
        let Status::Token(k) = w.status else {
            return Ok(());
        };
        let pc = w.pc();
        let m = self.machine.module;
        let inst = m.funcs[pc.func].blocks[pc.block].insts[pc.idx];
        let id = &m.funcs[pc.func].insts[inst];
        self.steps += 1;
        self.lane_steps += u64::from(w.mask.count_ones());
        match id.op {
            Op::Tangle(TangleOp::ConvAnchor) => {
                let serial = self.tokens.serial();
                let key = self.tokens.intern(KeyData::Anchor {
                    func: pc.func,
                    inst,
                    frame: k,
                    serial,
                });
                let res = id.result.expect("conv_anchor has a result");
                for lane in lanes_of(w.mask) {
                    sg.lanes[lane]
                        .frames
                        .last_mut()
                        .expect("frame")
                        .tok
                        .set(res, key);
                }
            }
            _ => self.group_op(sg, pc, w.mask, inst)?,
        }
        let g = &mut sg.groups[i];
        g.status = Status::Ready;
        g.pc_mut().idx += 1;
        g.last_issued = self.steps;
        Ok(())
    }

    /// When nothing in the workgroup can move: releases the waiting anchor group with the
    /// lowest subgroup and lane, if there is one.
    pub(crate) fn release_anchor(&mut self, sgs: &mut [Subgroup]) -> R<bool> {
        let m = self.machine.module;
        for sg in sgs.iter_mut() {
            let pick = (0..sg.groups.len())
                .filter(|&i| {
                    let g = &sg.groups[i];
                    let pc = g.pc();
                    matches!(g.status, Status::Token(_))
                        && m.funcs[pc.func].blocks[pc.block]
                            .insts
                            .get(pc.idx)
                            .is_some_and(|&x| {
                                matches!(
                                    m.funcs[pc.func].insts[x].op,
                                    Op::Tangle(TangleOp::ConvAnchor)
                                )
                            })
                })
                .min_by_key(|&i| sg.groups[i].mask.trailing_zeros());
            if let Some(i) = pick {
                self.release_group(sg, i)?;
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// Adds `lane` to the mask of `key` in `by_key`.
fn add(by_key: &mut Vec<(KeyId, Mask)>, key: KeyId, lane: usize) {
    match by_key.iter_mut().find(|(k, _)| *k == key) {
        Some(e) => e.1 |= 1 << lane,
        None => by_key.push((key, 1 << lane)),
    }
}
