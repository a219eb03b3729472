//! What the exhaustive search needs to know about a group's next step: whether another
//! group can see it, and if so which steps it does not commute with. Two steps that
//! commute lead to the same state in either order, so the search tries only one order
//! (`search.rs`).
//!
//! A step is *seen* when it is a `bar_sync` (an arrival can release waiters, and its own
//! release depends on others), a `bar_break` (break flags), a `bar_set` that clears a break
//! flag (rule 3 reads it), an end of lanes (`exit` and its kin: rule 2), or an access to
//! a word of memory two lanes have been seen to conflict on (`shared.rs`; the search
//! learns these words as it goes, and starts again when it finds a new one). Everything
//! else — arithmetic, branches, calls, subgroup
//! operations over the group itself, its own variables, workgroup barriers (which release
//! only when nothing else can run, whatever the order of arrival) — changes only the
//! group's own lanes.

use tangle_ir::{Func, Op, Operand, TangleOp, Terminator, TypeData, Value};
use tangle_lanes::value::{self, Val};
use tangle_lanes::{lanes_of, Mask};

use crate::state::{Group, Pc, Run, Subgroup};

/// A barrier value in a frame: (call depth, function, value).
pub(crate) type BarKey = (usize, Func, Value);

/// A step another group can see, identified by the group that takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    pub(crate) workgroup: [u32; 3],
    pub(crate) subgroup: u32,
    pub(crate) mask: Mask,
    pub(crate) frames: Vec<Pc>,
    pub(crate) kind: StepKind,
}

/// What a seen step does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum StepKind {
    /// Arrives at a `bar_sync` (the point is the step's frames); `releases` when the
    /// arrival, in the state the step was computed in, would release lanes there.
    Sync { key: BarKey, releases: bool },
    /// Sets break flags of a barrier.
    Break(BarKey),
    /// A `bar_set` that clears a break flag.
    SetClear(BarKey),
    /// Lanes may end.
    End,
    /// Memory another lane can reach: (region, first byte, end) per lane, and whether it
    /// writes. A region of `u32::MAX` stands for any.
    Mem {
        ranges: Vec<(u32, u64, u64)>,
        write: bool,
    },
}

/// A memory access of a group: per lane, (lane, region, first byte, end), where the region
/// is one other lanes can reach; and whether it writes.
pub(crate) struct Access {
    pub(crate) lanes: Vec<(u32, u32, u64, u64)>,
    pub(crate) write: bool,
}

/// Whether `a` and `b` are steps of the same group (the same lanes at the same point):
/// the identity a sleeping step keeps while the state around it changes.
pub(crate) fn same_group(a: &Step, b: &Step) -> bool {
    a.workgroup == b.workgroup
        && a.subgroup == b.subgroup
        && a.mask == b.mask
        && a.frames == b.frames
}

/// Whether `a` and `b`, taken by different groups and both computed in the current state,
/// lead to the same state in either order.
///
/// Two arrivals at one `bar_sync` commute when neither would release anyone on its own:
/// either order leaves both waiting and checks the same waiters after the second. Any
/// other pair of barrier steps of one subgroup on the same barrier (or the same point),
/// and an end of lanes with any barrier step, may not: a release between them decides
/// which lanes leave together.
pub(crate) fn independent(a: &Step, b: &Step) -> bool {
    use StepKind::*;
    let same_subgroup = a.workgroup == b.workgroup && a.subgroup == b.subgroup;
    if same_subgroup && a.mask & b.mask != 0 {
        return false;
    }
    match (&a.kind, &b.kind) {
        (
            Mem {
                ranges: ra,
                write: wa,
            },
            Mem {
                ranges: rb,
                write: wb,
            },
        ) => {
            !(*wa || *wb)
                || !ra.iter().any(|&(m, lo, hi)| {
                    rb.iter().any(|&(n, lo2, hi2)| {
                        (m == n || m == u32::MAX || n == u32::MAX) && lo < hi2 && lo2 < hi
                    })
                })
        }
        (Mem { .. }, _) | (_, Mem { .. }) => true,
        // Barriers, break flags and exits belong to one subgroup.
        _ if !same_subgroup => true,
        (End, _) | (_, End) => false,
        (Sync { releases: r1, .. }, Sync { releases: r2, .. }) => {
            a.frames != b.frames || !(*r1 || *r2)
        }
        (Sync { key: k1, .. }, Break(k2) | SetClear(k2))
        | (Break(k1) | SetClear(k1), Sync { key: k2, .. })
        | (Break(k1), Break(k2))
        | (Break(k1), SetClear(k2))
        | (SetClear(k1), Break(k2)) => k1 != k2,
        (SetClear(_), SetClear(_)) => true,
    }
}

