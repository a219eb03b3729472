//! Memory instructions for every lane of a tangle: the regions of globals and variables,
//! and access chains, loads, stores, atomics and `array_length` through
//! `tangle_lanes::memory` (shared with the other engines), with failures reported at the
//! tangle's position.

use std::sync::Arc;

use tangle_ir::{AtomicOp, Global, Type};
use tangle_lanes::memory::{self as lanes_memory, MemFail};

use crate::decode::DInst;
use crate::error::{InterpError, UndefinedUse, R};
use crate::slot::Slot;
use crate::state::{lanes_of, Lane, Lookup, Run, Subgroup, Tangle};
use crate::value::{self, Born, OpFail, OpResult, Poison, Val};
use crate::Mask;

impl Run<'_, '_> {
    /// Allocates the memory of global `g` (its initializer written, or undefined bytes) and
    /// returns its region id.
    pub(crate) fn alloc_global(&mut self, g: Global) -> u32 {
        let it = self.it;
        let m = it.module;
        let gd = &m.globals[g];
        let (_, pointee) = m.types.pointer(gd.ty).expect("global of pointer type");
        let init = gd.init.map(|c| &it.consts[c.as_u32() as usize]);
        // Every lane's region of `g` shares one poison (the same value
        // `lanes_memory::global_region` makes per call: an allocation less per lane and
        // global, and messages and comparisons of poisons are by value).
        let poison = self.global_poison[g.as_u32() as usize]
            .get_or_insert_with(|| lanes_memory::global_poison(g))
            .clone();
        // Every lane's region of `g` starts the same: made once (the type walked once),
        // then copied per lane, into a kept region where there is one.
        let gi = g.as_u32() as usize;
        if self.global_templates.len() <= gi {
            self.global_templates.resize_with(m.globals.len(), || None);
        }
        let template = match &self.global_templates[gi] {
            Some(t) => t,
            None => {
                let t = lanes_memory::variable_region(&m.types, pointee, init, &poison);
                self.global_templates[gi].insert(t)
            }
        };
        let region = match self.spare_regions.pop() {
            Some(mut spare) => {
                spare.copy_from(template);
                spare
            }
            None => template.clone(),
        };
        self.mems.push(region);
        (self.mems.len() - 1) as u32
    }

    /// Makes the region of a variable or global of type `pointee` (`init` written, or
    /// undefined bytes with `uninit`), in a region kept from an earlier dispatch when there
    /// is one (`recycle.rs`), and returns its id.
    fn new_region(&mut self, pointee: Type, init: Option<&Val>, uninit: &Arc<Poison>) -> u32 {
        let types = &self.it.module.types;
        let region = match self.spare_regions.pop() {
            Some(spare) => lanes_memory::variable_region_in(types, pointee, init, uninit, spare),
            None => lanes_memory::variable_region(types, pointee, init, uninit),
        };
        self.mems.push(region);
        (self.mems.len() - 1) as u32
    }

    /// The error for a failed memory operation of `lane` at `t`'s position.
    fn mem_fail(&self, t: &Tangle, lane: usize, e: MemFail) -> InterpError {
        let at = self.pos(t);
        match e {
            MemFail::Index(what) => InterpError::OutOfBounds {
                at,
                what: format!("lane {lane}: {what}"),
            },
            MemFail::Bounds { access, mem, off } => InterpError::OutOfBounds {
                at,
                what: format!(
                    "lane {lane}: {access} at byte {off} of {}",
                    self.region_name(mem)
                ),
            },
            MemFail::UndefinedUse { what, poison } => {
                InterpError::UndefinedValue(Box::new(UndefinedUse {
                    at,
                    lane: lane as u32,
                    what: what.into(),
                    born: poison.to_string(),
                }))
            }
            MemFail::Op(e) => self.fail(t, e),
        }
    }

