//! Register counts, by the cubin's count (`cuobjdump -res-usage`'s `REG`, which is the
//! highest register named plus the two ptxas reserves above it): the SSA allocator against
//! the stand-in it replaced, against the lower bound (max-live), and against ptxas on the
//! same fuzz programs written as CUDA (`tangle_fuzz::cuda`, `nvcc -O3`), for SM86. The
//! bundled scripts' shaders are compared with the stand-in and the bound only (there is no
//! CUDA of them for ptxas).
//!
//! CI runs 4 fuzz programs and every bundled shader; `TANGLE_REG_PROGRAMS=N` runs N fuzz
//! programs and prints one line per program (`docs/backend.md` has the figures).

use std::path::{Path, PathBuf};

use tangle_backend::{compile, Allocator, CompileOptions, Compiled};
use tangle_fuzz::build::build_module;
use tangle_fuzz::cuda::{kernel_name, translation_unit, CudaOptions};
use tangle_fuzz::{generate, GenConfig};
use tangle_oracle::{require, Oracle, Tool};
use tangle_sass::Arch;

const ARCH: Arch = Arch::Sm86;

/// `REG` of every function `cuobjdump -res-usage` lists in `cubin`.
fn reg_counts(cuobjdump: &Oracle, cubin: &Path) -> Vec<(String, u32)> {
    let text = cuobjdump.run_ok(["-res-usage".as_ref(), cubin.as_os_str()]);
    let mut out = Vec::new();
    let mut name = None;
    for line in text.lines() {
        if let Some(rest) = line.trim().strip_prefix("Function ") {
            name = Some(rest.trim_end_matches(':').to_string());
        } else if let (Some(n), Some(at)) = (&name, line.find("REG:")) {
            let digits: String = line[at + 4..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            out.push((n.clone(), digits.parse().unwrap()));
            name = None;
        }
    }
    out
}

/// The cubin's register count of `c`.
fn our_regs(cuobjdump: &Oracle, c: &Compiled, dir: &Path, stem: &str) -> u32 {
    let path = dir.join(format!("{stem}.cubin"));
    std::fs::write(&path, c.cubin().unwrap()).unwrap();
    let counts = reg_counts(cuobjdump, &path);
    assert_eq!(counts.len(), 1, "{stem}: {counts:?}");
    counts[0].1
}

fn build(module: &tangle_ir::Module, allocator: Allocator) -> Result<Compiled, String> {
    let opts = CompileOptions {
        allocator,
        ..CompileOptions::new(ARCH)
    };
    compile(module, "main", &opts).map_err(|e| e.to_string())
}

#[test]
fn registers_against_ptxas_the_stand_in_and_the_bound() {
    let Some(cuobjdump) = require(Tool::Cuobjdump, "registers_against_ptxas") else {
        return;
    };
    let Some(nvcc) = require(Tool::Nvcc, "registers_against_ptxas") else {
        return;
    };
    let n: u64 = std::env::var("TANGLE_REG_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4);
    let verbose = std::env::var("TANGLE_REG_PROGRAMS").is_ok();
    let dir = tempfile::tempdir().unwrap();
    let programs: Vec<_> = (0..n)
        .map(|seed| {
            let config = GenConfig {
                nesting: 1 + (seed % 5) as u32,
                ..GenConfig::default()
            };
            generate(seed, config)
        })
        .collect();
    let source = translation_unit(
        programs
            .iter()
            .enumerate()
            .map(|(seed, p)| (seed as u64, p, CudaOptions::default())),
    );
    let cubin = tangle_fuzz::ptxas::nvcc::compile(&nvcc.path, &source, ARCH, dir.path(), "fuzz")
        .unwrap_or_else(|e| panic!("{e}"));
    let ptxas_path = dir.path().join("ptxas.cubin");
    std::fs::write(&ptxas_path, cubin).unwrap();
    let ptxas = reg_counts(&cuobjdump, &ptxas_path);
    let (mut ours_total, mut stand_total, mut ptxas_total, mut bound_total) = (0, 0, 0, 0);
    let (mut fewer, mut equal, mut more) = (0, 0, 0);
    if verbose {
        println!("seed  bound  ours  stand-in  ptxas");
    }
    for (seed, program) in programs.iter().enumerate() {
        let module = build_module(program);
        let ours = build(&module, Allocator::Ssa).unwrap();
        let stand = build(&module, Allocator::StandIn).unwrap();
        let stats = ours.alloc_stats.unwrap();
        // The bound in the cubin's terms: R0..R(max-live) with R1 among them, plus two.
        let bound = stats.max_live_gprs + 1 + 2;
        let o = our_regs(&cuobjdump, &ours, dir.path(), &format!("ours{seed}"));
        let s = our_regs(&cuobjdump, &stand, dir.path(), &format!("stand{seed}"));
        let name = kernel_name(seed as u64);
        let p = ptxas
            .iter()
            .find(|(f, _)| *f == name)
            .unwrap_or_else(|| panic!("{name} not in ptxas's cubin: {ptxas:?}"))
            .1;
        assert!(
            o >= bound.min(255),
            "seed {seed}: {o} registers under the bound {bound}"
        );
        if verbose {
            println!("{seed:4}  {bound:5}  {o:4}  {s:8}  {p:5}");
        }
        ours_total += o;
        stand_total += s;
        ptxas_total += p;
        bound_total += bound;
        match o.cmp(&p) {
            std::cmp::Ordering::Less => fewer += 1,
            std::cmp::Ordering::Equal => equal += 1,
            std::cmp::Ordering::Greater => more += 1,
        }
    }
    println!(
        "{n} fuzz programs on {ARCH}: registers in all: bound {bound_total}, ours {ours_total}, \
         stand-in {stand_total}, ptxas {ptxas_total}; against ptxas: {fewer} fewer, {equal} \
         equal, {more} more"
    );
    assert!(
        ours_total <= stand_total,
        "the SSA allocator uses more registers than the stand-in"
    );

    // The bundled scripts' shaders.
    let Some(_) = require(Tool::Glslang, "registers_against_ptxas (bundled shaders)") else {
        return;
    };
    let (mut shaders, mut ours_total, mut stand_total, mut bound_total) = (0, 0, 0, 0);
    for path in bundled_scripts() {
        let text = std::fs::read_to_string(&path).unwrap();
        let script = tangle_amber::parse(&text).unwrap();
        for shader in &script.shaders {
            let (kind, src) = match (&shader.format, &shader.source) {
                (
                    tangle_amber::ShaderFormat::Glsl,
                    tangle_amber::ShaderSource::Inline(t)
                    | tangle_amber::ShaderSource::VirtualFile { text: t, .. },
                ) => (tangle_run::ShaderKind::Glsl, t),
                (
                    tangle_amber::ShaderFormat::SpirvAsm,
                    tangle_amber::ShaderSource::Inline(t)
                    | tangle_amber::ShaderSource::VirtualFile { text: t, .. },
                ) => (tangle_run::ShaderKind::SpirvAsm, t),
                _ => continue,
            };
            let env = shader.target_env.as_deref().unwrap_or("spv1.3");
            let Ok(module) = tangle_run::load_shader(kind, src.as_bytes(), &shader.name, env)
            else {
                continue;
            };
            let (Ok(ours), Ok(stand)) = (
                build(&module, Allocator::Ssa),
                build(&module, Allocator::StandIn),
            ) else {
                continue;
            };
            let stem = format!("{}-{}", shaders, shader.name);
            let o = our_regs(&cuobjdump, &ours, dir.path(), &format!("o{stem}"));
            let s = our_regs(&cuobjdump, &stand, dir.path(), &format!("s{stem}"));
            let bound = ours.alloc_stats.unwrap().max_live_gprs + 3;
            if verbose {
                let file = path.file_name().unwrap().to_string_lossy();
                println!(
                    "{file} {}: bound {bound}, ours {o}, stand-in {s}",
                    shader.name
                );
            }
            shaders += 1;
            ours_total += o;
            stand_total += s;
            bound_total += bound;
        }
    }
    println!(
        "{shaders} bundled shaders on {ARCH}: registers in all: bound {bound_total}, ours \
         {ours_total}, stand-in {stand_total}"
    );
    assert!(shaders > 0);
    assert!(ours_total <= stand_total);
}

fn bundled_scripts() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut v = Vec::new();
    for dir in [
        "tests/amber",
        "tests/known-bugs",
        "examples",
        "crates/backend/tests/data",
    ] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|e| e == "amber") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}
