//! Random functions for the property tests: control-flow shapes (any graph, irreducible
//! ones included), SSA programs over them, and structured functions made with the
//! builder's structured helpers.

#![allow(dead_code)]

use tangle_ir::builder::structured::Loop;
use tangle_ir::builder::FunctionBuilder;
use tangle_ir::cfg::{reverse_post_order, Cfg, DomTree};
use tangle_ir::{Block, Func, Function, Module, Operand, PlainOp, Terminator, Type, Value};

/// A module with `u32`, `bool` and `void`, declaring `Linkage` so it needs no entry point.
pub fn module() -> (Module, Type, Type, Type) {
    let mut m = Module::default();
    m.capabilities.push(spirv::Capability::Linkage);
    let void = m.types.void();
    let b = m.types.bool();
    let u = m.types.u32();
    (m, void, b, u)
}

/// A random graph of `n` blocks as successor lists: each block returns, branches, branches
/// conditionally or switches, to any block (the entry too when `entry_target`; self-loops,
/// duplicate targets and unreachable blocks included).
pub fn random_shape(rng: &mut fastrand::Rng, n: usize, entry_target: bool) -> Vec<Vec<usize>> {
    let low = usize::from(!entry_target && n > 1);
    (0..n)
        .map(|_| {
            let k = match rng.u32(0..10) {
                0 | 1 => 0,
                2..=4 => 1,
                5..=8 => 2,
                _ => 3,
            };
            if low == 0 && !entry_target {
                return Vec::new();
            }
            (0..k).map(|_| rng.usize(low..n)).collect()
        })
        .collect()
}

/// A void function with the graph `shape`: conditions and selectors are parameters, no
/// instructions. Returns the module and the function's id.
pub fn shape_function(shape: &[Vec<usize>]) -> (Module, Func) {
    let (mut m, void, b, u) = module();
    let mut f = Function::new(Some("shape".into()), void);
    f.form = tangle_ir::Form::Lowered;
    let cond = f.add_param(b);
    let sel = f.add_param(u);
    let blocks: Vec<Block> = shape.iter().map(|_| f.add_block()).collect();
    for (i, succs) in shape.iter().enumerate() {
        f.blocks[blocks[i]].term = terminator(succs, &blocks, cond.into(), sel.into());
    }
    m.types.intern(tangle_ir::TypeData::Function {
        ret: void,
        params: vec![b, u],
    });
    tangle_ir::passes::reverse_post_order::run(&mut f);
    let id = m.funcs.push(f);
    (m, id)
}

fn terminator(succs: &[usize], blocks: &[Block], cond: Operand, sel: Operand) -> Terminator {
    match succs {
        [] => Terminator::Return,
        [t] => Terminator::Branch(blocks[*t]),
        [t, e] => Terminator::CondBranch {
            cond,
            if_true: blocks[*t],
            if_false: blocks[*e],
        },
        [d, rest @ ..] => Terminator::Switch {
            selector: sel,
            default: blocks[*d],
            cases: rest
                .iter()
                .enumerate()
                .map(|(k, t)| (k as u64, blocks[*t]))
                .collect(),
        },
    }
}

