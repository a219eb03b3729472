//! tangle's reference interpreter: runs a compute entry point of an IR module with the exact
//! tangle semantics of SPIR-V maximal reconvergence (`SPV_KHR_maximal_reconvergence`).
//!
//! The model (see `docs/interp.md`): every tangle carries a stack of *construct
//! instances* (selection, loop, loop iteration, call). An instance records its participants
//! (the lanes that entered it, minus those that escaped it or terminated) and the lanes
//! that have arrived at its reconvergence point. When every participant has arrived, the
//! arrivals continue as one tangle. Implementation-defined choices are named policies.

use std::collections::BTreeMap;
use std::fmt;

use spirv::{BuiltIn, Scope, StorageClass};
use tangle_ir::{
    Block, Const, ConstValue, ExecMode, Func, Global, Inst, Merge, Module, Op, Operand, Terminator,
    Type, TypeData, Value,
};

pub mod group;
pub mod value;

use value::{OpFail, Val};

/// A set of lanes of one subgroup (bit `i` = subgroup invocation `i`).
pub type Mask = u128;

/// How `switch` partitions a tangle (implementation-defined by the specification).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SwitchPolicy {
    /// One tangle per case *target* block: lanes with different selector values that go to
    /// the same block stay together (the largest partition the specification allows).
    #[default]
    ByTarget,
    /// One tangle per selector value (the smallest partition allowed).
    BySelector,
}

/// What happens where a case construct falls through into the next case target.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FallthroughPolicy {
    /// The fallthrough lanes run the next case on their own; they do not wait for the lanes
    /// that switched to it directly (nor those for them).
    #[default]
    Independent,
    /// The lanes switching directly to a case target wait for the lanes of the case
    /// constructs that can fall through into it (those that fall through, or leave); they
    /// run the case as one tangle.
    Merge,
}

/// The order in which runnable tangles of a subgroup run. Tangle composition never depends
/// on it; only the interleaving of memory accesses between tangles does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SchedulePolicy {
    /// The tangle holding the lowest lane first.
    #[default]
    LowestLaneFirst,
    /// The most recently created tangle first.
    NewestFirst,
    /// A pseudo-random tangle (xorshift64 with this seed), switching after every step.
    Random(u64),
}

/// Which semantics to run. Everything but [`Variant::Maximal`] is a known-wrong model kept so
/// that the rule tests can show they catch it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Variant {
    /// The specification's maximal reconvergence.
    #[default]
    Maximal,
    /// No reconvergence at loop continue targets (seed 000's first attempt).
    NoContinueReconvergence,
    /// No reconvergence after a function call: each tangle returns on its own.
    NoCallReconvergence,
    /// Lanes leaving a loop wait for each other *before* their break block instead of at the
    /// merge, so break blocks run once for all iterations together.
    BreakNotSplitByIteration,
}

/// Run configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// Invocations per subgroup: a power of two in 1..=128.
    pub subgroup_size: u32,
    /// Workgroups dispatched in x, y, z.
    pub workgroups: [u32; 3],
    /// Specialization constant overrides by `SpecId`: the value's bit pattern (booleans 0/1).
    pub spec_constants: BTreeMap<u32, u64>,
    /// Switch partition policy.
    pub switch_policy: SwitchPolicy,
    /// Switch fallthrough policy.
    pub fallthrough_policy: FallthroughPolicy,
    /// Tangle scheduling policy.
    pub schedule_policy: SchedulePolicy,
    /// The most tangle-instructions (instructions and terminators executed by one tangle) a
    /// run may take.
    pub step_budget: u64,
    /// Whether to record the trace of subgroup operations.
    pub record_trace: bool,
    /// The semantics.
    pub variant: Variant,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            subgroup_size: 32,
            workgroups: [1, 1, 1],
            spec_constants: BTreeMap::new(),
            switch_policy: SwitchPolicy::default(),
            fallthrough_policy: FallthroughPolicy::default(),
            schedule_policy: SchedulePolicy::default(),
            step_budget: 10_000_000,
            record_trace: true,
            variant: Variant::Maximal,
        }
    }
}

/// Where an instruction is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// The function.
    pub func: Func,
    /// The block.
    pub block: Block,
    /// The instruction; `None` for the block's terminator.
    pub inst: Option<Inst>,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inst {
            Some(i) => write!(f, "{} {} {}", self.func, self.block, i),
            None => write!(f, "{} {} terminator", self.func, self.block),
        }
    }
}

/// One dynamic subgroup operation: which tangle executed it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct TraceEntry {
    /// The workgroup id.
    pub workgroup: [u32; 3],
    /// The subgroup id within the workgroup.
    pub subgroup: u32,
    /// The function.
    pub func: Func,
    /// The instruction.
    pub inst: Inst,
    /// The tangle (subgroup invocation ids).
    pub mask: Mask,
}

/// The result of a run.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Every bound buffer after the run, by (set, binding).
    pub buffers: BTreeMap<(u32, u32), Vec<u8>>,
    /// The subgroup operations in execution order (empty unless recorded).
    pub trace: Vec<TraceEntry>,
    /// Tangle-instructions executed.
    pub steps: u64,
    /// Lane-instructions executed (each tangle-instruction counts its lanes).
    pub lane_steps: u64,
}

/// Why a run failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum InterpError {
    /// The configuration or the bindings do not fit the module.
    #[error("configuration: {0}")]
    Config(String),
    /// Something the interpreter does not implement.
    #[error("unsupported at {at}: {what}")]
    Unsupported {
        /// Where.
        at: Position,
        /// What.
        what: String,
    },
    /// A memory access outside its buffer or variable.
    #[error("out-of-bounds access at {at}: {what}")]
    OutOfBounds {
        /// Where.
        at: Position,
        /// What.
        what: String,
    },
    /// An operation whose result the specification leaves undefined.
    #[error("undefined behaviour at {at}: {what}")]
    Undefined {
        /// Where.
        at: Position,
        /// What.
        what: String,
    },
    /// No tangle can run and some lanes have not finished.
    #[error("deadlock in workgroup {workgroup:?}:\n{tangles}")]
    Deadlock {
        /// The workgroup.
        workgroup: [u32; 3],
        /// Where every tangle of every subgroup waits.
        tangles: String,
    },
    /// The step budget ran out.
    #[error("step budget of {budget} exhausted in workgroup {workgroup:?}:\n{tangles}")]
    Budget {
        /// The budget.
        budget: u64,
        /// The workgroup.
        workgroup: [u32; 3],
        /// Where every tangle of every subgroup is.
        tangles: String,
    },
}

type R<T> = Result<T, InterpError>;

// ---------------------------------------------------------------------------------------
// Engine state

#[derive(Clone, Debug)]
struct TFrame {
    func: Func,
    block: Block,
    idx: usize,
}

