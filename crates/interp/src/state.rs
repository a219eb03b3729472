//! The engine state: tangles, their construct instances, lanes and the running dispatch.

use tangle_ir::{Block, Func, Inst, Module, Operand, Value};

use crate::error::{InterpError, Position, UndefinedUse, R};
use crate::interpreter::Interpreter;
use crate::trace::TraceEntry;
use crate::value::{OpFail, Region, Val};
use crate::Mask;

/// One call frame of a tangle: where it is.
#[derive(Clone, Debug)]
pub(crate) struct TFrame {
    pub(crate) func: Func,
    pub(crate) block: Block,
    pub(crate) idx: usize,
}

/// One call frame of a lane: its SSA values and the block it came from (for phis).
#[derive(Clone, Debug)]
pub(crate) struct LaneFrame {
    pub(crate) vals: Vec<Option<Val>>,
    pub(crate) prev: Option<Block>,
}

/// One invocation: its value frames and the memory of each global.
#[derive(Clone, Debug)]
pub(crate) struct Lane {
    pub(crate) frames: Vec<LaneFrame>,
    /// Memory region of each global for this lane (buffers, shared, private, input).
    pub(crate) globals: Vec<Option<u32>>,
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
    pub(crate) lanes: Vec<Lane>,
    pub(crate) instances: Vec<Option<Instance>>,
    pub(crate) free: Vec<usize>,
    pub(crate) tangles: Vec<Tangle>,
}

impl Subgroup {
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

/// The state of a running dispatch.
pub(crate) struct Run<'a, 'm> {
    pub(crate) it: &'a Interpreter<'m>,
    pub(crate) mems: Vec<Region>,
    /// The region of each (subgroup, lane, function, variable instruction): reused by the
    /// next execution of the same variable (see `memory.rs`).
    pub(crate) variables: std::collections::HashMap<(u32, u32, Func, Inst), u32>,
    /// A reused buffer for one lane's operand values.
    pub(crate) scratch: Vec<Val>,
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
}

impl Run<'_, '_> {
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

    /// The value of operand `o` for `lane`, which must be fully defined because it is used
    /// as `what`.
    pub(crate) fn defined_operand(
        &self,
        sg: &Subgroup,
        t: &Tangle,
        lane: usize,
        o: Operand,
        what: &str,
    ) -> R<Val> {
        let v = self.operand(sg, t, lane, o)?;
        self.defined(t, lane, what, v)
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

    /// The value of operand `o` for `lane`.
    pub(crate) fn operand(&self, sg: &Subgroup, t: &Tangle, lane: usize, o: Operand) -> R<Val> {
        match o {
            Operand::Value(v) => sg.lanes[lane].frames.last().expect("frame").vals
                [v.as_u32() as usize]
                .clone()
                .ok_or_else(|| {
                    self.fail(
                        t,
                        OpFail::Undefined(format!("{v} used before it is defined")),
                    )
                }),
            Operand::Const(c) => Ok(self.it.consts[c.as_u32() as usize].clone()),
            Operand::Global(g) => match sg.lanes[lane].globals[g.as_u32() as usize] {
                Some(mem) => Ok(Val::Ptr { mem, off: 0 }),
                None => Err(InterpError::Config(format!(
                    "global {g} has no memory (unbound buffer or unsupported storage class)"
                ))),
            },
        }
    }

    /// The values of operands `ops` for `lane`.
    pub(crate) fn operands(
        &self,
        sg: &Subgroup,
        t: &Tangle,
        lane: usize,
        ops: &[Operand],
    ) -> R<Vec<Val>> {
        ops.iter().map(|o| self.operand(sg, t, lane, *o)).collect()
    }

    /// Sets `lane`'s value `v` in its innermost frame.
    pub(crate) fn set(sg: &mut Subgroup, lane: usize, v: Value, val: Val) {
        sg.lanes[lane].frames.last_mut().expect("frame").vals[v.as_u32() as usize] = Some(val);
    }
}
