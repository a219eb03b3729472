//! Function bodies: parameters, blocks, instructions, merges and terminators.

use rustc_hash::FxHashMap as HashMap;

use rspirv::dr::{Instruction, Operand as RawOp};
use spirv::{MemoryAccess, Op as SpvOp};
use tangle_ir::glsl::GlslOp;
use tangle_ir::types::{Type, TypeData};
use tangle_ir::{
    AtomicOp, Block, Function, GroupOp, GroupOperation, MemAccess, Merge, Op, Operand, Operands,
    PlainOp, Terminator, Value, ValueData, ValueDef,
};

use super::module::{fail, id_at, lit_at, malformed, result_id, unsupported, Ctx, Def, Res};
use super::{Position, ReadErrorKind};

/// What a function-local id stands for.
#[derive(Clone, Copy)]
enum Local {
    Value(Value),
    Block(Block),
}

struct FnCtx {
    locals: HashMap<u32, Local>,
    func: Function,
}

impl FnCtx {
    fn block(&self, id: u32, pos: Position) -> Res<Block> {
        match self.locals.get(&id) {
            Some(Local::Block(b)) => Ok(*b),
            Some(_) => fail(
                pos,
                ReadErrorKind::WrongId {
                    id,
                    expected: "a label",
                },
            ),
            None => fail(pos, ReadErrorKind::UndefinedId(id)),
        }
    }
}

fn operand(cx: &Ctx<'_>, f: &FnCtx, id: u32, pos: Position) -> Res<Operand> {
    match f.locals.get(&id) {
        Some(Local::Value(v)) => return Ok(Operand::Value(*v)),
        Some(Local::Block(_)) => {
            return fail(
                pos,
                ReadErrorKind::WrongId {
                    id,
                    expected: "a value",
                },
            )
        }
        None => {}
    }
    match cx.lookup(id, pos)? {
        Def::Const(c) => Ok(Operand::Const(c)),
        Def::Global(g) => Ok(Operand::Global(g)),
        _ => fail(
            pos,
            ReadErrorKind::WrongId {
                id,
                expected: "a value",
            },
        ),
    }
}

