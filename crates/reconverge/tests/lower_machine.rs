//! The lowering proven by running it: programs lowered under each scheme run on the barrier
//! machine (`crates/machine`) under every scheduling policy of `all` (and `exhaustive` at
//! small subgroups), and must leave the buffers the reference interpreter leaves on the
//! structured program. The fuzz generator's random programs (nesting up to 6) at subgroup
//! sizes 1–128 and the bundled AmberScript shaders are checked; seed 000's baseline must be
//! caught, with a wrong ballot rather than a deadlock.
//!
//! `TANGLE_LOWER_MACHINE_CASES=N` runs N fuzz programs instead of the smoke count.

mod common;

use tangle_fuzz::ast::INPUT;
use tangle_ir::Module;
use tangle_machine::{Machine, MachineConfig, MachineError, Policy, SUPPORTED_POLICIES};
use tangle_reconverge::lower::fallthrough::divergent_fallthroughs;
use tangle_reconverge::{lower_module, LowerOptions, Scheme};

/// Buffers as (set, binding) → bytes.
type Buffers = Vec<((u32, u32), Vec<u8>)>;

fn all_policies() -> Vec<Policy> {
    tangle_sched::expand("all", "lowered", &SUPPORTED_POLICIES).expect("`all` expands")
}

fn reference(module: &Module, entry: &str, sg: u32, buffers: &Buffers) -> Result<Buffers, String> {
    let config = tangle_interp::Config {
        subgroup_size: sg,
        record_trace: false,
        ..Default::default()
    };
    let mut it =
        tangle_interp::Interpreter::new(module, entry, config).map_err(|e| e.to_string())?;
    for ((s, b), bytes) in buffers {
        it.bind_buffer(*s, *b, bytes.clone());
    }
    let out = it.run().map_err(|e| e.to_string())?;
    Ok(buffers
        .iter()
        .map(|(k, _)| (*k, out.buffers[k].clone()))
        .collect())
}

fn lowered_run(
    lowered: &Module,
    entry: &str,
    sg: u32,
    policy: Policy,
    buffers: &Buffers,
) -> Result<Buffers, MachineError> {
    let config = MachineConfig {
        subgroup_size: sg,
        policy,
        record_trace: false,
        ..Default::default()
    };
    let mut m = Machine::new(lowered, entry, config)?;
    for ((s, b), bytes) in buffers {
        m.bind_buffer(*s, *b, bytes.clone());
    }
    let out = m.run()?;
    Ok(buffers
        .iter()
        .map(|(k, _)| (*k, out.buffers[k].clone()))
        .collect())
}

/// How a lowered program fared against the reference.
#[derive(Debug)]
enum Verdict {
    Same,
    /// Different buffers (a wrong tangle), with where.
    Wrong(String),
    /// The machine failed (deadlock, livelock, ...).
    Failed(String),
}

fn judge(
    lowered: &Module,
    entry: &str,
    sg: u32,
    policies: &[Policy],
    buffers: &Buffers,
    expected: &Buffers,
) -> Verdict {
    for &p in policies {
        match lowered_run(lowered, entry, sg, p, buffers) {
            Ok(got) if got == *expected => {}
            Ok(got) => {
                let (k, a) = got
                    .iter()
                    .zip(expected)
                    .find(|(g, e)| g != e)
                    .map(|(g, _)| (g.0, g.1.clone()))
                    .unwrap_or(((0, 0), Vec::new()));
                let e = &expected
                    .iter()
                    .find(|x| x.0 == k)
                    .map(|x| x.1.clone())
                    .unwrap_or_default();
                let word = a
                    .chunks(4)
                    .zip(e.chunks(4))
                    .position(|(x, y)| x != y)
                    .unwrap_or(0);
                return Verdict::Wrong(format!(
                    "subgroup {sg}, policy {p}: buffer {k:?} word {word} differs"
                ));
            }
            Err(e) => return Verdict::Failed(format!("subgroup {sg}, policy {p}: {e}")),
        }
    }
    Verdict::Same
}

