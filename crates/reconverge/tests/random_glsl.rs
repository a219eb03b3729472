//! The uniformity analysis checked dynamically on random GLSL compute shaders: nested
//! `if`s, bounded loops with divergent and uniform `break`/`continue`, switches with
//! fallthrough, early returns, helper calls, and subgroup operations whose results feed
//! later conditions. Each is compiled by glslang, analysed as loaded and with its variables
//! promoted, and run on the reference interpreter with the claims checked at every
//! observation (`common::Checker`). `TANGLE_UNIFORMITY_CASES=N` runs N programs (default 40).

mod common;

use std::fmt::Write;

use tangle_interp::{Config, FallthroughPolicy, SwitchPolicy};
use tangle_reconverge::Uniformity;
use tangle_run::source::{load_shader, ShaderKind};

/// Words of output each lane may write.
const SLOTS: u32 = 64;

struct Gen {
    rng: fastrand::Rng,
    out: String,
    loop_vars: Vec<String>,
    next_var: u32,
    budget: u32,
    in_helper: bool,
}

impl Gen {
    fn line(&mut self, depth: usize, text: &str) {
        let _ = writeln!(self.out, "{}{text}", "  ".repeat(depth + 1));
    }

    /// A `uint` expression: lane data, uniform data, loop counters, subgroup results.
    fn expr(&mut self, depth: u32) -> String {
        let leaf = depth == 0 || self.rng.u32(0..3) == 0;
        if leaf {
            let mut leaves = vec!["l", "acc", "k", "d", "u", "1u", "2u", "3u"];
            if self.in_helper {
                leaves.retain(|x| !matches!(*x, "k" | "d" | "u"));
                leaves.push("a");
            }
            let mut names: Vec<String> = leaves.iter().map(|s| s.to_string()).collect();
            names.extend(self.loop_vars.iter().cloned());
            return names[self.rng.usize(0..names.len())].clone();
        }
        let a = self.expr(depth - 1);
        let b = self.expr(depth - 1);
        match self.rng.u32(0..12) {
            0 => format!("({a} + {b})"),
            1 => format!("({a} * {b})"),
            2 => format!("({a} ^ {b})"),
            3 => format!("({a} % 5u)"),
            4 => format!("subgroupAdd({a})"),
            5 => format!("subgroupBallot({a} > {b}).x"),
            6 => format!("subgroupBroadcastFirst({a})"),
            7 => format!("subgroupInclusiveAdd({a})"),
            8 => format!("subgroupMin({a})"),
            9 => format!("(subgroupElect() ? {a} : {b})"),
            10 => format!("uint(subgroupAll({a} == {b}))"),
            _ => format!("({a} & 7u)"),
        }
    }

    fn cond(&mut self) -> String {
        match self.rng.u32(0..7) {
            0 => "subgroupElect()".into(),
            1 => format!("subgroupAny({} == 0u)", self.expr(1)),
            _ => {
                let a = self.expr(2);
                let op = ["==", "<", ">", "!="][self.rng.usize(0..4)];
                format!("({a} % 4u) {op} {}u", self.rng.u32(0..4))
            }
        }
    }

    fn stmts(&mut self, depth: usize, in_loop: bool, in_switch: bool) {
        let n = self.rng.u32(1..4);
        for _ in 0..n {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            self.stmt(depth, in_loop, in_switch);
        }
    }

    fn stmt(&mut self, depth: usize, in_loop: bool, in_switch: bool) {
        let nest = depth < 4;
        match self.rng.u32(0..14) {
            0..=2 => {
                let e = self.expr(2);
                self.line(depth, &format!("acc = acc + {e};"));
            }
            3 | 4 => {
                let e = self.expr(2);
                self.line(depth, &format!("o[l * {SLOTS}u + (c++ % {SLOTS}u)] = {e};"));
            }
            5 | 6 if nest => {
                let c = self.cond();
                self.line(depth, &format!("if ({c}) {{"));
                self.stmts(depth + 1, in_loop, in_switch);
                if self.rng.bool() {
                    self.line(depth, "} else {");
                    self.stmts(depth + 1, in_loop, in_switch);
                }
                self.line(depth, "}");
            }
            7 | 8 if nest => {
                let v = format!("i{}", self.next_var);
                self.next_var += 1;
                let bound = ["3u", "(l % 3u)", "(k % 4u)", "(d % 3u)", "(u % 5u)", "2u"]
                    [self.rng.usize(0..6)]
                .to_string();
                let bound = if self.in_helper
                    && (bound.contains('k') || bound.contains('d') || bound.contains('u'))
                {
                    "(a % 3u)".to_string()
                } else {
                    bound
                };
                self.line(
                    depth,
                    &format!("for (uint {v} = 0u; {v} < {bound}; {v}++) {{"),
                );
                self.loop_vars.push(v);
                self.stmts(depth + 1, true, false);
                self.loop_vars.pop();
                self.line(depth, "}");
            }
            9 if in_loop && !in_switch => {
                let c = self.cond();
                let what = if self.rng.bool() { "break" } else { "continue" };
                self.line(depth, &format!("if ({c}) {what};"));
            }
            10 if nest && !self.in_helper => {
                let e = self.expr(2);
                self.line(depth, &format!("switch ({e} % 4u) {{"));
                for case in ["case 0u:", "case 1u:", "case 2u:", "default:"] {
                    self.line(depth, case);
                    self.stmts(depth + 1, in_loop, true);
                    if case == "default:" || self.rng.u32(0..3) != 0 {
                        self.line(depth + 1, "break;");
                    }
                }
                self.line(depth, "}");
            }
            11 if !self.in_helper && !in_switch => {
                let c = self.cond();
                self.line(depth, &format!("if ({c}) return;"));
            }
            12 if !self.in_helper => {
                let e = self.expr(1);
                self.line(depth, &format!("acc = helper(acc + {e});"));
            }
            _ => {
                let e = self.expr(1);
                self.line(depth, &format!("acc = acc ^ {e};"));
            }
        }
    }
}

