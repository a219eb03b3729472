//! `tangle fuzz`: random structured programs compared on several oracles.
//!
//! Every seed's program runs on each engine at each subgroup size; the reference
//! interpreter (`ref`, optionally under a known-wrong `--semantics`) is compared with each
//! other engine named: the mask-stack simulator (`mask`), and the lowered engines
//! (`lowered`: tangle's lowering on the barrier machine; `lowered-baseline`: seed 000's
//! flawed design; `tokens`: the token engine on the program with inferred tokens), the
//! latter under every scheduling policy of `--policies`; `ptxas` (CUDA through nvcc) and
//! `sass`/`sass-baseline` (tangle's back end) run on the SASS simulator. One summary
//! line per comparison on stdout; each mismatch on stderr; exit 1 when there is one. `--shard i/n` runs one of `n` disjoint parts of the seed
//! range; `--out DIR` writes `DIR/report.json`; `tangle fuzz merge` combines such reports.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde_json::{json, Value};
use tangle_fuzz::campaign::{self, Campaign};
use tangle_fuzz::lowered::{self, LoweredCheck, LoweredMismatch, MachineEngine};
use tangle_fuzz::GenConfig;
use tangle_reconverge::Scheme;

use crate::run::Semantics;

mod cost;
mod ptxas;
mod sass;
use crate::{fail, EXIT_INVALID};

/// The engines `--engines` knows.
const ENGINES: [&str; 8] = [
    "ref",
    "mask",
    "lowered",
    "lowered-baseline",
    "ptxas",
    "tokens",
    "sass",
    "sass-baseline",
];

/// The engines that run on the machine, and what they run.
const LOWERED: [(&str, MachineEngine); 3] = [
    ("lowered", MachineEngine::Lowered(Scheme::Scopes)),
    ("lowered-baseline", MachineEngine::Lowered(Scheme::Baseline)),
    ("tokens", MachineEngine::Tokens),
];

/// `tangle fuzz` arguments.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct FuzzArgs {
    /// `merge`, or nothing to run a campaign.
    #[command(subcommand)]
    action: Option<FuzzAction>,
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
    /// The engines to compare with the reference `ref`, comma-separated: `mask`, `lowered`,
    /// `lowered-baseline`, `ptxas`, `tokens`, `sass`, `sass-baseline`.
    #[arg(long, value_delimiter = ',', default_value = "ref,mask")]
    engines: Vec<String>,
    /// The lowered and simulated engines' scheduling policies: a name, several joined by
    /// commas, or `all` (`exhaustive` runs only at subgroup sizes up to 8, and not on the
    /// SASS simulator; the sass engines say which they leave out).
    #[arg(long, default_value = "all")]
    policies: String,
    /// The SMs of the `ptxas` and `sass` engines: `all` (sm_75, sm_80, sm_86, sm_89,
    /// sm_90) or a comma-separated list such as `sm_86` (default: `all` for ptxas, sm_86
    /// for sass).
    #[arg(long)]
    arch: Option<String>,
    /// The sass engines compile seed `s` for the `s mod 5`-th of the five SMs (instead of
    /// `--arch`).
    #[arg(long)]
    arch_per_seed: bool,
    /// The `ptxas` engine's programs per translation unit (one nvcc call per batch and SM).
    #[arg(long, default_value_t = 100)]
    ptxas_batch: usize,
    /// With `--out`, how many of the `ptxas` engine's departure shapes get a shrunk
    /// reproducer (each shrink round is one nvcc call).
    #[arg(long, default_value_t = 3)]
    shrink_shapes: usize,
    /// The reference interpreter's semantics (a known-wrong one shows the harness catching it).
    #[arg(long, value_enum, default_value = "maximal")]
    semantics: Semantics,
    /// Worker threads.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Run shard `i` of `n` (`i/n`, 0 ≤ i < n): the seeds `s` with `s mod n == i`.
    #[arg(long, default_value = "0/1")]
    shard: String,
    /// After the campaigns, compare tangle's code with ptxas's on the same programs (needs
    /// `sass` and `ptxas` in `--engines`; the SMs of `--arch`, default all; the first
    /// simulator policy of `--policies`): one row per program and SM in this TSV file, a
    /// summary on stdout (`docs/backend.md`, "Against ptxas").
    #[arg(long, value_name = "FILE.tsv")]
    cost: Option<PathBuf>,
    /// Write the JSON report to `DIR/report.json`, and each mismatch shrunk to a reproducer
    /// (`DIR/seed-S.tir`, `.spv`, `.comp`, `.amber`, and the program form in `.txt`).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// What `tangle fuzz` does besides running a campaign.
