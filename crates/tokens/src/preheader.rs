//! Token inference for lowered (unstructured) functions, with seed 004's preheader
//! transform (pass `infer-tokens-cfg`): LLVM's tokens cannot give a natural loop inside an
//! irreducible cycle a heart on an outer token (two hearts of the irreducible cycle would
//! use one token defined outside it, which the closed-path rules forbid), so such a loop
//! gets a *preheader*: a new block that every edge entering the loop from outside goes
//! through, holding a `conv_anchor`, and the heart in the loop header uses that anchor.
//! Relative to the anchor's (implementation-defined) convergence, iterations of the loop
//! then converge by the loop's own counter. A natural loop nested in such a loop takes the
//! outer loop's heart as usual.
//!
//! The rest follows LLVM's inference procedure over cycles: `conv_entry` at the entry, a
//! heart in the header of every natural loop not inside an irreducible cycle (on its parent
//! loop's heart, or the entry's token), and each uncontrolled convergent operation takes
//! the heart of its innermost cycle when that is a natural loop, a `conv_anchor` at the
//! start of its block when that is an irreducible cycle, and the entry's token outside
//! every cycle.

use std::collections::HashMap;

use tangle_ir::analysis::{CycleId, CycleInfo};
use tangle_ir::builder::edit::InsertAt;
use tangle_ir::cfg::Cfg;
use tangle_ir::module::{Block, Form, Func, Function, Module, Operand, Terminator, Value};
use tangle_ir::ops::{Op, TangleOp};
use tangle_ir::types::Type;
use tangle_ir::verify::tokens::is_convergent_inst;

use crate::infer::is_controlled;

/// Runs the pass on every lowered, convergent, uncontrolled function with a convergent
/// operation whose entry block has no predecessor; returns whether anything changed.
pub fn run(module: &mut Module) -> bool {
    let mut changed = false;
    let funcs: Vec<Func> = module.funcs.keys().collect();
    for f in funcs {
        let func = &module.funcs[f];
        let has_convergent = func.layout.iter().any(|&b| {
            func.blocks[b]
                .insts
                .iter()
                .any(|&i| is_convergent_inst(module, func, i))
        });
        if func.layout.is_empty()
            || func.form != Form::Lowered
            || !func.convergent
            || !has_convergent
            || is_controlled(module, f)
            || !Cfg::new(func).preds(func.layout[0]).is_empty()
        {
            continue;
        }
        infer_lowered(module, f);
        changed = true;
    }
    changed
}

/// Whether cycle `c` sits directly inside an irreducible cycle (a natural loop nested in
/// another natural loop takes that loop's heart instead, even inside an irreducible cycle).
fn parent_irreducible(info: &CycleInfo, c: CycleId) -> bool {
    info.cycle(c)
        .parent
        .is_some_and(|p| !info.cycle(p).is_reducible())
}

/// The natural loop of header `h`: `h` and the blocks that reach a back edge into `h` (an
/// edge from a block `h` dominates) without passing `h`. Empty when `h` has no back edge.
fn natural_loop(func: &Function, cfg: &Cfg, h: Block) -> Vec<Block> {
    let dom = tangle_ir::cfg::DomTree::new(func, cfg);
    let mut body = vec![h];
    let mut work: Vec<Block> = cfg
        .preds(h)
        .iter()
        .copied()
        .filter(|&x| dom.dominates(h, x))
        .collect();
    if work.is_empty() {
        return Vec::new();
    }
    while let Some(x) = work.pop() {
        if body.contains(&x) {
            continue;
        }
        body.push(x);
        work.extend(
            cfg.preds(x)
                .iter()
                .copied()
                .filter(|p| dom.is_reachable(*p)),
        );
    }
    body
}

/// Gives the natural loop `body` (header `h`) a preheader: a new block that takes every
/// edge entering `h` from outside the loop, with phis for `h`'s phis. Returns it.
fn add_preheader(func: &mut Function, cfg: &Cfg, h: Block, body: &[Block]) -> Block {
    let mut outside: Vec<Block> = cfg
        .preds(h)
        .iter()
        .copied()
        .filter(|p| !body.contains(p))
        .collect();
    outside.dedup();
    let pre = func.insert_block_after(outside[0]);
    func.blocks[pre].term = Terminator::Branch(h);
    for phi in func.phis(h) {
        let ty: Type = func.values[func.insts[phi].result.unwrap_or_else(|| unreachable!())].ty;
        let incoming: Vec<(Block, Operand)> = outside
            .iter()
            .filter_map(|&p| func.remove_phi_incoming(phi, p).map(|v| (p, v)))
            .collect();
        let (_, merged) = func.add_phi(pre, ty, &incoming);
        func.set_phi_incoming(phi, pre, Operand::Value(merged));
    }
    for p in outside {
        func.retarget(p, h, pre);
    }
    pre
}

