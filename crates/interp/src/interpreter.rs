//! The public entry point: preparing a dispatch (constants, specialization, workgroup size)
//! and running it workgroup by workgroup.

use std::collections::BTreeMap;

use spirv::BuiltIn;
use tangle_ir::{Const, ConstValue, ExecMode, Func, Module, Op, Type};

use crate::config::{Config, SchedulePolicy};
use crate::error::{InterpError, R};
use crate::state::Run;
use crate::trace::Outcome;
use crate::value::{self, Val};

/// A compute dispatch of one entry point.
pub struct Interpreter<'m> {
    pub(crate) module: &'m Module,
    pub(crate) entry: Func,
    pub(crate) config: Config,
    pub(crate) local_size: [u32; 3],
    pub(crate) consts: Vec<Val>,
    pub(crate) bindings: BTreeMap<(u32, u32), Vec<u8>>,
    pub(crate) push_constants: Vec<u8>,
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
        self.run_with(None)
    }

    /// Runs the dispatch like [`Interpreter::run`], showing `observer` every instruction
    /// executed with each lane's operand and result values (a checker's hook; it cannot
    /// change the run).
    pub fn run_observed(&self, observer: &mut dyn crate::observe::Observer) -> R<Outcome> {
        self.run_with(Some(observer))
    }

    fn run_with<'s>(
        &'s self,
        observer: Option<&'s mut (dyn crate::observe::Observer + 's)>,
    ) -> R<Outcome> {
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
            observer,
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
    // The configured value of a specialization constant, if any.
    let over = d
        .spec_id
        .filter(|_| d.spec)
        .and_then(|id| config.spec_constants.get(&id));
    Ok(match &d.value {
        ConstValue::Bool(b) => Val::Bool(over.map_or(*b, |v| *v != 0)),
        ConstValue::Bits(b) => match over {
            Some(v) => Val::Bits(*v & value::mask(module.types.bit_width(d.ty))),
            None => Val::Bits(*b),
        },
        ConstValue::Composite(cs) => Val::Comp(cs.iter().map(get).collect()),
        ConstValue::Null | ConstValue::Undef => value::zero(&module.types, d.ty),
        ConstValue::SpecOp(op, args) => {
            let vals: Vec<Val> = args.iter().map(get).collect();
            let tys: Vec<Type> = args.iter().map(|a| module.consts[*a].ty).collect();
            match op {
                Op::Plain(p) => value::plain(&module.types, *p, d.ty, &tys, &vals)
                    .map_err(|e| bad(format!("{e:?}")))?,
                Op::CompositeExtract(idx) => value::composite_extract(&vals[0], idx)
                    .ok_or_else(|| bad("composite index out of range".into()))?,
                other => return Err(bad(format!("spec op {} unsupported", other.mnemonic()))),
            }
        }
    })
}
