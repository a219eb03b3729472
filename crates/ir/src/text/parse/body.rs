//! Definitions and uses of values and blocks within one function body.

use super::{err, PResult, Parser};
use crate::module::{Block, BlockData, Function, Module, Operand, Value, ValueData, ValueDef};
use crate::ops::Op;
use crate::text::lexer::Pos;
use crate::types::Type;

/// Definitions and uses of values and blocks within one function body.
#[derive(Default)]
pub(super) struct Body {
    pub(super) value_uses: Vec<(Value, Pos)>,
    pub(super) block_uses: Vec<(Block, Pos)>,
    pub(super) defined_blocks: std::collections::HashSet<Block>,
    pub(super) pending_phi_blocks: Option<Vec<Block>>,
}

impl Body {
    pub(super) fn placeholder() -> ValueData {
        ValueData {
            ty: Type::from_u32(0),
            def: ValueDef::Unused,
        }
    }

    pub(super) fn define_value(
        &mut self,
        func: &mut Function,
        v: Value,
        pos: Pos,
        ty: Type,
        def: ValueDef,
    ) -> PResult<()> {
        func.values.ensure(v, Self::placeholder());
        if func.values[v].def != ValueDef::Unused {
            return err(pos, format!("value {v} is defined twice"));
        }
        func.values[v] = ValueData { ty, def };
        if let (ValueDef::Inst(i), Some(blocks)) = (def, self.pending_phi_blocks.take()) {
            func.insts[i].op = Op::Phi(blocks.into());
        }
        Ok(())
    }

    pub(super) fn use_value(&mut self, func: &mut Function, v: Value, pos: Pos) {
        func.values.ensure(v, Self::placeholder());
        self.value_uses.push((v, pos));
    }

    pub(super) fn define_block(&mut self, func: &mut Function, b: Block, pos: Pos) -> PResult<()> {
        func.blocks.ensure(b, BlockData::default());
        if !self.defined_blocks.insert(b) {
            return err(pos, format!("block {b} is defined twice"));
        }
        func.layout.push(b);
        Ok(())
    }

    pub(super) fn use_block(&mut self, func: &mut Function, b: Block, pos: Pos) {
        func.blocks.ensure(b, BlockData::default());
        self.block_uses.push((b, pos));
    }

    pub(super) fn block_ref(&mut self, p: &mut Parser, func: &mut Function) -> PResult<Block> {
        let (n, pos) = p.entity(Block::PREFIX, "a block")?;
        let b = Block::from_u32(n);
        self.use_block(func, b, pos);
        Ok(b)
    }

    pub(super) fn operand_type(
        &self,
        module: &Module,
        func: &Function,
        op: Operand,
    ) -> Option<Type> {
        match op {
            Operand::Value(v) => {
                let d = func.values.get(v)?;
                (d.def != ValueDef::Unused).then_some(d.ty)
            }
            other => Some(module.operand_type(func, other)),
        }
    }

    pub(super) fn finish(&self, func: &Function) -> PResult<()> {
        for (v, pos) in &self.value_uses {
            if func.values[*v].def == ValueDef::Unused {
                return err(*pos, format!("value {v} is never defined"));
            }
        }
        for (b, pos) in &self.block_uses {
            if !self.defined_blocks.contains(b) {
                return err(*pos, format!("block {b} is never defined"));
            }
        }
        Ok(())
    }
}
