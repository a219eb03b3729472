//! The public entry point: preparing a dispatch (constants, specialization, workgroup size)
//! and running it workgroup by workgroup.

use std::collections::BTreeMap;
use std::sync::Arc;

use tangle_ir::{Func, Module};

use crate::config::{Config, SchedulePolicy};
use crate::error::{InterpError, R};
use crate::state::Run;
use crate::trace::Outcome;
use crate::value::{Born, Poison, Region, Val};

/// A compute dispatch of one entry point.
pub struct Interpreter<'m> {
    pub(crate) module: &'m Module,
    pub(crate) entry: Func,
    pub(crate) config: Config,
    pub(crate) local_size: [u32; 3],
    pub(crate) consts: Vec<Val>,
    /// The constants as the engine reads operands (`slot.rs`).
    pub(crate) const_slots: Vec<crate::slot::Slot>,
    pub(crate) bindings: BTreeMap<(u32, u32), Region>,
    /// Descriptors that view bound buffers (see [`Interpreter::bind_views`]).
    pub(crate) views: tangle_lanes::descriptors::Views,
    pub(crate) push_constants: Vec<u8>,
    /// Operand and result types and phi counts, per function (see `decode.rs`).
    pub(crate) facts: Vec<crate::decode::FuncFacts>,
    /// How many function variables the module has (`decode.rs`).
    pub(crate) var_slots: usize,
    /// Whether the module has atomics (only then may a dispatch need a second run to find
    /// order-dependent values: `order/`).
    pub(crate) has_atomics: bool,
}

impl<'m> Interpreter<'m> {
    /// Prepares a dispatch of entry point `entry` of `module`.
    pub fn new(module: &'m Module, entry: &str, config: Config) -> R<Self> {
        let ep = module
            .entry_points
            .iter()
            .find(|e| e.name == entry)
            .ok_or_else(|| InterpError::Config(format!("no entry point named {entry:?}")))?;
        // The interpreter follows structured control flow (merge blocks are where tangles
        // reconverge); a lowered function has none to follow.
        if let Some((f, _)) = module.funcs.iter().find(|(f, func)| {
            func.form == tangle_ir::Form::Lowered
                && tangle_ir::cfg::call_graph_reaches(module, ep.func, *f)
        }) {
            return Err(InterpError::Config(format!(
                "function {f} is lowered; the reference interpreter runs structured functions only"
            )));
        }
        // SPIR-V forbids recursion for shaders; the engine keeps one frame of values per
        // function and lane, which relies on it.
        let reachable: Vec<Func> = module
            .funcs
            .keys()
            .filter(|f| tangle_ir::cfg::call_graph_reaches(module, ep.func, *f))
            .collect();
        for &f in &reachable {
            for c in tangle_ir::cfg::callees(&module.funcs[f]) {
                if module.funcs.contains(c) && tangle_ir::cfg::call_graph_reaches(module, c, f) {
                    return Err(InterpError::Config(format!(
                        "function {f} is recursive (calls {c}, which reaches it again); \
                         SPIR-V forbids recursion in shaders"
                    )));
                }
            }
        }
        check_subgroup_size(config.subgroup_size)?;
        let consts = tangle_lanes::constants::evaluate(module, &config.spec_constants)
            .map_err(InterpError::Config)?;
        let local_size = tangle_lanes::builtins::workgroup_size(module, ep, &consts)
            .map_err(InterpError::Config)?;
        if local_size.contains(&0) || config.workgroups.contains(&0) {
            return Err(InterpError::Config("empty workgroup or dispatch".into()));
        }
        let merge_cases = config.fallthrough_policy == crate::config::FallthroughPolicy::Merge;
        let (facts, var_slots) = crate::decode::decode(module, &consts, merge_cases);
        Ok(Interpreter {
            module,
            entry: ep.func,
            config,
            local_size,
            bindings: BTreeMap::new(),
            views: BTreeMap::new(),
            push_constants: Vec::new(),
            facts,
            var_slots,
            has_atomics: module.funcs.values().any(|f| {
                f.insts
                    .values()
                    .any(|i| matches!(i.op, tangle_ir::Op::Atomic { .. }))
            }),
            const_slots: consts
                .iter()
                .enumerate()
                .map(|(c, v)| crate::slot::Slot::constant(c, v))
                .collect(),
            consts,
        })
    }

