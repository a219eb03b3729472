//! Helpers shared by the runner's tests.

use tangle_run::lowered::{LoweredEngine, MachineEngine};
use tangle_run::{run_script, Event, Report, ScriptError, ScriptOptions};

/// Every failing `EXPECT` and failed `RUN` of a report, as text.
pub fn failures(report: &Report) -> Vec<String> {
    report
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Failed(f) => Some(f.to_string()),
            Event::RunFailed { error, .. } => Some(error.to_string()),
            _ => None,
        })
        .collect()
}

/// Runs a script's text on the reference, and with `lowered` also on the barrier machine
/// (tangle's lowering) under every policy.
#[allow(dead_code)] // not every test file that shares this module runs scripts this way
pub fn run(text: &str, lowered: bool) -> Result<Report, ScriptError> {
    let parsed = tangle_amber::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut options = ScriptOptions::default();
    if lowered {
        let policies = tangle_sched::expand(
            "all",
            "barrier machine",
            &tangle_machine::SUPPORTED_POLICIES,
        )
        .expect("`all` expands");
        options.lowered = Some(LoweredEngine {
            engine: MachineEngine::Lowered(tangle_reconverge::Scheme::Scopes),
            policies,
        });
    }
    run_script(&parsed, &options)
}

/// The little-endian 32-bit words of a buffer after the run.
#[allow(dead_code)]
pub fn words(report: &Report, buffer: &str) -> Vec<u32> {
    report.buffers[buffer]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
