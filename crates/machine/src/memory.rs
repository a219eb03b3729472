//! Memory instructions for every lane of a group, through `tangle_lanes::memory` (shared
//! with the other engines), with failures reported at the group's position.

use std::sync::Arc;

use tangle_ir::{AtomicOp, InstData, Type};
use tangle_lanes::memory::{self as lanes_memory, MemFail};
use tangle_lanes::value::{self, Born, OpFail, OpResult, Poison, Val};
use tangle_lanes::{lanes_of, Mask};

use crate::error::{MachineError, UndefinedUse, R};
use crate::state::{Pc, Run, Subgroup};

impl Run<'_, '_> {
    /// The error for a failed memory operation of `lane` at `pc`.
    fn mem_fail(&self, pc: Pc, lane: usize, e: MemFail) -> MachineError {
        let at = self.position(pc);
        match e {
            MemFail::Index(what) => MachineError::OutOfBounds {
                at,
                what: format!("lane {lane}: {what}"),
            },
            MemFail::Bounds { access, mem, off } => MachineError::OutOfBounds {
                at,
                what: format!("lane {lane}: {access} at byte {off} of region {mem}"),
            },
            MemFail::UndefinedUse { what, poison } => {
                MachineError::UndefinedValue(Box::new(UndefinedUse {
                    at,
                    lane: lane as u32,
                    what: what.into(),
                    born: poison.to_string(),
                }))
            }
            MemFail::Op(e) => self.fail(pc, e),
        }
    }

    /// `variable` (Function storage) for every lane of `mask`: at most one live instance
    /// per lane and instruction (SPIR-V has no recursion), so each execution reuses the
    /// region of the lane's previous one, reset.
    pub(crate) fn variable(
        &mut self,
        sg: &mut Subgroup,
        pc: Pc,
        mask: Mask,
        id: &InstData,
        rty: Type,
    ) -> R<()> {
        let m = self.machine.module;
        let types = &m.types;
        let (_, pointee) = types.pointer(rty).expect("pointer");
        let at = self.position(pc);
        let inst = at.inst.expect("an instruction");
        let uninit = Arc::new(Poison {
            born: Born::At(at),
            why: "the function variable has no initializer and was not written".into(),
        });
        for lane in lanes_of(mask) {
            let init = match id.args.first() {
                Some(a) => Some(self.operand(sg, pc, lane, *a)?),
                None => None,
            };
            let key = (sg.index, lane as u32, pc.func, inst);
            let mem = match self.variables.get(&key) {
                Some(&mem) => {
                    let region = &mut self.mems[mem as usize];
                    lanes_memory::reset_variable(types, region, pointee, init.as_ref(), &uninit);
                    mem
                }
                None => {
                    let region =
                        lanes_memory::variable_region(types, pointee, init.as_ref(), &uninit);
                    let mem = self.push_region(region, true);
                    self.variables.insert(key, mem);
                    mem
                }
            };
            Self::set(
                sg,
                lane,
                id.result.expect("result"),
                Val::Ptr { mem, off: 0 },
            );
        }
        Ok(())
    }

    /// `access_chain` for every lane of `mask`.
    pub(crate) fn access_chain(
        &mut self,
        sg: &mut Subgroup,
        pc: Pc,
        mask: Mask,
        id: &InstData,
        atys: &[Type],
    ) -> R<()> {
        let types = &self.machine.module.types;
        let mut vals = std::mem::take(&mut self.scratch);
        for lane in lanes_of(mask) {
            vals.clear();
            for o in &id.args {
                vals.push(self.operand(sg, pc, lane, *o)?);
            }
            let p = lanes_memory::access_chain(
                types,
                &self.descriptors,
                &vals[0],
                atys[0],
                &vals[1..],
                &atys[1..],
            )
            .map_err(|e| self.mem_fail(pc, lane, e))?;
            Self::set(sg, lane, id.result.expect("result"), p);
        }
        self.scratch = vals;
        Ok(())
    }

