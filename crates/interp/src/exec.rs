//! Instruction execution: phis on block entry, and every instruction a tangle executes
//! (terminators are in `terminator.rs`).

use spirv::Scope;
use tangle_ir::{Inst, Op};

use crate::error::R;
use crate::group;
use crate::state::{lanes_of, Kind, LaneFrame, Run, Subgroup, TFrame, Tangle};
use crate::trace::TraceEntry;
use crate::value::OpFail;

impl Run<'_, '_> {
    /// Executes a block's phis for every lane, then positions the tangle after them.
    pub(crate) fn enter(&mut self, sg: &mut Subgroup, mut t: Tangle) -> R<Tangle> {
        let top = t.frames.last_mut().expect("frame");
        top.idx = 0;
        let (func, block) = (top.func, top.block);
        let m = self.it.module;
        let f = &m.funcs[func];
        let n = self.it.facts[func.as_u32() as usize].phis(block);
        let phis: &[Inst] = &f.blocks[block].insts[..n];
        if n > 0 {
            for lane in lanes_of(t.mask) {
                let prev = sg.lanes[lane].frames.last().expect("frame").prev;
                let mut vals = Vec::new();
                for &i in phis {
                    let id = &f.insts[i];
                    let Op::Phi(blocks) = &id.op else {
                        unreachable!()
                    };
                    let k = blocks
                        .iter()
                        .position(|b| Some(*b) == prev)
                        .ok_or_else(|| {
                            self.fail(
                                &t,
                                OpFail::Undefined(format!(
                                    "phi has no incoming value for {prev:?}"
                                )),
                            )
                        })?;
                    vals.push(self.operand(sg, &t, lane, id.args[k])?);
                }
                for (&i, v) in phis.iter().zip(vals) {
                    Self::set(sg, lane, f.insts[i].result.expect("phi result"), v);
                }
            }
            if self.observer.is_some() {
                for &i in phis {
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
        t.frames.last_mut().expect("frame").idx = n;
        Ok(t)
    }

    pub(crate) fn exec_inst(
        &mut self,
        sg: &mut Subgroup,
        mut t: Tangle,
        inst: Inst,
    ) -> R<Option<Tangle>> {
        let it = self.it;
        let m = it.module;
        let ty = &m.types;
        let fr = t.frames.last().expect("frame").clone();
        let func = &m.funcs[fr.func];
        let id = &func.insts[inst];
        let facts = &it.facts[fr.func.as_u32() as usize];
        let rty = facts.rty(inst);
        let atys = facts.atys(inst);
        let advance = |t: &mut Tangle| t.frames.last_mut().expect("frame").idx += 1;
        match &id.op {
            Op::Group { op, scope, group } => {
                if *scope != Scope::Subgroup {
                    return Err(self.fail(
                        &t,
                        OpFail::Unsupported(format!("group op at scope {scope:?}")),
                    ));
                }
                // Per lane its operands (empty outside the tangle); the buffers are reused.
                let mut args = std::mem::take(&mut self.group_scratch);
                args.resize_with(self.it.config.subgroup_size as usize, Vec::new);
                args.iter_mut().for_each(Vec::clear);
                for lane in lanes_of(t.mask) {
                    for o in &id.args {
                        let v = self.operand(sg, &t, lane, *o)?;
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
                .map_err(|e| self.fail(&t, e))?;
                self.group_scratch = args;
                for (lane, v) in lanes_of(t.mask).zip(out) {
                    let v = self.settle(&t, lane, v)?;
                    Self::set(sg, lane, id.result.expect("result"), v);
                }
                if self.it.config.record_trace {
                    self.trace.push(TraceEntry {
                        workgroup: self.workgroup,
                        subgroup: sg.index,
                        func: fr.func,
                        inst,
                        mask: t.mask,
                    });
                }
            }
            Op::ControlBarrier { exec, .. } => {
                advance(&mut t);
                if *exec == Scope::Workgroup {
                    t.at_barrier = true;
                } else if *exec != Scope::Subgroup {
                    return Err(self.fail(
                        &t,
                        OpFail::Unsupported(format!("control barrier at scope {exec:?}")),
                    ));
                }
                return Ok(Some(t));
            }
            Op::MemoryBarrier { .. } => {}
            Op::Call(callee) => {
                let cf = &m.funcs[*callee];
                let entry = cf.entry().ok_or_else(|| {
                    self.fail(
                        &t,
                        OpFail::Unsupported("call of a function without body".into()),
                    )
                })?;
                for lane in lanes_of(t.mask) {
                    let args = self.operands(sg, &t, lane, &id.args)?;
                    let mut vals = vec![None; cf.values.len()];
                    for (p, a) in cf.params.iter().zip(args) {
                        vals[p.as_u32() as usize] = Some(a);
                    }
                    sg.lanes[lane].frames.push(LaneFrame { vals, prev: None });
                }
                Self::push_instance(sg, &mut t, Kind::Call { dest: id.result });
                t.frames.push(TFrame {
                    func: *callee,
                    block: entry,
                    idx: 0,
                });
                return self.enter(sg, t).map(Some);
            }
            Op::Variable(_) => self.variable(sg, &t, id, rty.expect("result"))?,
            Op::Plain(tangle_ir::PlainOp::AccessChain) => self.access_chain(sg, &t, id, atys)?,
            Op::Load(_) => self.load_inst(sg, &t, id, rty.expect("result"))?,
            Op::Store(_) => self.store_inst(sg, &t, id, atys)?,
            Op::Glsl(g @ (tangle_ir::glsl::GlslOp::Modf | tangle_ir::glsl::GlslOp::Frexp)) => {
                self.glsl_out_param(sg, &t, *g, id, atys)?
            }
            Op::Atomic { op, .. } => self.atomic(sg, &t, *op, id, atys)?,
            Op::Phi(_) => {}
            _ => {
                let mut args = std::mem::take(&mut self.scratch);
                for lane in lanes_of(t.mask) {
                    args.clear();
                    for o in &id.args {
                        args.push(self.operand(sg, &t, lane, *o)?);
                    }
                    let r = match &id.op {
                        Op::ArrayLength(member) => self.array_length(&args, atys, *member),
                        op if tangle_lanes::ops::is_value_op(op) => {
                            tangle_lanes::ops::eval(ty, op, rty.expect("result"), atys, &args)
                        }
                        other => Err(OpFail::Unsupported(format!(
                            "instruction {}",
                            other.mnemonic()
                        ))),
                    };
                    let v = r.map_err(|e| self.fail(&t, e))?;
                    let v = self.settle(&t, lane, v)?;
                    if let Some(res) = id.result {
                        Self::set(sg, lane, res, v);
                    }
                }
                self.scratch = args;
            }
        }
        advance(&mut t);
        Ok(Some(t))
    }
}
