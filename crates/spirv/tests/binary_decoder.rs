//! The reader's direct instruction decoder (`reader/decode.rs`) against rspirv's binary
//! parser, which it replaces in the common case: on every SPIR-V module of the repository
//! (assembly files, the IR filetests written as SPIR-V, the assembly and GLSL shaders of the
//! AmberScript files), of the conformance corpus and of the performance set, on mutated
//! copies of them and on random instruction streams, a module the decoder accepts is one
//! rspirv's parser accepts, with the same instructions (grammar entry, result type and id,
//! every operand). What the decoder declines goes to rspirv's parser, which then decides
//! the instructions or the error. On the corpus it may decline only a few modules (image
//! operands, `OpSpecConstantOp`) and none of the performance set.

use std::path::{Path, PathBuf};

use tangle_oracle::{require, Tool};
use tangle_spirv::reader::fuzz::{compare_decoders, DecoderOutcome};
use tangle_spirv::{assemble, AsmOptions, TargetEnv};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file under `dir` with extension `ext`, sorted; build and tool folders skipped.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name();
            if p.is_dir() {
                if !matches!(name.to_str(), Some("target" | ".git" | ".oracles")) {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A shader of an AmberScript file: its name, language, target environment and text.
struct AmberShader {
    name: String,
    glsl: bool,
    env: Option<String>,
    text: String,
}

fn amber_shaders(file: &Path) -> Vec<AmberShader> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() >= 4 && words[0] == "SHADER" && matches!(words[3], "SPIRV-ASM" | "GLSL") {
            let env = words
                .iter()
                .position(|w| *w == "TARGET_ENV")
                .and_then(|i| words.get(i + 1))
                .map(|w| w.to_string());
            let body: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "END").collect();
            out.push(AmberShader {
                name: format!("{}:{}", file.display(), words[2]),
                glsl: words[3] == "GLSL",
                env,
                text: body.join("\n") + "\n",
            });
        }
    }
    out
}

fn le_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Assembly in the first environment that takes it (the files do not say theirs).
fn assemble_any(text: &str, env: Option<&str>) -> Option<Vec<u32>> {
    let envs: Vec<&str> = match env {
        Some(e) => vec![e],
        None => vec![
            "spv1.0",
            "vulkan1.1",
            "vulkan1.1spv1.4",
            "vulkan1.3",
            "spv1.6",
        ],
    };
    envs.into_iter()
        .filter_map(TargetEnv::from_name)
        .find_map(|e| assemble(text, AsmOptions::for_env(e)).ok())
}

/// The modules of the repository, the conformance corpus and the performance set (built
/// once for the tests of this file).
fn corpus() -> &'static [(String, Vec<u32>)] {
    static CORPUS: std::sync::OnceLock<Vec<(String, Vec<u32>)>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(build_corpus)
}

fn build_corpus() -> Vec<(String, Vec<u32>)> {
    let mut out = Vec::new();
    for p in files(&repo().join("crates/ir/tests/filetests"), "tir") {
        let Ok(m) = tangle_ir::text::parse(&std::fs::read_to_string(&p).unwrap()) else {
            continue;
        };
        if tangle_ir::verify::verify(&m).is_ok() {
            if let Ok(words) = tangle_spirv::writer::write(&m) {
                out.push((p.display().to_string(), words));
            }
        }
    }
    for p in files(&repo(), "spvasm") {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        if let Some(words) = assemble_any(&text, None) {
            out.push((p.display().to_string(), words));
        }
    }
    let glslang = require(Tool::Glslang, "binary_decoder");
    let mut glsl = Vec::new();
    for p in files(&repo(), "comp") {
        glsl.push((
            p.display().to_string(),
            "vulkan1.1".to_string(),
            std::fs::read_to_string(&p).unwrap_or_default(),
        ));
    }
    let shared = repo().join("../shared");
    let scripts = [
        files(&repo(), "amber"),
        files(&shared.join("conformance/amber"), "amber"),
        files(&shared.join("perf/cts-n4-sg32"), "amber"),
    ];
    for file in scripts.iter().flatten() {
        for s in amber_shaders(file) {
            if s.glsl {
                let env = s.env.unwrap_or_else(|| "vulkan1.1".into());
                glsl.push((s.name, env, s.text));
            } else if let Some(words) = assemble_any(&s.text, s.env.as_deref()) {
                out.push((s.name, words));
            }
        }
    }
    if glslang.is_some() {
        for (name, env, source) in glsl {
            // Scripts that glslang refuses on purpose are not modules.
            if let Ok(c) = tangle_spirv::glslang::compile_with_lines(&source, &name, &env, true) {
                out.push((name, le_words(&c.spirv)));
            }
        }
    }
    out
}