/// Lowers the function starting at instruction `start`; returns the index after its end.
pub(crate) fn lower(cx: &mut Ctx<'_>, start: usize) -> Res<usize> {
    let raw = cx.raw;
    let head = &raw.insts[start];
    let pos = head.pos;
    let fid = result_id(&head.inst, pos)?;
    let ret = cx.ty(head.inst.result_type.unwrap_or(0), pos)?;
    let control = match head.inst.operands.first() {
        Some(RawOp::FunctionControl(c)) => *c,
        _ => return malformed(pos, "OpFunction needs a function control"),
    };
    let fn_ty = cx.ty(id_at(&head.inst, 1, pos)?, pos)?;
    // Sized for every instruction up to the function's end (at most one local each), so
    // the map does not grow while it is filled.
    let len = raw.insts[start..]
        .iter()
        .position(|l| l.inst.class.opcode == SpvOp::FunctionEnd)
        .unwrap_or(raw.insts.len() - start);
    let mut f = FnCtx {
        locals: HashMap::with_capacity_and_hasher(len, Default::default()),
        func: Function::new(cx.names.get(&fid).cloned(), ret),
    };
    f.func.control = control;
    // One origin per instruction at most (a copy makes two, rarely): reserved at once so that
    // the map does not rehash as it grows.
    cx.origins.insts.reserve(len);
    // Find the end, and give every local id its value or block first: operands may refer to
    // ids defined later in the function (phis, branches).
    let mut end = start + 1;
    loop {
        let Some(l) = raw.insts.get(end) else {
            return malformed(pos, "OpFunction without OpFunctionEnd");
        };
        match l.inst.class.opcode {
            SpvOp::FunctionEnd => break,
            SpvOp::Function => {
                return fail(
                    l.pos,
                    ReadErrorKind::Misplaced("OpFunction inside a function".into()),
                )
            }
            SpvOp::Label => {
                let id = result_id(&l.inst, l.pos)?;
                let b = f.func.blocks.push(Default::default());
                if f.locals.insert(id, Local::Block(b)).is_some() || cx.ids.contains_key(&id) {
                    return fail(l.pos, ReadErrorKind::Redefined(id));
                }
            }
            _ => {
                if let Some(id) = l.inst.result_id {
                    let ty_id = l.inst.result_type.unwrap_or(0);
                    let ty = cx.ty(ty_id, l.pos)?;
                    let v = f.func.values.push(ValueData {
                        ty,
                        def: ValueDef::Unused,
                    });
                    if f.locals.insert(id, Local::Value(v)).is_some() || cx.ids.contains_key(&id) {
                        return fail(l.pos, ReadErrorKind::Redefined(id));
                    }
                }
            }
        }
        end += 1;
    }
    let mut current: Option<Block> = None;
    let mut merge: Option<Merge> = None;
    let Some(Def::Func(func_index)) = cx.ids.get(&fid).copied() else {
        return malformed(pos, "a function id that is not a function");
    };
    // The `OpLine` line in force; its scope ends with the block (and at `OpNoLine`).
    let mut line: Option<u32> = None;
    for l in &raw.insts[start + 1..end] {
        let (inst, pos) = (&l.inst, l.pos);
        let op = inst.class.opcode;
        match op {
            SpvOp::Line => line = lit_at(inst, 1, pos).ok(),
            SpvOp::NoLine | SpvOp::Label => line = None,
            _ => {}
        }
        if op == SpvOp::FunctionParameter {
            if current.is_some() || !f.func.layout.is_empty() {
                return fail(
                    pos,
                    ReadErrorKind::Misplaced("OpFunctionParameter after a block".into()),
                );
            }
            let Some(Local::Value(v)) = f.locals.get(&result_id(inst, pos)?).copied() else {
                return malformed(pos, "parameter without a result");
            };
            f.func.values[v].def = ValueDef::Param(f.func.params.len() as u32);
            f.func.params.push(v);
            continue;
        }
        if matches!(op, SpvOp::Line | SpvOp::NoLine | SpvOp::Nop) {
            continue;
        }
        if op == SpvOp::Label {
            if current.is_some() {
                return fail(
                    pos,
                    ReadErrorKind::Misplaced(
                        "OpLabel before the previous block's terminator".into(),
                    ),
                );
            }
            let b = f.block(result_id(inst, pos)?, pos)?;
            f.func.layout.push(b);
            current = Some(b);
            continue;
        }
        let Some(b) = current else {
            return fail(
                pos,
                ReadErrorKind::Misplaced(format!("Op{op:?} outside a block")),
            );
        };
        if let Some(term) = terminator(cx, &f, inst, pos)? {
            cx.origins
                .terminators
                .insert((func_index, b), origin(inst, line));
            f.func.blocks[b].term = term;
            f.func.blocks[b].merge = merge.take();
            current = None;
            continue;
        }
        if merge.is_some() {
            return fail(
                pos,
                ReadErrorKind::Misplaced(
                    "a merge instruction must come just before the terminator".into(),
                ),
            );
        }
        match op {
            SpvOp::SelectionMerge => {
                let m = f.block(id_at(inst, 0, pos)?, pos)?;
                let Some(RawOp::SelectionControl(control)) = inst.operands.get(1) else {
                    return malformed(pos, "OpSelectionMerge needs a selection control");
                };
                merge = Some(Merge::Selection {
                    merge: m,
                    control: *control,
                });
            }
            SpvOp::LoopMerge => {
                let m = f.block(id_at(inst, 0, pos)?, pos)?;
                let c = f.block(id_at(inst, 1, pos)?, pos)?;
                let Some(RawOp::LoopControl(control)) = inst.operands.get(2) else {
                    return malformed(pos, "OpLoopMerge needs a loop control");
                };
                // Parameters follow in the order of their control bits.
                let mut params = [0u32; 6];
                let mut next = 3;
                for (k, (bit, _)) in tangle_ir::module::LOOP_PARAMS.iter().enumerate() {
                    if control.contains(*bit) {
                        params[k] = lit_at(inst, next, pos)?;
                        next += 1;
                    }
                }
                let known = tangle_ir::module::LOOP_PARAMS.iter().fold(
                    spirv::LoopControl::UNROLL
                        | spirv::LoopControl::DONT_UNROLL
                        | spirv::LoopControl::DEPENDENCY_INFINITE,
                    |all, (bit, _)| all | *bit,
                );
                if !known.contains(*control) || inst.operands.len() != next {
                    return unsupported(pos, format!("loop control {control:?}"));
                }
                merge = Some(Merge::Loop {
                    merge: m,
                    continue_target: c,
                    control: *control,
                    params,
                });
            }
            _ => {
                let before = f.func.insts.len();
                instruction(cx, &mut f, b, inst, pos)?;
                for i in before..f.func.insts.len() {
                    cx.origins.insts.insert(
                        (func_index, tangle_ir::Inst::from_u32(i as u32)),
                        origin(inst, line),
                    );
                }
            }
        }
    }
    if let Some(b) = current {
        let _ = b;
        return malformed(raw.insts[end].pos, "the last block has no terminator");
    }
    if f.func.layout.is_empty() {
        return unsupported(pos, "function declarations without a body (Linkage)");
    }
    // The declared type must match the parameters and return type.
    let params: Vec<Type> = f.func.params.iter().map(|p| f.func.values[*p].ty).collect();
    if cx.module.types.get(fn_ty) != &(TypeData::Function { ret, params }) {
        return malformed(
            pos,
            "the function's type does not match its parameters and return type",
        );
    }
    let func = cx.module.funcs.push(f.func);
    debug_assert_eq!(cx.ids.get(&fid), Some(&Def::Func(func)));
    Ok(end + 1)
}

