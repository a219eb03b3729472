//! The syntax tree to tangle's IR: functions become lowered functions (LLVM IR has no
//! merge annotations), laid out in reverse post-order; declarations become functions whose
//! body is one block ending in `unreachable`; the token intrinsics become `conv_*`
//! operations and `tangle.subgroup.*` calls subgroup operations (`docs/tokens.md`).

use std::collections::HashMap;

use spirv::StorageClass;
use tangle_ir::module::{
    Block, Const, ConstData, ConstValue, Func, Function, GlobalData, GlobalDecorations, InstData,
    Module, Operand, Terminator, Value, ValueData, ValueDef,
};
use tangle_ir::ops::{MemAccess, Op, PlainOp};
use tangle_ir::types::{Type, TypeData};

use super::lexer::Pos;
use super::parse::{
    FuncAst, InstAst, InstKind, LlType, LlValue, ModuleAst, Operand as LlOperand, TermAst,
};
use super::{ReadError, SourceMap};
use crate::mapping;

type R<T> = Result<T, ReadError>;

pub(super) fn build(ast: &ModuleAst) -> R<(Module, SourceMap)> {
    let mut m = Module::default();
    // LLVM IR has no capabilities: declare every one the subset can need, so that the
    // module rules (SPIR-V's) judge nothing but what LLVM IR says.
    {
        use spirv::Capability as C;
        m.capabilities.extend([
            C::Linkage,
            C::Int8,
            C::Int16,
            C::Int64,
            C::Float16,
            C::Float64,
            C::GroupNonUniform,
            C::GroupNonUniformVote,
            C::GroupNonUniformArithmetic,
            C::GroupNonUniformBallot,
            C::GroupNonUniformShuffle,
            C::GroupNonUniformShuffleRelative,
            C::GroupNonUniformClustered,
            C::GroupNonUniformQuad,
        ]);
    }
    let mut b = Builder {
        module: m,
        funcs: HashMap::new(),
        globals: HashMap::new(),
        map: SourceMap::default(),
    };
    for g in &ast.globals {
        let ty = b.ty(&g.ty, g.pos)?;
        let ptr = b.module.types.intern(TypeData::Pointer {
            storage: StorageClass::Private,
            pointee: ty,
        });
        let init = match &g.init {
            Some(op) => Some(b.constant(op)?),
            None => None,
        };
        let id = b.module.globals.push(GlobalData {
            ty: ptr,
            storage: StorageClass::Private,
            init,
            decorations: GlobalDecorations::default(),
            name: Some(g.name.clone()),
        });
        b.globals.insert(g.name.clone(), id);
    }
    // Every function first, so calls may name later ones.
    let mut bodies = Vec::new();
    for f in &ast.funcs {
        if mapping::token_op(&f.name).is_some() || f.name.starts_with(mapping::SUBGROUP_PREFIX) {
            continue;
        }
        if b.funcs.contains_key(&f.name) {
            return Err(ReadError::at(
                f.pos,
                format!("`@{}` is declared twice", f.name),
            ));
        }
        let ret = b.ty(&f.ret, f.pos)?;
        let mut func = Function::new(Some(f.name.clone()), ret);
        func.form = tangle_ir::module::Form::Lowered;
        func.convergent = f.attrs.iter().any(|a| a == "convergent")
            || f.groups.iter().any(|g| {
                ast.groups
                    .get(g)
                    .is_some_and(|w| w.iter().any(|a| a == "convergent"))
            });
        for (ty, _, pos) in &f.params {
            let ty = b.ty(ty, *pos)?;
            func.add_param(ty);
        }
        if f.body.is_none() {
            let block = func.add_block();
            func.blocks[block].term = Terminator::Unreachable;
        }
        let id = b.module.funcs.push(func);
        b.funcs.insert(f.name.clone(), id);
        if f.body.is_some() {
            bodies.push((id, f));
        }
    }
    for (id, f) in bodies {
        b.body(id, f)?;
    }
    Ok((b.module, b.map))
}

