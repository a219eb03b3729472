//! The engine state: tangles, their construct instances, lanes and the running dispatch.

use tangle_ir::{Block, Func, Module, Operand, Value};

use crate::decode::Src;
use crate::error::{InterpError, Position, UndefinedUse, R};
use crate::interpreter::Interpreter;
use crate::slot::{Slot, Store};
use crate::trace::TraceEntry;
use crate::value::{OpFail, Region, Val};
use crate::Mask;

/// One call frame of a tangle: where it is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TFrame {
    pub(crate) func: Func,
    pub(crate) block: Block,
    pub(crate) idx: usize,
}

/// One function's SSA values for every lane of a subgroup, as lane arrays (value `v` of
/// lane `l` at `v * width + l`), and per lane the block it came from (for phis). SPIR-V
/// has no recursion (the interpreter refuses it), so a lane has at most one live frame of
/// a function: a call resets the callee's values of the calling lanes.
#[derive(Clone, Debug, Default)]
pub(crate) struct FuncValues {
    pub(crate) vals: Vec<Slot>,
    pub(crate) prev: Vec<Option<Block>>,
    /// Per value of `vals`, whether it is order-dependent (`order/`); empty outside the
    /// second run of a dispatch with racing atomics, and grown only when a bit is set.
    pub(crate) taint: Vec<bool>,
}

/// One invocation: the memory of each global, as the pointer an operand naming it reads.
#[derive(Clone, Debug)]
pub(crate) struct Lane {
    /// Pointer to the memory region of each global for this lane (buffers, shared,
    /// private, input); [`Slot::Unset`] for a global without memory.
    pub(crate) globals: Vec<Slot>,
    pub(crate) alive: bool,
}

/// What a construct instance is, with the block(s) its lanes wait at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Selection { merge: Block },
    Case { target: Block },
    Loop { header: Block, merge: Block },
    Iteration { cont: Block },
    Call { dest: Option<Value> },
}

/// A construct instance: who entered it and who has arrived at its reconvergence point.
#[derive(Clone, Debug)]
pub(crate) struct Instance {
    pub(crate) kind: Kind,
    pub(crate) participants: Mask,
    pub(crate) arrivals: Vec<(Block, Mask)>,
    pub(crate) frames: Vec<TFrame>,
    pub(crate) below: Vec<usize>,
    /// Whether a branch on an order-dependent value controls it (`order/`): lanes inside
    /// it run under order-dependent control.
    pub(crate) order_dependent: bool,
}

/// Lanes of one subgroup executing together, with their construct stack.
#[derive(Clone, Debug)]
pub(crate) struct Tangle {
    pub(crate) serial: u64,
    pub(crate) mask: Mask,
    pub(crate) frames: Vec<TFrame>,
    pub(crate) stack: Vec<usize>,
    pub(crate) at_barrier: bool,
}

/// A subgroup: its lanes, its tangles and the construct instances they share.
pub(crate) struct Subgroup {
    pub(crate) index: u32,
    /// The subgroup size: the stride of the lane arrays in `values`.
    pub(crate) width: usize,
    pub(crate) lanes: Vec<Lane>,
    /// Per function (empty until a lane first runs it) its values as lane arrays.
    pub(crate) values: Vec<FuncValues>,
    /// The values of `values`' slots that are not inline (`slot.rs`).
    pub(crate) store: Store,
    pub(crate) instances: Vec<Option<Instance>>,
    pub(crate) free: Vec<usize>,
    pub(crate) tangles: Vec<Tangle>,
    /// Vectors of ended tangles and released instances, reused for new ones (a construct
    /// instance per loop iteration would otherwise allocate each time).
    pub(crate) spare: Spare,
    /// Whether lanes ended under order-dependent control (`order/`): everything the
    /// subgroup does afterwards is order-dependent.
    pub(crate) order_dependent: bool,
}

