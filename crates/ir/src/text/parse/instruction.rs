//! Operations with their immediates, and operand lists.

use spirv::{MemorySemantics, StorageClass};

use super::body::Body;
use super::{
    entity_index, err, index_over_limit, item_enum, item_scope, item_semantics, item_u32, Item,
    PResult, Parser,
};
use crate::glsl::GlslOp;
use crate::module::{Const, Func, Function, Global, Operand, Value};
use crate::ops::{
    AtomicOp, GroupOp, GroupOperation, MemAccess, Op, PlainOp, TangleOp, ACCESS_NAMES,
};
use crate::text::lexer::{Pos, Tok};

impl Parser {
    /// Parses an operation mnemonic and its bracketed immediates.
    pub(super) fn op_with_immediates(&mut self, mn: &str, pos: Pos) -> PResult<Op> {
        let items = self.items()?;
        let none = |items: &[Item]| -> PResult<()> {
            match items.first() {
                Some(i) => err(i.pos, format!("`{mn}` takes no immediates")),
                None => Ok(()),
            }
        };
        let u32_list = |items: &[Item]| -> PResult<Vec<u32>> {
            items.iter().map(|i| item_u32(i, 0)).collect()
        };
        if let Some(p) = PlainOp::from_name(mn) {
            none(&items)?;
            return Ok(Op::Plain(p));
        }
        if let Some(t) = TangleOp::from_name(mn) {
            none(&items)?;
            return Ok(Op::Tangle(t));
        }
        if let Some(a) = AtomicOp::from_name(mn) {
            let want = if a == AtomicOp::CompareExchange { 3 } else { 2 };
            if items.len() != want {
                return err(
                    pos,
                    format!(
                        "`{mn}` takes [scope, semantics{}]",
                        if want == 3 { ", unequal semantics" } else { "" }
                    ),
                );
            }
            return Ok(Op::Atomic {
                op: a,
                scope: item_scope(&items[0])?,
                semantics: item_semantics(&items[1])?,
                unequal: if want == 3 {
                    item_semantics(&items[2])?
                } else {
                    MemorySemantics::RELAXED
                },
            });
        }
        if let Some(g) = GroupOp::from_name(mn) {
            let Some(first) = items.first() else {
                return err(
                    pos,
                    format!(
                        "`{mn}` takes [scope{}]",
                        if g.takes_group_operation() {
                            ", group operation"
                        } else {
                            ""
                        }
                    ),
                );
            };
            let scope = item_scope(first)?;
            let group = if g.takes_group_operation() {
                let Some(item) = items.get(1) else {
                    return err(pos, format!("`{mn}` needs a group operation"));
                };
                match item.word().and_then(GroupOperation::from_name) {
                    Some(go) => Some(go),
                    None => return err(item.pos, "unknown group operation"),
                }
            } else {
                None
            };
            let expected = 1 + usize::from(group.is_some());
            if items.len() != expected {
                return err(
                    items[expected.min(items.len() - 1)].pos,
                    "too many immediates",
                );
            }
            return Ok(Op::Group {
                op: g,
                scope,
                group,
            });
        }
        Ok(match mn {
            "composite_extract" => Op::CompositeExtract(u32_list(&items)?.into()),
            "composite_insert" => Op::CompositeInsert(u32_list(&items)?.into()),
            "vector_shuffle" => Op::VectorShuffle(u32_list(&items)?.into()),
            "array_length" => match items.as_slice() {
                [i] => Op::ArrayLength(item_u32(i, 0)?),
                _ => return err(pos, "`array_length` takes [member]"),
            },
            "load" | "store" => {
                let mut a = MemAccess::default();
                for item in &items {
                    match item.word() {
                        Some("aligned") => a.aligned = Some(item_u32(item, 1)?),
                        Some(w) => match ACCESS_NAMES.iter().find(|(_, n)| *n == w) {
                            Some((bit, _)) => a.flags |= *bit,
                            None => return err(item.pos, format!("unknown memory access `{w}`")),
                        },
                        None => return err(item.pos, "expected a memory access flag"),
                    }
                }
                if mn == "load" {
                    Op::Load(a)
                } else {
                    Op::Store(a)
                }
            }
            "variable" => match items.as_slice() {
                [i] => Op::Variable(item_enum::<StorageClass>(i, "storage class")?),
                _ => return err(pos, "`variable` takes [StorageClass]"),
            },
            "call" => match items.as_slice() {
                [i] => {
                    let f = match i.word().and_then(|w| entity_index(w, Func::PREFIX)) {
                        Some(n) => Func::from_u32(n),
                        None => return err(i.pos, "expected a function"),
                    };
                    self.func_refs.push((f, i.pos));
                    Op::Call(f)
                }
                _ => return err(pos, "`call` takes [fN]"),
            },
            "glsl" => match items.as_slice() {
                [i] => match i.word().and_then(GlslOp::from_name) {
                    Some(g) => Op::Glsl(g),
                    None => return err(i.pos, "unknown GLSL.std.450 instruction"),
                },
                _ => return err(pos, "`glsl` takes [Name]"),
            },
            "phi" => {
                none(&items)?;
                Op::Phi(Default::default())
            }
            "control_barrier" => match items.as_slice() {
                [e, m, s] => Op::ControlBarrier {
                    exec: item_scope(e)?,
                    memory: item_scope(m)?,
                    semantics: item_semantics(s)?,
                },
                _ => {
                    return err(
                        pos,
                        "`control_barrier` takes [exec scope, memory scope, semantics]",
                    )
                }
            },
            "memory_barrier" => match items.as_slice() {
                [m, s] => Op::MemoryBarrier {
                    memory: item_scope(m)?,
                    semantics: item_semantics(s)?,
                },
                _ => return err(pos, "`memory_barrier` takes [memory scope, semantics]"),
            },
            _ => return err(pos, format!("unknown operation `{mn}`")),
        })
    }

