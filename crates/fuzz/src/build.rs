//! A [`Program`] as an IR module, built with the IR builder's structured helpers.
//!
//! The module has one entry point `main` (GLCompute, `MaximallyReconvergesKHR`, local size
//! `local_size × 1 × 1`) with an output buffer (set 0, binding 0: a runtime array of
//! five-word records, `RECORD_WORDS` u32s at stride 20, so record `r` of invocation `i` is
//! record `r · local_size + i` of the array, the same bytes as the word layout of
//! [`crate::ast`]) and an input buffer (set 0, binding 1, `rtarray<u32>`). Per-lane state
//! lives in two Private variables: `loc`, the index in the array of the invocation's next
//! record (so a record costs no arithmetic beyond its increment; words known to be zero
//! are not stored, the buffer being zeroed and each record written once), and `ballot`, where a
//! ballot's `u32x4` is stored so that its words are read with scalar loads. A for-loop's
//! index is a phi of its header (0 on entry, `i + 1` from the continue target).

use std::sync::OnceLock;

use spirv::{Scope, StorageClass};
use tangle_ir::builder::{FunctionBuilder, InsertAt};
use tangle_ir::{
    EntryPoint, ExecMode, Func, Global, GroupOp, GroupOperation, Module, Op, Operand, PlainOp,
    Type, TypeData, Value,
};

use crate::ast::{
    block_always_jumps, Collective, Cond, Program, Selector, Stmt, Trip, RECORD_WORDS,
};

/// Types, constants and globals every program uses (parsed, then the builder adds `main`).
const PRELUDE: &str = r#"spirv 1.4
memory_model GLSL450
capability Shader
capability GroupNonUniform
capability GroupNonUniformBallot
capability GroupNonUniformArithmetic
extension "SPV_KHR_maximal_reconvergence"

type t0 = void
type t1 = u32
type t2 = bool
type t3 = u32x4
type t4 = rtarray<u32> [stride 4]
type t5 = struct "Buf" { t4 [offset 0, name "data"] } [block]
type t6 = ptr<StorageBuffer, t5>
type t7 = ptr<Input, u32>
type t8 = ptr<StorageBuffer, u32>
type t9 = struct "Record" { t1 [offset 0], t1 [offset 4], t1 [offset 8], t1 [offset 12], t1 [offset 16] }
type t10 = rtarray<t9> [stride 20]
type t11 = struct "Out" { t10 [offset 0, name "records"] } [block]

global g0 ptr<StorageBuffer, t11> [set 0, binding 0, name "out"]
global g1 ptr<StorageBuffer, t5> [set 0, binding 1, name "in"]
global g2 ptr<Input, u32> [builtin LocalInvocationIndex]
global g3 ptr<Input, u32> [builtin SubgroupLocalInvocationId]
"#;

/// How many instructions a block's list has room for when the emitter first appends to it.
const BLOCK_INSTS: usize = 64;

/// Reserves room in `f` for the instructions, values and blocks `body` builds, so that its
/// vectors are not grown (and copied) several times each while it is built. Per statement
/// of `body` at any depth, the programs of seeds 0..300 at nesting 2..8 emit 11.5-14
/// instructions, 8-10 values and about one block on average, and at most 24, 17.5 and 2.1
/// in one function (a ballot's record is 23 instructions and 16 values); the function's
/// entry adds two loads and a return. Capacity only: nothing built changes, and more only
/// grows the vectors as before.
fn reserve(f: &mut tangle_ir::Function, body: &[Stmt]) {
    let stmts = count_stmts(body);
    f.insts.reserve(24 * stmts + 4);
    f.values.reserve(18 * stmts + 4);
    f.blocks.reserve(2 * stmts + 2);
}