    /// `variable` (Function storage) for every lane of `t`. SPIR-V has no recursion, so a
    /// variable instruction has at most one live instance per lane: each execution reuses
    /// the region of the lane's previous execution of the same instruction (reset to the
    /// initializer, or to undefined bytes), so a call in a loop does not grow memory.
    pub(crate) fn variable(
        &mut self,
        sg: &mut Subgroup,
        t: &Tangle,
        d: &DInst,
        rty: Type,
    ) -> R<()> {
        let m = self.it.module;
        let ty = &m.types;
        let (_, pointee) = ty.pointer(rty).expect("pointer");
        let slot = d.var_slot.expect("a variable has a slot") as usize;
        let uninit = match &self.variable_poison[slot] {
            Some(p) => p.clone(),
            None => {
                let p = Arc::new(Poison {
                    born: Born::At(self.pos(t)),
                    why: "the function variable has no initializer and was not written".into(),
                });
                self.variable_poison[slot] = Some(p.clone());
                p
            }
        };
        let res = d.result.expect("result");
        let (width, slots) = (sg.width, self.it.var_slots);
        for lane in lanes_of(t.mask) {
            let init = match d.args.first() {
                Some(a) => Some(self.arg_val(sg, t, lane, *a)?),
                None => None,
            };
            let key = (sg.index as usize * width + lane) * slots + slot;
            if self.variables.len() <= key {
                self.variables.resize(key + 1, u32::MAX);
            }
            let mem = match self.variables[key] {
                u32::MAX => {
                    let mem = self.new_region(pointee, init.as_ref(), &uninit);
                    self.variables[key] = mem;
                    mem
                }
                mem => {
                    let region = &mut self.mems[mem as usize];
                    lanes_memory::reset_variable(ty, region, pointee, init.as_ref(), &uninit);
                    mem
                }
            };
            Self::set(sg, t, lane, res, Slot::Ptr { mem, off: 0 });
        }
        Ok(())
    }

    /// `access_chain` for every lane of `t`.
    pub(crate) fn access_chain(&mut self, sg: &mut Subgroup, t: &Tangle, d: &DInst) -> R<()> {
        let types = &self.it.module.types;
        let atys = &d.atys;
        let res = d.result.expect("result");
        let mut vals = std::mem::take(&mut self.scratch);
        for lane in lanes_of(t.mask) {
            vals.clear();
            for o in &d.args[1..] {
                vals.push(self.arg_val(sg, t, lane, *o)?);
            }
            let base = self.arg_val(sg, t, lane, d.args[0])?;
            let p = lanes_memory::access_chain(
                types,
                &self.descriptors,
                &base,
                atys[0],
                &vals,
                &atys[1..],
            )
            .map_err(|e| self.mem_fail(t, lane, e))?;
            Self::set_val(sg, t, lane, res, p);
        }
        self.scratch = vals;
        Ok(())
    }

    /// An access chain through its pre-decoded plan (`decode.rs`) for every lane of `t`;
    /// a lane whose base is not a defined pointer or whose index is undefined or out of
    /// bounds takes the general path, which reports it.
    ///
    /// The operands are resolved once per tangle-instruction, and the common shapes (no
    /// dynamic index; one index in a lane array, the record of the fuzz programs and of
    /// most shaders; one constant index) have their own loop with nothing matched per lane
    /// but the slots themselves.
    pub(crate) fn chain_fast(&mut self, sg: &mut Subgroup, t: &Tangle, d: &DInst) -> R<()> {
        let res = d.result.expect("result");
        let fi = t.frames.last().expect("frame").func.as_u32() as usize;
        let base = self.lookup(sg, d.args[0]);
        let plan = &d.chain;
        let width = sg.width;
        let out = res as usize * width;
        let slow = {
            let lanes = &sg.lanes;
            let vals = &mut sg.values[fi].vals;
            let konst = plan.konst;
            match plan.dyns.as_slice() {
                [] => chain_loop(t.mask, vals, lanes, base, out, |_, _| Some(konst)),
                [ix] => match self.lookup_at(width, ix.src) {
                    Lookup::Lanes(j) => chain_loop(t.mask, vals, lanes, base, out, |v, l| {
                        Some(ix.offset(&v[j + l])?.wrapping_add(konst))
                    }),
                    Lookup::Const(c) => match ix.offset(c) {
                        Some(k) => {
                            let k = k.wrapping_add(konst);
                            chain_loop(t.mask, vals, lanes, base, out, |_, _| Some(k))
                        }
                        None => t.mask,
                    },
                    other => chain_loop(t.mask, vals, lanes, base, out, |v, l| {
                        Some(ix.offset(other.get(v, lanes, l))?.wrapping_add(konst))
                    }),
                },
                dyns => chain_loop(t.mask, vals, lanes, base, out, |v, l| {
                    let mut off = konst;
                    for ix in dyns {
                        let s = self.lookup_at(width, ix.src).get(v, lanes, l);
                        off = off.wrapping_add(ix.offset(s)?);
                    }
                    Some(off)
                }),
            }
        };
        // The lanes left take the general path, which reports what stopped the fast one;
        // no lane's pointer depends on another's, and only this path can fail.
        for lane in lanes_of(slow) {
            let types = &self.it.module.types;
            let mut vals = std::mem::take(&mut self.scratch);
            vals.clear();
            for o in &d.args[1..] {
                vals.push(self.arg_val(sg, t, lane, *o)?);
            }
            let base = self.arg_val(sg, t, lane, d.args[0])?;
            let p = lanes_memory::access_chain(
                types,
                &self.descriptors,
                &base,
                d.atys[0],
                &vals,
                &d.atys[1..],
            )
            .map_err(|e| self.mem_fail(t, lane, e))?;
            self.scratch = vals;
            sg.set_value(fi, res, lane, p);
        }
        Ok(())
    }

