//! Running shaders on tangle's reference interpreter, the way this ecosystem runs them.
//!
//! - [`source`]: load a shader from any supported form (SPIR-V binary, assembly, amber's
//!   hex, GLSL through glslang, tangle IR).
//! - [`device`]: the emulated device's limits and its choice of subgroup size.
//! - [`script`]: execute an AmberScript [`tangle_amber::Script`]: pipelines, buffers kept
//!   across `RUN`s, push constants, specialization, subgroup size control, `EXPECT`s.
//! - [`undefined`]: which bytes an `EXPECT` reads, against the bytes the runs left
//!   undefined;
//! - [`lowered`]: the lowered engine: each dispatch lowered to convergence barriers and
//!   run on the barrier machine under scheduling policies, against the reference.
//!
//! See `docs/run.md`.

pub mod device;
pub mod lowered;
pub mod resources;
pub mod sass;
pub mod script;
pub mod source;
pub mod spec;
pub mod undefined;

pub use device::{Device, DeviceError};
pub use script::{
    run_error_message, run_script, Event, Report, ScriptError, ScriptErrorKind, ScriptOptions,
};
pub use source::{load_shader, load_shader_optimized, ShaderKind, SourceError};
pub use spec::spec_value_bits;