/// How many statements `body` holds at every depth.
fn count_stmts(body: &[Stmt]) -> usize {
    let all = |bodies: &[&[Stmt]]| bodies.iter().map(|b| count_stmts(b)).sum::<usize>();
    body.iter()
        .map(|s| {
            1 + match s {
                Stmt::If { then, els, .. } => all(&[then, els.as_deref().unwrap_or(&[])]),
                Stmt::For { body, .. } | Stmt::Infinite { body } | Stmt::DoWhileElect { body } => {
                    count_stmts(body)
                }
                Stmt::Switch { cases, default, .. } => {
                    cases.iter().map(|(_, b)| count_stmts(b)).sum::<usize>()
                        + default.as_deref().map_or(0, count_stmts)
                }
                _ => 0,
            }
        })
        .sum()
}

/// Builds the IR module of `program`.
pub fn build_module(program: &Program) -> Module {
    build_module_with(program, false)
}

/// The module with every word of every record stored, the zero ones too: the plain form
/// [`build_module`]'s records are held to (`tests::records_without_their_zero_words`).
#[cfg(test)]
fn build_module_storing_zero_words(program: &Program) -> Module {
    build_module_with(program, true)
}

/// Builds the IR module of `program`, storing the records' zero words if
/// `store_zero_words`.
fn build_module_with(program: &Program, store_zero_words: bool) -> Module {
    // Per-lane state shared by every function: g4 the record counter, g5 the last ballot,
    // g6.. the loop indices.
    // The prelude is parsed once per process and cloned; the loop indices are copies of the
    // counter's declaration under their own names.
    static PARSED: OnceLock<Module> = OnceLock::new();
    let mut m = PARSED
        .get_or_init(|| {
            let text = format!(
                "{PRELUDE}global g4 ptr<Private, u32> [name \"loc\"]\n\
                 global g5 ptr<Private, t3> [name \"ballot\"]\n"
            );
            tangle_ir::text::parse(&text).expect("the fuzz prelude parses")
        })
        .clone();
    let u32t = m.types.u32();
    let ptr_u32 = m.types.intern(TypeData::Pointer {
        storage: StorageClass::StorageBuffer,
        pointee: u32t,
    });
    let private_u32 = m.types.intern(TypeData::Pointer {
        storage: StorageClass::Private,
        pointee: u32t,
    });
    let void = m.types.void();
    let bool_t = m.types.bool();
    let u32x4 = m.types.intern(TypeData::Vector {
        elem: u32t,
        count: 4,
    });
    let globals = Globals {
        out: Global::from_u32(0),
        input: Global::from_u32(1),
        inv: Global::from_u32(2),
        lane: Global::from_u32(3),
        loc: Global::from_u32(4),
        ballot: Global::from_u32(5),
        ptr_u32,
        private_u32,
        u32t,
        bool_t,
        u32x4,
        void,
        record_stride: program.local_size,
        loops: program.loops,
        store_zero_words,
    };
    // Helpers last first: each calls only the ones after it.
    let mut funcs: Vec<Option<Func>> = vec![None; program.functions.len()];
    let mut consts = Consts::default();
    for (k, body) in program.functions.iter().enumerate().rev() {
        let (mut b, params) =
            FunctionBuilder::create_function(&mut m, &format!("helper{k}"), void, &[u32t]);
        reserve(b.function_mut(), body);
        let arg = Some(Operand::Value(params[0]));
        let mut e = Emitter::start(b, &globals, &funcs, arg, consts);
        e.block(body);
        if e.b.is_open() {
            e.b.ret(None);
        }
        let func = e.b.func;
        consts = e.consts;
        funcs[k] = Some(func);
    }
    let (mut b, _) = FunctionBuilder::create_function(&mut m, "main", void, &[]);
    reserve(b.function_mut(), &program.body);
    let mut e = Emitter::start(b, &globals, &funcs, None, consts);
    // The invocation's first record is record `inv` of the array.
    e.store(Operand::Global(globals.loc), e.inv);
    e.block(&program.body);
    if e.b.is_open() {
        e.b.ret(None);
    }
    let main = e.b.func;
    let interface = vec![
        globals.out,
        globals.input,
        globals.inv,
        globals.lane,
        globals.loc,
        globals.ballot,
    ];
    m.entry_points.push(EntryPoint {
        model: spirv::ExecutionModel::GLCompute,
        name: "main".into(),
        func: main,
        interface,
        modes: vec![
            ExecMode::LocalSize([program.local_size, 1, 1]),
            ExecMode::MaximallyReconverges,
        ],
    });
    m
}