    /// `load` for every lane of `t`.
    pub(crate) fn load_inst(&self, sg: &mut Subgroup, t: &Tangle, d: &DInst, rty: Type) -> R<()> {
        let types = &self.it.module.types;
        let res = d.result.expect("result");
        for lane in lanes_of(t.mask) {
            let p = self.arg_val(sg, t, lane, d.args[0])?;
            let v = lanes_memory::load(types, &self.mems, &p, rty)
                .map_err(|e| self.mem_fail(t, lane, e))?;
            let v = self.settle(t, lane, v)?;
            Self::set_val(sg, t, lane, res, v);
        }
        Ok(())
    }

    /// A load of an `n`-byte integer or float scalar for every lane of `t`: straight from
    /// the bytes where the pointer is defined and in bounds and the region has no undefined
    /// bytes; otherwise that lane takes the general path.
    pub(crate) fn load_bits(&self, sg: &mut Subgroup, t: &Tangle, d: &DInst, n: u8) -> R<()> {
        let res = d.result.expect("result");
        let fi = t.frames.last().expect("frame").func.as_u32() as usize;
        let n = usize::from(n);
        let ptr = self.lookup(sg, d.args[0]);
        let out = res as usize * sg.width;
        let slow = {
            let lanes = &sg.lanes;
            let vals = &mut sg.values[fi].vals;
            let mems = &self.mems;
            // One loop per kind of pointer operand (a value's lane array, or a global's
            // per-lane pointer), so a lane matches only its slots.
            let bits = |p: &Slot| match *p {
                Slot::Ptr { mem, off } => mems.get(mem as usize)?.defined_bits(off, n),
                _ => None,
            };
            match ptr {
                Lookup::Lanes(i) => load_loop(t.mask, vals, out, |v, l| bits(&v[i + l])),
                Lookup::Global(g) => load_loop(t.mask, vals, out, |_, l| {
                    bits(&lanes[l].globals[g as usize])
                }),
                Lookup::Const(c) => load_loop(t.mask, vals, out, |_, _| bits(c)),
            }
        };
        // The lanes left take the general path (a load has no effect, so the order of
        // lanes matters only for which error comes first, and only this path can fail).
        for lane in lanes_of(slow) {
            let types = &self.it.module.types;
            let p = self.arg_val(sg, t, lane, d.args[0])?;
            let v = lanes_memory::load(types, &self.mems, &p, d.rty.expect("result"))
                .map_err(|e| self.mem_fail(t, lane, e))?;
            let v = self.settle(t, lane, v)?;
            sg.set_value(fi, res, lane, v);
        }
        Ok(())
    }

    /// `store` for every lane of `t`, in lane order.
    pub(crate) fn store_inst(&mut self, sg: &mut Subgroup, t: &Tangle, d: &DInst) -> R<()> {
        let it = self.it;
        let types = &it.module.types;
        for lane in lanes_of(t.mask) {
            let p = self.arg_val(sg, t, lane, d.args[0])?;
            let v = self.arg_val(sg, t, lane, d.args[1])?;
            if let Err(e) = lanes_memory::store(types, &mut self.mems, &p, d.atys[1], &v) {
                return Err(self.mem_fail(t, lane, e));
            }
        }
        Ok(())
    }

