//! Reading a shader from a file or stdin, whatever its form.

use std::io::Read;
use std::path::Path;

use clap::ValueEnum;
use tangle_ir::Module;

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
}

impl InputKind {
    /// The kind a file name's extension says.
    pub fn from_path(path: &Path) -> Option<Self> {
        match path.extension()?.to_str()? {
            "spv" => Some(InputKind::Spv),
            "spvasm" => Some(InputKind::Spvasm),
            "comp" | "glsl" => Some(InputKind::Glsl),
            "tir" => Some(InputKind::Ir),
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
    #[error("cannot tell the input kind of {0}: use --kind spv|spvasm|glsl|ir")]
    UnknownKind(String),
    /// The binary is malformed or uses something unsupported.
    #[error("{0}: {1}")]
    Spirv(String, tangle_spirv::reader::ReadError),
    /// Text input was not valid UTF-8.
    #[error("{0}: the input is not UTF-8 text")]
    NotText(String),
    /// The IR text does not parse.
    #[error("{0}:{1}")]
    Ir(String, tangle_ir::text::ParseError),
    /// glslang failed or is missing.
    #[error("{0}: {1}")]
    Glsl(String, tangle_spirv::glslang::GlslError),
    /// The SPIR-V assembly does not assemble.
    #[error("{0}:{1}")]
    Asm(String, tangle_spirv::AsmError),
    /// An unknown target environment.
    #[error("unknown target environment {0:?} (expected vulkan1.0, vulkan1.1, vulkan1.1spv1.4, vulkan1.2, vulkan1.3 or spv1.0..spv1.6)")]
    BadTargetEnv(String),
}

/// Options for reading inputs.
pub struct ReadOptions {
    /// Overrides the kind the file name says.
    pub kind: Option<InputKind>,
    /// The Vulkan target environment for GLSL and assembly.
    pub target_env: String,
}

/// Reads the shader at `path` (`-` is stdin) into a module.
pub fn load(path: &Path, opts: &ReadOptions) -> Result<Module, InputError> {
    let name = path.display().to_string();
    let kind = opts
        .kind
        .or_else(|| InputKind::from_path(path))
        .ok_or_else(|| InputError::UnknownKind(name.clone()))?;
    let bytes = if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| InputError::Io("stdin".into(), e))?;
        buf
    } else {
        std::fs::read(path).map_err(|e| InputError::Io(name.clone(), e))?
    };
    let text =
        |bytes: Vec<u8>| String::from_utf8(bytes).map_err(|_| InputError::NotText(name.clone()));
    match kind {
        InputKind::Spv => tangle_spirv::reader::read_binary(&bytes)
            .map_err(|e| InputError::Spirv(name.clone(), e)),
        InputKind::Ir => {
            tangle_ir::text::parse(&text(bytes)?).map_err(|e| InputError::Ir(name.clone(), e))
        }
        InputKind::Glsl => {
            let compiled = tangle_spirv::glslang::compile(&text(bytes)?, &name, &opts.target_env)
                .map_err(|e| InputError::Glsl(name.clone(), e))?;
            let mut module = tangle_spirv::reader::read_binary(&compiled.spirv)
                .map_err(|e| InputError::Spirv(name.clone(), e))?;
            if compiled.maximal_reconvergence {
                tangle_spirv::glslang::with_maximal_reconvergence(&mut module);
            }
            Ok(module)
        }
        InputKind::Spvasm => {
            let env = tangle_spirv::TargetEnv::from_name(&opts.target_env)
                .ok_or_else(|| InputError::BadTargetEnv(opts.target_env.clone()))?;
            let words =
                tangle_spirv::assemble(&text(bytes)?, tangle_spirv::AsmOptions::for_env(env))
                    .map_err(|e| InputError::Asm(name.clone(), e))?;
            tangle_spirv::reader::read_words(&words).map_err(|e| InputError::Spirv(name, e))
        }
    }
}