/// Places the tokens in lowered function `f` (see the module documentation).
pub fn infer_lowered(module: &mut Module, f: Func) {
    let token = module.types.token();
    let convergent: Vec<tangle_ir::Inst> = {
        let func = &module.funcs[f];
        func.layout
            .iter()
            .flat_map(|&b| func.blocks[b].insts.iter().copied())
            .filter(|&i| is_convergent_inst(module, func, i))
            .collect()
    };
    let func = &mut module.funcs[f];
    // Preheaders first: they change the graph, so the cycles are computed again after.
    let cfg = Cfg::new(func);
    let info = CycleInfo::new(func, &cfg);
    // The natural loops directly inside an irreducible cycle: its reducible child cycles,
    // and the natural loop of its own header when that has a back edge (the header's loop
    // is no cycle of its own in the hierarchy).
    let mut headers: Vec<Block> = Vec::new();
    for (id, c) in info.cycles() {
        if c.is_reducible() && parent_irreducible(&info, id) {
            headers.push(c.header);
        }
        if !c.is_reducible() {
            headers.push(c.header);
        }
    }
    let mut preheader_of: HashMap<Block, Block> = HashMap::new();
    for h in headers {
        let cfg = Cfg::new(func);
        let body = natural_loop(func, &cfg, h);
        if body.is_empty() || preheader_of.contains_key(&h) {
            continue;
        }
        let pre = add_preheader(func, &cfg, h, &body);
        preheader_of.insert(h, pre);
    }
    func.layout_in_reverse_post_order();
    let cfg = Cfg::new(func);
    let info = CycleInfo::new(func, &cfg);
    let new_token =
        |func: &mut Function, at: InsertAt, op: TangleOp, conv: Option<Value>| -> Value {
            let (inst, v) = func.insert_inst(at, Op::Tangle(op), Vec::new(), Some(token));
            func.insts[inst].conv = conv;
            v.unwrap_or_else(|| unreachable!("token operations have a result"))
        };
    // After the entry block's phis and function variables, which must lead it.
    let entry_block = func.layout[0];
    let after_vars = func.blocks[entry_block]
        .insts
        .iter()
        .copied()
        .take_while(|&i| matches!(func.insts[i].op, Op::Phi(_) | Op::Variable(_)))
        .last();
    let at = after_vars.map_or(InsertAt::AfterPhis(entry_block), InsertAt::After);
    let entry = new_token(func, at, TangleOp::ConvEntry, None);
    let mut hearts: HashMap<CycleId, Value> = HashMap::new();
    let mut order: Vec<CycleId> = info.cycles().map(|(id, _)| id).collect();
    order.sort_by_key(|&c| info.cycle(c).depth);
    for c in order {
        let cycle = info.cycle(c);
        if !cycle.is_reducible() {
            continue;
        }
        let outer = match (preheader_of.get(&cycle.header), cycle.parent) {
            (Some(&pre), _) => {
                new_token(func, InsertAt::AfterPhis(pre), TangleOp::ConvAnchor, None)
            }
            (None, None) => entry,
            (None, Some(p)) => match hearts.get(&p) {
                Some(&h) => h,
                // Inside an irreducible cycle without a preheader: no heart; its
                // operations take anchors of their own blocks.
                None => continue,
            },
        };
        let heart = new_token(
            func,
            InsertAt::AfterPhis(cycle.header),
            TangleOp::ConvLoop,
            Some(outer),
        );
        hearts.insert(c, heart);
    }
    let mut anchors: HashMap<Block, Value> = HashMap::new();
    for i in convergent {
        let Some((b, _)) = func.inst_position(i) else {
            continue;
        };
        let t = match info.innermost(b) {
            None => entry,
            Some(c) if hearts.contains_key(&c) => hearts[&c],
            Some(_) => match anchors.get(&b) {
                Some(&a) => a,
                None => {
                    let a = new_token(func, InsertAt::AfterPhis(b), TangleOp::ConvAnchor, None);
                    anchors.insert(b, a);
                    a
                }
            },
        };
        func.insts[i].conv = Some(t);
    }
}
