//! Building and editing functions.
//!
//! - [`edit`]: editing operations on any [`Function`] (insert before/after, remove, replace
//!   all uses, split an edge, phi incomings, retargeting);
//! - [`FunctionBuilder`]: a cursor over one function of a [`Module`] that appends
//!   instructions with inferred result types ([`infer`]), makes constants and ends blocks;
//! - [`structured`]: helpers on the builder that emit valid structured control flow (if/else,
//!   loops with a continue construct, switches with fallthrough).
//!
//! The shape follows Cranelift's `FunctionBuilder`: create blocks, switch to one, append
//! instructions, end it with a terminator. Blocks made by the structured helpers are laid out
//! when first entered, which gives a reverse post-order of the structured code.
//!
//! ```
//! use tangle_ir::builder::FunctionBuilder;
//! use tangle_ir::{Module, PlainOp};
//!
//! // u32 clamp_add(u32 x, u32 y): x + y, or 100 when that is larger.
//! let mut m = Module::default();
//! m.capabilities.push(spirv::Capability::Linkage);
//! let u = m.types.u32();
//! let (mut b, p) = FunctionBuilder::create_function(&mut m, "clamp_add", u, &[u, u]);
//! let entry = b.create_block();
//! b.switch_to_block(entry);
//! let sum = b.plain(PlainOp::IAdd, &[p[0].into(), p[1].into()]);
//! let limit = b.const_u32(100);
//! let big = b.plain(PlainOp::UGreaterThan, &[sum.into(), limit]);
//! let f = b.begin_if(big.into(), false);
//! b.ret(Some(limit));
//! b.end_if(f);
//! b.ret(Some(sum.into()));
//! tangle_ir::verify::verify(&m).unwrap();
//! ```

pub mod edit;
pub mod infer;
pub mod structured;

use crate::hash::FxHashSet;

use crate::module::{
    Block, Const, ConstData, ConstValue, Func, Function, Inst, Module, Operand, Terminator, Value,
};
use crate::ops::{Op, PlainOp};
use crate::types::{Type, TypeData};
pub use edit::InsertAt;
pub use infer::{result_type, InferError};

/// Where the builder inserts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Position {
    /// Nowhere yet.
    Nowhere,
    /// At the end of a block.
    End(Block),
    /// Before an instruction.
    Before(Inst),
}

/// A cursor over function `func` of `module` that appends instructions and terminators.
pub struct FunctionBuilder<'m> {
    /// The module; constants and types are added to it.
    pub module: &'m mut Module,
    /// The function being built.
    pub func: Func,
    pos: Position,
    /// Blocks whose terminator this builder has set.
    terminated: FxHashSet<Block>,
    /// Blocks made by [`Self::create_detached_block`] and not entered yet: not in the
    /// layout, so entering one lays it out without searching the layout (a search per
    /// block made building a long function quadratic).
    detached: FxHashSet<Block>,
}

impl<'m> FunctionBuilder<'m> {
    /// A builder for the existing function `func`. Blocks that already end in something
    /// other than `unreachable` count as terminated.
    pub fn new(module: &'m mut Module, func: Func) -> Self {
        let f = &module.funcs[func];
        let terminated = f
            .layout
            .iter()
            .copied()
            .filter(|&b| f.blocks[b].term != Terminator::Unreachable)
            .collect();
        FunctionBuilder {
            module,
            func,
            pos: Position::Nowhere,
            terminated,
            detached: FxHashSet::default(),
        }
    }

    /// Adds a new function `name(params) -> ret` to `module` (its signature type included)
    /// and returns a builder for it, with its parameters.
    pub fn create_function(
        module: &'m mut Module,
        name: &str,
        ret: Type,
        params: &[Type],
    ) -> (Self, Vec<Value>) {
        module.types.intern(TypeData::Function {
            ret,
            params: params.to_vec(),
        });
        let mut f = Function::new(Some(name.to_string()), ret);
        let values = params.iter().map(|&t| f.add_param(t)).collect();
        let func = module.funcs.push(f);
        (Self::new(module, func), values)
    }

