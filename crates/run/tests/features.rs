//! Features the real-world AmberScript corpus needs (`docs/run.md`), each on a small script
//! whose expected values are derived by hand: `BufferBlock` storage buffers, `Ldexp` with
//! exponents of every width, and the emulated device's subgroup rules.

use tangle_oracle::Tool;
use tangle_run::{run_script, Report, ScriptError, ScriptOptions};
mod common;
use common::failures;

fn run(text: &str) -> Result<Report, ScriptError> {
    let parsed = tangle_amber::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    run_script(&parsed, &ScriptOptions::default())
}

fn floats(report: &Report, buffer: &str) -> Vec<f32> {
    report.buffers[buffer]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

const LDEXP: &str = include_str!("data/ldexp_widths.spvasm");

/// `ldexp(1.0, e)` for an 8-, 16- and 32-bit exponent of -1 and a 64-bit exponent of
/// -(2^32 - 1): 2^-1 three times, and 2^-4294967295, which is 0 in a float. A module
/// spirv-val accepts (checked when spirv-val is present).
#[test]
fn ldexp_sign_extends_narrow_exponents_and_keeps_wide_ones() {
    if let Some(val) = tangle_oracle::require(Tool::SpirvVal, "ldexp_widths_validate") {
        let words = tangle_spirv::assemble(
            LDEXP,
            tangle_spirv::AsmOptions::for_env(
                tangle_spirv::TargetEnv::from_name("vulkan1.1").unwrap(),
            ),
        )
        .unwrap();
        let dir = tangle_oracle::scratch_dir();
        let path = dir.path().join("ldexp.spv");
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        val.run_ok([
            "--target-env".as_ref(),
            "vulkan1.1".as_ref(),
            path.as_os_str(),
        ]);
    }
    let text = format!(
        "#!amber\nSHADER compute ldexp SPIRV-ASM TARGET_ENV vulkan1.1\n{LDEXP}END\n\
         BUFFER out DATA_TYPE float SIZE 4 FILL 7.0\n\
         PIPELINE compute p\n  ATTACH ldexp\n  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n\
         RUN p 1 1 1\nEXPECT out IDX 0 EQ 0.5 0.5 0.5 0.0\n"
    );
    let report = run(&text).unwrap();
    assert_eq!(floats(&report, "out"), [0.5, 0.5, 0.5, 0.0]);
    assert!(report.passed(), "{}", failures(&report).join("\n"));
}

/// A GLSL `buffer` block compiled for Vulkan 1.0 is a `Uniform` variable whose struct is
/// decorated `BufferBlock`: a storage buffer, laid out by std430 (a `float[]` of stride 4,
/// where std140 would need 16), bound `AS storage`, written by the shader.
#[test]
fn buffer_block_storage_buffers_run() {
    if tangle_oracle::require(Tool::Glslang, "buffer_block_storage_buffers_run").is_none() {
        return;
    }
    let shader = "#version 430\nlayout(local_size_x = 4) in;\n\
                  layout(std430, binding = 0) buffer Data { float v[]; } data;\n\
                  layout(std140, binding = 1) uniform Params { float scale; } params;\n\
                  void main() { data.v[gl_GlobalInvocationID.x] *= params.scale; }\n";
    let script = |bind: &str| {
        format!(
            "#!amber\nSHADER compute s GLSL TARGET_ENV vulkan1.0\n{shader}END\n\
             BUFFER data DATA_TYPE float DATA 1 2 3 4 END\n\
             BUFFER params DATA_TYPE float DATA 2.5 END\n\
             PIPELINE compute p\n  ATTACH s\n\
             {bind}\n  BIND BUFFER params AS uniform DESCRIPTOR_SET 0 BINDING 1\nEND\n\
             RUN p 1 1 1\nEXPECT data IDX 0 EQ 2.5 5 7.5 10\n"
        )
    };
    let report = run(&script(
        "  BIND BUFFER data AS storage DESCRIPTOR_SET 0 BINDING 0",
    ))
    .unwrap();
    assert!(report.passed(), "{}", failures(&report).join("\n"));
    assert_eq!(floats(&report, "data"), [2.5, 5.0, 7.5, 10.0]);
    // The module really is the SPIR-V 1.0 form.
    let module = tangle_run::load_shader(
        tangle_run::ShaderKind::Glsl,
        shader.as_bytes(),
        "s",
        "vulkan1.0",
    )
    .unwrap();
    assert!(module.types.iter().any(|(_, t)| matches!(
        t,
        tangle_ir::TypeData::Struct {
            buffer_block: true,
            ..
        }
    )));
    // Bound as a uniform buffer, it is the wrong descriptor kind.
    let err = run(&script(
        "  BIND BUFFER data AS uniform DESCRIPTOR_SET 0 BINDING 0",
    ))
    .unwrap_err();
    assert!(err.to_string().contains("bound as uniform"), "{err}");
}

/// `SHADER_OPTIMIZATION` runs spirv-opt with the listed passes, as amber does:
/// `--graphics-robust-access` clamps the out-of-bounds index, so the loop's writes past the
/// 4-element buffer land on its last element (10, 11, 12, then 13, 14, 15 on `data[3]`);
/// without the block the same shader stops with an out-of-bounds access.
#[test]
fn shader_optimization_runs_spirv_opt() {
    if tangle_oracle::require(Tool::Glslang, "shader_optimization_runs_spirv_opt").is_none()
        || tangle_oracle::require(Tool::SpirvOpt, "shader_optimization_runs_spirv_opt").is_none()
    {
        return;
    }
    let script = |optimization: &str| {
        format!(
            "#!amber\nSHADER compute s GLSL\n#version 430\nlayout(local_size_x = 1) in;\n\
             layout(binding = 0) buffer B {{ uint data[]; }} b;\n\
             void main() {{ for (uint i = 0u; i < 6u; ++i) {{ b.data[i] = i + 10u; }} }}\nEND\n\
             BUFFER buf DATA_TYPE uint32 SIZE 4 FILL 0\n\
             PIPELINE compute p\n  ATTACH s\n{optimization}\
             \n  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n\
             RUN p 1 1 1\nEXPECT buf IDX 0 EQ 10 11 12 15\n"
        )
    };
    let report = run(&script(
        "  SHADER_OPTIMIZATION s\n    --graphics-robust-access\n  END",
    ))
    .unwrap();
    assert!(report.passed(), "{}", failures(&report).join("\n"));
    let report = run(&script("")).unwrap();
    let failed = failures(&report).join("\n");
    assert!(failed.contains("out-of-bounds"), "{failed}");
    // A pass spirv-opt does not know is refused with spirv-opt's message.
    let err = run(&script(
        "  SHADER_OPTIMIZATION s\n    --no-such-pass\n  END",
    ))
    .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("spirv-opt --no-such-pass failed"), "{text}");
    assert!(text.contains("Unknown flag"), "{text}");
}

