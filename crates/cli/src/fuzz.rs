//! `tangle fuzz`: random structured programs compared on several oracles.
//!
//! Every seed's program runs on each engine at each subgroup size; the reference
//! interpreter (`ref`, optionally under a known-wrong `--semantics`) is compared with the
//! mask-stack simulator (`mask`). One summary line on stdout; each mismatch on stderr;
//! exit 1 when there is one.

use std::process::ExitCode;

use clap::Args;
use tangle_fuzz::campaign::{self, Campaign};
use tangle_fuzz::GenConfig;

use crate::run::Semantics;
use crate::{fail, EXIT_INVALID};

/// The engines `--engines` knows.
const ENGINES: [&str; 2] = ["ref", "mask"];

/// `tangle fuzz` arguments.
#[derive(Args, Debug)]
pub struct FuzzArgs {
    /// The seeds, `A..B` (B excluded).
    #[arg(long, default_value = "0..1000")]
    seeds: String,
    /// Nesting depth, `N` or `A..B` (both included; seeds cycle through them), 1–8.
    #[arg(long, default_value = "4")]
    nesting: String,
    /// The most statements per program.
    #[arg(long, default_value_t = 40)]
    size: u32,
    /// Subgroup sizes, comma-separated powers of two in 1..=128.
    #[arg(long, value_delimiter = ',', default_value = "4,32")]
    subgroup_sizes: Vec<u32>,
    /// The engines to compare, comma-separated (`ref`, `mask`).
    #[arg(long, value_delimiter = ',', default_value = "ref,mask")]
    engines: Vec<String>,
    /// The reference interpreter's semantics (a known-wrong one shows the harness catching it).
    #[arg(long, value_enum, default_value = "maximal")]
    semantics: Semantics,
    /// Worker threads.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
}

fn parse_range(s: &str, what: &str) -> Result<(u64, u64), String> {
    let bad = || format!("{what}: expected `A..B`, got `{s}`");
    let (a, b) = s.split_once("..").ok_or_else(bad)?;
    let a: u64 = a.trim().parse().map_err(|_| bad())?;
    let b: u64 = b.trim().parse().map_err(|_| bad())?;
    Ok((a, b))
}

fn campaign_of(args: &FuzzArgs) -> Result<Campaign, String> {
    let (start, end) = parse_range(&args.seeds, "--seeds")?;
    if start > end {
        return Err(format!("--seeds: {start} is past {end}"));
    }
    let nestings: Vec<u32> =
        if args.nesting.contains("..") {
            let (a, b) = parse_range(&args.nesting, "--nesting")?;
            (a as u32..=b as u32).collect()
        } else {
            vec![args.nesting.trim().parse().map_err(|_| {
                format!("--nesting: expected `N` or `A..B`, got `{}`", args.nesting)
            })?]
        };
    if nestings.is_empty() || nestings.iter().any(|n| !(1..=8).contains(n)) {
        return Err(format!("--nesting: {} is not within 1..8", args.nesting));
    }
    if let Some(s) = args
        .subgroup_sizes
        .iter()
        .find(|s| !s.is_power_of_two() || **s > 128)
    {
        return Err(format!(
            "--subgroup-sizes: {s} is not a power of two in 1..=128"
        ));
    }
    if let Some(e) = args.engines.iter().find(|e| !ENGINES.contains(&e.as_str())) {
        return Err(format!(
            "--engines: unknown engine `{e}` (known: {})",
            ENGINES.join(", ")
        ));
    }
    if ENGINES.iter().any(|e| !args.engines.iter().any(|a| a == e)) {
        return Err("--engines: the comparison needs both `ref` and `mask`".into());
    }
    Ok(Campaign {
        seeds: start..end,
        gen: GenConfig {
            nesting: nestings[0],
            size_budget: args.size.max(1),
        },
        nestings,
        subgroup_sizes: args.subgroup_sizes.clone(),
        variant: args.semantics.variant(),
        jobs: args.jobs.max(1),
    })
}

/// Runs `tangle fuzz`.
pub fn run(args: &FuzzArgs) -> ExitCode {
    let campaign = match campaign_of(args) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let summary = campaign::run(&campaign);
    for (seed, m) in &summary.mismatches {
        eprintln!(
            "mismatch: seed {seed} (nesting {}): {m}",
            campaign.config_of(*seed).nesting
        );
    }
    println!("{summary}");
    if summary.mismatches.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_INVALID)
    }
}
