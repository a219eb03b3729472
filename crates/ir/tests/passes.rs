//! The CFG passes on random lowered programs (the result verifies, computes what the
//! original computed, and has the property the pass promises) and on structured functions
//! (refused, or structure kept).

mod common;

use tangle_ir::cfg::{reverse_post_order, Cfg};
use tangle_ir::exec::{run, Scalar};
use tangle_ir::passes::{remove_unreachable, simplify_cfg, split_critical_edges};
use tangle_ir::text::{parse, print};
use tangle_ir::verify::verify;
use tangle_ir::{Func, Module, Operand, Terminator};

fn inputs(rng: &mut fastrand::Rng) -> Vec<Scalar> {
    (0..3).map(|_| Scalar::Int(rng.u64(0..10))).collect()
}

/// Runs `pass` on random programs (some branch conditions made constant) and checks
/// validity, equal results on random inputs, and `property`.
fn check_pass(
    seed: u64,
    pass: &dyn Fn(&mut Module, Func, bool) -> bool,
    property: &dyn Fn(&Module, Func),
) -> (usize, usize) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let (mut changed, mut compared) = (0, 0);
    for case in 0..600 {
        let n = rng.usize(2..10);
        let (mut m, f) = common::random_program(&mut rng, n);
        // Constant conditions give the folding something to do.
        let (t, fl) = (true_false(&mut m).0, true_false(&mut m).1);
        for b in m.funcs[f].layout.clone() {
            if let Terminator::CondBranch { cond, .. } = &mut m.funcs[f].blocks[b].term {
                match rng.u32(0..6) {
                    0 => *cond = t,
                    1 => *cond = fl,
                    _ => {}
                }
            }
        }
        common::verify_lowered(&m).unwrap();
        let mut after = m.clone();
        changed += usize::from(pass(&mut after, f, rng.bool()));
        if let Err(e) = common::verify_lowered(&after) {
            panic!(
                "case {case}: {e}\nbefore:\n{}\nafter:\n{}",
                print(&m),
                print(&after)
            );
        }
        property(&after, f);
        for _ in 0..4 {
            let args = inputs(&mut rng);
            let Ok((want, steps)) = run(&m, &m.funcs[f], &args, 300) else {
                continue;
            };
            // Splitting adds at most one block per edge taken.
            let got = run(&after, &after.funcs[f], &args, 2 * steps + 1).map(|r| r.0);
            assert_eq!(
                got,
                Ok(want),
                "case {case} {args:?}\nbefore:\n{}\nafter:\n{}",
                print(&m),
                print(&after)
            );
            compared += 1;
        }
    }
    (changed, compared)
}

fn true_false(m: &mut Module) -> (Operand, Operand) {
    let b = m.types.bool();
    let mut make = |v: bool| {
        Operand::Const(m.consts.push(tangle_ir::ConstData {
            ty: b,
            value: tangle_ir::ConstValue::Bool(v),
            spec: false,
            spec_id: None,
            builtin: None,
            name: None,
        }))
    };
    (make(true), make(false))
}

#[test]
fn critical_edge_splitting_leaves_no_critical_edge() {
    let (changed, compared) = check_pass(
        1,
        &|m, f, _| split_critical_edges::run(&mut m.funcs[f]),
        &|m, f| {
            let func = &m.funcs[f];
            let cfg = Cfg::new(func);
            for &b in &func.layout {
                for &s in cfg.succs(b) {
                    assert!(
                        cfg.succs(b).len() < 2 || cfg.preds(s).len() < 2,
                        "{b} -> {s} is critical"
                    );
                }
            }
        },
    );
    println!("split: {changed} changed, {compared} runs compared");
    assert!(changed > 100 && compared > 600);
}

#[test]
fn unreachable_block_removal_leaves_only_reachable_blocks() {
    let (changed, compared) = check_pass(
        2,
        &|m, f, _| remove_unreachable::run(&mut m.funcs[f]),
        &|m, f| {
            let func = &m.funcs[f];
            let reachable = reverse_post_order(func, &Cfg::new(func));
            assert_eq!(reachable.len(), func.layout.len());
        },
    );
    println!("unreachable: {changed} changed, {compared} runs compared");
    assert!(changed > 100 && compared > 600);
}

