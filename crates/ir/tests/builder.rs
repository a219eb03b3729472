//! The builder: each edit operation, result-type inference, and the structured helpers,
//! whose output the verifier must accept.

mod common;

use tangle_ir::analysis::{ConstructKind, ConstructTree, UseLists};
use tangle_ir::builder::{result_type, FunctionBuilder, InferError, InsertAt};
use tangle_ir::exec::{run, Scalar};
use tangle_ir::text::{parse, print};
use tangle_ir::verify::verify;
use tangle_ir::{Block, Func, Module, Op, Operand, PlainOp, Terminator, TypeData, Value};

/// A module with one function `f0(u32, u32) -> u32` whose body is `body`.
fn module(body: &str) -> Module {
    let text = format!(
        "spirv 1.3\nmemory_model GLSL450\ncapability Shader\ncapability Linkage\n\
         type t0 = u32\ntype t1 = bool\ntype t2 = fn(u32, u32) -> u32\n\
         const c0 u32 = 0\nconst c1 u32 = 1\nconst c2 bool = true\n\
         fn f0(v0: u32, v1: u32) -> u32 {{\n{body}}}\n"
    );
    parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn fid() -> Func {
    Func::from_u32(0)
}
fn b(n: u32) -> Block {
    Block::from_u32(n)
}
fn v(n: u32) -> Value {
    Value::from_u32(n)
}

const DIAMOND: &str =
    "b0:\n  v2 = ult bool v0, v1\n  br_if v2, b1, b2\nb1:\n  v3 = iadd u32 v0, c1\n  br b3\n\
     b2:\n  v4 = isub u32 v1, v0\n  br b3\nb3:\n  v5 = phi u32 [v3, b1], [v4, b2]\n  return v5\n";

fn exec(m: &Module, x: u64, y: u64) -> Option<Scalar> {
    run(m, &m.funcs[fid()], &[Scalar::Int(x), Scalar::Int(y)], 100)
        .unwrap()
        .0
}

#[test]
fn insert_before_after_and_at_block_ends() {
    let mut m = module(DIAMOND);
    let f = &mut m.funcs[fid()];
    let add = f.value_inst(v(3)).unwrap();
    let (i_before, _) = f.insert_inst(
        InsertAt::Before(add),
        Op::Plain(PlainOp::CopyObject),
        vec![v(0).into()],
        Some(f.value_type(v(0))),
    );
    let (i_after, _) = f.insert_inst(
        InsertAt::After(add),
        Op::Plain(PlainOp::CopyObject),
        vec![v(3).into()],
        Some(f.value_type(v(0))),
    );
    let (i_end, _) = f.insert_inst(
        InsertAt::End(b(3)),
        Op::Plain(PlainOp::CopyObject),
        vec![v(5).into()],
        Some(f.value_type(v(0))),
    );
    let (i_start, _) = f.insert_inst(
        InsertAt::AfterPhis(b(3)),
        Op::Plain(PlainOp::CopyObject),
        vec![v(0).into()],
        Some(f.value_type(v(0))),
    );
    assert_eq!(f.blocks[b(1)].insts, vec![i_before, add, i_after]);
    let phi = f.value_inst(v(5)).unwrap();
    assert_eq!(f.blocks[b(3)].insts, vec![phi, i_start, i_end]);
    assert_eq!(f.inst_position(i_after), Some((b(1), 2)));
    common::verify_lowered(&m).unwrap();
}

#[test]
fn remove_and_replace_all_uses() {
    let mut m = module(DIAMOND);
    let f = &mut m.funcs[fid()];
    // v3 is used by the phi; replacing it everywhere, then removing it, stays valid.
    assert_eq!(f.replace_all_uses(v(3), v(0).into()), 1);
    assert_eq!(
        f.replace_all_uses(v(5), Operand::Value(v(1))),
        1,
        "the return uses v5"
    );
    assert_eq!(f.blocks[b(3)].term, Terminator::ReturnValue(v(1).into()));
    let add = f.value_inst(v(3)).unwrap();
    assert!(f.remove_inst(add));
    assert!(!f.remove_inst(add), "already removed");
    assert_eq!(f.values[v(3)].def, tangle_ir::ValueDef::Unused);
    common::verify_lowered(&m).unwrap();
    assert_eq!(exec(&m, 1, 9), Some(Scalar::Int(9)));
    // Removing a value that is still used is caught by the verifier.
    let mut m2 = module(DIAMOND);
    let sub = m2.funcs[fid()].value_inst(v(4)).unwrap();
    m2.funcs[fid()].remove_inst(sub);
    assert!(common::verify_lowered(&m2).is_err());
    assert_eq!(UseLists::new(&m2.funcs[fid()]).uses(v(4)).len(), 1);
}

#[test]
fn split_edge_moves_the_phi_incoming() {
    let mut m = module(DIAMOND);
    let before: Vec<_> = (0..4).map(|x| exec(&m, x, 2)).collect();
    let f = &mut m.funcs[fid()];
    let mid = f.split_edge(b(1), b(3)).unwrap();
    assert!(f.split_edge(b(1), b(2)).is_none(), "no such edge");
    assert_eq!(f.blocks[b(1)].term, Terminator::Branch(mid));
    assert_eq!(f.blocks[mid].term, Terminator::Branch(b(3)));
    let phi = f.value_inst(v(5)).unwrap();
    assert_eq!(f.phi_incoming(phi, mid), Some(v(3).into()));
    assert_eq!(f.phi_incoming(phi, b(1)), None);
    assert_eq!(
        f.layout.iter().position(|&x| x == mid),
        Some(2),
        "right after b1"
    );
    common::verify_lowered(&m).unwrap();
    let after: Vec<_> = (0..4).map(|x| exec(&m, x, 2)).collect();
    assert_eq!(before, after);
}

#[test]
fn phi_incomings_are_edited_in_place() {
    let mut m = module(DIAMOND);
    let f = &mut m.funcs[fid()];
    let phi = f.value_inst(v(5)).unwrap();
    f.set_phi_incoming(phi, b(1), Operand::Value(v(1)));
    assert_eq!(f.phi_incoming(phi, b(1)), Some(v(1).into()));
    assert_eq!(f.remove_phi_incoming(phi, b(2)), Some(v(4).into()));
    assert!(common::verify_lowered(&m).is_err(), "b2 has no incoming");
    let f = &mut m.funcs[fid()];
    f.set_phi_incoming(phi, b(2), v(0).into());
    common::verify_lowered(&m).unwrap();
    let f = &mut m.funcs[fid()];
    let ty = f.value_type(v(0));
    let (_, w) = f.add_phi(b(3), ty, &[(b(1), v(0).into()), (b(2), v(1).into())]);
    assert_eq!(f.phis(b(3)).len(), 2);
    f.blocks[b(3)].term = Terminator::ReturnValue(w.into());
    common::verify_lowered(&m).unwrap();
    assert_eq!(exec(&m, 1, 5), Some(Scalar::Int(1)));
    assert_eq!(exec(&m, 5, 1), Some(Scalar::Int(1)));
}

#[test]
fn retarget_and_remove_block() {
    let mut m = module(DIAMOND);
    let f = &mut m.funcs[fid()];
    // b0 goes to b1 on both sides; b2 is left unreachable and then removed.
    assert_eq!(f.retarget(b(0), b(2), b(1)), 1);
    f.remove_block(b(2));
    assert!(!f.layout.contains(&b(2)));
    let phi = f.value_inst(v(5)).unwrap();
    assert_eq!(f.phi_incoming(phi, b(2)), None);
    assert_eq!(f.values[v(4)].def, tangle_ir::ValueDef::Unused);
    common::verify_lowered(&m).unwrap();
    assert_eq!(exec(&m, 7, 0), Some(Scalar::Int(8)));
}

#[test]
fn layout_in_reverse_post_order_puts_dominators_first() {
    let mut m = module("b0:\n  br b2\nb1:\n  return v0\nb2:\n  br b1\nb3:\n  return v1\n");
    m.funcs[fid()].layout_in_reverse_post_order();
    assert_eq!(m.funcs[fid()].layout, vec![b(0), b(2), b(1), b(3)]);
}

#[test]
fn result_types_are_inferred_where_the_operation_fixes_them() {
    let mut m = module(DIAMOND);
    let (u, bl) = (m.types.u32(), m.types.bool());
    let u4 = m.types.intern(TypeData::Vector { elem: u, count: 4 });
    let ptr = m.types.intern(TypeData::Pointer {
        storage: spirv::StorageClass::Function,
        pointee: u4,
    });
    let funcs = m.funcs.clone();
    let t = &mut m.types;
    let plain = |p| Op::Plain(p);
    assert_eq!(
        result_type(t, &funcs, &plain(PlainOp::IAdd), &[u, u]),
        Ok(Some(u))
    );
    assert_eq!(
        result_type(t, &funcs, &plain(PlainOp::ULessThan), &[u, u]),
        Ok(Some(bl))
    );
    let b4 = result_type(t, &funcs, &plain(PlainOp::IEqual), &[u4, u4])
        .unwrap()
        .unwrap();
    assert_eq!(t.get(b4), &TypeData::Vector { elem: bl, count: 4 });
    assert_eq!(
        result_type(t, &funcs, &plain(PlainOp::Select), &[bl, u4, u4]),
        Ok(Some(u4))
    );
    assert_eq!(
        result_type(t, &funcs, &Op::Load(Default::default()), &[ptr]),
        Ok(Some(u4))
    );
    assert_eq!(
        result_type(t, &funcs, &Op::CompositeExtract([2].into()), &[u4]),
        Ok(Some(u))
    );
    assert_eq!(
        result_type(t, &funcs, &Op::Store(Default::default()), &[ptr, u4]),
        Ok(None)
    );
    assert_eq!(
        result_type(t, &funcs, &Op::Call(fid()), &[u, u]),
        Ok(Some(u))
    );
    let ballot = Op::Group {
        op: tangle_ir::GroupOp::Ballot,
        scope: spirv::Scope::Subgroup,
        group: None,
    };
    assert_eq!(result_type(t, &funcs, &ballot, &[bl]), Ok(Some(u4)));
    assert_eq!(
        result_type(t, &funcs, &plain(PlainOp::UConvert), &[u]),
        Err(InferError::NeedsType("uconvert"))
    );
    assert_eq!(
        result_type(t, &funcs, &plain(PlainOp::IAdd), &[]),
        Err(InferError::BadOperands("iadd"))
    );
}

/// `u32 f(bool c, u32 x)` built with the structured helpers: an if/else, a loop with a
/// continue construct and a break, and a switch whose case 0 falls through into case 1.
fn structured_example() -> Module {
    let (mut m, _, bl, u) = common::module();
    let (mut fb, p) = FunctionBuilder::create_function(&mut m, "example", u, &[bl, u]);
    let entry = fb.create_block();
    fb.switch_to_block(entry);
    let one = fb.const_u32(1);
    let mut f = fb.begin_if(p[0].into(), true);
    let a = fb.plain(PlainOp::IAdd, &[p[1].into(), one]);
    fb.begin_else(&mut f);
    let s = fb.plain(PlainOp::ISub, &[p[1].into(), one]);
    let f = fb.end_if(f);
    let x = fb.phi(u, &[(f.incoming[0], a.into()), (f.incoming[1], s.into())]);
    let l = fb.begin_loop();
    let big = fb.const_u32(100);
    let done = fb.plain(PlainOp::UGreaterThan, &[x.into(), big]);
    let brk = fb.begin_if(done.into(), false);
    fb.loop_break(&l);
    fb.end_if(brk);
    fb.begin_continue(&l);
    fb.end_loop(l, Some(p[0].into()));
    let mut sw = fb.begin_switch(x.into(), &[0, 1, 2], true);
    while let Some(case) = fb.next_case(&mut sw) {
        if case == sw.targets[1] {
            // Case 0 stays open: it falls through into case 1.
            continue;
        }
        fb.plain(PlainOp::IAdd, &[x.into(), one]);
        fb.switch_break(&sw);
    }
    fb.end_switch(sw);
    fb.ret(Some(x.into()));
    m
}

#[test]
fn structured_helpers_produce_valid_structured_code() {
    let m = structured_example();
    if let Err(e) = verify(&m) {
        panic!("{e}\n{}", print(&m));
    }
    let f = &m.funcs[Func::from_u32(0)];
    let tree = ConstructTree::new(f);
    let kinds = |k| tree.iter().filter(|(_, c)| c.kind == k).count();
    assert_eq!(
        kinds(ConstructKind::Selection),
        3,
        "if/else, the break's if, the switch"
    );
    assert_eq!(
        (kinds(ConstructKind::Loop), kinds(ConstructKind::Continue)),
        (1, 1)
    );
    assert_eq!(kinds(ConstructKind::Case), 4, "default and three cases");
    let header = f
        .layout
        .iter()
        .copied()
        .find(|&h| matches!(f.blocks[h].term, Terminator::Switch { .. }))
        .unwrap();
    let falls: Vec<_> = tree
        .case_fallthrough(f, header)
        .into_iter()
        .filter(|c| c.1.is_some())
        .collect();
    assert_eq!(falls.len(), 1, "case 0 falls through into case 1");
    // Every block follows its dominator in the layout the helpers chose.
    let cfg = tangle_ir::cfg::Cfg::new(f);
    let dom = tangle_ir::cfg::DomTree::new(f, &cfg);
    for (k, &blk) in f.layout.iter().enumerate() {
        if let Some(d) = dom.idom(blk) {
            assert!(f.layout[..k].contains(&d), "{blk} before its dominator {d}");
        }
    }
    // And it runs: the else branch gives 199, which leaves the loop by the break.
    let r = run(&m, f, &[Scalar::Bool(false), Scalar::Int(200)], 1000)
        .unwrap()
        .0;
    assert_eq!(r, Some(Scalar::Int(199)));
}

#[test]
fn random_structured_functions_verify() {
    let mut rng = fastrand::Rng::with_seed(7);
    for _ in 0..500 {
        let size = rng.usize(1..30);
        let (m, _) = common::random_structured(&mut rng, size);
        if let Err(e) = verify(&m) {
            panic!("{e}\n{}", print(&m));
        }
    }
}

#[test]
fn use_lists_follow_replace_all_uses_on_random_programs() {
    let mut rng = fastrand::Rng::with_seed(11);
    for _ in 0..200 {
        let n = rng.usize(2..8);
        let (mut m, f) = common::random_program(&mut rng, n);
        let func = &mut m.funcs[f];
        let uses = UseLists::new(func);
        // Every use listed is a real operand of that value, and every operand is listed.
        let mut listed = 0;
        for v in func.values.keys() {
            for u in uses.uses(v) {
                let found = match *u {
                    tangle_ir::analysis::Use::Inst { inst, index } => func.insts[inst].args[index],
                    tangle_ir::analysis::Use::Conv(i) => {
                        Operand::Value(func.insts[i].conv.unwrap())
                    }
                    tangle_ir::analysis::Use::Terminator(b) => func.blocks[b].term.operands()[0],
                };
                assert_eq!(found, Operand::Value(v));
                listed += 1;
            }
        }
        let operands: usize = func
            .layout
            .iter()
            .map(|&b| {
                let data = &func.blocks[b];
                data.insts
                    .iter()
                    .flat_map(|&i| func.insts[i].args.iter())
                    .chain(data.term.operands().iter())
                    .filter(|o| matches!(o, Operand::Value(_)))
                    .count()
            })
            .sum();
        assert_eq!(listed, operands);
        // Replacing a parameter moves all its uses to another.
        let (p0, p1) = (func.params[0], func.params[1]);
        let before = uses.uses(p0).len() + uses.uses(p1).len();
        assert_eq!(func.replace_all_uses(p0, p1.into()), uses.uses(p0).len());
        let after = UseLists::new(func);
        assert!(after.is_unused(p0));
        assert_eq!(after.uses(p1).len(), before);
    }
}

#[test]
fn structured_helpers_meet_the_maximal_reconvergence_rules() {
    let mut rng = fastrand::Rng::with_seed(12);
    for _ in 0..300 {
        let size = rng.usize(1..30);
        let (mut m, f) = common::random_structured(&mut rng, size);
        // An entry point asking for maximal reconvergence that calls the function.
        m.extensions.push("SPV_KHR_maximal_reconvergence".into());
        let void = m.types.void();
        let (mut b, _) = FunctionBuilder::create_function(&mut m, "main", void, &[]);
        let entry = b.create_block();
        b.switch_to_block(entry);
        let (t, k) = (b.const_bool(true), b.const_u32(1));
        let fls = b.const_bool(false);
        b.ins(Op::Call(f), &[t, fls, k]).unwrap();
        b.ret(None);
        let main = b.func;
        m.entry_points.push(tangle_ir::EntryPoint {
            model: spirv::ExecutionModel::GLCompute,
            name: "main".into(),
            func: main,
            interface: Vec::new(),
            modes: vec![
                tangle_ir::ExecMode::LocalSize([32, 1, 1]),
                tangle_ir::ExecMode::MaximallyReconverges,
            ],
        });
        assert!(m.maximal_reconvergence_applies(f));
        if let Err(e) = verify(&m) {
            panic!("{e}\n{}", print(&m));
        }
    }
}

#[test]
fn repair_mends_a_definition_that_no_longer_dominates_its_uses() {
    // v3 is defined in b1 only but used in b3: paths through b2 must bring undef.
    let mut m = module(
        "b0:\n  v2 = ult bool v0, v1\n  br_if v2, b1, b2\nb1:\n  v3 = iadd u32 v0, c1\n  br b3\n\
         b2:\n  br b3\nb3:\n  v4 = iadd u32 v3, c1\n  return v4\n",
    );
    assert!(common::verify_lowered(&m).is_err());
    let phis = tangle_ir::ssa_repair::repair(&mut m.funcs[fid()], &[v(3)]);
    assert_eq!(phis.len(), 1);
    common::verify_lowered(&m).unwrap();
    let f = &m.funcs[fid()];
    let phi = f.value_inst(phis[0]).unwrap();
    assert_eq!(f.phi_incoming(phi, b(1)), Some(v(3).into()));
    let Some(Operand::Value(u)) = f.phi_incoming(phi, b(2)) else {
        panic!("b2 brings a value")
    };
    assert_eq!(
        f.insts[f.value_inst(u).unwrap()].op,
        Op::Plain(PlainOp::Undef)
    );
    assert_eq!(exec(&m, 1, 5), Some(Scalar::Int(3)));
    assert_eq!(exec(&m, 5, 1), Some(Scalar::Undef));
}

#[test]
fn the_cursor_inserts_before_and_after_an_instruction() {
    let mut m = module(DIAMOND);
    let add = m.funcs[fid()].value_inst(v(3)).unwrap();
    let mut fb = FunctionBuilder::new(&mut m, fid());
    fb.set_position_after(add);
    let after = fb.plain(PlainOp::IAdd, &[v(3).into(), v(3).into()]);
    fb.set_position_before(add);
    let before = fb.plain(PlainOp::IAdd, &[v(0).into(), v(0).into()]);
    assert_eq!(fb.current_block(), Some(b(1)));
    let f = fb.function();
    let order: Vec<_> = f.blocks[b(1)]
        .insts
        .iter()
        .map(|&i| f.insts[i].result)
        .collect();
    assert_eq!(order, vec![Some(before), Some(v(3)), Some(after)]);
    assert_eq!(
        f.value_type(after),
        f.value_type(v(3)),
        "inferred from the operands"
    );
}

#[test]
fn local_variables_carry_values_through_structured_code() {
    // u32 count(bool c, u32 n): i = 0; loop { if i >= n break; i += 1 } continue while c;
    // return i. The variable lives in the entry block however late it is made.
    let (mut m, _, bl, u) = common::module();
    let (mut fb, p) = FunctionBuilder::create_function(&mut m, "count", u, &[bl, u]);
    let entry = fb.create_block();
    fb.switch_to_block(entry);
    let zero = fb.const_u32(0);
    let l = fb.begin_loop();
    let i = fb.local_variable(u);
    let cur = fb.load(i.into());
    let done = fb.plain(PlainOp::UGreaterThanEqual, &[cur.into(), p[1].into()]);
    let brk = fb.begin_if(done.into(), false);
    fb.loop_break(&l);
    fb.end_if(brk);
    let one = fb.const_u32(1);
    let next = fb.plain(PlainOp::IAdd, &[cur.into(), one]);
    fb.store(i.into(), next.into());
    fb.begin_continue(&l);
    fb.end_loop(l, Some(p[0].into()));
    let out = fb.load(i.into());
    fb.ret(Some(out.into()));
    let f = fb.func;
    // Initialise the variable first thing (after the variables).
    let func = &mut m.funcs[f];
    let var = func.value_inst(i).unwrap();
    func.insert_inst(
        InsertAt::After(var),
        Op::Store(Default::default()),
        vec![i.into(), zero],
        None,
    );
    assert_eq!(func.blocks[func.entry().unwrap()].insts[0], var);
    if let Err(e) = verify(&m) {
        panic!("{e}\n{}", print(&m));
    }
}

#[test]
fn detached_blocks_are_laid_out_once_when_first_entered() {
    // The builder lays out a detached block on the first switch to it without searching
    // the layout; a block entered again, a loop ended with or without `begin_continue`, and
    // a block made with `create_block` must each still appear exactly once.
    let (mut m, _, bl, u) = common::module();
    let (mut fb, p) = FunctionBuilder::create_function(&mut m, "nest", u, &[bl, u]);
    let entry = fb.create_block();
    fb.switch_to_block(entry);
    let outer = fb.begin_loop();
    let inner = fb.begin_loop();
    let mut f = fb.begin_if(p[0].into(), true);
    fb.loop_break(&inner);
    fb.begin_else(&mut f);
    let f = fb.end_if(f);
    // Enter a laid-out block again: it must not be laid out a second time.
    fb.switch_to_block(f.merge);
    fb.end_loop(inner, Some(p[0].into()));
    fb.begin_continue(&outer);
    fb.switch_to_block(outer.continue_target);
    fb.end_loop(outer, Some(p[0].into()));
    fb.ret(Some(p[1].into()));
    let fid = fb.func;
    let func = &m.funcs[fid];
    let mut seen = std::collections::BTreeSet::new();
    for &b in &func.layout {
        assert!(seen.insert(b), "{b} is laid out twice");
    }
    assert_eq!(seen.len(), func.blocks.len(), "every block is laid out");
    if let Err(e) = verify(&m) {
        panic!("{e}\n{}", print(&m));
    }
}