    /// The function.
    pub fn function(&self) -> &Function {
        &self.module.funcs[self.func]
    }

    /// The function, for edits the builder does not offer.
    pub fn function_mut(&mut self) -> &mut Function {
        &mut self.module.funcs[self.func]
    }

    /// Creates a block at the end of the layout.
    pub fn create_block(&mut self) -> Block {
        self.function_mut().add_block()
    }

    /// Creates a block that is not laid out yet: [`Self::switch_to_block`] lays it out at
    /// the end when it is first entered.
    pub fn create_detached_block(&mut self) -> Block {
        let b = self.function_mut().blocks.push(Default::default());
        self.detached.insert(b);
        b
    }

    /// Whether `b` was made by [`Self::create_detached_block`] and not entered yet (so it is
    /// not in the layout).
    pub(crate) fn is_detached(&self, b: Block) -> bool {
        self.detached.contains(&b)
    }

    /// Moves the cursor to the end of `b`, laying `b` out at the end if it is not yet.
    pub fn switch_to_block(&mut self, b: Block) {
        let detached = self.detached.remove(&b);
        let f = self.function_mut();
        if detached || !f.layout.contains(&b) {
            f.layout.push(b);
        }
        self.pos = Position::End(b);
    }

    /// Moves the cursor before `inst` (which must be laid out).
    pub fn set_position_before(&mut self, inst: Inst) {
        self.pos = Position::Before(inst);
    }

    /// Moves the cursor after `inst` (which must be laid out): before the next instruction,
    /// or to the end of its block.
    pub fn set_position_after(&mut self, inst: Inst) {
        let (b, k) = self
            .function()
            .inst_position(inst)
            .expect("the instruction is laid out");
        self.pos = match self.function().blocks[b].insts.get(k + 1) {
            Some(&next) => Position::Before(next),
            None => Position::End(b),
        };
    }

    /// The block the cursor is in.
    pub fn current_block(&self) -> Option<Block> {
        match self.pos {
            Position::Nowhere => None,
            Position::End(b) => Some(b),
            Position::Before(i) => self.function().inst_position(i).map(|p| p.0),
        }
    }

    /// Whether `b` has been given a terminator.
    pub fn is_terminated(&self, b: Block) -> bool {
        self.terminated.contains(&b)
    }

    /// Whether the cursor is in a block that still needs a terminator.
    pub fn is_open(&self) -> bool {
        self.current_block().is_some_and(|b| !self.is_terminated(b))
    }

    fn at(&self) -> InsertAt {
        match self.pos {
            Position::Nowhere => panic!("the builder is not in a block; call switch_to_block"),
            Position::End(b) => InsertAt::End(b),
            Position::Before(i) => InsertAt::Before(i),
        }
    }

    /// The type of an operand.
    pub fn operand_type(&self, o: Operand) -> Type {
        self.module.operand_type(self.function(), o)
    }

    /// Inserts `op` at the cursor with an inferred result type; `Ok(None)` for an operation
    /// without a result.
    pub fn ins(&mut self, op: Op, args: &[Operand]) -> Result<Option<Value>, InferError> {
        let types: Vec<Type> = args.iter().map(|&a| self.operand_type(a)).collect();
        let m = &mut *self.module;
        let ty = result_type(&mut m.types, &m.funcs, &op, &types)?;
        let at = self.at();
        Ok(self.function_mut().insert_inst(at, op, args.to_vec(), ty).1)
    }

    /// Inserts `op` at the cursor with result type `ty`.
    pub fn ins_typed(&mut self, op: Op, args: &[Operand], ty: Type) -> Value {
        let at = self.at();
        let (_, v) = self
            .function_mut()
            .insert_inst(at, op, args.to_vec(), Some(ty));
        v.expect("a typed instruction has a result")
    }

    /// Inserts an operation without a result (a store, a barrier).
    pub fn ins_void(&mut self, op: Op, args: &[Operand]) -> Inst {
        let at = self.at();
        self.function_mut()
            .insert_inst(at, op, args.to_vec(), None)
            .0
    }

