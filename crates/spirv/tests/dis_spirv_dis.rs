//! The disassembler (`tangle_spirv::dis`) against spirv-dis: on every SPIR-V assembly shader
//! of the conformance corpus, the GLSL shaders of `tests/shaders` through glslang, and a
//! module of literals of every numeric width (subnormals, infinities, negative zero), the
//! text equals `spirv-dis --raw-id` (also with `--no-header --no-indent`), and it assembles
//! back to the same words.

use std::path::{Path, PathBuf};

use tangle_oracle::{require, scratch_dir, Oracle, Tool};
use tangle_spirv::dis::{disassemble, DisOptions};
use tangle_spirv::{assemble, AsmOptions, TargetEnv};

const LITERALS: &str = r#"OpCapability Shader
OpCapability Float16
OpCapability Int16
OpCapability Int64
OpCapability Float64
OpCapability Int8
%glsl = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 8 4 1
%str = OpString "a\"b\\c"
OpName %main "main"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%half = OpTypeFloat 16
%h1 = OpConstant %half 0.1
%h2 = OpConstant %half 0x1p+16
%h3 = OpConstant %half -0x1.8p+16
%h4 = OpConstant %half 65504
%h5 = OpConstant %half -0
%h6 = OpConstant %half 0x1p-20
%float = OpTypeFloat 32
%f1 = OpConstant %float 1e-7
%f2 = OpConstant %float 123456789
%f3 = OpConstant %float 0x1p+128
%f4 = OpConstant %float 1e-45
%f5 = OpConstant %float 100000
%f6 = OpConstant %float -0
%f7 = OpConstant %float 0.0001
%f8 = OpConstant %float 0.00001
%f9 = OpConstant %float 0x1.8p+128
%double = OpTypeFloat 64
%d1 = OpConstant %double 0.1
%d2 = OpConstant %double -0x1p+1024
%d3 = OpConstant %double 1e300
%d4 = OpConstant %double 4.9e-324
%s16 = OpTypeInt 16 1
%i1 = OpConstant %s16 -3
%u16 = OpTypeInt 16 0
%i2 = OpConstant %u16 65535
%s64 = OpTypeInt 64 1
%i3 = OpConstant %s64 -9000000000
%u64 = OpTypeInt 64 0
%i4 = OpConstant %u64 18446744073709551615
%s8 = OpTypeInt 8 1
%i5 = OpConstant %s8 -128
%int = OpTypeInt 32 1
%k = OpSpecConstant %int -5
%k2 = OpSpecConstantOp %int IAdd %k %k
%main = OpFunction %void None %fn
%e = OpLabel
%x = OpExtInst %float %glsl FMax %f1 %f2
OpSelectionMerge %m None
OpSwitch %k %m -1 %a 7 %b
%a = OpLabel
OpBranch %m
%b = OpLabel
OpBranch %m
%m = OpLabel
OpReturn
OpFunctionEnd
"#;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The SPIR-V assembly shaders of the conformance scripts, with their target environments.
fn conformance_asm() -> Vec<(String, String, String)> {
    let dir = repo().join("../shared/conformance/amber");
    let mut files = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "amber") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            let words: Vec<&str> = line.split_whitespace().collect();
            if words.len() >= 4 && words[0] == "SHADER" && words[3] == "SPIRV-ASM" {
                let env = words
                    .iter()
                    .position(|w| *w == "TARGET_ENV")
                    .and_then(|i| words.get(i + 1))
                    .map_or("spv1.0", |w| w)
                    .to_string();
                let body: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "END").collect();
                out.push((
                    format!("{}:{}", file.display(), words[2]),
                    env,
                    body.join("\n") + "\n",
                ));
            }
        }
    }
    out
}

