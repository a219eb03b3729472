//! Phis on block entry: every lane copies the operands of the edge it came in by, all of
//! a lane's phis at once (they read their operands before any is written).
//!
//! An edge whose copies read none of its own results (`EdgePhis::sequential`, decided at
//! decode time) runs each copy as one loop over the lanes that came in by it, with no
//! per-lane search for the edge nor a buffer of the lane's operands. Every other lane (of
//! an edge that reads its own results, of no complete edge, or with an operand not set)
//! takes the general loop, which is the one that reports errors, in lane order as before.

use crate::decode::EdgePhis;
use crate::error::R;
use crate::slot::Slot;
use crate::state::{lanes_of, Run, Subgroup, Tangle};
use crate::value::OpFail;
use crate::Mask;

impl Run<'_, '_> {
    /// Executes a block's phis for every lane, then positions the tangle after them.
    pub(crate) fn enter(&mut self, sg: &mut Subgroup, t: &mut Tangle) -> R<()> {
        let top = t.frames.last_mut().expect("frame");
        top.idx = 0;
        let (func, block) = (top.func, top.block);
        let fi = func.as_u32() as usize;
        let it = self.it;
        let facts = &it.facts[fi];
        let n = facts.phis(block);
        if n > 0 {
            let edges = &facts.edges[block.as_u32() as usize];
            let left = self.phis_by_edge(sg, fi, edges, n, t.mask);
            if left != 0 {
                self.phis_per_lane(sg, t, fi, edges, n, left)?;
            }
            if self.observer.is_some() {
                let f = &self.it.module.funcs[func];
                for &i in &f.blocks[block].insts[..n] {
                    let r = [f.insts[i].result.expect("phi result")];
                    self.observe(
                        sg,
                        func,
                        block,
                        Some(i),
                        t.mask,
                        crate::observe::Access::Wrote,
                        &r,
                    );
                }
            }
        }
        if self.order.is_some() {
            self.order_phis(sg, t, fi, block);
        }
        t.frames.last_mut().expect("frame").idx = n;
        Ok(())
    }

    /// Runs the copies of every sequential edge (see the module's comment) for its lanes
    /// of `mask`; returns the lanes left for [`Run::phis_per_lane`]. When an operand is
    /// not set that is all of `mask`: the general loop then reports the first error in
    /// lane order, and copies the lanes done here again with the same values (a
    /// sequential edge's copies do not read what they write).
    fn phis_by_edge(
        &self,
        sg: &mut Subgroup,
        fi: usize,
        edges: &[EdgePhis],
        n: usize,
        mask: Mask,
    ) -> Mask {
        let width = sg.width;
        let lanes = &sg.lanes;
        let fv = &mut sg.values[fi];
        let mut left = mask;
        for e in edges {
            if left == 0 {
                break;
            }
            if !e.sequential || e.copies.len() != n {
                continue;
            }
            let mut came: Mask = 0;
            for lane in lanes_of(left) {
                if fv.prev[lane] == e.from {
                    came |= 1 << lane;
                }
            }
            if came == 0 {
                continue;
            }
            left &= !came;
            for &(res, src) in &e.copies {
                let from = self.lookup_at(width, src);
                let out = res as usize * width;
                for lane in lanes_of(came) {
                    let v = match from.get(&fv.vals, lanes, lane) {
                        Slot::Unset => return mask,
                        s => *s,
                    };
                    fv.vals[out + lane] = v;
                }
            }
        }
        left
    }

    /// The phis of the lanes of `mask` one lane at a time: the lane's edge, all its
    /// operands read, then all written.
    fn phis_per_lane(
        &mut self,
        sg: &mut Subgroup,
        t: &Tangle,
        fi: usize,
        edges: &[EdgePhis],
        n: usize,
        mask: Mask,
    ) -> R<()> {
        let mut vals = std::mem::take(&mut self.slot_scratch);
        for lane in lanes_of(mask) {
            let prev = sg.prev(fi, lane);
            let edge = edges
                .iter()
                .find(|e| e.from == prev && e.copies.len() == n)
                .ok_or_else(|| {
                    self.fail(
                        t,
                        OpFail::Undefined(format!("phi has no incoming value for {prev:?}")),
                    )
                })?;
            vals.clear();
            for &(_, src) in &edge.copies {
                vals.push(*self.arg(sg, t, lane, src)?);
            }
            for (&(res, _), v) in edge.copies.iter().zip(vals.drain(..)) {
                sg.set_slot(fi, res, lane, v);
            }
        }
        self.slot_scratch = vals;
        Ok(())
    }
}
