//! Proves that every oracle tool installed by `tools/install-oracles.sh` really works: each
//! test runs a tool on a small input and asserts on what it produced, not only on its exit
//! status.

use std::fs;
use std::path::{Path, PathBuf};

use tangle_oracle::{require, scratch_dir, Tool};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Reads a SPIR-V binary's words and checks its header.
fn spirv_words(path: &Path) -> Vec<u32> {
    let bytes = fs::read(path).unwrap();
    assert_eq!(bytes.len() % 4, 0, "SPIR-V is a whole number of words");
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert!(words.len() > 5, "a SPIR-V module has a five-word header");
    assert_eq!(words[0], 0x0723_0203, "SPIR-V magic number");
    words
}

#[test]
fn spirv_as_assembles_and_spirv_val_accepts() {
    let (Some(asm), Some(val), Some(dis)) = (
        require(Tool::SpirvAs, "spirv_as_assembles_and_spirv_val_accepts"),
        require(Tool::SpirvVal, "spirv_as_assembles_and_spirv_val_accepts"),
        require(Tool::SpirvDis, "spirv_as_assembles_and_spirv_val_accepts"),
    ) else {
        return;
    };
    let dir = scratch_dir();
    let spv = dir.path().join("ballot.spv");
    asm.run_ok([
        "--target-env".as_ref(),
        "vulkan1.1".as_ref(),
        data("ballot.spvasm").as_os_str(),
        "-o".as_ref(),
        spv.as_os_str(),
    ]);
    let words = spirv_words(&spv);
    // Version word: SPIR-V 1.3 for Vulkan 1.1.
    assert_eq!(words[1], 0x0001_0300);
    val.run_ok([
        "--target-env".as_ref(),
        "vulkan1.1".as_ref(),
        spv.as_os_str(),
    ]);
    let text = dis.run_ok([spv.as_os_str()]);
    // spirv-dis names ids only from OpName (none here) or from types and constants.
    assert!(
        text.contains("OpGroupNonUniformBallot %v4uint %uint_3 %"),
        "{text}"
    );
    assert!(
        text.contains("OpEntryPoint GLCompute %1 \"main\" %gl_LocalInvocationIndex"),
        "{text}"
    );
}

#[test]
fn spirv_val_rejects_a_missing_capability() {
    let (Some(asm), Some(val)) = (
        require(Tool::SpirvAs, "spirv_val_rejects_a_missing_capability"),
        require(Tool::SpirvVal, "spirv_val_rejects_a_missing_capability"),
    ) else {
        return;
    };
    let dir = scratch_dir();
    let source = fs::read_to_string(data("ballot.spvasm")).unwrap();
    let broken = source.replace("OpCapability GroupNonUniformBallot\n", "");
    assert_ne!(broken, source);
    let asm_path = dir.path().join("broken.spvasm");
    fs::write(&asm_path, broken).unwrap();
    let spv = dir.path().join("broken.spv");
    asm.run_ok([
        "--target-env".as_ref(),
        "vulkan1.1".as_ref(),
        asm_path.as_os_str(),
        "-o".as_ref(),
        spv.as_os_str(),
    ]);
    let out = val.run([
        "--target-env".as_ref(),
        "vulkan1.1".as_ref(),
        spv.as_os_str(),
    ]);
    assert!(!out.status.success(), "spirv-val must reject the module");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("GroupNonUniformBallot"), "{err}");
}

#[test]
fn glslang_compiles_a_subgroup_compute_shader() {
    let (Some(glslang), Some(val), Some(dis)) = (
        require(Tool::Glslang, "glslang_compiles_a_subgroup_compute_shader"),
        require(Tool::SpirvVal, "glslang_compiles_a_subgroup_compute_shader"),
        require(Tool::SpirvDis, "glslang_compiles_a_subgroup_compute_shader"),
    ) else {
        return;
    };
    let dir = scratch_dir();
    let spv = dir.path().join("ballot.spv");
    glslang.run_ok([
        "-V".as_ref(),
        "--target-env".as_ref(),
        "vulkan1.1".as_ref(),
        data("ballot.comp").as_os_str(),
        "-o".as_ref(),
        spv.as_os_str(),
    ]);
    spirv_words(&spv);
    val.run_ok([
        "--target-env".as_ref(),
        "vulkan1.1".as_ref(),
        spv.as_os_str(),
    ]);
    let text = dis.run_ok([spv.as_os_str()]);
    assert!(
        text.contains("OpCapability GroupNonUniformBallot"),
        "{text}"
    );
    assert_eq!(text.matches("OpGroupNonUniformBallot").count(), 2, "{text}");
    assert!(text.contains("OpSelectionMerge"), "{text}");
    assert!(
        text.contains("OpExecutionMode %main LocalSize 32 1 1"),
        "{text}"
    );
}

