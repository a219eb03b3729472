//! Whether a lane may still arrive at a rendezvous: the question that decides when the
//! lanes waiting there can go (`rendezvous.rs`).
//!
//! A lane *may arrive* at operation `U` (in a call frame with key `F`) with token
//! instance `K` when, from where it stands, some path of the control-flow graph lets it
//! execute `U` while its token value has key `K`:
//!
//! - it holds `K` now and can reach `U` without executing the token's definition `D`
//!   again (executing `D` would replace the value), or
//! - it can still *make* `K` by executing `D`: a `conv_entry` it has not executed yet in
//!   that frame; a `conv_loop` whose parent instance it holds (or may make) and whose
//!   counter has not yet passed `K`'s count; never an anchor, whose keys are made at its
//!   release;
//! - and when the lane is not in frame `F`, it may still make the call that creates `F`
//!   (the same question one frame out, for the call and its token instance).
//!
//! The paths are static (branch conditions are not known in advance), so the answer may
//! be "yes" for a lane that will in fact go elsewhere: the waiters then wait until the lane
//! has moved past every such path. It is never "no" for a lane that will arrive.

use std::collections::HashSet;

use tangle_ir::{Func, Function, Inst, Op, Value, ValueDef};

use super::keys::{KeyData, KeyId, Point, ReachQuery, TokenFrame};
use crate::state::{Pc, Run, Subgroup};

/// Whether, in `f`, control standing at `from` (not yet executed) can come to `to` before
/// executing it, without executing `avoid` on the way.
fn search(f: &Function, from: Point, to: Point, avoid: Option<Point>) -> bool {
    // The first of `to` and `avoid` met in `block` from index `start`, if any.
    let meets = |block, start: usize| -> Option<bool> {
        let t = (to.0 == block && to.1 >= start).then_some(to.1);
        let a = avoid.and_then(|a| (a.0 == block && a.1 >= start).then_some(a.1));
        match (t, a) {
            (Some(t), Some(a)) => Some(t <= a),
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            (None, None) => None,
        }
    };
    if let Some(hit) = meets(from.0, from.1) {
        return hit;
    }
    let mut seen: HashSet<tangle_ir::Block> = HashSet::new();
    let mut work = f.blocks[from.0].term.successors();
    while let Some(b) = work.pop() {
        if !seen.insert(b) {
            continue;
        }
        match meets(b, 0) {
            Some(true) => return true,
            Some(false) => continue,
            None => work.extend(f.blocks[b].term.successors()),
        }
    }
    false
}

impl Run<'_, '_> {
    /// [`search`], cached for the run.
    pub(crate) fn reaches(&self, func: Func, from: Point, to: Point, avoid: Option<Point>) -> bool {
        let q = ReachQuery {
            func,
            from,
            to,
            avoid,
        };
        if let Some(&r) = self.tokens.reach.borrow().get(&q) {
            return r;
        }
        let r = search(&self.module().funcs[func], from, to, avoid);
        self.tokens.reach.borrow_mut().insert(q, r);
        r
    }

    /// Where instruction `inst` of `func` stands.
    pub(crate) fn point(&self, func: Func, inst: Inst) -> Point {
        if let Some(&p) = self.tokens.points.borrow().get(&(func, inst)) {
            return p;
        }
        let f = &self.module().funcs[func];
        let mut found = (f.layout[0], usize::MAX);
        for &b in &f.layout {
            if let Some(i) = f.blocks[b].insts.iter().position(|&x| x == inst) {
                found = (b, i);
                break;
            }
        }
        self.tokens.points.borrow_mut().insert((func, inst), found);
        found
    }

    /// The instruction that defines token value `v` of `func`.
    fn definition(&self, func: Func, v: Value) -> Option<Inst> {
        match self.module().funcs[func].values[v].def {
            ValueDef::Inst(i) => Some(i),
            _ => None,
        }
    }

    /// Whether `lane` (of a group at `frames`) may still execute `u` (at point `at` of
    /// `func`) in the call frame keyed `frame`, with token value `token` holding the key
    /// given — or, for an anchor (`token` `None`), at all.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn may_arrive(
        &self,
        sg: &Subgroup,
        lane: usize,
        frames: &[Pc],
        func: Func,
        at: Point,
        frame: KeyId,
        token: Option<(Value, KeyId)>,
    ) -> bool {
        let l = &sg.lanes[lane];
        let d = self.tokens.depth(frame) as usize;
        if d < l.frames.len() && l.frames[d].tok.frame == frame {
            let pc = frames[d];
            // A caller's frame goes on after its call.
            let pos = if d + 1 == frames.len() {
                (pc.block, pc.idx)
            } else {
                (pc.block, pc.idx + 1)
            };
            let tf = &l.frames[d].tok;
            return match token {
                None => self.reaches(func, pos, at, None),
                Some((v, k)) => self.may_use(tf, func, pos, at, v, k),
            };
        }
        match self.tokens.data(frame) {
            KeyData::Call {
                func: cf,
                inst,
                token: kc,
            } => {
                let Some(v) = self.module().funcs[cf].insts[inst].conv else {
                    return false;
                };
                let p = self.point(cf, inst);
                self.may_arrive(
                    sg,
                    lane,
                    frames,
                    cf,
                    p,
                    self.tokens.frame_of(kc),
                    Some((v, kc)),
                )
            }
            _ => false,
        }
    }

    /// Whether a lane in frame state `tf` at `pos` may execute the operation at `at`
    /// holding key `k` in token value `v`.
    fn may_use(
        &self,
        tf: &TokenFrame,
        func: Func,
        pos: Point,
        at: Point,
        v: Value,
        k: KeyId,
    ) -> bool {
        let Some(def) = self.definition(func, v) else {
            return false;
        };
        let dp = self.point(func, def);
        (tf.value(v) == Some(k) && self.reaches(func, pos, at, Some(dp)))
            || (self.may_define(tf, func, pos, def, k)
                && self.reaches(func, (dp.0, dp.1 + 1), at, Some(dp)))
    }

    /// Whether a lane in frame state `tf` at `pos` may still execute token definition
    /// `def` and get key `k` from it.
    fn may_define(&self, tf: &TokenFrame, func: Func, pos: Point, def: Inst, k: KeyId) -> bool {
        let dp = self.point(func, def);
        let f = &self.module().funcs[func];
        match self.tokens.data(k) {
            KeyData::Entry { frame } => {
                matches!(f.insts[def].op, Op::Tangle(tangle_ir::TangleOp::ConvEntry))
                    && frame == tf.frame
                    && f.insts[def].result.and_then(|r| tf.value(r)).is_none()
                    && self.reaches(func, pos, dp, None)
            }
            KeyData::Loop {
                func: lf,
                inst,
                parent,
                count,
            } if lf == func && inst == def => {
                let Some(pv) = f.insts[def].conv else {
                    return false;
                };
                let Some(pdef) = self.definition(func, pv) else {
                    return false;
                };
                let pp = self.point(func, pdef);
                let next = match tf.count(def) {
                    Some((p, c)) if p == parent => c + 1,
                    _ => 1,
                };
                (tf.value(pv) == Some(parent)
                    && next <= count
                    && self.reaches(func, pos, dp, Some(pp)))
                    || (self.may_define(tf, func, pos, pdef, parent)
                        && self.reaches(func, (pp.0, pp.1 + 1), dp, Some(pp)))
            }
            _ => false,
        }
    }
}
