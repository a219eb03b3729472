//! Writes function bodies.

use std::collections::HashMap;

use rspirv::dr::{self, Instruction, Operand as RawOp};
use spirv::{MemoryAccess, Op as SpvOp};
use tangle_ir::{AtomicOp, Block, Func, Merge, Op, Operand, Terminator, Value};

use super::Writer;

struct Body {
    values: HashMap<Value, u32>,
    blocks: HashMap<Block, u32>,
}

impl Body {
    fn operand(&self, w: &Writer<'_>, o: Operand) -> RawOp {
        RawOp::IdRef(match o {
            Operand::Value(v) => self.values[&v],
            Operand::Const(c) => w.ids.consts[&c],
            Operand::Global(g) => w.ids.globals[&g],
        })
    }
}

fn access_operands(a: tangle_ir::MemAccess) -> Vec<RawOp> {
    let mut flags = a.flags;
    if a.aligned.is_some() {
        flags |= MemoryAccess::ALIGNED;
    }
    if flags.is_empty() {
        return Vec::new();
    }
    let mut v = vec![RawOp::MemoryAccess(flags)];
    if let Some(al) = a.aligned {
        v.push(RawOp::LiteralBit32(al));
    }
    v
}

pub(super) fn write(w: &mut Writer<'_>, f: Func, fn_ty: u32) {
    let func = &w.module.funcs[f];
    let mut body = Body {
        values: HashMap::new(),
        blocks: HashMap::new(),
    };
    for (v, data) in func.values.iter() {
        if data.def != tangle_ir::ValueDef::Unused {
            body.values.insert(v, w.ids.fresh());
        }
    }
    for &b in &func.layout {
        body.blocks.insert(b, w.ids.fresh());
    }
    let ret = w.type_id(func.ret);
    let mut out = dr::Function::new();
    out.def = Some(Instruction::new(
        SpvOp::Function,
        Some(ret),
        Some(w.ids.funcs[&f]),
        vec![RawOp::FunctionControl(func.control), RawOp::IdRef(fn_ty)],
    ));
    for p in &func.params {
        let ty = w.type_id(func.values[*p].ty);
        out.parameters.push(Instruction::new(
            SpvOp::FunctionParameter,
            Some(ty),
            Some(body.values[p]),
            vec![],
        ));
    }
    for &b in &func.layout {
        let block = &func.blocks[b];
        let mut insts = Vec::new();
        for &i in &block.insts {
            let data = &func.insts[i];
            let ty = data.result.map(|r| w.type_id(func.values[r].ty));
            let id = data.result.map(|r| body.values[&r]);
            let args: Vec<RawOp> = data.args.iter().map(|a| body.operand(w, *a)).collect();
            let (op, operands) = match &data.op {
                Op::Phi(blocks) => {
                    let mut ops = Vec::new();
                    for (a, pb) in args.into_iter().zip(blocks) {
                        ops.push(a);
                        ops.push(RawOp::IdRef(body.blocks[pb]));
                    }
                    (SpvOp::Phi, ops)
                }
                other => encode(w, other, args),
            };
            insts.push(Instruction::new(op, ty, id, operands));
        }
        match block.merge {
            Some(Merge::Selection { merge, control }) => insts.push(Instruction::new(
                SpvOp::SelectionMerge,
                None,
                None,
                vec![
                    RawOp::IdRef(body.blocks[&merge]),
                    RawOp::SelectionControl(control),
                ],
            )),
            Some(Merge::Loop {
                merge,
                continue_target,
                control,
                params,
            }) => {
                let mut ops = vec![
                    RawOp::IdRef(body.blocks[&merge]),
                    RawOp::IdRef(body.blocks[&continue_target]),
                    RawOp::LoopControl(control),
                ];
                for (k, (bit, _)) in tangle_ir::module::LOOP_PARAMS.iter().enumerate() {
                    if control.contains(*bit) {
                        ops.push(RawOp::LiteralBit32(params[k]));
                    }
                }
                insts.push(Instruction::new(SpvOp::LoopMerge, None, None, ops));
            }
            None => {}
        }
        let term = match &block.term {
            Terminator::Branch(t) => (SpvOp::Branch, vec![RawOp::IdRef(body.blocks[t])]),
            Terminator::CondBranch {
                cond,
                if_true,
                if_false,
            } => (
                SpvOp::BranchConditional,
                vec![
                    body.operand(w, *cond),
                    RawOp::IdRef(body.blocks[if_true]),
                    RawOp::IdRef(body.blocks[if_false]),
                ],
            ),
            Terminator::Switch {
                selector,
                default,
                cases,
            } => {
                let wide = w
                    .module
                    .types
                    .bit_width(w.module.operand_type(func, *selector))
                    > 32;
                let mut ops = vec![
                    body.operand(w, *selector),
                    RawOp::IdRef(body.blocks[default]),
                ];
                for (lit, t) in cases {
                    ops.push(if wide {
                        RawOp::LiteralBit64(*lit)
                    } else {
                        RawOp::LiteralBit32(*lit as u32)
                    });
                    ops.push(RawOp::IdRef(body.blocks[t]));
                }
                (SpvOp::Switch, ops)
            }
            Terminator::Return => (SpvOp::Return, vec![]),
            Terminator::ReturnValue(v) => (SpvOp::ReturnValue, vec![body.operand(w, *v)]),
            Terminator::Unreachable => (SpvOp::Unreachable, vec![]),
            Terminator::Kill => (SpvOp::Kill, vec![]),
            Terminator::TerminateInvocation => (SpvOp::TerminateInvocation, vec![]),
        };
        insts.push(Instruction::new(term.0, None, None, term.1));
        out.blocks.push(dr::Block {
            label: Some(Instruction::new(
                SpvOp::Label,
                None,
                Some(body.blocks[&b]),
                vec![],
            )),
            instructions: insts,
        });
    }
    out.end = Some(Instruction::new(SpvOp::FunctionEnd, None, None, vec![]));
    w.out.functions.push(out);
}

