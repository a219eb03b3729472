//! Seed 000's three loops written in GLSL, compiled by glslang (when it is installed:
//! `tools/install-oracles.sh`, or `TANGLE_ORACLES` / `TANGLE_GLSLANG`), read by the front
//! end and run: the same results as the hand-written IR in `seed000.rs`.

use tangle_interp::{Config, Interpreter};

fn source(version: u32) -> String {
    let body = match version {
        1 => "for (;;) { x = thing(i); i++; if (x > 200u) { s = subgroupAdd(x); break; } }\n  m = subgroupMin(s);",
        2 => "for (;;) { x = thing(i); i++; if (x > 200u) break; }\n  s = subgroupAdd(x);\n  m = subgroupMin(s);",
        _ => "for (;;) { x = thing(i); i++; if (x > 200u) { s = subgroupAdd(x); m = subgroupMin(s); break; } }",
    };
    format!(
        r#"#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_maximal_reconvergence : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out {{ uint o[]; }};
layout(set = 0, binding = 1) buffer In {{ uint inp[]; }};
uint thing(uint i) {{ return inp[i * 32u + gl_LocalInvocationIndex]; }}
void main() [[maximally_reconverges]] {{
  uint i = 0u, x = 0u, s = 0u, m = 0u;
  {body}
  o[gl_LocalInvocationIndex] = m;
}}
"#
    )
}

#[test]
fn seed000_loops_from_glsl() {
    if let Err(e) = tangle_spirv::glslang::find_glslang() {
        assert!(
            !tangle_oracle::oracles_mandatory(),
            "seed000_loops_from_glsl: {e}"
        );
        eprintln!("SKIPPED seed000_loops_from_glsl: glslangValidator not found");
        return;
    }
    let input: Vec<u8> = (0..3u32)
        .flat_map(|i| (0..32u32).map(move |l| if i == l % 3 { 201 + l } else { l }))
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let group = |j: u32| {
        (0..32u32)
            .filter(|l| l % 3 == j)
            .map(|l| 201 + l)
            .sum::<u32>()
    };
    let total: u32 = (0..32u32).map(|l| 201 + l).sum();
    let want = [
        vec![(0..3).map(group).min().unwrap(); 32],
        vec![total; 32],
        (0..32).map(|l| group(l % 3)).collect::<Vec<_>>(),
    ];
    for v in 1..=3u32 {
        let compiled =
            tangle_spirv::glslang::compile(&source(v), "seed000.comp", "vulkan1.1").unwrap();
        let mut m = tangle_spirv::reader::read_binary(&compiled.spirv).unwrap();
        if compiled.maximal_reconvergence {
            tangle_spirv::glslang::with_maximal_reconvergence(&mut m);
        }
        tangle_ir::verify::verify(&m).unwrap();
        let mut it = Interpreter::new(&m, "main", Config::default()).unwrap();
        it.bind_buffer(0, 0, vec![0; 128]);
        it.bind_buffer(0, 1, input.clone());
        let o = it.run().unwrap();
        let got: Vec<u32> = o.buffers[&(0, 0)]
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, want[v as usize - 1], "version {v}");
    }
}
