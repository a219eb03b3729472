//! Order-dependent values: results and bytes that depend on the order in which racing
//! atomics of different invocations land, an order SPIR-V leaves open (`docs/interp.md`,
//! "Order-dependent values").
//!
//! Two runs. The first ([`Races`]) records, per atomically accessed location, which
//! invocations accessed it and with which operations. Only when some location raced and
//! either its final value depends on the order (non-commutative operations, or a mix of
//! kinds, from several invocations) or an atomic's returned value there is used does a
//! second run follow, with a [`Taint`]: the same execution (taint never changes a value,
//! a branch or the schedule), with a shadow bit per lane value and per memory byte saying
//! "order-dependent", propagated like poison but legal to branch on. A branch on such a
//! value marks the construct instance it controls; everything defined or stored while a
//! tangle runs inside a marked instance is order-dependent too.

use tangle_ir::hash::{FxHashMap, FxHashSet};
use tangle_ir::{AtomicOp, Block, Func, Module, Op, Operand};

use crate::decode::{DInst, Src};
use crate::error::Position;
use crate::slot::Slot;
use crate::state::{lanes_of, Kind, Run, Subgroup, Tangle};
use crate::Mask;

/// A memory location an atomic accessed: region and byte offset.
type Loc = (u32, u64);

/// What the first run saw at one location since its accesses last began a new segment: a
/// segment is one workgroup's accesses between two of its workgroup barriers (the barrier
/// orders the accesses before it before those after it); accesses from several workgroups
/// are never ordered, so such a location stays one segment from then on.
#[derive(Clone, Debug)]
struct Accesses {
    /// The workgroup (linear id) and barrier phase of the segment.
    group: u64,
    phase: u32,
    /// Whether several workgroups accessed it.
    cross: bool,
    /// The first invocation (global linear id) that accessed it, and whether another did.
    first: u64,
    many: bool,
    /// The first invocation that modified it, and whether another did.
    writer: Option<u64>,
    many_writers: bool,
    /// The kinds of modifying operations ([`kind_bit`]).
    kinds: u16,
    /// The atomics here whose result exists: (function, result value).
    results: Vec<(u32, u32)>,
}

impl Accesses {
    /// A location first accessed in workgroup `group`, phase `phase`, by `inv`.
    fn new(group: u64, phase: u32, inv: u64) -> Accesses {
        Accesses {
            group,
            phase,
            cross: false,
            first: inv,
            many: false,
            writer: None,
            many_writers: false,
            kinds: 0,
            results: Vec::new(),
        }
    }
}

/// A location in one segment: `Some(phase)` for a location only one workgroup accessed,
/// `None` (every phase) for one several did.
type SegLoc = (Loc, Option<u32>);

/// The operations whose final effect depends on their order: store, exchange,
/// compare-exchange (each its own bit: two of them from different invocations race).
const NON_COMMUTATIVE: u16 = 0b111;

/// The kind of a modifying atomic operation as one bit, `0` for a load. Additions,
/// subtractions, increments and decrements are one kind (they commute with each other).
fn kind_bit(op: AtomicOp) -> u16 {
    use AtomicOp as A;
    match op {
        A::Load => 0,
        A::Store => 1,
        A::Exchange => 1 << 1,
        A::CompareExchange => 1 << 2,
        A::IAdd | A::ISub | A::IIncrement | A::IDecrement => 1 << 3,
        A::SMin => 1 << 4,
        A::SMax => 1 << 5,
        A::UMin => 1 << 6,
        A::UMax => 1 << 7,
        A::And => 1 << 8,
        A::Or => 1 << 9,
        A::Xor => 1 << 10,
    }
}

/// The first run's record of atomics per location.
#[derive(Debug, Default)]
pub(crate) struct Races {
    locs: FxHashMap<Loc, Accesses>,
    /// Verdicts of the segments already closed (see [`Races::close`]).
    returned: FxHashSet<SegLoc>,
    final_order: FxHashSet<SegLoc>,
    results_read: Vec<(u32, u32)>,
    /// The first atomic that accessed a location another invocation had accessed.
    first_race: Option<Position>,
}

