//! Token inference for structured functions (pass `infer-tokens`): `conv_entry` at the
//! function's entry, a heart in every loop header on the token of the enclosing loop (or
//! the entry's), and on every uncontrolled convergent operation the heart of the innermost
//! *loop construct* holding it, else the entry's token.
//!
//! Using loop constructs rather than cycles is what makes the token semantics equal
//! maximal reconvergence: a break block (in the loop construct, branching to the merge)
//! lies outside the cycle, and with the heart's token it runs "according to the loop
//! iteration", diverged per iteration as maximal reconvergence asks (LLVM's "extended
//! cycle"); the continue construct is inside the loop and syncs every iteration, as the
//! heart does. A merge block and what follows take the enclosing token again, so the
//! invocations that left the loop reconverge there.

use std::collections::HashMap;

use tangle_ir::analysis::{ConstructKind, ConstructTree};
use tangle_ir::builder::edit::InsertAt;
use tangle_ir::module::{Block, Func, Merge, Module, Value};
use tangle_ir::ops::{Op, TangleOp};
use tangle_ir::verify::tokens::{is_convergent_inst, token_op};

/// Whether `f` has a token operation or a convergence-control operand already.
pub fn is_controlled(module: &Module, f: Func) -> bool {
    let func = &module.funcs[f];
    func.layout.iter().any(|&b| {
        func.blocks[b]
            .insts
            .iter()
            .any(|&i| func.insts[i].conv.is_some() || token_op(func, i).is_some())
    })
}

/// Whether `f` has a convergent operation that a token could control.
fn has_convergent(module: &Module, f: Func) -> bool {
    let func = &module.funcs[f];
    func.layout.iter().any(|&b| {
        func.blocks[b]
            .insts
            .iter()
            .any(|&i| is_convergent_inst(module, func, i))
    })
}

/// Runs the pass on every structured, convergent, uncontrolled function with a convergent
/// operation; returns whether anything changed.
pub fn run(module: &mut Module) -> bool {
    let mut changed = false;
    let funcs: Vec<Func> = module.funcs.keys().collect();
    for f in funcs {
        let func = &module.funcs[f];
        if func.layout.is_empty()
            || func.form != tangle_ir::module::Form::Structured
            || !func.convergent
            || is_controlled(module, f)
            || !has_convergent(module, f)
        {
            continue;
        }
        infer_structured(module, f);
        changed = true;
    }
    changed
}

/// The loop header whose heart controls block `b`: the innermost loop or continue
/// construct around it, starting from construct `from`.
fn enclosing_loop(
    tree: &ConstructTree,
    mut from: Option<tangle_ir::analysis::ConstructId>,
) -> Option<Block> {
    while let Some(c) = from {
        let node = tree.get(c);
        if matches!(node.kind, ConstructKind::Loop | ConstructKind::Continue) {
            return Some(node.header);
        }
        from = node.parent;
    }
    None
}

/// Places the tokens in structured function `f` (see the module documentation).
pub fn infer_structured(module: &mut Module, f: Func) {
    let token = module.types.token();
    let convergent: Vec<(tangle_ir::Inst, Block)> = {
        let func = &module.funcs[f];
        func.layout
            .iter()
            .flat_map(|&b| func.blocks[b].insts.iter().map(move |&i| (i, b)))
            .filter(|&(i, _)| is_convergent_inst(module, func, i))
            .collect()
    };
    let func = &mut module.funcs[f];
    let tree = ConstructTree::new(func);
    let entry_block = func.layout[0];
    // After the entry block's phis and function variables.
    let after_vars = func.blocks[entry_block]
        .insts
        .iter()
        .copied()
        .take_while(|&i| matches!(func.insts[i].op, Op::Phi(_) | Op::Variable(_)))
        .last();
    let at = after_vars.map_or(InsertAt::AfterPhis(entry_block), InsertAt::After);
    let (_, entry) = func.insert_inst(at, Op::Tangle(TangleOp::ConvEntry), Vec::new(), Some(token));
    let entry = entry.unwrap_or_else(|| unreachable!("conv_entry has a result"));
    let mut hearts: HashMap<Block, Value> = HashMap::new();
    let headers: Vec<Block> = func
        .layout
        .iter()
        .copied()
        .filter(|&b| matches!(func.blocks[b].merge, Some(Merge::Loop { .. })))
        .collect();
    // The layout puts every header after the headers of the loops around it.
    for h in headers {
        let outer = tree
            .of_header(h)
            .and_then(|c| enclosing_loop(&tree, tree.get(c).parent));
        let operand = outer.and_then(|o| hearts.get(&o).copied()).unwrap_or(entry);
        let (inst, v) = func.insert_inst(
            InsertAt::AfterPhis(h),
            Op::Tangle(TangleOp::ConvLoop),
            Vec::new(),
            Some(token),
        );
        func.insts[inst].conv = Some(operand);
        hearts.insert(
            h,
            v.unwrap_or_else(|| unreachable!("conv_loop has a result")),
        );
    }
    for (i, b) in convergent {
        let t = enclosing_loop(&tree, tree.innermost(b))
            .and_then(|h| hearts.get(&h).copied())
            .unwrap_or(entry);
        func.insts[i].conv = Some(t);
    }
}
