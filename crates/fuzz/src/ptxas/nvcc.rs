//! Finding nvcc and compiling a translation unit of fuzz kernels to a cubin per SM.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use tangle_sass::Arch;

/// Where nvcc is looked for, in order: `$TANGLE_ORACLES/bin`, the repository's
/// `.oracles/bin` (where `tools/install-oracles.sh` puts it), then `PATH`.
pub fn locate_nvcc() -> Result<PathBuf, String> {
    locate_tool("nvcc")
}

/// Where ptxas is looked for: the same places as nvcc ([`locate_nvcc`]).
pub fn locate_ptxas() -> Result<PathBuf, String> {
    locate_tool("ptxas")
}

/// The first `name` in `$TANGLE_ORACLES/bin`, the repository's `.oracles/bin`, `PATH`.
fn locate_tool(name: &str) -> Result<PathBuf, String> {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os("TANGLE_ORACLES").filter(|d| !d.is_empty()) {
        dirs.push(PathBuf::from(d).join("bin"));
    }
    if let Some(root) = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2) {
        dirs.push(root.join(".oracles").join("bin"));
    }
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    dirs.iter()
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            format!(
                "{name} not found (searched {}); run tools/install-oracles.sh or set TANGLE_ORACLES",
                dirs.iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

/// Writes `source` to `dir` and has nvcc translate it to PTX for `arch` (`nvcc -ptx -O3
/// -arch=sm_XX`: the front end alone, `__CUDA_ARCH__` set for the SM); the PTX file's path.
pub fn ptx(
    nvcc: &Path,
    source: &str,
    arch: Arch,
    dir: &Path,
    stem: &str,
) -> Result<PathBuf, String> {
    let cu = dir.join(format!("{stem}.cu"));
    let ptx = dir.join(format!("{stem}_sm{}.ptx", arch.number()));
    std::fs::write(&cu, source).map_err(|e| format!("{}: {e}", cu.display()))?;
    let out = Command::new(nvcc)
        .arg("-ptx")
        .arg("-O3")
        .arg(format!("-arch=sm_{}", arch.number()))
        .arg("-o")
        .arg(&ptx)
        .arg(&cu)
        .output()
        .map_err(|e| format!("{}: {e}", nvcc.display()))?;
    if !out.status.success() {
        return Err(format!(
            "nvcc -ptx for sm_{} failed: {}",
            arch.number(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(ptx)
}

/// Assembles a PTX file with `ptxas -O3 -arch=sm_XX` (what `nvcc -cubin -O3` runs after its
/// front end); the cubin's bytes and the wall-clock time of the ptxas process alone.
pub fn ptxas(ptxas: &Path, ptx: &Path, arch: Arch) -> Result<(Vec<u8>, Duration), String> {
    let cubin = ptx.with_extension("cubin");
    let start = Instant::now();
    let out = Command::new(ptxas)
        .arg("-O3")
        .arg(format!("-arch=sm_{}", arch.number()))
        .arg("-o")
        .arg(&cubin)
        .arg(ptx)
        .output()
        .map_err(|e| format!("{}: {e}", ptxas.display()))?;
    let took = start.elapsed();
    if !out.status.success() {
        return Err(format!(
            "ptxas for sm_{} failed: {}",
            arch.number(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let bytes = std::fs::read(&cubin).map_err(|e| format!("{}: {e}", cubin.display()))?;
    Ok((bytes, took))
}

/// Compiles `source` with `nvcc -cubin -O3` for `arch` in `dir` (file names made from
/// `stem`); the cubin's bytes, or nvcc's message.
pub fn compile(
    nvcc: &Path,
    source: &str,
    arch: Arch,
    dir: &Path,
    stem: &str,
) -> Result<Vec<u8>, String> {
    let cu = dir.join(format!("{stem}.cu"));
    let cubin = dir.join(format!("{stem}_sm{}.cubin", arch.number()));
    std::fs::write(&cu, source).map_err(|e| format!("{}: {e}", cu.display()))?;
    let out = Command::new(nvcc)
        .arg("-cubin")
        .arg("-O3")
        .arg(format!("-arch=sm_{}", arch.number()))
        .arg("-o")
        .arg(&cubin)
        .arg(&cu)
        .output()
        .map_err(|e| format!("{}: {e}", nvcc.display()))?;
    if !out.status.success() {
        return Err(format!(
            "nvcc for sm_{} failed: {}",
            arch.number(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    std::fs::read(&cubin).map_err(|e| format!("{}: {e}", cubin.display()))
}

/// Compiles `source` for every arch of `archs`, side by side (one nvcc call each).
pub fn compile_all(
    nvcc: &Path,
    source: &str,
    archs: &[Arch],
    dir: &Path,
    stem: &str,
) -> Vec<Result<Vec<u8>, String>> {
    std::thread::scope(|s| {
        let handles: Vec<_> = archs
            .iter()
            .map(|&arch| s.spawn(move || compile(nvcc, source, arch, dir, stem)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("nvcc thread panicked".into()))
            })
            .collect()
    })
}