/// How a SPIR-V instruction is named in messages: its result id, its opcode (an extended
/// instruction by its GLSL.std.450 number, named when printed) and the source line in force.
fn origin(inst: &Instruction, line: Option<u32>) -> super::Origin {
    let opcode = match (inst.class.opcode, inst.operands.get(1)) {
        (SpvOp::ExtInst, Some(RawOp::LiteralExtInstInteger(n))) => {
            super::OriginOpcode::GlslExtInst(*n)
        }
        _ => super::OriginOpcode::Core(inst.class.opname),
    };
    super::Origin {
        id: inst.result_id,
        opcode,
        line,
    }
}

fn terminator(
    cx: &Ctx<'_>,
    f: &FnCtx,
    inst: &Instruction,
    pos: Position,
) -> Res<Option<Terminator>> {
    Ok(Some(match inst.class.opcode {
        SpvOp::Branch => Terminator::Branch(f.block(id_at(inst, 0, pos)?, pos)?),
        SpvOp::BranchConditional => Terminator::CondBranch {
            cond: operand(cx, f, id_at(inst, 0, pos)?, pos)?,
            if_true: f.block(id_at(inst, 1, pos)?, pos)?,
            if_false: f.block(id_at(inst, 2, pos)?, pos)?,
        },
        SpvOp::Switch => {
            let selector = operand(cx, f, id_at(inst, 0, pos)?, pos)?;
            let default = f.block(id_at(inst, 1, pos)?, pos)?;
            let mut cases = Vec::new();
            let mut k = 2;
            while k < inst.operands.len() {
                let lit = match &inst.operands[k] {
                    RawOp::LiteralBit32(v) => u64::from(*v),
                    RawOp::LiteralBit64(v) => *v,
                    _ => return malformed(pos, "a switch case needs a literal"),
                };
                let target = f.block(id_at(inst, k + 1, pos)?, pos)?;
                cases.push((lit, target));
                k += 2;
            }
            Terminator::Switch {
                selector,
                default,
                cases,
            }
        }
        SpvOp::Return => Terminator::Return,
        SpvOp::ReturnValue => Terminator::ReturnValue(operand(cx, f, id_at(inst, 0, pos)?, pos)?),
        SpvOp::Unreachable => Terminator::Unreachable,
        SpvOp::Kill => Terminator::Kill,
        SpvOp::TerminateInvocation => Terminator::TerminateInvocation,
        _ => return Ok(None),
    }))
}

fn scope(cx: &Ctx<'_>, inst: &Instruction, k: usize, pos: Position) -> Res<spirv::Scope> {
    let v = cx.const_u32(id_at(inst, k, pos)?, pos)?;
    spirv::Scope::from_u32(v).map_or_else(|| malformed(pos, format!("{v} is not a scope")), Ok)
}

fn semantics(
    cx: &Ctx<'_>,
    inst: &Instruction,
    k: usize,
    pos: Position,
) -> Res<spirv::MemorySemantics> {
    let v = cx.const_u32(id_at(inst, k, pos)?, pos)?;
    spirv::MemorySemantics::from_bits(v).map_or_else(
        || {
            unsupported(
                pos,
                format!("memory semantics {v:#x}, which sets bits SPIR-V does not define"),
            )
        },
        Ok,
    )
}

