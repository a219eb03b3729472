//! `tangle fuzz --engines ref,sass,ptxas --cost FILE.tsv`: after the campaigns, each
//! program compiled by tangle's back end and by ptxas (the `ptxas` engine's CUDA, nvcc's
//! PTX) for each SM of `--arch` (default all five), side by side: compile time, registers,
//! instructions and simulated cycles under the first simulator policy of `--policies`
//! (`tangle_fuzz::cost`). One row per program and SM in `FILE.tsv`, written as the run
//! goes; the summary (medians, geometric-mean ratios, worst and best rows) on stdout.

use std::io::Write as _;
use std::path::Path;

use tangle_fuzz::campaign::Campaign;
use tangle_fuzz::cost::{self, CostCheck, TSV_HEADER};
use tangle_fuzz::ptxas::nvcc;
use tangle_fuzz::sass::WARP;

use super::FuzzArgs;

/// The comparison `args` describe, when `--cost` is given.
pub fn check_of(args: &FuzzArgs) -> Result<Option<CostCheck>, String> {
    if args.cost.is_none() {
        return Ok(None);
    }
    for e in ["sass", "ptxas"] {
        if !args.engines.iter().any(|x| x == e) {
            return Err(format!(
                "--cost: compares the `sass` and `ptxas` engines' code; --engines must name \
                 both (it lacks `{e}`)"
            ));
        }
    }
    if !args.subgroup_sizes.contains(&WARP) {
        return Err("--cost: runs at subgroup size 32; --subgroup-sizes must include it".into());
    }
    let policy = tangle_sched::expand(&args.policies, "SASS simulator", &tangle_sim::SUPPORTED)
        .map_err(|e| format!("--policies: {e}"))?
        .into_iter()
        .find(|p| *p != tangle_sched::Policy::Exhaustive)
        .ok_or("--cost: needs a simulator policy other than exhaustive")?;
    Ok(Some(CostCheck {
        nvcc: nvcc::locate_nvcc()?,
        ptxas: nvcc::locate_ptxas()?,
        archs: super::ptxas::archs_of(args.arch.as_deref().unwrap_or("all"))?,
        policy,
        batch: args.ptxas_batch.max(1),
    }))
}

/// Runs the comparison into `file`; the summary on stdout.
pub fn run(file: &Path, check: &CostCheck, campaign: &Campaign) -> Result<(), String> {
    let err = |e: std::io::Error| format!("{}: {e}", file.display());
    let mut out = std::io::BufWriter::new(std::fs::File::create(file).map_err(err)?);
    writeln!(out, "{TSV_HEADER}").map_err(err)?;
    let dir = tempfile_dir()?;
    let mut write_error = None;
    let report = cost::run_cost(campaign, check, &dir.0, |row| {
        if let Err(e) = writeln!(out, "{}", row.tsv()).and_then(|()| out.flush()) {
            write_error.get_or_insert(e);
        }
    })?;
    if let Some(e) = write_error {
        return Err(err(e));
    }
    for (seed, arch, why) in &report.missing {
        let arch = arch.map_or_else(String::new, |a| format!(" {a}"));
        eprintln!("cost: no row for seed {seed}{arch}: {why}");
    }
    println!("cost: policy {}", check.policy);
    println!("{report}");
    Ok(())
}

/// A scratch directory for the PTX and cubins, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tempfile_dir() -> Result<Scratch, String> {
    let d = std::env::temp_dir().join(format!("tangle-cost-{}", std::process::id()));
    std::fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
    Ok(Scratch(d))
}
