//! `tangle fuzz --engines ref,ptxas`: fuzz programs as CUDA through nvcc for each SM of
//! `--arch`, run on the SASS simulator under `--policies`, judged against the reference
//! (`tangle_fuzz::ptxas`). Departures from maximal reconvergence are reported by shape
//! (they are ptxas's behaviour, not failures); a broken run (a simulator or emitter bug)
//! fails the campaign. With `--out DIR`: `DIR/ptxas.json`, and the first program of each of
//! the first `--shrink-shapes` shapes shrunk to a reproducer (`ptxas-seed-S.cu`, `.txt`,
//! and the cubin's SASS as `ptxas-seed-S.sass`).

use std::fmt::Write as _;
use std::path::Path;

use serde_json::json;
use tangle_fuzz::campaign::Campaign;
use tangle_fuzz::cuda::{kernel_name, translation_unit, WARP};
use tangle_fuzz::ptxas::{self, nvcc, Departure, PtxasCheck, PtxasSummary};
use tangle_sass::Arch;

use super::FuzzArgs;

/// The SMs `--arch` names: `all` (the default: every SM the simulator runs), or a
/// comma-separated list of `sm_XX`.
pub fn archs_of(text: &str) -> Result<Vec<Arch>, String> {
    if text == "all" {
        return Ok(Arch::ALL.to_vec());
    }
    text.split(',')
        .map(|a| a.trim().parse::<Arch>().map_err(|e| format!("--arch: {e}")))
        .collect()
}

/// The check `args` describe.
pub fn check_of(args: &FuzzArgs) -> Result<PtxasCheck, String> {
    if !args.subgroup_sizes.contains(&WARP) {
        return Err(format!(
            "--engines ptxas: CUDA has one subgroup size, the warp's 32; --subgroup-sizes {} \
             does not include it",
            args.subgroup_sizes
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(",")
        ));
    }
    let policies = tangle_sched::expand(&args.policies, "SASS simulator", &tangle_sim::SUPPORTED)
        .map_err(|e| format!("--policies: {e}"))?
        .into_iter()
        .filter(|p| *p != tangle_sched::Policy::Exhaustive)
        .collect::<Vec<_>>();
    if policies.is_empty() {
        return Err("--policies: the ptxas engine needs a policy other than exhaustive".into());
    }
    let archs = archs_of(args.arch.as_deref().unwrap_or("all"))?;
    Ok(PtxasCheck {
        nvcc: nvcc::locate_nvcc()?,
        archs,
        policies,
        batch: args.ptxas_batch.max(1),
        hazards: true,
        work_dir: None,
        options: None,
    })
}

/// Runs the `ptxas` engine's campaign: the summary and each shape on stdout, each broken
/// run on stderr; whether nothing broke.
pub fn run(args: &FuzzArgs, campaign: &Campaign) -> Result<bool, String> {
    let check = check_of(args)?;
    if campaign.subgroup_sizes.iter().any(|&s| s != WARP) {
        eprintln!("ptxas: runs at subgroup size 32 only (the warp); the other sizes are for the other engines");
    }
    let summary = ptxas::run_ptxas_campaign(campaign, &check)?;
    for (seed, arch, policy, message) in &summary.broken {
        eprintln!(
            "broken: ptxas: seed {seed} {arch}{}: {message}",
            policy.map_or(String::new(), |p| format!(" {p}"))
        );
    }
    println!("{summary}");
    for (shape, c) in by_count(&summary) {
        println!(
            "  departs: {shape}: {} programs, {} runs, {} (first seed {})",
            c.seeds.len(),
            c.runs,
            c.archs
                .iter()
                .map(Arch::to_string)
                .collect::<Vec<_>>()
                .join(","),
            c.seeds.first().copied().unwrap_or(0)
        );
    }
    if let Some(dir) = &args.out {
        write_report(dir, campaign, &check, &summary, args.shrink_shapes)?;
    }
    Ok(summary.broken.is_empty())
}

/// The shapes, the most common first.
fn by_count(summary: &PtxasSummary) -> Vec<(String, ptxas::ShapeCount)> {
    let mut v: Vec<_> = summary.by_shape().into_iter().collect();
    v.sort_by_key(|(_, c)| std::cmp::Reverse(c.seeds.len()));
    v
}

