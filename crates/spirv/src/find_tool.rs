//! Finding the external tools the front end runs (glslangValidator, spirv-opt) at run time,
//! in one order for all of them.

use std::path::{Path, PathBuf};

/// Looks for `exe`: the path in the environment variable `env_var` if it names a file, then
/// each directory of `PATH`, then `$TANGLE_ORACLES/bin`, then the repository's
/// `.oracles/bin`. On failure, returns every path tried, comma-separated, for the message.
pub(crate) fn find_tool(env_var: &str, exe: &str) -> Result<PathBuf, String> {
    let mut searched = Vec::new();
    if let Some(p) = std::env::var_os(env_var) {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Ok(p);
        }
        searched.push(p);
    }
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Some(o) = std::env::var_os("TANGLE_ORACLES") {
        dirs.push(PathBuf::from(o).join("bin"));
    }
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.oracles/bin"));
    for d in dirs {
        let path = d.join(exe);
        if path.is_file() {
            return Ok(path);
        }
        searched.push(path);
    }
    Err(searched
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", "))
}