    /// Inserts a plain operation whose result type follows from its operands (arithmetic,
    /// bitwise, comparisons, `select`, `copy`). Panics when it does not: that is a misuse
    /// of this helper, not bad input.
    pub fn plain(&mut self, op: PlainOp, args: &[Operand]) -> Value {
        match self.ins(Op::Plain(op), args) {
            Ok(Some(v)) => v,
            other => panic!("`{}` cannot infer its result type: {other:?}", op.name()),
        }
    }

    /// A function-local variable holding a `pointee`, placed with the other variables at the
    /// start of the entry block (where SPIR-V requires them), whatever the cursor.
    pub fn local_variable(&mut self, pointee: Type) -> Value {
        let ptr = self.module.types.intern(TypeData::Pointer {
            storage: spirv::StorageClass::Function,
            pointee,
        });
        let f = self.function_mut();
        let entry = f.entry().expect("the function has an entry block");
        let at = f.blocks[entry]
            .insts
            .iter()
            .copied()
            .find(|&i| !matches!(f.insts[i].op, Op::Variable(_)))
            .map_or(InsertAt::End(entry), InsertAt::Before);
        let (_, v) = f.insert_inst(
            at,
            Op::Variable(spirv::StorageClass::Function),
            Vec::new(),
            Some(ptr),
        );
        v.expect("a variable has a result")
    }

    /// `load` from `ptr` at the cursor; the result type is the pointee.
    pub fn load(&mut self, ptr: Operand) -> Value {
        match self.ins(Op::Load(Default::default()), &[ptr]) {
            Ok(Some(v)) => v,
            other => panic!("load from a non-pointer: {other:?}"),
        }
    }

    /// `store value` through `ptr` at the cursor.
    pub fn store(&mut self, ptr: Operand, value: Operand) {
        self.ins_void(Op::Store(Default::default()), &[ptr, value]);
    }

    /// Adds a phi of type `ty` at the start of the current block.
    pub fn phi(&mut self, ty: Type, incoming: &[(Block, Operand)]) -> Value {
        let b = self.current_block().expect("the builder is in a block");
        self.function_mut().add_phi(b, ty, incoming).1
    }

    /// A constant of scalar type `ty` with bit pattern `bits` (reused if it exists).
    pub fn const_bits(&mut self, ty: Type, bits: u64) -> Operand {
        self.constant(ty, ConstValue::Bits(bits))
    }

    /// A `u32` constant.
    pub fn const_u32(&mut self, n: u32) -> Operand {
        let t = self.module.types.u32();
        self.const_bits(t, u64::from(n))
    }

    /// A `bool` constant.
    pub fn const_bool(&mut self, b: bool) -> Operand {
        let t = self.module.types.bool();
        self.constant(t, ConstValue::Bool(b))
    }

    fn constant(&mut self, ty: Type, value: ConstValue) -> Operand {
        let found = self
            .module
            .consts
            .iter()
            .find(|(_, c)| c.ty == ty && c.value == value && !c.spec && c.builtin.is_none())
            .map(|(k, _)| k);
        let c: Const = found.unwrap_or_else(|| {
            self.module.consts.push(ConstData {
                ty,
                value,
                spec: false,
                spec_id: None,
                builtin: None,
                name: None,
            })
        });
        Operand::Const(c)
    }

    /// Ends the current block with `term`.
    pub fn terminate(&mut self, term: Terminator) {
        let b = self.current_block().expect("the builder is in a block");
        self.function_mut().blocks[b].term = term;
        self.terminated.insert(b);
    }

    /// `br target`.
    pub fn br(&mut self, target: Block) {
        self.terminate(Terminator::Branch(target));
    }

    /// `br_if cond, if_true, if_false`.
    pub fn br_if(&mut self, cond: Operand, if_true: Block, if_false: Block) {
        self.terminate(Terminator::CondBranch {
            cond,
            if_true,
            if_false,
        });
    }

    /// `return` (or `return value`).
    pub fn ret(&mut self, value: Option<Operand>) {
        self.terminate(match value {
            Some(v) => Terminator::ReturnValue(v),
            None => Terminator::Return,
        });
    }
}
