//! Turning shader text or bytes of any supported form into a verified-ready IR module.
//!
//! One place for what the CLI's inputs and AmberScript's `SHADER` blocks both need: SPIR-V
//! binaries, SPIR-V assembly (tangle's own assembler, which matches spirv-as), amber's
//! `SPIRV-HEX`, GLSL through glslangValidator (with the maximal-reconvergence request
//! handled as `docs/spirv-frontend.md` says), and tangle's IR text.

use tangle_ir::Module;
use tangle_spirv::reader::Origins;
use tangle_spirv::{AsmOptions, TargetEnv};

/// The form of a shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShaderKind {
    /// A SPIR-V binary module.
    SpirvBinary,
    /// SPIR-V assembly as spirv-dis prints it.
    SpirvAsm,
    /// amber's `SPIRV-HEX`: whitespace-separated bytes in hex, little-endian words.
    SpirvHex,
    /// A GLSL compute shader.
    Glsl,
    /// tangle's IR text.
    Ir,
}

/// Why a shader could not be loaded. The name is the file or script shader it came from.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
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
    /// A `SPIRV-HEX` token that is not a byte, or a byte count that is not whole words.
    #[error("{name}: SPIRV-HEX {what}")]
    Hex {
        /// The shader.
        name: String,
        /// What is wrong, with the token's index.
        what: String,
    },
    /// spirv-opt is missing or failed (`SHADER_OPTIMIZATION`).
    #[error("{0}: {1}")]
    Optimize(String, tangle_spirv::spirv_opt::OptError),
    /// tangle IR text has no SPIR-V form for spirv-opt to work on.
    #[error("{0}: SHADER_OPTIMIZATION needs a SPIR-V or GLSL shader, not tangle IR")]
    OptimizeIr(String),
    /// An unknown target environment.
    #[error("{0}: unknown target environment {1:?} (expected vulkan1.0, vulkan1.1, vulkan1.1spv1.4, vulkan1.2, vulkan1.3 or spv1.0..spv1.6)")]
    BadTargetEnv(String, String),
}

/// Loads a shader of form `kind` from `bytes`. `name` names it in errors; `target_env`
/// (`vulkan1.1`, `spv1.3`, ...) is what GLSL is compiled for and what the assembler writes
/// in the header.
pub fn load_shader(
    kind: ShaderKind,
    bytes: &[u8],
    name: &str,
    target_env: &str,
) -> Result<Module, SourceError> {
    let text = || std::str::from_utf8(bytes).map_err(|_| SourceError::NotText(name.into()));
    let read_words =
        |words: &[u32]| tangle_spirv::reader::read_words(words).map_err(|e| spirv(name, e));
    match kind {
        ShaderKind::SpirvBinary => {
            tangle_spirv::reader::read_binary(bytes).map_err(|e| spirv(name, e))
        }
        ShaderKind::Ir => {
            tangle_ir::text::parse(text()?).map_err(|e| SourceError::Ir(name.into(), e))
        }
        ShaderKind::SpirvHex => read_words(&parse_hex(text()?, name)?),
        ShaderKind::Glsl => {
            let compiled = tangle_spirv::glslang::compile(text()?, name, target_env)
                .map_err(|e| SourceError::Glsl(name.into(), e))?;
            let mut module =
                tangle_spirv::reader::read_binary(&compiled.spirv).map_err(|e| spirv(name, e))?;
            if compiled.maximal_reconvergence {
                tangle_spirv::glslang::with_maximal_reconvergence(&mut module);
            }
            Ok(module)
        }
        ShaderKind::SpirvAsm => {
            let env = TargetEnv::from_name(target_env)
                .ok_or_else(|| SourceError::BadTargetEnv(name.into(), target_env.into()))?;
            let words = tangle_spirv::assemble(text()?, AsmOptions::for_env(env))
                .map_err(|e| SourceError::Asm(name.into(), e))?;
            read_words(&words)
        }
    }
}

/// Like [`load_shader`], after running spirv-opt with `passes` on the SPIR-V form (what
/// AmberScript's `SHADER_OPTIMIZATION` asks for, as amber does); no passes is
/// [`load_shader`] itself.
pub fn load_shader_optimized(
    kind: ShaderKind,
    bytes: &[u8],
    name: &str,
    target_env: &str,
    passes: &[String],
) -> Result<Module, SourceError> {
    load_shader_with_origins(kind, bytes, name, target_env, passes).map(|(m, _)| m)
}