struct Builder {
    module: Module,
    funcs: HashMap<String, Func>,
    globals: HashMap<String, tangle_ir::module::Global>,
    map: SourceMap,
}

/// Names of one function body.
struct Scope {
    values: HashMap<String, Value>,
    blocks: HashMap<String, Block>,
}

impl Builder {
    fn ty(&mut self, t: &LlType, pos: Pos) -> R<Type> {
        let types = &mut self.module.types;
        Ok(match t {
            LlType::Void => types.void(),
            LlType::Int(1) => types.bool(),
            LlType::Int(w @ (8 | 16 | 32 | 64)) => types.intern(TypeData::Int {
                width: *w as u8,
                signed: false,
            }),
            LlType::Float(w) => types.intern(TypeData::Float { width: *w as u8 }),
            LlType::Token => types.token(),
            LlType::Vector(n @ 2..=4, elem) => {
                let elem = self.ty(elem, pos)?;
                self.module.types.intern(TypeData::Vector {
                    elem,
                    count: *n as u8,
                })
            }
            LlType::Ptr => {
                return Err(ReadError::at(
                    pos,
                    "`ptr` values other than `alloca` results and globals are outside the subset",
                ))
            }
            other => {
                return Err(ReadError::at(
                    pos,
                    format!("the type {other:?} is outside tangle's LLVM IR subset"),
                ))
            }
        })
    }

    fn add_const(&mut self, ty: Type, value: ConstValue) -> Const {
        if let Some((c, _)) = self
            .module
            .consts
            .iter()
            .find(|(_, d)| d.ty == ty && d.value == value && !d.spec)
        {
            return c;
        }
        self.module.consts.push(ConstData {
            ty,
            value,
            spec: false,
            spec_id: None,
            builtin: None,
            name: None,
        })
    }

    fn constant(&mut self, op: &LlOperand) -> R<Const> {
        let ty = self.ty(&op.ty, op.pos)?;
        let value = match (&op.val, &op.ty) {
            (LlValue::Bool(v), LlType::Int(1)) => ConstValue::Bool(*v),
            (LlValue::Int(i), LlType::Int(1)) => ConstValue::Bool(*i != 0),
            (LlValue::Int(i), LlType::Int(w)) => {
                let mask = if *w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
                ConstValue::Bits((*i as u64) & mask)
            }
            (LlValue::Float(f), LlType::Float(32)) => ConstValue::Bits(u64::from((*f as f32).to_bits())),
            (LlValue::Float(f), LlType::Float(64)) => ConstValue::Bits(f.to_bits()),
            (LlValue::Undef, _) => ConstValue::Undef,
            (LlValue::Poison, LlType::Token) => {
                return Err(ReadError::at(
                    op.pos,
                    "a `token poison` operand: a convergence-control token must come from `llvm.experimental.convergence.*` (LLVM 19 rejects it too; llvm #164496)",
                ))
            }
            (LlValue::Poison, _) => ConstValue::Undef,
            (LlValue::Zero, _) => ConstValue::Null,
            (LlValue::Vector(items), LlType::Vector(..)) => {
                let parts = items.iter().map(|i| self.constant(i)).collect::<R<Vec<_>>>()?;
                ConstValue::Composite(parts)
            }
            (v, t) => return Err(ReadError::at(op.pos, format!("the constant {v:?} of type {t:?} is outside the subset"))),
        };
        Ok(self.add_const(ty, value))
    }

    fn operand(&mut self, scope: &Scope, op: &LlOperand) -> R<Operand> {
        match &op.val {
            LlValue::Local(n) => scope
                .values
                .get(n)
                .map(|&v| Operand::Value(v))
                .ok_or_else(|| ReadError::at(op.pos, format!("`%{n}` is not defined"))),
            LlValue::Global(n) => self
                .globals
                .get(n)
                .map(|&g| Operand::Global(g))
                .ok_or_else(|| ReadError::at(op.pos, format!("`@{n}` is not a global variable"))),
            _ => Ok(Operand::Const(self.constant(op)?)),
        }
    }