fn write_report(
    dir: &Path,
    campaign: &Campaign,
    check: &PtxasCheck,
    summary: &PtxasSummary,
    shrink_shapes: usize,
) -> Result<(), String> {
    let io = |e: std::io::Error| format!("{}: {e}", dir.display());
    std::fs::create_dir_all(dir).map_err(io)?;
    let report = json!({
        "engine": "ptxas",
        "archs": check.archs.iter().map(Arch::to_string).collect::<Vec<_>>(),
        "policies": check.policies.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
        "seeds": [campaign.seeds.start, campaign.seeds.end],
        "shard": [campaign.shard.0, campaign.shard.1],
        "programs": summary.programs,
        "runs": summary.runs,
        "agreed": summary.agreed,
        "nvcc_calls": summary.nvcc_calls,
        "seconds": summary.elapsed.as_secs_f64(),
        "broken": summary.broken.iter().map(|(seed, arch, policy, m)| json!({
            "seed": seed, "arch": arch.to_string(),
            "policy": policy.map(|p| p.to_string()), "message": m,
        })).collect::<Vec<_>>(),
        "departures": summary.departures.iter().map(|d| json!({
            "seed": d.seed, "arch": d.arch.to_string(), "policy": d.policy.to_string(),
            "shape": d.shape, "word": d.diff.word, "record": d.diff.record,
            "invocation": d.diff.invocation, "observation": d.diff.id,
            "reference": d.diff.reference, "got": d.diff.got,
        })).collect::<Vec<_>>(),
    });
    std::fs::write(
        dir.join("ptxas.json"),
        serde_json::to_string_pretty(&report).expect("JSON values serialize"),
    )
    .map_err(io)?;
    for (shape, c) in by_count(summary).into_iter().take(shrink_shapes) {
        let seed = *c.seeds.first().expect("a shape has a program");
        let d = summary
            .departures
            .iter()
            .find(|d| d.seed == seed && d.shape == shape)
            .expect("the shape's departure");
        write_reproducer(dir, campaign, check, d).map_err(|e| format!("seed {seed}: {e}"))?;
    }
    Ok(())
}

/// Shrinks a departure's program and writes its CUDA source, what differs, and the SASS.
fn write_reproducer(
    dir: &Path,
    campaign: &Campaign,
    check: &PtxasCheck,
    d: &Departure,
) -> Result<(), String> {
    let program = tangle_fuzz::generate(d.seed, campaign.config_of(d.seed));
    let small = ptxas::shrink_departure(d.seed, &program, d.diff.id, d.arch, d.policy, check, 200)?;
    let stem = dir.join(format!("ptxas-seed-{}", d.seed));
    let source = translation_unit([(d.seed, &small, ptxas::options_of(d.seed))]);
    let io = |e: std::io::Error| format!("{}: {e}", stem.display());
    std::fs::write(stem.with_extension("cu"), &source).map_err(io)?;
    let one = PtxasCheck {
        archs: vec![d.arch],
        policies: vec![d.policy],
        work_dir: Some(dir.join("ptxas-work")),
        ..check.clone()
    };
    let work = dir.join("ptxas-work");
    std::fs::create_dir_all(&work).map_err(io)?;
    let cubin = nvcc::compile(
        &check.nvcc,
        &source,
        d.arch,
        &work,
        &format!("seed{}", d.seed),
    )?;
    let reference = ptxas::reference_words(&small)?;
    let outcome = ptxas::run_cubin(&cubin, d.seed, &small, &reference, &one);
    let mut text = format!(
        "seed {} on {} under {}: {}\nfirst difference: record {} of invocation {} \
         (observation {}): reference {:#x}, ptxas {:#x}\nshrunk: {}\nshrunk outcome: {:?}\n\n{:#?}\n",
        d.seed,
        d.arch,
        d.policy,
        d.shape,
        d.diff.record,
        d.diff.invocation,
        d.diff.id,
        d.diff.reference,
        d.diff.got,
        ptxas::shape(&small, d.diff.id),
        outcome,
        small
    );
    let _ = writeln!(text, "\nreference words: {:x?}", reference);
    std::fs::write(stem.with_extension("txt"), text).map_err(io)?;
    let listing = match tangle_sass::cubin::read(&cubin) {
        Ok(c) => tangle_sass::listing::cubin_listing(&c, d.arch, false)
            .lines
            .join("\n"),
        Err(e) => format!("unreadable cubin: {e}"),
    };
    std::fs::write(
        stem.with_extension("sass"),
        format!("// {} of {}\n{listing}\n", kernel_name(d.seed), d.arch),
    )
    .map_err(io)
}
