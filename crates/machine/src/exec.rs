//! Issuing one instruction of a group: per-lane ops through `tangle-lanes`, subgroup
//! operations over exactly the issuing group, calls, barriers of the workgroup, and the
//! warp-barrier operations (`barrier.rs`). Terminators are in `control.rs`.

use spirv::Scope;
use tangle_ir::{Op, TangleOp};
use tangle_lanes::value::OpFail;
use tangle_lanes::{group as lanes_group, lanes_of};
use tangle_sched::Event;

use crate::error::R;
use crate::outcome::TraceEntry;
use crate::state::{Group, LaneFrame, Pc, Run, Status, Subgroup};

/// The deepest call nesting a run may reach.
const MAX_CALL_DEPTH: usize = 256;

/// What issuing did: the event the policy switches on, and the group that goes on (if
/// any; other groups it made are already in the subgroup).
pub(crate) struct Issued {
    pub(crate) event: Event,
    pub(crate) cont: Option<Group>,
}

impl Issued {
    pub(crate) fn on(event: Event, g: Group) -> Issued {
        Issued {
            event,
            cont: (g.mask != 0).then_some(g),
        }
    }
}

impl Run<'_, '_> {
    /// Issues `g`'s next instruction or terminator.
    pub(crate) fn issue(&mut self, sg: &mut Subgroup, mut g: Group) -> R<Issued> {
        self.steps += 1;
        self.lane_steps += u64::from(g.mask.count_ones());
        g.last_issued = self.steps;
        let pc = g.pc();
        let m = self.machine.module;
        let bd = &m.funcs[pc.func].blocks[pc.block];
        if pc.idx >= bd.insts.len() {
            return self.terminator(sg, g);
        }
        let inst = bd.insts[pc.idx];
        let id = &m.funcs[pc.func].insts[inst];
        let facts = &self.machine.facts[pc.func.as_u32() as usize];
        let rty = facts.rty(inst);
        let atys = facts.atys(inst);
        let types = &m.types;
        if self.machine.config.convergence == crate::config::Convergence::Tokens
            && crate::tokens::handles(&id.op)
        {
            return self.token_issue(sg, g, inst);
        }
        match &id.op {
            Op::Tangle(op) => return self.tangle_op(sg, g, *op, id),
            Op::Group { .. } => self.group_op(sg, pc, g.mask, inst)?,
            Op::ControlBarrier { exec, .. } => match exec {
                Scope::Workgroup => {
                    g.pc_mut().idx += 1;
                    g.status = Status::WorkgroupBarrier;
                    return Ok(Issued::on(Event::Blocked, g));
                }
                // A group is already together; lanes elsewhere are not waited for (as
                // the reference interpreter treats a subgroup barrier).
                Scope::Subgroup => {}
                other => {
                    return Err(self.fail(
                        pc,
                        OpFail::Unsupported(format!("control barrier at scope {other:?}")),
                    ))
                }
            },
            Op::MemoryBarrier { .. } | Op::Phi(_) => {}
            Op::Call(callee) => {
                // SPIR-V has no recursion; a module that recurses anyway must not exhaust
                // memory before the step budget ends it.
                if g.frames.len() >= MAX_CALL_DEPTH {
                    return Err(self.fail(
                        pc,
                        OpFail::Unsupported(format!(
                            "calls nested over {MAX_CALL_DEPTH} deep (recursion)"
                        )),
                    ));
                }
                let cf = &m.funcs[*callee];
                let entry = cf.entry().ok_or_else(|| {
                    self.fail(
                        pc,
                        OpFail::Unsupported("call of a function without body".into()),
                    )
                })?;
                for lane in lanes_of(g.mask) {
                    let mut vals = vec![None; cf.values.len()];
                    for (p, a) in cf.params.iter().zip(&id.args) {
                        vals[p.as_u32() as usize] = Some(self.operand(sg, pc, lane, *a)?);
                    }
                    sg.lanes[lane].frames.push(LaneFrame {
                        vals,
                        prev: None,
                        tok: crate::tokens::TokenFrame::default(),
                    });
                }
                if self.machine.config.convergence == crate::config::Convergence::Tokens {
                    self.token_call(sg, pc, g.mask, inst)?;
                }
                g.frames.push(Pc {
                    func: *callee,
                    block: entry,
                    idx: 0,
                });
                self.enter(sg, &mut g)?;
                return Ok(Issued::on(Event::BlockEnd, g));
            }
            Op::Variable(_) => self.variable(sg, pc, g.mask, id, rty.expect("result"))?,
            Op::Plain(tangle_ir::PlainOp::AccessChain) => {
                self.access_chain(sg, pc, g.mask, id, atys)?
            }
            // Read as the memory's type lays the value out (a laid-out matrix, a row-major
            // column), which may differ from the plain result type.
            Op::Load(_) => {
                let memory_ty = atys.first().and_then(|p| m.types.pointer(*p)).map(|p| p.1);
                self.load_inst(sg, pc, g.mask, id, memory_ty.or(rty).expect("result"))?
            }
            Op::Store(_) => self.store_inst(sg, pc, g.mask, id, atys)?,
            Op::Glsl(op @ (tangle_ir::glsl::GlslOp::Modf | tangle_ir::glsl::GlslOp::Frexp)) => {
                self.glsl_out_param(sg, pc, g.mask, *op, id, atys)?
            }
            Op::Atomic { op, .. } => self.atomic(sg, pc, g.mask, *op, id, atys)?,
            op => {
                let mut args = std::mem::take(&mut self.scratch);
                for lane in lanes_of(g.mask) {
                    args.clear();
                    for o in &id.args {
                        args.push(self.operand(sg, pc, lane, *o)?);
                    }
                    let r = match op {
                        Op::ArrayLength(member) => self.array_length(&args, atys, *member),
                        op if tangle_lanes::ops::is_value_op(op) => {
                            tangle_lanes::ops::eval(types, op, rty.expect("result"), atys, &args)
                        }
                        other => Err(OpFail::Unsupported(format!(
                            "instruction {}",
                            other.mnemonic()
                        ))),
                    };
                    let v = r.map_err(|e| self.fail(pc, e))?;
                    let v = self.settle(pc, v);
                    if let Some(res) = id.result {
                        Self::set(sg, lane, res, v);
                    }
                }
                self.scratch = args;
            }
        }
        g.pc_mut().idx += 1;
        Ok(Issued::on(Event::Instruction, g))
    }