/// Reusable vectors (see [`Subgroup::spare`]).
#[derive(Debug, Default)]
pub(crate) struct Spare {
    frames: Vec<Vec<TFrame>>,
    stacks: Vec<Vec<usize>>,
    arrivals: Vec<Vec<(Block, Mask)>>,
}

/// How many vectors of each kind [`Spare`] keeps.
const SPARE_KEPT: usize = 64;

impl Spare {
    /// A copy of `src` in a reused vector.
    pub(crate) fn frames(&mut self, src: &[TFrame]) -> Vec<TFrame> {
        let mut v = self.frames.pop().unwrap_or_default();
        v.clear();
        v.extend_from_slice(src);
        v
    }

    /// A copy of `src` in a reused vector.
    pub(crate) fn stack(&mut self, src: &[usize]) -> Vec<usize> {
        let mut v = self.stacks.pop().unwrap_or_default();
        v.clear();
        v.extend_from_slice(src);
        v
    }

    /// An empty arrivals list.
    pub(crate) fn arrivals(&mut self) -> Vec<(Block, Mask)> {
        let mut v = self.arrivals.pop().unwrap_or_default();
        v.clear();
        v
    }

    /// Keeps the vectors of a tangle that ended or was absorbed.
    pub(crate) fn tangle(&mut self, t: Tangle) {
        self.keep_frames(t.frames);
        self.keep_stack(t.stack);
    }

    /// Keeps a frames vector.
    pub(crate) fn keep_frames(&mut self, v: Vec<TFrame>) {
        if self.frames.len() < SPARE_KEPT {
            self.frames.push(v);
        }
    }

    /// Keeps a stack vector.
    pub(crate) fn keep_stack(&mut self, v: Vec<usize>) {
        if self.stacks.len() < SPARE_KEPT {
            self.stacks.push(v);
        }
    }

    /// Keeps an arrivals vector.
    pub(crate) fn keep_arrivals(&mut self, v: Vec<(Block, Mask)>) {
        if self.arrivals.len() < SPARE_KEPT {
            self.arrivals.push(v);
        }
    }
}

impl Tangle {
    /// A copy of this tangle with `mask` and `serial`, its vectors reused from `spare`.
    pub(crate) fn split(&self, spare: &mut Spare, mask: Mask, serial: u64) -> Tangle {
        Tangle {
            serial,
            mask,
            frames: spare.frames(&self.frames),
            stack: spare.stack(&self.stack),
            at_barrier: self.at_barrier,
        }
    }
}

impl Subgroup {
    /// Lane `lane`'s value `v` of function `func`.
    #[inline]
    pub(crate) fn value(&self, func: usize, v: u32, lane: usize) -> &Slot {
        &self.values[func].vals[v as usize * self.width + lane]
    }

    /// Sets lane `lane`'s value `v` of function `func`.
    #[inline]
    pub(crate) fn set_value(&mut self, func: usize, v: u32, lane: usize, val: Val) {
        let w = self.width;
        self.values[func].vals[v as usize * w + lane] = self.store.slot_of(val);
    }

    /// Sets lane `lane`'s value `v` of function `func` to a slot.
    #[inline]
    pub(crate) fn set_slot(&mut self, func: usize, v: u32, lane: usize, slot: Slot) {
        let w = self.width;
        self.values[func].vals[v as usize * w + lane] = slot;
    }

    /// The block lane `lane` came from in function `func`.
    #[inline]
    pub(crate) fn prev(&self, func: usize, lane: usize) -> Option<Block> {
        self.values[func].prev[lane]
    }

    /// Starts a frame of `func` with `values` values for the lanes of `mask`: their values
    /// all unset and no predecessor block.
    pub(crate) fn start_frame(&mut self, func: usize, values: usize, mask: Mask) {
        let w = self.width;
        let fv = &mut self.values[func];
        if fv.vals.is_empty() {
            fv.vals = unset_slots(values * w);
            fv.prev = vec![None; w];
            return;
        }
        for lane in lanes_of(mask) {
            fv.prev[lane] = None;
            let mut i = lane;
            while i < fv.vals.len() {
                fv.vals[i] = Slot::Unset;
                i += w;
            }
        }
    }

