//! `tangle fuzz --engines ref,sass[,sass-baseline]`: fuzz programs compiled by tangle's
//! back end (with tangle's lowering, or seed 000's baseline) for the SMs of `--arch`
//! (default sm_86; `all`; or `--arch-per-seed`, the five SMs in rotation by seed), run on
//! the SASS simulator in hazard mode under `--policies`, against the reference at subgroup
//! size 32 (`tangle_fuzz::sass`). One summary line per engine on stdout, each mismatch
//! with its kind on stderr; with `--out DIR`, `DIR/<engine>.json` and the first
//! [`MAX_REPRODUCERS`] mismatches shrunk (`<engine>-seed-S.txt`, `.tir`, `.sass`).

use std::path::Path;

use serde_json::json;
use tangle_fuzz::campaign::Campaign;
use tangle_fuzz::sass::{self, Arches, SassCheck, SassMismatch, WARP};
use tangle_reconverge::Scheme;
use tangle_sass::Arch;
use tangle_sched::{Policy, PolicyKind};

use super::FuzzArgs;

/// The `sass` engines and their lowering.
pub const ENGINES: [(&str, Scheme); 2] = [
    ("sass", Scheme::Scopes),
    ("sass-baseline", Scheme::Baseline),
];

/// How many mismatches per engine are shrunk and written with `--out` (each shrink
/// compiles and simulates up to [`SHRINK_CHECKS`] candidates).
pub const MAX_REPRODUCERS: usize = 20;

/// The most candidates one shrink checks.
const SHRINK_CHECKS: usize = 2_000;

/// The SMs `args` name for the sass engines: `--arch-per-seed`, `--arch all` or a list,
/// by default sm_86.
fn arches_of(args: &FuzzArgs) -> Result<Arches, String> {
    if args.arch_per_seed {
        if args.arch.is_some() {
            return Err("--arch-per-seed: the SMs rotate by seed; give no --arch".into());
        }
        return Ok(Arches::PerSeed);
    }
    Ok(Arches::List(super::ptxas::archs_of(
        args.arch.as_deref().unwrap_or("sm_86"),
    )?))
}

/// The policies of `--policies` the simulator runs, and (as text) those it has not:
/// `strict` and `opportunistic` belong to the barrier machine, `exhaustive` is a search.
fn policies_of(text: &str) -> Result<(Vec<Policy>, Vec<String>), String> {
    let mut run = Vec::new();
    let mut not = Vec::new();
    for part in text.split(',').map(str::trim) {
        let expanded = if part == "all" {
            tangle_sched::expand(part, "SASS simulator", &tangle_sim::SUPPORTED)
                .map_err(|e| format!("--policies: {e}"))?
        } else {
            vec![part
                .parse::<Policy>()
                .map_err(|e| format!("--policies: {e}"))?]
        };
        for p in expanded {
            if p.kind() == PolicyKind::Exhaustive || !tangle_sim::SUPPORTED.contains(&p.kind()) {
                not.push(p.to_string());
            } else if !run.contains(&p) {
                run.push(p);
            }
        }
    }
    if run.is_empty() {
        return Err(format!(
            "--policies: the sass engines run on the SASS simulator, which has none of `{text}` \
             (it runs round-robin, adversarial, random:SEED and realistic)"
        ));
    }
    Ok((run, not))
}