fn mem_access(inst: &Instruction, k: usize, pos: Position) -> Res<MemAccess> {
    let (a, end) = mem_access_span(inst, k, pos)?;
    if inst.operands.len() != end {
        return malformed(pos, "unexpected memory access operands");
    }
    Ok(a)
}

/// The memory access operands starting at operand `k` (none when there are no more
/// operands), and the index of the operand after them.
fn mem_access_span(inst: &Instruction, k: usize, pos: Position) -> Res<(MemAccess, usize)> {
    let mut a = MemAccess::default();
    match inst.operands.get(k) {
        None => Ok((a, k)),
        Some(RawOp::MemoryAccess(m)) => {
            // MakePointerAvailable / MakePointerVisible (the Vulkan memory model) make a
            // write available or a read see other invocations' writes at a scope: every
            // write of the interpreter is visible at once, so they change nothing and are
            // dropped with their scope ids (docs/interp.md); NonPrivatePointer is kept.
            let scoped = MemoryAccess::MAKE_POINTER_AVAILABLE | MemoryAccess::MAKE_POINTER_VISIBLE;
            a.flags = *m - MemoryAccess::ALIGNED - scoped;
            if m.contains(MemoryAccess::ALIGNED) {
                a.aligned = Some(lit_at(inst, k + 1, pos)?);
            }
            let scopes = [
                MemoryAccess::MAKE_POINTER_AVAILABLE,
                MemoryAccess::MAKE_POINTER_VISIBLE,
            ]
            .into_iter()
            .filter(|f| m.contains(*f))
            .count();
            let first_scope = k + 1 + usize::from(a.aligned.is_some());
            for s in 0..scopes {
                id_at(inst, first_scope + s, pos)?;
            }
            Ok((a, first_scope + scopes))
        }
        Some(_) => malformed(pos, "expected memory access operands"),
    }
}

/// `OpCopyMemory target source [target access [source access]]`, read as a load of the
/// source's pointee and a store of it through the target (SPIR-V defines the copy by its
/// effect; the engines need no instruction of their own). One memory access set applies
/// to both sides, two are the target's and the source's. The two pointees must be the same
/// type: copies between logically matching types (SPIR-V 1.4) are refused.
fn copy_memory(
    cx: &mut Ctx<'_>,
    f: &mut FnCtx,
    b: Block,
    inst: &Instruction,
    pos: Position,
) -> Res<(Op, Operands)> {
    let target = operand(cx, f, id_at(inst, 0, pos)?, pos)?;
    let source = operand(cx, f, id_at(inst, 1, pos)?, pos)?;
    let (target_access, end) = mem_access_span(inst, 2, pos)?;
    let source_access = if end < inst.operands.len() {
        mem_access(inst, end, pos)?
    } else {
        mem_access(inst, end, pos)?;
        target_access
    };
    let types = &cx.module.types;
    let pointee = |o: Operand, what: &str| match types.pointer(cx.module.operand_type(&f.func, o)) {
        Some((_, p)) => Ok(p),
        None => malformed(pos, format!("OpCopyMemory's {what} is not a pointer")),
    };
    let (target_ty, source_ty) = (pointee(target, "target")?, pointee(source, "source")?);
    if target_ty != source_ty {
        return unsupported(
            pos,
            format!(
                "OpCopyMemory between different pointee types ({} and {}); only a copy \
                 between pointers to the same type is read",
                tangle_ir::text::type_ref(types, target_ty),
                tangle_ir::text::type_ref(types, source_ty)
            ),
        );
    }
    let loaded = f.func.values.push(ValueData {
        ty: source_ty,
        def: ValueDef::Unused,
    });
    let load = f.func.insts.push(tangle_ir::InstData::new(
        Op::Load(source_access),
        Operands::from([source]),
        Some(loaded),
    ));
    f.func.values[loaded].def = ValueDef::Inst(load);
    f.func.blocks[b].insts.push(load);
    Ok((
        Op::Store(target_access),
        Operands::from([target, Operand::Value(loaded)]),
    ))
}

