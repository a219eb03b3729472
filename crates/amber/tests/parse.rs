//! Whole scripts: amber's documented compute example, a CTS-shaped subgroup script, and
//! one script per command.

use tangle_amber::*;

fn run_cmds(s: &Script) -> Vec<&Run> {
    s.commands
        .iter()
        .filter_map(|c| match c {
            Command::Run(r) => Some(r),
            _ => None,
        })
        .collect()
}

fn expects(s: &Script) -> Vec<&Expect> {
    s.commands
        .iter()
        .filter_map(|c| match c {
            Command::Expect(e) => Some(e),
            _ => None,
        })
        .collect()
}

/// The "Compute Shader" example of amber's docs/amber_script.md.
const DOC_COMPUTE: &str = r#"#!amber
# Simple amber compute shader.

SHADER compute kComputeShader GLSL
#version 450

layout(binding = 3) buffer block {
  vec2 values[];
};

void main() {
  values[gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x] =
                gl_WorkGroupID.xy;
}
END  # shader

BUFFER kComputeBuffer DATA_TYPE vec2<int32> SIZE 524288 FILL 0

PIPELINE compute kComputePipeline
  ATTACH kComputeShader
  BIND BUFFER kComputeBuffer AS storage DESCRIPTOR_SET 0 BINDING 3
END  # pipeline

RUN kComputePipeline 256 256 1

# Four corners
EXPECT kComputeBuffer IDX 0 EQ 0 0
EXPECT kComputeBuffer IDX 2040 EQ 255 0
EXPECT kComputeBuffer IDX 522240 EQ 0 255
EXPECT kComputeBuffer IDX 524280 EQ 255 255

# Center
EXPECT kComputeBuffer IDX 263168 EQ 128 128
"#;

#[test]
fn amber_doc_compute_example() {
    let s = parse(DOC_COMPUTE).unwrap();
    let sh = s.shader("kComputeShader").unwrap();
    assert_eq!(sh.format, ShaderFormat::Glsl);
    let ShaderSource::Inline(text) = &sh.source else {
        panic!()
    };
    assert!(text.starts_with("#version 450\n\nlayout(binding = 3)"));
    assert!(text.ends_with("gl_WorkGroupID.xy;\n}\n"));
    let b = s.buffer("kComputeBuffer").unwrap();
    assert_eq!(b.element_count, 524288);
    assert_eq!(b.format.stride(), 8);
    assert_eq!(b.size_in_bytes(), 4 << 20);
    let p = s.pipeline("kComputePipeline").unwrap();
    assert_eq!(p.attachments[0].entry_point, "main");
    assert_eq!(p.bindings[0].set, 0);
    assert_eq!(p.bindings[0].binding, 3);
    assert_eq!(run_cmds(&s)[0].groups, [256, 256, 1]);
    let ex = expects(&s);
    assert_eq!(ex.len(), 5);
    let ExpectKind::Values {
        offset,
        values,
        cmp,
        ..
    } = &ex[1].kind
    else {
        panic!()
    };
    assert_eq!(
        (*offset, values.as_slice(), *cmp),
        (2040, &[255u64, 0][..], Comparator::Eq)
    );
    assert_eq!(ex[4].pos, Pos::new(33, 1));

    // Simulate the shader and check every EXPECT passes, and a wrong value fails.
    let mut mem = b.initial_bytes();
    for y in 0..256u32 {
        for x in 0..256u32 {
            let i = (x + y * 256) as usize * 8;
            mem[i..i + 4].copy_from_slice(&x.to_le_bytes());
            mem[i + 4..i + 8].copy_from_slice(&y.to_le_bytes());
        }
    }
    let get = |n: &str| (n == "kComputeBuffer").then_some(mem.as_slice());
    for e in &ex {
        check_expect(e, &get).unwrap();
    }
    mem[263168] = 7;
    let get = |n: &str| (n == "kComputeBuffer").then_some(mem.as_slice());
    let f = check_expect(ex[4], &get).unwrap_err();
    assert_eq!(f.line, 33);
    let FailureKind::Mismatch {
        value_index,
        element_index,
        byte_offset,
        expected,
        actual,
        ..
    } = f.kind
    else {
        panic!("{f}")
    };
    assert_eq!(
        (value_index, element_index, byte_offset),
        (0, 32896, 263168)
    );
    assert_eq!((expected.as_str(), actual.as_str()), ("128", "7"));
}

