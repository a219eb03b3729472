//! The machine state: lanes with their per-lane barrier copies, groups of lanes at a
//! program point, subgroups, and the running dispatch.

use tangle_ir::{Block, Func, Module, Operand, Value};
use tangle_lanes::value::{OpFail, Region, Val};
use tangle_lanes::Mask;

use crate::error::{MachineError, Position, UndefinedUse, R};
use crate::machine::Machine;
use crate::outcome::{BarrierStats, TraceEntry};
use crate::search::{Path, SearchCtx};

/// A program point in one call frame: instruction `idx` of `block` (`idx` equal to the
/// block's length is its terminator).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pc {
    pub(crate) func: Func,
    pub(crate) block: Block,
    pub(crate) idx: usize,
}

/// One call frame of a lane: its SSA values and the block it came from (for phis).
#[derive(Clone, Debug)]
pub(crate) struct LaneFrame {
    pub(crate) vals: Vec<Option<Val>>,
    pub(crate) prev: Option<Block>,
    /// Its token instances and loop counters (the token engine only).
    pub(crate) tok: crate::tokens::TokenFrame,
}

/// A lane's copy of one barrier value (NVIDIA's per-lane `B[l][k]` and `brk[l][k]`): the
/// mask its latest `bar_set` of that value wrote, as `bar_break`s have cut it since, and
/// whether the lane broke out of it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BarCopy {
    /// The call depth of the frame the barrier value belongs to (0 = the entry point).
    pub(crate) depth: usize,
    pub(crate) func: Func,
    pub(crate) value: Value,
    pub(crate) mask: Mask,
    pub(crate) broke: bool,
}

/// One invocation.
#[derive(Clone, Debug)]
pub(crate) struct Lane {
    pub(crate) frames: Vec<LaneFrame>,
    /// Memory region and byte offset of each global for this lane.
    pub(crate) globals: Vec<Option<(u32, u64)>>,
    pub(crate) exited: bool,
    /// Its barrier copies (few: a linear search is fastest).
    pub(crate) bars: Vec<BarCopy>,
    /// While it waits at a `bar_sync`: the mask it captured there.
    pub(crate) wait: Mask,
}

impl Lane {
    /// This lane's copy of barrier `value` of the frame at `depth` running `func`.
    pub(crate) fn bar(&self, depth: usize, func: Func, value: Value) -> Option<&BarCopy> {
        self.bars
            .iter()
            .find(|b| b.value == value && b.depth == depth && b.func == func)
    }

    /// The same, to change it.
    pub(crate) fn bar_mut(
        &mut self,
        depth: usize,
        func: Func,
        value: Value,
    ) -> Option<&mut BarCopy> {
        self.bars
            .iter_mut()
            .find(|b| b.value == value && b.depth == depth && b.func == func)
    }
}

/// What a group is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// It can issue.
    Ready,
    /// It waits at the `bar_sync` its pc names.
    Sync,
    /// It waits at a workgroup `control_barrier` (its pc is already past it).
    WorkgroupBarrier,
    /// The token engine only: it waits to execute the subgroup operation or anchor its pc
    /// names, with every lane that may still reach it with the same token instance (the
    /// key: the operation's token instance, or for an anchor its call frame's).
    Token(crate::tokens::KeyId),
}

/// Lanes of one subgroup at one program point (with one call stack), issuing together.
#[derive(Clone, Debug)]
pub(crate) struct Group {
    pub(crate) mask: Mask,
    pub(crate) frames: Vec<Pc>,
    pub(crate) status: Status,
    /// The step count when it last issued (new groups: when they were made).
    pub(crate) last_issued: u64,
}

impl Group {
    /// Its innermost program point.
    pub(crate) fn pc(&self) -> Pc {
        *self.frames.last().expect("a group has a frame")
    }

    /// The same, to move it.
    pub(crate) fn pc_mut(&mut self) -> &mut Pc {
        self.frames.last_mut().expect("a group has a frame")
    }
}

/// A subgroup (warp): its lanes and its groups.
#[derive(Clone)]
pub(crate) struct Subgroup {
    pub(crate) index: u32,
    pub(crate) lanes: Vec<Lane>,
    pub(crate) groups: Vec<Group>,
}

impl Subgroup {
    /// Whether `lane` has ended (lanes beyond a partial subgroup never existed).
    pub(crate) fn exited(&self, lane: usize) -> bool {
        self.lanes.get(lane).is_none_or(|l| l.exited)
    }
}

/// Where a dispatch stands between two issues: the workgroup being run, its subgroups,
/// and the next subgroup of the current round (subgroups run in turn, each until none of
/// its groups can issue). What lets a run stop at a choice point of the exhaustive search
/// and go on later from a copy.
#[derive(Clone, Default)]
pub(crate) struct Cursor {
    /// The linear index of the workgroup being run (x fastest, then y, then z).
    pub(crate) wg_index: u64,
    /// Its subgroups; empty until it is set up.
    pub(crate) sgs: Vec<Subgroup>,
    /// The subgroup of the current round that runs next.
    pub(crate) sg_pos: usize,
    /// Whether any subgroup issued in the current round.
    pub(crate) ran: bool,
}

