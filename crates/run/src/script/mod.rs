//! Executing an AmberScript [`Script`] on the reference interpreter.
//!
//! Every shader attached to a pipeline is loaded and verified before the first command, as
//! amber creates its pipelines first. Buffers start from their declared contents and keep
//! their bytes, by name, across `RUN`s. Commands run in order; a failing `EXPECT` is reported
//! and the script goes on (so every failing check is listed), a failing `RUN` (deadlock, step
//! budget, out-of-bounds access, undefined behaviour) is reported and ends the script, as its
//! buffers are then meaningless.

mod bindings;
mod dispatch;
mod error;
mod pipeline;
mod report;

use std::collections::HashMap;

use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};

use tangle_amber::{check_expect, Command, Pipeline, Script};
use tangle_interp::Config;
use tangle_ir::Module;
use tangle_spirv::reader::Origins;

use crate::device::Device;

pub use error::{run_error_at, run_error_message, ScriptError, ScriptErrorKind};
pub use report::{Event, Report};

/// How to run scripts.
#[derive(Clone, Debug)]
pub struct ScriptOptions {
    /// The emulated device.
    pub device: Device,
    /// Interpreter settings: policies, step budget, semantics variant. Its subgroup size,
    /// workgroup count and specialization constants are replaced per `RUN`.
    pub engine: Config,
    /// Target environment for shaders without `TARGET_ENV`.
    pub target_env: String,
    /// Directory `SHADER ... FILE` paths are relative to (the script's directory).
    pub base_dir: PathBuf,
    /// Also run every dispatch lowered, on the barrier machine under these policies,
    /// against the interpreter's buffers (`tangle run --engine lowered`).
    pub lowered: Option<crate::lowered::LoweredEngine>,
    /// Also compile every dispatch to SASS and run it on the SASS simulator under these
    /// SMs and policies, against the interpreter's buffers (`tangle run --engine sass`).
    pub sass: Option<crate::sass::SassEngine>,
}

impl Default for ScriptOptions {
    fn default() -> Self {
        ScriptOptions {
            device: Device::default(),
            engine: Config {
                record_trace: false,
                ..Config::default()
            },
            target_env: "vulkan1.1".into(),
            base_dir: PathBuf::from("."),
            lowered: None,
            sass: None,
        }
    }
}

/// Runs `script` and reports what each command did. An error means the script could not be
/// run at all (or stopped at a `RUN` it cannot run); check failures are in the [`Report`].
///
/// A `RUN` that branches on an undefined condition (SPIR-V lets any path be taken) makes
/// the whole script run again twice, every such lane taking the true side, then the false
/// side (unless `options.engine.undefined_branch` already chooses one): the report is the
/// first of the two that fails, or the true side's when both pass, and starts with an
/// [`Event::UndefinedBranch`] that says which it is. Compiled code cannot be made to take
/// a side: under the SASS engine, [`crate::sass::reconcile_sides`] judges its runs by the
/// side its code took.
pub fn run_script(script: &Script, options: &ScriptOptions) -> Result<Report, ScriptError> {
    let report = run_once(script, options)?;
    let branched = report.events.iter().find_map(|e| match e {
        Event::RunFailed {
            pos,
            error: tangle_interp::InterpError::UndefinedValue(u),
            ..
        } if u.what == "branch condition" => Some(*pos),
        _ => None,
    });
    let Some(pos) = branched.filter(|_| options.engine.undefined_branch.is_none()) else {
        return Ok(report);
    };
    let side = |side: bool| {
        let mut o = options.clone();
        o.engine.undefined_branch = Some(side);
        run_once(script, &o)
    };
    let (mut taken, mut not_taken) = (side(true)?, side(false)?);
    if options.sass.is_some() {
        crate::sass::reconcile_sides(&mut taken, &mut not_taken);
    }
    let (mut shown, side, other_passed) = if taken.passed() {
        let other = not_taken.passed();
        if other {
            (taken, true, true)
        } else {
            (not_taken, false, true)
        }
    } else {
        let other = not_taken.passed();
        (taken, true, other)
    };
    shown.events.insert(
        0,
        Event::UndefinedBranch {
            pos,
            side,
            other_passed,
        },
    );
    Ok(shown)
}

