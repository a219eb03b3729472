//! Function headers, bodies, statements and block ends.

use spirv::{FunctionControl, LoopControl, SelectionControl};

use super::body::Body;
use super::types::parse_scalar;
use super::{entity_index, err, index_over_limit, item_u32, PResult, Parser};
use crate::entity::EntityRef;
use crate::module::{
    Block, Const, Form, Func, Function, Global, InstData, Merge, Terminator, Value, ValueDef,
};
use crate::text::lexer::{Pos, Tok};
use crate::text::print::LOOP_CONTROL_NAMES;

impl Parser {
    pub(super) fn function(&mut self) -> PResult<()> {
        let _ = self.declared_in_order(Func::PREFIX, "a function name", self.module.funcs.len())?;
        let name = match self.peek().tok {
            Tok::Str(_) => Some(self.string()?),
            _ => None,
        };
        let mut body = Body::default();
        let void = self.module.types.void();
        let mut func = Function::new(name, void);
        let params = self.parenthesized(|p| {
            let (v, vpos) = p.entity(Value::PREFIX, "a parameter")?;
            p.expect_punct(':')?;
            Ok((Value::from_u32(v), vpos, p.type_ref()?))
        })?;
        for (value, vpos, ty) in params {
            let index = func.params.len() as u32;
            body.define_value(&mut func, value, vpos, ty, ValueDef::Param(index))?;
            func.params.push(value);
        }
        self.expect_arrow()?;
        func.ret = self.type_ref()?;
        for item in self.items()? {
            let word = item.word().unwrap_or("");
            match FunctionControl::from_name(&word.to_ascii_uppercase()) {
                Some(c) if !word.is_empty() => func.control |= c,
                _ => return err(item.pos, format!("unknown function control `{word}`")),
            }
        }
        // The form: `structured` (the default, not printed) or `lowered`; then
        // `non_convergent` for a function without LLVM's `convergent` attribute.
        if let Tok::Ident(word) = &self.peek().tok {
            if let Some(form) = Form::from_name(word) {
                func.form = form;
                self.bump();
            }
        }
        if let Tok::Ident(word) = &self.peek().tok {
            if word == "non_convergent" {
                func.convergent = false;
                self.bump();
            }
        }
        if let Tok::Ident(word) = &self.peek().tok {
            return err(
                self.pos(),
                format!(
                    "expected `{{`, `structured`, `lowered` or `non_convergent`, found `{word}`"
                ),
            );
        }
        self.expect_punct('{')?;
        let mut current: Option<Block> = None;
        loop {
            let t = self.peek().clone();
            if let Tok::Ident(w) = &t.tok {
                if *self.peek_at(1) == Tok::Punct(':') {
                    index_over_limit(w, Block::PREFIX, t.pos)?;
                }
            }
            match &t.tok {
                Tok::Punct('}') => {
                    self.bump();
                    if let Some(b) = current {
                        return err(t.pos, format!("block {b} has no terminator"));
                    }
                    break;
                }
                Tok::Ident(w)
                    if entity_index(w, Block::PREFIX).is_some()
                        && *self.peek_at(1) == Tok::Punct(':') =>
                {
                    if let Some(b) = current {
                        return err(t.pos, format!("block {b} has no terminator"));
                    }
                    let b = Block::from_u32(entity_index(w, Block::PREFIX).unwrap_or(0));
                    self.bump();
                    self.bump();
                    body.define_block(&mut func, b, t.pos)?;
                    current = Some(b);
                }
                Tok::Eof => return err(t.pos, "unexpected end of input in function body"),
                _ => {
                    let Some(b) = current else {
                        return err(t.pos, "expected a block label like `b0:`");
                    };
                    if self.statement(&mut func, &mut body, b)? {
                        current = None;
                    }
                }
            }
        }
        body.finish(&func)?;
        self.module.funcs.push(func);
        Ok(())
    }