    pub(crate) fn inst(&self, id: usize) -> &Instance {
        self.instances[id].as_ref().expect("live instance")
    }
    pub(crate) fn inst_mut(&mut self, id: usize) -> &mut Instance {
        self.instances[id].as_mut().expect("live instance")
    }
    pub(crate) fn alloc(&mut self, i: Instance) -> usize {
        if let Some(id) = self.free.pop() {
            self.instances[id] = Some(i);
            id
        } else {
            self.instances.push(Some(i));
            self.instances.len() - 1
        }
    }
}

pub(crate) use tangle_lanes::{lanes_below, lanes_of};

/// Where every lane's value of one operand is, resolved once per tangle-instruction (the
/// fast paths' loops over lanes then index an array instead of looking up the frame, the
/// function and the value per lane and operand).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Lookup<'c> {
    /// In the lane arrays of the tangle's innermost function: lane `l`'s at `index + l`.
    Lanes(usize),
    /// The same constant for every lane.
    Const(&'c Slot),
    /// A global's per-lane pointer (its number).
    Global(u32),
}

/// `n` unset slots. Made with `resize_with`, which writes each slot, where `vec![x; n]`
/// clones `x` once per slot through `Slot`'s `Clone` (a match per slot, ~1.5% of
/// `tangle run` on the performance set).
pub(crate) fn unset_slots(n: usize) -> Vec<Slot> {
    let mut v = Vec::with_capacity(n);
    v.resize_with(n, || Slot::Unset);
    v
}

/// A slot that is never set, for the operands an instruction does not have.
pub(crate) static UNSET: Slot = Slot::Unset;

impl<'c> Lookup<'c> {
    /// Lane `lane`'s slot, given the function's lane arrays `vals` and the subgroup's
    /// `lanes`: [`Slot::Unset`] where the value is not set or the global has no memory
    /// (a fast path leaves such a lane to the general path, which reports it).
    #[inline(always)]
    pub(crate) fn get<'s>(self, vals: &'s [Slot], lanes: &'s [Lane], lane: usize) -> &'s Slot
    where
        'c: 's,
    {
        match self {
            Lookup::Lanes(i) => &vals[i + lane],
            Lookup::Const(s) => s,
            Lookup::Global(g) => &lanes[lane].globals[g as usize],
        }
    }
}

/// The error for a global without memory.
#[cold]
fn no_memory(g: u32) -> InterpError {
    InterpError::Config(format!(
        "global {} has no memory (unbound buffer or unsupported storage class)",
        tangle_ir::Global::from_u32(g)
    ))
}