    /// The workgroup size after specialization.
    pub fn local_size(&self) -> [u32; 3] {
        self.local_size
    }

    /// Changes the subgroup size of the prepared dispatch. Nothing prepared depends on it
    /// (constants, the workgroup size and the decoded functions do not), so a runner that
    /// picks the size from [`Interpreter::local_size`] prepares once instead of twice; the
    /// size is checked as [`Interpreter::new`] checks it.
    pub fn set_subgroup_size(&mut self, size: u32) -> R<()> {
        check_subgroup_size(size)?;
        self.config.subgroup_size = size;
        Ok(())
    }

    /// Changes how many workgroups the dispatch runs (checked as [`Interpreter::new`] checks
    /// it: none may be zero).
    pub fn set_workgroups(&mut self, workgroups: [u32; 3]) -> R<()> {
        if workgroups.contains(&0) {
            return Err(InterpError::Config("empty workgroup or dispatch".into()));
        }
        self.config.workgroups = workgroups;
        Ok(())
    }

    /// Binds the bytes of the buffer at (set, binding).
    pub fn bind_buffer(&mut self, set: u32, binding: u32, bytes: Vec<u8>) {
        self.bindings.insert((set, binding), Region::defined(bytes));
    }

    /// Binds a buffer some of whose bytes are undefined (`undefined[i]` for byte `i`, as an
    /// earlier run's [`Outcome::undefined`] gives them): reading them yields undefined
    /// values, as if the earlier dispatch had continued.
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
        let region = Region::with_undefined(bytes, undefined, &p);
        self.bindings.insert((set, binding), region);
    }

    /// Binds the descriptor at (set, binding) to views of bound buffers: per element of a
    /// descriptor array (one for a plain descriptor), the key a buffer was bound at
    /// ([`Interpreter::bind_buffer`]) and the byte offset the view starts at. Views of one
    /// buffer share its memory, so a buffer seen through several descriptors stays one
    /// buffer; the outcome reports it at its key. A view takes precedence over a buffer
    /// bound at the same key.
    pub fn bind_views(&mut self, set: u32, binding: u32, views: Vec<((u32, u32), u64)>) {
        self.views.insert((set, binding), views);
    }

    /// Sets the push-constant bytes.
    pub fn set_push_constants(&mut self, bytes: Vec<u8>) {
        self.push_constants = bytes;
    }

    /// Runs the dispatch. Workgroups run one after another in x-major order (x fastest).
    pub fn run(&self) -> R<Outcome> {
        self.run_with(None)
    }

    /// Runs the dispatch like [`Interpreter::run`], showing `observer` every instruction
    /// executed with each lane's operand and result values (a checker's hook; it cannot
    /// change the run).
    pub fn run_observed(&self, observer: &mut dyn crate::observe::Observer) -> R<Outcome> {
        self.run_with(Some(observer))
    }

    /// Runs the dispatch like [`Interpreter::run`], consuming the prepared dispatch: the
    /// bound buffers move into the run instead of being copied (a runner that prepares a
    /// dispatch per run copies each buffer once less).
    pub fn run_once(mut self) -> R<Outcome> {
        let bindings = std::mem::take(&mut self.bindings);
        self.run_inner(None, Some(bindings))
    }

    fn run_with<'s>(
        &'s self,
        observer: Option<&'s mut (dyn crate::observe::Observer + 's)>,
    ) -> R<Outcome> {
        self.run_inner(observer, None)
    }

    /// Runs the dispatch on `bindings` when given (moved in), else on copies of the bound
    /// buffers.
    fn run_inner<'s>(
        &'s self,
        observer: Option<&'s mut (dyn crate::observe::Observer + 's)>,
        bindings: Option<BTreeMap<(u32, u32), Region>>,
    ) -> R<Outcome> {
        // A module with atomics may need a second run on the same inputs (`order/`).
        let again = match &bindings {
            Some(b) if self.has_atomics => Some(b.clone()),
            _ => None,
        };
        let (outcome, races) = self.run_pass(observer, bindings, None)?;
        if self.config.variant == crate::Variant::NoOrderDependence {
            return Ok(outcome);
        }
        let Some(decided) = races.and_then(|r| r.decide(self.module)) else {
            return Ok(outcome);
        };
        let taint = Box::new(crate::order::Taint::new(decided));
        let (outcome, _) = self.run_pass(None, again, Some(taint))?;
        Ok(outcome)
    }

    /// One run of the dispatch (see [`Interpreter::run_inner`]); `order` is the second
    /// run's state where one is needed. Returns the outcome and the record of atomics.
    fn run_pass<'s>(
        &'s self,
        observer: Option<&'s mut (dyn crate::observe::Observer + 's)>,
        bindings: Option<BTreeMap<(u32, u32), Region>>,
        order: Option<Box<crate::order::Taint>>,
    ) -> R<(Outcome, Option<Box<crate::order::Races>>)> {
        let seed = match self.config.schedule_policy {
            SchedulePolicy::Random(s) => s | 1,
            _ => 1,
        };
        let mut run = Run {
            it: self,
            mems: Vec::new(),
            spare_regions: crate::recycle::take(),
            global_templates: Vec::new(),
            bound: Vec::new(),
            descriptors: Default::default(),
            variables: Vec::new(),
            variable_poison: vec![None; self.var_slots],
            global_poison: vec![None; self.module.globals.len()],
            scratch: Vec::new(),
            slot_scratch: Vec::new(),
            group_scratch: Vec::new(),
            trace: Vec::new(),
            steps: 0,
            lane_steps: 0,
            serial: 0,
            rng: seed,
            workgroup: [0; 3],
            observer,
            races: None,
            phase: 0,
            order,
        };
        // Regions 0..n: the bound buffers in key order; then the push constants.
        let keys: Vec<(u32, u32)> = match &bindings {
            Some(b) => b.keys().copied().collect(),
            None => self.bindings.keys().copied().collect(),
        };
        match bindings {
            Some(b) => run.mems.extend(b.into_values()),
            None => run.mems.extend(self.bindings.values().cloned()),
        }
        run.mems.push(Region::defined(self.push_constants.clone()));
        // Room for a region per invocation of a workgroup and global or function variable
        // (`memory.rs`), so the vector does not grow step by step.
        let [lx, ly, lz] = self.local_size;
        let per_lane = self.module.globals.len() + self.var_slots;
        run.mems.reserve((lx * ly * lz) as usize * per_lane.min(64));
        run.bound.clone_from(&keys);
        run.descriptors = tangle_lanes::descriptors::DescriptorTable::new(&keys, &self.views);
        let [gx, gy, gz] = self.config.workgroups;
        for z in 0..gz {
            for y in 0..gy {
                for x in 0..gx {
                    run.workgroup([x, y, z], &keys)?;
                }
            }
        }
        let undefined = keys
            .iter()
            .enumerate()
            .filter_map(|(i, k)| Some((*k, run.mems[i].undefined_mask()?)))
            .collect();
        let order_dependent = match &run.order {
            Some(o) => keys
                .iter()
                .enumerate()
                .filter_map(|(i, k)| Some((*k, o.outcome(i as u32, run.mems[i].len())?)))
                .collect(),
            None => BTreeMap::new(),
        };
        let memory_bytes = run.mems.iter().map(|r| r.len() as u64).sum();
        // The run ends here: its buffers' bytes move into the outcome.
        let buffers = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (*k, std::mem::take(&mut run.mems[i].bytes)))
            .collect();
        crate::recycle::keep(std::mem::take(&mut run.spare_regions), run.mems.drain(..));
        let outcome = Outcome {
            memory_bytes,
            buffers,
            undefined,
            order_dependent,
            trace: run.trace,
            steps: run.steps,
            lane_steps: run.lane_steps,
        };
        Ok((outcome, run.races))
    }
}

/// The error for a subgroup size the engine does not run (a power of two in 1..=128).
fn check_subgroup_size(s: u32) -> R<()> {
    if !(1..=128).contains(&s) || !s.is_power_of_two() {
        return Err(InterpError::Config(format!(
            "subgroup size {s} is not a power of two in 1..=128"
        )));
    }
    Ok(())
}