#[derive(Subcommand, Debug)]
enum FuzzAction {
    /// Combine shard reports (`report.json` files or directories holding one): print the
    /// summary of them all, exit 1 on any mismatch.
    Merge {
        /// The reports.
        #[arg(required = true)]
        reports: Vec<PathBuf>,
    },
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
    let shard = args
        .shard
        .split_once('/')
        .and_then(|(i, n)| Some((i.trim().parse::<u64>().ok()?, n.trim().parse::<u64>().ok()?)))
        .filter(|(i, n)| i < n)
        .ok_or_else(|| format!("--shard: expected `i/n` with i < n, got `{}`", args.shard))?;
    if !args.engines.iter().any(|e| e == "ref") || !args.engines.iter().any(|e| e != "ref") {
        return Err("--engines: the comparison needs `ref` and at least one other engine".into());
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
        shard,
    })
}

/// Runs `tangle fuzz`.
pub fn run(args: &FuzzArgs) -> ExitCode {
    if let Some(FuzzAction::Merge { reports }) = &args.action {
        return merge(reports);
    }
    let campaign = match campaign_of(args) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let checks = match lowered_checks(args) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let sass_checks = match sass::checks_of(args) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let cost_check = match cost::check_of(args) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let code = run_campaigns(args, &campaign, &checks, &sass_checks);
    if let (Some(file), Some(check)) = (&args.cost, &cost_check) {
        if let Err(e) = cost::run(file, check, &campaign) {
            return fail(e);
        }
    }
    code
}

/// The campaigns of the engines `args` name.
fn run_campaigns(
    args: &FuzzArgs,
    campaign: &Campaign,
    checks: &[LoweredCheck],
    sass_checks: &[tangle_fuzz::sass::SassCheck],
) -> ExitCode {
    let ptxas_ok = if args.engines.iter().any(|e| e == "ptxas") {
        match ptxas::run(args, campaign) {
            Ok(ok) => ok,
            Err(e) => return fail(e),
        }
    } else {
        true
    };
    if !args.engines.iter().any(|e| e == "mask") {
        let sass_ok = match sass::run(args, campaign, sass_checks) {
            Ok(ok) => ok,
            Err(e) => return fail(e),
        };
        return match (
            run_lowered_only(args, campaign, checks),
            ptxas_ok && sass_ok,
        ) {
            (code, true) => code,
            (_, false) => ExitCode::from(EXIT_INVALID),
        };
    }
    let summary = campaign::run(campaign);
    for (seed, m) in &summary.mismatches {
        eprintln!(
            "mismatch: seed {seed} (nesting {}): {m}",
            campaign.config_of(*seed).nesting
        );
    }
    if let Some(dir) = &args.out {
        let report = json!({
            "seeds": [campaign.seeds.start, campaign.seeds.end],
            "shard": [campaign.shard.0, campaign.shard.1],
            "nesting": args.nesting,
            "size": args.size,
            "subgroup_sizes": campaign.subgroup_sizes,
            "engines": args.engines,
            "semantics": format!("{:?}", campaign.variant),
            "programs": summary.programs,
            "seconds": summary.elapsed.as_secs_f64(),
            "mismatches": summary.mismatches.iter().map(|(seed, m)| json!({
                "seed": seed,
                "nesting": campaign.config_of(*seed).nesting,
                "message": m.to_string(),
            })).collect::<Vec<_>>(),
        });
        let written = std::fs::create_dir_all(dir).and_then(|()| {
            std::fs::write(
                dir.join("report.json"),
                serde_json::to_string_pretty(&report).expect("JSON values serialize"),
            )
        });
        if let Err(e) = written {
            return fail(format!("{}: {e}", dir.display()));
        }
        for (seed, m) in &summary.mismatches {
            if let Err(e) = write_reproducer(dir, *seed, m, campaign) {
                return fail(format!("{}: {e}", dir.display()));
            }
        }
    }
    println!("{summary}");
    let lowered_ok = match run_lowered(args, campaign, checks) {
        Ok(ok) => ok,
        Err(e) => return fail(e),
    };
    let sass_ok = match sass::run(args, campaign, sass_checks) {
        Ok(ok) => ok,
        Err(e) => return fail(e),
    };
    if summary.mismatches.is_empty() && lowered_ok && ptxas_ok && sass_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_INVALID)
    }
}

