//! A [`Program`] as a GLSL compute shader (`GL_EXT_maximal_reconvergence`), with the same
//! buffers and records as the built IR, so glslang's SPIR-V can be run and compared too.

use std::fmt::Write as _;

use crate::ast::{Collective, Program, Stmt};
use crate::clike::CLike;

/// The GLSL source of `program`.
pub fn to_glsl(program: &Program) -> String {
    let mut s = String::from(
        "#version 450\n\
         #extension GL_KHR_shader_subgroup_basic : require\n\
         #extension GL_KHR_shader_subgroup_ballot : require\n\
         #extension GL_KHR_shader_subgroup_arithmetic : require\n\
         #extension GL_EXT_maximal_reconvergence : require\n",
    );
    let _ = writeln!(s, "layout(local_size_x = {}) in;", program.local_size);
    s.push_str("layout(set = 0, binding = 0) buffer Out { uint o[]; };\n");
    s.push_str("layout(set = 0, binding = 1) buffer In { uint inp[]; };\n");
    s.push_str("uint loc;\n");
    for l in 0..program.loops {
        let _ = writeln!(s, "uint i{l};");
    }
    let stride = program.local_size * crate::ast::RECORD_WORDS;
    let e = Emit { stride };
    // Helpers last first: each calls only the ones after it.
    for (k, body) in program.functions.iter().enumerate().rev() {
        let _ = writeln!(s, "void helper{k}(uint arg) {{");
        e.list(&mut s, body, 1);
        s.push_str("}\n");
    }
    s.push_str("void main() [[maximally_reconverges]] {\n  loc = 0u;\n");
    e.list(&mut s, &program.body, 1);
    s.push_str("}\n");
    s
}

struct Emit {
    stride: u32,
}

const INV: &str = "gl_LocalInvocationIndex";

impl Emit {
    fn record(&self, s: &mut String, pad: &str, id: u32, words: &str) {
        let _ = writeln!(
            s,
            "{pad}{{ uvec4 w = {words}; uint b = loc * {}u + {INV} * 5u; \
             o[b] = w.x; o[b + 1u] = w.y; o[b + 2u] = w.z; o[b + 3u] = w.w; \
             o[b + 4u] = {}u; loc++; }}",
            self.stride,
            id + 1
        );
    }
}

impl CLike for Emit {
    const LANE_BITS: &'static str = "(gl_SubgroupInvocationID & 31u)";
    const LANE: &'static str = "gl_SubgroupInvocationID";
    const INV: &'static str = INV;
    const ELECT: &'static str = "subgroupElect()";

    fn observation(&self, s: &mut String, pad: &str, st: &Stmt) {
        match st {
            Stmt::Ballot { id } => self.record(s, pad, *id, "subgroupBallot(true)"),
            Stmt::Elect { id } => {
                self.record(s, pad, *id, "uvec4(uint(subgroupElect()), 0u, 0u, 0u)")
            }
            Stmt::Collective { id, op } => {
                let f = match op {
                    Collective::Sum => "subgroupAdd",
                    Collective::InclusiveSum => "subgroupInclusiveAdd",
                    Collective::BroadcastFirst => "subgroupBroadcastFirst",
                };
                let words = format!("uvec4({f}({INV} + 1u), 0u, 0u, 0u)");
                self.record(s, pad, *id, &words);
            }
            _ => unreachable!("not an observation: {st:?}"),
        }
    }

    fn call(&self, func: u32, arg: &str) -> String {
        format!("helper{func}({arg})")
    }
}
