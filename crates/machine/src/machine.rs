//! The public entry point: preparing a dispatch (constants, specialization, workgroup size,
//! bindings) and running it under one policy, or searching every interleaving.

use std::collections::BTreeMap;
use std::sync::Arc;

use tangle_ir::{Form, Func, Module};
use tangle_lanes::value::{Born, Poison, Region, Val};
use tangle_sched::{Chooser, Policy};

use crate::config::{MachineConfig, EXHAUSTIVE_MAX_SUBGROUP};
use crate::decode::FuncFacts;
use crate::error::{MachineError, R};
use crate::outcome::{BarrierStats, Outcome};
use crate::schedule::Drive;
use crate::search::{Path, SearchCtx};
use crate::state::{Cursor, Run};

/// A compute dispatch of one entry point of a module in lowered form, on the barrier
/// machine. The same shape as the reference interpreter's `Interpreter`, so a runner can
/// switch engines.
pub struct Machine<'m> {
    pub(crate) module: &'m Module,
    pub(crate) entry: Func,
    pub(crate) config: MachineConfig,
    pub(crate) local_size: [u32; 3],
    pub(crate) consts: Vec<Val>,
    pub(crate) bindings: BTreeMap<(u32, u32), Region>,
    /// Descriptors that view bound buffers (see [`Machine::bind_views`]).
    pub(crate) views: tangle_lanes::descriptors::Views,
    pub(crate) push_constants: Vec<u8>,
    pub(crate) facts: Vec<FuncFacts>,
}

impl<'m> Machine<'m> {
    /// Prepares a dispatch of entry point `entry` of `module`. Every function the entry
    /// reaches must be lowered, or structured without merge annotations (straight-line or
    /// branch-free code is the same in both forms): the machine has no merge blocks to
    /// reconverge at, only barriers.
    pub fn new(module: &'m Module, entry: &str, config: MachineConfig) -> R<Self> {
        let ep = module
            .entry_points
            .iter()
            .find(|e| e.name == entry)
            .ok_or_else(|| MachineError::Config(format!("no entry point named {entry:?}")))?;
        for (f, func) in module.funcs.iter() {
            let structured =
                func.form != Form::Lowered && func.blocks.iter().any(|(_, b)| b.merge.is_some());
            if structured && tangle_ir::cfg::call_graph_reaches(module, ep.func, f) {
                return Err(MachineError::Config(format!(
                    "function {f} is structured (it has merge annotations); the barrier \
                     machine runs lowered functions"
                )));
            }
        }
        if config.convergence == crate::config::Convergence::Tokens {
            crate::tokens::check(module, ep.func)?;
        }
        let s = config.subgroup_size;
        if !(1..=128).contains(&s) || !s.is_power_of_two() {
            return Err(MachineError::Config(format!(
                "subgroup size {s} is not a power of two in 1..=128"
            )));
        }
        if config.policy == Policy::Exhaustive && s > EXHAUSTIVE_MAX_SUBGROUP {
            return Err(MachineError::Config(format!(
                "the exhaustive policy searches subgroups of up to {EXHAUSTIVE_MAX_SUBGROUP} \
                 lanes, not {s}"
            )));
        }
        if config.policy == Policy::Realistic {
            return Err(MachineError::Config(
                "the barrier machine does not support the `realistic` policy: the lowered IR \
                 has no yield"
                    .into(),
            ));
        }
        let consts = tangle_lanes::constants::evaluate(module, &config.spec_constants)
            .map_err(MachineError::Config)?;
        let local_size = tangle_lanes::builtins::workgroup_size(module, ep, &consts)
            .map_err(MachineError::Config)?;
        if local_size.contains(&0) || config.workgroups.contains(&0) {
            return Err(MachineError::Config("empty workgroup or dispatch".into()));
        }
        Ok(Machine {
            module,
            entry: ep.func,
            config,
            local_size,
            consts,
            bindings: BTreeMap::new(),
            views: BTreeMap::new(),
            push_constants: Vec::new(),
            facts: crate::decode::decode(module),
        })
    }

    /// The workgroup size after specialization.
    pub fn local_size(&self) -> [u32; 3] {
        self.local_size
    }

