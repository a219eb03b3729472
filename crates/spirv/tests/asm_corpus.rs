//! The corpus, end to end: every GLSL shader is compiled by glslang and accepted by
//! spirv-val; its spirv-dis text (friendly and `--raw-id`) is assembled by us and by spirv-as,
//! and the words must be equal (generator word aside). Hand-written `.spvasm` files go
//! through the same comparison directly. Our output is validated by spirv-val too, and with
//! `preserve_numeric_ids` the `--raw-id` text must give back glslang's own binary. The same
//! runs on glslang's `-g` and `-gV` output and on modules optimized by spirv-opt.

use std::path::{Path, PathBuf};

use tangle_oracle::{require, scratch_dir, Oracle, Tool};
use tangle_spirv::asm::{assemble, AsmOptions, TargetEnv};
use tangle_spirv::glsl;

struct Tools {
    glslang: Oracle,
    val: Oracle,
    dis: Oracle,
    asm: Oracle,
    opt: Oracle,
}

fn tools(test: &str) -> Option<Tools> {
    Some(Tools {
        glslang: require(Tool::Glslang, test)?,
        val: require(Tool::SpirvVal, test)?,
        dis: require(Tool::SpirvDis, test)?,
        asm: require(Tool::SpirvAs, test)?,
        opt: require(Tool::SpirvOpt, test)?,
    })
}

fn shaders(ext: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/shaders exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

/// The target environment a shader names in a `env: vulkan1.x` comment; vulkan1.1 otherwise.
fn env_of(src: &str) -> &str {
    src.lines()
        .take(4)
        .find_map(|l| l.split("env: ").nth(1))
        .map(str::trim)
        .unwrap_or("vulkan1.1")
}

fn words(bytes: &[u8]) -> Vec<u32> {
    assert_eq!(bytes.len() % 4, 0, "a SPIR-V binary is whole words");
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Equal except the generator word (index 2).
fn same_module(ours: &[u32], theirs: &[u32]) -> Result<(), String> {
    if ours.len() != theirs.len() {
        return Err(format!("{} words, expected {}", ours.len(), theirs.len()));
    }
    for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
        if i != 2 && a != b {
            return Err(format!("word {i} is {a:#010x}, expected {b:#010x}"));
        }
    }
    Ok(())
}

struct Ctx<'t> {
    tools: &'t Tools,
    dir: Box<dyn AsRef<Path>>,
}