/// Runs `script` once with `options`.
fn run_once(script: &Script, options: &ScriptOptions) -> Result<Report, ScriptError> {
    let mut runner = Runner {
        script,
        options,
        modules: HashMap::new(),
        buffers: script
            .buffers
            .iter()
            .map(|b| {
                Ok((
                    b.name.clone(),
                    pipeline::initial_bytes(b, &options.base_dir)?,
                ))
            })
            .collect::<Result<_, ScriptError>>()?,
        undefined: FxHashMap::default(),
        order_valued: FxHashMap::default(),
        order_origin: FxHashMap::default(),
        report: Report::default(),
    };
    for pipeline in &script.pipelines {
        runner.prepare(pipeline)?;
    }
    runner.commands(&script.commands)?;
    let mut report = runner.report;
    report.buffers = runner.buffers.into_iter().collect();
    report.undefined = runner.undefined.into_iter().collect();
    Ok(report)
}

struct Runner<'s> {
    script: &'s Script,
    options: &'s ScriptOptions,
    /// Loaded and verified modules by shader name and `SHADER_OPTIMIZATION` passes, with
    /// where their instructions came from in the SPIR-V form.
    modules: HashMap<ModuleKey, (Module, Origins)>,
    /// Current contents of every buffer, by name. FxHash rather than SipHash: the names
    /// come from the script, and every `EXPECT` and `RUN` looks buffers up here.
    buffers: FxHashMap<String, Vec<u8>>,
    /// Per byte whether it is undefined, for the buffers that have undefined bytes.
    undefined: FxHashMap<String, Vec<bool>>,
    /// Per byte whether its value came from the order of racing atomics (the reference's
    /// `OrderDependent::valued`), for the buffers that have such bytes.
    order_valued: FxHashMap<String, Vec<bool>>,
    /// For those buffers, where their first order-dependent byte came from (for messages).
    order_origin: FxHashMap<String, String>,
    report: Report,
}

/// A shader as a pipeline uses it: its name and the spirv-opt passes run on it.
type ModuleKey = (String, Vec<String>);

/// The key of the module `pipeline` runs.
fn module_key(pipeline: &Pipeline, shader: &str) -> ModuleKey {
    let passes = pipeline
        .optimizations
        .iter()
        .rev()
        .find(|(s, _)| s == shader)
        .map(|(_, p)| p.clone())
        .unwrap_or_default();
    (shader.to_string(), passes)
}

/// `Ok(true)` to go on with the next command, `Ok(false)` when a `RUN` failed.
type Flow = Result<bool, ScriptError>;

impl Runner<'_> {
    fn commands(&mut self, commands: &[Command]) -> Flow {
        for command in commands {
            let go_on = match command {
                Command::Run(run) => self.run(&run.pipeline, run.groups, run.pos)?,
                Command::Expect(expect) => {
                    let buffers = &self.buffers;
                    let event = match crate::undefined::undefined_read(expect, &self.undefined) {
                        Some((buffer, byte_offset, count)) => Event::ReadUndefined {
                            pos: expect.pos,
                            buffer,
                            byte_offset,
                            count,
                        },
                        None => {
                            match crate::undefined::undefined_read(expect, &self.order_valued) {
                                Some((buffer, byte_offset, count)) => Event::ReadOrderDependent {
                                    pos: expect.pos,
                                    origin: self
                                        .order_origin
                                        .get(&buffer)
                                        .cloned()
                                        .unwrap_or_default(),
                                    buffer,
                                    byte_offset,
                                    count,
                                },
                                None => match check_expect(expect, &|name| {
                                    buffers.get(name).map(Vec::as_slice)
                                }) {
                                    Ok(()) => Event::Passed { pos: expect.pos },
                                    Err(failure) => Event::Failed(failure),
                                },
                            }
                        }
                    };
                    self.report.events.push(event);
                    true
                }
                Command::Copy { from, to, .. } => {
                    let bytes = self.buffers[from].clone();
                    self.buffers.insert(to.clone(), bytes);
                    match self.undefined.get(from).cloned() {
                        Some(mask) => self.undefined.insert(to.clone(), mask),
                        None => self.undefined.remove(to),
                    };
                    match self.order_valued.get(from).cloned() {
                        Some(mask) => self.order_valued.insert(to.clone(), mask),
                        None => self.order_valued.remove(to),
                    };
                    match self.order_origin.get(from).cloned() {
                        Some(o) => self.order_origin.insert(to.clone(), o),
                        None => self.order_origin.remove(to),
                    };
                    true
                }
                Command::Repeat {
                    count, commands, ..
                } => {
                    let mut go_on = true;
                    for _ in 0..*count {
                        go_on = self.commands(commands)?;
                        if !go_on {
                            break;
                        }
                    }
                    go_on
                }
            };
            if !go_on {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// The directory a script's relative `FILE` paths start from.
pub fn script_dir(script_path: &Path) -> PathBuf {
    match script_path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