/// Like [`load_shader_optimized`], with where each instruction came from in the SPIR-V form
/// (empty for tangle IR), so that run-time errors can name SPIR-V ids and source lines
/// (GLSL is compiled with glslang's `-g` for its `OpLine`s; lines count from the source's
/// first line).
pub fn load_shader_with_origins(
    kind: ShaderKind,
    bytes: &[u8],
    name: &str,
    target_env: &str,
    passes: &[String],
) -> Result<(Module, Origins), SourceError> {
    let text = || std::str::from_utf8(bytes).map_err(|_| SourceError::NotText(name.into()));
    let (words, maximal) = match kind {
        ShaderKind::Ir if passes.is_empty() => {
            return load_shader(kind, bytes, name, target_env).map(|m| (m, Origins::default()))
        }
        ShaderKind::Ir => return Err(SourceError::OptimizeIr(name.into())),
        ShaderKind::SpirvBinary if passes.is_empty() => {
            return tangle_spirv::reader::read_binary_with_origins(bytes)
                .map_err(|e| spirv(name, e));
        }
        ShaderKind::SpirvBinary => {
            // Read once for the reader's errors on malformed input, then take the words.
            tangle_spirv::reader::read_binary(bytes).map_err(|e| spirv(name, e))?;
            (le_words(bytes), false)
        }
        ShaderKind::SpirvHex => (parse_hex(text()?, name)?, false),
        ShaderKind::SpirvAsm => {
            let env = TargetEnv::from_name(target_env)
                .ok_or_else(|| SourceError::BadTargetEnv(name.into(), target_env.into()))?;
            let words = tangle_spirv::assemble(text()?, AsmOptions::for_env(env))
                .map_err(|e| SourceError::Asm(name.into(), e))?;
            (words, false)
        }
        ShaderKind::Glsl => {
            let compiled =
                tangle_spirv::glslang::compile_with_lines(text()?, name, target_env, true)
                    .map_err(|e| SourceError::Glsl(name.into(), e))?;
            (le_words(&compiled.spirv), compiled.maximal_reconvergence)
        }
    };
    let words = if passes.is_empty() {
        words
    } else {
        // spirv-opt must see the maximal-reconvergence request glslang could not write:
        // some of its passes (block merging) are restricted only when it is declared.
        let words = if maximal {
            tangle_spirv::glslang::with_maximal_reconvergence_words(&words)
        } else {
            words
        };
        tangle_spirv::spirv_opt::optimize(&words, passes, target_env)
            .map_err(|e| SourceError::Optimize(name.into(), e))?
    };
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let (mut module, origins) =
        tangle_spirv::reader::read_binary_with_origins(&bytes).map_err(|e| spirv(name, e))?;
    if maximal {
        tangle_spirv::glslang::with_maximal_reconvergence(&mut module);
    }
    Ok((module, origins))
}

/// Little-endian words of a byte string whose length the reader has checked.
fn le_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

fn spirv(name: &str, e: tangle_spirv::reader::ReadError) -> SourceError {
    SourceError::Spirv(name.into(), e)
}

/// Reads amber's `SPIRV-HEX` text: each whitespace-separated token is one byte in hex
/// (`03`, `0x03`), four bytes make a little-endian word. amber ORs each token into the word
/// unchecked; a token above `ff` is refused here instead of corrupting the next byte.
pub fn parse_hex(text: &str, name: &str) -> Result<Vec<u32>, SourceError> {
    let bad = |what: String| SourceError::Hex {
        name: name.into(),
        what,
    };
    let mut bytes = Vec::new();
    for (i, token) in text.split_whitespace().enumerate() {
        let digits = token
            .strip_prefix("0x")
            .or_else(|| token.strip_prefix("0X"))
            .unwrap_or(token);
        let byte = u8::from_str_radix(digits, 16)
            .map_err(|_| bad(format!("token {i} `{token}` is not a byte in hex")))?;
        bytes.push(byte);
    }
    if bytes.len() % 4 != 0 {
        return Err(bad(format!(
            "has {} bytes, not a whole number of 4-byte words",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect())
}
