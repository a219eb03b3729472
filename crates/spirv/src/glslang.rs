//! GLSL compute shaders through glslangValidator.
//!
//! glslang is an external tool: tangle looks for `glslangValidator` in `$TANGLE_GLSLANG`
//! (a path to the executable), then on `PATH`, then in the oracle environment that
//! `tools/install-oracles.sh` creates (`$TANGLE_ORACLES/bin`, then the repository's
//! `.oracles/bin`). Sources that ask for maximal reconvergence, which this glslang does not
//! know, are compiled without the request and the module gets it afterwards
//! ([`crate::glsl::prepare_maximal_reconvergence`], [`with_maximal_reconvergence`]).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use tangle_ir::{ExecMode, Module};

/// Target environments glslang is asked to compile for, as tangle and amber's `TARGET_ENV`
/// spell them: Vulkan versions, Vulkan 1.1 with SPIR-V 1.4, and bare SPIR-V versions.
pub const TARGET_ENVS: [&str; 12] = [
    "vulkan1.0",
    "vulkan1.1",
    "vulkan1.1spv1.4",
    "vulkan1.2",
    "vulkan1.3",
    "spv1.0",
    "spv1.1",
    "spv1.2",
    "spv1.3",
    "spv1.4",
    "spv1.5",
    "spv1.6",
];

/// glslangValidator's `--target-env` arguments for one of [`TARGET_ENVS`].
fn glslang_env_args(target_env: &str) -> Vec<String> {
    if target_env == "vulkan1.1spv1.4" {
        return ["--target-env", "vulkan1.1", "--target-env", "spirv1.4"]
            .map(String::from)
            .to_vec();
    }
    let env = match target_env.strip_prefix("spv") {
        Some(version) => format!("spirv{version}"),
        None => target_env.to_string(),
    };
    vec!["--target-env".into(), env]
}

/// Why a GLSL source could not be compiled.
#[derive(Debug, thiserror::Error)]
pub enum GlslError {
    /// glslangValidator was not found.
    #[error("glslangValidator not found (searched {searched}); install it or run tools/install-oracles.sh")]
    NotFound {
        /// The places searched, for the message.
        searched: String,
    },
    /// An unknown target environment.
    #[error("unknown target environment {0:?} (expected one of vulkan1.0, vulkan1.1, vulkan1.1spv1.4, vulkan1.2, vulkan1.3, spv1.0 .. spv1.6)")]
    BadTargetEnv(String),
    /// glslang could not be run or its output read.
    #[error("cannot run glslangValidator: {0}")]
    Io(#[from] std::io::Error),
    /// glslang rejected the source; its messages name lines as `ERROR: 0:<line>: ...`.
    #[error("glslang rejected the shader:\n{0}")]
    Compile(String),
}

/// Finds glslangValidator.
pub fn find_glslang() -> Result<PathBuf, GlslError> {
    crate::find_tool::find_tool("TANGLE_GLSLANG", "glslangValidator")
        .map_err(|searched| GlslError::NotFound { searched })
}

/// A compiled shader: the SPIR-V bytes, and whether the source asked for maximal
/// reconvergence.
pub struct Compiled {
    /// The SPIR-V module glslang wrote.
    pub spirv: Vec<u8>,
    /// Whether the source asked for `GL_EXT_maximal_reconvergence`.
    pub maximal_reconvergence: bool,
}

/// Compiles a GLSL compute shader to SPIR-V for `target_env`; `name` is the file name
/// glslang's messages should show.
pub fn compile(source: &str, name: &str, target_env: &str) -> Result<Compiled, GlslError> {
    compile_with_lines(source, name, target_env, false)
}

/// Like [`compile`]; with `lines`, glslang is asked for debug information (`-g`), so the
/// module carries `OpLine`s naming source lines (the reader drops the rest of it).
pub fn compile_with_lines(
    source: &str,
    name: &str,
    target_env: &str,
    lines: bool,
) -> Result<Compiled, GlslError> {
    if !TARGET_ENVS.contains(&target_env) {
        return Err(GlslError::BadTargetEnv(target_env.to_string()));
    }
    let exe = find_glslang()?;
    let (prepared, maximal) = crate::glsl::prepare_maximal_reconvergence(source);
    let dir = std::env::temp_dir().join(format!(
        "tangle-glslang-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir)?;
    let out = dir.join("shader.spv");
    let result = (|| {
        let mut child = Command::new(&exe)
            .args(["--stdin", "-S", "comp", "-V"])
            .args(lines.then_some("-g"))
            .args(glslang_env_args(target_env))
            .arg("-o")
            .arg(&out)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        child
            .stdin
            .take()
            .expect("stdin is piped")
            .write_all(prepared.as_bytes())?;
        let output = child.wait_with_output()?;
        if !output.status.success() {
            let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&output.stderr));
            let text: String = text
                .lines()
                .filter(|l| !l.trim().is_empty() && *l != "stdin")
                .map(|l| format!("{}\n", l.replacen(" stdin:", &format!(" {name}:"), 1)))
                .collect();
            return Err(GlslError::Compile(text));
        }
        Ok(std::fs::read(&out)?)
    })();
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Compiled {
        spirv: result?,
        maximal_reconvergence: maximal,
    })
}

