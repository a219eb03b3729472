//! Helpers shared by the runner's tests.

use tangle_run::{Event, Report};

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
