//! Structural checks of the lowering on every shader at hand — the bundled AmberScript
//! scripts, the conformance corpus beside the repository (`../shared/conformance/amber`,
//! when present) and random programs of the fuzz generator — under every scheme:
//!
//! - the lowering succeeds and its result verifies in lowered form (`lower_module` checks);
//! - every participant of a barrier reaches its sync: on every path from a `bar_set`, a
//!   `bar_sync` of that barrier (or, in the baseline, a `bar_break` of it, or an `exit`)
//!   comes before a return or before the `bar_set` runs again;
//! - a function with no divergent branch gets no barrier operation at all;
//! - tangle's scheme never has more barrier operations than the every-divergent one.
//!
//! Whether the lowered code gives the reference's tangles is the barrier machine's to show.

mod common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use tangle_amber::{ShaderFormat, ShaderSource};
use tangle_ir::{Block, Function, Module, Op, Operand, TangleOp, Terminator, Value};
use tangle_reconverge::lower::stats::static_counts;
use tangle_reconverge::{lower_module, LowerOptions, Scheme, Uniformity};
use tangle_run::source::{load_shader, ShaderKind};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The compute shaders attached in the AmberScript files under `dir` (recursively), each
/// loaded as a module; shaders the front end refuses are left out.
fn amber_modules(dir: &Path) -> Vec<(String, Module)> {
    let mut paths = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "amber") {
                paths.push(p);
            }
        }
    }
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(script) = tangle_amber::parse(&text) else {
            continue;
        };
        for shader in &script.shaders {
            let bytes = match &shader.source {
                ShaderSource::Inline(t) => t.clone().into_bytes(),
                ShaderSource::VirtualFile { text, .. } => text.clone().into_bytes(),
                ShaderSource::File { path: p, .. } => {
                    match std::fs::read(path.parent().expect("dir").join(p)) {
                        Ok(b) => b,
                        Err(_) => continue,
                    }
                }
            };
            let kind = match shader.format {
                ShaderFormat::Glsl => ShaderKind::Glsl,
                ShaderFormat::SpirvAsm => ShaderKind::SpirvAsm,
                ShaderFormat::SpirvHex => ShaderKind::SpirvHex,
                ShaderFormat::SpirvBin => ShaderKind::SpirvBinary,
            };
            let env = shader.target_env.clone().unwrap_or("vulkan1.1".into());
            if let Ok(m) = load_shader(kind, &bytes, &shader.name, &env) {
                if tangle_ir::verify::verify(&m).is_ok() && !m.entry_points.is_empty() {
                    out.push((format!("{} {}", path.display(), shader.name), m));
                }
            }
        }
    }
    out
}

/// Whether every path from the `bar_set` of `bar` (in `func`) meets a `bar_sync` of it —
/// or a `bar_break` of it when `breaks_leave` — or an `exit`, before a return or the
/// `bar_set` again. Returns the block where a path escapes, if one does.
fn unsynced_path(func: &Function, bar: Value, breaks_leave: bool) -> Option<Block> {
    let (start, pos) = func.layout.iter().find_map(|&b| {
        func.blocks[b]
            .insts
            .iter()
            .position(|&i| func.insts[i].result == Some(bar))
            .map(|k| (b, k))
    })?;
    // Whether a block (from instruction `from` on) ends the barrier's life, runs into its
    // `bar_set` again, or goes on.
    let scan = |b: Block, from: usize| -> Option<bool> {
        for &i in &func.blocks[b].insts[from..] {
            let d = &func.insts[i];
            let names_bar = d.args.first() == Some(&Operand::Value(bar));
            match d.op {
                Op::Tangle(TangleOp::BarSync) if names_bar => return Some(true),
                Op::Tangle(TangleOp::BarBreak) if names_bar && breaks_leave => return Some(true),
                Op::Tangle(TangleOp::Exit) => return Some(true),
                Op::Tangle(TangleOp::BarSet) if d.result == Some(bar) => return Some(false),
                _ => {}
            }
        }
        None
    };
    let mut seen = HashSet::new();
    let mut stack: Vec<(Block, usize)> = vec![(start, pos + 1)];
    while let Some((b, from)) = stack.pop() {
        match scan(b, from) {
            Some(true) => continue,
            Some(false) => return Some(b),
            None => {}
        }
        let term = &func.blocks[b].term;
        if matches!(term, Terminator::Return | Terminator::ReturnValue(_)) {
            return Some(b);
        }
        for s in term.successors() {
            if seen.insert(s) {
                stack.push((s, 0));
            }
        }
    }
    None
}

