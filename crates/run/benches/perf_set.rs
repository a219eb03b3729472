#![allow(missing_docs)]
//! Programs per second on the performance set (`../shared/perf/cts-n4-sg32`: 200 CTS-style
//! reconvergence programs with the peer's figures in its README), split into the three
//! phases `tangle run` spends its time in:
//!
//! - **load**: parse the AmberScript, assemble and verify its shader;
//! - **execute**: bind the buffers and run the interpreter for every `RUN`;
//! - **check**: every `EXPECT` against the buffers the run left;
//!
//! and the whole script through `run_script` (end to end, as `tangle run` does it without
//! the process and the printing). When the set is absent (it lives outside the repository)
//! the bench says so and runs on `benches/data` (the README's example with its shader inline);
//! the set's CTS-generated programs are data from outside and are not copied in.
//!
//! A by-hand figure comparable with the README: `cargo bench -p tangle-run --bench perf_set`
//! prints programs/s per phase once before criterion's timings.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use tangle_amber::{check_expect, Command, Script, ShaderFormat, ShaderSource};
use tangle_interp::{Config, Interpreter};
use tangle_ir::Module;
use tangle_run::{load_shader, run_script, Device, ScriptOptions, ShaderKind};

/// One program of the set: its script and its loaded shaders.
struct Program {
    name: String,
    text: String,
    script: Script,
    modules: HashMap<String, Module>,
}

