//! The first run of the order-dependence analysis: per atomically accessed location,
//! which invocations accessed it and with which operations, segment by segment between
//! workgroup barriers; and the verdict that decides whether a second run is needed.

use tangle_ir::hash::{FxHashMap, FxHashSet};
use tangle_ir::{AtomicOp, Func, Module, Operand};

use crate::error::Position;
use crate::state::{Run, Subgroup};

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
    pub(super) returned: FxHashSet<SegLoc>,
    /// Locations whose final contents depend on the order.
    pub(super) final_order: FxHashSet<SegLoc>,
    /// The first racing atomic (for messages).
    pub(super) first_race: Position,
}

impl Run<'_, '_> {
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
}
