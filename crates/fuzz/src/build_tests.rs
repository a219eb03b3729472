//! Tests of the fuzz IR builder (`build.rs`): result types, record layouts, statement counts.

use super::{build_module, count_stmts};
use crate::ast::{Cond, Stmt, Trip};
use tangle_ir::builder::{result_type, InferError};
use tangle_ir::{Op, PlainOp};

/// The emitter types each result itself (`Emitter::emit`) instead of asking the
/// builder's inference; every instruction of the programs of seeds 0..150 at nesting
/// 1..8 must have the type the inference gives its operation and operands (access
/// chains, which the inference cannot type, excepted), and results exactly where the
/// inference says.
#[test]
fn result_types_are_what_the_builder_infers() {
    let mut checked = std::collections::BTreeMap::new();
    for nesting in 1..=8 {
        for seed in 0..150 {
            let config = crate::GenConfig {
                nesting,
                size_budget: 40,
            };
            let m = build_module(&crate::generate(seed, config));
            let mut types = m.types.clone();
            for (_, f) in m.funcs.iter() {
                for &b in &f.layout {
                    for &i in &f.blocks[b].insts {
                        let inst = &f.insts[i];
                        let args: Vec<_> =
                            inst.args.iter().map(|&a| m.operand_type(f, a)).collect();
                        let got = inst.result.map(|v| f.values[v].ty);
                        match result_type(&mut types, &m.funcs, &inst.op, &args) {
                            Ok(inferred) => assert_eq!(
                                got,
                                inferred,
                                "seed {seed} nesting {nesting}: {}",
                                inst.op.mnemonic()
                            ),
                            Err(InferError::NeedsType(_)) => assert_eq!(
                                inst.op,
                                Op::Plain(PlainOp::AccessChain),
                                "only access chains are typed without the inference"
                            ),
                            Err(e) => panic!("seed {seed} nesting {nesting}: {e}"),
                        }
                        *checked.entry(inst.op.mnemonic()).or_insert(0) += 1;
                    }
                }
            }
            assert_eq!(types.len(), m.types.len(), "no type was missing");
        }
    }
    // Every kind of instruction the emitter makes was seen.
    let kinds = [
        "access_chain",
        "and",
        "call",
        "group_ballot",
        "group_broadcast_first",
        "group_elect",
        "group_iadd",
        "iadd",
        "ieq",
        "ine",
        "load",
        "logical_not",
        "phi",
        "select",
        "shr_logical",
        "store",
        "ult",
    ];
    assert_eq!(checked.keys().copied().collect::<Vec<_>>(), kinds);
}

/// The records without their zero words give the reference the same buffer as the
/// records with every word stored, at two subgroup sizes, for programs with elects and
/// collectives (whose records have zero words), and do store fewer words.
#[test]
fn records_without_their_zero_words() {
    use crate::compare::run_reference;
    use tangle_interp::Variant;
    let (mut programs, mut fewer) = (0, 0);
    for nesting in [2, 4, 6] {
        for seed in 0..12 {
            let config = crate::GenConfig {
                nesting,
                size_budget: 40,
            };
            let program = crate::generate(seed, config);
            let (lean, full) = (
                build_module(&program),
                super::build_module_storing_zero_words(&program),
            );
            let stores = |m: &tangle_ir::Module| {
                let insts = m.funcs.iter().flat_map(|(_, f)| f.insts.iter());
                insts.filter(|(_, i)| matches!(i.op, Op::Store(_))).count()
            };
            fewer += usize::from(stores(&lean) < stores(&full));
            for size in [4, 32] {
                let words = crate::mask::simulate(&program, size).words.len();
                let run = |m| run_reference(m, size, words, Variant::Maximal).unwrap();
                assert_eq!(run(&lean), run(&full), "seed {seed} nesting {nesting}");
            }
            programs += 1;
        }
    }
    assert!(
        fewer * 2 > programs,
        "{fewer} of {programs} store fewer words"
    );
}

#[test]
fn statements_are_counted_at_every_depth() {
    let leaf = || Stmt::Ballot { id: 0 };
    let body = vec![
        leaf(),
        Stmt::If {
            cond: Cond::LaneMask(1),
            then: vec![leaf(), leaf()],
            els: Some(vec![Stmt::Infinite { body: vec![leaf()] }]),
        },
        Stmt::For {
            loop_id: 0,
            trip: Trip::Uniform(2),
            body: vec![Stmt::DoWhileElect {
                body: vec![Stmt::Break],
            }],
        },
        Stmt::Switch {
            selector: crate::ast::Selector::Uniform { index: 0 },
            cases: vec![(0, vec![leaf()]), (1, vec![])],
            default: Some(vec![leaf(), leaf()]),
            fallthrough: vec![false; 3],
        },
    ];
    // 4 at the top; if: 2 + 1 (+1 inside the infinite loop); for: 1 (+1); switch: 1 + 2.
    assert_eq!(count_stmts(&body), 4 + 4 + 2 + 3);
    assert_eq!(count_stmts(&[]), 0);
}