fn fuzz_buffers(words: usize) -> Buffers {
    vec![
        ((0, 0), vec![0; words.max(1) * 4]),
        ((0, 1), INPUT.iter().flat_map(|w| w.to_le_bytes()).collect()),
    ]
}

#[test]
fn fuzz_programs_give_the_reference_results_lowered_under_every_policy() {
    let cases: u64 = std::env::var("TANGLE_LOWER_MACHINE_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let policies = all_policies();
    let sizes = [1, 4, 8, 32, 64, 128];
    let mut runs = 0;
    let mut baseline_wrong = 0;
    let mut baseline_failed = 0;
    let (mut first_wrong, mut first_failed) = (None, None);
    let mut fallthrough_programs = 0;
    let only: Option<u64> = std::env::var("TANGLE_LOWER_MACHINE_SEED")
        .ok()
        .and_then(|s| s.parse().ok());
    for seed in only.map_or(0..cases, |s| s..s + 1) {
        let config = tangle_fuzz::GenConfig {
            nesting: 1 + (seed % 6) as u32,
            size_budget: 40,
        };
        let program = tangle_fuzz::generate(seed, config);
        let module = tangle_fuzz::build::build_module(&program);
        let sg = sizes[(seed % sizes.len() as u64) as usize];
        let words = tangle_fuzz::mask::simulate(&program, sg).words.len();
        let buffers = fuzz_buffers(words);
        let Ok(expected) = reference(&module, "main", sg, &buffers) else {
            continue;
        };
        for scheme in Scheme::ALL {
            let opts = LowerOptions {
                scheme,
                ..Default::default()
            };
            let lowered = lower_module(&module, &opts).expect("lowers");
            if let Some(dir) = std::env::var_os("TANGLE_LOWER_DUMP") {
                let dir = std::path::PathBuf::from(dir);
                std::fs::write(dir.join("input.tir"), tangle_ir::text::print(&module)).unwrap();
                std::fs::write(
                    dir.join(format!("{scheme}.tir")),
                    tangle_ir::text::print(&lowered),
                )
                .unwrap();
            }
            // Divergent switches with fallthrough run under `opportunistic` too: their
            // fallthrough lanes run copies of the cases (lower::fallthrough).
            if scheme == Scheme::Scopes && !divergent_fallthroughs(&module).is_empty() {
                fallthrough_programs += 1;
            }
            let v = judge(&lowered, "main", sg, &policies, &buffers, &expected);
            runs += policies.len();
            match (scheme, v) {
                (Scheme::Baseline, Verdict::Wrong(why)) => {
                    baseline_wrong += 1;
                    first_wrong.get_or_insert(format!("seed {seed}: {why}"));
                }
                (Scheme::Baseline, Verdict::Failed(why)) => {
                    baseline_failed += 1;
                    first_failed.get_or_insert(format!("seed {seed}: {why}"));
                }
                (_, Verdict::Same) => {}
                (s, v) => panic!(
                    "fuzz seed {seed} ({s}): {v:?}\n{}",
                    tangle_fuzz::glsl::to_glsl(&program)
                ),
            }
        }
    }
    eprintln!(
        "{cases} programs ({fallthrough_programs} with a divergent fallthrough), {runs} lowered runs; baseline wrong on {baseline_wrong} (first: {first_wrong:?}), stuck on {baseline_failed} (first: {first_failed:?})"
    );
    assert!(
        baseline_wrong > 0,
        "no program caught the baseline on a wrong result"
    );
}

/// The compute pipelines of the AmberScript scripts under `dir`: name, module, entry point
/// and buffers (initial contents) by (set, binding).
fn amber_pipelines(dir: &std::path::Path) -> Vec<(String, Module, String, Buffers)> {
    common::bundled::amber_pipelines(dir)
        .into_iter()
        .map(|p| (p.name, p.module, p.entry, p.buffers))
        .collect()
}

#[test]
fn bundled_scripts_give_the_reference_results_lowered_under_every_policy() {
    if tangle_oracle::require(tangle_oracle::Tool::Glslang, "bundled_scripts_lowered").is_none() {
        return;
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let policies = all_policies();
    let mut checked = 0;
    let mut baseline_caught = Vec::new();
    for dir in ["tests/amber", "tests/known-bugs", "examples"] {
        for (name, module, entry, buffers) in amber_pipelines(&root.join(dir)) {
            for sg in [4, 8, 32] {
                let Ok(expected) = reference(&module, &entry, sg, &buffers) else {
                    continue;
                };
                for scheme in Scheme::ALL {
                    let opts = LowerOptions {
                        scheme,
                        ..Default::default()
                    };
                    let lowered = lower_module(&module, &opts)
                        .unwrap_or_else(|e| panic!("{name}: {scheme}: {e}"));
                    match (
                        scheme,
                        judge(&lowered, &entry, sg, &policies, &buffers, &expected),
                    ) {
                        (_, Verdict::Same) => checked += 1,
                        (Scheme::Baseline, v) => baseline_caught.push(format!("{name} {v:?}")),
                        (s, v) => panic!("{name} ({s}): {v:?}"),
                    }
                }
            }
        }
    }
    eprintln!(
        "{checked} lowered pipelines agree with the reference under all policies; the baseline is caught on {}: {baseline_caught:#?}",
        baseline_caught.len()
    );
    assert!(checked >= 30, "only {checked} lowered runs checked");
    assert!(
        baseline_caught
            .iter()
            .any(|c| c.contains("rule_continue_target") && c.contains("Wrong")),
        "the continue-target rule does not catch the baseline on a wrong result"
    );
}

/// Seed 000's baseline is caught on a wrong ballot, not a deadlock, on the smallest program
/// that shows its flaw (`tests/lower/baseline_continue.tir`), under every policy; tangle's
/// lowering of the same program gives the reference's buffer.
#[test]
fn the_baseline_is_caught_on_a_wrong_ballot_at_the_continue_target() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lower/baseline_continue.tir");
    let module = tangle_ir::text::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    let buffers: Buffers = vec![((0, 0), vec![0; 32 * 4])];
    let expected = reference(&module, "main", 32, &buffers).unwrap();
    // Worked out by hand: every lane stores the ballot of all 32 lanes.
    assert!(expected[0].1.chunks(4).all(|w| w == [0xff; 4]));
    let policies = all_policies();
    let lower = |scheme| {
        let opts = LowerOptions {
            scheme,
            ..Default::default()
        };
        lower_module(&module, &opts).unwrap()
    };
    let scopes = lower(Scheme::Scopes);
    assert!(matches!(
        judge(&scopes, "main", 32, &policies, &buffers, &expected),
        Verdict::Same
    ));
    let baseline = lower(Scheme::Baseline);
    for &p in &policies {
        let got = lowered_run(&baseline, "main", 32, p, &buffers)
            .unwrap_or_else(|e| panic!("policy {p}: the baseline must finish, not fail: {e}"));
        let words: Vec<u32> = got[0]
            .1
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        // The odd lanes ballot alone at the continue target.
        for (lane, w) in words.iter().enumerate() {
            if lane % 2 == 1 {
                assert_eq!(*w, 0xaaaa_aaaa, "policy {p}: lane {lane}");
            }
        }
    }
}

/// Fuzz seed 79's shape (`tests/lower/private_counter.tir`): a uniform loop counted in a
/// `Private` global around a loop that lanes leave one per iteration. Once the global is
/// made local and promoted, the outer loop is uniform and tangle's scheme gives it no
/// barrier (one `bar_set`, the inner loop's); every scheme's lowering gives the reference's
/// buffers under every policy of `all` at subgroup sizes 1, 8 and 32.
#[test]
fn a_uniform_loop_counted_in_a_private_global_needs_no_barrier() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lower/private_counter.tir");
    let module = tangle_ir::text::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    let buffers: Buffers = vec![((0, 0), vec![0; 32 * 4])];
    let policies = all_policies();
    for scheme in [Scheme::Scopes, Scheme::EveryDivergent, Scheme::NakStyle] {
        let opts = LowerOptions {
            scheme,
            ..Default::default()
        };
        let lowered = lower_module(&module, &opts).unwrap();
        if scheme == Scheme::Scopes {
            let sets: usize = tangle_reconverge::lower::stats::static_counts(&lowered)
                .iter()
                .map(|(_, c)| c.set)
                .sum();
            assert_eq!(sets, 1, "only the inner loop keeps a barrier");
        }
        for sg in [1, 8, 32] {
            let expected = reference(&module, "main", sg, &buffers).unwrap();
            let v = judge(&lowered, "main", sg, &policies, &buffers, &expected);
            assert!(matches!(v, Verdict::Same), "{scheme}, subgroup {sg}: {v:?}");
        }
    }
}

