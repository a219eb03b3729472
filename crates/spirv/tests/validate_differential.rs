//! Differential comparison of `tangle validate` (the reader, then the verifier) with
//! spirv-val on word-mutated corpus shaders.
//!
//! The seeds are the corpus shaders (`tests/shaders`): the `.spvasm` ones assembled by
//! tangle's assembler, the GLSL ones compiled by glslang when it is available, each for the
//! environment its header names (`env: ...`, default vulkan1.1); spirv-val checks mutants for
//! the same environment. Each mutant changes one or two words after the header (plus or minus
//! one, a small number, or the low half of a word: ids, counts, enumerants and literals).
//!
//! Required:
//! - every module spirv-val rejects, tangle rejects too (the reader or the verifier), unless
//!   spirv-val's message is on [`NOT_CHECKED`], the rules tangle deliberately does not check;
//! - every module spirv-val accepts and tangle's *verifier* rejects is on [`STRICTER`], the
//!   rules tangle deliberately adds. Modules the *reader* refuses (features tangle does not
//!   read, `docs/spirv-frontend.md`) are counted and printed, not failed.
//!
//! `TANGLE_VALIDATE_MUTANTS` sets the number of mutants (default 1,500: about 20 s);
//! `TANGLE_VALIDATE_DUMP=<dir>` writes each disagreement's first example there, and the first
//! example of each read refusal.

use std::collections::BTreeMap;
use std::path::Path;

use tangle_oracle::{require, scratch_dir, Tool};
use tangle_spirv::{assemble, AsmOptions, TargetEnv};

/// spirv-val messages for rules tangle does not check, each with the reason.
const NOT_CHECKED: &[(&str, &str)] = &[(
    "LocalSizeId mode is not allowed by the current environment",
    "an environment choice (Vulkan 1.3 or maintenance4): tangle reads and runs LocalSizeId \
     in any SPIR-V 1.2+ module and does not model Vulkan feature enables",
)];

/// Messages of tangle's verifier for rules spirv-val does not check, each with the reason.
const STRICTER: &[(&str, &str)] = &[
    (
        "LocalSize components must be at least 1",
        "a Vulkan pipeline rule: a workgroup with no invocations cannot be dispatched",
    ),
    (
        "group_quad_swap: the direction must be a constant 0, 1 or 2",
        "SPIR-V defines the directions 0 (horizontal), 1 (vertical) and 2 (diagonal) only; \
         the interpreter could not give another one a meaning",
    ),
    (
        "does not take 2 operands",
        "a cluster size operand on a group operation other than clustered_reduce: SPIR-V \
         gives it no meaning, tangle's IR has no place for it",
    ),
    (
        "the cluster size must be a constant power of two",
        "SPIR-V makes executing any other cluster size undefined; tangle's interpreter cannot \
         give it a meaning, so the verifier refuses it statically",
    ),
];

fn env_of(src: &str) -> &str {
    src.lines()
        .take(4)
        .find_map(|l| l.split("env: ").nth(1))
        .map(str::trim)
        .unwrap_or("vulkan1.1")
}

/// The corpus shaders as (name, environment, words); GLSL ones only when glslang is found.
fn seeds() -> Vec<(String, String, Vec<u32>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    let glslang = tangle_spirv::glslang::find_glslang().is_ok();
    if !glslang {
        eprintln!("validate_differential: glslang not found, using the .spvasm seeds only");
    }
    let mut out = Vec::new();
    for p in paths {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(&p).unwrap();
        let env = env_of(&src).to_string();
        let words = if name.ends_with(".spvasm") {
            let opts = AsmOptions::for_env(TargetEnv::from_name(&env).expect("known env"));
            assemble(&src, opts).unwrap_or_else(|e| panic!("{name}: {e}"))
        } else if name.ends_with(".comp") && glslang {
            let c = tangle_spirv::glslang::compile(&src, &name, &env)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            c.spirv
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect()
        } else {
            continue;
        };
        out.push((name, env, words));
    }
    out
}

fn mutate(rng: &mut fastrand::Rng, words: &mut [u32]) {
    for _ in 0..1 + rng.usize(..2) {
        let i = 5 + rng.usize(..words.len() - 5);
        words[i] = match rng.usize(..4) {
            0 => words[i].wrapping_add(1),
            1 => words[i].wrapping_sub(1),
            2 => rng.u32(..16),
            _ => (words[i] & 0xffff_0000) | rng.u32(..400),
        };
    }
}

/// What tangle makes of a module.
enum Tangle {
    Valid,
    /// The verifier's first error.
    Invalid(String),
    /// The reader's error.
    Unreadable(String),
}

fn tangle(words: &[u32]) -> Tangle {
    match tangle_spirv::reader::read_words(words) {
        Err(e) => Tangle::Unreadable(e.to_string()),
        Ok(m) => match tangle_ir::verify::verify(&m) {
            Ok(()) => Tangle::Valid,
            Err(errors) => Tangle::Invalid(errors.0[0].to_string()),
        },
    }
}