impl Ctx<'_> {
    fn path(&self, name: &str) -> PathBuf {
        (*self.dir).as_ref().join(name)
    }

    /// Assembles `text` with us and with spirv-as; compares; validates ours. Returns ours.
    fn check_text(&self, text: &str, env: &str, preserve: bool) -> Result<Vec<u32>, String> {
        let opts = AsmOptions {
            target_env: TargetEnv::from_name(env).expect("known env"),
            preserve_numeric_ids: preserve,
            ..AsmOptions::default()
        };
        let ours = assemble(text, opts).map_err(|e| format!("assemble: {e}"))?;
        let src = self.path("in.spvasm");
        let out = self.path("theirs.spv");
        std::fs::write(&src, text).unwrap();
        let mut args = vec!["--target-env".to_owned(), env.to_owned()];
        if preserve {
            args.push("--preserve-numeric-ids".to_owned());
        }
        args.extend([
            src.display().to_string(),
            "-o".into(),
            out.display().to_string(),
        ]);
        let res = self.tools.asm.run(&args);
        if !res.status.success() {
            return Err(format!(
                "spirv-as rejected the text: {}",
                String::from_utf8_lossy(&res.stderr)
            ));
        }
        let theirs = words(&std::fs::read(&out).unwrap());
        same_module(&ours, &theirs).map_err(|e| format!("differs from spirv-as: {e}"))?;
        assert_ne!(ours[2], theirs[2], "our generator word must be our own");
        self.validate(&ours, env)
            .map_err(|e| format!("spirv-val rejects our module: {e}"))?;
        Ok(ours)
    }

    fn validate(&self, module: &[u32], env: &str) -> Result<(), String> {
        let file = self.path("ours.spv");
        std::fs::write(&file, bytes(module)).unwrap();
        let res = self
            .tools
            .val
            .run(["--target-env", env, file.to_str().unwrap()]);
        if res.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&res.stderr).into_owned())
        }
    }

    fn glsl(&self, path: &Path) -> Result<(), String> {
        self.glsl_with(path, None)
    }

    /// With a `debug` flag, glslang's `-g` adds OpString, OpLine and the whole source in
    /// OpSource (a string spanning many lines), and `-gV` adds NonSemantic.Shader.DebugInfo.100
    /// instructions; only the friendly text is compared then. `-O` runs `spirv-opt -O` on
    /// glslang's module (SSA form: OpPhi, folded constants) before the full comparison.
    fn glsl_with(&self, path: &Path, variant: Option<&str>) -> Result<(), String> {
        let optimize = variant == Some("-O");
        let debug = variant.filter(|_| !optimize);
        let src = std::fs::read_to_string(path).unwrap();
        let env = env_of(&src);
        let (prepared, maxrec) = glsl::prepare_maximal_reconvergence(&src);
        let comp = self.path("shader.comp");
        let spv = self.path("shader.spv");
        std::fs::write(&comp, prepared).unwrap();
        let res = self.tools.glslang.run([
            debug.unwrap_or("-V"),
            "-V",
            "--target-env",
            env,
            "-S",
            "comp",
            comp.to_str().unwrap(),
            "-o",
            spv.to_str().unwrap(),
        ]);
        if !res.status.success() {
            return Err(format!("glslang: {}", String::from_utf8_lossy(&res.stdout)));
        }
        if optimize {
            let target = format!("--target-env={env}");
            let spv_path = spv.to_str().unwrap();
            self.tools
                .opt
                .run_ok(["-O", target.as_str(), spv_path, "-o", spv_path]);
        }
        let binary = words(&std::fs::read(&spv).unwrap());
        self.validate(&binary, env)
            .map_err(|e| format!("spirv-val rejects glslang's module: {e}"))?;
        let friendly = self.tools.dis.run_ok([spv.to_str().unwrap()]);
        let raw = self.tools.dis.run_ok(["--raw-id", spv.to_str().unwrap()]);
        let patch = |t: String| {
            if maxrec {
                glsl::patch_maximal_reconvergence(&t).expect("the shader has an entry point")
            } else {
                t
            }
        };
        let (friendly, raw) = (patch(friendly), patch(raw));
        if maxrec && !friendly.contains("MaximallyReconvergesKHR") {
            return Err("patch did not add MaximallyReconvergesKHR".into());
        }
        let ours = self
            .check_text(&friendly, env, false)
            .map_err(|e| format!("friendly text: {e}"))?;
        // Comments, offsets and nesting indentation change nothing.
        let decorated = patch(self.tools.dis.run_ok([
            "--comment",
            "--nested-indent",
            "--offsets",
            spv.to_str().unwrap(),
        ]));
        let opts = AsmOptions::for_env(TargetEnv::from_name(env).expect("known env"));
        match assemble(&decorated, opts) {
            Ok(words) if words == ours => {}
            Ok(_) => {
                return Err("--comment --nested-indent --offsets text assembles differently".into())
            }
            Err(e) => return Err(format!("--comment --nested-indent --offsets text: {e}")),
        }
        self.check_text(&raw, env, false)
            .map_err(|e| format!("--raw-id text: {e}"))?;
        let preserved = self
            .check_text(&raw, env, true)
            .map_err(|e| format!("--raw-id, preserved ids: {e}"))?;
        if !maxrec {
            same_module(&preserved, &binary)
                .map_err(|e| format!("raw-id text does not give glslang's binary back: {e}"))?;
        }
        Ok(())
    }

    fn spvasm(&self, path: &Path) -> Result<(), String> {
        let text = std::fs::read_to_string(path).unwrap();
        let env = env_of(&text);
        self.check_text(&text, env, false)?;
        self.check_text(&text, env, true)
            .map_err(|e| format!("preserved ids: {e}"))?;
        Ok(())
    }
}

