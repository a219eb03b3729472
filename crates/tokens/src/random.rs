//! Random token-annotated control-flow graphs: one lowered function over a random graph
//! (irreducible cycles, self loops and nested loops all occur), with `conv_entry`,
//! anchors, `conv_loop`s and controlled subgroup operations placed mostly where the rules
//! allow and sometimes where they do not, so that every rule is both kept and broken.
//! Every token use is dominated by its definition (SSA holds), so what the verifier, the
//! brute-force oracle and LLVM judge is the token rules alone.

use tangle_ir::cfg::{Cfg, DomTree};
use tangle_ir::module::{
    Block, Form, Func, Function, InstData, Module, Operand, Terminator, Value,
};
use tangle_ir::ops::{Op, TangleOp};
use tangle_ir::types::TypeData;

/// The knobs of the generator.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// At most this many blocks (at least 1).
    pub max_blocks: usize,
}

impl Default for Shape {
    fn default() -> Self {
        Shape { max_blocks: 7 }
    }
}

/// A module with one random token-annotated function `f0` (two `bool` parameters for the
/// branch conditions), laid out in reverse post-order; every block is reachable and none
/// branches to the entry block (LLVM forbids it).
pub fn token_cfg(rng: &mut fastrand::Rng, shape: Shape) -> (Module, Func) {
    let mut module = Module::default();
    module.capabilities.push(spirv::Capability::Linkage);
    module.capabilities.push(spirv::Capability::GroupNonUniform);
    let void = module.types.void();
    let boolean = module.types.intern(TypeData::Bool);
    let token = module.types.intern(TypeData::Token);
    let mut func = Function::new(Some("f".to_string()), void);
    func.form = Form::Lowered;
    func.convergent = rng.u32(0..10) != 0;
    let conds = [func.add_param(boolean), func.add_param(boolean)];
    let n = rng.usize(1..=shape.max_blocks.max(1));
    let blocks: Vec<Block> = (0..n).map(|_| func.add_block()).collect();
    // A spanning tree keeps every block reachable; extra edges make cycles.
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 1..n {
        let open: Vec<usize> = (0..i).filter(|&p| succs[p].len() < 2).collect();
        let p = open[rng.usize(0..open.len())];
        succs[p].push(i);
    }
    if n > 1 {
        for s in succs.iter_mut() {
            while s.len() < 2 && rng.u32(0..10) < 4 {
                let t = rng.usize(1..n);
                if !s.contains(&t) {
                    s.push(t);
                }
            }
        }
    }
    for (i, s) in succs.iter().enumerate() {
        let term = match s[..] {
            [] => Terminator::Return,
            [t] => Terminator::Branch(blocks[t]),
            [a, b, ..] => Terminator::CondBranch {
                cond: Operand::Value(conds[rng.usize(0..2)]),
                if_true: blocks[a],
                if_false: blocks[b],
            },
        };
        func.blocks[blocks[i]].term = term;
    }
    func.layout_in_reverse_post_order();
    place_tokens(rng, &mut func, token, boolean);
    let f = module.funcs.push(func);
    (module, f)
}

/// Places token operations and controlled subgroup operations, block by block in layout
/// (reverse post-order), each use on a token whose definition dominates it.
fn place_tokens(
    rng: &mut fastrand::Rng,
    func: &mut Function,
    token: tangle_ir::types::Type,
    boolean: tangle_ir::types::Type,
) {
    let cfg = Cfg::new(func);
    let dom = DomTree::new(func, &cfg);
    let layout = func.layout.clone();
    let entry = layout[0];
    let mut defined: Vec<(Block, Value)> = Vec::new();
    let elect = Op::Group {
        op: tangle_ir::ops::GroupOp::Elect,
        scope: spirv::Scope::Subgroup,
        group: None,
    };
    for &b in &layout {
        let mut here: Vec<Value> = Vec::new();
        let avail = |here: &[Value], defined: &[(Block, Value)]| -> Vec<Value> {
            defined
                .iter()
                .filter(|(d, _)| *d != b && dom.dominates(*d, b))
                .map(|&(_, v)| v)
                .chain(here.iter().copied())
                .collect()
        };
        let mut convergent_before = false;
        let push_token = |func: &mut Function, op: TangleOp, conv: Option<Value>| -> Value {
            let v = func
                .append(b, Op::Tangle(op), Vec::new(), Some(token))
                .unwrap_or_else(|| unreachable!());
            let i = *func.blocks[b]
                .insts
                .last()
                .unwrap_or_else(|| unreachable!());
            func.insts[i].conv = conv;
            v
        };
        let wants_entry = if b == entry {
            rng.u32(0..10) < 8
        } else {
            rng.u32(0..40) == 0
        };
        if wants_entry {
            if rng.u32(0..20) == 0 {
                let _ = func.append(b, elect.clone(), Vec::new(), Some(boolean));
                convergent_before = true;
            }
            here.push(push_token(func, TangleOp::ConvEntry, None));
        }
        let options = avail(&here, &defined);
        if !options.is_empty() && rng.u32(0..10) < 4 {
            if !convergent_before && rng.u32(0..15) == 0 {
                let _ = func.append(b, elect.clone(), Vec::new(), Some(boolean));
            }
            let t = options[rng.usize(0..options.len())];
            here.push(push_token(func, TangleOp::ConvLoop, Some(t)));
        }
        if rng.u32(0..10) < 3 {
            here.push(push_token(func, TangleOp::ConvAnchor, None));
        }
        for _ in 0..rng.usize(0..3) {
            let options = avail(&here, &defined);
            let conv = if options.is_empty() || rng.u32(0..25) == 0 {
                None
            } else {
                Some(options[rng.usize(0..options.len())])
            };
            let inst = func.insts.push(InstData {
                op: elect.clone(),
                args: tangle_ir::Operands::new(),
                result: None,
                conv,
            });
            let v = func.values.push(tangle_ir::module::ValueData {
                ty: boolean,
                def: tangle_ir::module::ValueDef::Inst(inst),
            });
            func.insts[inst].result = Some(v);
            func.blocks[b].insts.push(inst);
        }
        defined.extend(here.into_iter().map(|v| (b, v)));
    }
}
