//! Graphviz view of a lowered module: one cluster per function, one node per block
//! listing its barrier operations, each barrier (a `bar_set` value) in its own colour on
//! the blocks that open, sync or break it, and edges drawn by the uniformity analysis of
//! the lowered code: solid for a uniform branch, bold dashed red where lanes may split.

use std::fmt::Write;
use tangle_ir::hash::FxHashMap;

use tangle_ir::{Module, Op, Operand, TangleOp, Value};

use crate::Uniformity;

const COLOURS: [&str; 8] = [
    "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
];

/// The lowered (or any) module as a Graphviz `digraph`.
pub fn to_dot(module: &Module) -> String {
    let uniformity = Uniformity::analyse(module);
    let mut out = String::from("digraph lowered {\n  node [shape=box, fontname=monospace];\n");
    for (fid, f) in module.funcs.iter() {
        if f.layout.is_empty() {
            continue;
        }
        let fu = uniformity.function(fid);
        let name = f.name.as_deref().unwrap_or("");
        let _ = writeln!(
            out,
            "  subgraph cluster_{fid} {{\n    label=\"{fid} {name}\";"
        );
        let mut colour: FxHashMap<Value, &str> = FxHashMap::default();
        for &b in &f.layout {
            let mut lines = vec![format!("{b}")];
            let mut fill = None;
            for &i in &f.blocks[b].insts {
                let data = &f.insts[i];
                let Op::Tangle(t) = data.op else { continue };
                let named = |v: Option<&Operand>| match v {
                    Some(Operand::Value(v)) => Some(*v),
                    _ => None,
                };
                let bar = match t {
                    TangleOp::BarSet => data.result,
                    TangleOp::BarSync | TangleOp::BarBreak => named(data.args.first()),
                    _ => None,
                };
                if let Some(v) = bar {
                    let next = COLOURS[colour.len() % COLOURS.len()];
                    fill = Some(*colour.entry(v).or_insert(next));
                }
                let what = match (t, bar) {
                    (TangleOp::BarSet, Some(v)) => format!("{v} = bar_set"),
                    (TangleOp::BarSync, Some(v)) => format!("bar_sync {v}"),
                    (TangleOp::BarBreak, Some(v)) => format!("bar_break {v}"),
                    (TangleOp::Exit, _) => "exit".to_string(),
                    (other, _) => other.name().to_string(),
                };
                lines.push(what);
            }
            let style = fill.map_or(String::new(), |c| {
                format!(", style=filled, fillcolor=\"{c}40\", color=\"{c}\", penwidth=2")
            });
            let _ = writeln!(
                out,
                "    \"{fid}_{b}\" [label=\"{}\\l\"{style}];",
                lines.join("\\l")
            );
        }
        for &b in &f.layout {
            let uniform = fu.is_none_or(|u| u.branch_is_uniform(b));
            let mut succs = f.blocks[b].term.successors();
            succs.dedup();
            let style = if succs.len() > 1 && !uniform {
                " [style=\"bold,dashed\", color=red]"
            } else {
                ""
            };
            for s in succs {
                let _ = writeln!(out, "    \"{fid}_{b}\" -> \"{fid}_{s}\"{style};");
            }
        }
        out.push_str("  }\n");
    }
    out.push_str("}\n");
    out
}
