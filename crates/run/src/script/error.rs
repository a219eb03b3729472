//! Why a script could not be run, and interpreter errors as a user reads them.

use tangle_amber::Pos;
use tangle_interp::InterpError;
use tangle_spirv::reader::{Origin, Origins};

use crate::device::DeviceError;
use crate::source::SourceError;

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

/// The SPIR-V instruction at the position an interpreter error names.
pub(super) fn error_origin(error: &InterpError, origins: &Origins) -> Option<Origin> {
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