    /// A store of an `n`-byte integer or float scalar for every lane of `t`, in lane
    /// order: straight into the bytes where the pointer and the value are defined, the
    /// access is in bounds and the region has no undefined bytes; otherwise that lane takes
    /// the general path.
    pub(crate) fn store_bits(&mut self, sg: &mut Subgroup, t: &Tangle, d: &DInst, n: u8) -> R<()> {
        let it = self.it;
        let types = &it.module.types;
        let n = usize::from(n);
        let fi = t.frames.last().expect("frame").func.as_u32() as usize;
        let (ptr, val) = (self.lookup(sg, d.args[0]), self.lookup(sg, d.args[1]));
        let mut pending = t.mask;
        while pending != 0 {
            // The fast loop runs until a lane it cannot take; that lane goes through the
            // general path and the loop goes on after it, so stores stay in lane order.
            let stopped = {
                let vals = &sg.values[fi].vals;
                let lanes = &sg.lanes;
                let mems = &mut self.mems;
                match (ptr, val) {
                    (Lookup::Lanes(i), Lookup::Lanes(j)) => {
                        store_loop(pending, mems, n, |l| (&vals[i + l], &vals[j + l]))
                    }
                    (Lookup::Lanes(i), Lookup::Const(c)) => {
                        store_loop(pending, mems, n, |l| (&vals[i + l], c))
                    }
                    (p, v) => store_loop(pending, mems, n, |l| {
                        (p.get(vals, lanes, l), v.get(vals, lanes, l))
                    }),
                }
            };
            let Some(lane) = stopped else { break };
            pending &= !crate::state::lanes_below(lane as u32 + 1);
            let (p, v) = (
                self.arg_val(sg, t, lane, d.args[0])?,
                self.arg_val(sg, t, lane, d.args[1])?,
            );
            if let Err(e) = lanes_memory::store(types, &mut self.mems, &p, d.atys[1], &v) {
                return Err(self.mem_fail(t, lane, e));
            }
        }
        Ok(())
    }

    /// A store of a vector of `count` integer or float components of `bytes` bytes,
    /// `stride` apart, for every lane of `t` in lane order: straight into the bytes where
    /// the pointer is defined, every component is defined and the whole vector is in
    /// bounds; otherwise that lane takes the general path (which writes component by
    /// component and reports the first out-of-bounds one).
    pub(crate) fn store_vec(
        &mut self,
        sg: &mut Subgroup,
        t: &Tangle,
        d: &DInst,
        bytes: u8,
        count: u8,
        stride: u64,
    ) -> R<()> {
        let it = self.it;
        let types = &it.module.types;
        let (n, count) = (u64::from(bytes), usize::from(count));
        let fi = t.frames.last().expect("frame").func.as_u32() as usize;
        let (ptr, val) = (self.lookup(sg, d.args[0]), self.lookup(sg, d.args[1]));
        let vals = &sg.values[fi].vals;
        for lane in lanes_of(t.mask) {
            let p = ptr.get(vals, &sg.lanes, lane);
            let v = val.get(vals, &sg.lanes, lane);
            // An inline ballot: the four words `ballot_val` gives, as one run of bytes
            // (out of bounds, or another layout, goes the general way below).
            if let (&Slot::Ptr { mem, off }, &Slot::Ballot(m)) = (p, v) {
                if count == 4 && n == 4 && stride == 4 {
                    if let Some(r) = self.mems.get_mut(mem as usize) {
                        let words = [m as u32, (m >> 32) as u32, 0, 0].map(u32::to_le_bytes);
                        if r.store_defined_array::<16>(off, &concat(words)) {
                            continue;
                        }
                    }
                }
            }
            if let (&Slot::Ptr { mem, off }, Some(held)) = (p, sg.store.held(v, &it.consts)) {
                if let (Val::Comp(c), Some(r)) = (held, self.mems.get_mut(mem as usize)) {
                    let end = (count as u64)
                        .checked_sub(1)
                        .and_then(|k| k.checked_mul(stride))
                        .and_then(|k| k.checked_add(n))
                        .and_then(|k| k.checked_add(off));
                    if c.len() == count
                        && end.is_some_and(|e| e <= r.len() as u64)
                        && c.iter().all(|x| matches!(x, Val::Bits(_)))
                    {
                        // A packed vector of 32-bit components (a ballot's `u32x4`) as one
                        // run of bytes with one mark: the bytes the components' writes give.
                        if stride == 4 && n == 4 {
                            let word = |i: usize| (c[i].bits() as u32).to_le_bytes();
                            let written = match count {
                                2 => r.store_defined_array::<8>(off, &concat([word(0), word(1)])),
                                3 => r.store_defined_array::<12>(
                                    off,
                                    &concat([word(0), word(1), word(2)]),
                                ),
                                4 => r.store_defined_array::<16>(
                                    off,
                                    &concat([word(0), word(1), word(2), word(3)]),
                                ),
                                _ => false,
                            };
                            if written {
                                continue;
                            }
                        }
                        for (i, x) in c.iter().enumerate() {
                            let written =
                                r.store_defined_bits(off + i as u64 * stride, n as usize, x.bits());
                            debug_assert!(written, "checked in bounds");
                        }
                        continue;
                    }
                }
            }
            let (p, v) = (
                self.arg_val(sg, t, lane, d.args[0])?,
                self.arg_val(sg, t, lane, d.args[1])?,
            );
            if let Err(e) = lanes_memory::store(types, &mut self.mems, &p, d.atys[1], &v) {
                return Err(self.mem_fail(t, lane, e));
            }
        }
        Ok(())
    }