/// The lowered engines `--engines` names, each with the `--policies` (read as the barrier
/// machine's only when one is named: the simulator's engines take their own).
fn lowered_checks(args: &FuzzArgs) -> Result<Vec<LoweredCheck>, String> {
    if !LOWERED
        .iter()
        .any(|(name, _)| args.engines.iter().any(|e| e == name))
    {
        return Ok(Vec::new());
    }
    let policies = tangle_sched::expand(
        &args.policies,
        "barrier machine",
        &tangle_machine::SUPPORTED_POLICIES,
    )
    .map_err(|e| format!("--policies: {e}"))?;
    Ok(LOWERED
        .iter()
        .filter(|(name, _)| args.engines.iter().any(|e| e == name))
        .map(|&(_, engine)| LoweredCheck {
            engine,
            policies: policies.clone(),
        })
        .collect())
}

/// A campaign of the lowered engines alone (no `mask`).
fn run_lowered_only(args: &FuzzArgs, campaign: &Campaign, checks: &[LoweredCheck]) -> ExitCode {
    match run_lowered(args, campaign, checks) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(EXIT_INVALID),
        Err(e) => fail(e),
    }
}

/// Runs each lowered engine's campaign: its summary line on stdout, each mismatch on
/// stderr, and with `--out` a report (`lowered-<engine>.json`) and each mismatch shrunk.
/// Whether all agreed.
fn run_lowered(
    args: &FuzzArgs,
    campaign: &Campaign,
    checks: &[LoweredCheck],
) -> Result<bool, String> {
    let mut ok = true;
    for check in checks {
        let summary = lowered::run_lowered_campaign(campaign, check);
        for (seed, m) in &summary.mismatches {
            eprintln!(
                "mismatch: {}: seed {seed} (nesting {}): {m}",
                summary.engine,
                campaign.config_of(*seed).nesting
            );
        }
        if let Some(dir) = &args.out {
            let report = json!({
                "engine": summary.engine,
                "policies": check.policies.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
                "seeds": [campaign.seeds.start, campaign.seeds.end],
                "shard": [campaign.shard.0, campaign.shard.1],
                "programs": summary.programs,
                "seconds": summary.elapsed.as_secs_f64(),
                "exhaustive": {
                    "searches": summary.searches.searches,
                    "runs": summary.searches.runs,
                    "pruned": summary.searches.pruned,
                    "restarts": summary.searches.restarts,
                },
                "mismatches": summary.mismatches.iter().map(|(seed, m)| json!({
                    "seed": seed,
                    "nesting": campaign.config_of(*seed).nesting,
                    "message": m.to_string(),
                })).collect::<Vec<_>>(),
            });
            let path = dir.join(format!("{}.json", summary.engine));
            std::fs::create_dir_all(dir)
                .and_then(|()| {
                    std::fs::write(
                        &path,
                        serde_json::to_string_pretty(&report).expect("JSON values serialize"),
                    )
                })
                .map_err(|e| format!("{}: {e}", dir.display()))?;
            for (seed, m) in &summary.mismatches {
                write_lowered_reproducer(dir, *seed, m, campaign, check)
                    .map_err(|e| format!("{}: {e}", dir.display()))?;
            }
        }
        println!("{summary}");
        ok &= summary.mismatches.is_empty();
    }
    Ok(ok)
}

/// Shrinks the program of a lowered mismatch and writes it: the program form and the
/// mismatch (`.txt`), the structured module and its lowered form (`.tir`).
fn write_lowered_reproducer(
    dir: &Path,
    seed: u64,
    m: &LoweredMismatch,
    campaign: &Campaign,
    check: &LoweredCheck,
) -> std::io::Result<()> {
    let program = tangle_fuzz::generate(seed, campaign.config_of(seed));
    let small = lowered::shrink_lowered(&program, m, check, 5_000);
    let sizes = [m.subgroup_size().max(1)];
    let again = lowered::compare_lowered(&small, &sizes, check);
    let module = tangle_fuzz::build::build_module(&small);
    let stem = dir.join(format!("{}-seed-{seed}", check.engine_name()));
    std::fs::write(
        stem.with_extension("txt"),
        format!(
            "seed {seed}: {m}\nshrunk: {}\n{small:#?}\n",
            again.err().map_or("passes".to_string(), |e| e.to_string())
        ),
    )?;
    let mut text = tangle_ir::text::print(&module);
    if let Ok(lowered) = lowered::prepare(&module, check.engine) {
        text.push_str(match check.engine {
            MachineEngine::Tokens => "\n; with tokens, structure dropped:\n",
            MachineEngine::Lowered(_) => "\n; lowered:\n",
        });
        text.push_str(&tangle_ir::text::print(&lowered));
    }
    std::fs::write(stem.with_extension("tir"), text)
}

