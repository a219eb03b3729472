//! Memory: regions for globals and variables, access chains, loads, stores, atomics and
//! `array_length`. Every region is bytes (see `value::read` / `value::write` for layouts).

use tangle_ir::{AtomicOp, Function, Global, InstData, Type, TypeData};

use crate::error::{InterpError, R};
use crate::state::{lanes_of, Run, Subgroup, Tangle};
use crate::value::{self, OpFail, OpResult, Val};

impl Run<'_, '_> {
    /// A new region for global `g`, holding its initializer (or zeros).
    pub(crate) fn alloc_global(&mut self, g: Global) -> u32 {
        let m = self.module();
        let gd = &m.globals[g];
        let (_, pointee) = m.types.pointer(gd.ty).expect("global of pointer type");
        let (size, _) = value::size_align(&m.types, pointee);
        let mut bytes = vec![0u8; size as usize];
        if let Some(init) = gd.init {
            let v = self.it.consts[init.as_u32() as usize].clone();
            let _ = value::write(&m.types, &mut bytes, 0, pointee, &v);
        }
        self.mems.push(bytes);
        (self.mems.len() - 1) as u32
    }

    /// `variable`: a new Function-memory region per lane, holding the initializer if any.
    pub(crate) fn variable(
        &mut self,
        sg: &mut Subgroup,
        t: &Tangle,
        id: &InstData,
        rty: Type,
    ) -> R<()> {
        let m = self.it.module;
        let ty = &m.types;
        let (_, pointee) = ty.pointer(rty).expect("pointer");
        let (size, _) = value::size_align(ty, pointee);
        for lane in lanes_of(t.mask) {
            let mut bytes = vec![0u8; size as usize];
            if let Some(a) = id.args.first() {
                let v = self.operand(sg, t, lane, *a)?;
                value::write(ty, &mut bytes, 0, pointee, &v);
            }
            self.mems.push(bytes);
            let p = Val::Ptr {
                mem: (self.mems.len() - 1) as u32,
                off: 0,
            };
            Self::set(sg, lane, id.result.expect("result"), p);
        }
        Ok(())
    }

    /// `access_chain`: a pointer into the base's region, with indices checked for fixed
    /// arrays and vectors.
    pub(crate) fn access_chain(
        &self,
        sg: &mut Subgroup,
        t: &Tangle,
        func: &Function,
        id: &InstData,
        atys: &[Type],
    ) -> R<()> {
        let m = self.it.module;
        let ty = &m.types;
        for lane in lanes_of(t.mask) {
            let base = self.operand(sg, t, lane, id.args[0])?;
            let Val::Ptr { mem, mut off } = base else {
                return Err(self.fail(t, OpFail::Undefined("access chain on a non-pointer".into())));
            };
            let (_, mut cur) = ty.pointer(atys[0]).expect("pointer");
            for a in &id.args[1..] {
                let i = self.operand(sg, t, lane, *a)?.bits();
                let w = ty.bit_width(m.operand_type(func, *a));
                let i = value::sext(i, w);
                match ty.get(cur) {
                    TypeData::Struct { members, .. } => {
                        off += value::member_offset(ty, cur, i as usize);
                        cur = members[i as usize].ty;
                    }
                    TypeData::Array { elem, .. }
                    | TypeData::Vector { elem, .. }
                    | TypeData::RuntimeArray { elem, .. } => {
                        let bad = match ty.get(cur) {
                            TypeData::Array { len, .. } if i < 0 || i as u64 >= u64::from(*len) => {
                                Some(format!("index {i} of an array of {len}"))
                            }
                            TypeData::Vector { count, .. }
                                if i < 0 || i as u64 >= u64::from(*count) =>
                            {
                                Some(format!("component {i} of a vector of {count}"))
                            }
                            _ if i < 0 => Some(format!("negative index {i}")),
                            _ => None,
                        };
                        if let Some(what) = bad {
                            return Err(InterpError::OutOfBounds {
                                at: self.pos(t),
                                what: format!("lane {lane}: {what}"),
                            });
                        }
                        off += i as u64 * value::array_stride(ty, cur);
                        cur = *elem;
                    }
                    _ => {
                        return Err(
                            self.fail(t, OpFail::Unsupported("access chain into a scalar".into()))
                        )
                    }
                }
            }
            Self::set(sg, lane, id.result.expect("result"), Val::Ptr { mem, off });
        }
        Ok(())
    }

