//! A [`Program`] as a GLSL compute shader (`GL_EXT_maximal_reconvergence`), with the same
//! buffers and records as the built IR, so glslang's SPIR-V can be run and compared too.

use std::fmt::Write as _;

use crate::ast::{block_always_jumps, Collective, Cond, Program, Selector, Stmt, Trip};

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

const LANE: &str = "gl_SubgroupInvocationID";
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

    fn cond(c: &Cond) -> String {
        match c {
            Cond::LaneMask(m) => format!("((({m}u >> ({LANE} & 31u)) & 1u) != 0u)"),
            Cond::Uniform { index, value } => format!("(inp[{index}] == {value}u)"),
            Cond::LoopIndexIsLane { loop_id } => format!("(({LANE} & 3u) == i{loop_id})"),
            Cond::InvocationBelowInput { index } => format!("({INV} < inp[{index}])"),
            Cond::ArgIsLane => format!("(({LANE} & 3u) == arg)"),
        }
    }

    fn list(&self, s: &mut String, stmts: &[Stmt], depth: usize) {
        for st in stmts {
            self.stmt(s, st, depth);
        }
    }

    fn stmt(&self, s: &mut String, st: &Stmt, depth: usize) {
        let pad = "  ".repeat(depth);
        match st {
            Stmt::Ballot { id } => self.record(s, &pad, *id, "subgroupBallot(true)"),
            Stmt::Elect { id } => {
                self.record(s, &pad, *id, "uvec4(uint(subgroupElect()), 0u, 0u, 0u)")
            }
            Stmt::Collective { id, op } => {
                let f = match op {
                    Collective::Sum => "subgroupAdd",
                    Collective::InclusiveSum => "subgroupInclusiveAdd",
                    Collective::BroadcastFirst => "subgroupBroadcastFirst",
                };
                let words = format!("uvec4({f}({INV} + 1u), 0u, 0u, 0u)");
                self.record(s, &pad, *id, &words);
            }
            Stmt::If { cond, then, els } => {
                let _ = writeln!(s, "{pad}if {} {{", Self::cond(cond));
                self.list(s, then, depth + 1);
                if let Some(els) = els {
                    let _ = writeln!(s, "{pad}}} else {{");
                    self.list(s, els, depth + 1);
                }
                let _ = writeln!(s, "{pad}}}");
            }
            Stmt::For {
                loop_id,
                trip,
                body,
            } => {
                let count = match trip {
                    Trip::Uniform(n) => format!("{n}u"),
                    Trip::LaneBits(m) => format!("(({LANE} & {m}u) + 1u)"),
                };
                let _ = writeln!(s, "{pad}i{loop_id} = 0u;\n{pad}do {{");
                self.list(s, body, depth + 1);
                let _ = writeln!(s, "{pad}}} while (++i{loop_id} < {count});");
            }
            Stmt::Infinite { body } => {
                let _ = writeln!(s, "{pad}while (true) {{");
                self.list(s, body, depth + 1);
                if !block_always_jumps(body) {
                    let _ = writeln!(s, "{pad}  if (subgroupElect()) {{ break; }}");
                }
                let _ = writeln!(s, "{pad}}}");
            }
            Stmt::DoWhileElect { body } => {
                let _ = writeln!(s, "{pad}do {{");
                self.list(s, body, depth + 1);
                let _ = writeln!(s, "{pad}}} while (!subgroupElect());");
            }
            Stmt::Switch {
                selector,
                cases,
                default,
                fallthrough,
            } => {
                let sel = match selector {
                    Selector::Uniform { index } => format!("inp[{index}] & 3u"),
                    Selector::LoopIndex { loop_id } => format!("i{loop_id}"),
                    Selector::LaneBits => format!("{LANE} & 3u"),
                };
                let _ = writeln!(s, "{pad}switch ({sel}) {{");
                let labels = default
                    .iter()
                    .map(|d| ("default:".to_string(), d))
                    .chain(cases.iter().map(|(l, b)| (format!("case {l}u:"), b)));
                let mut any = false;
                for (k, (label, body)) in labels.enumerate() {
                    any = true;
                    let _ = writeln!(s, "{pad}{label} {{");
                    self.list(s, body, depth + 1);
                    let _ = writeln!(s, "{pad}}}");
                    if !fallthrough[k] && !block_always_jumps(body) {
                        let _ = writeln!(s, "{pad}  break;");
                    }
                }
                if !any {
                    let _ = writeln!(s, "{pad}default: break;");
                }
                let _ = writeln!(s, "{pad}}}");
            }
            Stmt::Call { func, arg } => {
                let a = arg.map_or("1u".to_string(), |l| format!("i{l}"));
                let _ = writeln!(s, "{pad}helper{func}({a});");
            }
            Stmt::Break => {
                let _ = writeln!(s, "{pad}break;");
            }
            Stmt::Continue => {
                let _ = writeln!(s, "{pad}continue;");
            }
            Stmt::Return => {
                let _ = writeln!(s, "{pad}return;");
            }
        }
    }
}
