//! The lowered engine: a dispatch the reference interpreter ran, lowered to convergence
//! barriers (`tangle-reconverge`) and run again on the barrier machine (`tangle-machine`)
//! under each scheduling policy, with the same inputs; every policy must leave the buffers
//! the reference left. The reference's undefined bytes are wildcards.
//!
//! The token engine runs here too ([`MachineEngine::Tokens`]): the module with its tokens
//! inferred and its structure dropped (`tangle_tokens::engine`), on the machine with
//! [`Convergence::Tokens`]. Its reference must run with fallthrough lanes merging into
//! the next switch case (`FallthroughPolicy::Merge`), the grouping the tokens give;
//! `tangle run --engine tokens` sets that.

use std::collections::BTreeMap;

use tangle_interp::{Config, Outcome};
use tangle_ir::Module;
use tangle_machine::{BarrierStats, Convergence, Machine, MachineConfig, Policy};
use tangle_reconverge::{lower_module, LowerOptions, Scheme};

/// What the machine runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MachineEngine {
    /// The reconvergence lowering under this barrier placement, on the barrier machine.
    Lowered(Scheme),
    /// The tokens inferred and the structure dropped, on the token engine.
    Tokens,
}

impl std::fmt::Display for MachineEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MachineEngine::Lowered(s) => write!(f, "lowered ({s})"),
            MachineEngine::Tokens => f.write_str("tokens"),
        }
    }
}

/// Which form and which policies the lowered engine runs.
#[derive(Clone, Debug)]
pub struct LoweredEngine {
    /// The form the machine runs and how it decides convergence.
    pub engine: MachineEngine,
    /// The policies every dispatch runs under, in order; the first that differs is
    /// reported.
    pub policies: Vec<Policy>,
}

/// A bound buffer's bytes and, when some are undefined, its undefined-byte mask.
pub type BufferBytes = (Vec<u8>, Option<Vec<bool>>);

/// One dispatch's inputs, as the reference got them.
#[derive(Clone, Debug, Default)]
pub struct Dispatch {
    /// Each bound buffer by its key: (set, binding) for a buffer bound alone, another key
    /// for one that `views` share.
    pub buffers: BTreeMap<(u32, u32), BufferBytes>,
    /// Descriptors that view bound buffers, by (set, binding)
    /// (`tangle_interp::descriptors`).
    pub views: tangle_interp::descriptors::Views,
    /// The push-constant bytes, if any.
    pub push_constants: Option<Vec<u8>>,
}

/// Why the lowered engine disagreed with the reference.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{engine} ({policy}): {message}")]
pub struct LoweredMismatch {
    /// The engine, `lowered (SCHEME)`.
    pub engine: String,
    /// The policy that showed it (`-` when the lowering itself failed).
    pub policy: String,
    /// What happened: the machine's error, or the first differing byte.
    pub message: String,
}

/// Lowers `module` with `scheme`.
pub fn lower(module: &Module, scheme: Scheme) -> Result<Module, String> {
    let opts = LowerOptions {
        scheme,
        ..LowerOptions::default()
    };
    lower_module(module, &opts).map_err(|e| format!("the lowering failed: {e}"))
}

/// Runs `module` (structured) lowered under `engine` with the reference's configuration
/// `config` and inputs `dispatch`, and compares each policy's buffers with `reference`.
/// On agreement, the barrier operations each policy issued.
pub fn check(
    module: &Module,
    entry: &str,
    config: &Config,
    dispatch: &Dispatch,
    reference: &Outcome,
    engine: &LoweredEngine,
) -> Result<Vec<(Policy, BarrierStats)>, LoweredMismatch> {
    let name = engine.engine.to_string();
    let mismatch = |policy: String, message: String| LoweredMismatch {
        engine: name.clone(),
        policy,
        message,
    };
    let (lowered, convergence) = match engine.engine {
        MachineEngine::Lowered(scheme) => (
            lower(module, scheme).map_err(|m| mismatch("-".into(), m))?,
            Convergence::Barriers,
        ),
        MachineEngine::Tokens => (
            tangle_tokens::engine::for_engine(module)
                .map_err(|e| mismatch("-".into(), format!("token inference: {e}")))?,
            Convergence::Tokens,
        ),
    };
    let mut stats = Vec::new();
    for &policy in &engine.policies {
        let machine_config = MachineConfig {
            subgroup_size: config.subgroup_size,
            workgroups: config.workgroups,
            spec_constants: config.spec_constants.clone(),
            policy,
            step_budget: config.step_budget,
            record_trace: false,
            convergence,
            undefined_branch: config.undefined_branch,
            ..MachineConfig::default()
        };
        let run = || -> Result<tangle_machine::Outcome, String> {
            let mut m = Machine::new(&lowered, entry, machine_config).map_err(|e| e.to_string())?;
            for (&(set, binding), (bytes, undefined)) in &dispatch.buffers {
                match undefined {
                    Some(mask) => m.bind_buffer_with_undefined(set, binding, bytes.clone(), mask),
                    None => m.bind_buffer(set, binding, bytes.clone()),
                }
            }
            for (&(set, binding), views) in &dispatch.views {
                m.bind_views(set, binding, views.clone());
            }
            if let Some(p) = &dispatch.push_constants {
                m.set_push_constants(p.clone());
            }
            m.run().map_err(|e| e.to_string())
        };
        let outcome = run().map_err(|e| mismatch(policy.to_string(), e))?;
        if let Some(what) = difference(reference, &outcome) {
            return Err(mismatch(policy.to_string(), what));
        }
        stats.push((policy, outcome.stats));
    }
    Ok(stats)
}

/// The first byte where the machine's buffers differ from the reference's, where the
/// reference's is defined and does not depend on the order of racing atomics.
fn difference(reference: &Outcome, got: &tangle_machine::Outcome) -> Option<String> {
    for (key, want) in &reference.buffers {
        let Some(bytes) = got.buffers.get(key) else {
            return Some(format!("no buffer at set {} binding {}", key.0, key.1));
        };
        let wild = reference.wildcards(*key);
        let undefined = got.undefined.get(key);
        for (i, (w, g)) in want.iter().zip(bytes).enumerate() {
            if wild.as_ref().is_some_and(|m| m[i]) {
                continue;
            }
            if undefined.is_some_and(|m| m[i]) {
                return Some(format!(
                    "set {} binding {} byte {i}: reference {w:#04x}, lowered undefined",
                    key.0, key.1
                ));
            }
            if w != g {
                return Some(format!(
                    "set {} binding {} byte {i} (word {}): reference {w:#04x}, lowered {g:#04x}",
                    key.0,
                    key.1,
                    i / 4
                ));
            }
        }
    }
    None
}

/// The barrier counts of each policy, one line each.
pub fn stats_lines(stats: &[(Policy, BarrierStats)]) -> Vec<String> {
    stats
        .iter()
        .map(|(p, s)| {
            format!(
                "{p}: bar_set {}, bar_sync {}, bar_break {}, exit {} (per warp)",
                s.set, s.sync, s.brk, s.exit
            )
        })
        .collect()
}
