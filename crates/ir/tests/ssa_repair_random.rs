//! SSA repair on random rewrites of random SSA programs: after duplicating a block for one
//! of its predecessors, or adding a copy of a value on some paths, the program is no longer
//! in SSA form; `ssa_repair::repair` must give a function that verifies and computes what
//! the original computed, checked with the one-invocation executor on random inputs.
//! `TANGLE_SSA_CASES` raises the number of programs.

mod common;

use std::collections::HashMap;

use tangle_ir::builder::InsertAt;
use tangle_ir::cfg::{Cfg, DomTree};
use tangle_ir::exec::{run, ExecError, Scalar};
use tangle_ir::ssa_repair::{
    promote_variable, promote_variables, repair, repair_many_in, repair_many_mending_in,
};
use tangle_ir::{Block, Function, Module, Op, Operand, PlainOp, Terminator, Value, ValueDef};

/// Duplicates `b` for its predecessor `p`: `p` branches to a copy of `b` whose phis become
/// copies of what they took from `p`. Returns each value of `b` with its duplicate.
fn duplicate_block(f: &mut Function, b: Block, p: Block) -> Vec<(Value, Value)> {
    let succs = {
        let mut s = f.blocks[b].term.successors();
        s.sort();
        s.dedup();
        s
    };
    // What the successors' phis take from `b`, before anything changes.
    let mut from_b = Vec::new();
    for &s in &succs {
        for phi in f.phis(s) {
            if let Some(v) = f.phi_incoming(phi, b) {
                from_b.push((phi, v));
            }
        }
    }
    let nb = f.insert_block_after(b);
    let mut map: HashMap<Value, Operand> = HashMap::new();
    let mut pairs = Vec::new();
    let mapped = |map: &HashMap<Value, Operand>, o: Operand| match o {
        Operand::Value(v) => map.get(&v).copied().unwrap_or(o),
        other => other,
    };
    // The phis become copies, read together on entry (through temporaries, so that no
    // copy reads a value another copy has just redefined).
    let mut temps = Vec::new();
    for phi in f.phis(b) {
        let v = f.phi_incoming(phi, p).expect("phi has an incoming from p");
        let r = f.insts[phi].result.unwrap();
        let ty = f.values[r].ty;
        let (_, t) = f.insert_inst(
            InsertAt::End(nb),
            Op::Plain(PlainOp::CopyObject),
            vec![v],
            Some(ty),
        );
        temps.push((r, t.unwrap()));
    }
    for (r, t) in temps {
        let ty = f.values[r].ty;
        let (_, c) = f.insert_inst(
            InsertAt::End(nb),
            Op::Plain(PlainOp::CopyObject),
            vec![t.into()],
            Some(ty),
        );
        map.insert(r, c.unwrap().into());
        pairs.push((r, c.unwrap()));
    }
    for phi in f.phis(b) {
        f.remove_phi_incoming(phi, p);
    }
    for i in f.blocks[b].insts.clone() {
        if matches!(f.insts[i].op, Op::Phi(_)) {
            continue;
        }
        let data = f.insts[i].clone();
        let args: Vec<Operand> = data.args.iter().map(|&a| mapped(&map, a)).collect();
        let ty = data.result.map(|r| f.values[r].ty);
        let (_, c) = f.insert_inst(InsertAt::End(nb), data.op.clone(), args, ty);
        if let (Some(r), Some(c)) = (data.result, c) {
            map.insert(r, c.into());
            pairs.push((r, c));
        }
    }
    let mut term = f.blocks[b].term.clone();
    match &mut term {
        Terminator::CondBranch { cond, .. } => *cond = mapped(&map, *cond),
        Terminator::Switch { selector, .. } => *selector = mapped(&map, *selector),
        Terminator::ReturnValue(v) => *v = mapped(&map, *v),
        _ => {}
    }
    f.blocks[nb].term = term;
    for (phi, v) in from_b {
        f.set_phi_incoming(phi, nb, mapped(&map, v));
    }
    f.retarget(p, b, nb);
    pairs
}