#[derive(Clone, Debug)]
struct LaneFrame {
    vals: Vec<Option<Val>>,
    prev: Option<Block>,
}

#[derive(Clone, Debug)]
struct Lane {
    frames: Vec<LaneFrame>,
    /// Memory region of each global for this lane (buffers, shared, private, input).
    globals: Vec<Option<u32>>,
    alive: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Selection { merge: Block },
    Case { target: Block },
    Loop { header: Block, merge: Block },
    Iteration { cont: Block },
    Call { dest: Option<Value> },
}

#[derive(Clone, Debug)]
struct Instance {
    kind: Kind,
    participants: Mask,
    arrivals: Vec<(Block, Mask)>,
    frames: Vec<TFrame>,
    below: Vec<usize>,
}

#[derive(Clone, Debug)]
struct Tangle {
    serial: u64,
    mask: Mask,
    frames: Vec<TFrame>,
    stack: Vec<usize>,
    at_barrier: bool,
}

struct Subgroup {
    index: u32,
    lanes: Vec<Lane>,
    instances: Vec<Option<Instance>>,
    free: Vec<usize>,
    tangles: Vec<Tangle>,
}

impl Subgroup {
    fn inst(&self, id: usize) -> &Instance {
        self.instances[id].as_ref().expect("live instance")
    }
    fn inst_mut(&mut self, id: usize) -> &mut Instance {
        self.instances[id].as_mut().expect("live instance")
    }
    fn alloc(&mut self, i: Instance) -> usize {
        if let Some(id) = self.free.pop() {
            self.instances[id] = Some(i);
            id
        } else {
            self.instances.push(Some(i));
            self.instances.len() - 1
        }
    }
}

/// Whether the case construct of switch target `from` branches into target `to`: a path
/// from `from` to `to` that passes through neither the switch header, its merge, nor another
/// target (any other path to `to` would go through the header).
fn falls_into(
    func: &tangle_ir::Function,
    from: Block,
    to: Block,
    header: Block,
    merge: Block,
    targets: &[Block],
) -> bool {
    let mut seen = vec![from];
    let mut work = vec![from];
    while let Some(b) = work.pop() {
        for s in func.blocks[b].term.successors() {
            if s == to {
                return true;
            }
            if s == header || s == merge || targets.contains(&s) || seen.contains(&s) {
                continue;
            }
            seen.push(s);
            work.push(s);
        }
    }
    false
}

/// Lanes of a mask in increasing order.
fn lanes_of(m: Mask) -> impl Iterator<Item = usize> {
    let mut m = m;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}

/// A compute dispatch of one entry point.
pub struct Interpreter<'m> {
    module: &'m Module,
    entry: Func,
    config: Config,
    local_size: [u32; 3],
    consts: Vec<Val>,
    bindings: BTreeMap<(u32, u32), Vec<u8>>,
    push_constants: Vec<u8>,
}

/// The state of a running dispatch.
struct Run<'a, 'm> {
    it: &'a Interpreter<'m>,
    mems: Vec<Vec<u8>>,
    trace: Vec<TraceEntry>,
    steps: u64,
    lane_steps: u64,
    serial: u64,
    rng: u64,
    workgroup: [u32; 3],
}

impl<'m> Interpreter<'m> {
    /// Prepares a dispatch of entry point `entry` of `module`.
    pub fn new(module: &'m Module, entry: &str, config: Config) -> R<Self> {
        let ep = module
            .entry_points
            .iter()
            .find(|e| e.name == entry)
            .ok_or_else(|| InterpError::Config(format!("no entry point named {entry:?}")))?;
        let s = config.subgroup_size;
        if !(1..=128).contains(&s) || !s.is_power_of_two() {
            return Err(InterpError::Config(format!(
                "subgroup size {s} is not a power of two in 1..=128"
            )));
        }
        let mut consts: Vec<Val> = Vec::with_capacity(module.consts.len());
        for (c, _) in module.consts.iter() {
            let v = eval_const(module, &config, &consts, c)?;
            consts.push(v);
        }
        let mut local_size = None;
        for m in &ep.modes {
            match m {
                ExecMode::LocalSize(s) => local_size = Some(*s),
                ExecMode::LocalSizeId(ids) => {
                    local_size = Some(ids.map(|c| consts[c.as_u32() as usize].bits() as u32))
                }
                _ => {}
            }
        }
        for (c, d) in module.consts.iter() {
            if d.builtin == Some(BuiltIn::WorkgroupSize) {
                if let Val::Comp(v) = &consts[c.as_u32() as usize] {
                    local_size = Some([v[0].bits() as u32, v[1].bits() as u32, v[2].bits() as u32]);
                }
            }
        }
        let local_size = local_size
            .ok_or_else(|| InterpError::Config("entry point has no workgroup size".into()))?;
        if local_size.contains(&0) || config.workgroups.contains(&0) {
            return Err(InterpError::Config("empty workgroup or dispatch".into()));
        }
        Ok(Interpreter {
            module,
            entry: ep.func,
            config,
            local_size,
            consts,
            bindings: BTreeMap::new(),
            push_constants: Vec::new(),
        })
    }

    /// The workgroup size after specialization.
    pub fn local_size(&self) -> [u32; 3] {
        self.local_size
    }

    /// Binds the bytes of the buffer at (set, binding).
    pub fn bind_buffer(&mut self, set: u32, binding: u32, bytes: Vec<u8>) {
        self.bindings.insert((set, binding), bytes);
    }

    /// Sets the push-constant bytes.
    pub fn set_push_constants(&mut self, bytes: Vec<u8>) {
        self.push_constants = bytes;
    }

    /// Runs the dispatch. Workgroups run one after another in x-major order (x fastest).
    pub fn run(&self) -> R<Outcome> {
        let seed = match self.config.schedule_policy {
            SchedulePolicy::Random(s) => s | 1,
            _ => 1,
        };
        let mut run = Run {
            it: self,
            mems: Vec::new(),
            trace: Vec::new(),
            steps: 0,
            lane_steps: 0,
            serial: 0,
            rng: seed,
            workgroup: [0; 3],
        };
        // Regions 0..n: the bound buffers in key order; then the push constants.
        let keys: Vec<(u32, u32)> = self.bindings.keys().copied().collect();
        for k in &keys {
            run.mems.push(self.bindings[k].clone());
        }
        run.mems.push(self.push_constants.clone());
        let [gx, gy, gz] = self.config.workgroups;
        for z in 0..gz {
            for y in 0..gy {
                for x in 0..gx {
                    run.workgroup([x, y, z], &keys)?;
                }
            }
        }
        let buffers = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (*k, run.mems[i].clone()))
            .collect();
        Ok(Outcome {
            buffers,
            trace: run.trace,
            steps: run.steps,
            lane_steps: run.lane_steps,
        })
    }
}

