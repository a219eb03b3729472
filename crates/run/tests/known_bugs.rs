//! The known-bug shapes (`tests/known-bugs/*.amber`): program shapes that broke real
//! compilers, each citing the public report it comes from, with expectations derived by
//! hand in its comments (docs/known-bugs.md).
//!
//! - Every script names its source and passes on the reference under every schedule
//!   policy.
//! - The known-wrong variant that breaks by-iteration break tangles fails the scripts whose
//!   shape is a break block holding a subgroup operation, and no others.
//! - DXC #6222 reproduced with the real spirv-opt: its block merging melds the break block
//!   holding the subgroup operation into the loop's merge block unless the module declares
//!   maximal reconvergence, and the runner declares it before running `SHADER_OPTIMIZATION`.

use tangle_interp::{SchedulePolicy, Variant};
use tangle_oracle::{require, scratch_dir, Tool};
mod bundled;
mod common;
use bundled::{name, run};

fn scripts_dir() -> std::path::PathBuf {
    bundled::dir("tests/known-bugs")
}

fn scripts() -> Vec<std::path::PathBuf> {
    bundled::scripts(&scripts_dir())
}

#[test]
fn every_script_cites_a_public_report() {
    let all = scripts();
    assert!(all.len() >= 6, "only {} known-bug scripts", all.len());
    for path in all {
        let text = std::fs::read_to_string(&path).unwrap();
        let header: String = text.lines().take_while(|l| l.starts_with('#')).collect();
        assert!(
            header.contains("https://github.com/"),
            "{} cites no report",
            name(&path)
        );
    }
}

#[test]
fn every_script_passes_under_every_schedule_policy() {
    if require(Tool::Glslang, "known_bugs_pass").is_none() {
        return;
    }
    for path in scripts() {
        bundled::assert_passes_under_every_policy(&path);
    }
}

#[test]
fn break_tangles_not_split_by_iteration_fail_the_break_block_shapes() {
    if require(Tool::Glslang, "known_bugs_variant").is_none() {
        return;
    }
    let failed: Vec<String> = scripts()
        .iter()
        .filter(|p| {
            !run(
                p,
                Variant::BreakNotSplitByIteration,
                SchedulePolicy::LowestLaneFirst,
            )
            .passed()
        })
        .map(|p| name(p))
        .collect();
    assert_eq!(
        failed,
        [
            "dxc6222_break_block_subgroup_op",
            "gpuweb954_helper_elect",
            "llvm165642_nested_loop_break"
        ]
    );
}

/// Whether the block that a loop merge names holds a subgroup add, in spirv-dis text.
fn merge_block_holds_the_subgroup_add(disassembly: &str) -> bool {
    let merge = disassembly
        .lines()
        .find_map(|l| {
            let rest = l.trim().strip_prefix("OpLoopMerge ")?;
            rest.split_whitespace().next().map(str::to_string)
        })
        .expect("a loop merge");
    let mut in_merge = false;
    for line in disassembly.lines().map(str::trim) {
        if line.ends_with("= OpLabel") {
            in_merge = line.starts_with(&format!("{merge} "));
        } else if in_merge && line.contains("OpGroupNonUniformIAdd") {
            return true;
        }
    }
    false
}

#[test]
fn spirv_opt_melds_the_break_block_into_the_merge_unless_maximal_reconvergence_is_declared() {
    let (Some(_), Some(_), Some(dis)) = (
        require(Tool::Glslang, "dxc6222_spirv_opt"),
        require(Tool::SpirvOpt, "dxc6222_spirv_opt"),
        require(Tool::SpirvDis, "dxc6222_spirv_opt"),
    ) else {
        return;
    };
    let text = std::fs::read_to_string(scripts_dir().join("dxc6222_break_block_subgroup_op.amber"))
        .unwrap();
    let script = tangle_amber::parse(&text).unwrap();
    let tangle_amber::ShaderSource::Inline(source) = &script.shaders[0].source else {
        panic!("the script's shader is inline GLSL");
    };
    let compiled =
        tangle_spirv::glslang::compile(source, "dxc6222", "spv1.3").expect("glslang compiles it");
    assert!(compiled.maximal_reconvergence);
    let words: Vec<u32> = compiled
        .spirv
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let passes: Vec<String> = [
        "--eliminate-dead-branches",
        "--merge-return",
        "--merge-blocks",
    ]
    .map(String::from)
    .to_vec();
    let dir = scratch_dir();
    let disassemble = |words: &[u32], file: &str| {
        let path = dir.path().join(file);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        dis.run_ok([path.as_os_str()])
    };
    let undeclared = tangle_spirv::spirv_opt::optimize(&words, &passes, "spv1.3").unwrap();
    assert!(
        merge_block_holds_the_subgroup_add(&disassemble(&undeclared, "undeclared.spv")),
        "spirv-opt no longer melds the break block when the request is missing"
    );
    let declared_in = tangle_spirv::glslang::with_maximal_reconvergence_words(&words);
    let declared = tangle_spirv::spirv_opt::optimize(&declared_in, &passes, "spv1.3").unwrap();
    assert!(
        !merge_block_holds_the_subgroup_add(&disassemble(&declared, "declared.spv")),
        "spirv-opt melded the break block although maximal reconvergence is declared"
    );
}
