//! The control flow of a [`Program`] printed in a C-like language, shared by the GLSL
//! ([`crate::glsl`]) and CUDA ([`crate::cuda`]) emitters: both spell if, the loops, switch
//! with fallthrough and the jumps alike, and differ only in how a lane observes its tangle,
//! how it elects, and how a helper is called ([`CLike`]).

use std::fmt::Write as _;

use crate::ast::{block_always_jumps, Cond, Selector, Stmt, Trip};

/// What one C-like language spells its own way.
pub(crate) trait CLike {
    /// The lane's index within its subgroup, already below 32 where used as a shift.
    const LANE_BITS: &'static str;
    /// The lane's index within its subgroup.
    const LANE: &'static str;
    /// The invocation's index within the workgroup.
    const INV: &'static str;
    /// The expression that elects one lane of those executing together.
    const ELECT: &'static str;

    /// Prints an observation (`Ballot`, `Elect`, `Collective`) at `pad`.
    fn observation(&self, s: &mut String, pad: &str, st: &Stmt);

    /// The call of helper `func` with argument `arg`.
    fn call(&self, func: u32, arg: &str) -> String;

    /// Prints `stmts` at indentation `depth`.
    fn list(&self, s: &mut String, stmts: &[Stmt], depth: usize) {
        for st in stmts {
            stmt(self, s, st, depth);
        }
    }
}

/// A branch condition.
pub(crate) fn cond<L: CLike + ?Sized>(c: &Cond) -> String {
    let (lane, lane_bits, inv) = (L::LANE, L::LANE_BITS, L::INV);
    match c {
        Cond::LaneMask(m) => format!("((({m}u >> {lane_bits}) & 1u) != 0u)"),
        Cond::Uniform { index, value } => format!("(inp[{index}] == {value}u)"),
        Cond::LoopIndexIsLane { loop_id } => format!("(({lane} & 3u) == i{loop_id})"),
        Cond::InvocationBelowInput { index } => format!("({inv} < inp[{index}])"),
        Cond::ArgIsLane => format!("(({lane} & 3u) == arg)"),
    }
}

/// Prints one statement at indentation `depth`.
pub(crate) fn stmt<L: CLike + ?Sized>(l: &L, s: &mut String, st: &Stmt, depth: usize) {
    let pad = "  ".repeat(depth);
    let elect = L::ELECT;
    match st {
        Stmt::Ballot { .. } | Stmt::Elect { .. } | Stmt::Collective { .. } => {
            l.observation(s, &pad, st)
        }
        Stmt::If { cond: c, then, els } => {
            let _ = writeln!(s, "{pad}if {} {{", cond::<L>(c));
            l.list(s, then, depth + 1);
            if let Some(els) = els {
                let _ = writeln!(s, "{pad}}} else {{");
                l.list(s, els, depth + 1);
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
                Trip::LaneBits(m) => format!("(({} & {m}u) + 1u)", L::LANE),
            };
            let _ = writeln!(s, "{pad}i{loop_id} = 0u;\n{pad}do {{");
            l.list(s, body, depth + 1);
            let _ = writeln!(s, "{pad}}} while (++i{loop_id} < {count});");
        }
        Stmt::Infinite { body } => {
            let _ = writeln!(s, "{pad}while (true) {{");
            l.list(s, body, depth + 1);
            if !block_always_jumps(body) {
                let _ = writeln!(s, "{pad}  if ({elect}) {{ break; }}");
            }
            let _ = writeln!(s, "{pad}}}");
        }
        Stmt::DoWhileElect { body } => {
            let _ = writeln!(s, "{pad}do {{");
            l.list(s, body, depth + 1);
            let _ = writeln!(s, "{pad}}} while (!{elect});");
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
                Selector::LaneBits => format!("{} & 3u", L::LANE),
            };
            let _ = writeln!(s, "{pad}switch ({sel}) {{");
            let labels = default
                .iter()
                .map(|d| ("default:".to_string(), d))
                .chain(cases.iter().map(|(c, b)| (format!("case {c}u:"), b)));
            let mut any = false;
            for (k, (label, body)) in labels.enumerate() {
                any = true;
                let _ = writeln!(s, "{pad}{label} {{");
                l.list(s, body, depth + 1);
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
            let a = arg.map_or("1u".to_string(), |i| format!("i{i}"));
            let _ = writeln!(s, "{pad}{};", l.call(*func, &a));
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
