//! The corpus through the front end and back: every shader of `tests/shaders` (GLSL through
//! glslang, hand-written `.spvasm` through our assembler) must read into the IR and verify;
//! its IR must print, re-parse and print identically; and the module written back from the
//! IR must pass spirv-val with the same entry points, interface, execution modes,
//! decorations and control-flow structure as the original. "The same" is judged on
//! spirv-dis's text of both modules, with numeric ids blanked out. The IR passes
//! `dead-code,reverse-post-order` must keep every shader valid, by the verifier after each
//! pass and by spirv-val on the module written after them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tangle_ir::pipeline::Pipeline;
use tangle_oracle::{require, scratch_dir, Oracle, Tool};
use tangle_spirv::asm::{assemble, AsmOptions, TargetEnv};

fn shaders() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "comp" || e == "spvasm"))
        .collect();
    files.sort();
    files
}

/// The target environment a shader names in an `env: vulkan1.x` comment; vulkan1.1 otherwise.
fn env_of(src: &str) -> &str {
    src.lines()
        .take(4)
        .find_map(|l| l.split("env: ").nth(1))
        .map(str::trim)
        .unwrap_or("vulkan1.1")
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Replaces numeric ids (`%12`, and the numbers spirv-dis gives unnamed structs,
/// `%_struct_12`) by `_`, keeping friendly names (`%main`, `%uint_0`).
fn blank_ids(line: &str) -> String {
    let numeric = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit());
    line.split(' ')
        .map(|w| {
            if w.strip_prefix("%_struct_").is_some_and(numeric) {
                "%_struct_".to_string()
            } else if w.starts_with('%') && numeric(&w[1..]) {
                "%_".to_string()
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// What must survive the round trip, read off spirv-dis text.
#[derive(Debug, PartialEq, Eq)]
struct Shape {
    entry_points: Vec<String>,
    modes: Vec<String>,
    /// Decoration lines, sorted (the writer may order them differently).
    decorations: Vec<String>,
    /// Per function (by its entry in the text), the control-flow instructions in order.
    control_flow: BTreeMap<usize, Vec<String>>,
}

fn shape(dis: &str) -> Shape {
    let mut s = Shape {
        entry_points: Vec::new(),
        modes: Vec::new(),
        decorations: Vec::new(),
        control_flow: BTreeMap::new(),
    };
    let mut func = 0;
    for raw in dis.lines() {
        let line = raw.trim();
        let op = line
            .split_whitespace()
            .find(|w| w.starts_with("Op"))
            .unwrap_or("");
        let text = blank_ids(line);
        match op {
            "OpEntryPoint" => {
                // Interface order is free; compare it as a set.
                let mut words: Vec<&str> = text.split_whitespace().collect();
                let mut interface: Vec<&str> = words.split_off(4.min(words.len()));
                interface.sort();
                words.extend(interface);
                s.entry_points.push(words.join(" "));
            }
            // The maximal-reconvergence request is checked on its own below.
            "OpExecutionMode" | "OpExecutionModeId"
                if !text.contains("MaximallyReconvergesKHR") =>
            {
                s.modes.push(text)
            }
            "OpExecutionMode" | "OpExecutionModeId" => {}
            // RelaxedPrecision on instruction results is dropped by the front end on purpose
            // (docs/spirv-frontend.md); on variables and members it must survive.
            "OpDecorate" if text.starts_with("OpDecorate %_ RelaxedPrecision") => {}
            "OpDecorate" | "OpMemberDecorate" => s.decorations.push(text),
            "OpFunction" => func += 1,
            "OpLabel"
            | "OpSelectionMerge"
            | "OpLoopMerge"
            | "OpBranch"
            | "OpBranchConditional"
            | "OpSwitch"
            | "OpReturn"
            | "OpReturnValue"
            | "OpKill"
            | "OpUnreachable"
            | "OpTerminateInvocation" => {
                // Labels and targets are numeric in both; keep the opcode and operand shape.
                s.control_flow.entry(func).or_default().push(
                    text.split_whitespace()
                        .filter(|w| !w.starts_with('%'))
                        .collect::<Vec<_>>()
                        .join(" "),
                );
            }
            _ => {}
        }
    }
    // Identical types are one type in the IR (the type table interns them), so glslang's
    // duplicates (`%_runtimearr_v4float` and `%_runtimearr_v4float_0`, both `ArrayStride
    // 16`) are written once: compare decorations with spirv-dis's `_N` suffixes dropped and
    // repeats removed.
    s.decorations = s
        .decorations
        .iter()
        .map(|d| {
            d.split_whitespace()
                .map(|w| match w.rsplit_once('_') {
                    Some((base, n))
                        if w.starts_with('%') && n.bytes().all(|b| b.is_ascii_digit()) =>
                    {
                        base
                    }
                    _ => w,
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    s.decorations.sort();
    s.decorations.dedup();
    s
}

struct Tools {
    glslang: Oracle,
    val: Oracle,
    dis: Oracle,
}

/// Corpus shaders that use what the front end refuses, with the error it must give: a clean,
/// positioned refusal, never a partial read.
const REFUSED: &[(&str, &str)] = &[(
    "partitioned_int16.comp",
    "capability GroupNonUniformPartitionedEXT is not supported",
)];

#[test]
fn corpus_reads_verifies_round_trips_and_writes_back_valid_spirv() {
    let test = "corpus_reads_verifies_round_trips_and_writes_back_valid_spirv";
    let (Some(glslang), Some(val), Some(dis)) = (
        require(Tool::Glslang, test),
        require(Tool::SpirvVal, test),
        require(Tool::SpirvDis, test),
    ) else {
        return;
    };
    let tools = Tools { glslang, val, dis };
    let dir = scratch_dir();
    let files = shaders();
    assert!(files.len() >= 40, "{} corpus shaders", files.len());
    let mut failures = Vec::new();
    let mut maximal = 0;
    let (mut refused, mut round_tripped) = (0, 0);
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(path).unwrap();
        let env = env_of(&src);
        let original = dir.path().join("original.spv");
        let asks_maximal;
        if name.ends_with(".comp") {
            let (prepared, wants) = tangle_spirv::glsl::prepare_maximal_reconvergence(&src);
            asks_maximal = wants;
            let input = dir.path().join("in.comp");
            std::fs::write(&input, prepared).unwrap();
            tools.glslang.run_ok([
                "-V".as_ref(),
                "--target-env".as_ref(),
                env.as_ref(),
                input.as_os_str(),
                "-o".as_ref(),
                original.as_os_str(),
            ]);
        } else {
            asks_maximal = src.contains("MaximallyReconvergesKHR");
            let opts = AsmOptions {
                target_env: TargetEnv::from_name(env).expect("known env"),
                ..AsmOptions::default()
            };
            let words = assemble(&src, opts).unwrap_or_else(|e| panic!("{name}: {e}"));
            std::fs::write(&original, bytes(&words)).unwrap();
        }
        let read = tangle_spirv::reader::read_binary(&std::fs::read(&original).unwrap());
        let refusal = REFUSED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, why)| *why);
        let mut module = match (read, refusal) {
            (Ok(m), None) => m,
            (Err(e), Some(why)) if e.to_string().contains(why) && e.pos.is_some() => {
                refused += 1;
                continue;
            }
            (Err(e), _) => {
                failures.push(format!("{name}: read: {e}"));
                continue;
            }
            (Ok(_), Some(why)) => {
                failures.push(format!("{name}: read, but should be refused with {why:?}"));
                continue;
            }
        };
        round_tripped += 1;
        if asks_maximal {
            tangle_spirv::glslang::with_maximal_reconvergence(&mut module);
            maximal += 1;
        }
        if let Err(e) = tangle_ir::verify::verify(&module) {
            failures.push(format!("{name}: verify:\n{e}"));
            continue;
        }
        let printed = tangle_ir::text::print(&module);
        match tangle_ir::text::parse(&printed) {
            Ok(again) if tangle_ir::text::print(&again) == printed => {}
            Ok(_) => failures.push(format!("{name}: print -> parse -> print differs")),
            Err(e) => failures.push(format!("{name}: printed IR does not parse: {e}")),
        }
        let written = dir.path().join("written.spv");
        std::fs::write(
            &written,
            bytes(&tangle_spirv::writer::write(&module).expect("the corpus writes")),
        )
        .unwrap();
        let v = tools
            .val
            .run(["--target-env".as_ref(), env.as_ref(), written.as_os_str()]);
        if !v.status.success() {
            failures.push(format!(
                "{name}: spirv-val rejects the written module: {}",
                String::from_utf8_lossy(&v.stderr)
            ));
            continue;
        }
        let before = shape(&tools.dis.run_ok([original.as_os_str()]));
        let after_text = tools.dis.run_ok([written.as_os_str()]);
        let after = shape(&after_text);
        for (what, a, b) in [
            (
                "entry points",
                format!("{:?}", before.entry_points),
                format!("{:?}", after.entry_points),
            ),
            (
                "execution modes",
                format!("{:?}", before.modes),
                format!("{:?}", after.modes),
            ),
            (
                "decorations",
                format!("{:#?}", before.decorations),
                format!("{:#?}", after.decorations),
            ),
            (
                "control flow",
                format!("{:?}", before.control_flow),
                format!("{:?}", after.control_flow),
            ),
        ] {
            if a != b {
                failures.push(format!(
                    "{name}: {what} differ:\n  original: {a}\n  written:  {b}"
                ));
            }
        }
        let has_mode = after_text
            .lines()
            .any(|l| l.contains("OpExecutionMode") && l.contains("MaximallyReconvergesKHR"))
            && after_text.contains("OpExtension \"SPV_KHR_maximal_reconvergence\"");
        if has_mode != asks_maximal {
            failures.push(format!(
                "{name}: maximal reconvergence asked {asks_maximal}, written {has_mode}"
            ));
        }
        // The passes keep a real shader valid: the verifier runs after each one, and
        // spirv-val judges the module written after them.
        let mut passed = module.clone();
        let mut pipeline = Pipeline::parse("dead-code,reverse-post-order").unwrap();
        pipeline.verify_each = true;
        if let Err(e) = pipeline.run(&mut passed, |_, _, _| {}) {
            failures.push(format!("{name}: passes: {e}"));
            continue;
        }
        let after_passes = dir.path().join("passes.spv");
        let words = tangle_spirv::writer::write(&passed).expect("a structured module writes");
        std::fs::write(&after_passes, bytes(&words)).unwrap();
        let v = tools.val.run([
            "--target-env".as_ref(),
            env.as_ref(),
            after_passes.as_os_str(),
        ]);
        if !v.status.success() {
            failures.push(format!(
                "{name}: spirv-val rejects the module after dead-code,reverse-post-order: {}",
                String::from_utf8_lossy(&v.stderr)
            ));
        }
    }
    assert!(
        maximal >= 5,
        "only {maximal} shaders ask for maximal reconvergence"
    );
    assert_eq!(refused, REFUSED.len());
    assert!(
        round_tripped >= 40,
        "only {round_tripped} shaders went through"
    );
    eprintln!("corpus: {round_tripped} shaders round-tripped, {refused} refused as expected");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