    /// The type of an instruction's result, from its syntax (and, for `alloca`, a pointer
    /// into function memory).
    fn result_type(&mut self, i: &InstAst) -> R<Option<Type>> {
        let pos = i.pos;
        let bool_like = |b: &mut Self, t: &LlType| -> R<Type> {
            match t {
                LlType::Vector(n, _) => b.ty(&LlType::Vector(*n, Box::new(LlType::Int(1))), pos),
                _ => Ok(b.module.types.bool()),
            }
        };
        Ok(match &i.kind {
            InstKind::Binary(_, a, _) => Some(self.ty(&a.ty, a.pos)?),
            InstKind::Cmp(_, _, a, _) => Some(bool_like(self, &a.ty)?),
            InstKind::Select(_, a, _) => Some(self.ty(&a.ty, a.pos)?),
            InstKind::Cast(_, _, to) => Some(self.ty(to, pos)?),
            InstKind::Phi(t, _) | InstKind::Load(t, _) => Some(self.ty(t, pos)?),
            InstKind::Alloca(t) => {
                let pointee = self.ty(t, pos)?;
                Some(self.module.types.intern(TypeData::Pointer {
                    storage: StorageClass::Function,
                    pointee,
                }))
            }
            InstKind::Store(..) => None,
            InstKind::Call { ret, .. } => Some(self.ty(ret, pos)?),
        })
    }

    fn body(&mut self, id: Func, f: &FuncAst) -> R<()> {
        let blocks_ast = f.body.as_deref().unwrap_or_default();
        let mut func = std::mem::replace(
            &mut self.module.funcs[id],
            Function::new(None, self.module.types.void()),
        );
        let mut scope = Scope {
            values: HashMap::new(),
            blocks: HashMap::new(),
        };
        for (k, (_, name, pos)) in f.params.iter().enumerate() {
            let name = name.clone().unwrap_or_else(|| k.to_string());
            if scope.values.insert(name.clone(), func.params[k]).is_some() {
                return Err(ReadError::at(*pos, format!("`%{name}` is defined twice")));
            }
        }
        for ba in blocks_ast {
            let b = func.add_block();
            if scope.blocks.insert(ba.name.clone(), b).is_some() {
                return Err(ReadError::at(
                    ba.term.1,
                    format!("block `{}` is defined twice", ba.name),
                ));
            }
        }
        // Results first, so that phis and back edges may name later values.
        let mut results = Vec::new();
        for ba in blocks_ast {
            for i in &ba.insts {
                let ty = self.result_type(i)?;
                let v = match (&i.result, ty) {
                    (Some(name), Some(ty)) => {
                        let v = func.values.push(ValueData {
                            ty,
                            def: ValueDef::Unused,
                        });
                        if scope.values.insert(name.clone(), v).is_some() {
                            return Err(ReadError::at(
                                i.pos,
                                format!("`%{name}` is defined twice"),
                            ));
                        }
                        Some(v)
                    }
                    (None, Some(ty)) => Some(func.values.push(ValueData {
                        ty,
                        def: ValueDef::Unused,
                    })),
                    (Some(name), None) => {
                        return Err(ReadError::at(
                            i.pos,
                            format!("`%{name}` names an instruction without a result"),
                        ))
                    }
                    (None, None) => None,
                };
                results.push(v);
            }
        }
        let mut next = results.into_iter();
        for ba in blocks_ast {
            let b = scope.blocks[&ba.name];
            for i in &ba.insts {
                let result = next.next().flatten();
                let data = self.inst(&scope, i, result)?;
                let inst = func.insts.push(data);
                if let Some(v) = result {
                    func.values[v].def = ValueDef::Inst(inst);
                }
                func.blocks[b].insts.push(inst);
                self.map
                    .insts
                    .insert((id, b, func.blocks[b].insts.len() - 1), i.pos);
            }
            func.blocks[b].term = self.terminator(&scope, &ba.term.0, ba.term.1)?;
            self.map.terms.insert((id, b), ba.term.1);
            self.map.blocks.insert((id, b), ba.name.clone());
        }
        for (name, &v) in &scope.values {
            self.map.values.insert((id, v), name.clone());
        }
        self.map.funcs.insert(id, f.name.clone());
        func.layout_in_reverse_post_order();
        self.module.funcs[id] = func;
        Ok(())
    }