/// The module-level variables and types every function uses.
struct Globals {
    out: Global,
    input: Global,
    inv: Global,
    lane: Global,
    loc: Global,
    ballot: Global,
    ptr_u32: Type,
    private_u32: Type,
    u32t: Type,
    bool_t: Type,
    u32x4: Type,
    void: Type,
    record_stride: u32,
    loops: u32,
    store_zero_words: bool,
}

/// Constants made so far, module-wide (constants belong to the module, so every function
/// shares them): the builder finds an existing constant by a search through all of the
/// module's constants, which made up a tenth of building.
struct Consts {
    /// The `u32` constants below 256, by value.
    small: Vec<Option<Operand>>,
    /// `true`, the ballots' operand.
    true_: Option<Operand>,
}

impl Default for Consts {
    fn default() -> Self {
        Consts {
            small: vec![None; 256],
            true_: None,
        }
    }
}

struct Emitter<'m, 'g> {
    b: FunctionBuilder<'m>,
    out: Global,
    input: Global,
    ptr_u32: Type,
    private_u32: Type,
    u32t: Type,
    bool_t: Type,
    u32x4: Type,
    void: Type,
    loc: Operand,
    ballot: Global,
    /// The index of each enclosing for-loop of this function (a phi of its header), by
    /// loop id.
    indices: Vec<Option<Operand>>,
    inv: Operand,
    lane: Operand,
    record_stride: u32,
    /// Whether records store their zero words too (see [`Emitter::record`]).
    store_zero_words: bool,
    /// The helper functions built so far, by index.
    funcs: &'g [Option<Func>],
    /// The helper function's argument.
    arg: Option<Operand>,
    /// The constants made so far (in this function or an earlier one).
    consts: Consts,
    /// Enclosing loops, innermost last.
    loops: Vec<tangle_ir::builder::structured::Loop>,
}

impl<'m, 'g> Emitter<'m, 'g> {
    /// Opens the function's entry block and reads the invocation's ids there.
    fn start(
        mut b: FunctionBuilder<'m>,
        g: &Globals,
        funcs: &'g [Option<Func>],
        arg: Option<Operand>,
        consts: Consts,
    ) -> Self {
        let entry = b.create_block();
        b.switch_to_block(entry);
        let mut e = Emitter {
            b,
            out: g.out,
            input: g.input,
            ptr_u32: g.ptr_u32,
            private_u32: g.private_u32,
            ballot: g.ballot,
            u32t: g.u32t,
            bool_t: g.bool_t,
            u32x4: g.u32x4,
            void: g.void,
            loc: Operand::Global(g.loc),
            indices: vec![None; g.loops as usize],
            // Placeholders until the loads below.
            inv: Operand::Global(g.inv),
            lane: Operand::Global(g.lane),
            record_stride: g.record_stride,
            store_zero_words: g.store_zero_words,
            funcs,
            arg,
            consts,
            loops: Vec::new(),
        };
        e.inv = e.load(Operand::Global(g.inv));
        e.lane = e.load(Operand::Global(g.lane));
        e
    }
}

