//! Bundled AmberScript directories (`tests/amber`, `tests/known-bugs`): listing their
//! scripts and running one on the reference under a semantics and a schedule policy. A
//! test crate that uses it also declares `mod common;`.

use std::path::{Path, PathBuf};

use tangle_interp::{SchedulePolicy, Variant};
use tangle_run::{run_script, Report, ScriptOptions};

/// The repository directory `rel` (e.g. `tests/amber`).
pub fn dir(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// The `.amber` scripts directly under `dir`, in name order.
pub fn scripts(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "amber"))
        .collect();
    v.sort();
    v
}

/// A script's file name without `.amber`.
pub fn name(path: &Path) -> String {
    path.file_stem().unwrap().to_string_lossy().into_owned()
}

/// Runs the script at `path` on the reference (files it names are found beside it).
pub fn run(path: &Path, variant: Variant, schedule: SchedulePolicy) -> Report {
    let text = std::fs::read_to_string(path).unwrap();
    let script = tangle_amber::parse(&text).unwrap_or_else(|e| panic!("{}:{e}", path.display()));
    let mut options = ScriptOptions {
        base_dir: path.parent().unwrap().to_path_buf(),
        ..ScriptOptions::default()
    };
    options.engine.variant = variant;
    options.engine.schedule_policy = schedule;
    run_script(&script, &options).unwrap_or_else(|e| panic!("{}:{e}", path.display()))
}

/// The schedule policies the bundled scripts must pass under.
pub const POLICIES: [SchedulePolicy; 4] = [
    SchedulePolicy::LowestLaneFirst,
    SchedulePolicy::NewestFirst,
    SchedulePolicy::Random(1),
    SchedulePolicy::Random(0x5eed),
];

/// Panics unless the script at `path` passes under the specification's semantics and every
/// policy of [`POLICIES`], with at least one `RUN` and one `EXPECT`.
pub fn assert_passes_under_every_policy(path: &Path) {
    for schedule in POLICIES {
        let report = run(path, Variant::Maximal, schedule);
        let failures = crate::common::failures(&report);
        assert!(
            report.passed(),
            "{} under {schedule:?}:\n{}",
            name(path),
            failures.join("\n")
        );
        let (runs, passed, _) = report.counts();
        assert!(runs > 0 && passed > 0, "{} checks nothing", name(path));
    }
}
