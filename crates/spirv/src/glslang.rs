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