/// A random SSA program over a random graph: `u32 f(u32, u32, u32)`. Every reachable block
/// computes from values that dominate it; join blocks get phis; conditions compare values;
/// switches select on the low bits of a value; exits return a value.
pub fn random_program(rng: &mut fastrand::Rng, n: usize) -> (Module, Func) {
    let shape = random_shape(rng, n, false);
    let (mut m, _, b, u) = module();
    m.types.intern(tangle_ir::TypeData::Function {
        ret: u,
        params: vec![u, u, u],
    });
    let consts: Vec<Operand> = [0u64, 1, 2, 3, 7, 100]
        .iter()
        .map(|&k| {
            Operand::Const(m.consts.push(tangle_ir::ConstData {
                ty: u,
                value: tangle_ir::ConstValue::Bits(k),
                spec: false,
                spec_id: None,
                builtin: None,
                name: None,
            }))
        })
        .collect();
    let yes = Operand::Const(m.consts.push(tangle_ir::ConstData {
        ty: b,
        value: tangle_ir::ConstValue::Bool(true),
        spec: false,
        spec_id: None,
        builtin: None,
        name: None,
    }));
    let mut f = Function::new(Some("prog".into()), u);
    f.form = tangle_ir::Form::Lowered;
    let params: Vec<Value> = (0..3).map(|_| f.add_param(u)).collect();
    let blocks: Vec<Block> = shape.iter().map(|_| f.add_block()).collect();
    // Terminators first (with placeholder operands) so dominance is known.
    for (i, succs) in shape.iter().enumerate() {
        f.blocks[blocks[i]].term = terminator(succs, &blocks, yes, consts[0]);
        if succs.is_empty() {
            f.blocks[blocks[i]].term = Terminator::ReturnValue(consts[0]);
        }
    }
    let cfg = Cfg::new(&f);
    let dom = DomTree::new(&f, &cfg);
    let rpo = reverse_post_order(&f, &cfg);
    // Values available at the end of each block.
    let mut avail_end: std::collections::HashMap<Block, Vec<Value>> = Default::default();
    let mut phis = Vec::new();
    for &blk in &rpo {
        let mut avail: Vec<Value> = match dom.idom(blk) {
            Some(d) => avail_end[&d].clone(),
            None => params.clone(),
        };
        let pick = |rng: &mut fastrand::Rng, avail: &[Value]| -> Operand {
            if rng.u32(0..5) == 0 {
                consts[rng.usize(0..consts.len())]
            } else {
                avail[rng.usize(0..avail.len())].into()
            }
        };
        if cfg.preds(blk).len() > 1 {
            for _ in 0..rng.usize(1..3) {
                let (inst, v) = f.add_phi(blk, u, &[]);
                phis.push(inst);
                avail.push(v);
            }
        }
        for _ in 0..rng.usize(0..4) {
            let op = [
                PlainOp::IAdd,
                PlainOp::ISub,
                PlainOp::IMul,
                PlainOp::BitwiseAnd,
                PlainOp::BitwiseOr,
                PlainOp::BitwiseXor,
            ][rng.usize(0..6)];
            let (x, y) = (pick(rng, &avail), pick(rng, &avail));
            let v = f
                .append(blk, tangle_ir::Op::Plain(op), vec![x, y], Some(u))
                .unwrap();
            avail.push(v);
        }
        let term = f.blocks[blk].term.clone();
        f.blocks[blk].term = match term {
            Terminator::CondBranch {
                if_true, if_false, ..
            } => {
                let (x, y) = (pick(rng, &avail), pick(rng, &avail));
                let c = f
                    .append(
                        blk,
                        tangle_ir::Op::Plain(PlainOp::ULessThan),
                        vec![x, y],
                        Some(b),
                    )
                    .unwrap();
                Terminator::CondBranch {
                    cond: c.into(),
                    if_true,
                    if_false,
                }
            }
            Terminator::Switch { default, cases, .. } => {
                let x = pick(rng, &avail);
                let s = f
                    .append(
                        blk,
                        tangle_ir::Op::Plain(PlainOp::BitwiseAnd),
                        vec![x, consts[3]],
                        Some(u),
                    )
                    .unwrap();
                Terminator::Switch {
                    selector: s.into(),
                    default,
                    cases,
                }
            }
            Terminator::ReturnValue(_) => Terminator::ReturnValue(pick(rng, &avail)),
            other => other,
        };
        avail_end.insert(blk, avail);
    }
    // Phi incomings: a value available at the end of each predecessor.
    for inst in phis {
        let blk = f.inst_position(inst).unwrap().0;
        for &p in cfg.preds(blk) {
            let v = match avail_end.get(&p) {
                Some(av) if rng.u32(0..5) != 0 => av[rng.usize(0..av.len())].into(),
                _ => consts[rng.usize(0..consts.len())],
            };
            f.set_phi_incoming(inst, p, v);
        }
    }
    tangle_ir::passes::reverse_post_order::run(&mut f);
    let id = m.funcs.push(f);
    (m, id)
}

/// Where a structured statement list sits.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    /// The innermost loop, if `continue` may go to it.
    cont: Option<&'a Loop>,
    /// The merge block `break` goes to (innermost loop or switch).
    brk: Option<Block>,
    /// Inside a continue construct: no break, continue or return.
    in_continue: bool,
}

