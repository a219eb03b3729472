//! Instruction execution: every instruction a tangle executes (phis are in `phis.rs`,
//! terminators in `terminator.rs`). One dispatch per tangle-instruction, then a loop
//! over the tangle's lanes; the pre-decoded fast paths (`decode.rs`) run first and hand a
//! lane to the general path when its operands are not defined scalars.

use spirv::Scope;
use tangle_ir::{Inst, Op};

use crate::decode::{DInst, Fast};
use crate::error::R;
use crate::group;
use crate::slot::Slot;
use crate::state::{lanes_of, Kind, Lookup, Run, Subgroup, TFrame, Tangle, UNSET};
use crate::trace::TraceEntry;
use crate::value::{OpFail, Val};

impl Run<'_, '_> {
    /// Executes instruction `inst` for every lane of `t` and moves `t` past it (a call
    /// moves it into the callee; a workgroup barrier marks it waiting).
    pub(crate) fn exec_inst(&mut self, sg: &mut Subgroup, t: &mut Tangle, inst: Inst) -> R<()> {
        let it = self.it;
        let m = it.module;
        let fr = *t.frames.last().expect("frame");
        let fi = fr.func.as_u32() as usize;
        let func = &m.funcs[fr.func];
        let id = &func.insts[inst];
        let d: &DInst = &it.facts[fi].insts[inst.as_u32() as usize];
        let advance = |t: &mut Tangle| t.frames.last_mut().expect("frame").idx += 1;
        match d.fast {
            Fast::None => {}
            Fast::LoadBits(n) => {
                self.load_bits(sg, t, d, n)?;
                advance(t);
                return Ok(());
            }
            Fast::StoreBits(n) => {
                self.store_bits(sg, t, d, n)?;
                advance(t);
                return Ok(());
            }
            Fast::Chain => {
                self.chain_fast(sg, t, d)?;
                advance(t);
                return Ok(());
            }
            Fast::StoreVec {
                bytes,
                count,
                stride,
            } => {
                self.store_vec(sg, t, d, bytes, count, stride)?;
                advance(t);
                return Ok(());
            }
            Fast::Elect | Fast::Ballot | Fast::GroupInt { .. } => {
                if self.group_fast(sg, t, d)? {
                    self.record_group(sg, fr.func, inst, t.mask);
                    advance(t);
                    return Ok(());
                }
            }
            fast => {
                let res = d.result.expect("fast paths have results");
                // The operands are resolved once; a missing one reads as unset.
                let op = |k: usize| {
                    d.args
                        .get(k)
                        .map_or(Lookup::Const(&UNSET), |s| self.lookup(sg, *s))
                };
                let ops = crate::fast::Operands {
                    a: op(0),
                    b: op(1),
                    c: op(2),
                };
                let out = res as usize * sg.width;
                let vals = &mut sg.values[fi].vals;
                let slow = crate::fast::plain(fast, t.mask, vals, &sg.lanes, ops, out);
                // The lanes left (an operand not a defined scalar, or not set) take the
                // general path, in lane order; no lane's result depends on another's, and
                // only the general path can fail, so the order is the same as one loop's.
                for lane in lanes_of(slow) {
                    let v = self.general(sg, t, lane, id, d)?;
                    sg.set_value(fi, res, lane, v);
                }
                advance(t);
                return Ok(());
            }
        }
        self.exec_general(sg, t, inst)
    }

    /// [`Run::exec_inst`] for an instruction without a fast path (or whose fast path
    /// declined): out of line, so the fast paths' dispatch saves and sets up only what they
    /// use (this function's frame is large).
    #[inline(never)]
    fn exec_general(&mut self, sg: &mut Subgroup, t: &mut Tangle, inst: Inst) -> R<()> {
        let it = self.it;
        let m = it.module;
        let ty = &m.types;
        let fr = *t.frames.last().expect("frame");
        let fi = fr.func.as_u32() as usize;
        let func = &m.funcs[fr.func];
        let id = &func.insts[inst];
        let d: &DInst = &it.facts[fi].insts[inst.as_u32() as usize];
        let rty = d.rty;
        let atys = &d.atys[..];
        let advance = |t: &mut Tangle| t.frames.last_mut().expect("frame").idx += 1;
        match &id.op {
            Op::Group { op, scope, group } => {
                if *scope != Scope::Subgroup {
                    return Err(self.fail(
                        t,
                        OpFail::Unsupported(format!("group op at scope {scope:?}")),
                    ));
                }
                // Per lane its operands (empty outside the tangle); the buffers are reused.
                let mut args = std::mem::take(&mut self.group_scratch);
                args.resize_with(self.it.config.subgroup_size as usize, Vec::new);
                args.iter_mut().for_each(Vec::clear);
                for lane in lanes_of(t.mask) {
                    for o in &d.args {
                        let v = self.arg_val(sg, t, lane, *o)?;
                        args[lane].push(v);
                    }
                }
                let out = group::execute(
                    ty,
                    *op,
                    *group,
                    rty.expect("result"),
                    atys.first().copied(),
                    t.mask,
                    self.it.config.subgroup_size,
                    &args,
                )
                .map_err(|e| self.fail(t, e))?;
                self.group_scratch = args;
                let res = d.result.expect("result");
                for (lane, v) in lanes_of(t.mask).zip(out) {
                    let v = self.settle(t, lane, v)?;
                    sg.set_value(fi, res, lane, v);
                }
                self.record_group(sg, fr.func, inst, t.mask);
            }
            Op::ControlBarrier { exec, .. } => {
                advance(t);
                if *exec == Scope::Workgroup {
                    t.at_barrier = true;
                } else if *exec != Scope::Subgroup {
                    return Err(self.fail(
                        t,
                        OpFail::Unsupported(format!("control barrier at scope {exec:?}")),
                    ));
                }
                return Ok(());
            }
            Op::MemoryBarrier { .. } => {}
            Op::Call(callee) => {
                let cf = &m.funcs[*callee];
                let entry = cf.entry().ok_or_else(|| {
                    self.fail(
                        t,
                        OpFail::Unsupported("call of a function without body".into()),
                    )
                })?;
                let ci = callee.as_u32() as usize;
                let nvals = it.facts[ci].values;
                // No recursion: the callee's frame is not the caller's, so arguments can be
                // read from the caller's while the callee's is written.
                sg.start_frame(ci, nvals, t.mask);
                for lane in lanes_of(t.mask) {
                    for (p, a) in cf.params.iter().zip(&d.args) {
                        let v = *self.arg(sg, t, lane, *a)?;
                        sg.set_slot(ci, p.as_u32(), lane, v);
                    }
                }
                Self::push_instance(sg, t, Kind::Call { dest: id.result });
                t.frames.push(TFrame {
                    func: *callee,
                    block: entry,
                    idx: 0,
                });
                self.enter(sg, t)?;
                return Ok(());
            }
            Op::Variable(_) => self.variable(sg, t, d, rty.expect("result"))?,
            Op::Plain(tangle_ir::PlainOp::AccessChain) => self.access_chain(sg, t, d)?,
            Op::Load(_) => self.load_inst(sg, t, d, rty.expect("result"))?,
            Op::Store(_) => self.store_inst(sg, t, d)?,
            Op::Glsl(g @ (tangle_ir::glsl::GlslOp::Modf | tangle_ir::glsl::GlslOp::Frexp)) => {
                self.glsl_out_param(sg, t, *g, d)?
            }
            Op::Atomic { op, .. } => self.atomic(sg, t, *op, d)?,
            Op::Phi(_) => {}
            _ => {
                for lane in lanes_of(t.mask) {
                    let v = self.general(sg, t, lane, id, d)?;
                    if let Some(res) = d.result {
                        sg.set_value(fi, res, lane, v);
                    }
                }
            }
        }
        advance(t);
        Ok(())
    }

