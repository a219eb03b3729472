//! Executing an AmberScript [`Script`] on the reference interpreter.
//!
//! Every shader attached to a pipeline is loaded and verified before the first command, as
//! amber creates its pipelines first. Buffers start from their declared contents and keep
//! their bytes, by name, across `RUN`s. Commands run in order; a failing `EXPECT` is reported
//! and the script goes on (so every failing check is listed), a failing `RUN` (deadlock, step
//! budget, out-of-bounds access, undefined behaviour) is reported and ends the script, as its
//! buffers are then meaningless.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use spirv::StorageClass;
use tangle_amber::{
    check_expect, Command, DescriptorKind, ExpectFailure, Pipeline, Pos, Script, ShaderFormat,
    ShaderSource,
};
use tangle_interp::{Config, InterpError, Interpreter, TraceEntry};
use tangle_ir::Module;

use crate::device::{Device, DeviceError};
use crate::source::{load_shader, ShaderKind, SourceError};

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
        }
    }
}

/// Why a script could not be run.
#[derive(Debug, thiserror::Error)]
pub enum ScriptErrorKind {
    /// A shader did not load (file, compile, assembly, binary).
    #[error("shader `{shader}`: {error}")]
    Shader {
        /// The script's shader name.
        shader: String,
        /// Why.
        error: SourceError,
    },
    /// A `SHADER ... FILE` could not be read.
    #[error("shader `{shader}`: cannot read {path}: {error}")]
    File {
        /// The script's shader name.
        shader: String,
        /// The resolved path.
        path: String,
        /// Why.
        error: std::io::Error,
    },
    /// A shader loaded but breaks the IR or maximal-reconvergence rules.
    #[error("shader `{shader}` is invalid:\n{errors}")]
    InvalidModule {
        /// The script's shader name.
        shader: String,
        /// Every verifier error, one per line.
        errors: String,
    },
    /// The pipeline or dispatch exceeds the emulated device.
    #[error("{0}")]
    Device(#[from] DeviceError),
    /// Bindings that do not fit the shader, or something the runner does not support.
    #[error("{0}")]
    Pipeline(String),
    /// The interpreter does not support something the shader does.
    #[error("{0}")]
    Interpreter(InterpError),
}

/// A script that could not be run, and where.
#[derive(Debug, thiserror::Error)]
#[error("{pos}: {kind}")]
pub struct ScriptError {
    /// The script position the error belongs to (a `SHADER`, `PIPELINE` or `RUN`).
    pub pos: Pos,
    /// What went wrong (boxed: the error travels through every `?`).
    pub kind: Box<ScriptErrorKind>,
}

impl ScriptError {
    /// An error at `pos`.
    pub fn new(pos: Pos, kind: ScriptErrorKind) -> Self {
        ScriptError {
            pos,
            kind: Box::new(kind),
        }
    }

    /// The CLI exit status: 1 for an invalid module (as `tangle validate`), 2 for the rest.
    pub fn exit_code(&self) -> u8 {
        match *self.kind {
            ScriptErrorKind::InvalidModule { .. } => 1,
            _ => 2,
        }
    }
}

/// What happened at one command.
#[derive(Debug)]
pub enum Event {
    /// A `RUN` completed.
    Ran {
        /// Where.
        pos: Pos,
        /// The pipeline.
        pipeline: String,
        /// Workgroup counts.
        groups: [u32; 3],
        /// Workgroup size.
        local_size: [u32; 3],
        /// The subgroup size the device picked.
        subgroup_size: u32,
        /// Tangle-instructions executed.
        steps: u64,
        /// Lane-instructions executed.
        lane_steps: u64,
        /// The subgroup operations and their tangles, when `engine.record_trace` is set.
        trace: Vec<TraceEntry>,
    },
    /// A `RUN` failed at run time; the script stopped there.
    RunFailed {
        /// Where.
        pos: Pos,
        /// The pipeline.
        pipeline: String,
        /// The interpreter's error (deadlock, step budget, out of bounds, undefined).
        error: InterpError,
    },
    /// An `EXPECT` held.
    Passed {
        /// Where.
        pos: Pos,
    },
    /// An `EXPECT` failed.
    Failed(ExpectFailure),
    /// An `EXPECT` read bytes the runs left undefined (results SPIR-V leaves undefined,
    /// such as a division by zero, that reached the buffer): it fails whatever they hold.
    ReadUndefined {
        /// Where.
        pos: Pos,
        /// The buffer.
        buffer: String,
        /// The first undefined byte the check reads.
        byte_offset: usize,
        /// How many of the bytes it reads are undefined.
        count: usize,
    },
}

/// Everything a script run did, in order.
#[derive(Debug, Default)]
pub struct Report {
    /// One entry per executed `RUN` and `EXPECT` (a `REPEAT` body once per repetition).
    pub events: Vec<Event>,
    /// Every buffer's contents when the script ended, by name.
    pub buffers: BTreeMap<String, Vec<u8>>,
    /// For every buffer with undefined bytes when the script ended, per byte whether it is
    /// undefined (its byte in `buffers` is then zero).
    pub undefined: BTreeMap<String, Vec<bool>>,
}

impl Report {
    /// Whether every `RUN` completed and every `EXPECT` held.
    pub fn passed(&self) -> bool {
        !self.events.iter().any(|e| {
            matches!(
                e,
                Event::RunFailed { .. } | Event::Failed(_) | Event::ReadUndefined { .. }
            )
        })
    }

