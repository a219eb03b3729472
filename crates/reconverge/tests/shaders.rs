//! The uniformity analysis checked dynamically on the bundled shaders: every AmberScript
//! script of `tests/amber` and `examples`, the IR filetests that run, and the front end's
//! and runner's test shaders (`crates/spirv/tests/shaders`, `crates/run/tests/data`; runs the
//! interpreter refuses, e.g. out-of-bounds with made-up buffers, check nothing), each as loaded
//! and with its function variables promoted, at several subgroup sizes and under both
//! switch and fallthrough policies. Every value the analysis calls uniform must hold one
//! value in every tangle that defines or reads it, and no branch it calls uniform may split
//! a tangle.

mod common;

use std::path::{Path, PathBuf};

use tangle_interp::{Config, FallthroughPolicy, SwitchPolicy};
use tangle_ir::Module;
use tangle_reconverge::Uniformity;
use tangle_run::source::{load_shader, ShaderKind};

/// One runnable case: a module, its entry point, its buffers, its specialization.
struct Case {
    name: String,
    module: Module,
    entry: String,
    buffers: Vec<((u32, u32), Vec<u8>)>,
    spec: Vec<(u32, u64)>,
    subgroup_sizes: Vec<u32>,
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn amber_cases() -> Vec<Case> {
    ["tests/amber", "tests/known-bugs", "examples"]
        .iter()
        .flat_map(|dir| common::bundled::amber_pipelines(&repo().join(dir)))
        .map(|p| Case {
            name: p.name,
            module: p.module,
            entry: p.entry,
            buffers: p.buffers,
            spec: p.spec,
            subgroup_sizes: vec![4, 8, 32],
        })
        .collect()
}

/// The IR files with `; test: run` headers: each header's entry point, subgroup size and
/// buffers (`S:B=w,w,...` or `S:B=zero*N`).
fn ir_cases() -> Vec<Case> {
    let mut out = Vec::new();
    let dirs = ["crates/ir/tests/filetests", "crates/interp/tests/data"];
    for dir in dirs {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(repo().join(dir))
            .expect("IR directory")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "tir"))
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).expect("IR file");
            let Ok(module) = tangle_ir::text::parse(&text) else {
                continue;
            };
            if tangle_ir::verify::verify(&module).is_err() {
                continue;
            }
            for line in text.lines().filter_map(|l| l.strip_prefix("; test: run ")) {
                let mut words = line.split_whitespace();
                let entry = words.next().expect("entry").to_string();
                let mut sizes = vec![4, 32];
                let mut buffers = Vec::new();
                for w in words {
                    if let Some(n) = w.strip_prefix("subgroup=") {
                        sizes = vec![n.parse().expect("size")];
                    } else if let Some((sb, data)) = w.split_once('=') {
                        let (s, b) = sb.split_once(':').expect("S:B");
                        let words: Vec<u32> = match data.strip_prefix("zero*") {
                            Some(n) => vec![0; n.parse().expect("count")],
                            None => data.split(',').map(|x| x.parse().expect("word")).collect(),
                        };
                        let bytes = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                        buffers.push((
                            (s.parse().expect("set"), b.parse().expect("binding")),
                            bytes,
                        ));
                    }
                }
                out.push(Case {
                    name: format!("{} {line}", path.display()),
                    module: module.clone(),
                    entry,
                    buffers,
                    spec: Vec::new(),
                    subgroup_sizes: sizes,
                });
            }
        }
    }
    out
}

/// Whether glslangValidator is there for the GLSL scripts (a skip outside CI, a failure in it).
fn have_glslang(test: &str) -> bool {
    tangle_oracle::require(tangle_oracle::Tool::Glslang, test).is_some()
}