/// Adds `copy v` in a block its definition dominates; returns (v, copy).
fn redefine(rng: &mut fastrand::Rng, f: &mut Function) -> Option<(Value, Value)> {
    let cfg = Cfg::new(f);
    let dom = DomTree::new(f, &cfg);
    let values: Vec<Value> = f
        .values
        .keys()
        .filter(|&v| f.values[v].def != ValueDef::Unused)
        .filter(|&v| f.value_type(v) == f.ret)
        .filter(|&v| match f.values[v].def {
            ValueDef::Inst(i) => f.inst_position(i).is_some_and(|(b, _)| dom.is_reachable(b)),
            _ => true,
        })
        .collect();
    let v = values[rng.usize(0..values.len())];
    let def = match f.values[v].def {
        ValueDef::Inst(i) => Some(f.inst_position(i).unwrap()),
        _ => None,
    };
    let blocks: Vec<Block> = dom
        .rpo()
        .iter()
        .copied()
        .filter(|&b| def.is_none_or(|(db, _)| dom.dominates(db, b)))
        .collect();
    let b = blocks[rng.usize(0..blocks.len())];
    let first = f.phis(b).len();
    let low = match def {
        Some((db, k)) if db == b => (k + 1).max(first),
        _ => first,
    };
    let pos = rng.usize(low..=f.blocks[b].insts.len());
    let at = match f.blocks[b].insts.get(pos) {
        Some(&i) => InsertAt::Before(i),
        None => InsertAt::End(b),
    };
    let ty = f.value_type(v);
    let (_, c) = f.insert_inst(at, Op::Plain(PlainOp::CopyObject), vec![v.into()], Some(ty));
    Some((v, c.unwrap()))
}

fn inputs(rng: &mut fastrand::Rng) -> Vec<Scalar> {
    (0..3)
        .map(|_| {
            Scalar::Int(if rng.bool() {
                rng.u64(0..8)
            } else {
                rng.u64(0..=u64::from(u32::MAX))
            })
        })
        .collect()
}

const LIMIT: u64 = 400;

