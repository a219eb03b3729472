//! The SASS engine: a dispatch the reference interpreter ran, compiled by the back end
//! (`tangle-backend`: lowering, instruction selection, register assignment, control codes)
//! for one SM, written as a cubin (`tangle-cubin`), loaded and run on the SASS warp simulator (`tangle-sim`) in hazard mode under each
//! scheduling policy, with the same inputs; every policy must leave the buffers the
//! reference left (its undefined bytes are wildcards) and report no hazard.

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
}

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
    config: &Config,
    dispatch: &Dispatch,
    reference: &Outcome,
    engine: &SassEngine,
) -> Result<Result<usize, Refused>, LoweredMismatch> {
    if !dispatch.views.is_empty() {
        // The simulator's kernels take one buffer per (set, binding) parameter.
        return Ok(Err(Refused(
            "descriptor arrays and buffers seen through several descriptors are not supported \
             by the SASS engine"
                .into(),
        )));
    }
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
        let compiled = match compile(module, entry, &opts) {
            Ok(c) => c,
            Err(e @ tangle_backend::CompileError::Internal(_)) => {
                return Err(mismatch("-".into(), e.to_string()))
            }
            Err(e) => return Ok(Err(Refused(e.to_string()))),
        };
        // Through the cubin, as a driver would load it: the writer's layout is checked too.
        let kernel = compiled
            .cubin()
            .and_then(|bytes| {
                tangle_sim::load(&bytes, &compiled.name).map_err(|e| {
                    tangle_backend::CompileError::Internal(format!("loading our cubin: {e}"))
                })
            })
            .map_err(|e| mismatch("-".into(), e.to_string()))?;
        let args: Vec<Arg> = compiled
            .abi
            .params
            .iter()
            .map(|p| match *p {
                Param::Buffer { set, binding } => Arg::Buffer(
                    dispatch
                        .buffers
                        .get(&(set, binding))
                        .map(|(b, _)| b.clone())
                        .unwrap_or_default(),
                ),
                Param::BufferBytes { set, binding } => Arg::U32(
                    dispatch
                        .buffers
                        .get(&(set, binding))
                        .map_or(0, |(b, _)| b.len() as u32),
                ),
                Param::PushWord(off) => {
                    let bytes = dispatch.push_constants.as_deref().unwrap_or(&[]);
                    let mut w = [0u8; 4];
                    for (k, x) in w.iter_mut().enumerate() {
                        *x = bytes.get(off as usize + k).copied().unwrap_or(0);
                    }
                    Arg::U32(u32::from_le_bytes(w))
                }
            })
            .collect();
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
            compare(&compiled.abi.params, reference, &out.buffers, "on the GPU")
                .map_err(|m| mismatch(device, m))?;
            runs += 1;
            continue;
        }
        for &policy in &engine.policies {
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
            compare(&compiled.abi.params, reference, &out.buffers, "simulated")
                .map_err(|m| mismatch(policy.to_string(), m))?;
            runs += 1;
        }
    }
    Ok(Ok(runs))
}

/// How long a dispatch may run on the GPU before it counts as a hang.
const GPU_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Compares the buffers a run left (in parameter order) with the reference's; bytes the
/// reference leaves undefined are wildcards.
fn compare(
    params: &[Param],
    reference: &Outcome,
    buffers: &[Option<Vec<u8>>],
    what: &str,
) -> Result<(), String> {
    for (i, p) in params.iter().enumerate() {
        let Param::Buffer { set, binding } = *p else {
            continue;
        };
        let Some(want) = reference.buffers.get(&(set, binding)) else {
            continue;
        };
        let got = buffers.get(i).and_then(|b| b.as_deref()).unwrap_or(&[]);
        let wild = reference.undefined.get(&(set, binding));
        for (k, w) in want.iter().enumerate() {
            if wild.is_some_and(|m| m[k]) {
                continue;
            }
            let g = got.get(k).copied();
            if g != Some(*w) {
                return Err(format!(
                    "set {set} binding {binding} byte {k} (word {}): reference {w:#04x}, {what} {}",
                    k / 4,
                    g.map_or("missing".to_string(), |g| format!("{g:#04x}"))
                ));
            }
        }
    }
    Ok(())
}