#[test]
fn ptxas_and_nvdisasm_round_a_kernel_for_sm75_and_sm90() {
    let (Some(ptxas), Some(nvdisasm), Some(cuobjdump)) = (
        require(
            Tool::Ptxas,
            "ptxas_and_nvdisasm_round_a_kernel_for_sm75_and_sm90",
        ),
        require(
            Tool::Nvdisasm,
            "ptxas_and_nvdisasm_round_a_kernel_for_sm75_and_sm90",
        ),
        require(
            Tool::Cuobjdump,
            "ptxas_and_nvdisasm_round_a_kernel_for_sm75_and_sm90",
        ),
    ) else {
        return;
    };
    let dir = scratch_dir();
    for (arch, flag) in [("sm_75", "EF_CUDA_SM75 "), ("sm_90", "EF_CUDA_SM90 ")] {
        let cubin = dir.path().join(format!("ballot_{arch}.cubin"));
        ptxas.run_ok([
            format!("-arch={arch}").as_ref(),
            data("ballot.ptx").as_os_str(),
            "-o".as_ref(),
            cubin.as_os_str(),
        ]);
        let bytes = fs::read(&cubin).unwrap();
        assert_eq!(&bytes[..4], b"\x7fELF", "a cubin is an ELF file");
        let text = nvdisasm.run_ok([cubin.as_os_str()]);
        assert!(text.contains(&format!(".target\t{arch}")), "{arch}: {text}");
        assert!(text.contains(".text.ballot:"), "{arch}: {text}");
        assert!(text.contains("VOTE.ANY"), "{arch}: {text}");
        assert!(text.contains("EXIT ;"), "{arch}: {text}");
        let sass = cuobjdump.run_ok(["-sass".as_ref(), cubin.as_os_str()]);
        assert!(sass.contains("Function : ballot"), "{arch}: {sass}");
        assert!(sass.contains(flag), "{arch}: {sass}");
        // cuobjdump prints the raw words beside each instruction.
        assert!(sass.contains("/* 0x"), "{arch}: {sass}");
    }
}

#[test]
fn nvdisasm_decodes_raw_words() {
    let Some(nvdisasm) = require(Tool::Nvdisasm, "nvdisasm_decodes_raw_words") else {
        return;
    };
    let dir = scratch_dir();
    // EXIT and NOP as ptxas emits them: low word, then high word with the control bits.
    let words: [(u64, u64); 2] = [
        (0x0000_0000_0000_794d, 0x000f_ea00_0380_0000),
        (0x0000_0000_0000_7918, 0x000f_c000_0380_0000),
    ];
    let mut bytes = Vec::new();
    for (lo, hi) in words {
        bytes.extend_from_slice(&lo.to_le_bytes());
        bytes.extend_from_slice(&hi.to_le_bytes());
    }
    let raw = dir.path().join("words.bin");
    fs::write(&raw, bytes).unwrap();
    for sm in ["SM75", "SM80", "SM86", "SM89", "SM90"] {
        let text = nvdisasm.run_ok(["-b".as_ref(), sm.as_ref(), "-hex".as_ref(), raw.as_os_str()]);
        let lines: Vec<&str> = text.lines().filter(|l| l.contains("/*00")).collect();
        assert!(
            lines[0].contains("EXIT ;") && lines[0].contains("0x000000000000794d"),
            "{sm}: {text}"
        );
        assert!(lines[1].contains("NOP;"), "{sm}: {text}");
    }
}

#[test]
fn nvcc_compiles_cuda_with_a_warp_reduction_for_sm80() {
    let (Some(nvcc), Some(cuobjdump)) = (
        require(
            Tool::Nvcc,
            "nvcc_compiles_cuda_with_a_warp_reduction_for_sm80",
        ),
        require(
            Tool::Cuobjdump,
            "nvcc_compiles_cuda_with_a_warp_reduction_for_sm80",
        ),
    ) else {
        return;
    };
    let dir = scratch_dir();
    let cubin = dir.path().join("reduce.cubin");
    nvcc.run_ok([
        "-cubin".as_ref(),
        "-arch=sm_80".as_ref(),
        data("reduce.cu").as_os_str(),
        "-o".as_ref(),
        cubin.as_os_str(),
    ]);
    let sass = cuobjdump.run_ok(["-sass".as_ref(), cubin.as_os_str()]);
    assert!(sass.contains("REDUX.SUM"), "{sass}");
    assert!(sass.contains("_Z8warp_sumPKjPj"), "{sass}");
}