    /// `load` for every lane of `t`.
    pub(crate) fn load_inst(
        &self,
        sg: &mut Subgroup,
        t: &Tangle,
        id: &InstData,
        rty: Type,
    ) -> R<()> {
        for lane in lanes_of(t.mask) {
            let p = self.operand(sg, t, lane, id.args[0])?;
            let v = self.load(t, lane, &p, rty)?;
            Self::set(sg, lane, id.result.expect("result"), v);
        }
        Ok(())
    }

    /// `store` for every lane of `t`.
    pub(crate) fn store_inst(
        &mut self,
        sg: &mut Subgroup,
        t: &Tangle,
        id: &InstData,
        atys: &[Type],
    ) -> R<()> {
        for lane in lanes_of(t.mask) {
            let p = self.operand(sg, t, lane, id.args[0])?;
            let v = self.operand(sg, t, lane, id.args[1])?;
            self.store(t, lane, &p, atys[1], &v)?;
        }
        Ok(())
    }

    /// GLSL.std.450 `Modf` / `Frexp`: the result is the fraction or significand; the whole
    /// part or exponent is stored through the pointer operand.
    pub(crate) fn glsl_out_param(
        &mut self,
        sg: &mut Subgroup,
        t: &Tangle,
        op: tangle_ir::glsl::GlslOp,
        id: &InstData,
        atys: &[Type],
    ) -> R<()> {
        let types = &self.it.module.types;
        let (_, pointee) = types
            .pointer(atys[1])
            .expect("the verifier checks the pointer");
        let ew = value::num_width_of(types, pointee);
        for lane in lanes_of(t.mask) {
            let x = self.operand(sg, t, lane, id.args[0])?;
            let p = self.operand(sg, t, lane, id.args[1])?;
            let (first, second) = value::glsl_split(&self.it.module.types, op, atys[0], ew, &x)
                .map_err(|e| self.fail(t, e))?;
            self.store(t, lane, &p, pointee, &second)?;
            if let Some(res) = id.result {
                Self::set(sg, lane, res, first);
            }
        }
        Ok(())
    }

    /// An atomic operation: sequential, one lane at a time in lane order.
    pub(crate) fn atomic(
        &mut self,
        sg: &mut Subgroup,
        t: &Tangle,
        op: AtomicOp,
        id: &InstData,
        atys: &[Type],
    ) -> R<()> {
        use tangle_ir::AtomicOp as A;
        let m = self.it.module;
        let ty = &m.types;
        let (_, pty) = ty.pointer(atys[0]).expect("pointer");
        let w = ty.bit_width(pty);
        let mk = value::mask(w);
        // One lane at a time, in lane order.
        for lane in lanes_of(t.mask) {
            let p = self.operand(sg, t, lane, id.args[0])?;
            let old = self.load(t, lane, &p, pty)?;
            let vals = self.operands(sg, t, lane, &id.args[1..])?;
            let (o, x) = (old.bits(), vals.first().map(Val::bits).unwrap_or(0));
            let s = |v: u64| value::sext(v, w);
            let new = match op {
                A::Load => None,
                A::Store | A::Exchange => Some(x),
                A::CompareExchange => (o == vals[1].bits()).then_some(x),
                A::IIncrement => Some(o.wrapping_add(1) & mk),
                A::IDecrement => Some(o.wrapping_sub(1) & mk),
                A::IAdd => Some(o.wrapping_add(x) & mk),
                A::ISub => Some(o.wrapping_sub(x) & mk),
                A::SMin => Some(if s(o) <= s(x) { o } else { x }),
                A::SMax => Some(if s(o) >= s(x) { o } else { x }),
                A::UMin => Some(o.min(x)),
                A::UMax => Some(o.max(x)),
                A::And => Some(o & x),
                A::Or => Some(o | x),
                A::Xor => Some(o ^ x),
            };
            if let Some(n) = new {
                self.store(t, lane, &p, pty, &Val::Bits(n))?;
            }
            if let Some(r) = id.result {
                Self::set(sg, lane, r, old);
            }
        }
        Ok(())
    }