    /// Records a subgroup operation in the trace (when asked to).
    #[inline]
    fn record_group(
        &mut self,
        sg: &Subgroup,
        func: tangle_ir::Func,
        inst: Inst,
        mask: crate::Mask,
    ) {
        if self.it.config.record_trace {
            self.trace.push(TraceEntry {
                workgroup: self.workgroup,
                subgroup: sg.index,
                func,
                inst,
                mask,
            });
        }
    }

    /// `group_elect` and `group_ballot` at subgroup scope without the general path's
    /// per-lane operand vectors and results: `false` (nothing done) when a lane's ballot
    /// predicate is not a defined boolean, which the general path (`tangle_lanes::group`)
    /// handles. Results are those of `group::execute`: elect is true for the tangle's
    /// lowest lane; a ballot has the bits of the lanes whose predicate holds; integer
    /// reductions and scans (`fast::group_int`) run only when every operand is defined.
    fn group_fast(&mut self, sg: &mut Subgroup, t: &Tangle, d: &DInst) -> R<bool> {
        let fi = t.frames.last().expect("frame").func.as_u32() as usize;
        let res = d.result.expect("fast paths have results");
        match d.fast {
            Fast::Elect => {
                let first = t.mask.trailing_zeros() as usize;
                for lane in lanes_of(t.mask) {
                    sg.set_slot(fi, res, lane, Slot::Bool(lane == first));
                }
            }
            Fast::Ballot => {
                let mut m: crate::Mask = 0;
                let pred = self.lookup(sg, d.args[0]);
                let vals = &sg.values[fi].vals;
                for lane in lanes_of(t.mask) {
                    match pred.get(vals, &sg.lanes, lane) {
                        Slot::Bool(true) => m |= 1 << lane,
                        Slot::Bool(false) => {}
                        _ => return Ok(false),
                    }
                }
                // One slot for every lane: a stored ballot (a mask above 64 bits) is shared,
                // which is safe because stored values never change.
                let ballot = sg.store.ballot(m);
                for lane in lanes_of(t.mask) {
                    sg.set_slot(fi, res, lane, ballot);
                }
            }
            Fast::GroupInt { op, width, group } => {
                let x = self.lookup(sg, d.args[0]);
                let out = res as usize * sg.width;
                let vals = &mut sg.values[fi].vals;
                let lanes = &sg.lanes;
                return Ok(crate::fast::group_int(
                    op, width, group, t.mask, vals, lanes, x, out,
                ));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The general path of a per-lane value instruction for one lane: its operands
    /// cloned, the op through `tangle_lanes`, the result settled (poison stamped).
    fn general(
        &mut self,
        sg: &Subgroup,
        t: &Tangle,
        lane: usize,
        id: &tangle_ir::InstData,
        d: &DInst,
    ) -> R<Val> {
        let mut args = std::mem::take(&mut self.scratch);
        args.clear();
        for o in &d.args {
            args.push(self.arg_val(sg, t, lane, *o)?);
        }
        let r = match &id.op {
            Op::ArrayLength(member) => self.array_length(&args, &d.atys, *member),
            op if tangle_lanes::ops::is_value_op(op) => tangle_lanes::ops::eval(
                &self.it.module.types,
                op,
                d.rty.expect("result"),
                &d.atys,
                &args,
            ),
            other => Err(OpFail::Unsupported(format!(
                "instruction {}",
                other.mnemonic()
            ))),
        };
        self.scratch = args;
        let v = r.map_err(|e| self.fail(t, e))?;
        self.settle(t, lane, v)
    }
}
