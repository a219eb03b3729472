//! The SASS engine: a dispatch the reference interpreter ran, compiled by the back end
//! (`tangle-backend`: lowering, instruction selection, register assignment, control codes)
//! for one SM, written as a cubin (`tangle-cubin`), loaded and run on the SASS warp simulator (`tangle-sim`) in hazard mode under each
//! scheduling policy, with the same inputs; every policy must leave the buffers the
//! reference left (its undefined and order-dependent bytes are wildcards) and report no
//! hazard.

use tangle_backend::{compile, CompileOptions, Param};
use tangle_interp::{Config, Outcome};
use tangle_ir::Module;
use tangle_reconverge::Scheme;
use tangle_sass::Arch;
use tangle_sched::Policy;
use tangle_sim::{Arg, Dim3, Launch, Options};

use crate::lowered::{Dispatch, LoweredMismatch};

/// Which SMs, lowering and policies the SASS engine runs.
#[derive(Clone, Debug)]
pub struct SassEngine {
    /// The SMs compiled for, each run in turn.
    pub arches: Vec<Arch>,
    /// The lowering's barrier placement.
    pub scheme: Scheme,
    /// The simulator's policies.
    pub policies: Vec<Policy>,
    /// Run on this GPU through the CUDA driver instead of the simulator: one run per
    /// dispatch, for the GPU's own SM (`tangle run --engine gpu`).
    pub gpu: Option<std::rc::Rc<tangle_cuda::Gpu>>,
    /// Policies for particular SMs, in place of `policies` on those (so that a bounded run
    /// can give every policy to one SM and one policy to the others).
    pub policies_for: Vec<(Arch, Vec<Policy>)>,
    /// Where every kernel compiled is also kept, with the pipeline's name, for checks by
    /// other tools (nvdisasm, cuobjdump).
    pub kernels: Option<Kept>,
    /// A change made to every compiled kernel before it runs: tests break the back end's
    /// output on purpose with it, to show that the comparison catches a broken back end.
    pub mutate: Option<fn(&mut tangle_backend::Compiled)>,
}

impl SassEngine {
    /// The engine on `arches` under `policies`, simulated.
    pub fn new(arches: Vec<Arch>, scheme: Scheme, policies: Vec<Policy>) -> SassEngine {
        SassEngine {
            arches,
            scheme,
            policies,
            gpu: None,
            policies_for: Vec::new(),
            kernels: None,
            mutate: None,
        }
    }

    /// The policies `arch` runs under.
    fn policies_of(&self, arch: Arch) -> &[Policy] {
        self.policies_for
            .iter()
            .find(|(a, _)| *a == arch)
            .map_or(&self.policies, |(_, p)| p)
    }
}

/// The compiled kernels an engine keeps: the pipeline's name and the kernel.
pub type Kept = std::sync::Arc<std::sync::Mutex<Vec<(String, tangle_backend::Compiled)>>>;

/// Why a dispatch was not run on the SASS engine (not a failure: the back end's subset
/// does not cover it yet, or the dispatch is not one it can run).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused(pub String);

