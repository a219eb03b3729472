//! What the back end emits, checked by tools nobody here wrote and by the hazard checker:
//! nvdisasm accepts every word (control codes included) of the bundled example and of fuzz
//! programs on every SM and prints exactly our text; and the simulator's hazard mode, clean
//! on the emitted code, flags the same code with its stalls cut short or its scoreboard
//! waits dropped (so the clean result means something).

mod common;

use tangle_fuzz::ast::INPUT;
use tangle_fuzz::build::build_module;
use tangle_fuzz::mask::simulate as mask_words;
use tangle_fuzz::{generate, GenConfig};
use tangle_ir::Module;
use tangle_oracle::Tool;
use tangle_reconverge::Scheme;
use tangle_run::ShaderKind;
use tangle_sass::{normalize, Arch};
use tangle_sched::Policy;

fn example() -> Module {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/loop_break.spvasm");
    let bytes = std::fs::read(&path).unwrap();
    tangle_run::load_shader(ShaderKind::SpirvAsm, &bytes, "loop_break", "vulkan1.1").unwrap()
}

fn modules() -> Vec<(String, Module)> {
    let mut v = vec![("loop_break".to_string(), example())];
    for seed in 0..6 {
        let config = GenConfig {
            nesting: 1 + seed as u32 % 4,
            ..GenConfig::default()
        };
        v.push((
            format!("fuzz seed {seed}"),
            build_module(&generate(seed, config)),
        ));
    }
    v
}

/// The widened selection's scripts (`tests/data/wide/`: 64-bit, narrow and f64 code), their
/// GLSL shaders compiled through glslang (SPIR-V assembly read as it is); none when glslang
/// is missing.
fn wide_modules() -> Vec<(String, Module)> {
    if tangle_oracle::require(Tool::Glslang, "nvdisasm_prints_our_wide_text").is_none() {
        return Vec::new();
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/wide");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "amber"))
        .collect();
    paths.sort();
    let mut v = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let script = tangle_amber::parse(&text).unwrap();
        for shader in &script.shaders {
            let tangle_amber::ShaderSource::Inline(source) = &shader.source else {
                panic!("{}: the wide scripts' shaders are inline", path.display())
            };
            let kind = match shader.format {
                tangle_amber::ShaderFormat::SpirvAsm => ShaderKind::SpirvAsm,
                _ => ShaderKind::Glsl,
            };
            let m = tangle_run::load_shader(kind, source.as_bytes(), &shader.name, "vulkan1.1")
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            v.push((format!("{} {}", path.display(), shader.name), m));
        }
    }
    v
}

#[test]
fn nvdisasm_accepts_the_code_and_prints_our_text() {
    let Some(nvdisasm) = tangle_oracle::require(Tool::Nvdisasm, "nvdisasm_prints_our_text") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut modules = modules();
    modules.extend(wide_modules());
    for arch in Arch::ALL {
        let mut words = Vec::new();
        let mut texts = Vec::new();
        for (name, m) in &modules {
            // The wide scripts read up to 32 bytes of push constants.
            let c = if name.contains("wide") {
                common::build_with_push(m, arch, 32)
            } else {
                common::build(m, arch, Scheme::Scopes)
            };
            // Each kernel's code placed after the previous one: its words are unchanged
            // (branch targets are relative) and print with absolute targets at their address
            // in the combined file, as nvdisasm prints them.
            for w in &c.code.words {
                let addr = 16 * words.len() as u64;
                let i = tangle_sass::decode_typed(arch, *w, addr)
                    .unwrap_or_else(|e| panic!("{arch}: our own word does not decode: {e}"));
                assert_eq!(i.encode(arch, addr).unwrap(), *w);
                texts.push(normalize(&i.text(arch, addr).unwrap()).to_string());
                words.push(*w);
            }
        }
        let path = dir.path().join(format!("code_{}.bin", arch.number()));
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        let out = nvdisasm.run_ok([
            "-b".as_ref(),
            arch.nvdisasm_name().as_ref(),
            path.as_os_str(),
        ]);
        let mut theirs = vec![String::new(); words.len()];
        for line in out.lines() {
            let l = line.trim_start();
            let Some(rest) = l.strip_prefix("/*") else {
                continue;
            };
            let Some((addr, inst)) = rest.split_once("*/") else {
                continue;
            };
            let Ok(addr) = u64::from_str_radix(addr, 16) else {
                continue;
            };
            theirs[(addr / 16) as usize] = normalize(inst).to_string();
        }
        let mut differ = Vec::new();
        for (k, (t, o)) in theirs.iter().zip(&texts).enumerate() {
            if t != o {
                differ.push(format!("{k}: nvdisasm `{t}`, tangle `{o}`"));
            }
        }
        assert!(
            differ.is_empty(),
            "{arch}: {} differ:\n{}",
            differ.len(),
            differ.join("\n")
        );
        println!(
            "{arch}: {} instructions printed as nvdisasm prints them",
            words.len()
        );
    }
}

