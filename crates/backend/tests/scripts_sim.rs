//! The bundled AmberScript scripts (`tests/amber/`, `tests/known-bugs/`, `examples/`, and the
//! back end's own in `tests/data/`: shared memory, integer operations, descriptors, variable
//! pointers) through the SASS engine:
//! every dispatch compiled for all five SMs and run on the SASS simulator in hazard mode
//! under every policy of `all`, against the reference interpreter. Dispatches the back end
//! refuses (subgroup sizes other than 32) are listed and counted. The baseline lowering
//! (seed 000's flawed design) through the same engine must be caught.

use std::path::{Path, PathBuf};

use tangle_oracle::Tool;
use tangle_reconverge::Scheme;
use tangle_run::sass::SassEngine;
use tangle_run::{run_script, Event, Report, ScriptOptions};
use tangle_sass::Arch;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scripts() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in [
        "tests/amber",
        "tests/known-bugs",
        "examples",
        "crates/backend/tests/data",
    ] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|e| e == "amber") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

fn run(path: &Path, scheme: Scheme, arches: &[Arch], policies: &str) -> Report {
    let text = std::fs::read_to_string(path).unwrap();
    let script = tangle_amber::parse(&text).unwrap();
    let options = ScriptOptions {
        base_dir: path.parent().unwrap().to_path_buf(),
        sass: Some(SassEngine::new(
            arches.to_vec(),
            scheme,
            tangle_sched::expand(policies, "SASS simulator", &tangle_sim::SUPPORTED).unwrap(),
        )),
        ..ScriptOptions::default()
    };
    run_script(&script, &options).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn bundled_scripts_agree_with_the_reference_on_every_sm_and_policy() {
    if tangle_oracle::require(Tool::Glslang, "bundled_scripts_agree_with_the_reference").is_none() {
        return;
    }
    let (mut agreed, mut refused) = (0, Vec::new());
    for path in scripts() {
        let report = run(&path, Scheme::Scopes, &Arch::ALL, "all");
        for e in &report.events {
            match e {
                Event::SassAgreed { runs, .. } => {
                    assert_eq!(*runs, 5 * 11, "{}", path.display());
                    agreed += 1;
                }
                Event::SassRefused { pipeline, why, .. } => {
                    refused.push(format!("{} {pipeline}: {why}", path.display()))
                }
                Event::SassDiffers { mismatch, .. } => {
                    panic!("{}: {mismatch}", path.display())
                }
                _ => {}
            }
        }
        assert!(report.passed(), "{}", path.display());
    }
    println!("{agreed} dispatches agree on 5 SMs x 11 policies; refused:");
    for r in &refused {
        println!("  {r}");
    }
    // Only the subgroup sizes other than 32 are refused.
    assert!(
        refused.iter().all(|r| r.contains("subgroup size")),
        "{refused:#?}"
    );
    assert_eq!(agreed, 24, "dispatches compiled and compared");
}

#[test]
fn the_baseline_lowering_through_the_sass_engine_is_caught() {
    if tangle_oracle::require(Tool::Glslang, "the_baseline_lowering_is_caught").is_none() {
        return;
    }
    let path = root().join("tests/amber/rule_continue_target.amber");
    let report = run(&path, Scheme::Baseline, &[Arch::Sm86], "round-robin");
    let caught = report
        .events
        .iter()
        .any(|e| matches!(e, Event::SassDiffers { .. }));
    assert!(caught, "the baseline was not caught: {:#?}", report.events);
    assert!(!report.passed());
    // The same script under tangle's lowering agrees.
    let good = run(&path, Scheme::Scopes, &[Arch::Sm86], "round-robin");
    assert!(good.passed());
}