fn check(name: &str, module: &Module) -> [usize; 4] {
    let promoted = common::promoted(module);
    let uniformity = Uniformity::analyse(&promoted);
    let mut ops = [0; 4];
    for (k, scheme) in Scheme::ALL.into_iter().enumerate() {
        let opts = LowerOptions {
            scheme,
            ..Default::default()
        };
        let lowered =
            lower_module(module, &opts).unwrap_or_else(|e| panic!("{name}: {scheme}: {e}"));
        for (fid, f) in lowered.funcs.iter() {
            for &b in &f.layout {
                for &i in &f.blocks[b].insts {
                    if let (Op::Tangle(TangleOp::BarSet), Some(v)) =
                        (&f.insts[i].op, f.insts[i].result)
                    {
                        if let Some(at) = unsynced_path(f, v, scheme == Scheme::Baseline) {
                            panic!("{name}: {scheme}: {fid} {v} escapes its sync at {at}");
                        }
                    }
                }
            }
        }
        for (fid, counts) in static_counts(&lowered) {
            let divergent = uniformity
                .function(fid)
                .is_some_and(|u| u.divergent_branches().next().is_some());
            if !divergent {
                assert_eq!(
                    counts.barrier_ops(),
                    0,
                    "{name}: {scheme}: {fid} has no divergent branch but gets barriers"
                );
            }
            ops[k] += counts.barrier_ops();
        }
    }
    assert!(
        ops[0] <= ops[1],
        "{name}: scopes has more barrier operations than every-divergent: {ops:?}"
    );
    ops
}

#[test]
fn bundled_shaders_lower_with_every_participant_synced() {
    if tangle_oracle::require(tangle_oracle::Tool::Glslang, "bundled_shaders_lower").is_none() {
        return;
    }
    let mut n = 0;
    for dir in ["tests/amber", "tests/known-bugs", "examples"] {
        for (name, m) in amber_modules(&repo().join(dir)) {
            check(&name, &m);
            n += 1;
        }
    }
    assert!(n >= 10, "only {n} bundled shaders");
}

#[test]
fn conformance_shaders_lower_with_every_participant_synced() {
    let dir = repo().join("../shared/conformance/amber");
    if !dir.exists() {
        if tangle_oracle::oracles_mandatory() {
            panic!("the conformance corpus must be beside the clone under CI=true");
        }
        eprintln!("SKIPPED conformance_shaders_lower: no {}", dir.display());
        return;
    }
    if tangle_oracle::require(tangle_oracle::Tool::Glslang, "conformance_shaders_lower").is_none() {
        return;
    }
    let modules = amber_modules(&dir);
    let mut totals = [0; 4];
    for (name, m) in &modules {
        let ops = check(name, m);
        for k in 0..4 {
            totals[k] += ops[k];
        }
    }
    eprintln!(
        "conformance: {} shaders; static barrier operations scopes {} every-divergent {} nak {} baseline {}",
        modules.len(),
        totals[0],
        totals[1],
        totals[2],
        totals[3]
    );
    assert!(
        modules.len() >= 200,
        "only {} conformance shaders loaded",
        modules.len()
    );
}

#[test]
fn fuzz_programs_lower_with_every_participant_synced() {
    let cases: u64 = std::env::var("TANGLE_LOWER_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let mut totals = [0; 4];
    for seed in 0..cases {
        let config = tangle_fuzz::GenConfig {
            nesting: 1 + (seed % 6) as u32,
            size_budget: 40,
        };
        let program = tangle_fuzz::generate(seed, config);
        let module = tangle_fuzz::build::build_module(&program);
        let ops = check(&format!("fuzz seed {seed}"), &module);
        for k in 0..4 {
            totals[k] += ops[k];
        }
    }
    eprintln!(
        "fuzz: {cases} programs; static barrier operations scopes {} every-divergent {} nak {} baseline {}",
        totals[0], totals[1], totals[2], totals[3]
    );
}
