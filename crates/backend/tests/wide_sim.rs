//! The widened selection (`tests/data/wide/`: 64-bit, 16-bit and 8-bit integers, ...)
//! through the SASS engine: every dispatch compiled for all five SMs and run on the SASS
//! simulator in hazard mode under round-robin, adversarial and random:1, against the
//! reference interpreter; the scripts' own EXPECTs were computed independently (Python).
//! None of them may be refused.

use std::path::{Path, PathBuf};

use tangle_oracle::Tool;
use tangle_reconverge::Scheme;
use tangle_run::sass::SassEngine;
use tangle_run::{run_script, Event, ScriptOptions};
use tangle_sass::Arch;

fn scripts() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/wide");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "amber"))
        .collect();
    v.sort();
    v
}

#[test]
fn wide_scripts_agree_with_the_reference_on_every_sm() {
    if tangle_oracle::require(Tool::Glslang, "wide_scripts_agree_with_the_reference").is_none() {
        return;
    }
    let policies = tangle_sched::expand(
        "round-robin,adversarial,random:1",
        "SASS simulator",
        &tangle_sim::SUPPORTED,
    )
    .unwrap();
    let mut agreed = 0;
    for path in scripts() {
        let text = std::fs::read_to_string(&path).unwrap();
        let script = tangle_amber::parse(&text).unwrap();
        let options = ScriptOptions {
            base_dir: path.parent().unwrap().to_path_buf(),
            sass: Some(SassEngine {
                arches: Arch::ALL.to_vec(),
                scheme: Scheme::Scopes,
                policies: policies.clone(),
            }),
            ..ScriptOptions::default()
        };
        let report =
            run_script(&script, &options).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for e in &report.events {
            match e {
                Event::SassAgreed { runs, .. } => {
                    assert_eq!(*runs, 5 * 3, "{}", path.display());
                    agreed += 1;
                }
                Event::SassRefused { pipeline, why, .. } => {
                    panic!("{} {pipeline}: refused: {why}", path.display())
                }
                Event::SassDiffers { mismatch, .. } => {
                    panic!("{}: {mismatch}", path.display())
                }
                _ => {}
            }
        }
        assert!(report.passed(), "{}: {:#?}", path.display(), report.events);
    }
    assert_eq!(agreed, scripts().len(), "one dispatch per script");
}