    /// GLSL.std.450 `Modf` / `Frexp`: the result is the fraction or significand; the whole
    /// part or exponent is stored through the pointer operand. An undefined operand makes
    /// both parts undefined.
    pub(crate) fn glsl_out_param(
        &mut self,
        sg: &mut Subgroup,
        t: &Tangle,
        op: tangle_ir::glsl::GlslOp,
        d: &DInst,
    ) -> R<()> {
        let it = self.it;
        let types = &it.module.types;
        let atys = &d.atys;
        let Some((_, pointee)) = types.pointer(atys[1]) else {
            return Err(self.fail(
                t,
                OpFail::Internal("Modf/Frexp pointer operand is not a pointer".into()),
            ));
        };
        let ew = value::num_width_of(types, pointee).map_err(|e| self.fail(t, e))?;
        for lane in lanes_of(t.mask) {
            let x = self.arg_val(sg, t, lane, d.args[0])?;
            let p = self.arg_val(sg, t, lane, d.args[1])?;
            let (first, second) = match value::first_poison(std::slice::from_ref(&x)) {
                Some(poison) => (
                    value::undef_like(types, atys[0], poison),
                    value::undef_like(types, pointee, poison),
                ),
                None => {
                    value::glsl_split(types, op, atys[0], ew, &x).map_err(|e| self.fail(t, e))?
                }
            };
            if let Err(e) = lanes_memory::store(types, &mut self.mems, &p, pointee, &second) {
                return Err(self.mem_fail(t, lane, e));
            }
            if let Some(res) = d.result {
                Self::set_val(sg, t, lane, res, first);
            }
        }
        Ok(())
    }

    /// An atomic instruction for every lane of `t`, one lane at a time in lane order.
    pub(crate) fn atomic(
        &mut self,
        sg: &mut Subgroup,
        t: &Tangle,
        op: AtomicOp,
        d: &DInst,
    ) -> R<()> {
        let it = self.it;
        let types = &it.module.types;
        let (_, pty) = types.pointer(d.atys[0]).expect("pointer");
        for lane in lanes_of(t.mask) {
            let p = self.arg_val(sg, t, lane, d.args[0])?;
            let vals = self.operands(sg, t, lane, &d.args[1..])?;
            let old = match lanes_memory::atomic(types, &mut self.mems, op, &p, pty, &vals) {
                Ok(old) => old,
                Err(e) => return Err(self.mem_fail(t, lane, e)),
            };
            if let Some(r) = d.result {
                Self::set_val(sg, t, lane, r, old);
            }
            if self.order.is_none() {
                if let Val::Ptr { mem, off } = p {
                    let fi = t.frames.last().expect("frame").func.as_u32();
                    let result = d.result.map(|r| (fi, r));
                    let (inv, at) = (self.invocation(sg, lane), self.pos(t));
                    let (group, phase) = (self.group_id(), self.phase);
                    self.races.get_or_insert_with(Default::default).note(
                        (mem, off),
                        inv,
                        group,
                        phase,
                        op,
                        result,
                        at,
                    );
                }
            }
        }
        Ok(())
    }