fn instruction(
    cx: &mut Ctx<'_>,
    f: &mut FnCtx,
    b: Block,
    inst: &Instruction,
    pos: Position,
) -> Res<()> {
    // Collected straight into `Operands`, which holds up to three inline: a `Vec` first was a
    // heap allocation per instruction, freed again when it became `Operands`.
    let ids = |from: usize, to: usize, f: &FnCtx, cx: &Ctx<'_>| -> Res<Operands> {
        (from..to)
            .map(|k| operand(cx, f, id_at(inst, k, pos)?, pos))
            .collect()
    };
    let all = inst.operands.len();
    let opcode = inst.class.opcode;
    let (op, args): (Op, Operands) = match opcode {
        SpvOp::InBoundsAccessChain => (Op::Plain(PlainOp::AccessChain), ids(0, all, f, cx)?),
        SpvOp::CompositeExtract => {
            let lits = (1..all).map(|k| lit_at(inst, k, pos)).collect::<Res<_>>()?;
            (Op::CompositeExtract(lits), ids(0, 1, f, cx)?)
        }
        SpvOp::CompositeInsert => {
            let lits = (2..all).map(|k| lit_at(inst, k, pos)).collect::<Res<_>>()?;
            (Op::CompositeInsert(lits), ids(0, 2, f, cx)?)
        }
        SpvOp::VectorShuffle => {
            let lits = (2..all).map(|k| lit_at(inst, k, pos)).collect::<Res<_>>()?;
            (Op::VectorShuffle(lits), ids(0, 2, f, cx)?)
        }
        SpvOp::ArrayLength => (Op::ArrayLength(lit_at(inst, 1, pos)?), ids(0, 1, f, cx)?),
        SpvOp::Load => (Op::Load(mem_access(inst, 1, pos)?), ids(0, 1, f, cx)?),
        SpvOp::Store => (Op::Store(mem_access(inst, 2, pos)?), ids(0, 2, f, cx)?),
        SpvOp::CopyMemory => copy_memory(cx, f, b, inst, pos)?,
        SpvOp::Variable => {
            let Some(RawOp::StorageClass(sc)) = inst.operands.first() else {
                return malformed(pos, "OpVariable needs a storage class");
            };
            (Op::Variable(*sc), ids(1, all, f, cx)?)
        }
        SpvOp::FunctionCall => {
            let callee_id = id_at(inst, 0, pos)?;
            let callee = match cx.lookup(callee_id, pos)? {
                Def::Func(func) => func,
                _ => {
                    return fail(
                        pos,
                        ReadErrorKind::WrongId {
                            id: callee_id,
                            expected: "a function",
                        },
                    )
                }
            };
            (Op::Call(callee), ids(1, all, f, cx)?)
        }
        SpvOp::Phi => {
            let mut args = Operands::new();
            let mut blocks = Vec::new();
            let mut k = 0;
            while k + 1 < all {
                args.push(operand(cx, f, id_at(inst, k, pos)?, pos)?);
                blocks.push(f.block(id_at(inst, k + 1, pos)?, pos)?);
                k += 2;
            }
            if k != all {
                return malformed(pos, "OpPhi operands come in pairs");
            }
            (Op::Phi(blocks.into()), args)
        }
        SpvOp::ExtInst => {
            let set = id_at(inst, 0, pos)?;
            if cx.lookup(set, pos)? != Def::GlslSet {
                return fail(
                    pos,
                    ReadErrorKind::WrongId {
                        id: set,
                        expected: "an extended instruction set",
                    },
                );
            }
            let n = lit_at(inst, 1, pos)?;
            let Some(g) = GlslOp::from_number(n) else {
                // Named as the grammar names it (`Frexp`), the number when it has no name.
                let what = match spirv::GlslStd450Op::from_u32(n) {
                    Some(op) => format!("GLSL.std.450 instruction {op:?} ({n})"),
                    None => format!("GLSL.std.450 instruction {n}, which the set does not define"),
                };
                return unsupported(pos, what);
            };
            (Op::Glsl(g), ids(2, all, f, cx)?)
        }
        SpvOp::ControlBarrier => (
            Op::ControlBarrier {
                exec: scope(cx, inst, 0, pos)?,
                memory: scope(cx, inst, 1, pos)?,
                semantics: semantics(cx, inst, 2, pos)?,
            },
            Operands::new(),
        ),
        SpvOp::MemoryBarrier => (
            Op::MemoryBarrier {
                memory: scope(cx, inst, 0, pos)?,
                semantics: semantics(cx, inst, 1, pos)?,
            },
            Operands::new(),
        ),
        SpvOp::Undef => (Op::Plain(PlainOp::Undef), Operands::new()),
        other => {
            if let Some(a) = AtomicOp::from_spirv(other) {
                // Pointer, scope, semantics [, unequal semantics], values.
                let cmpxchg = a == AtomicOp::CompareExchange;
                let first_value = if cmpxchg { 4 } else { 3 };
                let mut args = ids(0, 1, f, cx)?;
                args.extend(ids(first_value, all, f, cx)?);
                let op = Op::Atomic {
                    op: a,
                    scope: scope(cx, inst, 1, pos)?,
                    semantics: semantics(cx, inst, 2, pos)?,
                    unequal: if cmpxchg {
                        semantics(cx, inst, 3, pos)?
                    } else {
                        spirv::MemorySemantics::RELAXED
                    },
                };
                (op, args)
            } else if let Some(g) = GroupOp::from_spirv(other) {
                let exec = scope(cx, inst, 0, pos)?;
                let (group, first) = if g.takes_group_operation() {
                    match inst.operands.get(1) {
                        Some(RawOp::GroupOperation(go)) => match GroupOperation::from_spirv(*go) {
                            Some(x) => (Some(x), 2),
                            None => return unsupported(pos, format!("group operation {go:?}")),
                        },
                        _ => return malformed(pos, "expected a group operation"),
                    }
                } else {
                    (None, 1)
                };
                (
                    Op::Group {
                        op: g,
                        scope: exec,
                        group,
                    },
                    ids(first, all, f, cx)?,
                )
            } else if let Some(p) = PlainOp::from_spirv(other) {
                (Op::Plain(p), ids(0, all, f, cx)?)
            } else {
                return unsupported(pos, format!("instruction Op{other:?}"));
            }
        }
    };
    let result = match inst.result_id {
        Some(id) => match f.locals.get(&id) {
            Some(Local::Value(v)) => Some(*v),
            _ => return malformed(pos, "result id was not assigned"),
        },
        None => None,
    };
    if op.has_result() != result.is_some() {
        return malformed(pos, "result presence does not match the instruction");
    }
    if let (Op::Plain(PlainOp::AccessChain), Some(v)) = (&op, result) {
        relayout_access_chain(cx, f, v, &args);
    }
    let i = f
        .func
        .insts
        .push(tangle_ir::InstData::new(op, args, result));
    if let Some(v) = result {
        f.func.values[v].def = ValueDef::Inst(i);
    }
    f.func.blocks[b].insts.push(i);
    Ok(())
}