/// Shaped like the CTS subgroup_uniform_control_flow scripts (own, shortened shader).
const CTS_SHAPED: &str = r#"#!amber
DEVICE_FEATURE SubgroupSizeControl.subgroupSizeControl
DEVICE_FEATURE SubgroupSizeControl.computeFullSubgroups

SHADER compute test GLSL TARGET_ENV spv1.3
#version 450 core
#extension GL_KHR_shader_subgroup_ballot : enable
layout(local_size_x = 128) in;
layout(set=0, binding=0) buffer A { uint a[]; } a;
layout(set=0, binding=1) buffer B { uint b[]; } b;
void main() {
  b.b[gl_LocalInvocationIndex] = subgroupElect() ? 1 : 0;
}
END

BUFFER a DATA_TYPE uint32 SIZE 128 SERIES_FROM 0 INC_BY 1
BUFFER b DATA_TYPE uint32 SIZE 128 FILL 4
BUFFER compare DATA_TYPE uint32 SIZE 128 FILL 4

PIPELINE compute test_pipe
  ATTACH test
  BIND BUFFER a AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER b AS storage DESCRIPTOR_SET 0 BINDING 1
  SUBGROUP test
    FULLY_POPULATED on
    REQUIRED_SIZE 32
  END
END

RUN test_pipe 1 1 1

EXPECT compare IDX 0 EQ 1 0 0 0
EXPECT b EQ_BUFFER compare
"#;

#[test]
fn cts_shaped_subgroup_script() {
    let s = parse(CTS_SHAPED).unwrap();
    assert_eq!(
        s.shader("test").unwrap().target_env.as_deref(),
        Some("spv1.3")
    );
    let p = s.pipeline("test_pipe").unwrap();
    assert_eq!(p.subgroups.len(), 1);
    let sg = &p.subgroups[0];
    assert!(sg.fully_populated && !sg.varying_size);
    assert_eq!(sg.required_size, Some(RequiredSize::Size(32)));
    let a = s.buffer("a").unwrap().initial_bytes();
    assert_eq!(&a[4 * 127..], &127u32.to_le_bytes());
    let ex = expects(&s);
    assert!(matches!(ex[1].kind, ExpectKind::EqBuffer { .. }));
}

const EVERYTHING: &str = r#"#!amber
DEVICE_FEATURE VariablePointerFeatures.variablePointers
DEVICE_FEATURE SubgroupSizeControl.computeFullSubgroups
DEVICE_FEATURE SubgroupSizeControl.subgroupSizeControl
DEVICE_EXTENSION VK_EXT_subgroup_size_control
INSTANCE_EXTENSION VK_KHR_get_physical_device_properties2
SET ENGINE_DATA fence_timeout_ms 5000

VIRTUAL_FILE shaders/k.comp
#version 450
void main() {}
END

SHADER compute from_vfile GLSL VIRTUAL_FILE shaders/k.comp
SHADER compute from_file SPIRV-ASM TARGET_ENV vulkan1.1 FILE TEXT k.spvasm
SHADER compute asm SPIRV-ASM
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpReturn
               OpFunctionEnd
END
SHADER compute hex SPIRV-HEX
03 02 23 07 00 00 01 00
END

BUFFER ints DATA_TYPE int32 DATA
1 -2 0x7fffffff
-2147483648
END
BUFFER v3 DATA_TYPE vec3<float> STD430 DATA
1.0 2.0 3.0  4 5 6
END
BUFFER pc DATA_TYPE uint32 DATA 7 END
BUFFER ubo DATA_TYPE vec4<float> STD140 SIZE 2 FILL 0.5
BUFFER img FORMAT R32G32B32A32_SFLOAT
BUFFER dup DATA_TYPE int32 SIZE 4 FILL 0