    /// Executes subgroup operation `inst` at `pc` over exactly the lanes `mask` (the
    /// issuing group; on the token engine, the lanes a rendezvous released).
    pub(crate) fn group_op(
        &mut self,
        sg: &mut Subgroup,
        pc: Pc,
        mask: tangle_lanes::Mask,
        inst: tangle_ir::Inst,
    ) -> R<()> {
        let m = self.machine.module;
        let id = &m.funcs[pc.func].insts[inst];
        let Op::Group { op, scope, group } = &id.op else {
            unreachable!("group_op on a group operation")
        };
        let facts = &self.machine.facts[pc.func.as_u32() as usize];
        let rty = facts.rty(inst);
        let atys = facts.atys(inst);
        if *scope != Scope::Subgroup {
            return Err(self.fail(
                pc,
                OpFail::Unsupported(format!("group op at scope {scope:?}")),
            ));
        }
        let mut args = std::mem::take(&mut self.group_scratch);
        args.resize_with(self.machine.config.subgroup_size as usize, Vec::new);
        args.iter_mut().for_each(Vec::clear);
        for lane in lanes_of(mask) {
            for o in &id.args {
                let v = self.operand(sg, pc, lane, *o)?;
                args[lane].push(v);
            }
        }
        let out = lanes_group::execute(
            &m.types,
            *op,
            *group,
            rty.expect("group op result"),
            atys.first().copied(),
            mask,
            self.machine.config.subgroup_size,
            &args,
        )
        .map_err(|e| self.fail(pc, e))?;
        self.group_scratch = args;
        let res = id.result.expect("group op result");
        for (lane, v) in lanes_of(mask).zip(out) {
            let v = self.settle(pc, v);
            Self::set(sg, lane, res, v);
        }
        if self.machine.config.record_trace {
            self.trace.push(TraceEntry {
                workgroup: self.workgroup,
                subgroup: sg.index,
                func: pc.func,
                inst,
                mask,
            });
        }
        Ok(())
    }

    /// A tangle-only operation: the warp-barrier operations and `exit` (`barrier.rs`);
    /// convergence tokens have no effect on this machine (its groups are what hardware
    /// gives, whatever a token asks for).
    fn tangle_op(
        &mut self,
        sg: &mut Subgroup,
        mut g: Group,
        op: TangleOp,
        id: &tangle_ir::InstData,
    ) -> R<Issued> {
        match op {
            TangleOp::BarSet => self.bar_set(sg, g, id),
            TangleOp::BarSync => self.bar_sync(sg, g, id),
            TangleOp::BarBreak => self.bar_break(sg, g, id),
            TangleOp::Exit => self.exit_op(sg, g, id),
            TangleOp::ConvEntry | TangleOp::ConvAnchor | TangleOp::ConvLoop => {
                g.pc_mut().idx += 1;
                Ok(Issued::on(Event::Instruction, g))
            }
        }
    }
}