fn program(seed: u64) -> String {
    let mut g = Gen {
        rng: fastrand::Rng::with_seed(seed),
        out: String::new(),
        loop_vars: Vec::new(),
        next_var: 0,
        budget: 14,
        in_helper: true,
    };
    g.out
        .push_str("uint helper(uint a) {\n  uint acc = a;\n  uint c = a % 7u;\n  uint l = gl_SubgroupInvocationID;\n");
    g.stmts(0, false, false);
    g.out.push_str("  return acc;\n}\n");
    let helper = std::mem::take(&mut g.out);
    g.in_helper = false;
    g.budget = 22;
    g.stmts(0, false, false);
    let body = g.out;
    format!(
        r#"#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_maximal_reconvergence : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out {{ uint o[]; }};
layout(set = 0, binding = 1) readonly buffer In {{ uint inp[]; }};
{helper}
void main() [[maximally_reconverges]] {{
  uint l = gl_LocalInvocationIndex;
  uint u = gl_SubgroupSize;
  uint k = inp[0];
  uint d = inp[l + 1u];
  uint acc = 0u;
  uint c = 0u;
{body}  o[l * {SLOTS}u + (c++ % {SLOTS}u)] = acc;
}}
"#
    )
}

#[test]
fn uniform_claims_hold_on_random_shaders() {
    if tangle_oracle::require(
        tangle_oracle::Tool::Glslang,
        "uniform_claims_hold_on_random_shaders",
    )
    .is_none()
    {
        return;
    }
    let cases: u64 = std::env::var("TANGLE_UNIFORMITY_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    let (mut runs, mut checks, mut branch_checks) = (0usize, 0usize, 0usize);
    // Precision, over the promoted programs at subgroup size 32 under the default policies:
    // branches called divergent that ran in a tangle of two lanes or more, and those of them
    // that split one.
    let (mut divergent_run, mut divergent_split) = (0usize, 0usize);
    let mut failures = Vec::new();
    for seed in 0..cases {
        let src = program(seed);
        let module = load_shader(ShaderKind::Glsl, src.as_bytes(), "random", "spv1.3")
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{src}"));
        let input: Vec<u8> = (0..64u32)
            .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let buffers = vec![
            ((0, 0), vec![0u8; 32 * SLOTS as usize * 4]),
            ((0, 1), input),
        ];
        for (variant, m) in [
            ("as loaded", module.clone()),
            ("promoted", common::promoted(&module)),
        ] {
            let analysis = Uniformity::analyse(&m);
            for size in [4, 8, 32] {
                for (switch_policy, fallthrough_policy) in [
                    (SwitchPolicy::ByTarget, FallthroughPolicy::Independent),
                    (SwitchPolicy::BySelector, FallthroughPolicy::Merge),
                ] {
                    let config = Config {
                        subgroup_size: size,
                        switch_policy,
                        fallthrough_policy,
                        record_trace: false,
                        step_budget: 2_000_000,
                        ..Config::default()
                    };
                    let t = common::check_run(&m, &analysis, "main", config, &buffers)
                        .unwrap_or_else(|e| panic!("seed {seed} ({variant}): {e}\n{src}"));
                    runs += 1;
                    if variant == "promoted"
                        && size == 32
                        && switch_policy == SwitchPolicy::ByTarget
                    {
                        divergent_run += t.divergent_branches_run.len();
                        divergent_split += t.divergent_branches_split.len();
                    }
                    checks += t.uniform_checks;
                    branch_checks += t.uniform_branch_checks;
                    for v in t.violations {
                        failures.push(format!("seed {seed} ({variant}, subgroup {size}): {v}"));
                    }
                }
            }
        }
        if !failures.is_empty() {
            panic!("{}\n{src}", failures.join("\n"));
        }
    }
    assert!(
        checks > runs * 10,
        "only {checks} uniform values checked in {runs} runs"
    );
    assert!(branch_checks > 0, "no uniform branch was checked");
    eprintln!("{runs} runs, {checks} uniform values and {branch_checks} uniform branches checked");
    eprintln!(
        "precision (promoted, subgroup 32): {divergent_split} of {divergent_run} branches \
         called divergent split a tangle"
    );
}