impl Emitter<'_, '_> {
    fn block(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    /// The `u32` constant `n`. Small ones are remembered in [`Consts`].
    fn k(&mut self, n: u32) -> Operand {
        match self.consts.small.get(n as usize) {
            Some(Some(c)) => *c,
            Some(None) => {
                let c = self.b.const_u32(n);
                self.consts.small[n as usize] = Some(c);
                c
            }
            None => self.b.const_u32(n),
        }
    }

    /// The `bool` constant `true`.
    fn k_true(&mut self) -> Operand {
        match self.consts.true_ {
            Some(c) => c,
            None => *self.consts.true_.insert(self.b.const_bool(true)),
        }
    }

    /// Appends `op` on `args` at the end of the current block with result type `ty`: what
    /// the builder's `ins` does, without its type inference (the emitter knows each
    /// result's type; `tests::result_types_are_what_the_builder_infers` holds them to the
    /// inference) and without copying `args` into a vector of its own.
    fn emit<const N: usize>(
        &mut self,
        op: Op,
        args: [Operand; N],
        ty: Option<Type>,
    ) -> Option<Value> {
        let block = self.b.current_block().expect("the emitter is in a block");
        let f = self.b.function_mut();
        // A block's list starts with room for `BLOCK_INSTS`: grown from its inline room, it
        // was reallocated at 10, 20 and 40 instructions (grown from nothing, as a `Vec` it was
        // reallocated at 4, 8, 16 and 32: a sixth of building).
        let insts = &mut f.blocks[block].insts;
        if insts.is_empty() && !insts.spilled() {
            insts.reserve(BLOCK_INSTS);
        }
        f.insert_inst(InsertAt::End(block), op, args, ty).1
    }

    /// `op` on `args` with a result of type `ty`.
    fn typed<const N: usize>(&mut self, op: Op, args: [Operand; N], ty: Type) -> Operand {
        Operand::Value(self.emit(op, args, Some(ty)).expect("a typed result"))
    }

    /// The `u32` loaded through `ptr` (every load here reads a `u32`).
    fn load(&mut self, ptr: Operand) -> Operand {
        self.typed(Op::Load(Default::default()), [ptr], self.u32t)
    }

    /// `store value` through `ptr`.
    fn store(&mut self, ptr: Operand, value: Operand) {
        self.emit(Op::Store(Default::default()), [ptr, value], None);
    }

    /// A subgroup operation (`group`: reduce, scan or none) of result type `ty`.
    fn group_op<const N: usize>(
        &mut self,
        op: GroupOp,
        group: Option<GroupOperation>,
        args: [Operand; N],
        ty: Type,
    ) -> Operand {
        let op = Op::Group {
            op,
            scope: Scope::Subgroup,
            group,
        };
        self.typed(op, args, ty)
    }

    /// The index of the enclosing for-loop `loop_id`.
    fn index(&self, loop_id: u32) -> Operand {
        self.indices[loop_id as usize].expect("a loop index inside its loop")
    }

    /// A `u32` arithmetic or bitwise operation.
    fn u32_op(&mut self, op: PlainOp, args: [Operand; 2]) -> Operand {
        self.typed(Op::Plain(op), args, self.u32t)
    }

    /// A comparison or logical operation (a `bool`).
    fn bool_op<const N: usize>(&mut self, op: PlainOp, args: [Operand; N]) -> Operand {
        self.typed(Op::Plain(op), args, self.bool_t)
    }

    fn element(&mut self, buffer: Global, index: Operand) -> Operand {
        let zero = self.k(0);
        let op = Op::Plain(PlainOp::AccessChain);
        self.typed(op, [Operand::Global(buffer), zero, index], self.ptr_u32)
    }

    /// Writes the invocation's next record (`out.records[loc]`, word by word) and moves
    /// `loc` on by a workgroup's worth of records. `words` are the record's leading words
    /// (up to four); the words after them are zero and not stored: the output buffer starts
    /// zeroed and each record of each invocation is written once (`loc` only moves on), so
    /// they are zero already. An elect's or collective's record is two stores, not five.
    fn record(&mut self, id: u32, words: &[Operand]) {
        debug_assert!(words.len() < RECORD_WORDS as usize);
        let loc = self.load(self.loc);
        let zero = self.k(0);
        let tag = self.k(id + 1);
        let stored = match self.store_zero_words {
            true => RECORD_WORDS as usize - 1,
            false => words.len(),
        };
        let fields = (0..stored).map(|k| (k, words.get(k).copied().unwrap_or(zero)));
        for (k, w) in fields.chain([(RECORD_WORDS as usize - 1, tag)]) {
            let kk = self.k(k as u32);
            let op = Op::Plain(PlainOp::AccessChain);
            let p = self.typed(op, [Operand::Global(self.out), zero, loc, kk], self.ptr_u32);
            self.store(p, w);
        }
        let stride = self.k(self.record_stride);
        let next = self.u32_op(PlainOp::IAdd, [loc, stride]);
        self.store(self.loc, next);
    }

    /// `subgroupElect()`.
    fn elect(&mut self) -> Operand {
        self.group_op(GroupOp::Elect, None, [], self.bool_t)
    }

    fn cond(&mut self, c: Cond) -> Operand {
        match c {
            Cond::LaneMask(mask) => {
                let k31 = self.k(31);
                let one = self.k(1);
                let zero = self.k(0);
                let m = self.k(mask);
                let bit = self.u32_op(PlainOp::BitwiseAnd, [self.lane, k31]);
                let shifted = self.u32_op(PlainOp::ShiftRightLogical, [m, bit]);
                let low = self.u32_op(PlainOp::BitwiseAnd, [shifted, one]);
                self.bool_op(PlainOp::INotEqual, [low, zero])
            }
            Cond::ArgIsLane => {
                let arg = self.arg.expect("ArgIsLane only in helper functions");
                let k3 = self.k(3);
                let bits = self.u32_op(PlainOp::BitwiseAnd, [self.lane, k3]);
                self.bool_op(PlainOp::IEqual, [bits, arg])
            }
            Cond::Uniform { index, value } => {
                let i = self.k(index);
                let p = self.element(self.input, i);
                let w = self.load(p);
                let v = self.k(value);
                self.bool_op(PlainOp::IEqual, [w, v])
            }
            Cond::LoopIndexIsLane { loop_id } => {
                let i = self.index(loop_id);
                let k3 = self.k(3);
                let bits = self.u32_op(PlainOp::BitwiseAnd, [self.lane, k3]);
                self.bool_op(PlainOp::IEqual, [bits, i])
            }
            Cond::InvocationBelowInput { index } => {
                let i = self.k(index);
                let p = self.element(self.input, i);
                let w = self.load(p);
                self.bool_op(PlainOp::ULessThan, [self.inv, w])
            }
        }
    }

    fn selector(&mut self, s: Selector) -> Operand {
        let k3 = self.k(3);
        match s {
            Selector::Uniform { index } => {
                let i = self.k(index);
                let p = self.element(self.input, i);
                let w = self.load(p);
                self.u32_op(PlainOp::BitwiseAnd, [w, k3])
            }
            Selector::LoopIndex { loop_id } => self.index(loop_id),
            Selector::LaneBits => self.u32_op(PlainOp::BitwiseAnd, [self.lane, k3]),
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Ballot { id } => {
                let t = self.k_true();
                let ballot = self.group_op(GroupOp::Ballot, None, [t], self.u32x4);
                // The words through a variable (a vector store and scalar loads) rather than
                // composite extracts: the reference runs those on its fast paths.
                self.store(Operand::Global(self.ballot), ballot);
                let words = [0, 1, 2, 3].map(|k| {
                    let kk = self.k(k);
                    let op = Op::Plain(PlainOp::AccessChain);
                    let p = self.typed(op, [Operand::Global(self.ballot), kk], self.private_u32);
                    self.load(p)
                });
                self.record(*id, &words);
            }
            Stmt::Elect { id } => {
                let e = self.elect();
                let one = self.k(1);
                let zero = self.k(0);
                let w = self.typed(Op::Plain(PlainOp::Select), [e, one, zero], self.u32t);
                self.record(*id, &[w]);
            }
            Stmt::Collective { id, op } => {
                let one = self.k(1);
                let value = self.u32_op(PlainOp::IAdd, [self.inv, one]);
                let (op, group) = match op {
                    Collective::Sum => (GroupOp::IAdd, Some(GroupOperation::Reduce)),
                    Collective::InclusiveSum => {
                        (GroupOp::IAdd, Some(GroupOperation::InclusiveScan))
                    }
                    Collective::BroadcastFirst => (GroupOp::BroadcastFirst, None),
                };
                let r = self.group_op(op, group, [value], self.u32t);
                self.record(*id, &[r]);
            }
            Stmt::If { cond, then, els } => {
                let c = self.cond(*cond);
                let mut f = self.b.begin_if(c, els.is_some());
                self.block(then);
                if let Some(els) = els {
                    self.b.begin_else(&mut f);
                    self.block(els);
                }
                self.b.end_if(f);
            }
            Stmt::For {
                loop_id,
                trip,
                body,
            } => {
                // The index is a phi of the header: 0 from before the loop, `i + 1` from
                // the continue target.
                let before = self
                    .b
                    .current_block()
                    .expect("a loop starts in an open block");
                let zero = self.k(0);
                let l = self.b.begin_loop();
                let (phi, i) =
                    self.b
                        .function_mut()
                        .add_phi(l.header, self.u32t, &[(before, zero)]);
                let i = Operand::Value(i);
                self.indices[*loop_id as usize] = Some(i);
                self.loops.push(l);
                self.block(body);
                let l = self.loops.pop().expect("pushed above");
                self.indices[*loop_id as usize] = None;
                self.b.begin_continue(&l);
                let one = self.k(1);
                let next = self.u32_op(PlainOp::IAdd, [i, one]);
                let cont = self.b.current_block().expect("in the continue target");
                self.b.function_mut().set_phi_incoming(phi, cont, next);
                let count = match trip {
                    Trip::Uniform(n) => self.k(*n),
                    Trip::LaneBits(mask) => {
                        let m = self.k(*mask);
                        let bits = self.u32_op(PlainOp::BitwiseAnd, [self.lane, m]);
                        self.u32_op(PlainOp::IAdd, [bits, one])
                    }
                };
                let repeat = self.bool_op(PlainOp::ULessThan, [next, count]);
                self.b.end_loop(l, Some(repeat));
            }
            Stmt::Infinite { body } => {
                let l = self.b.begin_loop();
                self.loops.push(l);
                self.block(body);
                let l = self.loops.pop().expect("pushed above");
                if !block_always_jumps(body) {
                    let e = self.elect();
                    let f = self.b.begin_if(e, false);
                    self.b.loop_break(&l);
                    self.b.end_if(f);
                }
                self.b.end_loop(l, None);
            }
            Stmt::DoWhileElect { body } => {
                let l = self.b.begin_loop();
                self.loops.push(l);
                self.block(body);
                let l = self.loops.pop().expect("pushed above");
                self.b.begin_continue(&l);
                let e = self.elect();
                let repeat = self.bool_op(PlainOp::LogicalNot, [e]);
                self.b.end_loop(l, Some(repeat));
            }
            Stmt::Switch {
                selector,
                cases,
                default,
                fallthrough,
            } => {
                let sel = self.selector(*selector);
                let literals: Vec<u64> = cases.iter().map(|c| u64::from(c.0)).collect();
                let mut sw = self.b.begin_switch(sel, &literals, default.is_some());
                let bodies = default.iter().chain(cases.iter().map(|c| &c.1));
                for (k, body) in bodies.enumerate() {
                    self.b.next_case(&mut sw).expect("one case per body");
                    self.block(body);
                    // An open case left open falls into the next one (next_case branches).
                    if self.b.is_open() && !fallthrough[k] {
                        self.b.switch_break(&sw);
                    }
                }
                self.b.end_switch(sw);
            }
            Stmt::Call { func, arg } => {
                let callee = self.funcs[*func as usize].expect("callees are built first");
                let a = match arg {
                    Some(l) => self.index(*l),
                    None => self.k(1),
                };
                // A call of a void function has a result of type void, as the builder
                // infers it.
                self.emit(Op::Call(callee), [a], Some(self.void));
            }
            Stmt::Break => {
                let l = self.loops.last().expect("break inside a loop");
                self.b.loop_break(l);
            }
            Stmt::Continue => {
                let l = self.loops.last().expect("continue inside a loop");
                self.b.loop_continue(l);
            }
            Stmt::Return => self.b.ret(None),
        }
    }
}

#[cfg(test)]
#[path = "build_tests.rs"]
mod tests;