impl Races {
    /// Invocation `inv` of workgroup `group` in barrier phase `phase` did atomic `op` at
    /// `loc`; `result` is the atomic's (function, result value) when it has one; `at` is
    /// where.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn note(
        &mut self,
        loc: Loc,
        inv: u64,
        group: u64,
        phase: u32,
        op: AtomicOp,
        result: Option<(u32, u32)>,
        at: Position,
    ) {
        let bit = kind_bit(op);
        let a = self
            .locs
            .entry(loc)
            .or_insert_with(|| Accesses::new(group, phase, inv));
        if !a.cross && a.group != group {
            a.cross = true;
        } else if !a.cross && a.phase != phase {
            // A barrier of the workgroup ordered the segment before this access.
            let done = std::mem::replace(a, Accesses::new(group, phase, inv));
            Self::close(
                &mut self.returned,
                &mut self.final_order,
                &mut self.results_read,
                loc,
                &done,
            );
        }
        let a = self.locs.get_mut(&loc).expect("inserted");
        if a.first != inv && !a.many {
            a.many = true;
            self.first_race.get_or_insert(at);
        }
        if bit != 0 {
            match a.writer {
                None => a.writer = Some(inv),
                Some(w) if w != inv => a.many_writers = true,
                Some(_) => {}
            }
            a.kinds |= bit;
        }
        if let Some(r) = result {
            if !a.results.contains(&r) {
                a.results.push(r);
            }
        }
    }

    /// The verdicts of one segment of `loc`: its atomics' returned values depend on the
    /// order when another invocation modified it in the segment; its final value when
    /// several invocations modified it with a non-commutative operation or a mix of kinds.
    fn close(
        returned: &mut FxHashSet<SegLoc>,
        final_order: &mut FxHashSet<SegLoc>,
        results_read: &mut Vec<(u32, u32)>,
        loc: Loc,
        a: &Accesses,
    ) {
        let key = (loc, (!a.cross).then_some(a.phase));
        if a.many && a.writer.is_some() {
            returned.insert(key);
            results_read.extend(a.results.iter().copied());
        }
        if a.many_writers && (a.kinds & NON_COMMUTATIVE != 0 || a.kinds.count_ones() > 1) {
            final_order.insert(key);
        }
    }

    /// What the second run needs, or `None` when no second run is needed: no location
    /// raced whose final value depends on the order, and no raced atomic's returned value
    /// is used.
    pub(crate) fn decide(mut self, module: &Module) -> Option<Decided> {
        for (loc, a) in std::mem::take(&mut self.locs) {
            Self::close(
                &mut self.returned,
                &mut self.final_order,
                &mut self.results_read,
                loc,
                &a,
            );
        }
        if self.final_order.is_empty() && !any_used(module, &self.results_read) {
            return None;
        }
        Some(Decided {
            returned: self.returned,
            final_order: self.final_order,
            first_race: self.first_race?,
        })
    }
}

/// Whether any of `values` (function, value) is an operand anywhere in its function.
fn any_used(module: &Module, values: &[(u32, u32)]) -> bool {
    values.iter().any(|&(f, v)| {
        let func = &module.funcs[Func::from_u32(f)];
        let is = |o: &Operand| matches!(o, Operand::Value(x) if x.as_u32() == v);
        func.insts.values().any(|i| i.args.iter().any(is))
            || func
                .blocks
                .values()
                .any(|b| b.term.operands().iter().any(is))
    })
}

/// The first run's verdict, for the second run.
#[derive(Debug)]
pub(crate) struct Decided {
    /// Locations whose atomics' returned values depend on the order.
    returned: FxHashSet<SegLoc>,
    /// Locations whose final contents depend on the order.
    final_order: FxHashSet<SegLoc>,
    /// The first racing atomic (for messages).
    first_race: Position,
}

/// The second run's state: which memory bytes are order-dependent (the lane values'
/// shadow lives beside them, in `FuncValues::taint`).
#[derive(Debug)]
pub(crate) struct Taint {
    decided: Decided,
    /// Per region, per byte: [`VALUED`] and [`MAY`] bits (empty: none).
    mem: Vec<Vec<u8>>,
    /// Per region, where its first order-dependent byte was marked.
    born: Vec<Option<Position>>,
    /// Lanes entering a block released from a marked instance: their phis there are
    /// order-dependent (which edge a lane came by depended on the order).
    pub(crate) entering: Mask,
    /// Per (function, loop header), the values defined in the loop's region.
    loop_values: FxHashMap<(u32, Block), Vec<u32>>,
    /// Per (function, construct header), what the stores and atomics in the construct
    /// (and the functions it calls) may write (`None`: the whole function).
    roots: FxHashMap<(u32, Option<Block>), Vec<Root>>,
}