/// A random structured void function `f(bool, bool, u32)` built with the structured helpers;
/// `size` bounds the number of statements (above 64 it is also the target).
pub fn random_structured(rng: &mut fastrand::Rng, size: usize) -> (Module, Func) {
    let (mut m, void, b, u) = module();
    let (mut fb, params) = FunctionBuilder::create_function(&mut m, "structured", void, &[b, b, u]);
    let entry = fb.create_block();
    fb.switch_to_block(entry);
    let mut budget = size;
    let ctx = Ctx {
        cont: None,
        brk: None,
        in_continue: false,
    };
    statements(&mut fb, rng, &params, ctx, &mut budget, 0);
    // A large function keeps adding guarded statement lists (so that a `return` among
    // them ends only its branch) until the budget is spent.
    while size > 64 && budget > 0 && fb.is_open() {
        let c = condition(&mut fb, rng, &params);
        let f = fb.begin_if(c, false);
        statements(&mut fb, rng, &params, ctx, &mut budget, 0);
        fb.end_if(f);
    }
    if fb.is_open() {
        fb.ret(None);
    }
    let f = fb.func;
    (m, f)
}

fn condition(fb: &mut FunctionBuilder<'_>, rng: &mut fastrand::Rng, params: &[Value]) -> Operand {
    match rng.u32(0..3) {
        0 => params[0].into(),
        1 => params[1].into(),
        _ => {
            let k = fb.const_u32(rng.u32(0..4));
            fb.plain(PlainOp::IEqual, &[params[2].into(), k]).into()
        }
    }
}

fn statements(
    fb: &mut FunctionBuilder<'_>,
    rng: &mut fastrand::Rng,
    params: &[Value],
    ctx: Ctx<'_>,
    budget: &mut usize,
    depth: u32,
) {
    let count = rng.usize(0..4);
    for k in 0..count {
        if *budget == 0 || !fb.is_open() {
            return;
        }
        *budget -= 1;
        let last = k + 1 == count;
        let nest = depth < 4;
        match rng.u32(0..12) {
            0 | 1 => {
                let one = fb.const_u32(1);
                fb.plain(PlainOp::IAdd, &[params[2].into(), one]);
            }
            2..=4 if nest => {
                let c = condition(fb, rng, params);
                let with_else = rng.bool();
                let mut f = fb.begin_if(c, with_else);
                statements(fb, rng, params, ctx, budget, depth + 1);
                if with_else {
                    fb.begin_else(&mut f);
                    statements(fb, rng, params, ctx, budget, depth + 1);
                }
                fb.end_if(f);
            }
            5 | 6 if nest && !ctx.in_continue => {
                let l = fb.begin_loop();
                let inner = Ctx {
                    cont: Some(&l),
                    brk: Some(l.merge),
                    in_continue: false,
                };
                statements(fb, rng, params, inner, budget, depth + 1);
                fb.begin_continue(&l);
                let cont_ctx = Ctx {
                    cont: None,
                    brk: None,
                    in_continue: true,
                };
                statements(fb, rng, params, cont_ctx, budget, depth + 1);
                let repeat = condition(fb, rng, params);
                fb.end_loop(l, Some(repeat));
            }
            7 | 8 if nest => {
                let n = rng.usize(1..4);
                let literals: Vec<u64> = (0..n as u64).collect();
                let mut s = fb.begin_switch(params[2].into(), &literals, rng.bool());
                let merge = s.merge;
                while fb.next_case(&mut s).is_some() {
                    let inner = Ctx {
                        brk: if ctx.in_continue { None } else { Some(merge) },
                        ..ctx
                    };
                    statements(fb, rng, params, inner, budget, depth + 1);
                    // Break, or leave the case open to fall through.
                    if fb.is_open() && !ctx.in_continue && rng.bool() {
                        fb.switch_break(&s);
                    }
                }
                fb.end_switch(s);
            }
            9 if last && !ctx.in_continue => {
                if let Some(m) = ctx.brk {
                    fb.br(m);
                }
            }
            10 if last && !ctx.in_continue => {
                if let Some(l) = ctx.cont {
                    fb.loop_continue(l);
                }
            }
            11 if last && !ctx.in_continue => fb.ret(None),
            _ => {}
        }
    }
}

/// Verifies `m` with every function taken as lowered: the unstructured programs these tests
/// build have no merge annotations, so only the shared rules and the lowered form's apply.
pub fn verify_lowered(m: &Module) -> Result<(), tangle_ir::verify::VerifyErrors> {
    tangle_ir::verify::verify_as(m, tangle_ir::Form::Lowered)
}
