//! The shadow of instructions in the second run: whether each lane's result is
//! order-dependent, and which bytes a store, an atomic or a variable leaves
//! order-dependent.

use tangle_ir::{AtomicOp, Op};

use super::{set_tainted, src_tainted};
use crate::decode::{DInst, Src};
use crate::error::Position;
use crate::slot::Slot;
use crate::state::{lanes_of, Run, Subgroup, Tangle};
use crate::Mask;

impl Run<'_, '_> {
    /// [`Run::exec_inst`] in the second run: the instruction, then its shadow.
    pub(crate) fn exec_order(
        &mut self,
        sg: &mut Subgroup,
        t: &mut Tangle,
        f: crate::state::TFrame,
        inst: tangle_ir::Inst,
    ) -> crate::error::R<()> {
        let (mask, control) = (t.mask, Self::order_control(sg, t));
        // The shadow reads the instruction's operands from the frame it ran in: a call has
        // moved `t` into the callee by then, so it reads them from a copy of `t` before.
        let before = Tangle {
            serial: t.serial,
            mask,
            frames: vec![f],
            stack: Vec::new(),
            at_barrier: false,
        };
        self.exec_inst(sg, t, inst)?;
        let fi = f.func.as_u32() as usize;
        let it = self.it;
        let d: &DInst = &it.facts[fi].insts[inst.as_u32() as usize];
        let at = Position {
            func: f.func,
            block: f.block,
            inst: Some(inst),
        };
        self.order_inst(sg, &before, fi, d, at, mask, control);
        Ok(())
    }
}

