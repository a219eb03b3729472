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

use tangle_amber::{
    check_expect, Command, DescriptorKind, ExpectFailure, Pipeline, Pos, Script, ShaderFormat,
    ShaderSource,
};
use tangle_interp::{Config, InterpError, Interpreter, TraceEntry};
use tangle_ir::Module;

use crate::device::{Device, DeviceError};
use crate::source::{load_shader_with_origins, ShaderKind, SourceError};
use tangle_spirv::reader::{Origin, Origins};

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
    /// A `BUFFER ... FILE` could not be read, or its data does not fit the buffer's type.
    #[error("buffer `{buffer}`: {path}: {error}")]
    BufferFile {
        /// The buffer.
        buffer: String,
        /// The resolved path.
        path: String,
        /// Why (an I/O error, or a value at its line and column in the file).
        error: String,
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
        /// The SPIR-V instruction the error is at, when the shader came from SPIR-V.
        origin: Option<Origin>,
    },
    /// The lowered engine left the reference's buffers under every policy.
    LoweredAgreed {
        /// Where.
        pos: Pos,
        /// The pipeline.
        pipeline: String,
        /// The barrier operations each policy issued.
        stats: Vec<(tangle_machine::Policy, tangle_machine::BarrierStats)>,
    },
    /// The lowered engine disagreed with the reference (a check failure; the script goes
    /// on with the reference's buffers).
    LoweredDiffers {
        /// Where.
        pos: Pos,
        /// The pipeline.
        pipeline: String,
        /// The first policy that differed, and how.
        mismatch: crate::lowered::LoweredMismatch,
    },
    /// The SASS engine left the reference's buffers on every SM and policy, with no hazard.
    SassAgreed {
        /// Where.
        pos: Pos,
        /// The pipeline.
        pipeline: String,
        /// Simulator runs compared (SMs times policies).
        runs: usize,
    },
    /// The back end does not compile this dispatch (outside its subset; not a failure).
    SassRefused {
        /// Where.
        pos: Pos,
        /// The pipeline.
        pipeline: String,
        /// Why.
        why: String,
    },
    /// The SASS engine disagreed with the reference, reported a hazard, or failed (a check
    /// failure).
    SassDiffers {
        /// Where.
        pos: Pos,
        /// The pipeline.
        pipeline: String,
        /// The SM and policy that showed it, and how.
        mismatch: crate::lowered::LoweredMismatch,
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
                Event::RunFailed { .. }
                    | Event::Failed(_)
                    | Event::ReadUndefined { .. }
                    | Event::LoweredDiffers { .. }
                    | Event::SassDiffers { .. }
            )
        })
    }

    /// (`RUN`s completed, `EXPECT`s passed, `EXPECT`s failed and lowered runs that
    /// differed).
    pub fn counts(&self) -> (usize, usize, usize) {
        let mut c = (0, 0, 0);
        for e in &self.events {
            match e {
                Event::Ran { .. } => c.0 += 1,
                Event::Passed { .. } => c.1 += 1,
                Event::Failed(_)
                | Event::ReadUndefined { .. }
                | Event::LoweredDiffers { .. }
                | Event::SassDiffers { .. } => c.2 += 1,
                Event::RunFailed { .. }
                | Event::LoweredAgreed { .. }
                | Event::SassAgreed { .. }
                | Event::SassRefused { .. } => {}
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
            .map(|b| Ok((b.name.clone(), initial_bytes(b, &options.base_dir)?)))
            .collect::<Result<_, ScriptError>>()?,
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
    /// Loaded and verified modules by shader name and `SHADER_OPTIMIZATION` passes, with
    /// where their instructions came from in the SPIR-V form.
    modules: HashMap<ModuleKey, (Module, Origins)>,
    /// Current contents of every buffer, by name.
    buffers: HashMap<String, Vec<u8>>,
    /// Per byte whether it is undefined, for the buffers that have undefined bytes.
    undefined: HashMap<String, Vec<bool>>,
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
        let key = module_key(pipeline, &attach.shader);
        if !self.modules.contains_key(&key) {
            let module = self.load(&attach.shader, &key.1)?;
            self.modules.insert(key.clone(), module);
        }
        let module = &self.modules[&key].0;
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
                let wanted = crate::resources::descriptor_kind(module, g);
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

    /// Loads one script shader, runs spirv-opt with `passes` on it (none: not run), and
    /// verifies it.
    fn load(&self, name: &str, passes: &[String]) -> Result<(Module, Origins), ScriptError> {
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
        let (module, mut origins) = load_shader_with_origins(kind, &bytes, name, env, passes)
            .map_err(|error| {
                // glslang counts lines from the shader's text; an inline shader's text starts on
                // the line after `SHADER`, so its messages are moved to the script's lines.
                let error = match (error, &shader.source) {
                    (
                        SourceError::Glsl(n, tangle_spirv::glslang::GlslError::Compile(text)),
                        ShaderSource::Inline(_),
                    ) => SourceError::Glsl(
                        n,
                        tangle_spirv::glslang::GlslError::Compile(shift_glslang_lines(
                            &text,
                            name,
                            shader.pos.line,
                        )),
                    ),
                    (error, _) => error,
                };
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
        if let ShaderSource::Inline(_) = shader.source {
            // Source lines of an inline shader, counted from the script's first line.
            for o in origins
                .insts
                .values_mut()
                .chain(origins.terminators.values_mut())
            {
                if let Some(l) = &mut o.line {
                    *l += shader.pos.line;
                }
            }
        }
        Ok((module, origins))
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
        let (module, origins) = &self.modules[&module_key(pipeline, &attach.shader)];
        let mut config = self.options.engine.clone();
        // The interpreter runs at least one workgroup; a zero count is handled below.
        config.workgroups = groups.map(|g| g.max(1));
        config.spec_constants = attach
            .specializations
            .iter()
            .map(|s| (s.id, s.bits))
            .collect();
        let interp_err = |e: InterpError| err(ScriptErrorKind::Interpreter(e));
        // Prepared once: the subgroup size the device picks from the workgroup size is set
        // on the prepared dispatch below (nothing prepared depends on it).
        let mut interp =
            Interpreter::new(module, &attach.entry_point, config.clone()).map_err(interp_err)?;
        let local_size = interp.local_size();
        let device = &self.options.device;
        let control = pipeline
            .subgroups
            .iter()
            .rev()
            .find(|s| s.shader == attach.shader);
        config.subgroup_size = device
            .subgroup_size(control, local_size, module.version >= (1, 6))
            .map_err(|e| err(e.into()))?;
        device
            .check_dispatch(local_size, groups)
            .map_err(|e| err(e.into()))?;
        let subgroup_size = config.subgroup_size;
        config.workgroups = groups;
        if groups.contains(&0) {
            // A dispatch of zero workgroups is valid Vulkan and runs nothing.
            self.report.events.push(Event::Ran {
                pos,
                pipeline: name.into(),
                groups,
                local_size,
                subgroup_size,
                steps: 0,
                lane_steps: 0,
                trace: Vec::new(),
            });
            return Ok(true);
        }
        let lowered_config =
            (self.options.lowered.is_some() || self.options.sass.is_some()).then(|| config.clone());
        let mut dispatch = crate::lowered::Dispatch::default();
        interp
            .set_subgroup_size(subgroup_size)
            .map_err(interp_err)?;
        interp.set_workgroups(groups).map_err(interp_err)?;
        let mut windows = Vec::new();
        for b in &pipeline.bindings {
            let bytes = &self.buffers[&b.buffer];
            let Some(window) = b.window.bytes(bytes.len()) else {
                return Err(err(ScriptErrorKind::Pipeline(format!(
                    "buffer `{}` at set {} binding {}: the descriptor's bytes {}..{} do not fit \
                     its {} bytes",
                    b.buffer,
                    b.set,
                    b.binding,
                    b.window.start(),
                    b.window.range.map_or("the end".to_string(), |r| {
                        (b.window.start() + r as usize).to_string()
                    }),
                    bytes.len()
                ))));
            };
            let slice = bytes[window.clone()].to_vec();
            if lowered_config.is_some() {
                let mask = self
                    .undefined
                    .get(&b.buffer)
                    .map(|m| m[window.clone()].to_vec());
                dispatch
                    .buffers
                    .insert((b.set, b.binding), (slice.clone(), mask));
            }
            match self.undefined.get(&b.buffer) {
                Some(mask) => interp.bind_buffer_with_undefined(
                    b.set,
                    b.binding,
                    slice,
                    &mask[window.clone()],
                ),
                None => interp.bind_buffer(b.set, b.binding, slice),
            }
            windows.push(window);
        }
        if let Some(pc) = &pipeline.push_constant {
            interp.set_push_constants(self.buffers[pc].clone());
            dispatch.push_constants = Some(self.buffers[pc].clone());
        }
        match interp.run() {
            Ok(outcome) => {
                let lowered_event = match (&self.options.lowered, &lowered_config) {
                    (Some(engine), Some(config)) => Some(
                        match crate::lowered::check(
                            module,
                            &attach.entry_point,
                            config,
                            &dispatch,
                            &outcome,
                            engine,
                        ) {
                            Ok(stats) => Event::LoweredAgreed {
                                pos,
                                pipeline: name.into(),
                                stats,
                            },
                            Err(mismatch) => Event::LoweredDiffers {
                                pos,
                                pipeline: name.into(),
                                mismatch,
                            },
                        },
                    ),
                    _ => None,
                };
                let sass_event = match (&self.options.sass, &lowered_config) {
                    (Some(engine), Some(config)) => Some(
                        match crate::sass::check(
                            module,
                            &attach.entry_point,
                            config,
                            &dispatch,
                            &outcome,
                            engine,
                        ) {
                            Ok(Ok(runs)) => Event::SassAgreed {
                                pos,
                                pipeline: name.into(),
                                runs,
                            },
                            Ok(Err(crate::sass::Refused(why))) => Event::SassRefused {
                                pos,
                                pipeline: name.into(),
                                why,
                            },
                            Err(mismatch) => Event::SassDiffers {
                                pos,
                                pipeline: name.into(),
                                mismatch,
                            },
                        },
                    ),
                    _ => None,
                };
                for (b, window) in pipeline.bindings.iter().zip(windows) {
                    if let Some(bytes) = outcome.buffers.get(&(b.set, b.binding)) {
                        let whole = self
                            .buffers
                            .get_mut(&b.buffer)
                            .expect("bound buffers exist");
                        // The interpreter keeps a binding's size; copy what fits regardless.
                        let n = bytes.len().min(window.len());
                        whole[window.start..window.start + n].copy_from_slice(&bytes[..n]);
                        // The undefined bytes of the window follow the run's; the rest stay.
                        match outcome.undefined.get(&(b.set, b.binding)) {
                            Some(mask) => {
                                let len = whole.len();
                                let m = self
                                    .undefined
                                    .entry(b.buffer.clone())
                                    .or_insert_with(|| vec![false; len]);
                                m[window.start..window.start + n].copy_from_slice(&mask[..n]);
                            }
                            None => {
                                if let Some(m) = self.undefined.get_mut(&b.buffer) {
                                    m[window.start..window.start + n].fill(false);
                                }
                            }
                        }
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
                self.report.events.extend(lowered_event);
                self.report.events.extend(sass_event);
                Ok(true)
            }
            Err(e @ (InterpError::Config(_) | InterpError::Unsupported { .. })) => {
                let origin = error_origin(&e, origins);
                Err(err(ScriptErrorKind::Pipeline(run_error_message(
                    &e,
                    origin.as_ref(),
                ))))
            }
            Err(error) => {
                let origin = error_origin(&error, origins);
                self.report.events.push(Event::RunFailed {
                    pos,
                    pipeline: name.into(),
                    error,
                    origin,
                });
                Ok(false)
            }
        }
    }
}

/// The SPIR-V instruction at the position an interpreter error names.
fn error_origin(error: &InterpError, origins: &Origins) -> Option<Origin> {
    let at = match error {
        InterpError::Unsupported { at, .. }
        | InterpError::OutOfBounds { at, .. }
        | InterpError::Undefined { at, .. }
        | InterpError::Internal { at, .. } => at,
        InterpError::UndefinedValue(u) => &u.at,
        _ => return None,
    };
    origins.at(at.func, at.block, at.inst).cloned()
}

/// An interpreter error as a user reads it, with the SPIR-V instruction it is at looked up
/// in `origins` (see [`run_error_message`]).
pub fn run_error_at(error: &InterpError, origins: &Origins) -> String {
    run_error_message(error, error_origin(error, origins).as_ref())
}

/// An interpreter error as a user reads it: the SPIR-V instruction it is at (`%27 =
/// OpSDiv`, and the source line when the module has `OpLine`), then the IR position.
pub fn run_error_message(error: &InterpError, origin: Option<&Origin>) -> String {
    let Some(origin) = origin else {
        return error.to_string();
    };
    let (kind, at, what) = match error {
        InterpError::Unsupported { at, what } => ("unsupported", at, what),
        InterpError::OutOfBounds { at, what } => ("out-of-bounds access", at, what),
        InterpError::Undefined { at, what } => ("undefined behaviour", at, what),
        InterpError::Internal { at, what } => ("internal error", at, what),
        InterpError::UndefinedValue(u) => {
            return format!(
                "undefined value at {origin} (IR {}): lane {}'s {} is undefined ({})",
                u.at, u.lane, u.what, u.born
            )
        }
        _ => return error.to_string(),
    };
    format!("{kind} at {origin} (IR {at}): {what}")
}

/// A buffer's initial bytes: its declared contents, or a `FILE`'s, read relative to
/// `base_dir` (the script's directory).
fn initial_bytes(buffer: &tangle_amber::Buffer, base_dir: &Path) -> Result<Vec<u8>, ScriptError> {
    let tangle_amber::Initializer::File { path, binary } = &buffer.init else {
        return Ok(buffer.initial_bytes());
    };
    let full = base_dir.join(path);
    let fail = |error: String| {
        ScriptError::new(
            buffer.pos,
            ScriptErrorKind::BufferFile {
                buffer: buffer.name.clone(),
                path: full.display().to_string(),
                error,
            },
        )
    };
    let contents = std::fs::read(&full).map_err(|e| fail(e.to_string()))?;
    tangle_amber::file_initial_bytes(buffer, &contents, *binary).map_err(|e| fail(e.to_string()))
}

/// glslang's `ERROR: <name>:<line>:` messages with `offset` added to every line number (a
/// line of an inline shader's text is line `offset + line` of the script).
fn shift_glslang_lines(text: &str, name: &str, offset: u32) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let marker = format!(" {name}:");
        let shifted = line.find(&marker).and_then(|at| {
            let start = at + marker.len();
            let digits = line[start..].bytes().take_while(u8::is_ascii_digit).count();
            let n: u32 = line[start..start + digits].parse().ok()?;
            Some(format!(
                "{}{}{}",
                &line[..start],
                n + offset,
                &line[start + digits..]
            ))
        });
        out.push_str(shifted.as_deref().unwrap_or(line));
        out.push('\n');
    }
    out
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