/// A memory byte holds a value that came from the order (a store or atomic of an
/// order-dependent value, or under order-dependent control, in this run).
const VALUED: u8 = 1;
/// A memory byte another order may write: a store or atomic the run did not execute,
/// in a construct whose branch was order-dependent.
const MAY: u8 = 2;

/// Where a store's pointer comes from, followed back through access chains and copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Root {
    /// A global's memory (per lane for private and input, per workgroup for workgroup
    /// memory, one for a buffer).
    Global(u32),
    /// A value of the construct's function (a variable or a pointer parameter): the
    /// region the lane's value points into.
    Value(u32),
    /// Not known: a pointer parameter of a called function, a pointer chosen by a phi or
    /// `select`.
    Unknown,
}

/// A buffer's order-dependent bytes after a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderDependent {
    /// Per byte whether it is order-dependent: its value, or whether it is written at all,
    /// may differ under another order. Engines compare these bytes as wildcards.
    pub bytes: Vec<bool>,
    /// The bytes of `bytes` whose value in this run itself came from the order (a store
    /// or atomic executed with an order-dependent value or under order-dependent control);
    /// the others only another order may write (a store under an order-dependent branch
    /// that this run did not execute). An `EXPECT` reading these fails.
    pub valued: Vec<bool>,
    /// Where the first of them was marked (a store or an atomic).
    pub marked_at: Position,
    /// The first atomic of the dispatch that raced with another invocation's.
    pub race_at: Position,
}

impl Taint {
    /// The second run's state for `decided`.
    pub(crate) fn new(decided: Decided) -> Taint {
        Taint {
            decided,
            mem: Vec::new(),
            born: Vec::new(),
            entering: 0,
            loop_values: FxHashMap::default(),
            roots: FxHashMap::default(),
        }
    }

    /// Region `mem`'s shadow, grown to `len` bytes.
    fn region(&mut self, mem: u32, len: usize) -> &mut Vec<u8> {
        let i = mem as usize;
        if self.mem.len() <= i {
            self.mem.resize_with(i + 1, Vec::new);
            self.born.resize(i + 1, None);
        }
        let r = &mut self.mem[i];
        if r.len() < len {
            r.resize(len, 0);
        }
        r
    }

    /// Whether any byte of `mem` in `off..off + n` is order-dependent.
    fn any(&self, mem: u32, off: u64, n: u64) -> bool {
        self.mem.get(mem as usize).is_some_and(|r| {
            let end = (off.saturating_add(n) as usize).min(r.len());
            (off as usize) < end && r[off as usize..end].iter().any(|&b| b != 0)
        })
    }

    /// Sets bytes `off..off + n` of `mem` (of `len` bytes) to `od`; marks `at` as where
    /// the region's first order-dependent byte came from.
    fn set(&mut self, mem: u32, len: usize, off: u64, n: u64, od: bool, at: Position) {
        if !od && self.mem.get(mem as usize).is_none_or(Vec::is_empty) {
            return;
        }
        let end = (off.saturating_add(n) as usize).min(len);
        let r = self.region(mem, len);
        for b in &mut r[(off as usize).min(end)..end] {
            *b = if od { VALUED } else { 0 };
        }
        if od {
            self.born[mem as usize].get_or_insert(at);
        }
    }

    /// Every byte of region `mem` (of `len` bytes) may be written by another order.
    fn set_may(&mut self, mem: u32, len: usize, at: Position) {
        let r = self.region(mem, len);
        for b in r.iter_mut() {
            *b |= MAY;
        }
        if len > 0 {
            self.born[mem as usize].get_or_insert(at);
        }
    }

    /// The order-dependent bytes of region `mem`, if any, for the outcome.
    pub(crate) fn outcome(&self, mem: u32, len: usize) -> Option<OrderDependent> {
        let r = self.mem.get(mem as usize)?;
        if !r.iter().any(|&b| b != 0) {
            return None;
        }
        let mut bytes: Vec<bool> = r.iter().map(|&b| b != 0).collect();
        let mut valued: Vec<bool> = r.iter().map(|&b| b & VALUED != 0).collect();
        bytes.resize(len, false);
        valued.resize(len, false);
        Some(OrderDependent {
            bytes,
            valued,
            marked_at: self.born[mem as usize]?,
            race_at: self.decided.first_race,
        })
    }
}