#[test]
fn hazard_mode_is_clean_on_our_code_and_flags_it_cut_short() {
    let program = generate(3, GenConfig::default());
    let module = build_module(&program);
    let words = mask_words(&program, 32).words.len();
    let input: Vec<u8> = INPUT.iter().flat_map(|w| w.to_le_bytes()).collect();
    let buffers = [vec![0; words.max(1) * 4], input];
    for arch in Arch::ALL {
        let c = common::build(&module, arch, Scheme::Scopes);
        let out = common::simulate(&c, &buffers, Policy::RoundRobin).unwrap();
        assert_eq!(out.hazards_total, 0, "{arch}: {:?}", out.hazards.first());
        for (what, cut) in [("stalls cut to 1", 0), ("scoreboard waits dropped", 1)] {
            let mut bad = c.clone();
            for i in &mut bad.code.insts {
                if cut == 0 {
                    i.control.stall = 1;
                    i.control.yield_bit = true;
                } else {
                    i.control.wait = 0;
                }
            }
            bad.code.words = bad
                .code
                .insts
                .iter()
                .enumerate()
                .map(|(k, i)| i.encode(arch, 16 * k as u64).unwrap())
                .collect();
            let out = common::simulate(&bad, &buffers, Policy::RoundRobin);
            let flagged = out.map(|o| o.hazards_total).unwrap_or(0);
            assert!(flagged > 0, "{arch}: {what}: no hazard reported");
        }
    }
}

#[test]
fn cuobjdump_accepts_our_cubins_and_lists_our_instructions() {
    let Some(cuobjdump) = tangle_oracle::require(Tool::Cuobjdump, "cuobjdump_accepts_our_cubins")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for arch in Arch::ALL {
        for (name, m) in modules() {
            let c = common::build(&m, arch, Scheme::Scopes);
            let path = dir.path().join(format!("k{}.cubin", arch.number()));
            std::fs::write(&path, c.cubin().unwrap()).unwrap();
            let sass = cuobjdump.run_ok(["-sass".as_ref(), path.as_os_str()]);
            let listed = sass
                .lines()
                .filter(|l| l.trim_start().starts_with("/*") && l.contains(";"))
                .count();
            // cuobjdump pads the code with NOPs to a multiple of 128 bytes, as ptxas does.
            assert!(
                listed >= c.code.words.len(),
                "{arch} {name}: cuobjdump lists {listed} of {} instructions",
                c.code.words.len()
            );
            let usage = cuobjdump.run_ok(["-res-usage".as_ref(), path.as_os_str()]);
            let stack = c.local_bytes.div_ceil(8) * 8;
            assert!(
                usage.contains(&format!("STACK:{stack} ")),
                "{arch} {name}: local frame {stack}, cuobjdump says {usage}"
            );
        }
    }
}