/// The sass checks `args` ask for (empty when no sass engine is named); a bad `--arch` or
/// `--policies`, or a campaign without subgroup size 32, is an error.
pub fn checks_of(args: &FuzzArgs) -> Result<Vec<SassCheck>, String> {
    let named: Vec<Scheme> = ENGINES
        .iter()
        .filter(|(name, _)| args.engines.iter().any(|e| e == name))
        .map(|&(_, scheme)| scheme)
        .collect();
    if named.is_empty() {
        if args.arch_per_seed {
            return Err("--arch-per-seed: only the sass engines rotate SMs by seed".into());
        }
        return Ok(Vec::new());
    }
    if !args.subgroup_sizes.contains(&WARP) {
        return Err(format!(
            "--engines sass: the back end compiles for the warp of 32 only; --subgroup-sizes \
             {} does not include it",
            args.subgroup_sizes
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(",")
        ));
    }
    let arches = arches_of(args)?;
    let (policies, not) = policies_of(&args.policies)?;
    if !not.is_empty() {
        eprintln!(
            "sass: the SASS simulator does not run {} (barrier-machine policies, or the \
             exhaustive search); the sass engines run {}",
            not.join(", "),
            policies
                .iter()
                .map(Policy::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(named
        .into_iter()
        .map(|scheme| SassCheck {
            scheme,
            arches: arches.clone(),
            policies: policies.clone(),
        })
        .collect())
}

/// Runs each sass engine's campaign: its summary on stdout, each mismatch on stderr, and
/// with `--out` its report and reproducers. Whether all agreed.
pub fn run(args: &FuzzArgs, campaign: &Campaign, checks: &[SassCheck]) -> Result<bool, String> {
    let mut ok = true;
    for check in checks {
        let summary = sass::run_sass_campaign(campaign, check);
        for (seed, m) in &summary.mismatches {
            eprintln!(
                "mismatch: {}: seed {seed} (nesting {}): {}: {m}",
                summary.engine,
                campaign.config_of(*seed).nesting,
                m.kind()
            );
        }
        if let Some(dir) = &args.out {
            write_report(dir, campaign, check, &summary)?;
        }
        println!("{summary}");
        ok &= summary.mismatches.is_empty();
    }
    Ok(ok)
}

fn write_report(
    dir: &Path,
    campaign: &Campaign,
    check: &SassCheck,
    summary: &sass::SassSummary,
) -> Result<(), String> {
    let io = |e: std::io::Error| format!("{}: {e}", dir.display());
    std::fs::create_dir_all(dir).map_err(io)?;
    let report = json!({
        "engine": summary.engine,
        "arches": check.arches.to_string(),
        "policies": check.policies.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
        "seeds": [campaign.seeds.start, campaign.seeds.end],
        "shard": [campaign.shard.0, campaign.shard.1],
        "programs": summary.programs,
        "runs": summary.runs,
        "skipped_sizes": summary.skipped_sizes,
        "seconds": summary.elapsed.as_secs_f64(),
        "mismatches": summary.mismatches.iter().map(|(seed, m)| json!({
            "seed": seed,
            "nesting": campaign.config_of(*seed).nesting,
            "kind": m.kind(),
            "arch": m.arch().map(|a| a.to_string()),
            "policy": m.policy(),
            "message": m.to_string(),
        })).collect::<Vec<_>>(),
    });
    std::fs::write(
        dir.join(format!("{}.json", summary.engine)),
        serde_json::to_string_pretty(&report).expect("JSON values serialize"),
    )
    .map_err(io)?;
    for (seed, m) in summary.mismatches.iter().take(MAX_REPRODUCERS) {
        write_reproducer(dir, *seed, m, campaign, check).map_err(io)?;
    }
    if summary.mismatches.len() > MAX_REPRODUCERS {
        eprintln!(
            "{}: reproducers written for the first {MAX_REPRODUCERS} of {} mismatches",
            summary.engine,
            summary.mismatches.len()
        );
    }
    Ok(())
}

/// Shrinks a mismatch's program on its SM and writes the mismatch and program form
/// (`.txt`), the structured and lowered IR (`.tir`) and the compiled SASS (`.sass`).
fn write_reproducer(
    dir: &Path,
    seed: u64,
    m: &SassMismatch,
    campaign: &Campaign,
    check: &SassCheck,
) -> std::io::Result<()> {
    let program = tangle_fuzz::generate(seed, campaign.config_of(seed));
    let small = sass::shrink_sass(&program, m, check, SHRINK_CHECKS);
    let arch = m.arch().unwrap_or(Arch::Sm86);
    let again = sass::compare_sass(&small, &[arch], check);
    let module = tangle_fuzz::build::build_module(&small);
    let stem = dir.join(format!("{}-seed-{seed}", check.engine_name()));
    std::fs::write(
        stem.with_extension("txt"),
        format!(
            "seed {seed}: {}: {m}\nshrunk: {}\n{small:#?}\n",
            m.kind(),
            again.err().map_or("passes".to_string(), |e| e.to_string())
        ),
    )?;
    let mut text = tangle_ir::text::print(&module);
    if let Ok(lowered) = tangle_fuzz::lowered::lower(&module, check.scheme) {
        text.push_str("\n; lowered:\n");
        text.push_str(&tangle_ir::text::print(&lowered));
    }
    std::fs::write(stem.with_extension("tir"), text)?;
    let listing = match sass::compile_for(&module, arch, check.scheme)
        .map_err(|e| e.to_string())
        .and_then(|c| c.cubin().map_err(|e| e.to_string()))
        .and_then(|bytes| tangle_sass::cubin::read(&bytes).map_err(|e| e.to_string()))
    {
        Ok(c) => tangle_sass::listing::cubin_listing(&c, arch, false)
            .lines
            .join("\n"),
        Err(e) => format!("not compiled: {e}"),
    };
    std::fs::write(
        stem.with_extension("sass"),
        format!("// seed {seed}, shrunk, on {arch}\n{listing}\n"),
    )
}