/// Shrinks the program of `seed` and writes it as IR text, SPIR-V (binary and assembly),
/// GLSL, AmberScript and the program form.
fn write_reproducer(
    dir: &Path,
    seed: u64,
    m: &tangle_fuzz::Mismatch,
    campaign: &Campaign,
) -> std::io::Result<()> {
    let program = tangle_fuzz::generate(seed, campaign.config_of(seed));
    let small = tangle_fuzz::shrink::shrink_mismatch(&program, m, campaign.variant, 20_000);
    let module = tangle_fuzz::build::build_module(&small);
    let again = tangle_fuzz::compare(&small, &[m.subgroup_size()], campaign.variant);
    let stem = dir.join(format!("seed-{seed}"));
    std::fs::write(
        stem.with_extension("txt"),
        format!(
            "seed {seed}: {m}\nshrunk (subgroup size {}): {}\n{small:#?}\n",
            m.subgroup_size(),
            again.err().map_or("passes".to_string(), |e| e.to_string())
        ),
    )?;
    std::fs::write(stem.with_extension("tir"), tangle_ir::text::print(&module))?;
    std::fs::write(
        stem.with_extension("comp"),
        tangle_fuzz::glsl::to_glsl(&small),
    )?;
    // The script expects what the specification gives (the mask oracle's buffer), so it
    // fails on an engine with the bug.
    let expect = tangle_fuzz::mask::simulate(&small, m.subgroup_size()).words;
    std::fs::write(
        stem.with_extension("amber"),
        tangle_fuzz::amber::to_amber(&small, m.subgroup_size(), &expect),
    )?;
    if let Ok(words) = tangle_spirv::writer::write(&module) {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(stem.with_extension("spv"), bytes)?;
        if let Ok(text) =
            tangle_spirv::dis::disassemble(&words, tangle_spirv::dis::DisOptions::default())
        {
            std::fs::write(stem.with_extension("spvasm"), text)?;
        }
    }
    Ok(())
}

/// Reads one shard report.
fn read_report(path: &Path) -> Result<Value, String> {
    let file = if path.is_dir() {
        path.join("report.json")
    } else {
        path.to_path_buf()
    };
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    if v["programs"].as_u64().is_none() || !v["mismatches"].is_array() {
        return Err(format!(
            "{}: not a fuzz report (no `programs` or `mismatches`)",
            file.display()
        ));
    }
    Ok(v)
}

/// `tangle fuzz merge`: the summary of several shard reports. Shards of one campaign run
/// in parallel, so programs/s is the total over the longest shard's time.
fn merge(paths: &[PathBuf]) -> ExitCode {
    let mut programs = 0;
    let mut longest: f64 = 0.0;
    let mut mismatches = Vec::new();
    let mut shards = std::collections::BTreeSet::new();
    for p in paths {
        let report = match read_report(p) {
            Ok(r) => r,
            Err(e) => return fail(e),
        };
        programs += report["programs"].as_u64().unwrap_or(0);
        longest = longest.max(report["seconds"].as_f64().unwrap_or(0.0));
        // A shard is its seed range and its part of it: campaigns over different ranges
        // merge too.
        let shard = (
            report["seeds"][0].as_u64(),
            report["seeds"][1].as_u64(),
            report["shard"][0].as_u64(),
            report["shard"][1].as_u64(),
        );
        if !shards.insert(shard) {
            return fail(format!("{}: the same shard given twice", p.display()));
        }
        for m in report["mismatches"].as_array().into_iter().flatten() {
            eprintln!(
                "mismatch: seed {} (nesting {}): {}",
                m["seed"],
                m["nesting"],
                m["message"].as_str().unwrap_or("")
            );
            mismatches.push(m.clone());
        }
    }
    println!(
        "{programs} programs, {} mismatches, {:.0} programs/s ({} shards)",
        mismatches.len(),
        programs as f64 / longest.max(1e-9),
        paths.len()
    );
    if mismatches.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_INVALID)
    }
}