/// The front end's and the runner's test shaders (GLSL and SPIR-V assembly), each with
/// every storage and uniform buffer it uses bound to 4 KiB of varied words.
fn corpus_cases() -> Vec<Case> {
    let mut out = Vec::new();
    for dir in ["crates/spirv/tests/shaders", "crates/run/tests/data"] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(repo().join(dir))
            .expect("shader directory")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "comp" || x == "spvasm"))
            .collect();
        paths.sort();
        for path in paths {
            let kind = if path.extension().is_some_and(|x| x == "comp") {
                ShaderKind::Glsl
            } else {
                ShaderKind::SpirvAsm
            };
            let bytes = std::fs::read(&path).expect("shader");
            let name = path.display().to_string();
            // A few exercise what the reader refuses on purpose (partitioned operations).
            let Ok(module) = load_shader(kind, &bytes, &name, "vulkan1.1") else {
                continue;
            };
            let Some(entry) = module.entry_points.first().map(|e| e.name.clone()) else {
                continue;
            };
            let words: Vec<u8> = (0..1024u32)
                .map(|i| (i.wrapping_mul(2_654_435_761) >> 9) % 97)
                .flat_map(|w| w.to_le_bytes())
                .collect();
            let buffers = tangle_run::resources::used_descriptors(&module)
                .into_iter()
                .map(|d| ((d.set, d.binding), words.clone()))
                .collect();
            out.push(Case {
                name,
                module,
                entry,
                buffers,
                spec: Vec::new(),
                subgroup_sizes: vec![4, 32],
            });
        }
    }
    out
}

#[test]
fn uniform_claims_hold_on_every_bundled_shader() {
    if !have_glslang("uniform_claims_hold_on_every_bundled_shader") {
        return;
    }
    let cases: Vec<Case> = amber_cases()
        .into_iter()
        .chain(ir_cases())
        .chain(corpus_cases())
        .collect();
    assert!(
        cases.len() >= 50,
        "found only {} bundled cases",
        cases.len()
    );
    let (mut runs, mut checks, mut branch_checks, mut divergent_branches) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for case in &cases {
        for (variant, module) in [
            ("as loaded", case.module.clone()),
            ("promoted", common::promoted(&case.module)),
        ] {
            let analysis = Uniformity::analyse(&module);
            divergent_branches += module
                .funcs
                .iter()
                .map(|(f, _)| {
                    analysis
                        .function(f)
                        .map_or(0, |u| u.divergent_branches().count())
                })
                .sum::<usize>();
            for &size in &case.subgroup_sizes {
                for (switch_policy, fallthrough_policy) in [
                    (SwitchPolicy::ByTarget, FallthroughPolicy::Independent),
                    (SwitchPolicy::BySelector, FallthroughPolicy::Merge),
                ] {
                    let config = Config {
                        subgroup_size: size,
                        spec_constants: case.spec.iter().copied().collect(),
                        switch_policy,
                        fallthrough_policy,
                        record_trace: false,
                        ..Config::default()
                    };
                    match common::check_run(&module, &analysis, &case.entry, config, &case.buffers)
                    {
                        // Runs the interpreter refuses (a filetest's deliberately failing
                        // header, a missing buffer) check nothing.
                        Err(e) => {
                            if std::env::var_os("TANGLE_SHOW_REFUSED").is_some() {
                                eprintln!("{}: {e}", case.name);
                            }
                        }
                        Ok(t) => {
                            runs += 1;
                            checks += t.uniform_checks;
                            branch_checks += t.uniform_branch_checks;
                            for v in t.violations {
                                failures.push(format!(
                                    "{} ({variant}, subgroup {size}): {v}",
                                    case.name
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} violations:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The check must have checked something: runs, uniform values seen in tangles of two
    // lanes or more, uniform branches taken by such tangles, and divergence found.
    assert!(runs >= 400, "only {runs} runs");
    assert!(checks >= 1000, "only {checks} uniform values checked");
    assert!(
        branch_checks >= 50,
        "only {branch_checks} uniform branches checked"
    );
    assert!(
        divergent_branches >= 20,
        "only {divergent_branches} divergent branches found"
    );
    eprintln!("{runs} runs, {checks} uniform values and {branch_checks} uniform branches checked");
}

/// The check can fail: claiming every value uniform is caught on the bundled shaders.
#[test]
fn the_check_catches_an_analysis_that_calls_everything_uniform() {
    if !have_glslang("the_check_catches_an_analysis_that_calls_everything_uniform") {
        return;
    }
    let mut caught = 0;
    for case in amber_cases() {
        let module = common::promoted(&case.module);
        let config = Config {
            subgroup_size: 32,
            spec_constants: case.spec.iter().copied().collect(),
            record_trace: false,
            ..Config::default()
        };
        let t = common::check_claims(
            &module,
            &|_, _, _| true,
            &|_, _| true,
            &case.entry,
            config,
            &case.buffers,
        )
        .expect("bundled scripts run");
        if !t.violations.is_empty() {
            caught += 1;
        }
    }
    assert!(
        caught >= 8,
        "only {caught} scripts caught the everything-uniform claim"
    );
}