#[test]
fn cfg_simplification_reaches_its_fixed_point() {
    let (changed, compared) = check_pass(
        3,
        &|m, f, coin| {
            // Half the time after splitting critical edges, which leaves empty forwarding
            // blocks to skip.
            let (funcs, consts) = (&mut m.funcs, &m.consts);
            if coin {
                split_critical_edges::run(&mut funcs[f]);
            }
            simplify_cfg::run(&mut funcs[f], consts)
        },
        &|m, f| {
            let func = &m.funcs[f];
            let cfg = Cfg::new(func);
            let rpo = reverse_post_order(func, &cfg);
            assert_eq!(
                func.layout[..rpo.len()],
                rpo[..],
                "laid out in reverse post-order"
            );
            for &b in &func.layout {
                match &func.blocks[b].term {
                    Terminator::CondBranch {
                        cond,
                        if_true,
                        if_false,
                    } => {
                        assert!(if_true != if_false && !matches!(cond, Operand::Const(_)));
                    }
                    Terminator::Branch(t) => {
                        assert!(
                            cfg.preds(*t).len() > 1 || Some(*t) == func.entry() || *t == b,
                            "{t} could merge into {b}"
                        );
                        // An empty forwarding block stays only where skipping it would give
                        // a phi of its target two incomings from one predecessor.
                        if func.blocks[b].insts.is_empty() && *t != b && Some(b) != func.entry() {
                            let blocked = !func.phis(*t).is_empty()
                                && cfg.preds(b).iter().any(|p| cfg.preds(*t).contains(p));
                            assert!(blocked, "empty block {b} could be skipped");
                        }
                    }
                    _ => {}
                }
            }
            let mut m2 = m.clone();
            assert!(
                !simplify_cfg::run(&mut m2.funcs[f], &m.consts),
                "a second run changes nothing"
            );
        },
    );
    println!("simplify: {changed} changed, {compared} runs compared");
    assert!(changed > 300 && compared > 600);
}

#[test]
fn structured_functions_are_refused_or_kept_structured() {
    let mut rng = fastrand::Rng::with_seed(4);
    let mut removed = 0;
    for _ in 0..300 {
        let size = rng.usize(1..25);
        let (m, f) = common::random_structured(&mut rng, size);
        let mut after = m.clone();
        assert!(!split_critical_edges::run(&mut after.funcs[f]));
        assert!(!simplify_cfg::run(&mut after.funcs[f], &m.consts));
        assert_eq!(print(&after), print(&m), "refused passes change nothing");
        removed += usize::from(remove_unreachable::run(&mut after.funcs[f]));
        if let Err(e) = verify(&after) {
            panic!("{e}\nbefore:\n{}\nafter:\n{}", print(&m), print(&after));
        }
    }
    println!("{removed} structured functions lost unreachable blocks");
}

#[test]
fn constant_branch_folding_drops_the_dead_phi_incoming() {
    let text = "spirv 1.3\nmemory_model GLSL450\ncapability Shader\ncapability Linkage\n\
        type t0 = u32\ntype t1 = bool\ntype t2 = fn(u32) -> u32\n\
        const c0 u32 = 0\nconst c1 bool = false\n\
        fn f0(v0: u32) -> u32 lowered {\nb0:\n  br_if c1, b1, b2\nb1:\n  v1 = iadd u32 v0, v0\n  br b2\n\
        b2:\n  v2 = phi u32 [v1, b1], [c0, b0]\n  return v2\n}\n";
    let mut m = parse(text).unwrap();
    let f = Func::from_u32(0);
    let consts = m.consts.clone();
    assert!(simplify_cfg::run(&mut m.funcs[f], &consts));
    common::verify_lowered(&m).unwrap();
    let func = &m.funcs[f];
    assert_eq!(
        func.layout.len(),
        1,
        "b0 and b2 merged, b1 removed:\n{}",
        print(&m)
    );
    assert_eq!(
        func.blocks[func.layout[0]].term,
        Terminator::ReturnValue(Operand::Const(tangle_ir::Const::from_u32(0)))
    );
}
