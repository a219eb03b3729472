//! A bounded list of conformance scripts (`tests/data/conformance-wide.txt`, from
//! `../shared/conformance/amber` beside the repository) through the SASS engine on all
//! five SMs under round-robin: the dispatches the widened selection made compilable
//! (8/16/64-bit integers, f16, f64, modf/frexp/ldexp, ssign, find_smsb, is_inf, narrow
//! mul_extended) must compile and agree with the reference, with no hazard. The whole
//! corpus is run by hand (docs/backend.md).

use std::path::{Path, PathBuf};

use tangle_oracle::Tool;
use tangle_reconverge::Scheme;
use tangle_run::sass::SassEngine;
use tangle_run::{run_script, Event, ScriptOptions};
use tangle_sass::Arch;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/amber")
}

fn listed() -> Vec<String> {
    let list = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/conformance-wide.txt");
    std::fs::read_to_string(list)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn widened_conformance_scripts_agree_on_every_sm() {
    let test = "widened_conformance_scripts_agree_on_every_sm";
    if tangle_oracle::require(Tool::Glslang, test).is_none() {
        return;
    }
    let dir = corpus();
    if !dir.is_dir() {
        if tangle_oracle::oracles_mandatory() {
            panic!("{test}: {} is missing (CI=true)", dir.display());
        }
        eprintln!("SKIPPED {test}: {} is missing", dir.display());
        return;
    }
    let policies =
        tangle_sched::expand("round-robin", "SASS simulator", &tangle_sim::SUPPORTED).unwrap();
    let mut agreed = 0;
    for rel in listed() {
        let path = dir.join(&rel);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let script = tangle_amber::parse(&text).unwrap();
        let options = ScriptOptions {
            base_dir: path.parent().unwrap().to_path_buf(),
            sass: Some(SassEngine {
                arches: Arch::ALL.to_vec(),
                scheme: Scheme::Scopes,
                policies: policies.clone(),
                gpu: None,
            }),
            ..ScriptOptions::default()
        };
        let report = run_script(&script, &options).unwrap_or_else(|e| panic!("{rel}: {e}"));
        for e in &report.events {
            match e {
                Event::SassAgreed { runs, .. } => {
                    assert_eq!(*runs, 5, "{rel}");
                    agreed += 1;
                }
                Event::SassRefused { why, .. } => panic!("{rel}: refused: {why}"),
                Event::SassDiffers { mismatch, .. } => panic!("{rel}: {mismatch}"),
                _ => {}
            }
        }
        assert!(report.passed(), "{rel}");
    }
    assert!(agreed >= listed().len(), "at least one dispatch per script");
}
