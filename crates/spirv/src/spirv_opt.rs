//! SPIR-V modules through spirv-opt, for AmberScript's `SHADER_OPTIMIZATION` blocks.
//!
//! amber runs the optimizer on a pipeline's shader with the passes the block lists (flags
//! as spirv-opt's command line spells them, e.g. `--graphics-robust-access`) before it
//! creates the pipeline; tangle does the same with the `spirv-opt` executable. It is an
//! external tool, found like glslang: `$TANGLE_SPIRV_OPT` (a path to the executable), then
//! `PATH`, then `$TANGLE_ORACLES/bin`, then the repository's `.oracles/bin`.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Why a module could not be optimized.
#[derive(Debug, thiserror::Error)]
pub enum OptError {
    /// spirv-opt was not found.
    #[error("spirv-opt not found (searched {searched}); SHADER_OPTIMIZATION needs it: install it or run tools/install-oracles.sh")]
    NotFound {
        /// The places searched, for the message.
        searched: String,
    },
    /// spirv-opt could not be run or its output read.
    #[error("cannot run spirv-opt: {0}")]
    Io(#[from] std::io::Error),
    /// spirv-opt refused the passes or the module.
    #[error("spirv-opt {passes} failed:\n{message}")]
    Failed {
        /// The passes, as given.
        passes: String,
        /// spirv-opt's messages.
        message: String,
    },
}

/// Finds spirv-opt.
pub fn find_spirv_opt() -> Result<PathBuf, OptError> {
    crate::find_tool::find_tool("TANGLE_SPIRV_OPT", "spirv-opt")
        .map_err(|searched| OptError::NotFound { searched })
}

/// Runs spirv-opt with `passes` on `words`, for `target_env` (a name spirv-opt's
/// `--target-env` knows: `vulkan1.1`, `spv1.3`, ...), and returns the optimized words.
pub fn optimize(words: &[u32], passes: &[String], target_env: &str) -> Result<Vec<u32>, OptError> {
    let exe = find_spirv_opt()?;
    let mut child = Command::new(&exe)
        .args(passes)
        .arg(format!("--target-env={target_env}"))
        .args(["-", "-o", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut stdin = child.stdin.take().expect("stdin is piped");
    // Write from a thread so that a large module cannot deadlock against a full stdout.
    let writer = std::thread::spawn(move || stdin.write_all(&bytes));
    let output = child.wait_with_output()?;
    let written = writer.join().expect("the writer thread does not panic");
    let failed = |message: String| OptError::Failed {
        passes: passes.join(" "),
        message,
    };
    if !output.status.success() {
        let mut text = String::from_utf8_lossy(&output.stderr).into_owned();
        text.push_str(&String::from_utf8_lossy(&output.stdout));
        return Err(failed(text.trim_end().to_string()));
    }
    written?;
    if output.stdout.len() % 4 != 0 {
        return Err(failed(format!(
            "wrote {} bytes, not whole words",
            output.stdout.len()
        )));
    }
    Ok(output
        .stdout
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}