/// Show's barrier-cost table, by hand: `TANGLE_LOWER_COST=N` lowers N fuzz programs under
/// tangle's scheme, every-divergent and NAK-style, runs each on the machine (`strict`,
/// subgroup 32) and the reference, and prints static and dynamic (per warp) barrier
/// operations per scheme with the mismatches; it fails if tangle's scheme ever issues more
/// dynamic barrier operations than the NAK-style one on a program.
#[test]
fn barrier_cost_table() {
    let Some(cases) = std::env::var("TANGLE_LOWER_COST")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
    else {
        return;
    };
    let schemes = [Scheme::Scopes, Scheme::EveryDivergent, Scheme::NakStyle];
    let mut stat = [0usize; 3];
    let mut dyn_ops = [0u64; 3];
    let mut mismatches = [0usize; 3];
    let mut worse_than_nak = Vec::new();
    let mut programs = 0;
    for seed in 0..cases {
        let config = tangle_fuzz::GenConfig {
            nesting: 1 + (seed % 6) as u32,
            size_budget: 40,
        };
        let program = tangle_fuzz::generate(seed, config);
        let module = tangle_fuzz::build::build_module(&program);
        let words = tangle_fuzz::mask::simulate(&program, 32).words.len();
        let buffers = fuzz_buffers(words);
        let Ok(expected) = reference(&module, "main", 32, &buffers) else {
            continue;
        };
        programs += 1;
        let mut dynamic = [0u64; 3];
        for (k, scheme) in schemes.into_iter().enumerate() {
            let opts = LowerOptions {
                scheme,
                ..Default::default()
            };
            let lowered = lower_module(&module, &opts).expect("lowers");
            stat[k] += tangle_reconverge::lower::stats::static_counts(&lowered)
                .iter()
                .map(|(_, c)| c.barrier_ops())
                .sum::<usize>();
            let config = MachineConfig {
                subgroup_size: 32,
                policy: Policy::Strict,
                record_trace: false,
                ..Default::default()
            };
            let mut m = Machine::new(&lowered, "main", config).expect("machine");
            for ((s, b), bytes) in &buffers {
                m.bind_buffer(*s, *b, bytes.clone());
            }
            match m.run() {
                Ok(out) => {
                    let got: Buffers = buffers
                        .iter()
                        .map(|(key, _)| (*key, out.buffers[key].clone()))
                        .collect();
                    if got != expected {
                        mismatches[k] += 1;
                        eprintln!("mismatch: seed {seed} {scheme}");
                    }
                    dynamic[k] = out.stats.set + out.stats.sync + out.stats.brk;
                }
                Err(e) => {
                    mismatches[k] += 1;
                    eprintln!("mismatch: seed {seed} {scheme}: {e}");
                }
            }
            dyn_ops[k] += dynamic[k];
        }
        if dynamic[0] > dynamic[2] {
            worse_than_nak.push((seed, dynamic[0], dynamic[2]));
        }
    }
    eprintln!(
        "{programs} fuzz programs, subgroup 32, strict; barrier operations (set + sync + break)"
    );
    eprintln!("| scheme | static | dynamic (per warp) | mismatches |");
    eprintln!("|---|---|---|---|");
    for (k, scheme) in schemes.into_iter().enumerate() {
        eprintln!(
            "| {scheme} | {} | {} | {} |",
            stat[k], dyn_ops[k], mismatches[k]
        );
    }
    eprintln!("programs where scopes issues more than nak: {worse_than_nak:?}");
    assert_eq!(mismatches, [0, 0, 0]);
    assert!(worse_than_nak.is_empty());
}
