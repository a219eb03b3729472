//! The analysis as an annotated IR listing (`tangle ir --uniformity`): the module's text
//! with a comment on every value definition and on every conditional branch or switch, and
//! on loop headers whose exits are divergent.

use tangle_ir::{Block, Func, Module, Value};

use crate::uniformity::Uniformity;

/// The text of `module` with `analysis`'s verdicts as end-of-line comments:
/// `; uniform`, `; divergent`, `; uniform inside its loop or switch, divergent after` on
/// each defined value, `; uniform branch` / `; divergent branch` on each `br_if` and
/// `switch`, and `; divergent exits` on the `loop_merge` of such loops.
pub fn annotate(module: &Module, analysis: &Uniformity) -> String {
    let text = tangle_ir::text::print(module);
    let mut out = String::with_capacity(text.len() * 2);
    let mut func: Option<Func> = None;
    let mut block: Option<Block> = None;
    for line in text.lines() {
        out.push_str(line);
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("fn f") {
            func = number(rest).map(Func::from_u32);
            block = None;
        } else if let Some(rest) = line.strip_prefix('b').filter(|r| r.ends_with(':')) {
            block = number(rest).map(Block::from_u32);
        }
        let verdicts = func.and_then(|f| analysis.function(f));
        if let (Some(u), true) = (verdicts, line.starts_with("  ")) {
            let note = if let Some(rest) = trimmed.strip_prefix('v').filter(|r| r.contains(" = ")) {
                number(rest).map(|n| {
                    let v = Value::from_u32(n);
                    if u.is_uniform(v) {
                        "uniform"
                    } else if block.is_some_and(|b| u.is_uniform_at(v, b)) {
                        "uniform inside its loop or switch, divergent after"
                    } else {
                        "divergent"
                    }
                })
            } else if trimmed.starts_with("br_if ") || trimmed.starts_with("switch ") {
                block.map(|b| {
                    if u.branch_is_uniform(b) {
                        "uniform branch"
                    } else {
                        "divergent branch"
                    }
                })
            } else if trimmed.starts_with("loop_merge ") {
                block
                    .filter(|b| u.has_divergent_exits(*b))
                    .map(|_| "divergent exits")
            } else {
                None
            };
            if let Some(note) = note {
                out.push_str("  ; ");
                out.push_str(note);
            }
        }
        out.push('\n');
    }
    out
}

/// The decimal number at the start of `s`.
fn number(s: &str) -> Option<u32> {
    let digits: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}
