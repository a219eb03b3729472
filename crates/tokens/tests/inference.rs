//! Token inference and the preheader transform: the results verify, keep the brute-force
//! oracle's rules, and put the tokens where the definitions say.

use tangle_ir::module::{Func, Module};
use tangle_ir::ops::{Op, TangleOp};
use tangle_ir::text::{parse, print};
use tangle_ir::verify::verify;
use tangle_tokens::brute;
use tangle_tokens::random::{token_cfg, Shape};

fn cases(default: usize) -> usize {
    std::env::var("TANGLE_TOKEN_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn token_ops(module: &Module, f: Func, op: TangleOp) -> usize {
    let func = &module.funcs[f];
    func.layout
        .iter()
        .flat_map(|&b| func.blocks[b].insts.iter())
        .filter(|&&i| func.insts[i].op == Op::Tangle(op))
        .count()
}

#[test]
fn fuzz_programs_get_tokens_that_verify() {
    let mut with_loops = 0;
    for seed in 0..cases(300) as u64 {
        let program = tangle_fuzz::generate(seed, tangle_fuzz::GenConfig::default());
        let mut module = tangle_fuzz::build::build_module(&program);
        assert!(
            tangle_tokens::infer::run(&mut module),
            "seed {seed}: nothing to infer"
        );
        if let Err(e) = verify(&module) {
            panic!("seed {seed}:\n{e}\n{}", print(&module));
        }
        for (f, func) in module.funcs.iter() {
            if func.layout.len() <= 14 {
                assert!(brute::check(&module, f).is_empty(), "seed {seed} {f}");
            }
            // One heart per loop header, one entry per function with a convergent operation.
            let headers = func
                .layout
                .iter()
                .filter(|&&b| matches!(func.blocks[b].merge, Some(tangle_ir::Merge::Loop { .. })))
                .count();
            assert_eq!(
                token_ops(&module, f, TangleOp::ConvLoop),
                headers,
                "seed {seed} {f}"
            );
            with_loops += usize::from(headers > 0);
        }
        // A second run finds every function controlled and changes nothing.
        assert!(!tangle_tokens::infer::run(&mut module), "seed {seed}");
    }
    assert!(with_loops > 0);
}

/// Seed 004's shape: the entry branches into two natural loops `b1` and `b2` that branch
/// into each other, so together they form an irreducible cycle; each loop holds a subgroup
/// operation.
const SEED_004: &str = "spirv 1.3
memory_model GLSL450
capability Shader
capability Linkage
capability GroupNonUniform

type t0 = void
type t1 = bool

fn f0 \"seed_004\"(v0: bool, v1: bool) -> void lowered {
b0:
  br_if v0, b1, b2
b1:
  v2 = group_elect[subgroup] bool
  br_if v1, b1, b3
b3:
  br_if v0, b2, b5
b2:
  v3 = group_elect[subgroup] bool
  br_if v1, b2, b4
b4:
  br_if v0, b1, b5
b5:
  v4 = group_elect[subgroup] bool
  return
}
";

#[test]
fn seed_004_natural_loops_in_an_irreducible_cycle_get_anchored_preheaders() {
    let mut module = parse(SEED_004).expect("parses");
    verify(&module).expect("valid before");
    assert!(tangle_tokens::preheader::run(&mut module));
    let text = print(&module);
    verify(&module).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let f = module.funcs.keys().next().expect("f0");
    assert!(brute::check(&module, f).is_empty(), "{text}");
    // Two preheaders with an anchor each, two hearts on those anchors, one entry.
    assert_eq!(token_ops(&module, f, TangleOp::ConvAnchor), 2, "{text}");
    assert_eq!(token_ops(&module, f, TangleOp::ConvLoop), 2, "{text}");
    assert_eq!(token_ops(&module, f, TangleOp::ConvEntry), 1, "{text}");
    let func = &module.funcs[f];
    for &b in &func.layout {
        for &i in &func.blocks[b].insts {
            let d = &func.insts[i];
            if d.op == Op::Tangle(TangleOp::ConvLoop) {
                let t = d.conv.expect("a heart has a token");
                let tangle_ir::ValueDef::Inst(def) = func.values[t].def else {
                    panic!("{text}");
                };
                assert_eq!(
                    func.insts[def].op,
                    Op::Tangle(TangleOp::ConvAnchor),
                    "{text}"
                );
                // The preheader holds only the anchor and branches to the header.
                let (pre, _) = func.inst_position(def).expect("laid out");
                assert_eq!(
                    func.blocks[pre].term,
                    tangle_ir::Terminator::Branch(b),
                    "{text}"
                );
            }
        }
    }
}

#[test]
fn random_graphs_get_tokens_that_keep_every_rule() {
    let mut rng = fastrand::Rng::with_seed(0x4ea7);
    let mut irreducible = 0;
    for case in 0..cases(1500) {
        let (mut module, f) = token_cfg(&mut rng, Shape::default());
        // Strip the generator's tokens: inference starts from uncontrolled code.
        let func = &mut module.funcs[f];
        func.convergent = true;
        let all: Vec<_> = func.insts.keys().collect();
        for i in all {
            func.insts[i].conv = None;
            if matches!(func.insts[i].op, Op::Tangle(_)) {
                func.remove_inst(i);
            }
        }
        let before = print(&module);
        let cfg = tangle_ir::cfg::Cfg::new(&module.funcs[f]);
        let info = tangle_ir::analysis::CycleInfo::new(&module.funcs[f], &cfg);
        irreducible += usize::from(info.cycles().any(|(_, c)| !c.is_reducible()));
        tangle_tokens::preheader::run(&mut module);
        let after = print(&module);
        if let Err(e) = verify(&module) {
            panic!("case {case}:\n{e}\nbefore:\n{before}\nafter:\n{after}");
        }
        assert!(brute::check(&module, f).is_empty(), "case {case}:\n{after}");
    }
    assert!(irreducible > 10, "{irreducible} irreducible graphs");
}