fn check(name: &str, words: &[u32]) -> DecoderOutcome {
    compare_decoders(&bytes_of(words)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn the_decoder_reads_every_corpus_module_as_rspirv_does() {
    let corpus = corpus();
    let mut declined = Vec::new();
    for (name, words) in corpus {
        match check(name, words) {
            DecoderOutcome::Decoded => {}
            other => declined.push(format!("{name}: {other:?}")),
        }
    }
    // What it declines on the corpus: `OpSpecConstantOp` and image operands (images are
    // refused by the reader anyway), under 2%; none of the performance set.
    assert!(
        !declined.iter().any(|d| d.contains("perf/cts-n4-sg32")),
        "{declined:?}"
    );
    assert!(
        declined.len() * 50 <= corpus.len(),
        "the decoder declines more than 2% of the corpus ({} of {}):\n{}",
        declined.len(),
        corpus.len(),
        declined.join("\n")
    );
    let shared = repo().join("../shared/conformance/amber");
    assert!(
        corpus.len() >= 150 + if shared.exists() { 300 } else { 0 },
        "only {} modules",
        corpus.len()
    );
}

/// Every operand form the decoder reads itself, in one module: 64-bit literals (constants
/// and the cases of a switch on a 64-bit selector), strings of each padding, decorations and
/// execution modes with parameters, memory access with alignment and scopes, loop controls
/// with parameters, group operations, extended instructions.
const FORMS: &str = r#"OpCapability Shader
OpCapability Int64
OpCapability Float64
OpCapability VulkanMemoryModel
OpCapability GroupNonUniformArithmetic
%glsl = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical Vulkan
OpEntryPoint GLCompute %main "main" %gid
OpExecutionMode %main LocalSize 8 4 1
OpSource GLSL 450
OpName %main "main"
OpName %buf "abc"
OpName %blk "abcd"
OpName %ptr "abcde"
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %blk Block
OpMemberDecorate %blk 0 Offset 0
OpMemberDecorate %blk 1 Offset 8
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 3
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%u64 = OpTypeInt 64 0
%f64 = OpTypeFloat 64
%v3 = OpTypeVector %u32 3
%pin = OpTypePointer Input %v3
%gid = OpVariable %pin Input
%blk = OpTypeStruct %u32 %u64
%pbl = OpTypePointer StorageBuffer %blk
%buf = OpVariable %pbl StorageBuffer
%ptr = OpTypePointer StorageBuffer %u64
%pu = OpTypePointer StorageBuffer %u32
%c0 = OpConstant %u32 0
%c1 = OpConstant %u32 1
%dev = OpConstant %u32 1
%sg = OpConstant %u32 3
%big = OpConstant %u64 18446744073709551615
%d = OpConstant %f64 -0.1
%main = OpFunction %void None %fn
%entry = OpLabel
%p = OpAccessChain %ptr %buf %c1
%x = OpLoad %u64 %p Aligned|MakePointerVisible|NonPrivatePointer 8 %dev
OpSelectionMerge %m None
OpSwitch %x %m 4294967296 %a 18446744073709551615 %a
%a = OpLabel
%s = OpGroupNonUniformIAdd %u64 %sg Reduce %x
%q = OpExtInst %u64 %glsl UMin %s %big
OpStore %p %q Aligned|MakePointerAvailable|NonPrivatePointer 8 %dev
OpBranch %m
%m = OpLabel
OpBranch %h
%h = OpLabel
OpLoopMerge %e %h MinIterations|DependencyLength 2 3
OpBranch %e
%e = OpLabel
OpReturn
OpFunctionEnd
"#;

#[test]
fn every_operand_form_decodes_as_rspirv_parses_it() {
    let words = assemble(FORMS, AsmOptions::for_env(TargetEnv::Vulkan1_3))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(check("forms", &words), DecoderOutcome::Decoded);
}

fn mutate(rng: &mut fastrand::Rng, words: &mut Vec<u32>) {
    for _ in 0..1 + rng.usize(..3) {
        let n = words.len();
        if n <= 5 {
            return;
        }
        let i = 5 + rng.usize(..n - 5);
        match rng.usize(..6) {
            0 => words[i] ^= 1 << rng.usize(..32),
            1 => words[i] = rng.u32(..),
            // Small values are ids, counts and enumerants: the interesting ones.
            2 => words[i] = rng.u32(..80),
            3 => words[i] = (words[i] & 0xffff_0000) | rng.u32(..80),
            4 => {
                // Change an instruction's word count (high half), keeping the opcode.
                words[i] = (words[i] & 0xffff) | (rng.u32(..12) << 16);
            }
            _ => {
                words.insert(i, rng.u32(..80));
            }
        }
    }
}

#[test]
fn mutated_corpus_modules_decode_as_rspirv_parses_them() {
    let corpus = corpus();
    let mut rng = fastrand::Rng::with_seed(0x5eed_dec0_de00_0001);
    let (mut decoded, mut declined, mut refused) = (0, 0, 0);
    let per_module = (60_000 / corpus.len().max(1)).max(1);
    for (name, words) in corpus {
        for _ in 0..per_module {
            let mut m = words.clone();
            mutate(&mut rng, &mut m);
            match check(name, &m) {
                DecoderOutcome::Decoded => decoded += 1,
                DecoderOutcome::Declined => declined += 1,
                DecoderOutcome::Refused => refused += 1,
            }
        }
    }
    eprintln!("mutants: {decoded} decoded, {declined} declined, {refused} refused before");
    // Both ways must be exercised: mutants decoded (and compared) and mutants declined.
    assert!(
        decoded >= 10_000 && declined >= 1_000,
        "{decoded} / {declined}"
    );
}

/// Random instruction streams after a valid header: opcodes of the grammar (and a few it
/// does not have), each usually with as many words as its grammar has operands, most of
/// them small (ids, enumerants, widths) so that many streams decode.
#[test]
fn random_instruction_streams_decode_as_rspirv_parses_them() {
    let mut rng = fastrand::Rng::with_seed(0x5eed_dec0_de00_0002);
    let opcodes: Vec<u32> = (0..7000)
        .filter(|n| tangle_spirv::grammar::core_instruction(*n).is_some())
        .chain([400, 4000, 65535])
        .collect();
    let (mut decoded, mut declined) = (0, 0);
    for _ in 0..40_000 {
        let mut words = vec![spirv::MAGIC_NUMBER, 0x0001_0300, 0, 100, 0];
        for _ in 0..rng.usize(1..5) {
            let opcode = opcodes[rng.usize(..opcodes.len())];
            let operands = tangle_spirv::grammar::core_instruction(opcode)
                .map_or(2, |g| g.operands.len() as u32);
            let count = match rng.usize(..4) {
                0 => rng.u32(1..9),
                _ => 1 + operands,
            };
            words.push((count << 16) | opcode);
            for _ in 1..count {
                words.push(match rng.usize(..10) {
                    0 => rng.u32(..),
                    1 => 1 << rng.u32(..32),
                    2 => rng.u32(..100),
                    _ => rng.u32(..8),
                });
            }
        }
        match check("random", &words) {
            DecoderOutcome::Decoded => decoded += 1,
            DecoderOutcome::Declined => declined += 1,
            DecoderOutcome::Refused => {}
        }
    }
    eprintln!("random streams: {decoded} decoded, {declined} declined");
    assert!(
        decoded >= 2_000 && declined >= 2_000,
        "{decoded} / {declined}"
    );
}