PIPELINE compute p
  ATTACH asm ENTRY_POINT main SPECIALIZE 1 AS uint32 4 SPECIALIZE 2 AS float 1.5 SPECIALIZE 3 AS int32 -1
  SHADER_OPTIMIZATION asm
    --inline-entry-points-exhaustive
  END
  BIND BUFFER ints AS storage DESCRIPTOR_SET 1 BINDING 2
  BIND BUFFER ubo AS uniform BINDING 0
  BIND BUFFER pc AS push_constant
  SUBGROUP asm
    VARYING_SIZE on
    MIN_SIZE 8
    MAX_SIZE 64
  END
END

DERIVE_PIPELINE p2 FROM p
  SUBGROUP asm
    REQUIRED_SIZE MAX FULLY_POPULATED off
  END
END

RUN p 2 1 1
EXPECT ints IDX 4 NE 0
EXPECT ints IDX 0 LT 2
EXPECT ints IDX 4 LE -2
EXPECT ints IDX 8 GT 0x7ffffffe
EXPECT ints IDX 12 GE -2147483648
EXPECT v3 IDX 16 TOLERANCE 0.1 EQ 4.05 5 6
EXPECT v3 IDX 0 EQ 1 2 3 TOLERANCE 1% 2%
REPEAT 3
  RUN p2 1 1 1
  COPY ints TO dup
  EXPECT ints EQ_BUFFER dup
END
EXPECT ints RMSE_BUFFER dup TOLERANCE 0.5
EXPECT ints EQ_HISTOGRAM_EMD_BUFFER dup TOLERANCE 0.1
"#;

