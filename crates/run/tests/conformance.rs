//! The real-world corpus: every AmberScript compute script of google/amber's tests and the
//! Vulkan CTS's Amber data (`../shared/conformance/amber`, beside the repository; its
//! README and MANIFEST.tsv say where each file comes from), run as `tangle run` runs them.
//!
//! `data/conformance-expectations.tsv` lists every script that does not pass, with its
//! outcome (`fail`: exit 1, `refused`: exit 2), a category (`out-of-scope`, `not-yet`,
//! `invalid-usage`, `undefined-behaviour`, `undefined-value`, `expect-fail`, `template`), text its message must
//! contain, and the reason. Every other script must pass. The test asserts the exact sets,
//! so that any change — a newly passing script or a new failure — shows up here. amber's
//! `*.expect_fail.amber` scripts must fail.
//!
//! When the folder is absent the test prints a SKIPPED line; under `CI=true` it must be
//! there. glslang and spirv-opt are needed (many scripts are GLSL; one has a
//! `SHADER_OPTIMIZATION` block).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use tangle_oracle::Tool;
use tangle_run::lowered::{LoweredEngine, MachineEngine};
use tangle_run::{run_script, Event, ScriptOptions};

const TEST: &str = "conformance_corpus";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Pass,
    Fail,
    Refused,
}

impl Outcome {
    fn parse(s: &str) -> Outcome {
        match s {
            "pass" => Outcome::Pass,
            "fail" => Outcome::Fail,
            "refused" => Outcome::Refused,
            other => panic!("unknown outcome {other:?} in the expectations file"),
        }
    }
}

struct Expectation {
    outcome: Outcome,
    category: String,
    message: String,
    line: usize,
}

const CATEGORIES: [&str; 7] = [
    "out-of-scope",
    "not-yet",
    "invalid-usage",
    "undefined-behaviour",
    "undefined-value",
    "expect-fail",
    "template",
];

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/amber")
}

fn skip(test: &str, why: &str) {
    if tangle_oracle::oracles_mandatory() {
        panic!("{test}: {why} (CI=true: the corpus must be present beside the clone)");
    }
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED {test}: {why}");
}

/// The measured scripts of the manifest, as paths relative to the corpus folder.
fn manifest(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap();
    let mut scripts: Vec<String> = text
        .lines()
        .skip(1)
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            if cols.get(4) != Some(&"amberscript-compute") {
                return None;
            }
            let top = match cols[0] {
                "google/amber" => "amber",
                "KhronosGroup/VK-GL-CTS" => "VK-GL-CTS",
                other => panic!("unknown repository {other} in MANIFEST.tsv"),
            };
            Some(format!("{top}/{}", cols[2]))
        })
        .collect();
    scripts.sort();
    scripts
}

fn expectations() -> BTreeMap<String, Expectation> {
    let text = include_str!("data/conformance-expectations.tsv");
    let mut map = BTreeMap::new();
    for (i, l) in text.lines().enumerate() {
        if l.starts_with('#') || l.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = l.split('\t').collect();
        assert_eq!(
            cols.len(),
            5,
            "line {}: expected 5 tab-separated columns",
            i + 1
        );
        assert!(
            CATEGORIES.contains(&cols[1]),
            "line {}: unknown category {:?}",
            i + 1,
            cols[1]
        );
        assert!(
            !cols[4].trim().is_empty(),
            "line {}: no reason given",
            i + 1
        );
        let old = map.insert(
            cols[2].to_string(),
            Expectation {
                outcome: Outcome::parse(cols[0]),
                category: cols[1].to_string(),
                message: cols[3].to_string(),
                line: i + 1,
            },
        );
        assert!(old.is_none(), "line {}: {} listed twice", i + 1, cols[2]);
    }
    map
}

/// Runs one script as `tangle run` does (with `--engine lowered --policy all` when `lowered`
/// is given): its outcome and its messages.
fn run_one(path: &Path, lowered: Option<&LoweredEngine>) -> (Outcome, String) {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return (Outcome::Refused, e.to_string()),
    };
    let script = match tangle_amber::parse(&text) {
        Ok(s) => s,
        Err(e) => return (Outcome::Refused, e.to_string()),
    };
    let mut options = ScriptOptions {
        base_dir: tangle_run::script::script_dir(path),
        lowered: lowered.cloned(),
        ..ScriptOptions::default()
    };
    // As `tangle run --engine tokens`: the reference merges switch fallthrough lanes, the
    // grouping the token semantics gives.
    if lowered.is_some_and(|e| e.engine == MachineEngine::Tokens) {
        options.engine.fallthrough_policy = tangle_interp::FallthroughPolicy::Merge;
    }
    match run_script(&script, &options) {
        Err(e) if e.exit_code() == 1 => (Outcome::Fail, e.to_string()),
        Err(e) => (Outcome::Refused, e.to_string()),
        Ok(report) if report.passed() => {
            let agreed = report
                .events
                .iter()
                .filter(|e| matches!(e, Event::LoweredAgreed { .. }))
                .count();
            let counter = match lowered.map(|e| e.engine) {
                Some(MachineEngine::Tokens) => &TOKENS_AGREED,
                _ => &LOWERED_AGREED,
            };
            counter.fetch_add(agreed, Ordering::Relaxed);
            (Outcome::Pass, String::new())
        }
        Ok(report) => {
            let messages: Vec<String> = report
                .events
                .iter()
                .filter_map(|e| match e {
                    Event::Failed(f) => Some(f.to_string()),
                    Event::RunFailed { error, origin, .. } => {
                        Some(tangle_run::run_error_message(error, origin.as_ref()))
                    }
                    Event::LoweredDiffers { mismatch, .. } => Some(mismatch.to_string()),
                    _ => None,
                })
                .collect();
            (Outcome::Fail, messages.join("\n"))
        }
    }
}