/// The shadow bit of lane `lane`'s value `v` of function `fi`.
fn tainted(sg: &Subgroup, fi: usize, v: u32, lane: usize) -> bool {
    sg.values[fi]
        .taint
        .get(v as usize * sg.width + lane)
        .copied()
        .unwrap_or(false)
}

/// Sets the shadow bit of lane `lane`'s value `v` of function `fi`.
fn set_tainted(sg: &mut Subgroup, fi: usize, v: u32, lane: usize, od: bool) {
    let w = sg.width;
    let fv = &mut sg.values[fi];
    let i = v as usize * w + lane;
    if fv.taint.len() <= i {
        if !od {
            return;
        }
        fv.taint.resize(fv.vals.len().max(i + 1), false);
    }
    fv.taint[i] = od;
}

/// Whether operand `src` of lane `lane` (in function `fi`) is order-dependent.
fn src_tainted(sg: &Subgroup, fi: usize, src: Src, lane: usize) -> bool {
    match src {
        Src::Value(v) => tainted(sg, fi, v, lane),
        Src::Const(_) | Src::Global(_) => false,
    }
}

impl Run<'_, '_> {
    /// Whether tangle `t` runs under order-dependent control: inside a marked construct
    /// instance, or in a subgroup where lanes ended under such control.
    pub(crate) fn order_control(sg: &Subgroup, t: &Tangle) -> bool {
        sg.order_dependent || t.stack.iter().any(|&i| sg.inst(i).order_dependent)
    }

    /// The linear id of the running workgroup.
    pub(crate) fn group_id(&self) -> u64 {
        let [x, y, z] = self.workgroup;
        let [gx, gy, _] = self.it.config.workgroups;
        (u64::from(z) * u64::from(gy) + u64::from(y)) * u64::from(gx) + u64::from(x)
    }

    /// The global linear id of `lane` of subgroup `sg` in the running workgroup.
    pub(crate) fn invocation(&self, sg: &Subgroup, lane: usize) -> u64 {
        let [lx, ly, lz] = self.it.local_size;
        let local = u64::from(sg.index) * u64::from(self.it.config.subgroup_size) + lane as u64;
        self.group_id() * u64::from(lx) * u64::from(ly) * u64::from(lz) + local
    }

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

    /// The shadow of a `br_if` or `switch` terminator of `t` (after its header's instances
    /// were pushed): when its condition is order-dependent for some lane, the instance on
    /// top of the stack (the one the header pushed, or for a break or continue the
    /// innermost one) is marked, and everything its construct may write is marked as
    /// written by another order ([`MAY`]); with no instance of this function to mark, the
    /// whole subgroup from here on.
    pub(crate) fn order_branch(&mut self, sg: &mut Subgroup, t: &Tangle, cond: Operand) {
        let fr = *t.frames.last().expect("frame");
        let fi = fr.func.as_u32() as usize;
        let src = Src::of(cond);
        if !lanes_of(t.mask).any(|l| src_tainted(sg, fi, src, l)) {
            return;
        }
        let at = Position {
            func: fr.func,
            block: fr.block,
            inst: None,
        };
        match t.stack.last() {
            Some(&i) if !matches!(sg.inst(i).kind, Kind::Call { .. }) => {
                sg.inst_mut(i).order_dependent = true;
                let header = construct_header(sg, i);
                self.order_may(sg, fi, Some(header), t.mask, at);
            }
            _ => {
                sg.order_dependent = true;
                self.order_may(sg, fi, None, t.mask, at);
            }
        }
    }

    /// Marks as [`MAY`] every region the lanes of `mask` may write in the construct headed
    /// by `header` of function `fi` (the whole function for `None`), and in the functions
    /// it calls; a write whose memory is not known makes the subgroup order-dependent.
    pub(crate) fn order_may(
        &mut self,
        sg: &mut Subgroup,
        fi: usize,
        header: Option<Block>,
        mask: Mask,
        at: Position,
    ) {
        let m = self.it.module;
        let order = self.order.as_mut().expect("taint run");
        let roots = order
            .roots
            .entry((fi as u32, header))
            .or_insert_with(|| construct_roots(m, Func::from_u32(fi as u32), header))
            .clone();
        for root in roots {
            for lane in lanes_of(mask) {
                let slot = match root {
                    Root::Global(g) => &sg.lanes[lane].globals[g as usize],
                    Root::Value(v) => sg.value(fi, v, lane),
                    Root::Unknown => {
                        sg.order_dependent = true;
                        continue;
                    }
                };
                if let Slot::Ptr { mem, .. } = *slot {
                    let len = self.mems.get(mem as usize).map_or(0, |r| r.len());
                    self.order
                        .as_mut()
                        .expect("taint run")
                        .set_may(mem, len, at);
                }
            }
        }
    }