/// The opcode and operands of one instruction, given its value operands as ids.
fn encode(w: &mut Writer<'_>, op: &Op, args: Vec<RawOp>) -> (SpvOp, Vec<RawOp>) {
    let lits = |l: &[u32]| {
        l.iter()
            .map(|x| RawOp::LiteralBit32(*x))
            .collect::<Vec<_>>()
    };
    match op {
        Op::Plain(p) => (p.spirv(), args),
        Op::Tangle(_) => unreachable!("refuse::check turns tangle-only operations away"),
        Op::CompositeExtract(ix) => (SpvOp::CompositeExtract, [args, lits(ix)].concat()),
        Op::CompositeInsert(ix) => (SpvOp::CompositeInsert, [args, lits(ix)].concat()),
        Op::VectorShuffle(ix) => (SpvOp::VectorShuffle, [args, lits(ix)].concat()),
        Op::ArrayLength(m) => (SpvOp::ArrayLength, [args, lits(&[*m])].concat()),
        Op::Load(a) => (SpvOp::Load, [args, access_operands(*a)].concat()),
        Op::Store(a) => (SpvOp::Store, [args, access_operands(*a)].concat()),
        Op::Variable(sc) => (
            SpvOp::Variable,
            [vec![RawOp::StorageClass(*sc)], args].concat(),
        ),
        Op::Atomic {
            op,
            scope,
            semantics,
            unequal,
        } => {
            let mut ops = vec![args[0].clone(), RawOp::IdScope(w.u32_const(*scope as u32))];
            ops.push(RawOp::IdMemorySemantics(w.u32_const(semantics.bits())));
            if *op == AtomicOp::CompareExchange {
                ops.push(RawOp::IdMemorySemantics(w.u32_const(unequal.bits())));
            }
            ops.extend(args.into_iter().skip(1));
            (op.spirv(), ops)
        }
        Op::Call(f) => (
            SpvOp::FunctionCall,
            [vec![RawOp::IdRef(w.ids.funcs[f])], args].concat(),
        ),
        Op::Phi(_) => unreachable!("phis are encoded with their blocks by the caller"),
        Op::Glsl(g) => {
            let set = w.ids.glsl.expect("GLSL.std.450 is imported when used");
            (
                SpvOp::ExtInst,
                [
                    vec![RawOp::IdRef(set), RawOp::LiteralExtInstInteger(g.number())],
                    args,
                ]
                .concat(),
            )
        }
        Op::Group { op, scope, group } => {
            let mut ops = vec![RawOp::IdScope(w.u32_const(*scope as u32))];
            if let Some(g) = group {
                ops.push(RawOp::GroupOperation(g.spirv()));
            }
            ops.extend(args);
            (op.spirv(), ops)
        }
        Op::ControlBarrier {
            exec,
            memory,
            semantics,
        } => (
            SpvOp::ControlBarrier,
            vec![
                RawOp::IdScope(w.u32_const(*exec as u32)),
                RawOp::IdScope(w.u32_const(*memory as u32)),
                RawOp::IdMemorySemantics(w.u32_const(semantics.bits())),
            ],
        ),
        Op::MemoryBarrier { memory, semantics } => (
            SpvOp::MemoryBarrier,
            vec![
                RawOp::IdScope(w.u32_const(*memory as u32)),
                RawOp::IdMemorySemantics(w.u32_const(semantics.bits())),
            ],
        ),
    }
}