    fn block(&self, scope: &Scope, name: &str, pos: Pos) -> R<Block> {
        scope
            .blocks
            .get(name)
            .copied()
            .ok_or_else(|| ReadError::at(pos, format!("no block `%{name}`")))
    }

    fn inst(&mut self, scope: &Scope, i: &InstAst, result: Option<Value>) -> R<InstData> {
        let pos = i.pos;
        let is_bool = |t: &LlType| {
            matches!(t, LlType::Int(1))
                || matches!(t, LlType::Vector(_, e) if **e == LlType::Int(1))
        };
        let (op, args, conv) = match &i.kind {
            InstKind::Binary(name, a, c) => {
                let p = if is_bool(&a.ty) {
                    mapping::logical_binary(name)
                } else {
                    mapping::BINARY
                        .iter()
                        .find(|(n, _)| n == name)
                        .map(|&(_, p)| p)
                };
                let p = p.ok_or_else(|| {
                    ReadError::at(pos, format!("`{name}` on {:?} is outside the subset", a.ty))
                })?;
                (
                    Op::Plain(p),
                    vec![self.operand(scope, a)?, self.operand(scope, c)?],
                    None,
                )
            }
            InstKind::Cmp(float, pred, a, c) => {
                let table = if *float { mapping::FCMP } else { mapping::ICMP };
                let mut p = table
                    .iter()
                    .find(|(n, _)| n == pred)
                    .map(|&(_, p)| p)
                    .ok_or_else(|| ReadError::at(pos, format!("unknown predicate `{pred}`")))?;
                if is_bool(&a.ty) {
                    p = match p {
                        PlainOp::IEqual => PlainOp::LogicalEqual,
                        PlainOp::INotEqual => PlainOp::LogicalNotEqual,
                        _ => {
                            return Err(ReadError::at(
                                pos,
                                format!("`icmp {pred}` on `i1` is outside the subset"),
                            ))
                        }
                    };
                }
                (
                    Op::Plain(p),
                    vec![self.operand(scope, a)?, self.operand(scope, c)?],
                    None,
                )
            }
            InstKind::Select(c, a, d) => (
                Op::Plain(PlainOp::Select),
                vec![
                    self.operand(scope, c)?,
                    self.operand(scope, a)?,
                    self.operand(scope, d)?,
                ],
                None,
            ),
            InstKind::Cast(name, a, _) => {
                let p = match name.as_str() {
                    "trunc" if is_bool(&a.ty) => None,
                    "trunc" => Some(PlainOp::UConvert),
                    _ => mapping::CASTS
                        .iter()
                        .find(|(n, _)| n == name)
                        .map(|&(_, p)| p),
                };
                let p = p.ok_or_else(|| {
                    ReadError::at(pos, format!("`{name}` of {:?} is outside the subset", a.ty))
                })?;
                (Op::Plain(p), vec![self.operand(scope, a)?], None)
            }
            InstKind::Phi(_, incoming) => {
                let mut blocks = Vec::new();
                let mut args = Vec::new();
                for (v, b) in incoming {
                    args.push(self.operand(scope, v)?);
                    blocks.push(self.block(scope, b, v.pos)?);
                }
                (Op::Phi(blocks.into()), args, None)
            }
            InstKind::Alloca(_) => (Op::Variable(StorageClass::Function), Vec::new(), None),
            InstKind::Load(_, p) => (
                Op::Load(MemAccess::default()),
                vec![self.pointer(scope, p)?],
                None,
            ),
            InstKind::Store(v, p) => (
                Op::Store(MemAccess::default()),
                vec![self.pointer(scope, p)?, self.operand(scope, v)?],
                None,
            ),
            InstKind::Call {
                callee,
                args,
                bundles,
                ..
            } => {
                let mut conv = None;
                for (tag, ops, bpos) in bundles {
                    if tag != "convergencectrl" {
                        return Err(ReadError::at(
                            *bpos,
                            format!("the operand bundle \"{tag}\" is outside the subset"),
                        ));
                    }
                    if conv.is_some() {
                        return Err(ReadError::at(
                            *bpos,
                            "the \"convergencectrl\" bundle can occur at most once on a call",
                        ));
                    }
                    let [t] = &ops[..] else {
                        return Err(ReadError::at(
                            *bpos,
                            "the \"convergencectrl\" bundle takes exactly one token",
                        ));
                    };
                    if t.ty != LlType::Token {
                        return Err(ReadError::at(
                            t.pos,
                            "the \"convergencectrl\" bundle takes a token",
                        ));
                    }
                    match self.operand(scope, t)? {
                        Operand::Value(v) => conv = Some(v),
                        _ => {
                            return Err(ReadError::at(
                                t.pos,
                                "the \"convergencectrl\" bundle takes a token value",
                            ))
                        }
                    }
                }
                let args: Vec<Operand> = args
                    .iter()
                    .map(|a| self.operand(scope, a))
                    .collect::<R<_>>()?;
                let op = if let Some(t) = mapping::token_op(callee) {
                    if !args.is_empty() {
                        return Err(ReadError::at(
                            pos,
                            format!("`@{callee}` takes no arguments"),
                        ));
                    }
                    Op::Tangle(t)
                } else if let Some((g, group)) = mapping::subgroup_op(callee) {
                    Op::Group {
                        op: g,
                        scope: spirv::Scope::Subgroup,
                        group,
                    }
                } else if let Some(&f) = self.funcs.get(callee) {
                    Op::Call(f)
                } else {
                    return Err(ReadError::at(
                        pos,
                        format!(
                            "`@{callee}` is not declared, or is an intrinsic outside the subset"
                        ),
                    ));
                };
                (op, args, conv)
            }
        };
        Ok(InstData {
            op,
            args: args.into(),
            result,
            conv,
        })
    }