    /// (`RUN`s completed, `EXPECT`s passed, `EXPECT`s failed).
    pub fn counts(&self) -> (usize, usize, usize) {
        let mut c = (0, 0, 0);
        for e in &self.events {
            match e {
                Event::Ran { .. } => c.0 += 1,
                Event::Passed { .. } => c.1 += 1,
                Event::Failed(_) | Event::ReadUndefined { .. } => c.2 += 1,
                Event::RunFailed { .. } => {}
            }
        }
        c
    }

    /// The lane-instructions of every completed `RUN` together.
    pub fn lane_steps(&self) -> u64 {
        self.events
            .iter()
            .map(|e| match e {
                Event::Ran { lane_steps, .. } => *lane_steps,
                _ => 0,
            })
            .sum()
    }
}

/// Runs `script` and reports what each command did. An error means the script could not be
/// run at all (or stopped at a `RUN` it cannot run); check failures are in the [`Report`].
pub fn run_script(script: &Script, options: &ScriptOptions) -> Result<Report, ScriptError> {
    let mut runner = Runner {
        script,
        options,
        modules: HashMap::new(),
        buffers: script
            .buffers
            .iter()
            .map(|b| (b.name.clone(), b.initial_bytes()))
            .collect(),
        undefined: HashMap::new(),
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
    /// Loaded and verified modules by shader name.
    modules: HashMap<String, Module>,
    /// Current contents of every buffer, by name.
    buffers: HashMap<String, Vec<u8>>,
    /// Per byte whether it is undefined, for the buffers that have undefined bytes.
    undefined: HashMap<String, Vec<bool>>,
    report: Report,
}

/// `Ok(true)` to go on with the next command, `Ok(false)` when a `RUN` failed.
type Flow = Result<bool, ScriptError>;

impl Runner<'_> {
    /// Loads the pipeline's shader and checks its bindings against it.
    fn prepare(&mut self, pipeline: &Pipeline) -> Result<(), ScriptError> {
        let err = |kind| ScriptError::new(pipeline.pos, kind);
        let [attach] = pipeline.attachments.as_slice() else {
            return Err(err(ScriptErrorKind::Pipeline(format!(
                "compute pipeline `{}` needs exactly one attached shader, has {}",
                pipeline.name,
                pipeline.attachments.len()
            ))));
        };
        if !self.modules.contains_key(&attach.shader) {
            let module = self.load(&attach.shader)?;
            self.modules.insert(attach.shader.clone(), module);
        }
        let module = &self.modules[&attach.shader];
        let mut seen: BTreeMap<&str, &tangle_amber::Binding> = BTreeMap::new();
        for b in &pipeline.bindings {
            if let Some(first) = seen.insert(&b.buffer, b) {
                return Err(ScriptError::new(
                    b.pos,
                    ScriptErrorKind::Pipeline(format!(
                        "buffer `{}` is bound twice (set {} binding {} and set {} binding {}); \
                         aliased descriptors are not supported",
                        b.buffer, first.set, first.binding, b.set, b.binding
                    )),
                ));
            }
            let declared = module.globals.iter().find(|(_, g)| {
                g.decorations.set == Some(b.set) && g.decorations.binding == Some(b.binding)
            });
            if let Some((_, g)) = declared {
                let wanted = match g.storage {
                    StorageClass::StorageBuffer => Some(DescriptorKind::Storage),
                    StorageClass::Uniform => Some(DescriptorKind::Uniform),
                    _ => None,
                };
                if wanted != Some(b.kind) {
                    return Err(ScriptError::new(
                        b.pos,
                        ScriptErrorKind::Pipeline(format!(
                            "buffer `{}` is bound as {} at set {} binding {}, but the shader \
                             declares a {:?} variable there",
                            b.buffer,
                            kind_name(b.kind),
                            b.set,
                            b.binding,
                            g.storage
                        )),
                    ));
                }
            }
        }
        for used in crate::resources::used_descriptors(module) {
            if !pipeline
                .bindings
                .iter()
                .any(|b| (b.set, b.binding) == (used.set, used.binding))
            {
                return Err(err(ScriptErrorKind::Pipeline(format!(
                    "shader `{}` uses the {used}, but pipeline `{}` binds no buffer there",
                    attach.shader, pipeline.name
                ))));
            }
        }
        if pipeline.push_constant.is_none() && crate::resources::uses_push_constants(module) {
            return Err(err(ScriptErrorKind::Pipeline(format!(
                "shader `{}` reads push constants, but pipeline `{}` binds no push_constant buffer",
                attach.shader, pipeline.name
            ))));
        }
        if let Some(pc) = &pipeline.push_constant {
            self.options
                .device
                .check_push_constants(self.buffers[pc].len())
                .map_err(|e| err(e.into()))?;
        }
        Ok(())
    }

    /// Loads and verifies one script shader.
    fn load(&self, name: &str) -> Result<Module, ScriptError> {
        let shader = self
            .script
            .shader(name)
            .expect("the parser checks that attached shaders exist");
        let err = |kind| ScriptError::new(shader.pos, kind);
        let kind = match shader.format {
            ShaderFormat::Glsl => ShaderKind::Glsl,
            ShaderFormat::SpirvAsm => ShaderKind::SpirvAsm,
            ShaderFormat::SpirvHex => ShaderKind::SpirvHex,
            ShaderFormat::SpirvBin => ShaderKind::SpirvBinary,
        };
        let bytes = match &shader.source {
            ShaderSource::Inline(text) | ShaderSource::VirtualFile { text, .. } => {
                text.clone().into_bytes()
            }
            ShaderSource::File { path, .. } => {
                let full = self.options.base_dir.join(path);
                std::fs::read(&full).map_err(|error| {
                    err(ScriptErrorKind::File {
                        shader: name.into(),
                        path: full.display().to_string(),
                        error,
                    })
                })?
            }
        };
        let env = shader
            .target_env
            .as_deref()
            .unwrap_or(&self.options.target_env);
        let module = load_shader(kind, &bytes, name, env).map_err(|error| {
            err(ScriptErrorKind::Shader {
                shader: name.into(),
                error,
            })
        })?;
        tangle_ir::verify::verify(&module).map_err(|errors| {
            err(ScriptErrorKind::InvalidModule {
                shader: name.into(),
                errors: errors
                    .0
                    .iter()
                    .map(|e| format!("  {e}"))
                    .collect::<Vec<_>>()
                    .join("\n"),
            })
        })?;
        Ok(module)
    }

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
                            match check_expect(expect, &|name| buffers.get(name).map(Vec::as_slice))
                            {
                                Ok(()) => Event::Passed { pos: expect.pos },
                                Err(failure) => Event::Failed(failure),
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

    /// One `RUN`: bind, dispatch, write the buffers back.
    fn run(&mut self, name: &str, groups: [u32; 3], pos: Pos) -> Flow {
        let err = |kind| ScriptError::new(pos, kind);
        let pipeline = self
            .script
            .pipeline(name)
            .expect("the parser checks that run pipelines exist");
        let attach = &pipeline.attachments[0];
        let module = &self.modules[&attach.shader];
        let mut config = self.options.engine.clone();
        config.workgroups = groups;
        config.spec_constants = attach
            .specializations
            .iter()
            .map(|s| (s.id, s.bits))
            .collect();
        let interp_err = |e: InterpError| err(ScriptErrorKind::Interpreter(e));
        let local_size = Interpreter::new(module, &attach.entry_point, config.clone())
            .map_err(interp_err)?
            .local_size();
        let device = &self.options.device;
        let control = pipeline
            .subgroups
            .iter()
            .rev()
            .find(|s| s.shader == attach.shader);
        config.subgroup_size = device
            .subgroup_size(control, local_size)
            .map_err(|e| err(e.into()))?;
        device
            .check_dispatch(local_size, groups)
            .map_err(|e| err(e.into()))?;
        let subgroup_size = config.subgroup_size;
        let mut interp =
            Interpreter::new(module, &attach.entry_point, config).map_err(interp_err)?;
        for b in &pipeline.bindings {
            let bytes = self.buffers[&b.buffer].clone();
            match self.undefined.get(&b.buffer) {
                Some(mask) => interp.bind_buffer_with_undefined(b.set, b.binding, bytes, mask),
                None => interp.bind_buffer(b.set, b.binding, bytes),
            }
        }
        if let Some(pc) = &pipeline.push_constant {
            interp.set_push_constants(self.buffers[pc].clone());
        }
        match interp.run() {
            Ok(outcome) => {
                for b in &pipeline.bindings {
                    if let Some(bytes) = outcome.buffers.get(&(b.set, b.binding)) {
                        self.buffers.insert(b.buffer.clone(), bytes.clone());
                        match outcome.undefined.get(&(b.set, b.binding)) {
                            Some(mask) => self.undefined.insert(b.buffer.clone(), mask.clone()),
                            None => self.undefined.remove(&b.buffer),
                        };
                    }
                }
                self.report.events.push(Event::Ran {
                    pos,
                    pipeline: name.into(),
                    groups,
                    local_size,
                    subgroup_size,
                    steps: outcome.steps,
                    lane_steps: outcome.lane_steps,
                    trace: outcome.trace,
                });
                Ok(true)
            }
            Err(e @ (InterpError::Config(_) | InterpError::Unsupported { .. })) => {
                Err(interp_err(e))
            }
            Err(error) => {
                self.report.events.push(Event::RunFailed {
                    pos,
                    pipeline: name.into(),
                    error,
                });
                Ok(false)
            }
        }
    }
}

fn kind_name(kind: DescriptorKind) -> &'static str {
    match kind {
        DescriptorKind::Storage => "storage",
        DescriptorKind::Uniform => "uniform",
    }
}

/// The directory a script's relative `FILE` paths start from.
pub fn script_dir(script_path: &Path) -> PathBuf {
    match script_path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
