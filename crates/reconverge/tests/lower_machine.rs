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
    for seed in 0..cases {
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
            let v = judge(&lowered, "main", sg, &policies, &buffers, &expected);
            runs += policies.len();
            match (scheme, v) {
                (Scheme::Baseline, Verdict::Wrong(_)) => baseline_wrong += 1,
                (Scheme::Baseline, Verdict::Failed(_)) => baseline_failed += 1,
                (_, Verdict::Same) | (Scheme::Baseline, Verdict::Same) => {}
                (s, v) => panic!("fuzz seed {seed} ({s}): {v:?}"),
            }
        }
    }
    eprintln!(
        "{cases} programs, {runs} lowered runs; baseline wrong on {baseline_wrong}, stuck on {baseline_failed}"
    );
    assert!(
        baseline_wrong > 0,
        "no program caught the baseline on a wrong result"
    );
}