#[test]
fn conformance_corpus() {
    check_corpus(TEST, None);
}

/// The same corpus with every pipeline also lowered (tangle's scheme) and run on the barrier
/// machine under every policy (issue 14): each script must end as it does on the reference
/// alone, so an in-scope script passes only when all 12 policies give the reference's buffers.
#[test]
fn conformance_corpus_lowered() {
    let policies = tangle_sched::expand(
        "all",
        "barrier machine",
        &tangle_machine::SUPPORTED_POLICIES,
    )
    .expect("`all` expands");
    let engine = LoweredEngine {
        engine: MachineEngine::Lowered(tangle_reconverge::Scheme::Scopes),
        policies,
    };
    let before = LOWERED_AGREED.load(Ordering::Relaxed);
    check_corpus("conformance_corpus_lowered", Some(&engine));
    // The lowered engine really ran: a passing script with a dispatch compared it. (The
    // reference-only test adds nothing to the count.)
    let agreed = LOWERED_AGREED.load(Ordering::Relaxed) - before;
    let _ = writeln!(
        std::io::stderr().lock(),
        "conformance_corpus_lowered: {agreed} dispatches of passing scripts agree under every policy"
    );
    assert!(
        agreed >= 350,
        "only {agreed} dispatches were compared with the lowered engine"
    );
}

/// The same corpus on the token engine (issue 15): every pipeline also run with inferred
/// tokens and its structure dropped, under three policies (`TANGLE_TOKENS_POLICIES` names
/// others, `all` by hand), against the reference with merging fallthrough; each script
/// must end as it does on the reference alone.
#[test]
fn conformance_corpus_tokens() {
    let names = std::env::var("TANGLE_TOKENS_POLICIES")
        .unwrap_or_else(|_| "strict,adversarial,random:1".into());
    let policies =
        tangle_sched::expand(&names, "token engine", &tangle_machine::SUPPORTED_POLICIES)
            .expect("the policies expand");
    let engine = LoweredEngine {
        engine: MachineEngine::Tokens,
        policies,
    };
    check_corpus("conformance_corpus_tokens", Some(&engine));
    let agreed = TOKENS_AGREED.load(Ordering::Relaxed);
    let _ = writeln!(
        std::io::stderr().lock(),
        "conformance_corpus_tokens: {agreed} dispatches of passing scripts agree under every policy"
    );
    assert!(
        agreed >= 350,
        "only {agreed} dispatches were compared with the token engine"
    );
}

/// Dispatches on which the lowered engine ran and agreed with the reference (all tests).
static LOWERED_AGREED: AtomicUsize = AtomicUsize::new(0);

/// Dispatches on which the token engine ran and agreed with the reference.
static TOKENS_AGREED: AtomicUsize = AtomicUsize::new(0);

fn check_corpus(test: &str, lowered: Option<&LoweredEngine>) {
    let dir = corpus_dir();
    if !dir.join("MANIFEST.tsv").is_file() {
        skip(test, &format!("{} is not present", dir.display()));
        return;
    }
    for tool in [Tool::Glslang, Tool::SpirvOpt] {
        if tangle_oracle::require(tool, test).is_none() {
            return;
        }
    }
    let scripts = manifest(&dir);
    let expected = expectations();
    for name in expected.keys() {
        assert!(
            scripts.contains(name),
            "the expectations list {name}, which is not a measured script of MANIFEST.tsv"
        );
    }
    // Run in parallel: the scripts are independent.
    let next = AtomicUsize::new(0);
    let results: Mutex<BTreeMap<String, (Outcome, String)>> = Mutex::new(BTreeMap::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(name) = scripts.get(i) else { break };
                let result = run_one(&dir.join(name), lowered);
                results.lock().unwrap().insert(name.clone(), result);
            });
        }
    });
    let results = results.into_inner().unwrap();

    let mut wrong = Vec::new();
    let mut counts: BTreeMap<Outcome, usize> = BTreeMap::new();
    let mut by_category: BTreeMap<&str, usize> = BTreeMap::new();
    for (name, (outcome, message)) in &results {
        *counts.entry(*outcome).or_default() += 1;
        let first_line = message.lines().next().unwrap_or("");
        match expected.get(name) {
            None if *outcome != Outcome::Pass => wrong.push(format!(
                "{name}: expected to pass, got {outcome:?}: {first_line}"
            )),
            None => {}
            Some(e) => {
                *by_category.entry(&e.category).or_default() += 1;
                if *outcome != e.outcome || !message.contains(&e.message) {
                    wrong.push(format!(
                        "{name}: expected {:?} with {:?} (expectations line {}), got {outcome:?}: {first_line}",
                        e.outcome, e.message, e.line
                    ));
                }
            }
        }
        if name.ends_with(".expect_fail.amber") && *outcome != Outcome::Fail {
            wrong.push(format!(
                "{name}: amber's expect_fail script must fail, got {outcome:?}"
            ));
        }
    }
    let _ = writeln!(
        std::io::stderr().lock(),
        "{test}: {} scripts: {} pass, {} fail, {} refused; listed by category: {by_category:?}",
        results.len(),
        counts.get(&Outcome::Pass).unwrap_or(&0),
        counts.get(&Outcome::Fail).unwrap_or(&0),
        counts.get(&Outcome::Refused).unwrap_or(&0),
    );
    assert!(
        wrong.is_empty(),
        "{} scripts differ from the expectations:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert_eq!(
        counts.get(&Outcome::Pass).copied().unwrap_or(0),
        scripts.len() - expected.len(),
        "every script not listed passes"
    );
}
