//! 16-bit float arithmetic from GLSL (`float16_t`), compiled by glslang (when it is
//! installed: `tools/install-oracles.sh`, or `TANGLE_ORACLES` / `TANGLE_GLSLANG`), read by
//! the front end and run. Every expected value is derived by hand below; f16 has 10 fraction
//! bits, so in [1, 2) its spacing (ulp) is 2^-10, in [2, 4) 2^-9, and so on; the largest
//! finite value is 65504 and everything from 65520 up rounds to infinity. Ties round to the
//! even significand.

use tangle_interp::{Config, Interpreter};

const SHADER: &str = r#"#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_shader_subgroup_extended_types_float16 : require
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Out16 { float16_t o[]; };
layout(set = 0, binding = 1) buffer OutU { uint u[]; };
layout(set = 0, binding = 2) readonly buffer In16 { float16_t x[]; };
layout(set = 0, binding = 3) readonly buffer InF { float y[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  float16_t a = x[3u * i], b = x[3u * i + 1u], c = x[3u * i + 2u];
  uint k = 12u * i;
  o[k + 0u] = a + b;
  o[k + 1u] = a * b;
  o[k + 2u] = a / b;
  o[k + 3u] = fma(a, b, c);
  o[k + 4u] = sqrt(a);
  o[k + 5u] = min(a, b);
  o[k + 6u] = subgroupInclusiveAdd(a);
  o[k + 7u] = dot(f16vec2(a, b), f16vec2(a, b));
  o[k + 8u] = float16_t(y[i]);
  o[k + 9u] = float16_t(2049u + i);
  o[k + 10u] = a - b;
  o[k + 11u] = -1.5hf * a;
  u[4u * i + 0u] = packFloat2x16(f16vec2(a, b));
  u[4u * i + 1u] = uint(a);
  u[4u * i + 2u] = b < c ? 1u : 0u;
  u[4u * i + 3u] = floatBitsToUint(float(a));
}
"#;

/// (a, b, c) per invocation, as f16 bits.
const INPUT: [[u16; 3]; 4] = [
    // 1, 2^-11, 0.5
    [0x3c00, 0x1000, 0x3800],
    // 1 + 2^-10, 2^-11, 1
    [0x3c01, 0x1000, 0x3c00],
    // 65504 (the largest), 0.5, -32736 (2046 · 16)
    [0x7bff, 0x3800, 0xf7fe],
    // 3, 0.0999755859375 (1638 · 2^-14, the f16 nearest 0.1), -0.2998046875 (1228 · 2^-12)
    [0x4200, 0x2e66, 0xb4cc],
];

/// y per invocation (f32): 1 + 2^-11, 1 + 2^-11 + 2^-23, 65520, 65520 - 2^-8.
const INPUT_F32: [u32; 4] = [0x3f80_1000, 0x3f80_1001, 0x477f_f000, 0x477f_efff];

/// The f16 results `o[12 i + k]`, derived by hand.
const WANT_F16: [[u16; 12]; 4] = [
    [
        0x3c00, // a + b = 1 + 2^-11: the tie between 1 and 1 + 2^-10; even: 1
        0x1000, // a * b = 2^-11 (exponent -11 + 15 = 4)
        0x6800, // a / b = 2048
        0x3801, // fma = 0.5 + 2^-11: exact (ulp in [0.5, 1) is 2^-11)
        0x3c00, // sqrt(1) = 1
        0x1000, // min = 2^-11
        0x3c00, // inclusive add over lanes 0..=0: 1
        0x3c00, // dot: 1 + 2^-22 (b² is the subnormal 4 · 2^-24) rounds to 1
        0x3c00, // f16(1 + 2^-11): tie, to even: 1
        0x6800, // f16(2049): tie between 2048 and 2050 (ulp 2); even: 2048
        0x3bff, // a - b = 1 - 2^-11: exact (1023 · 2^-11 · 2)
        0xbe00, // -1.5 · 1
    ],
    [
        0x3c02, // 1 + 2^-10 + 2^-11: tie between 1 + 2^-10 and 1 + 2^-9; even: 1 + 2^-9
        0x1001, // (1 + 2^-10) · 2^-11 = 2^-11 + 2^-21: exact (ulp 2^-21)
        0x6801, // (1 + 2^-10) / 2^-11 = 2050: exact
        0x3c01, // fma = 1 + 2^-11 + 2^-21: just above the tie: 1 + 2^-10 (fused, one rounding)
        0x3c00, // sqrt(1 + 2^-10) ≈ 1 + 2^-11 - 2^-23: below the tie: 1
        0x1000, // min = 2^-11
        0x4000, // 1 + (1 + 2^-10) = 2 + 2^-10: tie in [2, 4) (ulp 2^-9); even: 2
        0x3c02, // a² = 1 + 2^-9 + 2^-20 → 1 + 2^-9; + 2^-22 → 1 + 2^-9
        0x3c01, // f16(1 + 2^-11 + 2^-23): above the tie: 1 + 2^-10
        0x6801, // f16(2050): exact
        0x3c00, // (1 + 2^-10) - 2^-11 = 1 + 2^-11: tie; even: 1
        0xbe02, // -1.5 · (1 + 2^-10) = -(1 + 513.5 · 2^-10): tie; even: -(1 + 514 · 2^-10)
    ],
    [
        0x7bff, // 65504.5 → 65504 (ulp 32)
        0x77ff, // 32752 = 2047 · 16: exact
        0x7c00, // 131008: overflow to infinity
        0x4c00, // fma = 32752 - 32736 = 16
        0x5bff, // sqrt(65504) = 255.93749…, nearest 255.9375 = 2047 · 2^-3
        0x3800, // min = 0.5
        0x7bff, // 2 + 65504 = 65506 → 65504
        0x7c00, // a² overflows: infinity
        0x7c00, // f16(65520): the tie above 65504 goes to infinity
        0x6802, // f16(2051): tie between 2050 (odd) and 2052 (even): 2052
        0x7bff, // 65503.5 → 65504
        0xfc00, // -98256: -infinity
    ],
    [
        0x4233, // 3.0999755859375 = 1587.1875 · 2^-9 → 1587 · 2^-9 = 3.099609375
        0x34cc, // 3 · 1638 · 2^-14 = 1228.5 · 2^-12: tie; even: 1228 · 2^-12
        0x4f80, // 3 / 0.0999755859375 = 30.0073… = 1920.47 · 2^-6 → 30
        0x0800, // fma = 1228.5 · 2^-12 - 1228 · 2^-12 = 2^-13 (0 if a · b were rounded first)
        0x3eee, // sqrt(3) = 1.7320508… = 1773.6 · 2^-10 → 1774 · 2^-10
        0x2e66, // min = b
        0x7bff, // 65504 + 3 → 65504
        0x4881, // 9 + b² (= 1310.08 · 2^-17 → 1310 · 2^-17) = 1153.28 · 2^-7 → 1153 · 2^-7
        0x7bff, // f16(65520 - 2^-8): below the tie: 65504
        0x6802, // f16(2052): exact
        0x41cd, // 3 - 0.0999755859375 = 1484.8125 · 2^-9 → 1485 · 2^-9
        0xc480, // -1.5 · 3 = -4.5
    ],
];

/// `u[4 i + k]`: packFloat2x16(a, b) (a in the low half), uint(a), b < c, the f32 bits of a.
const WANT_U32: [[u32; 4]; 4] = [
    [0x1000_3c00, 1, 1, 0x3f80_0000],
    [0x1000_3c01, 1, 1, 0x3f80_2000], // 1 + 2^-10 as f32: fraction bit 13
    [0x3800_7bff, 65504, 0, 0x477f_e000], // 65504 = 1023 · 2^13 in the f32 fraction
    [0x2e66_4200, 3, 0, 0x4040_0000],
];

#[test]
fn f16_arithmetic_from_glsl() {
    if let Err(e) = tangle_spirv::glslang::find_glslang() {
        assert!(
            !tangle_oracle::oracles_mandatory(),
            "f16_arithmetic_from_glsl: {e}"
        );
        eprintln!("SKIPPED f16_arithmetic_from_glsl: glslangValidator not found");
        return;
    }
    let compiled = tangle_spirv::glslang::compile(SHADER, "f16.comp", "vulkan1.1").unwrap();
    let m = tangle_spirv::reader::read_binary(&compiled.spirv).unwrap();
    tangle_ir::verify::verify(&m).unwrap();
    let mut it = Interpreter::new(&m, "main", Config::default()).unwrap();
    it.bind_buffer(0, 0, vec![0; 2 * 48]);
    it.bind_buffer(0, 1, vec![0; 4 * 16]);
    it.bind_buffer(
        0,
        2,
        INPUT
            .iter()
            .flatten()
            .flat_map(|h| h.to_le_bytes())
            .collect(),
    );
    it.bind_buffer(
        0,
        3,
        INPUT_F32.iter().flat_map(|w| w.to_le_bytes()).collect(),
    );
    let o = it.run().unwrap();
    let halves: Vec<u16> = o.buffers[&(0, 0)]
        .chunks(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    let words: Vec<u32> = o.buffers[&(0, 1)]
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for i in 0..4 {
        for k in 0..12 {
            assert_eq!(
                halves[12 * i + k],
                WANT_F16[i][k],
                "invocation {i}, o[{k}]: {:#06x}",
                halves[12 * i + k]
            );
        }
        assert_eq!(&words[4 * i..4 * i + 4], &WANT_U32[i], "invocation {i}, u");
    }
}