fn write_module(dir: &Path, name: &str, words: &[u32]) -> PathBuf {
    let path = dir.join(name);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Compares with spirv-dis and checks the round trip; returns a description on failure.
fn first_difference(ours: &str, theirs: &str) -> String {
    ours.lines()
        .zip(theirs.lines())
        .find(|(a, b)| a != b)
        .map(|(a, b)| format!("ours   `{a}`\nspirv-dis `{b}`"))
        .unwrap_or_else(|| "line counts differ".into())
}

fn check(dis: &Oracle, dir: &Path, name: &str, words: &[u32], env: TargetEnv) -> Option<String> {
    let path = write_module(dir, "m.spv", words);
    let raw = DisOptions {
        raw_ids: true,
        ..DisOptions::default()
    };
    let ours = disassemble(words, raw).ok()?;
    let theirs = dis.run_ok([path.as_os_str(), "--raw-id".as_ref()]);
    if ours != theirs {
        return Some(format!(
            "{name} (--raw-id):\n{}",
            first_difference(&ours, &theirs)
        ));
    }
    let friendly = disassemble(words, DisOptions::default()).unwrap();
    let theirs_friendly = dis.run_ok([path.as_os_str()]);
    if friendly != theirs_friendly {
        return Some(format!(
            "{name} (friendly names):\n{}",
            first_difference(&friendly, &theirs_friendly)
        ));
    }
    // Names stand for ids one to one: the assembler numbers both texts alike.
    let (a, b) = (
        assemble(&friendly, AsmOptions::for_env(env)),
        assemble(&ours, AsmOptions::for_env(env)),
    );
    if a.is_err() || a.ok() != b.ok() {
        return Some(format!(
            "{name}: the friendly text assembles to other words"
        ));
    }
    let bare = disassemble(
        words,
        DisOptions {
            header: false,
            indent: false,
            raw_ids: true,
        },
    )
    .unwrap();
    let theirs_bare = dis.run_ok([
        path.as_os_str(),
        "--raw-id".as_ref(),
        "--no-header".as_ref(),
        "--no-indent".as_ref(),
    ]);
    if bare != theirs_bare {
        return Some(format!("{name}: --no-header --no-indent differs"));
    }
    // Raw ids name themselves: assembled with them kept, the words come back whole (the
    // bound too; the generator word is the assembler's).
    let keep_ids = AsmOptions {
        preserve_numeric_ids: true,
        ..AsmOptions::for_env(env)
    };
    match assemble(&ours, keep_ids) {
        Ok(back) if back[3..] == words[3..] && back[..2] == words[..2] => None,
        Ok(_) => Some(format!("{name}: the text assembles to other words")),
        Err(e) => Some(format!("{name}: the text does not assemble: {e}")),
    }
}

#[test]
fn literals_of_every_width_print_as_spirv_dis_prints_them() {
    let Some(dis) = require(Tool::SpirvDis, "dis_literals") else {
        return;
    };
    let dir = scratch_dir();
    let words = assemble(LITERALS, AsmOptions::for_env(TargetEnv::Universal(3))).unwrap();
    if let Some(failure) = check(
        &dis,
        dir.path(),
        "literals",
        &words,
        TargetEnv::Universal(3),
    ) {
        panic!("{failure}");
    }
}

#[test]
fn the_conformance_corpus_disassembles_as_spirv_dis_does() {
    let Some(dis) = require(Tool::SpirvDis, "dis_conformance") else {
        return;
    };
    let dir = scratch_dir();
    let mut compared = 0;
    let mut failures = Vec::new();
    for (name, env, text) in conformance_asm() {
        let Some(env) = TargetEnv::from_name(&env) else {
            continue;
        };
        // Scripts that spirv-as refuses on purpose are not modules.
        let Ok(words) = assemble(&text, AsmOptions::for_env(env)) else {
            continue;
        };
        compared += 1;
        failures.extend(check(&dis, dir.path(), &name, &words, env));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let corpus = repo().join("../shared/conformance/amber");
    assert!(
        !corpus.exists() || compared >= 80,
        "only {compared} modules compared"
    );
}

#[test]
fn glslang_output_disassembles_as_spirv_dis_does() {
    let (Some(dis), Some(_)) = (
        require(Tool::SpirvDis, "dis_glslang"),
        require(Tool::Glslang, "dis_glslang"),
    ) else {
        return;
    };
    let dir = scratch_dir();
    let shaders = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&shaders)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "comp"))
        .collect();
    paths.sort();
    let mut failures = Vec::new();
    for path in &paths {
        let source = std::fs::read_to_string(path).unwrap();
        let compiled = tangle_spirv::glslang::compile_with_lines(
            &source,
            &path.display().to_string(),
            "vulkan1.1",
            true,
        )
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let words: Vec<u32> = compiled
            .spirv
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let name = path.display().to_string();
        failures.extend(check(
            &dis,
            dir.path(),
            &name,
            &words,
            TargetEnv::from_name("vulkan1.1").unwrap(),
        ));
    }
    assert!(paths.len() >= 30, "only {} shaders", paths.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn words_that_are_not_a_module_are_refused() {
    assert!(disassemble(&[0x0723_0203, 0x0001_0300], DisOptions::default()).is_err());
    assert!(disassemble(&[1, 2, 3, 4, 5], DisOptions::default()).is_err());
    // An instruction whose word count runs past the end.
    let truncated = [0x0723_0203, 0x0001_0300, 0, 8, 0, 0x0005_0011];
    assert!(disassemble(&truncated, DisOptions::default()).is_err());
}

/// Names that need sanitising or clash with each other and with type names, and the
/// constants and types that keep their numbers.
const NAMES: &str = r#"OpCapability Shader
OpCapability Float64
OpCapability Int64
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpName %a "a.b"
OpName %b "a-b"
OpName %c "9x"
OpName %d "foo(vf4;"
OpName %e "uint"
OpName %f "a.b"
OpName %g "é"
OpName %h ""
OpDecorate %wg BuiltIn WorkgroupSize
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%a = OpConstant %uint 1
%b = OpConstant %uint 2
%c = OpConstant %uint 3
%d = OpConstant %uint 4
%e = OpConstant %uint 5
%f = OpConstant %uint 6
%g = OpConstant %uint 7
%h = OpConstant %uint 8
%u2 = OpConstant %uint 6
%bool = OpTypeBool
%t = OpConstantTrue %bool
%t2 = OpConstantTrue %bool
%fa = OpConstantFalse %bool
%v2 = OpTypeVector %uint 2
%v3 = OpTypeVector %uint 3
%wg = OpConstantComposite %v3 %a %a %a
%m = OpTypeFloat 32
%v4 = OpTypeVector %m 4
%mat = OpTypeMatrix %v4 3
%cc = OpConstantComposite %v2 %a %b
%nul = OpConstantNull %uint
%st = OpTypeStruct %uint %m
%pst = OpTypePointer Private %st
%fnp = OpTypeFunction %uint %uint
%ra = OpTypeRuntimeArray %v4
%arr = OpTypeArray %mat %b
%parr = OpTypePointer Workgroup %arr
%ui64 = OpTypeInt 64 0
%i7 = OpTypeInt 32 1
%sct = OpSpecConstantTrue %bool
%sc = OpSpecConstant %uint 9
%scc = OpSpecConstantComposite %v2 %sc %sc
%dbl = OpTypeFloat 64
%cd = OpConstant %dbl -2.5
%cm = OpConstant %m -0
%main = OpFunction %void None %fn
%lab = OpLabel
OpReturn
OpFunctionEnd
"#;

#[test]
fn friendly_names_are_made_as_spirv_dis_makes_them() {
    let Some(dis) = require(Tool::SpirvDis, "dis_names") else {
        return;
    };
    let dir = scratch_dir();
    let words = assemble(NAMES, AsmOptions::for_env(TargetEnv::Universal(3))).unwrap();
    if let Some(failure) = check(&dis, dir.path(), "names", &words, TargetEnv::Universal(3)) {
        panic!("{failure}");
    }
}