impl Run<'_, '_> {
    /// The shadow of instruction `inst` (at `at`, executed by the lanes of `mask` of `t`,
    /// which ran it from frame function `fi`; `control` whether it ran under
    /// order-dependent control), after it ran.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn order_inst(
        &mut self,
        sg: &mut Subgroup,
        t: &Tangle,
        fi: usize,
        d: &DInst,
        at: Position,
        mask: Mask,
        control: bool,
    ) {
        let it = self.it;
        let m = it.module;
        let op = &m.funcs[at.func].insts[at.inst.expect("an instruction")].op;
        let any_arg = |sg: &Subgroup, lane: usize, args: &[Src]| {
            args.iter().any(|&s| src_tainted(sg, fi, s, lane))
        };
        match op {
            Op::Group { .. } => {
                let od = control || lanes_of(mask).any(|l| any_arg(sg, l, &d.args));
                if let Some(r) = d.result {
                    for lane in lanes_of(mask) {
                        set_tainted(sg, fi, r, lane, od);
                    }
                }
            }
            Op::Call(callee) => {
                let ci = callee.as_u32() as usize;
                let params = &m.funcs[*callee].params;
                for lane in lanes_of(mask) {
                    for (p, a) in params.iter().zip(&d.args) {
                        let od = control || src_tainted(sg, fi, *a, lane);
                        set_tainted(sg, ci, p.as_u32(), lane, od);
                    }
                }
            }
            Op::Load(_) => {
                let size = crate::value::size_align(&m.types, d.rty.expect("result")).0;
                let r = d.result.expect("result");
                for lane in lanes_of(mask) {
                    let mut od = control || src_tainted(sg, fi, d.args[0], lane);
                    if let Some((mem, off)) = self.pointer(sg, t, fi, d.args[0], lane) {
                        od |= self.order.as_ref().is_some_and(|o| o.any(mem, off, size));
                    }
                    set_tainted(sg, fi, r, lane, od);
                }
            }
            Op::Store(_) => {
                let size = crate::value::size_align(&m.types, d.atys[1]).0;
                for lane in lanes_of(mask) {
                    let through = src_tainted(sg, fi, d.args[0], lane);
                    let od = control || src_tainted(sg, fi, d.args[1], lane);
                    self.mark(sg, t, fi, d.args[0], lane, through, size, od, at);
                }
            }
            Op::Glsl(tangle_ir::glsl::GlslOp::Modf | tangle_ir::glsl::GlslOp::Frexp) => {
                let pointee = m.types.pointer(d.atys[1]).map(|(_, p)| p);
                let size = pointee.map_or(0, |p| crate::value::size_align(&m.types, p).0);
                for lane in lanes_of(mask) {
                    let od = control || src_tainted(sg, fi, d.args[0], lane);
                    let through = src_tainted(sg, fi, d.args[1], lane);
                    self.mark(sg, t, fi, d.args[1], lane, through, size, od, at);
                    if let Some(r) = d.result {
                        set_tainted(sg, fi, r, lane, od);
                    }
                }
            }
            Op::Variable(_) => {
                let r = d.result.expect("result");
                let pointee = d.rty.and_then(|ty| m.types.pointer(ty)).map(|(_, p)| p);
                let size = pointee.map_or(0, |p| crate::value::size_align(&m.types, p).0);
                for lane in lanes_of(mask) {
                    set_tainted(sg, fi, r, lane, false);
                    // A fresh instance: its bytes are order-dependent only if initialized
                    // under order-dependent control.
                    self.mark(sg, t, fi, Src::Value(r), lane, false, size, control, at);
                }
            }
            Op::Atomic { op, .. } => self.order_atomic(sg, t, fi, d, *op, at, mask, control),
            _ => {
                if let Some(r) = d.result {
                    for lane in lanes_of(mask) {
                        let od = control || any_arg(sg, lane, &d.args);
                        set_tainted(sg, fi, r, lane, od);
                    }
                }
            }
        }
    }

    /// The region and offset lane `lane`'s pointer operand `src` points to.
    fn pointer(
        &self,
        sg: &Subgroup,
        t: &Tangle,
        fi: usize,
        src: Src,
        lane: usize,
    ) -> Option<(u32, u64)> {
        let _ = fi;
        match self.arg(sg, t, lane, src).ok()? {
            Slot::Ptr { mem, off } => Some((*mem, *off)),
            _ => None,
        }
    }

    /// Marks the `size` bytes lane `lane`'s pointer `src` points to as `od` (clears them
    /// when not); through an order-dependent pointer (`through`) the whole region.
    #[allow(clippy::too_many_arguments)]
    fn mark(
        &mut self,
        sg: &Subgroup,
        t: &Tangle,
        fi: usize,
        src: Src,
        lane: usize,
        through: bool,
        size: u64,
        od: bool,
        at: Position,
    ) {
        let Some((mem, off)) = self.pointer(sg, t, fi, src, lane) else {
            return;
        };
        let len = self.mems.get(mem as usize).map_or(0, |r| r.len());
        let order = self.order.as_mut().expect("taint run");
        if through {
            order.set(mem, len, 0, len as u64, true, at);
        } else {
            order.set(mem, len, off, size, od, at);
        }
    }

    /// The shadow of an atomic, lane by lane in lane order as it ran: the returned value is
    /// order-dependent where the location raced (or its bytes, pointer or control were);
    /// the bytes written are where the location's final value depends on the order, or
    /// an operand, the pointer or the control was, or (for an operation that reads the old
    /// value) the old bytes were.
    #[allow(clippy::too_many_arguments)]
    fn order_atomic(
        &mut self,
        sg: &mut Subgroup,
        t: &Tangle,
        fi: usize,
        d: &DInst,
        op: AtomicOp,
        at: Position,
        mask: Mask,
        control: bool,
    ) {
        let m = self.it.module;
        let pty = m.types.pointer(d.atys[0]).map(|(_, p)| p);
        let size = pty.map_or(0, |p| crate::value::size_align(&m.types, p).0);
        for lane in lanes_of(mask) {
            let through = src_tainted(sg, fi, d.args[0], lane);
            let operands = d.args[1..].iter().any(|&s| src_tainted(sg, fi, s, lane));
            let Some((mem, off)) = self.pointer(sg, t, fi, d.args[0], lane) else {
                continue;
            };
            let order = self.order.as_ref().expect("taint run");
            let old = order.any(mem, off, size);
            let keys = [((mem, off), Some(self.phase)), ((mem, off), None)];
            let raced = keys.iter().any(|k| order.decided.returned.contains(k));
            // The known-wrong variant takes what the location held as ordered.
            let wrong = self.it.config.variant == crate::Variant::ReturnedValuesOrdered;
            let (raced, old_read) = if wrong { (false, false) } else { (raced, old) };
            let final_order = keys.iter().any(|k| order.decided.final_order.contains(k));
            if let Some(r) = d.result {
                set_tainted(sg, fi, r, lane, control || through || old_read || raced);
            }
            if op != AtomicOp::Load {
                let overwrites = matches!(op, AtomicOp::Store | AtomicOp::Exchange);
                let od = control || operands || final_order || (old && !overwrites);
                self.mark(sg, t, fi, d.args[0], lane, through, size, od, at);
            }
        }
    }
}