/// The state of a running dispatch.
pub(crate) struct Run<'a, 'm> {
    pub(crate) it: &'a Interpreter<'m>,
    pub(crate) mems: Vec<Region>,
    /// Regions kept from earlier dispatches on this thread, to make new ones in
    /// (`recycle.rs`).
    pub(crate) spare_regions: Vec<Region>,
    /// Per global, the region every lane's region of it starts as (made at the first).
    pub(crate) global_templates: Vec<Option<Region>>,
    /// The (set, binding) of each bound buffer, in region order: regions `0..n` (for
    /// messages; `run_once` has moved the buffers themselves out of the interpreter).
    pub(crate) bound: Vec<(u32, u32)>,
    /// The bound buffers' views and descriptor arrays (`tangle_lanes::descriptors`).
    pub(crate) descriptors: tangle_lanes::descriptors::DescriptorTable,
    /// The region of each (subgroup, lane, function, variable instruction): reused by the
    /// next execution of the same variable (see `memory.rs`).
    /// Indexed by `(subgroup * width + lane) * variable slots + slot` (`decode.rs`); `u32::MAX`
    /// where none was made yet.
    pub(crate) variables: Vec<u32>,
    /// Per variable slot, the poison of its bytes before they are written (the same for every
    /// execution, so made once).
    pub(crate) variable_poison: Vec<Option<std::sync::Arc<crate::value::Poison>>>,
    /// Per global, the poison of its regions' bytes before they are written (made on the
    /// first lane's region, shared by the others: `memory.rs`).
    pub(crate) global_poison: Vec<Option<std::sync::Arc<crate::value::Poison>>>,
    /// A reused buffer for one lane's operand values.
    pub(crate) scratch: Vec<Val>,
    /// A reused buffer for one lane's phi values.
    pub(crate) slot_scratch: Vec<Slot>,
    /// Reused per-lane operand buffers for subgroup operations.
    pub(crate) group_scratch: Vec<Vec<Val>>,
    pub(crate) trace: Vec<TraceEntry>,
    pub(crate) steps: u64,
    pub(crate) lane_steps: u64,
    pub(crate) serial: u64,
    pub(crate) rng: u64,
    pub(crate) workgroup: [u32; 3],
    /// Who sees every executed instruction, if anyone (`run_observed`).
    pub(crate) observer: Option<&'a mut dyn crate::observe::Observer>,
    /// The first run's record of atomics per location (`order/`), made at the first one.
    pub(crate) races: Option<Box<crate::order::Races>>,
    /// How many workgroup barriers the running workgroup has passed.
    pub(crate) phase: u32,
    /// In the second run of a dispatch with racing atomics, the order-dependent bytes.
    pub(crate) order: Option<Box<crate::order::Taint>>,
}

impl<'a, 'm> Run<'a, 'm> {
    pub(crate) fn module(&self) -> &Module {
        self.it.module
    }

    pub(crate) fn next_serial(&mut self) -> u64 {
        self.serial += 1;
        self.serial
    }

    /// Where tangle `t` is.
    pub(crate) fn pos(&self, t: &Tangle) -> Position {
        let f = t.frames.last().expect("frame");
        let bd = &self.module().funcs[f.func].blocks[f.block];
        Position {
            func: f.func,
            block: f.block,
            inst: bd.insts.get(f.idx).copied(),
        }
    }

    /// The error for a failed per-invocation operation at `t`'s position.
    pub(crate) fn fail(&self, t: &Tangle, e: OpFail) -> InterpError {
        let at = self.pos(t);
        match e {
            OpFail::Unsupported(what) => InterpError::Unsupported { at, what },
            OpFail::Undefined(what) => InterpError::Undefined { at, what },
            OpFail::Internal(what) => InterpError::Internal { at, what },
        }
    }

    /// `v`, or the error for `lane` using it as `what` when some component is undefined.
    pub(crate) fn defined(&self, t: &Tangle, lane: usize, what: &str, v: Val) -> R<Val> {
        match v.poison() {
            None => Ok(v),
            Some(p) => Err(InterpError::UndefinedValue(Box::new(UndefinedUse {
                at: self.pos(t),
                lane: lane as u32,
                what: what.into(),
                born: p.to_string(),
            }))),
        }
    }

    /// The bits of operand `o` for `lane` (booleans as 0/1), which must be a fully defined
    /// scalar because it is used as `what`.
    pub(crate) fn defined_scalar(
        &self,
        sg: &Subgroup,
        t: &Tangle,
        lane: usize,
        o: Operand,
        what: &str,
    ) -> R<u64> {
        let slot = self.arg(sg, t, lane, Src::of(o))?;
        match slot.bits() {
            Some(b) => Ok(b),
            None => {
                let v = sg
                    .store
                    .get(slot, &self.it.consts)
                    .expect("arg gives set slots");
                let v = self.defined(t, lane, what, v)?;
                v.scalar().map_err(|e| self.fail(t, e))
            }
        }
    }

