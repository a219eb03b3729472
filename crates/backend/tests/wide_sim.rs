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
            sass: Some(SassEngine::new(
                Arch::ALL.to_vec(),
                Scheme::Scopes,
                policies.clone(),
            )),
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
    assert!(
        agreed >= scripts().len(),
        "at least one dispatch per script"
    );
}

/// The shaders of `tests/data/wide/redux.amber`, by name.
fn redux_shaders() -> Vec<(String, tangle_ir::Module)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/wide/redux.amber");
    let script = tangle_amber::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
    script
        .shaders
        .iter()
        .map(|sh| {
            let tangle_amber::ShaderSource::Inline(src) = &sh.source else {
                panic!("inline shaders")
            };
            let m = tangle_run::load_shader(
                tangle_run::ShaderKind::Glsl,
                src.as_bytes(),
                &sh.name,
                "vulkan1.1",
            )
            .unwrap();
            (sh.name.clone(), m)
        })
        .collect()
}

/// Uniform registers are one per warp: a kernel that branches divergently writes none
/// after its entry's descriptor load (its reductions stay the shuffle tree), while the
/// converged kernel's reductions are `REDUX` into a uniform register on SM80+ (and the
/// shuffle tree on SM75, which has no REDUX).
#[test]
fn uniform_registers_are_never_written_under_divergent_control() {
    if tangle_oracle::require(Tool::Glslang, "uniform_registers_never_divergent").is_none() {
        return;
    }
    use tangle_sass::typed::Loc;
    use tangle_sass::Op;
    for (name, module) in redux_shaders() {
        for arch in Arch::ALL {
            let c = tangle_backend::compile(
                &module,
                "main",
                &tangle_backend::CompileOptions::new(arch),
            )
            .unwrap_or_else(|e| panic!("{name} {arch}: {e}"));
            let reduxes = c.code.insts.iter().filter(|i| i.op() == Op::Redux).count();
            // Instructions that write a uniform register, other than the global memory
            // descriptor's ULDC at the entry.
            let ur_writes: Vec<String> = c
                .code
                .insts
                .iter()
                .filter(|i| i.op() != Op::Uldc && i.defs().iter().any(|l| matches!(l, Loc::Ur(_))))
                .map(|i| i.text(arch, 0).unwrap())
                .collect();
            match (name.as_str(), arch) {
                ("uniform", Arch::Sm75) => assert_eq!(reduxes, 0, "{name} {arch}"),
                ("uniform", _) => {
                    assert_eq!(reduxes, 8, "{name} {arch}: one REDUX per reduction");
                    assert_eq!(ur_writes.len(), 8, "{name} {arch}: {ur_writes:?}");
                }
                _ => {
                    assert_eq!(reduxes, 0, "{name} {arch}");
                    assert!(ur_writes.is_empty(), "{name} {arch}: {ur_writes:?}");
                }
            }
        }
    }
}