    /// `load` for every lane of `mask`.
    pub(crate) fn load_inst(
        &self,
        sg: &mut Subgroup,
        pc: Pc,
        mask: Mask,
        id: &InstData,
        rty: Type,
    ) -> R<()> {
        let types = &self.machine.module.types;
        for lane in lanes_of(mask) {
            let p = self.operand(sg, pc, lane, id.args[0])?;
            let v = lanes_memory::load(types, &self.mems, &p, rty)
                .map_err(|e| self.mem_fail(pc, lane, e))?;
            let v = self.settle(pc, v);
            Self::set(sg, lane, id.result.expect("result"), v);
        }
        Ok(())
    }

    /// `store` for every lane of `mask`, in lane order.
    pub(crate) fn store_inst(
        &mut self,
        sg: &mut Subgroup,
        pc: Pc,
        mask: Mask,
        id: &InstData,
        atys: &[Type],
    ) -> R<()> {
        let types = &self.machine.module.types;
        // Written as the memory's type lays the value out (a laid-out matrix, a row-major
        // column), which may differ from the stored value's plain type.
        let memory_ty = types.pointer(atys[0]).map_or(atys[1], |p| p.1);
        for lane in lanes_of(mask) {
            let p = self.operand(sg, pc, lane, id.args[0])?;
            let v = self.operand(sg, pc, lane, id.args[1])?;
            if let Err(e) = lanes_memory::store(types, &mut self.mems, &p, memory_ty, &v) {
                return Err(self.mem_fail(pc, lane, e));
            }
        }
        Ok(())
    }

    /// GLSL.std.450 `Modf` / `Frexp`: the second part is stored through the pointer.
    pub(crate) fn glsl_out_param(
        &mut self,
        sg: &mut Subgroup,
        pc: Pc,
        mask: Mask,
        op: tangle_ir::glsl::GlslOp,
        id: &InstData,
        atys: &[Type],
    ) -> R<()> {
        let types = &self.machine.module.types;
        let Some((_, pointee)) = types.pointer(atys[1]) else {
            return Err(self.fail(
                pc,
                OpFail::Internal("Modf/Frexp pointer operand is not a pointer".into()),
            ));
        };
        let ew = value::num_width_of(types, pointee).map_err(|e| self.fail(pc, e))?;
        for lane in lanes_of(mask) {
            let x = self.operand(sg, pc, lane, id.args[0])?;
            let p = self.operand(sg, pc, lane, id.args[1])?;
            let (first, second) = match value::first_poison(std::slice::from_ref(&x)) {
                Some(poison) => (
                    value::undef_like(types, atys[0], poison),
                    value::undef_like(types, pointee, poison),
                ),
                None => {
                    value::glsl_split(types, op, atys[0], ew, &x).map_err(|e| self.fail(pc, e))?
                }
            };
            if let Err(e) = lanes_memory::store(types, &mut self.mems, &p, pointee, &second) {
                return Err(self.mem_fail(pc, lane, e));
            }
            if let Some(res) = id.result {
                Self::set(sg, lane, res, first);
            }
        }
        Ok(())
    }

    /// An atomic instruction for every lane of `mask`, one lane at a time in lane order.
    pub(crate) fn atomic(
        &mut self,
        sg: &mut Subgroup,
        pc: Pc,
        mask: Mask,
        op: AtomicOp,
        id: &InstData,
        atys: &[Type],
    ) -> R<()> {
        let types = &self.machine.module.types;
        let (_, pty) = types.pointer(atys[0]).expect("pointer");
        for lane in lanes_of(mask) {
            let p = self.operand(sg, pc, lane, id.args[0])?;
            let mut vals = Vec::with_capacity(id.args.len() - 1);
            for o in &id.args[1..] {
                vals.push(self.operand(sg, pc, lane, *o)?);
            }
            let old = lanes_memory::atomic(types, &mut self.mems, op, &p, pty, &vals)
                .map_err(|e| self.mem_fail(pc, lane, e))?;
            if let Some(r) = id.result {
                Self::set(sg, lane, r, old);
            }
        }
        Ok(())
    }

    /// `array_length` of `member` of the struct `args[0]` points to.
    pub(crate) fn array_length(
        &self,
        args: &[Val],
        atys: &[tangle_ir::Type],
        member: u32,
    ) -> OpResult {
        lanes_memory::array_length(
            &self.machine.module.types,
            &self.mems,
            &args[0],
            atys[0],
            member,
        )
    }
}