/// A `RUN` with a zero workgroup count runs nothing (amber accepts it; Vulkan allows it),
/// and `RUN TIMED_EXECUTION` runs as a plain `RUN`.
#[test]
fn zero_size_and_timed_runs() {
    let text = format!(
        "#!amber\nSHADER compute ldexp SPIRV-ASM TARGET_ENV vulkan1.1\n{LDEXP}END\n\
         BUFFER out DATA_TYPE float SIZE 4 FILL 7.0\n\
         PIPELINE compute p\n  ATTACH ldexp\n  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n\
         RUN p 0 1 1\nEXPECT out IDX 0 EQ 7.0 7.0 7.0 7.0\n\
         RUN TIMED_EXECUTION p 1 1 1\nEXPECT out IDX 0 EQ 0.5 0.5 0.5 0.0\n"
    );
    let report = run(&text).unwrap();
    assert!(report.passed(), "{}", failures(&report).join("\n"));
    assert_eq!(report.counts(), (2, 2, 0));
}

/// A dynamic storage buffer sees its buffer from `OFFSET` (plus `DESCRIPTOR_OFFSET`): the
/// shader's four results land at bytes 32..48 of a 48-byte buffer; the rest keeps its 7.0s.
#[test]
fn dynamic_offsets_move_the_descriptor_window() {
    let text = format!(
        "#!amber\nSHADER compute ldexp SPIRV-ASM TARGET_ENV vulkan1.1\n{LDEXP}END\n\
         BUFFER out DATA_TYPE float SIZE 12 FILL 7.0\n\
         PIPELINE compute p\n  ATTACH ldexp\n\
         BIND BUFFER out AS storage_dynamic DESCRIPTOR_SET 0 BINDING 0 OFFSET 16 DESCRIPTOR_OFFSET 16\nEND\n\
         RUN p 1 1 1\n"
    );
    let report = run(&text).unwrap();
    assert!(report.passed(), "{}", failures(&report).join("\n"));
    let mut want = vec![7.0f32; 8];
    want.extend([0.5, 0.5, 0.5, 0.0]);
    assert_eq!(floats(&report, "out"), want);
    // A window past the buffer's end is refused.
    let err = run(&text.replace("OFFSET 16 DESCRIPTOR_OFFSET 16", "OFFSET 64")).unwrap_err();
    assert!(err.to_string().contains("do not fit"), "{err}");
}