    /// Settles a freshly computed result of `lane` at `t`'s position: poison born here
    /// gets the position; under `strict_undefined` any undefined result stops the run.
    #[inline]
    pub(crate) fn settle(&self, t: &Tangle, lane: usize, mut v: Val) -> R<Val> {
        if matches!(v, Val::Bits(_) | Val::Bool(_) | Val::Ptr { .. }) || !v.is_poisoned() {
            return Ok(v);
        }
        v.stamp(self.pos(t));
        if self.it.config.strict_undefined {
            return self.defined(t, lane, "result (--strict-undefined)", v);
        }
        Ok(v)
    }

    /// The slot of operand `src` for `lane` of tangle `t` (in its innermost function),
    /// never [`Slot::Unset`] (reading an unset value or a global without memory is an
    /// error). The reference borrows the subgroup (and the interpreter's constants), not
    /// the run, so memory can be written while it is held.
    #[inline(always)]
    pub(crate) fn arg<'s>(&self, sg: &'s Subgroup, t: &Tangle, lane: usize, src: Src) -> R<&'s Slot>
    where
        'a: 's,
    {
        let it: &'a Interpreter<'m> = self.it;
        match src {
            Src::Value(v) => {
                let func = t.frames.last().expect("frame").func.as_u32() as usize;
                match sg.value(func, v, lane) {
                    Slot::Unset => Err(self.unset(t, v)),
                    slot => Ok(slot),
                }
            }
            Src::Const(c) => Ok(&it.const_slots[c as usize]),
            Src::Global(g) => match &sg.lanes[lane].globals[g as usize] {
                Slot::Unset => Err(no_memory(g)),
                p => Ok(p),
            },
        }
    }

    /// Where every lane's value of operand `src` of tangle `t` (in its innermost function)
    /// is; read per lane with [`Lookup::get`] from the function's lane arrays.
    #[inline(always)]
    pub(crate) fn lookup(&self, sg: &Subgroup, src: Src) -> Lookup<'a> {
        self.lookup_at(sg.width, src)
    }

    /// [`Run::lookup`] for a subgroup of `width` lanes.
    #[inline(always)]
    pub(crate) fn lookup_at(&self, width: usize, src: Src) -> Lookup<'a> {
        let it: &'a Interpreter<'m> = self.it;
        match src {
            Src::Value(v) => Lookup::Lanes(v as usize * width),
            Src::Const(c) => Lookup::Const(&it.const_slots[c as usize]),
            Src::Global(g) => Lookup::Global(g),
        }
    }

    /// The value of operand `src` for `lane` (see [`Run::arg`]), as a [`Val`].
    #[inline]
    pub(crate) fn arg_val(&self, sg: &Subgroup, t: &Tangle, lane: usize, src: Src) -> R<Val> {
        let slot = self.arg(sg, t, lane, src)?;
        Ok(sg
            .store
            .get(slot, &self.it.consts)
            .expect("arg gives set slots"))
    }

    /// The error for a value read before it is set.
    #[cold]
    pub(crate) fn unset(&self, t: &Tangle, v: u32) -> InterpError {
        self.fail(
            t,
            OpFail::Undefined(format!("{} used before it is defined", Value::from_u32(v))),
        )
    }

    /// The values of operands `ops` for `lane`.
    pub(crate) fn operands(
        &self,
        sg: &Subgroup,
        t: &Tangle,
        lane: usize,
        ops: &[Src],
    ) -> R<Vec<Val>> {
        ops.iter().map(|o| self.arg_val(sg, t, lane, *o)).collect()
    }

    /// Sets `lane`'s value `v` in tangle `t`'s innermost function to `val`.
    #[inline]
    pub(crate) fn set_val(sg: &mut Subgroup, t: &Tangle, lane: usize, v: u32, val: Val) {
        let func = t.frames.last().expect("frame").func.as_u32() as usize;
        sg.set_value(func, v, lane, val);
    }

    /// Sets `lane`'s value `v` in tangle `t`'s innermost function.
    #[inline]
    pub(crate) fn set(sg: &mut Subgroup, t: &Tangle, lane: usize, v: u32, slot: Slot) {
        let func = t.frames.last().expect("frame").func.as_u32() as usize;
        sg.set_slot(func, v, lane, slot);
    }
}