    pub(super) fn operand(&mut self, func: &mut Function, body: &mut Body) -> PResult<Operand> {
        let (name, pos) = self.ident("an operand")?;
        index_over_limit(&name, Value::PREFIX, pos)?;
        if let Some(n) = entity_index(&name, Value::PREFIX) {
            let v = Value::from_u32(n);
            body.use_value(func, v, pos);
            return Ok(Operand::Value(v));
        }
        if let Some(n) = entity_index(&name, Const::PREFIX) {
            let c = Const::from_u32(n);
            if !self.module.consts.contains(c) {
                return err(pos, format!("constant {c} is not defined"));
            }
            return Ok(Operand::Const(c));
        }
        if let Some(n) = entity_index(&name, Global::PREFIX) {
            let g = Global::from_u32(n);
            if !self.module.globals.contains(g) {
                return err(pos, format!("global {g} is not defined"));
            }
            return Ok(Operand::Global(g));
        }
        err(
            pos,
            format!("expected an operand (vN, cN or gN), found `{name}`"),
        )
    }

    /// The optional convergence-control operand after the operands: `conv(vN)`.
    pub(super) fn conv_operand(
        &mut self,
        func: &mut Function,
        body: &mut Body,
    ) -> PResult<Option<Value>> {
        let is_conv = matches!(&self.peek().tok, Tok::Ident(s) if s == "conv")
            && *self.peek_at(1) == Tok::Punct('(');
        if !is_conv {
            return Ok(None);
        }
        self.bump();
        self.bump();
        let (n, pos) = self.entity(Value::PREFIX, "a token value")?;
        let v = Value::from_u32(n);
        body.use_value(func, v, pos);
        self.expect_punct(')')?;
        Ok(Some(v))
    }

    pub(super) fn operand_follows(&self) -> bool {
        matches!(&self.peek().tok, Tok::Ident(s)
            if (entity_index(s, Value::PREFIX).is_some()
                || entity_index(s, Const::PREFIX).is_some()
                || entity_index(s, Global::PREFIX).is_some())
                && *self.peek_at(1) != Tok::Punct('=')
                && *self.peek_at(1) != Tok::Punct(':'))
    }

    /// The operand list of an instruction (phis take `[operand, block]` pairs).
    pub(super) fn operands(
        &mut self,
        func: &mut Function,
        body: &mut Body,
        op: &Op,
    ) -> PResult<Vec<Operand>> {
        let mut args = Vec::new();
        if let Op::Phi(_) = op {
            let mut blocks = Vec::new();
            loop {
                self.expect_punct('[')?;
                args.push(self.operand(func, body)?);
                self.expect_punct(',')?;
                blocks.push(body.block_ref(self, func)?);
                self.expect_punct(']')?;
                if !self.eat_punct(',') {
                    break;
                }
            }
            body.pending_phi_blocks = Some(blocks);
            return Ok(args);
        }
        if !self.operand_follows() {
            return Ok(args);
        }
        loop {
            args.push(self.operand(func, body)?);
            if !self.eat_punct(',') {
                break;
            }
        }
        Ok(args)
    }
}