/// Compiles and runs one dispatch on every SM and policy of `engine`; `Ok(Err(_))` when
/// the back end refuses the shader (an operation outside its subset, a subgroup size
/// other than 32), `Err` on a disagreement with the reference or a failed run.
pub fn check(
    module: &Module,
    entry: &str,
    pipeline: &str,
    config: &Config,
    dispatch: &Dispatch,
    reference: &Outcome,
    engine: &SassEngine,
) -> Result<Result<usize, Refused>, LoweredMismatch> {
    let mut runs = 0;
    for &arch in &engine.arches {
        let name = format!("sass {arch} ({})", engine.scheme);
        let mismatch = |policy: String, message: String| LoweredMismatch {
            engine: name.clone(),
            policy,
            message,
        };
        let opts = CompileOptions {
            scheme: engine.scheme,
            spec: config.spec_constants.clone(),
            push_bytes: dispatch
                .push_constants
                .as_ref()
                .map_or(0, |p| p.len() as u32),
            subgroup_size: config.subgroup_size,
            ..CompileOptions::new(arch)
        };
        let mut compiled = match compile(module, entry, &opts) {
            Ok(c) => c,
            Err(e @ tangle_backend::CompileError::Internal(_)) => {
                return Err(mismatch("-".into(), e.to_string()))
            }
            Err(e) => return Ok(Err(Refused(e.to_string()))),
        };
        if let Some(mutate) = engine.mutate {
            mutate(&mut compiled);
        }
        // Through the cubin, as a driver would load it: the writer's layout is checked too.
        let kernel = compiled
            .cubin()
            .and_then(|bytes| {
                tangle_sim::load(&bytes, &compiled.name).map_err(|e| {
                    tangle_backend::CompileError::Internal(format!("loading our cubin: {e}"))
                })
            })
            .map_err(|e| mismatch("-".into(), e.to_string()))?;
        let (args, memories) =
            arguments(&compiled.abi.params, dispatch).map_err(|m| mismatch("-".into(), m))?;
        if let Some(kept) = &engine.kernels {
            // The passes' texts are not needed there and are large.
            let mut c = compiled.clone();
            c.stages.clear();
            c.notes = None;
            kept.lock()
                .expect("no panic while holding it")
                .push((pipeline.to_string(), c));
        }
        let [bx, by, bz] = compiled.workgroup_size;
        let [gx, gy, gz] = config.workgroups;
        let launch = Launch {
            grid: Dim3::new(gx, gy, gz),
            block: Dim3::new(bx, by, bz),
            dynamic_shared: 0,
            args,
        };
        if let Some(gpu) = &engine.gpu {
            let bytes = compiled
                .cubin()
                .map_err(|e| mismatch("-".into(), e.to_string()))?;
            let device = format!("gpu {}", gpu.sm());
            let out = gpu
                .run(&bytes, &compiled.name, &launch, GPU_TIME_LIMIT)
                .map_err(|e| mismatch(device.clone(), e.to_string()))?;
            compare(&memories, reference, &out.buffers, "on the GPU")
                .map_err(|m| mismatch(device, m))?;
            runs += 1;
            continue;
        }
        for &policy in engine.policies_of(arch) {
            let mut o = Options::new(policy);
            o.hazards = true;
            o.step_budget = config.step_budget.max(1_000_000);
            let out = tangle_sim::run(&kernel, &launch, &o)
                .map_err(|e| mismatch(policy.to_string(), e.to_string()))?;
            if let Some(h) = out.hazards.first() {
                return Err(mismatch(
                    policy.to_string(),
                    format!(
                        "{} hazards, the first at {:?}: {}",
                        out.hazards_total, h.site, h.what
                    ),
                ));
            }
            compare(&memories, reference, &out.buffers, "simulated")
                .map_err(|m| mismatch(policy.to_string(), m))?;
            runs += 1;
        }
    }
    Ok(Ok(runs))
}

/// Why a SASS run that differs is not counted as a failure after a branch on an undefined
/// value (see [`reconcile_sides`]); the start of the [`crate::Event::SassRefused`] text.
pub const OTHER_SIDE: &str =
    "the compiled code took the other side of a branch on an undefined value";

/// Judges the SASS engine's runs of a script that branched on an undefined value, which
/// the runner ran twice (`taken`: every such lane took the true side, `not_taken`: the
/// false side) with the reference and the engines following that choice. Compiled code
/// cannot follow it: its branch reads whatever the register holds, so it takes one of the
/// sides SPIR-V allows, and it is right when its every dispatch agrees with the run of one
/// side. When one side's SASS runs all agree, the other side's differences become
/// [`crate::Event::SassRefused`] naming [`OTHER_SIDE`]; when neither side's do, both stay
/// failures.
pub fn reconcile_sides(taken: &mut crate::Report, not_taken: &mut crate::Report) {
    use crate::Event;
    let agrees = |r: &crate::Report| {
        !r.events
            .iter()
            .any(|e| matches!(e, Event::SassDiffers { .. }))
    };
    let other = match (agrees(taken), agrees(not_taken)) {
        (true, false) => not_taken,
        (false, true) => taken,
        _ => return,
    };
    for e in &mut other.events {
        if let Event::SassDiffers {
            pos,
            pipeline,
            mismatch,
        } = e
        {
            *e = Event::SassRefused {
                pos: *pos,
                pipeline: std::mem::take(pipeline),
                why: format!("{OTHER_SIDE} (here: {mismatch})"),
            };
        }
    }
}

