//! Mutation smoke run of the interpreter: valid shaders are mutated as SPIR-V words; every
//! mutant that reads and verifies is run with every descriptor it uses bound, random buffer
//! contents, a random subgroup size and a small step budget. Any outcome is fine except a
//! panic or a hang: errors (out of bounds, undefined behaviour, budget, deadlock,
//! unsupported) must come back as values.

use std::path::Path;

use std::collections::BTreeMap;

use tangle_interp::{Config, InterpError, Interpreter, SchedulePolicy};
use tangle_spirv::{AsmOptions, TargetEnv};

/// Seed modules: the hand-written corpus shaders and the runner's test shaders.
fn seeds() -> Vec<Vec<u32>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths: Vec<_> = std::fs::read_dir(root.join("../spirv/tests/shaders"))
        .unwrap()
        .chain(std::fs::read_dir(root.join("tests/data")).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "spvasm"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(&p).unwrap();
        let words = tangle_spirv::assemble(&text, AsmOptions::for_env(TargetEnv::Vulkan1_1))
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let module = tangle_spirv::reader::read_words(&words).unwrap();
        if tangle_ir::verify::verify(&module).is_ok() && !module.entry_points.is_empty() {
            out.push(words);
        }
    }
    assert!(out.len() >= 8, "only {} runnable seeds", out.len());
    out
}

/// Small changes that keep most of the module intact: a literal or id nudged, a word
/// replaced by a small number, an opcode changed.
fn mutate(rng: &mut fastrand::Rng, words: &mut [u32]) {
    for _ in 0..1 + rng.usize(..3) {
        let i = 5 + rng.usize(..words.len() - 5);
        match rng.usize(..4) {
            0 => words[i] = words[i].wrapping_add(1),
            1 => words[i] = words[i].wrapping_sub(1),
            2 => words[i] = rng.u32(..16),
            _ => words[i] = (words[i] & 0xffff_0000) | (rng.u32(..400)),
        }
    }
}

/// Runs one module; returns a label for the outcome.
fn run_one(rng: &mut fastrand::Rng, module: &tangle_ir::Module) -> &'static str {
    let entry = &module.entry_points[0].name;
    let config = Config {
        subgroup_size: 1 << rng.u32(..8),
        workgroups: [1 + rng.u32(..2), 1, 1],
        schedule_policy: SchedulePolicy::Random(rng.u64(..)),
        step_budget: 20_000,
        record_trace: rng.bool(),
        ..Config::default()
    };
    let Ok(mut interp) = Interpreter::new(module, entry, config) else {
        return "refused";
    };
    let invocations: u64 = interp.local_size().iter().map(|&d| d as u64).product();
    if invocations > 1024 {
        return "too large";
    }
    for d in tangle_run::resources::used_descriptors(module) {
        let len = 4 * rng.usize(..128);
        interp.bind_buffer(d.set, d.binding, (0..len).map(|_| rng.u8(..)).collect());
    }
    interp.set_push_constants((0..256).map(|_| rng.u8(..)).collect());
    match interp.run() {
        Ok(_) => "completed",
        Err(InterpError::Config(_)) => "config",
        Err(InterpError::Unsupported { .. }) => "unsupported",
        Err(InterpError::OutOfBounds { .. }) => "out of bounds",
        Err(InterpError::Undefined { .. }) => "undefined",
        Err(InterpError::UndefinedValue(_)) => "undefined value",
        Err(InterpError::Deadlock { .. }) => "deadlock",
        Err(InterpError::Budget { .. }) => "budget",
        Err(e @ InterpError::Internal { .. }) => panic!("the interpreter broke an invariant: {e}"),
    }
}

#[test]
fn mutated_shaders_never_panic_the_interpreter() {
    let seeds = seeds();
    let seed = std::env::var("TANGLE_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x7467_5eed);
    let mut rng = fastrand::Rng::with_seed(seed);
    let (mut tried, mut ran) = (0, 0);
    let mut outcomes: BTreeMap<&str, usize> = BTreeMap::new();
    // TANGLE_FUZZ_RUNS=n runs longer by hand; CI runs the default.
    let want: usize = std::env::var("TANGLE_FUZZ_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600);
    while ran < want && tried < want * 70 {
        tried += 1;
        let mut words = seeds[rng.usize(..seeds.len())].clone();
        mutate(&mut rng, &mut words);
        let Ok(module) = tangle_spirv::reader::read_words(&words) else {
            continue;
        };
        if tangle_ir::verify::verify(&module).is_err() || module.entry_points.is_empty() {
            continue;
        }
        ran += 1;
        *outcomes.entry(run_one(&mut rng, &module)).or_default() += 1;
    }
    eprintln!("{ran} of {tried} mutants verified and ran: {outcomes:?}");
    assert!(ran >= 300, "only {ran} of {tried} mutants verified");
    // The smoke run must exercise execution, not only refusals.
    assert!(
        outcomes.get("completed").copied().unwrap_or(0) >= 50,
        "{outcomes:?}"
    );
}