#[test]
fn ssa_repair_keeps_random_programs_valid_and_equivalent() {
    let mut rng = fastrand::Rng::with_seed(0xbadc_0ffe);
    let n_programs: usize = std::env::var("TANGLE_SSA_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1200);
    let (mut rewrites, mut broke, mut compared, mut phis) = (0usize, 0usize, 0usize, 0usize);
    for case in 0..n_programs {
        let n = rng.usize(2..10);
        let (m, fid) = common::random_program(&mut rng, n);
        common::verify_lowered(&m).unwrap_or_else(|e| {
            panic!(
                "generated program is invalid: {e}\n{}",
                tangle_ir::text::print(&m)
            )
        });
        let mut after: Module = m.clone();
        for _ in 0..rng.usize(1..4) {
            let f = &mut after.funcs[fid];
            let cfg = Cfg::new(f);
            let dom = DomTree::new(f, &cfg);
            let joins: Vec<Block> = dom
                .rpo()
                .iter()
                .copied()
                .filter(|&b| {
                    Some(b) != f.entry()
                        && cfg
                            .preds(b)
                            .iter()
                            .filter(|p| dom.is_reachable(**p))
                            .count()
                            > 1
                })
                .collect();
            let vars: Vec<Vec<Value>> = if !joins.is_empty() && rng.bool() {
                let b = joins[rng.usize(0..joins.len())];
                let preds: Vec<Block> = cfg
                    .preds(b)
                    .iter()
                    .copied()
                    .filter(|&p| dom.is_reachable(p))
                    .collect();
                let p = preds[rng.usize(0..preds.len())];
                duplicate_block(f, b, p)
                    .into_iter()
                    .map(|(a, b)| vec![a, b])
                    .collect()
            } else {
                redefine(&mut rng, f)
                    .into_iter()
                    .map(|(a, b)| vec![a, b])
                    .collect()
            };
            rewrites += 1;
            broke += usize::from(common::verify_lowered(&after).is_err());
            let f = &mut after.funcs[fid];
            for defs in vars {
                phis += repair(f, &defs).len();
            }
            // Duplicating a block can change dominators; a rewrite lays blocks out anew.
            tangle_ir::passes::reverse_post_order::run(f);
            if let Err(e) = common::verify_lowered(&after) {
                panic!(
                    "case {case}: repaired function is invalid: {e}\nbefore:\n{}\nafter:\n{}",
                    tangle_ir::text::print(&m),
                    tangle_ir::text::print(&after)
                );
            }
        }
        for _ in 0..6 {
            let args = inputs(&mut rng);
            let want = run(&m, &m.funcs[fid], &args, LIMIT);
            let Ok((want, steps)) = want else {
                assert!(matches!(want, Err(ExecError::StepLimit(_))), "{want:?}");
                continue;
            };
            // Rewrites here never add blocks to a path (a duplicate replaces its original).
            let got = run(&after, &after.funcs[fid], &args, steps);
            assert_eq!(
                got.map(|r| r.0),
                Ok(want),
                "case {case}, inputs {args:?}\nbefore:\n{}\nafter:\n{}",
                tangle_ir::text::print(&m),
                tangle_ir::text::print(&after)
            );
            compared += 1;
        }
    }
    println!("{rewrites} rewrites ({broke} left SSA broken before repair), {phis} phis placed, {compared} executions compared");
    assert!(
        rewrites >= 1000 && broke > rewrites / 40 && phis > rewrites / 4 && compared > n_programs
    );
}

/// Sets the operand a use stands for.
type SetOperand = Box<dyn Fn(&mut tangle_ir::Function, Value)>;

/// Moves value `v` into a new function variable: a store right after its definition,
/// random extra stores of other available values, and a load before each use.
fn demote(rng: &mut fastrand::Rng, m: &mut Module, fid: tangle_ir::Func, v: Value) -> Value {
    let u = m.funcs[fid].value_type(v);
    let ptr = m.types.intern(tangle_ir::TypeData::Pointer {
        storage: spirv::StorageClass::Function,
        pointee: u,
    });
    let f = &mut m.funcs[fid];
    let uses = tangle_ir::analysis::UseLists::new(f).uses(v).to_vec();
    let entry = f.entry().unwrap();
    let (_, var) = f.insert_inst(
        match f.blocks[entry].insts.first() {
            Some(&i) => InsertAt::Before(i),
            None => InsertAt::End(entry),
        },
        Op::Variable(spirv::StorageClass::Function),
        Vec::new(),
        Some(ptr),
    );
    let var = var.unwrap();
    let store = |v: Operand| (Op::Store(Default::default()), vec![Operand::Value(var), v]);
    let after_def = match f.values[v].def {
        ValueDef::Inst(i) if matches!(f.insts[i].op, Op::Phi(_)) => {
            InsertAt::AfterPhis(f.inst_position(i).unwrap().0)
        }
        ValueDef::Inst(i) => InsertAt::After(i),
        _ => {
            let first = f.blocks[entry]
                .insts
                .iter()
                .copied()
                .find(|&i| !matches!(f.insts[i].op, Op::Variable(_)));
            first.map_or(InsertAt::End(entry), InsertAt::Before)
        }
    };
    let (op, args) = store(v.into());
    f.insert_inst(after_def, op, args, None);
    for use_ in uses {
        let (at, slot): (InsertAt, SetOperand) = match use_ {
            tangle_ir::analysis::Use::Inst { inst, index } => match &f.insts[inst].op {
                Op::Phi(preds) => (
                    InsertAt::End(preds[index]),
                    Box::new(move |f, l| f.insts[inst].args[index] = l.into()),
                ),
                _ => (
                    InsertAt::Before(inst),
                    Box::new(move |f, l| f.insts[inst].args[index] = l.into()),
                ),
            },
            // Random programs have no tokens; a token cannot live in a variable anyway.
            tangle_ir::analysis::Use::Conv(_) => continue,
            tangle_ir::analysis::Use::Terminator(b) => (
                InsertAt::End(b),
                Box::new(move |f, l| match &mut f.blocks[b].term {
                    Terminator::CondBranch { cond, .. } => *cond = l.into(),
                    Terminator::Switch { selector, .. } => *selector = l.into(),
                    Terminator::ReturnValue(r) => *r = l.into(),
                    _ => {}
                }),
            ),
        };
        let (_, l) = f.insert_inst(at, Op::Load(Default::default()), vec![var.into()], Some(u));
        slot(f, l.unwrap());
    }
    // Extra stores of other values, at random places after the variables.
    let cfg = Cfg::new(f);
    let dom = DomTree::new(f, &cfg);
    for _ in 0..rng.usize(0..4) {
        let blocks = dom.rpo().to_vec();
        let b = blocks[rng.usize(0..blocks.len())];
        let x: Operand = if rng.bool() {
            f.params[rng.usize(0..f.params.len())].into()
        } else {
            f.params[0].into()
        };
        let first = f.phis(b).len()
            + if b == entry {
                f.blocks[b]
                    .insts
                    .iter()
                    .filter(|&&i| matches!(f.insts[i].op, Op::Variable(_)))
                    .count()
            } else {
                0
            };
        let pos = rng.usize(first..=f.blocks[b].insts.len());
        let at = f.blocks[b]
            .insts
            .get(pos)
            .map_or(InsertAt::End(b), |&i| InsertAt::Before(i));
        let (op, args) = store(x);
        f.insert_inst(at, op, args, None);
    }
    var
}

#[test]
fn promoting_a_variable_keeps_random_programs_equivalent() {
    let mut rng = fastrand::Rng::with_seed(0x3e3_2e9);
    let (mut promoted, mut compared) = (0, 0);
    for case in 0..600 {
        let n = rng.usize(2..9);
        let (mut m, fid) = common::random_program(&mut rng, n);
        let f = &m.funcs[fid];
        let cfg = Cfg::new(f);
        let dom = DomTree::new(f, &cfg);
        let candidates: Vec<Value> = f
            .values
            .keys()
            .filter(|&v| match f.values[v].def {
                ValueDef::Inst(i) => {
                    f.inst_position(i).is_some_and(|(b, _)| dom.is_reachable(b))
                        && f.value_type(v) == f.ret
                }
                ValueDef::Param(_) => true,
                ValueDef::Unused => false,
            })
            .collect();
        let v = candidates[rng.usize(0..candidates.len())];
        let var = demote(&mut rng, &mut m, fid, v);
        if let Err(e) = common::verify_lowered(&m) {
            panic!(
                "case {case}: demoted program invalid: {e}\n{}",
                tangle_ir::text::print(&m)
            );
        }
        let mut after = m.clone();
        let types = after.types.clone();
        assert!(promote_variable(&mut after.funcs[fid], &types, var));
        promoted += 1;
        if let Err(e) = common::verify_lowered(&after) {
            panic!(
                "case {case}: promoted program invalid: {e}\nbefore:\n{}\nafter:\n{}",
                tangle_ir::text::print(&m),
                tangle_ir::text::print(&after)
            );
        }
        let left = after.funcs[fid]
            .layout
            .iter()
            .flat_map(|&b| after.funcs[fid].blocks[b].insts.clone())
            .filter(|&i| {
                matches!(
                    after.funcs[fid].insts[i].op,
                    Op::Variable(_) | Op::Load(_) | Op::Store(_)
                )
            })
            .count();
        assert_eq!(left, 0, "case {case}: memory operations left");
        for _ in 0..6 {
            let args = inputs(&mut rng);
            let Ok((want, steps)) = run(&m, &m.funcs[fid], &args, LIMIT) else {
                continue;
            };
            let got = run(&after, &after.funcs[fid], &args, steps).map(|r| r.0);
            assert_eq!(
                got,
                Ok(want),
                "case {case} {args:?}\nbefore:\n{}\nafter:\n{}",
                tangle_ir::text::print(&m),
                tangle_ir::text::print(&after)
            );
            compared += 1;
        }
    }
    println!("{promoted} variables promoted, {compared} executions compared");
    assert!(compared > 600);
}

/// Several variables promoted at once (`promote_variables`: one scan, one repair) give the
/// program that used them back, as promoting one does.
#[test]
fn promoting_several_variables_at_once_keeps_random_programs_equivalent() {
    let mut rng = fastrand::Rng::with_seed(0x5e7_e4a1);
    let (mut promoted, mut compared) = (0, 0);
    for case in 0..300 {
        let n = rng.usize(2..9);
        let (mut m, fid) = common::random_program(&mut rng, n);
        let mut vars = Vec::new();
        for _ in 0..rng.usize(2..5) {
            let f = &m.funcs[fid];
            let cfg = Cfg::new(f);
            let dom = DomTree::new(f, &cfg);
            let candidates: Vec<Value> = f
                .values
                .keys()
                .filter(|&v| match f.values[v].def {
                    ValueDef::Inst(i) => {
                        !matches!(f.insts[i].op, Op::Variable(_) | Op::Load(_))
                            && f.inst_position(i).is_some_and(|(b, _)| dom.is_reachable(b))
                            && f.value_type(v) == f.ret
                    }
                    ValueDef::Param(_) => true,
                    ValueDef::Unused => false,
                })
                .collect();
            let v = candidates[rng.usize(0..candidates.len())];
            vars.push(demote(&mut rng, &mut m, fid, v));
        }
        if let Err(e) = common::verify_lowered(&m) {
            panic!(
                "case {case}: demoted program invalid: {e}\n{}",
                tangle_ir::text::print(&m)
            );
        }
        let mut after = m.clone();
        let types = after.types.clone();
        let done = promote_variables(&mut after.funcs[fid], &types, &vars);
        assert_eq!(done, vec![true; vars.len()], "case {case}");
        promoted += vars.len();
        if let Err(e) = common::verify_lowered(&after) {
            panic!(
                "case {case}: promoted program invalid: {e}\nbefore:\n{}\nafter:\n{}",
                tangle_ir::text::print(&m),
                tangle_ir::text::print(&after)
            );
        }
        let left = after.funcs[fid]
            .layout
            .iter()
            .flat_map(|&b| after.funcs[fid].blocks[b].insts.clone())
            .filter(|&i| {
                matches!(
                    after.funcs[fid].insts[i].op,
                    Op::Variable(_) | Op::Load(_) | Op::Store(_)
                )
            })
            .count();
        assert_eq!(left, 0, "case {case}: memory operations left");
        for _ in 0..6 {
            let args = inputs(&mut rng);
            let Ok((want, steps)) = run(&m, &m.funcs[fid], &args, LIMIT) else {
                continue;
            };
            let got = run(&after, &after.funcs[fid], &args, steps).map(|r| r.0);
            assert_eq!(
                got,
                Ok(want),
                "case {case} {args:?}\nbefore:\n{}\nafter:\n{}",
                tangle_ir::text::print(&m),
                tangle_ir::text::print(&after)
            );
            compared += 1;
        }
    }
    println!("{promoted} variables promoted together, {compared} executions compared");
    assert!(compared > 300);
}

/// The values outside `groups` whose definition does not dominate one of their uses
/// (the test's own search, separate from the repair's scan), ascending.
fn undominated_values(f: &Function, dom: &DomTree, groups: &[Vec<Value>]) -> Vec<Value> {
    let grouped: Vec<Value> = groups.iter().flatten().copied().collect();
    let def_block = |v: Value| match f.values[v].def {
        ValueDef::Param(_) => f.entry(),
        ValueDef::Inst(i) => f.inst_position(i).map(|(b, _)| b),
        ValueDef::Unused => None,
    };
    let mut out = Vec::new();
    let mut check = |o: Operand, at: Block| {
        let Operand::Value(v) = o else { return };
        if grouped.contains(&v) || !dom.is_reachable(at) {
            return;
        }
        if def_block(v).is_some_and(|d| !dom.dominates(d, at)) {
            out.push(v);
        }
    };
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            let data = &f.insts[i];
            match &data.op {
                Op::Phi(preds) => {
                    for (k, &a) in data.args.iter().enumerate() {
                        check(a, preds[k]);
                    }
                }
                _ => {
                    for &a in data.args.iter() {
                        check(a, b);
                    }
                }
            }
        }
        if let Some(o) = f.blocks[b].term.operand() {
            check(o, b);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// `repair_many_mending_in` finds the values a rewrite left undominated in the scan it
/// makes for the groups' uses, and repairs them exactly as a separate search followed by
/// `repair_many_in`, with each such value a group of its own after the others, would
/// (what the lowering did before; docs/lowering-speed.md, round 5): the same values,
/// and the same function, phi for phi and number for number. The undominated values are
/// made by duplicating a block and repairing only some of the duplicated values as
/// variables: each of the others now has a definition on one path only.
#[test]
fn mending_in_the_repair_scan_matches_a_separate_search() {
    let mut rng = fastrand::Rng::with_seed(0x5eed_00f5);
    let (mut cases, mut mended, mut refused) = (0usize, 0usize, 0usize);
    for case in 0..1500 {
        let n = rng.usize(2..10);
        let (m, fid) = common::random_program(&mut rng, n);
        let mut after = m.clone();
        let f = &mut after.funcs[fid];
        let cfg = Cfg::new(f);
        let dom = DomTree::new(f, &cfg);
        let joins: Vec<(Block, Block)> = dom
            .rpo()
            .iter()
            .copied()
            .filter(|&b| Some(b) != f.entry())
            .flat_map(|b| {
                let preds: Vec<Block> = cfg
                    .preds(b)
                    .iter()
                    .copied()
                    .filter(|&p| dom.is_reachable(p))
                    .collect();
                let join = preds.len() > 1;
                preds.into_iter().filter(move |_| join).map(move |p| (b, p))
            })
            .collect();
        if joins.is_empty() {
            continue;
        }
        let (b, p) = joins[rng.usize(0..joins.len())];
        let groups: Vec<Vec<Value>> = duplicate_block(f, b, p)
            .into_iter()
            .filter(|_| rng.usize(0..3) == 0)
            .map(|(a, b)| vec![a, b])
            .collect();
        let cfg = Cfg::new(f);
        let dom = DomTree::new(f, &cfg);
        let want_mended = undominated_values(f, &dom, &groups);
        let mut separate = after.clone();
        let mut all = groups.clone();
        all.extend(want_mended.iter().map(|&v| vec![v]));
        let want_phis = repair_many_in(&mut separate.funcs[fid], &cfg, &dom, &all);
        let mut fused = after.clone();
        let got = repair_many_mending_in(&mut fused.funcs[fid], &cfg, &dom, &groups, &|_, _| false)
            .expect("nothing is refused");
        let text = |m: &Module| tangle_ir::text::print(m);
        assert_eq!(got.mended, want_mended, "case {case}:\n{}", text(&after));
        assert_eq!(got.phis, want_phis, "case {case}:\n{}", text(&after));
        assert_eq!(
            text(&fused),
            text(&separate),
            "case {case}: before the repair:\n{}",
            text(&after)
        );
        // Duplicating a block can change dominators; a rewrite lays blocks out anew.
        tangle_ir::passes::reverse_post_order::run(&mut fused.funcs[fid]);
        common::verify_lowered(&fused)
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{}", text(&fused)));
        // Refusing a value changes nothing and names the smallest refused.
        if let Some(&last) = want_mended.last() {
            let mut untouched = after.clone();
            let refused_value =
                repair_many_mending_in(&mut untouched.funcs[fid], &cfg, &dom, &groups, &|_, v| {
                    v >= last
                });
            assert_eq!(refused_value, Err(last));
            assert_eq!(text(&untouched), text(&after));
            refused += 1;
        }
        cases += 1;
        mended += want_mended.len();
    }
    println!("{cases} rewrites, {mended} values mended, {refused} refusals checked");
    assert!(cases > 900 && mended > cases / 6 && refused > cases / 10);
}