/// Gives access chain `v` the pointee type its base's type leads to when that differs from
/// SPIR-V's result type only by matrix layout: inside a laid-out struct member the
/// pointee is the laid-out matrix (or a row-major matrix's strided column), which is what
/// the engines need to find the bytes; SPIR-V's pointer type names the plain matrix or
/// vector. Anything else is left for the verifier to judge.
fn relayout_access_chain(cx: &mut Ctx<'_>, f: &mut FnCtx, v: Value, args: &[Operand]) {
    let types = &cx.module.types;
    let Some(base) = args.first() else { return };
    let base_ty = cx.module.operand_type(&f.func, *base);
    let Some((storage, mut cur)) = types.pointer(base_ty) else {
        return;
    };
    for a in &args[1..] {
        let index = match *a {
            Operand::Const(c) => match &cx.module.consts[c].value {
                tangle_ir::ConstValue::Bits(b) if !cx.module.consts[c].spec => {
                    u32::try_from(*b).ok()
                }
                _ => None,
            },
            _ => None,
        };
        let next = match types.get(cur) {
            TypeData::Struct { .. } => index.and_then(|i| types.element(cur, Some(i))),
            _ => types.element(cur, None),
        };
        let Some(next) = next else { return };
        cur = next;
    }
    let declared = f.func.values[v].ty;
    match types.pointer(declared) {
        Some((sc, pointee))
            if sc == storage && pointee != cur && types.same_value_type(cur, pointee) =>
        {
            let ty = cx.module.types.intern(TypeData::Pointer {
                storage,
                pointee: cur,
            });
            f.func.values[v].ty = ty;
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    /// Origins name an instruction by the grammar's name after `Op`, which must be how the
    /// opcode prints (what the messages said when they were formatted from the opcode), for
    /// every core instruction of the grammar.
    #[test]
    fn grammar_names_are_the_opcode_names() {
        let mut n = 0;
        for inst in rspirv::grammar::INSTRUCTION_TABLE.iter() {
            assert_eq!(inst.opname, format!("{:?}", inst.opcode));
            n += 1;
        }
        assert!(n > 300, "only {n} instructions in the grammar");
    }
}
