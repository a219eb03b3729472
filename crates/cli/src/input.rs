//! Reading a shader from a file or stdin, whatever its form.

use std::io::Read;
use std::path::Path;

use clap::ValueEnum;
use tangle_ir::Module;
use tangle_run::ShaderKind;

/// The form of an input shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum InputKind {
    /// A SPIR-V binary module (`.spv`).
    Spv,
    /// SPIR-V assembly as spirv-dis prints it (`.spvasm`).
    Spvasm,
    /// A GLSL compute shader, compiled with glslangValidator (`.comp`, `.glsl`).
    Glsl,
    /// tangle's own IR text (`.tir`).
    Ir,
    /// LLVM IR text (`.ll`), the subset of docs/tokens.md.
    Ll,
}

impl InputKind {
    /// The kind a file name's extension says.
    pub fn from_path(path: &Path) -> Option<Self> {
        match path.extension()?.to_str()? {
            "spv" => Some(InputKind::Spv),
            "spvasm" => Some(InputKind::Spvasm),
            "comp" | "glsl" => Some(InputKind::Glsl),
            "tir" => Some(InputKind::Ir),
            "ll" => Some(InputKind::Ll),
            _ => None,
        }
    }
}

/// Why an input could not be turned into a module. Every variant means exit status 2.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file or stdin could not be read.
    #[error("cannot read {0}: {1}")]
    Io(String, std::io::Error),
    /// The kind could not be told from the name.
    #[error("cannot tell the input kind of {0}: use --kind spv|spvasm|glsl|ir|ll")]
    UnknownKind(String),
    /// LLVM IR text that could not be read.
    #[error("{0}:{1}")]
    Llvm(String, tangle_llvm::ReadError),
    /// An input kind this command does not take.
    #[error("{0}: {1}")]
    Unsupported(String, &'static str),
    /// The shader did not load.
    #[error(transparent)]
    Source(#[from] tangle_run::SourceError),
}

/// Options for reading inputs.
pub struct ReadOptions {
    /// Overrides the kind the file name says.
    pub kind: Option<InputKind>,
    /// The Vulkan target environment for GLSL and assembly.
    pub target_env: String,
}

/// Reads the shader at `path` (`-` is stdin) into a module, with where its instructions
/// came from in the SPIR-V form (for run-time messages; GLSL is compiled with line
/// information).
pub fn load_with_origins(
    path: &Path,
    opts: &ReadOptions,
) -> Result<(Module, tangle_spirv::reader::Origins), InputError> {
    let name = path.display().to_string();
    let kind = opts
        .kind
        .or_else(|| InputKind::from_path(path))
        .ok_or_else(|| InputError::UnknownKind(name.clone()))?;
    if kind == InputKind::Ll {
        return Err(InputError::Unsupported(
            name,
            "LLVM IR is not run (it has no entry points or buffers); use tangle ir or validate",
        ));
    }
    let bytes = read_input(path)?;
    Ok(tangle_run::source::load_shader_with_origins(
        shader_kind(kind),
        &bytes,
        &name,
        &opts.target_env,
        &[],
    )?)
}

fn shader_kind(kind: InputKind) -> ShaderKind {
    match kind {
        InputKind::Spv => ShaderKind::SpirvBinary,
        InputKind::Spvasm => ShaderKind::SpirvAsm,
        InputKind::Glsl => ShaderKind::Glsl,
        InputKind::Ir | InputKind::Ll => ShaderKind::Ir,
    }
}

/// Reads the shader at `path` (`-` is stdin) into a module.
pub fn load(path: &Path, opts: &ReadOptions) -> Result<Module, InputError> {
    let name = path.display().to_string();
    let kind = opts
        .kind
        .or_else(|| InputKind::from_path(path))
        .ok_or_else(|| InputError::UnknownKind(name.clone()))?;
    let bytes = read_input(path)?;
    if kind == InputKind::Ll {
        let text = String::from_utf8_lossy(&bytes);
        return tangle_llvm::read(&text).map_err(|e| InputError::Llvm(name, e));
    }
    Ok(tangle_run::load_shader(
        shader_kind(kind),
        &bytes,
        &name,
        &opts.target_env,
    )?)
}

/// Reads LLVM IR text at `path` with its source map, when the input is `.ll` (by name or
/// `--kind ll`); `None` for every other kind.
pub fn load_ll_with_map(
    path: &Path,
    opts: &ReadOptions,
) -> Option<Result<(Module, tangle_llvm::SourceMap), InputError>> {
    let kind = opts.kind.or_else(|| InputKind::from_path(path))?;
    if kind != InputKind::Ll {
        return None;
    }
    let name = path.display().to_string();
    Some(read_input(path).and_then(|bytes| {
        tangle_llvm::read_with_map(&String::from_utf8_lossy(&bytes))
            .map_err(|e| InputError::Llvm(name, e))
    }))
}

/// The bytes of the file at `path`, or of stdin for `-`.
pub fn read_input(path: &Path) -> Result<Vec<u8>, InputError> {
    if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| InputError::Io("stdin".into(), e))?;
        Ok(buf)
    } else {
        std::fs::read(path).map_err(|e| InputError::Io(path.display().to_string(), e))
    }
}