    /// Parses one statement of block `b`; returns whether it was the terminator.
    pub(super) fn statement(
        &mut self,
        func: &mut Function,
        body: &mut Body,
        b: Block,
    ) -> PResult<bool> {
        let t = self.bump();
        let Tok::Ident(word) = &t.tok else {
            return err(t.pos, format!("expected an instruction, found {}", t.tok));
        };
        // Results first: `vN = op ...`.
        index_over_limit(word, Value::PREFIX, t.pos)?;
        if let Some(n) = entity_index(word, Value::PREFIX) {
            self.expect_punct('=')?;
            let (mn, mpos) = self.ident("an operation")?;
            let op = self.op_with_immediates(&mn, mpos)?;
            if !op.has_result() {
                return err(mpos, format!("`{mn}` has no result"));
            }
            let ty = self.type_ref()?;
            let args = self.operands(func, body, &op)?;
            let conv = self.conv_operand(func, body)?;
            let value = Value::from_u32(n);
            let inst = func.insts.push(InstData {
                op,
                args: args.into(),
                result: Some(value),
                conv,
            });
            body.define_value(func, value, t.pos, ty, ValueDef::Inst(inst))?;
            func.blocks[b].insts.push(inst);
            return Ok(false);
        }
        let term = match word.as_str() {
            "selection_merge" => {
                let merge = body.block_ref(self, func)?;
                let mut control = SelectionControl::NONE;
                for item in self.items()? {
                    match item.word() {
                        Some("flatten") => control |= SelectionControl::FLATTEN,
                        Some("dont_flatten") => control |= SelectionControl::DONT_FLATTEN,
                        _ => return err(item.pos, "unknown selection control"),
                    }
                }
                self.set_merge(func, b, t.pos, Merge::Selection { merge, control })?;
                return Ok(false);
            }
            "loop_merge" => {
                let merge = body.block_ref(self, func)?;
                self.expect_punct(',')?;
                let continue_target = body.block_ref(self, func)?;
                let mut control = LoopControl::NONE;
                let mut params = [0u32; 6];
                for item in self.items()? {
                    let param = crate::module::LOOP_PARAMS
                        .iter()
                        .position(|(_, n)| Some(*n) == item.word());
                    if let Some(k) = param {
                        control |= crate::module::LOOP_PARAMS[k].0;
                        params[k] = item_u32(&item, 1)?;
                        continue;
                    }
                    match LOOP_CONTROL_NAMES
                        .iter()
                        .find(|(_, n)| Some(*n) == item.word())
                    {
                        Some((bit, _)) => control |= *bit,
                        None => return err(item.pos, "unknown loop control"),
                    }
                }
                self.set_merge(
                    func,
                    b,
                    t.pos,
                    Merge::Loop {
                        merge,
                        continue_target,
                        control,
                        params,
                    },
                )?;
                return Ok(false);
            }
            "br" => Terminator::Branch(body.block_ref(self, func)?),
            "br_if" => {
                let cond = self.operand(func, body)?;
                self.expect_punct(',')?;
                let if_true = body.block_ref(self, func)?;
                self.expect_punct(',')?;
                let if_false = body.block_ref(self, func)?;
                Terminator::CondBranch {
                    cond,
                    if_true,
                    if_false,
                }
            }
            "switch" => {
                let sel_pos = self.pos();
                let selector = self.operand(func, body)?;
                self.expect_punct(',')?;
                let default = body.block_ref(self, func)?;
                let sel_ty = body.operand_type(&self.module, func, selector);
                let mut cases = Vec::new();
                for item in self.items()? {
                    let (Some(lit), Some(Tok::Punct(':')), Some(target), 3) = (
                        item.toks.first(),
                        item.toks.get(1).map(|t| &t.tok),
                        item.toks.get(2),
                        item.toks.len(),
                    ) else {
                        return err(item.pos, "expected `literal: bN`");
                    };
                    let Tok::Number(text) = &lit.tok else {
                        return err(lit.pos, "expected a case literal");
                    };
                    let Some(ty) = sel_ty else {
                        return err(
                            sel_pos,
                            "the selector's type must be known before its cases",
                        );
                    };
                    let bits =
                        parse_scalar(&self.module.types, ty, text).or_else(|m| err(lit.pos, m))?;
                    let tb = match &target.tok {
                        Tok::Ident(s) => {
                            index_over_limit(s, Block::PREFIX, target.pos)?;
                            entity_index(s, Block::PREFIX)
                        }
                        _ => None,
                    };
                    let Some(tb) = tb else {
                        return err(target.pos, "expected a block");
                    };
                    let tb = Block::from_u32(tb);
                    body.use_block(func, tb, target.pos);
                    cases.push((bits, tb));
                }
                Terminator::Switch {
                    selector,
                    default,
                    cases,
                }
            }
            "return" => {
                if let Tok::Ident(s) = &self.peek().tok {
                    index_over_limit(s, Value::PREFIX, self.pos())?;
                }
                let value_follows = matches!(&self.peek().tok, Tok::Ident(s)
                    if (entity_index(s, Value::PREFIX).is_some()
                        || entity_index(s, Const::PREFIX).is_some()
                        || entity_index(s, Global::PREFIX).is_some())
                        && *self.peek_at(1) != Tok::Punct('='));
                if value_follows {
                    Terminator::ReturnValue(self.operand(func, body)?)
                } else {
                    Terminator::Return
                }
            }
            "unreachable" => Terminator::Unreachable,
            "kill" => Terminator::Kill,
            "terminate" => Terminator::TerminateInvocation,
            mn => {
                let op = self.op_with_immediates(mn, t.pos)?;
                if op.has_result() {
                    return err(t.pos, format!("`{mn}` needs a result: `vN = {mn} ...`"));
                }
                let args = self.operands(func, body, &op)?;
                let conv = self.conv_operand(func, body)?;
                func.insts.push(InstData {
                    op,
                    args: args.into(),
                    result: None,
                    conv,
                });
                let inst = crate::module::Inst::new(func.insts.len() - 1);
                func.blocks[b].insts.push(inst);
                return Ok(false);
            }
        };
        func.blocks[b].term = term;
        Ok(true)
    }

    pub(super) fn set_merge(
        &mut self,
        func: &mut Function,
        b: Block,
        pos: Pos,
        merge: Merge,
    ) -> PResult<()> {
        if func.blocks[b].merge.is_some() {
            return err(pos, format!("block {b} already has a merge annotation"));
        }
        if self.peek_is_statement_start() {
            func.blocks[b].merge = Some(merge);
            Ok(())
        } else {
            err(
                self.pos(),
                "expected the terminator after a merge annotation",
            )
        }
    }

    pub(super) fn peek_is_statement_start(&self) -> bool {
        matches!(&self.peek().tok, Tok::Ident(s) if matches!(s.as_str(), "br" | "br_if" | "switch"))
    }
}
