//! Locates the oracle tools that tangle is checked against and runs them for tests.
//!
//! The tools are installed by `tools/install-oracles.sh` into `<repo>/.oracles/bin` (or
//! `$TANGLE_ORACLES/bin`). None of tangle's own code depends on them: this crate is used only
//! by tests, benchmarks and developer tooling.
//!
//! Missing tools are handled by [`require`]: under `CI=true` a missing oracle fails the test;
//! elsewhere the test is reported as skipped on the terminal (bypassing the test harness's
//! output capture) so that the skip is never silent.

use std::ffi::OsStr;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// An external tool whose output tangle is compared against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tool {
    /// Khronos SPIR-V assembler.
    SpirvAs,
    /// Khronos SPIR-V disassembler.
    SpirvDis,
    /// Khronos SPIR-V validator.
    SpirvVal,
    /// Khronos SPIR-V optimizer.
    SpirvOpt,
    /// Khronos GLSL reference compiler.
    Glslang,
    /// NVIDIA PTX assembler.
    Ptxas,
    /// NVIDIA CUDA compiler driver.
    Nvcc,
    /// NVIDIA SASS disassembler.
    Nvdisasm,
    /// NVIDIA cubin/fatbin dumper.
    Cuobjdump,
    /// LLVM's optimizer driver from LLVM 19 (`opt -passes=verify` judges the static rules of
    /// convergence-control tokens). The launcher is named `opt-19` so that the search never
    /// falls back on an older `opt` on `PATH`.
    Opt,
}

impl Tool {
    /// Every tool the install script provides.
    pub const ALL: [Tool; 10] = [
        Tool::SpirvAs,
        Tool::SpirvDis,
        Tool::SpirvVal,
        Tool::SpirvOpt,
        Tool::Glslang,
        Tool::Ptxas,
        Tool::Nvcc,
        Tool::Nvdisasm,
        Tool::Cuobjdump,
        Tool::Opt,
    ];

    /// The executable's file name.
    pub fn executable(self) -> &'static str {
        match self {
            Tool::SpirvAs => "spirv-as",
            Tool::SpirvDis => "spirv-dis",
            Tool::SpirvVal => "spirv-val",
            Tool::SpirvOpt => "spirv-opt",
            Tool::Glslang => "glslangValidator",
            Tool::Ptxas => "ptxas",
            Tool::Nvcc => "nvcc",
            Tool::Nvdisasm => "nvdisasm",
            Tool::Cuobjdump => "cuobjdump",
            Tool::Opt => "opt-19",
        }
    }
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.executable())
    }
}

/// A tool that could not be found in any of the searched places.
#[derive(Debug, Clone)]
pub struct NotFound {
    /// The tool that was looked for.
    pub tool: Tool,
    /// Every directory that was searched, in order.
    pub searched: Vec<PathBuf>,
}

impl fmt::Display for NotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "oracle tool `{}` not found (searched", self.tool)?;
        for dir in &self.searched {
            write!(f, " {}", dir.display())?;
        }
        write!(f, "); run tools/install-oracles.sh")
    }
}

impl std::error::Error for NotFound {}

/// The repository root, derived from this crate's location (`<root>/crates/oracle`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crate lives two levels below the repository root")
        .to_path_buf()
}

/// Directories searched for tools, in order: `$TANGLE_ORACLES/bin`, `<repo>/.oracles/bin`,
/// then every entry of `PATH`.
pub fn search_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(dir) = std::env::var_os("TANGLE_ORACLES").filter(|d| !d.is_empty()) {
        dirs.push(PathBuf::from(dir).join("bin"));
    }
    dirs.push(repo_root().join(".oracles").join("bin"));
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    dirs
}

/// Finds the executable of `tool`.
pub fn locate(tool: Tool) -> Result<PathBuf, NotFound> {
    locate_in(tool, search_dirs())
}

/// Finds the executable of `tool` in the first of `searched` that has it.
pub fn locate_in(tool: Tool, searched: Vec<PathBuf>) -> Result<PathBuf, NotFound> {
    for dir in &searched {
        let candidate = dir.join(tool.executable());
        if is_executable(&candidate) {
            return Ok(candidate);
        }
    }
    Err(NotFound { tool, searched })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Whether a missing oracle must fail the run (`CI=true`) rather than skip the test.
pub fn oracles_mandatory() -> bool {
    matches!(std::env::var("CI").as_deref(), Ok("true") | Ok("1"))
}

/// The tool for a test that needs it.
///
/// Returns `None` when the tool is missing outside CI, after writing a `SKIPPED` line
/// straight to the process's stderr (the test harness does not capture it). Panics when the
/// tool is missing under `CI=true`.
pub fn require(tool: Tool, test_name: &str) -> Option<Oracle> {
    match locate(tool) {
        Ok(path) => Some(Oracle { tool, path }),
        Err(err) if oracles_mandatory() => panic!("{test_name}: {err}"),
        Err(err) => {
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(stderr, "SKIPPED {test_name}: {err}");
            None
        }
    }
}

/// A located tool.
#[derive(Debug, Clone)]
pub struct Oracle {
    /// Which tool this is.
    pub tool: Tool,
    /// Its executable.
    pub path: PathBuf,
}

impl Oracle {
    /// A command for the tool with no arguments yet.
    pub fn command(&self) -> Command {
        Command::new(&self.path)
    }

    /// Runs the tool with `args`, returning its output whatever the exit status.
    pub fn run<I, S>(&self, args: I) -> Output
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command()
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.path.display()))
    }

    /// Runs the tool with `args` and panics with its stderr unless it exits successfully;
    /// returns its stdout as text.
    pub fn run_ok<I, S>(&self, args: I) -> String
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args: Vec<S> = args.into_iter().collect();
        let out = self.run(&args);
        if !out.status.success() {
            let shown: Vec<String> = args
                .iter()
                .map(|a| a.as_ref().to_string_lossy().into_owned())
                .collect();
            panic!(
                "{} {} failed with {}:\n{}{}",
                self.tool,
                shown.join(" "),
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

/// A scratch directory for a test's files, removed when dropped.
pub fn scratch_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("tangle-oracle-")
        .tempdir()
        .expect("cannot create a temporary directory")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn locate_takes_the_first_directory_with_an_executable() {
        let a = scratch_dir();
        let b = scratch_dir();
        // A non-executable file in the first directory is passed over.
        std::fs::write(a.path().join("spirv-val"), "").unwrap();
        let exe = b.path().join("spirv-val");
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let dirs = vec![a.path().to_path_buf(), b.path().to_path_buf()];
        assert_eq!(locate_in(Tool::SpirvVal, dirs.clone()).unwrap(), exe);
        let err = locate_in(Tool::Nvdisasm, dirs).unwrap_err();
        assert_eq!(err.tool, Tool::Nvdisasm);
        let text = err.to_string();
        assert!(text.contains("`nvdisasm` not found"), "{text}");
        assert!(text.contains(&a.path().display().to_string()), "{text}");
    }
}