static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Adds the `SPV_KHR_maximal_reconvergence` extension and the `MaximallyReconvergesKHR`
/// execution mode to every entry point of `module`.
pub fn with_maximal_reconvergence(module: &mut Module) {
    const EXT: &str = "SPV_KHR_maximal_reconvergence";
    if !module.extensions.iter().any(|e| e == EXT) {
        module.extensions.push(EXT.to_string());
    }
    for e in &mut module.entry_points {
        if !e.modes.contains(&ExecMode::MaximallyReconverges) {
            e.modes.push(ExecMode::MaximallyReconverges);
        }
    }
}

/// The same request as [`with_maximal_reconvergence`], made on the SPIR-V words themselves:
/// the `SPV_KHR_maximal_reconvergence` extension after the last `OpCapability` and a
/// `MaximallyReconvergesKHR` execution mode for every entry point after the last
/// `OpEntryPoint`. Tools that read the binary next (spirv-opt for `SHADER_OPTIMIZATION`)
/// must see the request: spirv-opt keeps break blocks out of merge blocks only when the
/// module declares the extension. A module that already has the extension or a mode is
/// left as it is for that part; words too short to be a module are returned unchanged.
pub fn with_maximal_reconvergence_words(words: &[u32]) -> Vec<u32> {
    const HEADER: usize = 5;
    const OP_CAPABILITY: u32 = 17;
    const OP_EXTENSION: u32 = 10;
    const OP_ENTRY_POINT: u32 = 15;
    const OP_EXECUTION_MODE: u32 = 16;
    const MAXIMALLY_RECONVERGES: u32 = 6023;
    const EXT: &str = "SPV_KHR_maximal_reconvergence";
    if words.len() < HEADER {
        return words.to_vec();
    }
    // Walk the instructions of the preamble, noting where each section ends.
    let mut after_capabilities = HEADER;
    let mut after_entry_points = None;
    let mut entry_ids = Vec::new();
    let mut has_extension = false;
    let mut has_mode = Vec::new();
    let mut at = HEADER;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let opcode = words[at] & 0xffff;
        if count == 0 || at + count > words.len() {
            return words.to_vec();
        }
        let operands = &words[at + 1..at + count];
        match opcode {
            OP_CAPABILITY => after_capabilities = at + count,
            OP_EXTENSION => has_extension |= literal_string(operands) == EXT,
            OP_ENTRY_POINT if operands.len() >= 2 => {
                entry_ids.push(operands[1]);
                after_entry_points = Some(at + count);
            }
            OP_EXECUTION_MODE if operands.len() >= 2 && operands[1] == MAXIMALLY_RECONVERGES => {
                has_mode.push(operands[0])
            }
            _ => {}
        }
        at += count;
    }
    let mut modes = Vec::new();
    for id in entry_ids.iter().filter(|id| !has_mode.contains(id)) {
        modes.extend([(3 << 16) | OP_EXECUTION_MODE, *id, MAXIMALLY_RECONVERGES]);
    }
    let mut extension = Vec::new();
    if !has_extension {
        let mut bytes = EXT.as_bytes().to_vec();
        bytes.resize(EXT.len() / 4 * 4 + 4, 0);
        let string: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        extension.push(((1 + string.len() as u32) << 16) | OP_EXTENSION);
        extension.extend(string);
    }
    let entry_end = after_entry_points.unwrap_or(after_capabilities);
    let mut out = Vec::with_capacity(words.len() + extension.len() + modes.len());
    out.extend_from_slice(&words[..after_capabilities]);
    out.extend(extension);
    out.extend_from_slice(&words[after_capabilities..entry_end]);
    out.extend(modes);
    out.extend_from_slice(&words[entry_end..]);
    out
}

/// The literal string at the start of `operands` (nul-terminated, little-endian bytes).
fn literal_string(operands: &[u32]) -> String {
    let bytes: Vec<u8> = operands
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}