/// How long a dispatch may run on the GPU before it counts as a hang.
const GPU_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Per bound memory (by its key in `Dispatch::buffers`), the argument that holds it.
type Holders = Vec<((u32, u32), usize)>;

/// The kernel's arguments for `dispatch`, and per bound memory (by its key in
/// `dispatch.buffers`) the argument that holds it. A buffer bound at one plain descriptor
/// is its parameter's own [`Arg::Buffer`]; a buffer that descriptors view (one buffer at
/// several bindings, the elements of a descriptor array) is held once, by the first
/// parameter that views it ([`Arg::BufferAt`] at that view's offset), and every other view
/// of it is an [`Arg::View`] into it, so that all share one memory as on a device.
fn arguments(params: &[Param], dispatch: &Dispatch) -> Result<(Vec<Arg>, Holders), String> {
    let mut args = Vec::with_capacity(params.len());
    let mut holders: Holders = Vec::new();
    // The memory a descriptor sees and the offset its window starts at.
    let view = |set: u32, binding: u32, element: u32| -> Option<((u32, u32), u64)> {
        match dispatch.views.get(&(set, binding)) {
            Some(elements) => elements.get(element as usize).copied(),
            None if element == 0 => Some(((set, binding), 0)),
            None => None,
        }
    };
    for (i, p) in params.iter().enumerate() {
        args.push(match *p {
            Param::Buffer {
                set,
                binding,
                element,
            } => {
                let Some((key, offset)) = view(set, binding, element) else {
                    return Err(format!(
                        "element {element} of the descriptor array at set {set} binding \
                         {binding} is not bound"
                    ));
                };
                let bytes = dispatch.buffers.get(&key).map(|(b, _)| b.clone());
                match holders.iter().find(|(k, _)| *k == key) {
                    Some(&(_, holder)) => Arg::View {
                        arg: holder,
                        offset,
                    },
                    None => {
                        holders.push((key, i));
                        match offset {
                            0 => Arg::Buffer(bytes.unwrap_or_default()),
                            o => Arg::BufferAt(bytes.unwrap_or_default(), o),
                        }
                    }
                }
            }
            Param::BufferBytes {
                set,
                binding,
                element,
            } => Arg::U32(view(set, binding, element).map_or(0, |(key, offset)| {
                // A view sees its buffer from its window's start to the end.
                dispatch
                    .buffers
                    .get(&key)
                    .map_or(0, |(b, _)| (b.len() as u64).saturating_sub(offset) as u32)
            })),
            Param::PushWord(off) => {
                let bytes = dispatch.push_constants.as_deref().unwrap_or(&[]);
                let mut w = [0u8; 4];
                for (k, x) in w.iter_mut().enumerate() {
                    *x = bytes.get(off as usize + k).copied().unwrap_or(0);
                }
                Arg::U32(u32::from_le_bytes(w))
            }
        });
    }
    Ok((args, holders))
}

/// Compares the memories a run left (`buffers`, in argument order; `memories` says which
/// argument holds each) with the reference's; bytes the reference leaves undefined or
/// order-dependent (racing atomics) are wildcards.
fn compare(
    memories: &[((u32, u32), usize)],
    reference: &Outcome,
    buffers: &[Option<Vec<u8>>],
    what: &str,
) -> Result<(), String> {
    for &(key, i) in memories {
        let Some(want) = reference.buffers.get(&key) else {
            continue;
        };
        let got = buffers.get(i).and_then(|b| b.as_deref()).unwrap_or(&[]);
        let wild = reference.wildcards(key);
        for (k, w) in want.iter().enumerate() {
            if wild.as_ref().is_some_and(|m| m[k]) {
                continue;
            }
            let g = got.get(k).copied();
            if g != Some(*w) {
                return Err(format!(
                    "{} byte {k} (word {}): reference {w:#04x}, {what} {}",
                    memory_name(key),
                    k / 4,
                    g.map_or("missing".to_string(), |g| format!("{g:#04x}"))
                ));
            }
        }
    }
    Ok(())
}

/// How a message names a memory: `set S binding B`, or for one that descriptors view
/// (keyed `(u32::MAX, n)` by the runner) `shared buffer n`.
fn memory_name((set, binding): (u32, u32)) -> String {
    if set == u32::MAX {
        format!("shared buffer {binding}")
    } else {
        format!("set {set} binding {binding}")
    }
}