fn eval_const(module: &Module, config: &Config, done: &[Val], c: Const) -> R<Val> {
    let d = &module.consts[c];
    let get = |c: &Const| done[c.as_u32() as usize].clone();
    let bad = |what: String| InterpError::Config(format!("constant {c}: {what}"));
    Ok(match &d.value {
        ConstValue::Bool(b) => {
            let b = match (
                d.spec,
                d.spec_id.and_then(|id| config.spec_constants.get(&id)),
            ) {
                (true, Some(v)) => *v != 0,
                _ => *b,
            };
            Val::Bool(b)
        }
        ConstValue::Bits(b) => match (
            d.spec,
            d.spec_id.and_then(|id| config.spec_constants.get(&id)),
        ) {
            (true, Some(v)) => Val::Bits(*v & value::mask(module.types.bit_width(d.ty))),
            _ => Val::Bits(*b),
        },
        ConstValue::Composite(cs) => Val::Comp(cs.iter().map(get).collect()),
        ConstValue::Null | ConstValue::Undef => value::zero(&module.types, d.ty),
        ConstValue::SpecOp(op, args) => {
            let vals: Vec<Val> = args.iter().map(get).collect();
            let tys: Vec<Type> = args.iter().map(|a| module.consts[*a].ty).collect();
            match op {
                Op::Plain(p) => value::plain(&module.types, *p, d.ty, &tys, &vals)
                    .map_err(|e| bad(format!("{e:?}")))?,
                Op::CompositeExtract(idx) => {
                    let mut v = vals[0].clone();
                    for i in idx {
                        v = match v {
                            Val::Comp(c) => c[*i as usize].clone(),
                            _ => return Err(bad("extract from a scalar".into())),
                        };
                    }
                    v
                }
                other => return Err(bad(format!("spec op {} unsupported", other.mnemonic()))),
            }
        }
    })
}

/// Where a branch goes, seen from a tangle's construct stack.
enum Dest {
    /// Escape to (or arrive at) the instance at this stack index.
    Wait(usize),
    /// Just move there.
    Plain,
}

impl Run<'_, '_> {
    fn module(&self) -> &Module {
        self.it.module
    }

    fn next_serial(&mut self) -> u64 {
        self.serial += 1;
        self.serial
    }

    /// Runs one workgroup to completion.
    fn workgroup(&mut self, wg: [u32; 3], keys: &[(u32, u32)]) -> R<()> {
        self.workgroup = wg;
        let it = self.it;
        let m = it.module;
        let [lx, ly, lz] = it.local_size;
        let total = lx * ly * lz;
        let ssize = it.config.subgroup_size;
        let nsub = total.div_ceil(ssize);
        // Shared memory for this workgroup.
        let mut shared: Vec<Option<u32>> = vec![None; m.globals.len()];
        for (g, gd) in m.globals.iter() {
            if gd.storage == StorageClass::Workgroup {
                shared[g.as_u32() as usize] = Some(self.alloc_global(g));
            }
        }
        let func = &m.funcs[it.entry];
        let entry_block = func
            .entry()
            .ok_or_else(|| InterpError::Config("entry has no body".into()))?;
        let mut subgroups = Vec::new();
        for s in 0..nsub {
            let mut lanes = Vec::new();
            let count = ssize.min(total - s * ssize);
            for l in 0..count {
                let local = s * ssize + l;
                let lid = [local % lx, (local / lx) % ly, local / (lx * ly)];
                let mut globals = vec![None; m.globals.len()];
                for (g, gd) in m.globals.iter() {
                    let gi = g.as_u32() as usize;
                    globals[gi] = match gd.storage {
                        StorageClass::Workgroup => shared[gi],
                        StorageClass::StorageBuffer | StorageClass::Uniform => {
                            match (gd.decorations.set, gd.decorations.binding) {
                                (Some(st), Some(b)) => {
                                    keys.iter().position(|k| *k == (st, b)).map(|p| p as u32)
                                }
                                _ => None,
                            }
                        }
                        StorageClass::PushConstant => Some(keys.len() as u32),
                        StorageClass::Private | StorageClass::Output => Some(self.alloc_global(g)),
                        StorageClass::Input => {
                            let id = self.alloc_global(g);
                            if let Some(b) = gd.decorations.builtin {
                                let v = self.builtin(b, wg, lid, local, s, l, count, nsub)?;
                                let (_, pointee) = m.types.pointer(gd.ty).expect("pointer");
                                value::write(&m.types, &mut self.mems[id as usize], 0, pointee, &v)
                                    .ok_or_else(|| {
                                        InterpError::Config(format!(
                                            "built-in {b:?} has an unexpected type"
                                        ))
                                    })?;
                            }
                            Some(id)
                        }
                        _ => None,
                    };
                }
                lanes.push(Lane {
                    frames: vec![LaneFrame {
                        vals: vec![None; func.values.len()],
                        prev: None,
                    }],
                    globals,
                    alive: true,
                });
            }
            let mask: Mask = if count >= 128 {
                Mask::MAX
            } else {
                (1 << count) - 1
            };
            let serial = self.next_serial();
            let mut sg = Subgroup {
                index: s,
                lanes,
                instances: Vec::new(),
                free: Vec::new(),
                tangles: Vec::new(),
            };
            let t = Tangle {
                serial,
                mask,
                frames: vec![TFrame {
                    func: it.entry,
                    block: entry_block,
                    idx: 0,
                }],
                stack: Vec::new(),
                at_barrier: false,
            };
            let t = self.enter(&mut sg, t)?;
            sg.tangles.push(t);
            subgroups.push(sg);
        }
        loop {
            let mut ran = false;
            for si in 0..subgroups.len() {
                while let Some(i) = self.pick(&subgroups[si]) {
                    ran = true;
                    let t = subgroups[si].tangles.swap_remove(i);
                    if let Err(e) = self.run_tangle(&mut subgroups[si], t) {
                        return Err(self.decorate(e, &self.describe(&subgroups)));
                    }
                }
            }
            if ran {
                continue;
            }
            // Nothing runnable: release a workgroup barrier, finish, or report a deadlock.
            let live: u32 = subgroups
                .iter()
                .map(|s| s.lanes.iter().filter(|l| l.alive).count() as u32)
                .sum();
            if live == 0 {
                return Ok(());
            }
            let at_barrier: u32 = subgroups
                .iter()
                .flat_map(|s| s.tangles.iter())
                .filter(|t| t.at_barrier)
                .map(|t| t.mask.count_ones())
                .sum();
            if at_barrier == live {
                for s in subgroups.iter_mut() {
                    for t in s.tangles.iter_mut() {
                        t.at_barrier = false;
                    }
                }
                continue;
            }
            return Err(InterpError::Deadlock {
                workgroup: wg,
                tangles: self.describe(&subgroups),
            });
        }
    }