    /// `array_length` of `member` of the struct `args[0]` points to.
    pub(crate) fn array_length(&self, args: &[Val], atys: &[Type], member: u32) -> OpResult {
        lanes_memory::array_length(&self.it.module.types, &self.mems, &args[0], atys[0], member)
    }

    /// A region's name for messages.
    fn region_name(&self, mem: u32) -> String {
        let size = self.mems.get(mem as usize).map_or(0, |r| r.len());
        let bound = self.bound.len();
        match (mem as usize).cmp(&bound) {
            std::cmp::Ordering::Less => {
                let (set, binding) = self.bound[mem as usize];
                format!("the buffer at set {set} binding {binding} ({size} bytes)")
            }
            std::cmp::Ordering::Equal => format!("the push constants ({size} bytes)"),
            std::cmp::Ordering::Greater => format!("a variable ({size} bytes)"),
        }
    }
}

/// The loop of [`Run::chain_fast`]: per lane of `mask` its base pointer plus `offset` of
/// the lane (`None` when an index stops the fast path), written at `vals[out + lane]`;
/// returns the lanes left for the general path (a base that is not a defined pointer, or a
/// descriptor array, whose index picks a view the general path looks up).
#[inline(always)]
fn chain_loop(
    mask: Mask,
    vals: &mut [Slot],
    lanes: &[Lane],
    base: Lookup<'_>,
    out: usize,
    offset: impl Fn(&[Slot], usize) -> Option<u64>,
) -> Mask {
    let mut slow: Mask = 0;
    for lane in lanes_of(mask) {
        let p = match *base.get(vals, lanes, lane) {
            Slot::Ptr { mem, off } if mem < tangle_lanes::descriptors::DESCRIPTOR_ARRAYS => {
                offset(vals, lane).map(|k| Slot::Ptr {
                    mem,
                    off: off.wrapping_add(k),
                })
            }
            _ => None,
        };
        match p {
            Some(p) => vals[out + lane] = p,
            None => slow |= 1 << lane,
        }
    }
    slow
}

/// The loop of [`Run::load_bits`]: per lane of `mask` the loaded bits (`None` leaves the
/// lane to the general path), written at `vals[out + lane]`; returns the lanes left.
#[inline(always)]
fn load_loop(
    mask: Mask,
    vals: &mut [Slot],
    out: usize,
    load: impl Fn(&[Slot], usize) -> Option<u64>,
) -> Mask {
    let mut slow: Mask = 0;
    for lane in lanes_of(mask) {
        match load(vals, lane) {
            Some(b) => vals[out + lane] = Slot::Bits(b),
            None => slow |= 1 << lane,
        }
    }
    slow
}

/// The loop of [`Run::store_bits`]: per lane of `mask` in order, its pointer and value
/// slots from `operands`, stored straight into the region's bytes when the pointer and the
/// value are defined and the `n` bytes in bounds; returns the first lane that is not (the
/// caller runs it through the general path), `None` when every lane was stored.
#[inline(always)]
fn store_loop<'v>(
    mask: Mask,
    mems: &mut [crate::value::Region],
    n: usize,
    operands: impl Fn(usize) -> (&'v Slot, &'v Slot),
) -> Option<usize> {
    for lane in lanes_of(mask) {
        if let (&Slot::Ptr { mem, off }, &Slot::Bits(b)) = operands(lane) {
            if let Some(r) = mems.get_mut(mem as usize) {
                if r.store_defined_bits(off, n, b) {
                    continue;
                }
            }
        }
        return Some(lane);
    }
    None
}

/// The bytes of `K` little-endian words, in order (`B` = 4 × `K`).
#[inline(always)]
fn concat<const K: usize, const B: usize>(words: [[u8; 4]; K]) -> [u8; B] {
    let mut out = [0u8; B];
    for (k, w) in words.iter().enumerate() {
        out[4 * k..4 * k + 4].copy_from_slice(w);
    }
    out
}