fn run_all(
    test: &str,
    ext: &str,
    min: usize,
    check: impl Fn(&Ctx<'_>, &Path) -> Result<(), String>,
) {
    let files = shaders(ext);
    assert!(
        files.len() >= min,
        "expected at least {min} .{ext} shaders, found {}",
        files.len()
    );
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let first = text.lines().next().unwrap_or("");
        assert!(
            first.starts_with("// ") || first.starts_with("; "),
            "{} must start with a one-line comment saying what it exercises",
            f.display()
        );
    }
    let Some(tools) = tools(test) else { return };
    let ctx = Ctx {
        tools: &tools,
        dir: Box::new(scratch_dir()),
    };
    let failures: Vec<String> = files
        .iter()
        .filter_map(|f| {
            check(&ctx, f)
                .err()
                .map(|e| format!("{}: {e}", f.file_name().unwrap().to_string_lossy()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn glsl_corpus_assembles_like_spirv_as() {
    run_all("glsl_corpus_assembles_like_spirv_as", "comp", 32, |c, p| {
        c.glsl(p)
    });
}

#[test]
fn glsl_corpus_with_debug_info_assembles_like_spirv_as() {
    run_all(
        "glsl_corpus_with_debug_info_assembles_like_spirv_as",
        "comp",
        32,
        |c, p| c.glsl_with(p, Some("-g")),
    );
}

#[test]
fn glsl_corpus_with_nonsemantic_debug_info_assembles_like_spirv_as() {
    run_all(
        "glsl_corpus_with_nonsemantic_debug_info_assembles_like_spirv_as",
        "comp",
        32,
        |c, p| c.glsl_with(p, Some("-gV")),
    );
}

#[test]
fn glsl_corpus_optimized_by_spirv_opt_assembles_like_spirv_as() {
    run_all(
        "glsl_corpus_optimized_by_spirv_opt_assembles_like_spirv_as",
        "comp",
        32,
        |c, p| c.glsl_with(p, Some("-O")),
    );
}

#[test]
fn handwritten_spvasm_assembles_like_spirv_as() {
    run_all(
        "handwritten_spvasm_assembles_like_spirv_as",
        "spvasm",
        8,
        |c, p| c.spvasm(p),
    );
}

#[test]
fn corpus_asks_for_maximal_reconvergence_and_subgroup_ops() {
    let all: String = shaders("comp")
        .iter()
        .chain(shaders("spvasm").iter())
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let maxrec = shaders("comp")
        .iter()
        .filter(|p| glsl::prepare_maximal_reconvergence(&std::fs::read_to_string(p).unwrap()).1)
        .count();
    assert!(
        maxrec >= 4,
        "only {maxrec} GLSL shaders ask for maximal reconvergence"
    );
    for needle in [
        "subgroupBallot(",
        "subgroupElect(",
        "subgroupAll(",
        "subgroupAny(",
        "subgroupAllEqual(",
        "subgroupBroadcast(",
        "subgroupBroadcastFirst(",
        "subgroupShuffle(",
        "subgroupShuffleXor(",
        "subgroupShuffleUp(",
        "subgroupShuffleDown(",
        "subgroupAdd(",
        "subgroupMin(",
        "subgroupMax(",
        "subgroupAnd(",
        "subgroupOr(",
        "subgroupXor(",
        "subgroupInclusiveAdd(",
        "subgroupExclusiveXor(",
        "gl_SubgroupSize",
        "gl_SubgroupInvocationID",
        "gl_SubgroupEqMask",
        "gl_SubgroupLtMask",
        "atomicAdd(",
        "barrier()",
        "shared ",
        "push_constant",
        "constant_id",
        "local_size_x_id",
        "uniform ",
        "buffer ",
        "int64_t",
        "int8_t",
        "int16_t",
        "float16_t",
        "double",
        "continue;",
        "MaximallyReconvergesKHR",
        "OpSwitch",
        "OpSpecConstantOp",
        "LocalSizeId",
    ] {
        assert!(all.contains(needle), "no corpus shader uses `{needle}`");
    }
}