    /// The shadow of a return value written into the caller's `dest` (function `caller`).
    pub(crate) fn order_return(
        &mut self,
        sg: &mut Subgroup,
        t: &Tangle,
        caller: usize,
        dest: u32,
        value: Operand,
    ) {
        let fi = t.frames.last().expect("frame").func.as_u32() as usize;
        let control = Self::order_control(sg, t);
        for lane in lanes_of(t.mask) {
            let od = control || src_tainted(sg, fi, Src::of(value), lane);
            set_tainted(sg, caller, dest, lane, od);
        }
    }

    /// Lanes of `t` leave instances `t.stack[j + 1..]` for `t.stack[j]`: when one they
    /// leave is marked (or the subgroup is), which lanes arrive early depended on the
    /// order, so the instance they arrive at is marked too, and what they skip of its
    /// construct another order may write.
    pub(crate) fn order_escape(&mut self, sg: &mut Subgroup, t: &Tangle, j: usize) {
        if !sg.order_dependent && !t.stack[j + 1..].iter().any(|&i| sg.inst(i).order_dependent) {
            return;
        }
        let i = t.stack[j];
        sg.inst_mut(i).order_dependent = true;
        let fr = *t.frames.last().expect("frame");
        let at = Position {
            func: fr.func,
            block: fr.block,
            inst: None,
        };
        match sg.inst(i).kind {
            // A return: the rest of the function.
            Kind::Call { .. } => self.order_may(sg, fr.func.as_u32() as usize, None, t.mask, at),
            _ => {
                let header = construct_header(sg, i);
                self.order_may(sg, fr.func.as_u32() as usize, Some(header), t.mask, at);
            }
        }
    }

    /// Lanes of `t` end: under order-dependent control, which lanes are left depends on
    /// the order, so everything the subgroup does from here on is order-dependent, and
    /// what the ending lanes skip (the rest of every function on their call stack) another
    /// order may write.
    pub(crate) fn order_exit(&mut self, sg: &mut Subgroup, t: &Tangle) {
        if !Self::order_control(sg, t) {
            return;
        }
        sg.order_dependent = true;
        let fr = *t.frames.last().expect("frame");
        let at = Position {
            func: fr.func,
            block: fr.block,
            inst: None,
        };
        let funcs: Vec<usize> = t.frames.iter().map(|f| f.func.as_u32() as usize).collect();
        for fi in funcs {
            self.order_may(sg, fi, None, t.mask, at);
        }
    }

    /// A marked instance of `kind` in function `fi` releases the lanes of `mask`: their
    /// phis at the block they enter are order-dependent, and for a loop every value
    /// defined in the loop (which iteration's value a lane kept depended on the order).
    pub(crate) fn order_release(&mut self, sg: &mut Subgroup, fi: usize, kind: Kind, mask: Mask) {
        let order = self.order.as_mut().expect("taint run");
        order.entering |= mask;
        if let Kind::Loop { header, .. } = kind {
            let func = &self.it.module.funcs[Func::from_u32(fi as u32)];
            let values = order
                .loop_values
                .entry((fi as u32, header))
                .or_insert_with(|| loop_values(func, header));
            for &v in values.iter() {
                for lane in lanes_of(mask) {
                    set_tainted(sg, fi, v, lane, true);
                }
            }
        }
    }

    /// The shadow of the phis of `block` (function `fi`, `n` phis) the lanes of `t` just
    /// evaluated: a phi is order-dependent where its lane's incoming value is, under
    /// order-dependent control, or where the lane was released from a marked instance.
    pub(crate) fn order_phis(&mut self, sg: &mut Subgroup, t: &Tangle, fi: usize, block: Block) {
        let order = self.order.as_mut().expect("taint run");
        let entering = std::mem::take(&mut order.entering) & t.mask;
        let control = Self::order_control(sg, t);
        let facts = &self.it.facts[fi];
        let n = facts.phis(block);
        let edges = &facts.edges[block.as_u32() as usize];
        let mut shadow: Vec<(u32, bool)> = Vec::with_capacity(n);
        for lane in lanes_of(t.mask) {
            let prev = sg.prev(fi, lane);
            let Some(edge) = edges.iter().find(|e| e.from == prev && e.copies.len() == n) else {
                continue;
            };
            shadow.clear();
            let base = control || entering & (1 << lane) != 0;
            for &(res, src) in &edge.copies {
                shadow.push((res, base || src_tainted(sg, fi, src, lane)));
            }
            for &(res, od) in &shadow {
                set_tainted(sg, fi, res, lane, od);
            }
        }
    }
}

