//! Running the probes: compile them with a given ptxas for one SM and derive its table.
//! Used by `examples/latency.rs` (which writes the checked-in tables) and by the test that
//! re-derives them.

use std::path::Path;
use std::process::Command;

use crate::{Arch, SassError};

use super::{derive, probe, Table};

/// The version line of `ptxas --version` (`Cuda compilation tools, release 13.5, V13.5.37`).
pub fn ptxas_version(ptxas: &Path) -> Result<String, SassError> {
    let out = Command::new(ptxas)
        .arg("--version")
        .output()
        .map_err(|e| SassError::Cubin(format!("cannot run {}: {e}", ptxas.display())))?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .find(|l| l.contains("release"))
        .unwrap_or("unknown")
        .trim()
        .to_string())
}

/// Writes the probe module for `arch` into `dir`, compiles it with `ptxas -O3` and derives
/// the latency table from the cubin.
pub fn measure(ptxas: &Path, arch: Arch, dir: &Path) -> Result<Table, SassError> {
    let sm = arch.to_string();
    let ptx = dir.join(format!("latency_{sm}.ptx"));
    let cubin = dir.join(format!("latency_{sm}.cubin"));
    let io = |e: std::io::Error| SassError::Cubin(format!("latency probes for {sm}: {e}"));
    std::fs::write(&ptx, probe::module(&sm)).map_err(io)?;
    let out = Command::new(ptxas)
        .arg(format!("-arch={sm}"))
        .arg("-O3")
        .arg("-o")
        .arg(&cubin)
        .arg(&ptx)
        .output()
        .map_err(io)?;
    if !out.status.success() {
        return Err(SassError::Cubin(format!(
            "ptxas rejects the latency probes for {sm}: {}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    let bytes = std::fs::read(&cubin).map_err(io)?;
    let (obs, _refused) = derive::observe_cubin(arch, &bytes)?;
    Ok(Table {
        arch,
        ptxas: ptxas_version(ptxas)?,
        rows: obs.measures(),
    })
}