const MODF_FREXP: &str = include_str!("data/modf_frexp.spvasm");

/// GLSL.std.450 `Modf`/`ModfStruct`/`Frexp`/`FrexpStruct`, by their definitions:
/// modf(-2.75) = -0.75 and whole part -2 (stored through the pointer); modf(+inf) = +0 and
/// +inf; frexp(8) = 0.5 * 2^4 (exponent through the pointer); frexp(-0.3) = -0.6 * 2^-1;
/// frexp(2^-149), the smallest subnormal, = 0.5 * 2^-148. A module spirv-val accepts.
#[test]
fn modf_and_frexp_split_their_operand() {
    if let Some(val) = tangle_oracle::require(Tool::SpirvVal, "modf_frexp_validate") {
        let words = tangle_spirv::assemble(
            MODF_FREXP,
            tangle_spirv::AsmOptions::for_env(
                tangle_spirv::TargetEnv::from_name("vulkan1.1").unwrap(),
            ),
        )
        .unwrap();
        let dir = tangle_oracle::scratch_dir();
        let path = dir.path().join("modf.spv");
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        val.run_ok([
            "--target-env".as_ref(),
            "vulkan1.1".as_ref(),
            path.as_os_str(),
        ]);
    }
    let text = format!(
        "#!amber\nSHADER compute s SPIRV-ASM TARGET_ENV vulkan1.1\n{MODF_FREXP}END\n\
         BUFFER f DATA_TYPE float SIZE 6 FILL 7.0\nBUFFER i DATA_TYPE int32 SIZE 3 FILL 7\n\
         PIPELINE compute p\n  ATTACH s\n  BIND BUFFER f AS storage DESCRIPTOR_SET 0 BINDING 0\n\
         BIND BUFFER i AS storage DESCRIPTOR_SET 0 BINDING 1\nEND\nRUN p 1 1 1\n"
    );
    let report = run(&text).unwrap();
    assert!(report.passed(), "{}", failures(&report).join("\n"));
    let f = floats(&report, "f");
    assert_eq!(f[..3], [-0.75, -2.0, 0.0]);
    assert!(f[2].is_sign_positive());
    assert_eq!(f[3], f32::INFINITY);
    assert_eq!(f[4], 0.5);
    assert_eq!(f[5], -0.3f32 * 2.0);
    let ints: Vec<i32> = report.buffers["i"]
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(ints, [4, -1, -148]);
}