/// The scripts to measure: the performance set, or the bundled sample when it is absent.
fn program_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let set = root.join("../../../shared/perf/cts-n4-sg32");
    let dir = if set.is_dir() {
        println!("perf_set: the performance set {}", set.display());
        set
    } else {
        println!(
            "perf_set: the performance set ({}) is ABSENT: measuring the bundled \
             benches/data/*.amber instead; these figures are not comparable with its README",
            set.display()
        );
        root.join("benches/data")
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("program directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "amber"))
        .collect();
    files.sort();
    if !std::env::args().any(|a| a == "--bench") {
        // Test mode (`cargo test`): one quick pass over a few programs keeps the bench honest.
        println!("perf_set: test mode, the first 3 programs only");
        files.truncate(3);
    }
    files
}

/// Load: parse, assemble and verify (what `run_script` does before the first command).
fn load(name: &str, text: &str) -> Program {
    let script = tangle_amber::parse(text).expect("script parses");
    let mut modules = HashMap::new();
    for shader in &script.shaders {
        let kind = match shader.format {
            ShaderFormat::Glsl => ShaderKind::Glsl,
            ShaderFormat::SpirvAsm => ShaderKind::SpirvAsm,
            ShaderFormat::SpirvHex => ShaderKind::SpirvHex,
            ShaderFormat::SpirvBin => ShaderKind::SpirvBinary,
        };
        let ShaderSource::Inline(src) = &shader.source else {
            panic!("{name}: the performance set has inline shaders only");
        };
        let env = shader.target_env.as_deref().unwrap_or("vulkan1.1");
        let module = load_shader(kind, src.as_bytes(), &shader.name, env).expect("shader loads");
        tangle_ir::verify::verify(&module).expect("shader verifies");
        modules.insert(shader.name.clone(), module);
    }
    Program {
        name: name.into(),
        text: text.into(),
        script,
        modules,
    }
}

/// Execute: every top-level `RUN`, with buffers kept by name (the set has no `REPEAT` or
/// `COPY`). Returns the buffers after the last run and the lane-instructions executed.
fn execute(p: &Program) -> (HashMap<String, Vec<u8>>, u64) {
    let device = Device::default();
    let mut buffers: HashMap<String, Vec<u8>> = p
        .script
        .buffers
        .iter()
        .map(|b| (b.name.clone(), b.initial_bytes()))
        .collect();
    let mut lane_steps = 0;
    for command in &p.script.commands {
        let Command::Run(run) = command else {
            continue;
        };
        let pipeline = p.script.pipeline(&run.pipeline).expect("pipeline");
        let attach = &pipeline.attachments[0];
        let module = &p.modules[&attach.shader];
        let config = Config {
            record_trace: false,
            workgroups: run.groups,
            spec_constants: attach
                .specializations
                .iter()
                .map(|s| (s.id, s.bits))
                .collect(),
            ..Config::default()
        };
        let mut interp = Interpreter::new(module, &attach.entry_point, config).expect("interp");
        let local_size = interp.local_size();
        let control = pipeline
            .subgroups
            .iter()
            .find(|s| s.shader == attach.shader);
        let subgroup_size = device
            .subgroup_size(control, local_size, module.version >= (1, 6))
            .expect("subgroup size");
        interp
            .set_subgroup_size(subgroup_size)
            .expect("subgroup size");
        for b in &pipeline.bindings {
            interp.bind_buffer(b.set, b.binding, buffers[&b.buffer].clone());
        }
        if let Some(pc) = &pipeline.push_constant {
            interp.set_push_constants(buffers[pc].clone());
        }
        let outcome = interp.run().unwrap_or_else(|e| panic!("{}: {e}", p.name));
        lane_steps += outcome.lane_steps;
        for b in &pipeline.bindings {
            if let Some(bytes) = outcome.buffers.get(&(b.set, b.binding)) {
                buffers.insert(b.buffer.clone(), bytes.clone());
            }
        }
    }
    (buffers, lane_steps)
}

/// Check: every `EXPECT`; returns how many held.
fn check(p: &Program, buffers: &HashMap<String, Vec<u8>>) -> usize {
    p.script
        .commands
        .iter()
        .filter_map(|c| match c {
            Command::Expect(e) => Some(e),
            _ => None,
        })
        .filter(|e| check_expect(e, &|n| buffers.get(n).map(Vec::as_slice)).is_ok())
        .count()
}

/// The whole script through `run_script`.
fn end_to_end(p: &Program) -> bool {
    let script = tangle_amber::parse(&p.text).expect("script parses");
    run_script(&script, &ScriptOptions::default())
        .expect("script runs")
        .passed()
}

/// Programs per second of `f` over every program, one pass.
fn rate(programs: usize, f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    programs as f64 / start.elapsed().as_secs_f64()
}

fn bench(c: &mut Criterion) {
    let files = program_files();
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|f| {
            let name = f.file_name().expect("name").to_string_lossy().into_owned();
            (name, std::fs::read_to_string(f).expect("readable script"))
        })
        .collect();
    let n = texts.len();
    let mut programs = Vec::new();
    let load_rate = rate(n, || {
        programs = texts.iter().map(|(name, t)| load(name, t)).collect();
    });
    let exec_start = Instant::now();
    let results: Vec<_> = programs.iter().map(execute).collect();
    let exec_secs = exec_start.elapsed().as_secs_f64();
    let exec_rate = n as f64 / exec_secs;
    let lane_steps: u64 = results.iter().map(|r| r.1).sum();
    let lane_rate = lane_steps as f64 / exec_secs / 1e6;
    let mut held = 0;
    let check_rate = rate(n, || {
        held = programs
            .iter()
            .zip(&results)
            .map(|(p, (b, _))| check(p, b))
            .sum()
    });
    let expects: usize = programs
        .iter()
        .map(|p| {
            p.script
                .commands
                .iter()
                .filter(|c| matches!(c, Command::Expect(_)))
                .count()
        })
        .sum();
    assert_eq!(held, expects, "every EXPECT of the set holds");
    let mut passed = 0;
    let e2e_rate = rate(n, || {
        passed = programs.iter().filter(|p| end_to_end(p)).count()
    });
    assert_eq!(passed, n, "every script passes end to end");
    println!(
        "perf_set: {n} programs, {lane_steps} lane-instructions; programs/s: load {load_rate:.0}, \
         execute {exec_rate:.0} ({lane_rate:.1} M lane-instructions/s), check {check_rate:.0}, \
         end to end {e2e_rate:.0}"
    );

    let mut group = c.benchmark_group("perf_set");
    group.sample_size(10);
    group.bench_function("load", |b| {
        b.iter(|| {
            texts
                .iter()
                .map(|(name, t)| load(name, t))
                .collect::<Vec<_>>()
        })
    });
    group.bench_function("execute", |b| {
        b.iter(|| programs.iter().map(execute).collect::<Vec<_>>())
    });
    group.bench_function("check", |b| {
        b.iter(|| {
            programs
                .iter()
                .zip(&results)
                .map(|(p, (bufs, _))| check(p, bufs))
                .sum::<usize>()
        })
    });
    group.bench_function("end_to_end", |b| {
        b.iter(|| programs.iter().filter(|p| end_to_end(p)).count())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