/// The first line of a message with numbers and quoted names blanked, to group messages.
fn shape(message: &str) -> String {
    let line = message.lines().next().unwrap_or("");
    let mut out = String::new();
    let mut quoted = false;
    for c in line.chars() {
        if c == '\'' {
            quoted = !quoted;
            out.push('#');
        } else if !quoted {
            out.push(if c.is_ascii_digit() { '#' } else { c });
        }
    }
    out.chars().take(110).collect()
}

#[test]
fn tangle_rejects_what_spirv_val_rejects_on_mutated_shaders() {
    let test = "tangle_rejects_what_spirv_val_rejects_on_mutated_shaders";
    let Some(spirv_val) = require(Tool::SpirvVal, test) else {
        return;
    };
    let count: usize = std::env::var("TANGLE_VALIDATE_MUTANTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500);
    let dir = scratch_dir();
    let path = dir.path().join("m.spv");
    let validate = |env: &str, words: &[u32]| {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        let out = spirv_val.run(["--target-env".as_ref(), env.as_ref(), path.as_os_str()]);
        let mut message = String::from_utf8_lossy(&out.stderr).into_owned();
        message.push_str(&String::from_utf8_lossy(&out.stdout));
        (out.status.success(), message)
    };
    // Seeds both tools accept; the others would only test the refusal itself.
    let seeds: Vec<_> = seeds()
        .into_iter()
        .filter(|(name, env, words)| {
            let (ok, message) = validate(env, words);
            assert!(ok, "{name}: spirv-val rejects the seed: {message}");
            match tangle(words) {
                Tangle::Valid => true,
                Tangle::Unreadable(_) => false,
                Tangle::Invalid(e) => panic!("{name}: tangle rejects the seed: {e}"),
            }
        })
        .collect();
    assert!(seeds.len() >= 20, "{} seeds", seeds.len());
    let mut rng = fastrand::Rng::with_seed(0x005e_ed0f_d1ff);
    // (spirv-val accepts, tangle's outcome) -> count.
    let mut matrix: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut failures: BTreeMap<String, String> = BTreeMap::new();
    let mut refusals: BTreeMap<String, usize> = BTreeMap::new();
    let mut allowed: BTreeMap<&str, usize> = BTreeMap::new();
    let dump = std::env::var_os("TANGLE_VALIDATE_DUMP").map(std::path::PathBuf::from);
    for round in 0..count {
        let (name, env, seed) = &seeds[rng.usize(..seeds.len())];
        let mut words = seed.clone();
        mutate(&mut rng, &mut words);
        let (val_ok, val_message) = validate(env, &words);
        let ours = tangle(&words);
        let key = (
            if val_ok { "val-ok" } else { "val-err" },
            match &ours {
                Tangle::Valid => "t-ok",
                Tangle::Invalid(_) => "t-invalid",
                Tangle::Unreadable(_) => "t-unreadable",
            },
        );
        *matrix.entry(key).or_default() += 1;
        let before = failures.len();
        match (val_ok, &ours) {
            (false, Tangle::Valid) => {
                match NOT_CHECKED.iter().find(|(m, _)| val_message.contains(m)) {
                    Some((m, _)) => *allowed.entry(m).or_default() += 1,
                    None => {
                        failures
                            .entry(format!(
                                "spirv-val rejects, tangle accepts: {}",
                                shape(&val_message)
                            ))
                            .or_insert_with(|| {
                                format!("{name} mutant {round}: {}", val_message.trim())
                            });
                    }
                }
            }
            (true, Tangle::Invalid(e)) => match STRICTER.iter().find(|(m, _)| e.contains(m)) {
                Some((m, _)) => *allowed.entry(m).or_default() += 1,
                None => {
                    failures
                        .entry(format!(
                            "spirv-val accepts, tangle's verifier rejects: {}",
                            shape(e)
                        ))
                        .or_insert_with(|| format!("{name} mutant {round}: {e}"));
                }
            },
            (true, Tangle::Unreadable(e)) => {
                let what = e.split_once(": ").map_or(e.as_str(), |(_, w)| w);
                let n = refusals.entry(shape(what)).or_default();
                *n += 1;
                if let (Some(dir), 1) = (&dump, *n) {
                    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                    std::fs::write(dir.join(format!("refused_{round}.spv")), bytes).unwrap();
                }
            }
            _ => {}
        }
        if let (Some(dir), true) = (&dump, failures.len() != before) {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(dir.join(format!("mutant_{round}.spv")), bytes).unwrap();
        }
    }
    eprintln!(
        "validate_differential: {count} mutants of {} seeds",
        seeds.len()
    );
    for ((val, ours), n) in &matrix {
        eprintln!("  {val:8} {ours:13} {n}");
    }
    for (m, n) in &allowed {
        eprintln!("  allowed ({n}): {m}");
    }
    for (m, n) in &refusals {
        eprintln!("  read refusal of a module spirv-val accepts ({n}): {m}");
    }
    let report: Vec<String> = failures
        .iter()
        .map(|(k, example)| format!("{k}\n    e.g. {example}"))
        .collect();
    assert!(report.is_empty(), "{}", report.join("\n"));
}