/// The values defined in the region of the loop headed by `header` in `func` (its loop
/// and continue constructs): phis and instruction results.
fn loop_values(func: &tangle_ir::Function, header: Block) -> Vec<u32> {
    let tree = tangle_ir::analysis::ConstructTree::new(func);
    let Some(id) = tree.of_header(header) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for b in tree.region(id) {
        for &i in &func.blocks[b].insts {
            if let Some(r) = func.insts[i].result {
                out.push(r.as_u32());
            }
        }
    }
    out
}

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

/// The header block of the construct instance `i` (not a call instance): the block whose
/// terminator pushed it.
fn construct_header(sg: &Subgroup, i: usize) -> Block {
    let inst = sg.inst(i);
    match inst.kind {
        Kind::Loop { header, .. } => header,
        _ => inst.frames.last().expect("frame").block,
    }
}

/// Where the stores and atomics of the construct headed by `header` of `f` (the whole
/// function for `None`) and of the functions it calls may write.
fn construct_roots(module: &Module, f: Func, header: Option<Block>) -> Vec<Root> {
    let func = &module.funcs[f];
    let blocks = match header {
        Some(h) => {
            let tree = tangle_ir::analysis::ConstructTree::new(func);
            match tree.of_header(h) {
                Some(id) => tree.region(id),
                None => func.layout.clone(),
            }
        }
        None => func.layout.clone(),
    };
    let mut out = Vec::new();
    let mut seen = vec![f];
    collect_roots(module, f, &blocks, true, &mut seen, &mut out);
    out
}

/// Adds to `out` the roots of the pointers the stores and atomics of `blocks` of `f` write
/// through, and those of the functions they call (`top`: `f` is the construct's own
/// function, whose values the lanes hold).
fn collect_roots(
    module: &Module,
    f: Func,
    blocks: &[Block],
    top: bool,
    seen: &mut Vec<Func>,
    out: &mut Vec<Root>,
) {
    use tangle_ir::glsl::GlslOp;
    let func = &module.funcs[f];
    for &b in blocks {
        for &i in &func.blocks[b].insts {
            let id = &func.insts[i];
            let ptr = match &id.op {
                Op::Store(_) => id.args.first(),
                Op::Atomic { op, .. } if *op != AtomicOp::Load => id.args.first(),
                Op::Glsl(GlslOp::Modf | GlslOp::Frexp) => id.args.get(1),
                Op::Call(c) => {
                    if !seen.contains(c) {
                        seen.push(*c);
                        let callee = &module.funcs[*c];
                        collect_roots(module, *c, &callee.layout, false, seen, out);
                    }
                    continue;
                }
                _ => continue,
            };
            if let Some(r) = ptr.and_then(|p| root(func, *p, top)) {
                if !out.contains(&r) {
                    out.push(r);
                }
            }
        }
    }
}

/// The root of pointer operand `o` of `func`, followed back through access chains and
/// copies; `None` for a function variable of a called function (`top` false: it is fresh
/// per call, so no other order can leave anything in it).
fn root(func: &tangle_ir::Function, mut o: Operand, top: bool) -> Option<Root> {
    use tangle_ir::{PlainOp, ValueDef};
    loop {
        match o {
            Operand::Global(g) => return Some(Root::Global(g.as_u32())),
            Operand::Const(_) => return None,
            Operand::Value(v) => match func.values[v].def {
                ValueDef::Inst(i) => {
                    let id = &func.insts[i];
                    match id.op {
                        Op::Plain(PlainOp::AccessChain | PlainOp::CopyObject) => o = id.args[0],
                        Op::Variable(_) => return top.then_some(Root::Value(v.as_u32())),
                        _ => return Some(Root::Unknown),
                    }
                }
                ValueDef::Param(_) if top => return Some(Root::Value(v.as_u32())),
                _ => return Some(Root::Unknown),
            },
        }
    }
}