/// The state of a running dispatch. A clone is a snapshot the exhaustive search goes back
/// to (`search.rs`): everything a run changes lives here.
#[derive(Clone)]
pub(crate) struct Run<'a, 'm> {
    pub(crate) machine: &'a Machine<'m>,
    pub(crate) mems: Vec<Region>,
    /// Per region: whether only one lane can reach it (function, private, input and output
    /// variables), which the exhaustive search's reduction needs.
    pub(crate) private: Vec<bool>,
    /// The region of each (subgroup, lane, function, variable instruction), reused by the
    /// next execution of the same variable.
    pub(crate) variables: std::collections::HashMap<(u32, u32, Func, tangle_ir::Inst), u32>,
    pub(crate) scratch: Vec<Val>,
    pub(crate) group_scratch: Vec<Vec<Val>>,
    pub(crate) trace: Vec<TraceEntry>,
    pub(crate) steps: u64,
    pub(crate) lane_steps: u64,
    pub(crate) stats: BarrierStats,
    pub(crate) workgroup: [u32; 3],
    pub(crate) chooser: tangle_sched::Chooser,
    /// The bound buffers' (set, binding) keys, in the order of their regions.
    pub(crate) keys: Vec<(u32, u32)>,
    /// The bound buffers' views and descriptor arrays (`tangle_lanes::descriptors`).
    pub(crate) descriptors: std::sync::Arc<tangle_lanes::descriptors::DescriptorTable>,
    /// Where the dispatch stands.
    pub(crate) cursor: Cursor,
    /// The exhaustive search's state shared by every run, when searching.
    pub(crate) ctx: Option<&'a SearchCtx>,
    /// This run's own part of the search's state (its sleep set and depth).
    pub(crate) path: Path,
    /// The token engine's dynamic token instances and reachability cache.
    pub(crate) tokens: crate::tokens::TokenState,
}

impl Run<'_, '_> {
    pub(crate) fn module(&self) -> &Module {
        self.machine.module
    }

    /// The position of a program point.
    pub(crate) fn position(&self, pc: Pc) -> Position {
        let bd = &self.module().funcs[pc.func].blocks[pc.block];
        Position {
            func: pc.func,
            block: pc.block,
            inst: bd.insts.get(pc.idx).copied(),
        }
    }

    /// The error for a failed per-lane operation at `pc`.
    pub(crate) fn fail(&self, pc: Pc, e: OpFail) -> MachineError {
        let at = self.position(pc);
        match e {
            OpFail::Unsupported(what) => MachineError::Unsupported { at, what },
            OpFail::Undefined(what) => MachineError::Undefined { at, what },
            OpFail::Internal(what) => MachineError::Internal { at, what },
        }
    }

    /// `v`, or the error for `lane` using it as `what` when some component is undefined.
    pub(crate) fn defined(&self, pc: Pc, lane: usize, what: &str, v: Val) -> R<Val> {
        match v.poison() {
            None => Ok(v),
            Some(p) => Err(MachineError::UndefinedValue(Box::new(UndefinedUse {
                at: self.position(pc),
                lane: lane as u32,
                what: what.into(),
                born: p.to_string(),
            }))),
        }
    }

    /// Lane `lane`'s boolean operand `o`, which decides control (`what`) and so must be
    /// defined.
    pub(crate) fn condition(
        &self,
        sg: &Subgroup,
        pc: Pc,
        lane: usize,
        o: Operand,
        what: &str,
    ) -> R<bool> {
        let v = self.operand(sg, pc, lane, o)?;
        let v = self.defined(pc, lane, what, v)?;
        Ok(v.scalar().map_err(|e| self.fail(pc, e))? != 0)
    }

    /// A freshly computed result of `lane` at `pc`: poison born here gets the position.
    pub(crate) fn settle(&self, pc: Pc, mut v: Val) -> Val {
        if !matches!(v, Val::Bits(_) | Val::Bool(_) | Val::Ptr { .. }) && v.is_poisoned() {
            v.stamp(self.position(pc));
        }
        v
    }

    /// The value of operand `o` for `lane`.
    pub(crate) fn operand(&self, sg: &Subgroup, pc: Pc, lane: usize, o: Operand) -> R<Val> {
        match o {
            Operand::Value(v) => sg.lanes[lane].frames.last().expect("frame").vals
                [v.as_u32() as usize]
                .clone()
                .ok_or_else(|| {
                    self.fail(
                        pc,
                        OpFail::Undefined(format!("{v} used before it is defined")),
                    )
                }),
            Operand::Const(c) => Ok(self.machine.consts[c.as_u32() as usize].clone()),
            Operand::Global(g) => match sg.lanes[lane].globals[g.as_u32() as usize] {
                Some((mem, off)) => Ok(Val::Ptr { mem, off }),
                None => Err(MachineError::Config(format!(
                    "global {g} has no memory (unbound buffer or unsupported storage class)"
                ))),
            },
        }
    }

    /// Sets `lane`'s value `v` in its innermost frame.
    pub(crate) fn set(sg: &mut Subgroup, lane: usize, v: Value, val: Val) {
        sg.lanes[lane].frames.last_mut().expect("frame").vals[v.as_u32() as usize] = Some(val);
    }
}