impl Run<'_, '_> {
    /// `g`'s next step if another group can see it; `None` when it changes only `g`'s
    /// own lanes. A memory access is seen when it touches a word the search has found two
    /// lanes to conflict on (`shared.rs`), or a place it cannot tell.
    pub(crate) fn step_of(&self, sg: &Subgroup, g: &Group) -> Option<Step> {
        let pc = g.pc();
        let m = self.machine.module;
        let bd = &m.funcs[pc.func].blocks[pc.block];
        let depth = g.frames.len() - 1;
        let key = |v: Value| (depth, pc.func, v);
        let kind = match bd.insts.get(pc.idx) {
            None => match bd.term {
                Terminator::Return | Terminator::ReturnValue(_) if depth == 0 => StepKind::End,
                Terminator::Kill | Terminator::TerminateInvocation => StepKind::End,
                _ => return None,
            },
            Some(&inst) => {
                let id = &m.funcs[pc.func].insts[inst];
                let barrier = || match id.args.first() {
                    Some(Operand::Value(v)) => Some(key(*v)),
                    _ => None,
                };
                match &id.op {
                    Op::Tangle(TangleOp::BarSet) => {
                        let value = id.result.expect("bar_set has a result");
                        let clears = lanes_of(g.mask).any(|l| {
                            sg.lanes[l]
                                .bar(depth, pc.func, value)
                                .is_some_and(|c| c.broke)
                        });
                        if !clears {
                            return None;
                        }
                        StepKind::SetClear(key(value))
                    }
                    Op::Tangle(TangleOp::BarSync) => StepKind::Sync {
                        key: barrier()?,
                        releases: self.arrival_releases(sg, g),
                    },
                    Op::Tangle(TangleOp::BarBreak) => StepKind::Break(barrier()?),
                    Op::Tangle(TangleOp::Exit) => StepKind::End,
                    Op::Load(_)
                    | Op::Store(_)
                    | Op::Atomic { .. }
                    | Op::Glsl(tangle_ir::glsl::GlslOp::Modf | tangle_ir::glsl::GlslOp::Frexp) => {
                        let a = self.access(sg, g)?;
                        let ctx = self.ctx?;
                        let shared = ctx.shared.borrow();
                        let seen = a.lanes.iter().any(|&(_, mem, lo, hi)| {
                            mem == u32::MAX || shared.conflicts(mem, lo, hi)
                        });
                        if !seen && !ctx.full() {
                            return None;
                        }
                        StepKind::Mem {
                            ranges: a.lanes.iter().map(|&(_, m, lo, hi)| (m, lo, hi)).collect(),
                            write: a.write,
                        }
                    }
                    _ => return None,
                }
            }
        };
        Some(Step {
            workgroup: self.workgroup,
            subgroup: sg.index,
            mask: g.mask,
            frames: g.frames.clone(),
            kind,
        })
    }

    /// `g`'s next instruction's access to memory other lanes can reach, if it is one.
    pub(crate) fn access(&self, sg: &Subgroup, g: &Group) -> Option<Access> {
        let m = self.machine.module;
        let pc = g.pc();
        let func = &m.funcs[pc.func];
        let &inst = func.blocks[pc.block].insts.get(pc.idx)?;
        let id = &func.insts[inst];
        let (pointer, loaded, write) = match &id.op {
            Op::Load(_) => (id.args[0], id.result, false),
            Op::Store(_) | Op::Atomic { .. } => (id.args[0], None, true),
            Op::Glsl(tangle_ir::glsl::GlslOp::Modf | tangle_ir::glsl::GlslOp::Frexp) => {
                (id.args[1], None, true)
            }
            _ => return None,
        };
        let pointee = match pointer {
            Operand::Value(v) => m.types.pointer(func.values[v].ty).map(|(_, t)| t),
            Operand::Global(gl) => m.types.pointer(m.globals[gl].ty).map(|(_, t)| t),
            Operand::Const(_) => None,
        }
        .or_else(|| loaded.map(|v| func.values[v].ty));
        // Scalars and vectors have their natural size; anything else is taken to reach
        // the end of its region.
        let width = pointee.and_then(|t| match m.types.get(t) {
            TypeData::Struct { .. } | TypeData::Array { .. } | TypeData::RuntimeArray { .. } => {
                None
            }
            _ => Some(value::size_align(&m.types, t).0),
        });
        let mut lanes = Vec::new();
        for lane in lanes_of(g.mask) {
            match self.operand(sg, pc, lane, pointer) {
                Ok(Val::Ptr { mem, off }) => {
                    if self.private.get(mem as usize).copied().unwrap_or(false) {
                        continue;
                    }
                    let len = self
                        .mems
                        .get(mem as usize)
                        .map_or(0, |r| r.bytes.len() as u64);
                    let end = width.map_or(len, |w| off + w.max(1)).max(off + 1);
                    lanes.push((lane as u32, mem, off, end));
                }
                _ => lanes.push((lane as u32, u32::MAX, 0, u64::MAX)),
            }
        }
        (!lanes.is_empty()).then_some(Access { lanes, write })
    }
}