#[test]
fn every_command() {
    let s = parse(EVERYTHING).unwrap();
    assert_eq!(s.device_features.len(), 3);
    assert_eq!(s.device_extensions, ["VK_EXT_subgroup_size_control"]);
    assert_eq!(
        s.instance_extensions,
        ["VK_KHR_get_physical_device_properties2"]
    );
    assert_eq!(s.fence_timeout_ms, Some(5000));
    let ShaderSource::VirtualFile { text, .. } = &s.shader("from_vfile").unwrap().source else {
        panic!()
    };
    assert_eq!(text, "#version 450\nvoid main() {}\n");
    let f = s.shader("from_file").unwrap();
    assert_eq!(
        f.source,
        ShaderSource::File {
            path: "k.spvasm".into(),
            binary: false
        }
    );
    assert_eq!(f.target_env.as_deref(), Some("vulkan1.1"));
    let ShaderSource::Inline(asm) = &s.shader("asm").unwrap().source else {
        panic!()
    };
    assert!(asm.starts_with("               OpCapability Shader\n"));
    assert!(asm.ends_with("OpFunctionEnd\n"));
    assert_eq!(s.shader("hex").unwrap().format, ShaderFormat::SpirvHex);

    let ints = s.buffer("ints").unwrap();
    assert_eq!(ints.element_count, 4);
    let bytes = ints.initial_bytes();
    assert_eq!(&bytes[4..8], &(-2i32).to_le_bytes());
    assert_eq!(&bytes[12..16], &i32::MIN.to_le_bytes());
    assert_eq!(s.buffer("pc").unwrap().initial_bytes(), 7u32.to_le_bytes());
    let img = s.buffer("img").unwrap();
    assert_eq!(img.format.stride(), 16);
    assert_eq!(img.vk_format.as_deref(), Some("R32G32B32A32_SFLOAT"));

    let p = s.pipeline("p").unwrap();
    let sp = &p.attachments[0].specializations;
    assert_eq!(sp.len(), 3);
    assert_eq!(
        (sp[1].id, sp[1].ty, sp[1].bits),
        (2, Scalar::F32, 1.5f32.to_bits() as u64)
    );
    assert_eq!(sp[2].bits, 0xffff_ffff);
    assert_eq!(p.optimizations[0].1, ["--inline-entry-points-exhaustive"]);
    assert_eq!((p.bindings[0].set, p.bindings[0].binding), (1, 2));
    assert_eq!(p.bindings[1].kind, DescriptorKind::Uniform);
    assert_eq!(p.push_constant.as_deref(), Some("pc"));
    let sg = &p.subgroups[0];
    assert!(sg.varying_size);
    assert_eq!((sg.min_size, sg.max_size), (Some(8), Some(64)));
    let p2 = s.pipeline("p2").unwrap();
    assert_eq!(p2.bindings.len(), 2);
    assert_eq!(p2.push_constant.as_deref(), Some("pc"));
    assert_eq!(p2.subgroups[0].required_size, Some(RequiredSize::Max));

    assert_eq!(s.commands.len(), 11);
    let Command::Repeat {
        count, commands, ..
    } = &s.commands[8]
    else {
        panic!()
    };
    assert_eq!(*count, 3);
    assert!(matches!(commands[1], Command::Copy { .. }));
    let Command::Expect(e) = &s.commands[6] else {
        panic!()
    };
    let ExpectKind::Values { cmp, tolerance, .. } = &e.kind else {
        panic!()
    };
    assert_eq!(*cmp, Comparator::FuzzyEq);
    assert_eq!(
        tolerance[0],
        Tolerance {
            value: 0.1,
            percent: false
        }
    );
    let Command::Expect(e) = &s.commands[7] else {
        panic!()
    };
    let ExpectKind::Values { tolerance, .. } = &e.kind else {
        panic!()
    };
    assert_eq!(tolerance.len(), 2);
    assert!(tolerance[1].percent);

    // The checks against the initial contents.
    let bufs: Vec<(String, Vec<u8>)> = s
        .buffers
        .iter()
        .map(|b| (b.name.clone(), b.initial_bytes()))
        .collect();
    let get = |n: &str| bufs.iter().find(|(m, _)| m == n).map(|(_, v)| v.as_slice());
    let Command::Expect(ne) = &s.commands[1] else {
        panic!()
    };
    check_expect(ne, &get).unwrap();
    for i in [2, 3, 4, 5, 6, 7] {
        let Command::Expect(e) = &s.commands[i] else {
            panic!()
        };
        check_expect(e, &get).unwrap();
    }
}

/// `EXPECT`s naming the same buffer one after another share one name (the parser's
/// remembered name); every `EXPECT` still holds the name it was written with, whatever
/// came before it (pinned against the name read from the text).
#[test]
fn expect_buffer_names_are_shared_only_when_equal() {
    let src = "#!amber
BUFFER a DATA_TYPE uint32 SIZE 4 FILL 0
BUFFER ab DATA_TYPE uint32 SIZE 4 FILL 0
BUFFER b DATA_TYPE uint32 SIZE 4 FILL 0
EXPECT a IDX 0 EQ 0
EXPECT a IDX 4 EQ 0
EXPECT ab IDX 0 EQ 0
EXPECT b IDX 0 EQ 0
EXPECT a EQ_BUFFER b
EXPECT b IDX 0 EQ 0
EXPECT a IDX 0 EQ 0
";
    let s = parse(src).unwrap();
    let names: Vec<&std::sync::Arc<str>> = expects(&s)
        .iter()
        .filter_map(|e| match &e.kind {
            ExpectKind::Values { buffer, .. } => Some(buffer),
            _ => None,
        })
        .collect();
    let plain: Vec<&str> = names.iter().map(|n| &***n).collect();
    assert_eq!(plain, ["a", "a", "ab", "b", "b", "a"]);
    assert!(std::sync::Arc::ptr_eq(names[0], names[1]));
    assert!(std::sync::Arc::ptr_eq(names[3], names[4]));
    assert!(!std::sync::Arc::ptr_eq(names[0], names[5]));
}