    fn decorate(&self, e: InterpError, subgroups: &str) -> InterpError {
        match e {
            InterpError::Budget {
                budget, workgroup, ..
            } => InterpError::Budget {
                budget,
                workgroup,
                tangles: subgroups.to_string(),
            },
            e => e,
        }
    }

    fn describe(&self, subgroups: &[Subgroup]) -> String {
        let mut out = String::new();
        for s in subgroups {
            describe_sg(&mut out, s);
        }
        out
    }

    fn alloc_global(&mut self, g: Global) -> u32 {
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

    #[allow(clippy::too_many_arguments)]
    fn builtin(
        &self,
        b: BuiltIn,
        wg: [u32; 3],
        lid: [u32; 3],
        local: u32,
        sgid: u32,
        lane: u32,
        count: u32,
        nsub: u32,
    ) -> R<Val> {
        let it = self.it;
        let v3 = |a: [u32; 3]| Val::Comp(a.iter().map(|x| Val::Bits(u64::from(*x))).collect());
        let u = |x: u32| Val::Bits(u64::from(x));
        let _ = count;
        let ls = it.local_size;
        let lane_bit: Mask = 1 << lane;
        // Mask built-ins have no bits at or above SubgroupSize.
        let size = it.config.subgroup_size;
        let in_size: Mask = if size >= 128 {
            Mask::MAX
        } else {
            (1 << size) - 1
        };
        Ok(match b {
            BuiltIn::LocalInvocationId => v3(lid),
            BuiltIn::LocalInvocationIndex => u(local),
            BuiltIn::WorkgroupId => v3(wg),
            BuiltIn::NumWorkgroups => v3(it.config.workgroups),
            BuiltIn::WorkgroupSize => v3(ls),
            BuiltIn::GlobalInvocationId => v3([
                wg[0] * ls[0] + lid[0],
                wg[1] * ls[1] + lid[1],
                wg[2] * ls[2] + lid[2],
            ]),
            BuiltIn::SubgroupSize => u(it.config.subgroup_size),
            BuiltIn::SubgroupLocalInvocationId => u(lane),
            BuiltIn::SubgroupId => u(sgid),
            BuiltIn::NumSubgroups => u(nsub),
            BuiltIn::SubgroupEqMask => group::ballot_val(lane_bit),
            BuiltIn::SubgroupGeMask => group::ballot_val(!(lane_bit - 1) & in_size),
            BuiltIn::SubgroupGtMask => group::ballot_val(!(lane_bit - 1) & !lane_bit & in_size),
            BuiltIn::SubgroupLeMask => group::ballot_val((lane_bit - 1) | lane_bit),
            BuiltIn::SubgroupLtMask => group::ballot_val(lane_bit - 1),
            other => {
                return Err(InterpError::Config(format!(
                    "built-in {other:?} unsupported"
                )))
            }
        })
    }

    fn pick(&mut self, sg: &Subgroup) -> Option<usize> {
        let runnable = sg.tangles.iter().enumerate().filter(|(_, t)| !t.at_barrier);
        match self.it.config.schedule_policy {
            SchedulePolicy::LowestLaneFirst => runnable
                .min_by_key(|(_, t)| t.mask.trailing_zeros())
                .map(|(i, _)| i),
            SchedulePolicy::NewestFirst => runnable.max_by_key(|(_, t)| t.serial).map(|(i, _)| i),
            SchedulePolicy::Random(_) => {
                let v: Vec<usize> = runnable.map(|(i, _)| i).collect();
                if v.is_empty() {
                    return None;
                }
                self.rng ^= self.rng << 13;
                self.rng ^= self.rng >> 7;
                self.rng ^= self.rng << 17;
                Some(v[(self.rng % v.len() as u64) as usize])
            }
        }
    }

    fn pos(&self, t: &Tangle) -> Position {
        let f = t.frames.last().expect("frame");
        let bd = &self.module().funcs[f.func].blocks[f.block];
        Position {
            func: f.func,
            block: f.block,
            inst: bd.insts.get(f.idx).copied(),
        }
    }

    fn fail(&self, t: &Tangle, e: OpFail) -> InterpError {
        let at = self.pos(t);
        match e {
            OpFail::Unsupported(what) => InterpError::Unsupported { at, what },
            OpFail::Undefined(what) => InterpError::Undefined { at, what },
        }
    }

    /// Runs a tangle until it stops: it waits, splits, exits, reaches a barrier, or (under
    /// the random policy) after one step.
    fn run_tangle(&mut self, sg: &mut Subgroup, mut t: Tangle) -> R<()> {
        loop {
            if self.steps >= self.it.config.step_budget {
                sg.tangles.push(t);
                return Err(InterpError::Budget {
                    budget: self.it.config.step_budget,
                    workgroup: self.workgroup,
                    tangles: String::new(),
                });
            }
            self.steps += 1;
            self.lane_steps += u64::from(t.mask.count_ones());
            let f = t.frames.last().expect("frame").clone();
            let bd = &self.module().funcs[f.func].blocks[f.block];
            let next = if f.idx < bd.insts.len() {
                self.exec_inst(sg, t, bd.insts[f.idx])?
            } else {
                self.exec_term(sg, t)?
            };
            match next {
                Some(n)
                    if !n.at_barrier
                        && !matches!(self.it.config.schedule_policy, SchedulePolicy::Random(_)) =>
                {
                    t = n
                }
                Some(n) => {
                    sg.tangles.push(n);
                    return Ok(());
                }
                None => return Ok(()),
            }
        }
    }

    fn operand(&self, sg: &Subgroup, t: &Tangle, lane: usize, o: Operand) -> R<Val> {
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

    fn set(sg: &mut Subgroup, lane: usize, v: Value, val: Val) {
        sg.lanes[lane].frames.last_mut().expect("frame").vals[v.as_u32() as usize] = Some(val);
    }

    /// Executes a block's phis for every lane, then positions the tangle after them.
    fn enter(&mut self, sg: &mut Subgroup, mut t: Tangle) -> R<Tangle> {
        let top = t.frames.last_mut().expect("frame");
        top.idx = 0;
        let (func, block) = (top.func, top.block);
        let f = &self.module().funcs[func];
        let phis: Vec<Inst> = f.blocks[block]
            .insts
            .iter()
            .copied()
            .take_while(|i| matches!(f.insts[*i].op, Op::Phi(_)))
            .collect();
        if !phis.is_empty() {
            for lane in lanes_of(t.mask) {
                let prev = sg.lanes[lane].frames.last().expect("frame").prev;
                let mut vals = Vec::new();
                for &i in &phis {
                    let id = &f.insts[i];
                    let Op::Phi(blocks) = &id.op else {
                        unreachable!()
                    };
                    let k = blocks
                        .iter()
                        .position(|b| Some(*b) == prev)
                        .ok_or_else(|| {
                            self.fail(
                                &t,
                                OpFail::Undefined(format!(
                                    "phi has no incoming value for {prev:?}"
                                )),
                            )
                        })?;
                    vals.push(self.operand(sg, &t, lane, id.args[k])?);
                }
                for (&i, v) in phis.iter().zip(vals) {
                    Self::set(sg, lane, f.insts[i].result.expect("phi result"), v);
                }
            }
        }
        t.frames.last_mut().expect("frame").idx = phis.len();
        Ok(t)
    }

    fn exec_inst(&mut self, sg: &mut Subgroup, mut t: Tangle, inst: Inst) -> R<Option<Tangle>> {
        let m = self.it.module;
        let ty = &m.types;
        let fr = t.frames.last().expect("frame").clone();
        let func = &m.funcs[fr.func];
        let id = &func.insts[inst];
        let rty = id.result.map(|v| func.values[v].ty);
        let atys: Vec<Type> = id.args.iter().map(|a| m.operand_type(func, *a)).collect();
        let advance = |t: &mut Tangle| t.frames.last_mut().expect("frame").idx += 1;
        match &id.op {
            Op::Group { op, scope, group } => {
                if *scope != Scope::Subgroup {
                    return Err(self.fail(
                        &t,
                        OpFail::Unsupported(format!("group op at scope {scope:?}")),
                    ));
                }
                let mut args = vec![Vec::new(); self.it.config.subgroup_size as usize];
                for lane in lanes_of(t.mask) {
                    args[lane] = id
                        .args
                        .iter()
                        .map(|a| self.operand(sg, &t, lane, *a))
                        .collect::<R<_>>()?;
                }
                let out = group::execute(
                    ty,
                    *op,
                    *group,
                    rty.expect("result"),
                    atys.first().copied(),
                    t.mask,
                    self.it.config.subgroup_size,
                    &args,
                )
                .map_err(|e| self.fail(&t, e))?;
                for (lane, v) in lanes_of(t.mask).zip(out) {
                    Self::set(sg, lane, id.result.expect("result"), v);
                }
                if self.it.config.record_trace {
                    self.trace.push(TraceEntry {
                        workgroup: self.workgroup,
                        subgroup: sg.index,
                        func: fr.func,
                        inst,
                        mask: t.mask,
                    });
                }
            }
            Op::ControlBarrier { exec, .. } => {
                advance(&mut t);
                if *exec == Scope::Workgroup {
                    t.at_barrier = true;
                } else if *exec != Scope::Subgroup {
                    return Err(self.fail(
                        &t,
                        OpFail::Unsupported(format!("control barrier at scope {exec:?}")),
                    ));
                }
                return Ok(Some(t));
            }
            Op::MemoryBarrier { .. } => {}
            Op::Call(callee) => {
                let cf = &m.funcs[*callee];
                let entry = cf.entry().ok_or_else(|| {
                    self.fail(
                        &t,
                        OpFail::Unsupported("call of a function without body".into()),
                    )
                })?;
                for lane in lanes_of(t.mask) {
                    let args: Vec<Val> = id
                        .args
                        .iter()
                        .map(|a| self.operand(sg, &t, lane, *a))
                        .collect::<R<_>>()?;
                    let mut vals = vec![None; cf.values.len()];
                    for (p, a) in cf.params.iter().zip(args) {
                        vals[p.as_u32() as usize] = Some(a);
                    }
                    sg.lanes[lane].frames.push(LaneFrame { vals, prev: None });
                }
                let k = sg.alloc(Instance {
                    kind: Kind::Call { dest: id.result },
                    participants: t.mask,
                    arrivals: Vec::new(),
                    frames: t.frames.clone(),
                    below: t.stack.clone(),
                });
                t.stack.push(k);
                t.frames.push(TFrame {
                    func: *callee,
                    block: entry,
                    idx: 0,
                });
                return self.enter(sg, t).map(Some);
            }
            Op::Variable(_) => {
                let (_, pointee) = ty.pointer(rty.expect("result")).expect("pointer");
                let (size, _) = value::size_align(ty, pointee);
                for lane in lanes_of(t.mask) {
                    let mut bytes = vec![0u8; size as usize];
                    if let Some(a) = id.args.first() {
                        let v = self.operand(sg, &t, lane, *a)?;
                        value::write(ty, &mut bytes, 0, pointee, &v);
                    }
                    self.mems.push(bytes);
                    let p = Val::Ptr {
                        mem: (self.mems.len() - 1) as u32,
                        off: 0,
                    };
                    Self::set(sg, lane, id.result.expect("result"), p);
                }
            }
            Op::Plain(tangle_ir::PlainOp::AccessChain) => {
                for lane in lanes_of(t.mask) {
                    let base = self.operand(sg, &t, lane, id.args[0])?;
                    let Val::Ptr { mem, mut off } = base else {
                        return Err(self.fail(
                            &t,
                            OpFail::Undefined("access chain on a non-pointer".into()),
                        ));
                    };
                    let (_, mut cur) = ty.pointer(atys[0]).expect("pointer");
                    for a in &id.args[1..] {
                        let i = self.operand(sg, &t, lane, *a)?.bits();
                        let w = ty.bit_width(m.operand_type(func, *a));
                        let i = value::sext(i, w);
                        match ty.get(cur) {
                            TypeData::Struct { members, .. } => {
                                off += value::member_offset(ty, cur, i as usize);
                                cur = members[i as usize].ty;
                            }
                            TypeData::Array { elem, len, .. } => {
                                if i < 0 || i as u64 >= u64::from(*len) {
                                    return Err(InterpError::OutOfBounds {
                                        at: self.pos(&t),
                                        what: format!(
                                            "lane {lane}: index {i} of an array of {len}"
                                        ),
                                    });
                                }
                                off += i as u64 * value::array_stride(ty, cur);
                                cur = *elem;
                            }
                            TypeData::Vector { elem, count } => {
                                if i < 0 || i as u64 >= u64::from(*count) {
                                    return Err(InterpError::OutOfBounds {
                                        at: self.pos(&t),
                                        what: format!(
                                            "lane {lane}: component {i} of a vector of {count}"
                                        ),
                                    });
                                }
                                off += i as u64 * value::array_stride(ty, cur);
                                cur = *elem;
                            }
                            TypeData::RuntimeArray { elem, .. } => {
                                if i < 0 {
                                    return Err(InterpError::OutOfBounds {
                                        at: self.pos(&t),
                                        what: format!("lane {lane}: negative index {i}"),
                                    });
                                }
                                off += i as u64 * value::array_stride(ty, cur);
                                cur = *elem;
                            }
                            _ => {
                                return Err(self.fail(
                                    &t,
                                    OpFail::Unsupported("access chain into a scalar".into()),
                                ))
                            }
                        }
                    }
                    Self::set(sg, lane, id.result.expect("result"), Val::Ptr { mem, off });
                }
            }
            Op::Load(_) => {
                for lane in lanes_of(t.mask) {
                    let p = self.operand(sg, &t, lane, id.args[0])?;
                    let v = self.load(&t, lane, &p, rty.expect("result"))?;
                    Self::set(sg, lane, id.result.expect("result"), v);
                }
            }
            Op::Store(_) => {
                for lane in lanes_of(t.mask) {
                    let p = self.operand(sg, &t, lane, id.args[0])?;
                    let v = self.operand(sg, &t, lane, id.args[1])?;
                    self.store(&t, lane, &p, atys[1], &v)?;
                }
            }
            Op::Atomic { op, .. } => {
                use tangle_ir::AtomicOp as A;
                let (_, pty) = ty.pointer(atys[0]).expect("pointer");
                let w = ty.bit_width(pty);
                let mk = value::mask(w);
                // One lane at a time, in lane order.
                for lane in lanes_of(t.mask) {
                    let p = self.operand(sg, &t, lane, id.args[0])?;
                    let old = self.load(&t, lane, &p, pty)?;
                    let vals: Vec<Val> = id.args[1..]
                        .iter()
                        .map(|a| self.operand(sg, &t, lane, *a))
                        .collect::<R<_>>()?;
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
                        self.store(&t, lane, &p, pty, &Val::Bits(n))?;
                    }
                    if let Some(r) = id.result {
                        Self::set(sg, lane, r, old);
                    }
                }
            }
            Op::Phi(_) => {}
            _ => {
                for lane in lanes_of(t.mask) {
                    let args: Vec<Val> = id
                        .args
                        .iter()
                        .map(|a| self.operand(sg, &t, lane, *a))
                        .collect::<R<_>>()?;
                    let r = match &id.op {
                        Op::Plain(p) => value::plain(ty, *p, rty.expect("result"), &atys, &args),
                        Op::Glsl(g) => value::glsl(ty, *g, rty.expect("result"), &args),
                        Op::CompositeExtract(idx) => {
                            let mut v = args[0].clone();
                            for i in idx {
                                v = match v {
                                    Val::Comp(mut c) if (*i as usize) < c.len() => {
                                        c.swap_remove(*i as usize)
                                    }
                                    _ => {
                                        return Err(self.fail(
                                            &t,
                                            OpFail::Undefined(
                                                "composite index out of range".into(),
                                            ),
                                        ))
                                    }
                                };
                            }
                            Ok(v)
                        }
                        Op::CompositeInsert(idx) => {
                            let mut root = args[1].clone();
                            let mut cur = &mut root;
                            for i in idx {
                                cur = match cur {
                                    Val::Comp(c) if (*i as usize) < c.len() => &mut c[*i as usize],
                                    _ => {
                                        return Err(self.fail(
                                            &t,
                                            OpFail::Undefined(
                                                "composite index out of range".into(),
                                            ),
                                        ))
                                    }
                                };
                            }
                            *cur = args[0].clone();
                            Ok(root)
                        }
                        Op::VectorShuffle(sel) => {
                            let (Val::Comp(a), Val::Comp(b)) = (&args[0], &args[1]) else {
                                return Err(self.fail(
                                    &t,
                                    OpFail::Unsupported("shuffle of non-vectors".into()),
                                ));
                            };
                            let all: Vec<&Val> = a.iter().chain(b.iter()).collect();
                            sel.iter()
                                .map(|s| {
                                    if *s == u32::MAX {
                                        Ok(Val::Bits(0))
                                    } else {
                                        all.get(*s as usize)
                                            .map(|v| (*v).clone())
                                            .ok_or(OpFail::Undefined("shuffle selector".into()))
                                    }
                                })
                                .collect::<Result<Vec<_>, _>>()
                                .map(Val::Comp)
                        }
                        Op::ArrayLength(member) => {
                            let Val::Ptr { mem, off } = &args[0] else {
                                return Err(self.fail(
                                    &t,
                                    OpFail::Undefined("array_length of a non-pointer".into()),
                                ));
                            };
                            let (_, sty) = ty.pointer(atys[0]).expect("pointer");
                            let mo = value::member_offset(ty, sty, *member as usize);
                            let TypeData::Struct { members, .. } = ty.get(sty) else {
                                return Err(self.fail(
                                    &t,
                                    OpFail::Unsupported("array_length of a non-struct".into()),
                                ));
                            };
                            let st = value::array_stride(ty, members[*member as usize].ty).max(1);
                            let len = (self.mems[*mem as usize].len() as u64)
                                .saturating_sub(off + mo)
                                / st;
                            Ok(Val::Bits(len))
                        }
                        other => Err(OpFail::Unsupported(format!(
                            "instruction {}",
                            other.mnemonic()
                        ))),
                    };
                    let v = r.map_err(|e| self.fail(&t, e))?;
                    if let Some(res) = id.result {
                        Self::set(sg, lane, res, v);
                    }
                }
            }
        }
        advance(&mut t);
        Ok(Some(t))
    }

    fn load(&self, t: &Tangle, lane: usize, p: &Val, ty: Type) -> R<Val> {
        let Val::Ptr { mem, off } = p else {
            return Err(self.fail(t, OpFail::Undefined("load through a non-pointer".into())));
        };
        self.mems
            .get(*mem as usize)
            .and_then(|m| value::read(&self.module().types, m, *off, ty))
            .ok_or_else(|| InterpError::OutOfBounds {
                at: self.pos(t),
                what: format!("lane {lane}: load at byte {off} of region {mem}"),
            })
    }

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
                what: format!("lane {lane}: store at byte {off} of region {mem}"),
            })
        }
    }

    fn push_instance(sg: &mut Subgroup, t: &mut Tangle, kind: Kind) {
        let id = sg.alloc(Instance {
            kind,
            participants: t.mask,
            arrivals: Vec::new(),
            frames: t.frames.clone(),
            below: t.stack.clone(),
        });
        t.stack.push(id);
    }

    fn exec_term(&mut self, sg: &mut Subgroup, mut t: Tangle) -> R<Option<Tangle>> {
        let m = self.it.module;
        let fr = t.frames.last().expect("frame").clone();
        let func = &m.funcs[fr.func];
        let bd = &func.blocks[fr.block];
        match bd.merge {
            Some(Merge::Loop {
                merge,
                continue_target,
                ..
            }) => {
                let back = t.stack.last().is_some_and(|&i| {
                    sg.inst(i).kind
                        == Kind::Loop {
                            header: fr.block,
                            merge,
                        }
                });
                if !back {
                    Self::push_instance(
                        sg,
                        &mut t,
                        Kind::Loop {
                            header: fr.block,
                            merge,
                        },
                    );
                }
                if self.it.config.variant != Variant::NoContinueReconvergence {
                    Self::push_instance(
                        sg,
                        &mut t,
                        Kind::Iteration {
                            cont: continue_target,
                        },
                    );
                }
            }
            Some(Merge::Selection { merge, .. }) => {
                Self::push_instance(sg, &mut t, Kind::Selection { merge })
            }
            None => {}
        }
        match &bd.term {
            Terminator::Branch(b) => self.branch(sg, t, *b),
            Terminator::CondBranch {
                cond,
                if_true,
                if_false,
            } => {
                let mut tm = 0;
                for lane in lanes_of(t.mask) {
                    if self.operand(sg, &t, lane, *cond)?.truth() {
                        tm |= 1 << lane;
                    }
                }
                let fm = t.mask & !tm;
                if fm == 0 {
                    return self.branch(sg, t, *if_true);
                }
                if tm == 0 {
                    return self.branch(sg, t, *if_false);
                }
                let mut tt = t.clone();
                tt.mask = tm;
                tt.serial = self.next_serial();
                t.mask = fm;
                t.serial = self.next_serial();
                if let Some(n) = self.branch(sg, tt, *if_true)? {
                    sg.tangles.push(n);
                }
                if let Some(n) = self.branch(sg, t, *if_false)? {
                    sg.tangles.push(n);
                }
                Ok(None)
            }
            Terminator::Switch {
                selector,
                default,
                cases,
            } => {
                let mut groups: Vec<(Block, u64, Mask)> = Vec::new();
                for lane in lanes_of(t.mask) {
                    let s = self.operand(sg, &t, lane, *selector)?.bits();
                    let target = cases
                        .iter()
                        .find(|(v, _)| *v == s)
                        .map(|(_, b)| *b)
                        .unwrap_or(*default);
                    let key = match self.it.config.switch_policy {
                        SwitchPolicy::ByTarget => 0,
                        SwitchPolicy::BySelector => s,
                    };
                    match groups
                        .iter_mut()
                        .find(|(b, k, _)| *b == target && *k == key)
                    {
                        Some(g) => g.2 |= 1 << lane,
                        None => groups.push((target, key, 1 << lane)),
                    }
                }
                let mut stacks: Vec<Vec<usize>> = vec![t.stack.clone(); groups.len()];
                if self.it.config.fallthrough_policy == FallthroughPolicy::Merge {
                    self.case_instances(sg, &t, &groups, &mut stacks);
                }
                if groups.len() == 1 {
                    t.stack = stacks.pop().expect("one group");
                    return self.branch(sg, t, groups[0].0);
                }
                for ((b, _, mask), stack) in groups.into_iter().zip(stacks) {
                    let mut n = t.clone();
                    n.stack = stack;
                    n.mask = mask;
                    n.serial = self.next_serial();
                    if let Some(n) = self.branch(sg, n, b)? {
                        sg.tangles.push(n);
                    }
                }
                Ok(None)
            }
            Terminator::Return | Terminator::ReturnValue(_) => {
                let k = t
                    .stack
                    .iter()
                    .rposition(|&i| matches!(sg.inst(i).kind, Kind::Call { .. }));
                let Some(k) = k else {
                    self.exit(sg, &t)?;
                    return Ok(None);
                };
                let Kind::Call { dest } = sg.inst(t.stack[k]).kind else {
                    unreachable!()
                };
                for lane in lanes_of(t.mask) {
                    let rv = match &bd.term {
                        Terminator::ReturnValue(o) => Some(self.operand(sg, &t, lane, *o)?),
                        _ => None,
                    };
                    sg.lanes[lane].frames.pop();
                    if let (Some(d), Some(v)) = (dest, rv) {
                        Self::set(sg, lane, d, v);
                    }
                }
                if self.it.config.variant == Variant::NoCallReconvergence {
                    // Known-wrong: the returning tangle goes on alone.
                    let ids: Vec<usize> = t.stack[k..].to_vec();
                    for &i in &ids {
                        sg.inst_mut(i).participants &= !t.mask;
                    }
                    for &i in ids.iter().rev() {
                        self.check(sg, i)?;
                    }
                    t.stack.truncate(k);
                    t.frames.pop();
                    t.frames.last_mut().expect("caller").idx += 1;
                    return Ok(Some(t));
                }
                self.escape(sg, &t, k, fr.block)?;
                Ok(None)
            }
            Terminator::Kill | Terminator::TerminateInvocation => {
                self.exit(sg, &t)?;
                Ok(None)
            }
            Terminator::Unreachable => {
                Err(self.fail(&t, OpFail::Undefined("reached unreachable".into())))
            }
        }
    }

    /// For [`FallthroughPolicy::Merge`]: pushes a case instance for every case target that
    /// another case construct falls through into, onto the stacks of the groups that can
    /// reach it (its own group and those of the chain before it), farthest target first.
    fn case_instances(
        &mut self,
        sg: &mut Subgroup,
        t: &Tangle,
        groups: &[(Block, u64, Mask)],
        stacks: &mut [Vec<usize>],
    ) {
        let fr = t.frames.last().expect("frame");
        let func = &self.module().funcs[fr.func];
        let Some(Merge::Selection { merge, .. }) = func.blocks[fr.block].merge else {
            return;
        };
        let Terminator::Switch { default, cases, .. } = &func.blocks[fr.block].term else {
            return;
        };
        let mut targets = vec![*default];
        for (_, b) in cases {
            if !targets.contains(b) {
                targets.push(*b);
            }
        }
        targets.retain(|b| *b != merge);
        // into[i] = the target that target i falls through into.
        let into: Vec<Option<usize>> = targets
            .iter()
            .map(|&from| {
                (0..targets.len()).find(|&j| {
                    targets[j] != from
                        && falls_into(func, from, targets[j], fr.block, merge, &targets)
                })
            })
            .collect();
        // The targets reachable from each target along the chain, nearest first.
        let chain = |i: usize| {
            let mut v = vec![i];
            let mut k = i;
            while let Some(n) = into[k] {
                if v.contains(&n) {
                    break;
                }
                v.push(n);
                k = n;
            }
            v
        };
        let has_pred = |j: usize| into.contains(&Some(j));
        let mut participants = vec![0 as Mask; targets.len()];
        for (b, _, mask) in groups {
            if let Some(i) = targets.iter().position(|x| x == b) {
                for j in chain(i) {
                    participants[j] |= mask;
                }
            }
        }
        let mut ids = vec![None; targets.len()];
        for j in 0..targets.len() {
            if has_pred(j) && participants[j] != 0 {
                ids[j] = Some(sg.alloc(Instance {
                    kind: Kind::Case { target: targets[j] },
                    participants: participants[j],
                    arrivals: Vec::new(),
                    frames: t.frames.clone(),
                    below: t.stack.clone(),
                }));
            }
        }
        for ((b, _, _), stack) in groups.iter().zip(stacks.iter_mut()) {
            if let Some(i) = targets.iter().position(|x| x == b) {
                for j in chain(i).into_iter().rev() {
                    if let Some(id) = ids[j] {
                        stack.push(id);
                    }
                }
            }
        }
        // Instances below a case instance on some stacks must list the right `below`.
        for j in 0..targets.len() {
            if let Some(id) = ids[j] {
                let mut below = t.stack.clone();
                for k in chain(j).into_iter().skip(1).rev() {
                    if let Some(o) = ids[k] {
                        below.push(o);
                    }
                }
                sg.inst_mut(id).below = below;
            }
        }
    }

    /// Lanes of `t` end: they leave every instance.
    fn exit(&mut self, sg: &mut Subgroup, t: &Tangle) -> R<()> {
        for lane in lanes_of(t.mask) {
            sg.lanes[lane].alive = false;
        }
        for &i in &t.stack {
            sg.inst_mut(i).participants &= !t.mask;
        }
        self.check_all(sg, &t.stack)
    }

    fn check_all(&mut self, sg: &mut Subgroup, stack: &[usize]) -> R<()> {
        for &i in stack.iter().rev() {
            if sg.instances[i].is_some() {
                self.check(sg, i)?;
            }
        }
        Ok(())
    }

    /// Where a branch from tangle `t` to `target` goes.
    fn dest(&self, sg: &Subgroup, t: &Tangle, target: Block) -> Dest {
        for (j, &i) in t.stack.iter().enumerate().rev() {
            match sg.inst(i).kind {
                Kind::Call { .. } => break,
                Kind::Iteration { cont } if cont == target => return Dest::Wait(j),
                Kind::Loop { merge, .. }
                | Kind::Selection { merge }
                | Kind::Case { target: merge }
                    if merge == target =>
                {
                    return Dest::Wait(j)
                }
                _ => {}
            }
        }
        Dest::Plain
    }

    /// Moves tangle `t` (positioned at the block it leaves) along an edge to `target`.
    fn branch(&mut self, sg: &mut Subgroup, mut t: Tangle, target: Block) -> R<Option<Tangle>> {
        let from = t.frames.last().expect("frame").block;
        for lane in lanes_of(t.mask) {
            sg.lanes[lane].frames.last_mut().expect("frame").prev = Some(from);
        }
        match self.dest(sg, &t, target) {
            Dest::Wait(j) => {
                self.escape(sg, &t, j, target)?;
                Ok(None)
            }
            Dest::Plain => {
                if self.it.config.variant == Variant::BreakNotSplitByIteration {
                    // Known-wrong: wait for the whole loop at the break block itself.
                    if let Some(j) = self.break_block_wait(sg, &t, target) {
                        self.escape(sg, &t, j, target)?;
                        return Ok(None);
                    }
                }
                t.frames.last_mut().expect("frame").block = target;
                self.enter(sg, t).map(Some)
            }
        }
    }

    /// For [`Variant::BreakNotSplitByIteration`]: if `target` is a break block (a block that
    /// branches straight to the merge of the innermost loop on the stack, entered by a
    /// conditional branch), the stack index of that loop.
    fn break_block_wait(&self, sg: &Subgroup, t: &Tangle, target: Block) -> Option<usize> {
        let func = &self.module().funcs[t.frames.last()?.func];
        let Terminator::Branch(next) = func.blocks[target].term else {
            return None;
        };
        for (j, &i) in t.stack.iter().enumerate().rev() {
            match sg.inst(i).kind {
                Kind::Call { .. } => return None,
                Kind::Loop { merge, .. } => return (merge == next).then_some(j),
                _ => {}
            }
        }
        None
    }

    /// Lanes of `t` escape to the instance at stack index `j` and wait there at `at`.
    fn escape(&mut self, sg: &mut Subgroup, t: &Tangle, j: usize, at: Block) -> R<()> {
        for &i in &t.stack[j + 1..] {
            sg.inst_mut(i).participants &= !t.mask;
        }
        let target = t.stack[j];
        let inst = sg.inst_mut(target);
        match inst.arrivals.iter_mut().find(|(b, _)| *b == at) {
            Some(a) => a.1 |= t.mask,
            None => inst.arrivals.push((at, t.mask)),
        }
        self.check_all(sg, &t.stack[j..])
    }

    /// Releases instance `id` if every participant has arrived; drops it if it has none.
    fn check(&mut self, sg: &mut Subgroup, id: usize) -> R<()> {
        let inst = sg.inst(id);
        let arrived = inst.arrivals.iter().fold(0, |m, a| m | a.1);
        if inst.participants != 0 && arrived != inst.participants {
            return Ok(());
        }
        let inst = sg.instances[id].take().expect("instance");
        sg.free.push(id);
        if inst.participants == 0 {
            return Ok(());
        }
        match inst.kind {
            Kind::Call { .. } => {
                let mut frames = inst.frames;
                frames.last_mut().expect("caller").idx += 1;
                let serial = self.next_serial();
                sg.tangles.push(Tangle {
                    serial,
                    mask: arrived,
                    frames,
                    stack: inst.below,
                    at_barrier: false,
                });
            }
            _ => {
                let mut below = inst.below.clone();
                if inst.arrivals.len() > 1 {
                    // Only under BreakNotSplitByIteration: the groups rejoin at the merge.
                    let Kind::Loop { merge, .. } = inst.kind else {
                        unreachable!()
                    };
                    let r = sg.alloc(Instance {
                        kind: Kind::Selection { merge },
                        participants: arrived,
                        arrivals: Vec::new(),
                        frames: inst.frames.clone(),
                        below: below.clone(),
                    });
                    below.push(r);
                }
                for (b, mask) in inst.arrivals {
                    let mut frames = inst.frames.clone();
                    frames.last_mut().expect("frame").block = b;
                    let serial = self.next_serial();
                    let t = Tangle {
                        serial,
                        mask,
                        frames,
                        stack: below.clone(),
                        at_barrier: false,
                    };
                    // The arrival block may itself be a wait point of an outer instance.
                    match self.dest(sg, &t, b) {
                        Dest::Wait(j) => self.escape(sg, &t, j, b)?,
                        Dest::Plain => {
                            let t = self.enter(sg, t)?;
                            sg.tangles.push(t);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

fn describe_sg(out: &mut String, s: &Subgroup) {
    use std::fmt::Write;
    let _ = writeln!(out, "subgroup {}:", s.index);
    for t in &s.tangles {
        let f = t.frames.last().expect("frame");
        let _ = writeln!(
            out,
            "  tangle {:#x} at {} {} instruction {}{}",
            t.mask,
            f.func,
            f.block,
            f.idx,
            if t.at_barrier {
                " (after a workgroup barrier, waiting)"
            } else {
                ""
            }
        );
    }
    for inst in s.instances.iter().flatten() {
        for (b, m) in &inst.arrivals {
            let _ = writeln!(
                out,
                "  tangle {:#x} waits at {b} for {:#x} ({:?})",
                m,
                inst.participants & !m,
                inst.kind
            );
        }
    }
}