    /// A pointer operand: an `alloca` result or a global.
    fn pointer(&mut self, scope: &Scope, p: &LlOperand) -> R<Operand> {
        if p.ty != LlType::Ptr {
            return Err(ReadError::at(p.pos, "expected a `ptr` operand"));
        }
        match &p.val {
            LlValue::Local(_) | LlValue::Global(_) => self.operand(scope, p),
            _ => Err(ReadError::at(
                p.pos,
                "a pointer operand is an `alloca` result or a global",
            )),
        }
    }

    fn terminator(&mut self, scope: &Scope, t: &TermAst, pos: Pos) -> R<Terminator> {
        Ok(match t {
            TermAst::Br(b) => Terminator::Branch(self.block(scope, b, pos)?),
            TermAst::CondBr(c, t, f) => Terminator::CondBranch {
                cond: self.operand(scope, c)?,
                if_true: self.block(scope, t, pos)?,
                if_false: self.block(scope, f, pos)?,
            },
            TermAst::Switch(sel, default, cases) => {
                let LlType::Int(w) = sel.ty else {
                    return Err(ReadError::at(sel.pos, "a switch selector is an integer"));
                };
                let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
                let mut out = Vec::new();
                for (n, b) in cases {
                    out.push(((*n as u64) & mask, self.block(scope, b, pos)?));
                }
                Terminator::Switch {
                    selector: self.operand(scope, sel)?,
                    default: self.block(scope, default, pos)?,
                    cases: out,
                }
            }
            TermAst::Ret(None) => Terminator::Return,
            TermAst::Ret(Some(v)) => Terminator::ReturnValue(self.operand(scope, v)?),
            TermAst::Unreachable => Terminator::Unreachable,
        })
    }
}