    /// Binds the bytes of the buffer at (set, binding).
    pub fn bind_buffer(&mut self, set: u32, binding: u32, bytes: Vec<u8>) {
        self.bindings.insert((set, binding), Region::defined(bytes));
    }

    /// Binds a buffer some of whose bytes are undefined (`undefined[i]` for byte `i`).
    pub fn bind_buffer_with_undefined(
        &mut self,
        set: u32,
        binding: u32,
        bytes: Vec<u8>,
        undefined: &[bool],
    ) {
        let p = Arc::new(Poison {
            born: Born::Input,
            why: format!("byte of the buffer at set {set} binding {binding}"),
        });
        self.bindings
            .insert((set, binding), Region::with_undefined(bytes, undefined, &p));
    }

    /// Binds the descriptor at (set, binding) to views of bound buffers, as
    /// `tangle_interp::Interpreter::bind_views` does: per element of a descriptor array (one
    /// for a plain descriptor), the key a buffer was bound at and the byte offset the view
    /// starts at; views of one buffer share its memory.
    pub fn bind_views(&mut self, set: u32, binding: u32, views: Vec<((u32, u32), u64)>) {
        self.views.insert((set, binding), views);
    }

    /// Sets the push-constant bytes.
    pub fn set_push_constants(&mut self, bytes: Vec<u8>) {
        self.push_constants = bytes;
    }

    /// Runs the dispatch under the configured policy. Under [`Policy::Exhaustive`] it
    /// searches every interleaving within the bound: the outcome is run 0's, with the
    /// search's counts, when every run completed and all agree; a cut-off search, a
    /// disagreement or any failing run is an error.
    pub fn run(&self) -> R<Outcome> {
        if self.config.policy == Policy::Exhaustive {
            return crate::explore::exhaustive(self);
        }
        self.run_once()
    }

    /// A run at the start of the dispatch (`ctx` when searching): the bound buffers and
    /// push constants in memory, no workgroup set up yet.
    pub(crate) fn start<'a>(&'a self, ctx: Option<&'a SearchCtx>) -> Run<'a, 'm> {
        let keys: Vec<(u32, u32)> = self.bindings.keys().copied().collect();
        let mut run = Run {
            machine: self,
            mems: Vec::new(),
            private: Vec::new(),
            variables: std::collections::HashMap::new(),
            scratch: Vec::new(),
            group_scratch: Vec::new(),
            trace: Vec::new(),
            steps: 0,
            lane_steps: 0,
            stats: BarrierStats::default(),
            workgroup: [0; 3],
            chooser: Chooser::new(self.config.policy),
            descriptors: std::sync::Arc::new(tangle_lanes::descriptors::DescriptorTable::new(
                &keys,
                &self.views,
            )),
            keys,
            cursor: Cursor::default(),
            ctx,
            path: Path::default(),
            tokens: crate::tokens::TokenState::default(),
        };
        // Regions 0..n: the bound buffers in key order; then the push constants.
        for k in run.keys.clone() {
            run.push_region(self.bindings[&k].clone(), false);
        }
        run.push_region(Region::defined(self.push_constants.clone()), false);
        run
    }

    /// One run under a policy that makes no choice of its own.
    fn run_once(&self) -> R<Outcome> {
        let mut run = self.start(None);
        match run.drive(None)? {
            Drive::Done => Ok(run.finish()),
            Drive::Choice(_) | Drive::Root(_) => Err(MachineError::Internal {
                at: run.position(run.cursor.sgs[run.cursor.sg_pos].groups[0].pc()),
                what: "a choice point outside the exhaustive search".into(),
            }),
        }
    }
}

impl Run<'_, '_> {
    /// The outcome of a run that reached the end of the dispatch.
    pub(crate) fn finish(self) -> Outcome {
        let keys = &self.keys;
        let buffers = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (*k, self.mems[i].bytes.clone()))
            .collect();
        let undefined = keys
            .iter()
            .enumerate()
            .filter_map(|(i, k)| Some((*k, self.mems[i].undefined_mask()?)))
            .collect();
        Outcome {
            buffers,
            undefined,
            trace: self.trace,
            steps: self.steps,
            lane_steps: self.lane_steps,
            stats: self.stats,
            search: None,
        }
    }
}