    /// `array_length` of member `member` (a runtime array) of the struct `args[0]` points
    /// to: what fits in the rest of its region.
    pub(crate) fn array_length(&self, args: &[Val], atys: &[Type], member: u32) -> OpResult {
        let m = self.it.module;
        let ty = &m.types;
        let Val::Ptr { mem, off } = &args[0] else {
            return Err(OpFail::Undefined("array_length of a non-pointer".into()));
        };
        let (_, sty) = ty.pointer(atys[0]).expect("pointer");
        let mo = value::member_offset(ty, sty, member as usize);
        let TypeData::Struct { members, .. } = ty.get(sty) else {
            return Err(OpFail::Unsupported("array_length of a non-struct".into()));
        };
        let st = value::array_stride(ty, members[member as usize].ty).max(1);
        let len = (self.mems[*mem as usize].len() as u64).saturating_sub(off + mo) / st;
        Ok(Val::Bits(len))
    }

    /// Loads a value of type `ty` through pointer `p`.
    fn load(&self, t: &Tangle, lane: usize, p: &Val, ty: Type) -> R<Val> {
        let Val::Ptr { mem, off } = p else {
            return Err(self.fail(t, OpFail::Undefined("load through a non-pointer".into())));
        };
        self.mems
            .get(*mem as usize)
            .and_then(|m| value::read(&self.module().types, m, *off, ty))
            .ok_or_else(|| InterpError::OutOfBounds {
                at: self.pos(t),
                what: format!(
                    "lane {lane}: load at byte {off} of {}",
                    self.region_name(*mem)
                ),
            })
    }

    /// Stores `v` of type `ty` through pointer `p`.
    fn store(&mut self, t: &Tangle, lane: usize, p: &Val, ty: Type, v: &Val) -> R<()> {
        let Val::Ptr { mem, off } = p else {
            return Err(self.fail(t, OpFail::Undefined("store through a non-pointer".into())));
        };
        let types = &self.it.module.types;
        let ok = match self.mems.get_mut(*mem as usize) {
            Some(m) => value::write(types, m, *off, ty, v).is_some(),
            None => false,
        };
        if ok {
            Ok(())
        } else {
            Err(InterpError::OutOfBounds {
                at: self.pos(t),
                what: format!(
                    "lane {lane}: store at byte {off} of {}",
                    self.region_name(*mem)
                ),
            })
        }
    }

    /// Names a memory region for messages: regions 0..n are the bound buffers in (set,
    /// binding) order, then the push constants, then variables.
    fn region_name(&self, mem: u32) -> String {
        let size = self.mems.get(mem as usize).map_or(0, Vec::len);
        let bound = self.it.bindings.len();
        match (mem as usize).cmp(&bound) {
            std::cmp::Ordering::Less => {
                let (set, binding) = self.it.bindings.keys().nth(mem as usize).expect("bound");
                format!("the buffer at set {set} binding {binding} ({size} bytes)")
            }
            std::cmp::Ordering::Equal => format!("the push constants ({size} bytes)"),
            std::cmp::Ordering::Greater => format!("a variable ({size} bytes)"),
        }
    }
}
