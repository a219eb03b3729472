//! Instruction selection: the lowered IR of one entry point (and, inlined, every function
//! it calls) to the virtual-register machine form ([`crate::mir`]).
//!
//! Values are flattened into scalars: a vector, array or struct value is the list of its
//! 32-bit (or boolean) components in order, so composite construction and extraction are
//! bookkeeping and cost no instruction. Booleans live in predicates. Pointers are not
//! registers but [`Ptr`]s: a memory (a buffer's 64-bit base, the push constants, a built-in,
//! the local-memory frame) and a byte offset, part constant and part a register.
//! Calls are inlined: the callee's blocks are selected again for each call site, with its
//! parameters bound to the arguments; its returns branch to a continuation block whose phis
//! take the returned value.
//!
//! This file holds the selection's state, the inlining of functions and the control flow
//! (blocks, terminators, phis); [`values`] turns IR values into scalars and registers;
//! the other files select one family of operations each.

mod atomic64;
mod builtin;
mod ddiv;
mod double;
mod fdiv;
mod float_parts;
mod fmod;
mod glsl;
mod glsl64;
mod glsl_exact;
mod glsl_float;
mod intdiv;
mod intdiv64;
mod layout;
mod matrix;
mod memory;
mod ops;
mod recipe;
#[cfg(test)]
mod refine_tests;
mod resources;
mod sqrt;
mod subgroup;
mod values;
mod varptr;
mod wide;

use std::collections::HashMap;

use tangle_ir::{Block, Func, Module, Operand, Terminator, TypeData, Value};
use tangle_lanes::value::Val;
use tangle_sass::typed::PT;
use tangle_sass::{Arch, Op};

use crate::abi::Abi;
use crate::error::{CompileError, Position};
use crate::mir::{MBlock, MFunc, MInst, MOpnd, MPhi, RegClass, VReg};

pub use memory::{global_descriptor, Mem, Ptr};
pub(crate) use values::sub_range;

/// One scalar of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sc {
    /// A 32-bit value in a general register.
    R(VReg),
    /// A boolean in a predicate.
    P(VReg),
    /// A 32-bit constant (not yet in a register).
    Imm(u32),
    /// A boolean constant.
    Bool(bool),
}

/// What an IR value became.
#[derive(Clone, Debug, PartialEq)]
pub enum MVal {
    /// Its scalars, in component order.
    Scalars(Vec<Sc>),
    /// A pointer.
    Ptr(Ptr),
    /// A convergence barrier.
    Bar(VReg),
    /// A value with no machine representation (a convergence token).
    Nothing,
}

/// The options of one selection.
#[derive(Clone, Debug)]
pub struct IselOptions {
    /// The target.
    pub arch: Arch,
    /// The parameter layout.
    pub abi: Abi,
    /// Every module constant, evaluated with the specialization values.
    pub consts: Vec<Val>,
    /// The workgroup size.
    pub workgroup_size: [u32; 3],
    /// Whether the kernel never branches divergently (the uniformity analysis of the
    /// structured module): the warp is one group throughout, so a uniform register written
    /// by one instruction cannot be clobbered by another group before it is read.
    pub converged: bool,
}

/// The selection's state.
pub struct Isel<'m> {
    pub(crate) module: &'m Module,
    pub(crate) opts: &'m IselOptions,
    pub(crate) mf: MFunc,
    /// The block instructions are appended to.
    pub(crate) cur: MBlock,
    /// The base pointer register of each buffer parameter (by cbank offset), loaded once at
    /// the entry.
    pub(crate) buffer_bases: HashMap<u32, VReg>,
    /// The local-memory stack pointer (R1 as ptxas keeps it), when the kernel has local
    /// variables.
    pub(crate) frame_bytes: u32,
    /// Static shared memory in bytes (`Workgroup` variables).
    pub(crate) shared_bytes: u32,
    /// Whether a workgroup variable is initialized at the entry (then a `BAR.SYNC` ends the
    /// entry's set-up).
    pub(crate) shared_init: bool,
    /// Where the region of the explicitly laid out workgroup blocks starts, once placed.
    pub(crate) block_base: Option<u32>,
    /// The frame slots of `Private` variables (and the shared slots of `Workgroup` ones).
    pub(crate) privates: HashMap<tangle_ir::Global, Ptr>,
    /// Phis whose sources are filled once every block is selected.
    pending_phis: Vec<PendingPhi>,
    /// Where the current position is (for errors).
    pub(crate) at: Position,
    /// Call depth (inlining), to refuse recursion.
    depth: usize,
    /// The entry block, where per-kernel set-up (buffer bases) goes.
    pub(crate) entry: MBlock,
}

/// A phi selected before its incoming blocks.
struct PendingPhi {
    block: MBlock,
    dsts: Vec<VReg>,
    /// A pointer phi's run-time form (its incoming pointers are converted to it).
    form: Option<varptr::PtrForm>,
    incoming: Vec<(Block, Operand)>,
    frame: usize,
}

/// Where an inlined function's returns go, and the values each returning block brings.
type Returns = (MBlock, Vec<(MBlock, MVal)>);

/// One inlined instance of a function: its value map and where its IR blocks went.
pub(crate) struct Frame {
    func: Func,
    values: HashMap<Value, MVal>,
    /// The first machine block of each IR block.
    starts: HashMap<Block, MBlock>,
    /// The machine block that holds the terminator of each IR block.
    ends: HashMap<Block, MBlock>,
    /// Where a return goes, and the returned values collected there.
    ret: Option<Returns>,
}

impl<'m> Isel<'m> {
    /// Selects entry point `entry` of the lowered `module`.
    pub fn run(
        module: &'m Module,
        entry: Func,
        opts: &'m IselOptions,
    ) -> Result<(MFunc, u32, u32), CompileError> {
        let mut s = Isel {
            module,
            opts,
            mf: MFunc {
                name: module.funcs[entry]
                    .name
                    .clone()
                    .unwrap_or_else(|| "main".into()),
                ..MFunc::default()
            },
            cur: MBlock(0),
            buffer_bases: HashMap::new(),
            frame_bytes: 0,
            privates: HashMap::new(),
            shared_bytes: 0,
            shared_init: false,
            block_base: None,
            pending_phis: Vec::new(),
            at: Position {
                func: entry.to_string(),
                block: "-".into(),
                inst: None,
            },
            depth: 0,
            entry: MBlock(0),
        };
        s.entry = s.mf.block();
        s.cur = s.entry;
        let body = s.mf.block();
        let mut frames = Vec::new();
        s.inline(entry, Vec::new(), body, &mut frames)?;
        if s.shared_init {
            let bar = MInst::new(Op::Bar).m(".SYNC");
            let bar = if opts.arch == Arch::Sm75 {
                bar
            } else {
                bar.m(".DEFER_BLOCKING")
            };
            s.emit_entry(bar.imm(0));
        }
        // The entry block falls into the body after the set-up code.
        s.mf.blocks[s.entry.0 as usize]
            .term
            .push(MInst::new(Op::Bra).o(MOpnd::Target(body)));
        Ok((s.mf, s.frame_bytes, s.shared_bytes))
    }

    /// Selects `func` with `args` bound to its parameters, starting in machine block
    /// `start`; returns the frame's return block and the values returned to it.
    fn inline(
        &mut self,
        func: Func,
        args: Vec<MVal>,
        start: MBlock,
        frames: &mut Vec<Frame>,
    ) -> Result<Option<Returns>, CompileError> {
        self.depth += 1;
        if self.depth > 64 {
            return Err(CompileError::Input(
                "calls nested over 64 deep (recursion, which SPIR-V forbids)".into(),
            ));
        }
        let module = self.module;
        let f = &module.funcs[func];
        if f.form != tangle_ir::Form::Lowered {
            return Err(CompileError::Input(format!(
                "function {func} is not lowered: the back end takes the lowered form"
            )));
        }
        let mut frame = Frame {
            func,
            values: HashMap::new(),
            starts: HashMap::new(),
            ends: HashMap::new(),
            ret: None,
        };
        for (p, a) in f.params.iter().zip(args) {
            frame.values.insert(*p, a);
        }
        for (i, &b) in f.layout.iter().enumerate() {
            let mb = if i == 0 { start } else { self.mf.block() };
            frame.starts.insert(b, mb);
        }
        frames.push(frame);
        let fi = frames.len() - 1;
        for &b in &f.layout {
            self.cur = frames[fi].starts[&b];
            self.at = Position {
                func: f.name.clone().unwrap_or_else(|| func.to_string()),
                block: b.to_string(),
                inst: None,
            };
            self.block(b, fi, frames)?;
        }
        self.fill_phis(fi, frames)?;
        self.depth -= 1;
        let frame = frames.pop().expect("frame");
        Ok(frame.ret)
    }

    /// Selects one IR block of frame `fi`.
    fn block(&mut self, b: Block, fi: usize, frames: &mut Vec<Frame>) -> Result<(), CompileError> {
        let func = frames[fi].func;
        let module = self.module;
        let f = &module.funcs[func];
        for (k, &inst) in f.blocks[b].insts.iter().enumerate() {
            self.at.inst = Some(k);
            let data = &f.insts[inst];
            match &data.op {
                tangle_ir::Op::Phi(blocks) => {
                    let r = data.result.expect("phi result");
                    let (dsts, value, form) = self.phi_value(f.value_type(r))?;
                    frames[fi].values.insert(r, value);
                    self.pending_phis.push(PendingPhi {
                        block: self.cur,
                        dsts,
                        form,
                        incoming: blocks
                            .iter()
                            .copied()
                            .zip(data.args.iter().copied())
                            .collect(),
                        frame: fi,
                    });
                }
                tangle_ir::Op::Call(callee) => {
                    let args = data
                        .args
                        .iter()
                        .map(|a| self.val(*a, &frames[fi]))
                        .collect::<Result<Vec<_>, _>>()?;
                    let entry = self.mf.block();
                    self.jump(entry);
                    let saved = self.at.clone();
                    let ret = self.inline(*callee, args, entry, frames)?;
                    self.at = saved;
                    let Some((cont, rets)) = ret else {
                        // The callee never returns: nothing after the call runs.
                        self.cur = self.mf.block();
                        continue;
                    };
                    self.cur = cont;
                    if let Some(r) = data.result {
                        let v = self.join_returns(r, func, rets)?;
                        frames[fi].values.insert(r, v);
                    }
                }
                op => {
                    let v = self
                        .inst(op, &data.args, data.result, func, &frames[fi])
                        .map_err(|e| name_operation(e, op))?;
                    if let (Some(r), Some(v)) = (data.result, v) {
                        frames[fi].values.insert(r, v);
                    }
                }
            }
        }
        self.at.inst = None;
        frames[fi].ends.insert(b, self.cur);
        self.terminator(&f.blocks[b].term, fi, frames)
    }

    /// The phis of a call's continuation block for a returned value.
    fn join_returns(
        &mut self,
        r: Value,
        func: Func,
        rets: Vec<(MBlock, MVal)>,
    ) -> Result<MVal, CompileError> {
        let ty = self.module.funcs[func].value_type(r);
        if matches!(self.module.types.get(ty), TypeData::Void) {
            return Ok(MVal::Nothing);
        }
        let kinds = self.scalar_kinds(ty)?;
        let mut scs = Vec::new();
        for (k, class) in kinds.into_iter().enumerate() {
            let dst = self.mf.vreg(class, 1);
            let mut srcs = Vec::new();
            for (from, v) in &rets {
                let MVal::Scalars(s) = v else {
                    return Err(self.unsupported("call returning a pointer"));
                };
                let reg = self.materialize_at(*from, s[k])?;
                srcs.push((*from, reg));
            }
            self.mf.blocks[self.cur.0 as usize]
                .phis
                .push(MPhi { dst, srcs });
            scs.push(if class == RegClass::P {
                Sc::P(dst)
            } else {
                Sc::R(dst)
            });
        }
        Ok(MVal::Scalars(scs))
    }

    /// Selects a block's terminator.
    fn terminator(
        &mut self,
        term: &Terminator,
        fi: usize,
        frames: &mut [Frame],
    ) -> Result<(), CompileError> {
        let target = |frames: &[Frame], b: &Block| frames[fi].starts[b];
        match term {
            Terminator::Branch(b) => {
                let t = target(frames, b);
                self.jump(t);
            }
            Terminator::CondBranch {
                cond,
                if_true,
                if_false,
            } => {
                let (t, f) = (target(frames, if_true), target(frames, if_false));
                match self.scalar(*cond, &frames[fi])? {
                    // A constant condition keeps both edges (a predicate that is always
                    // true or always false): the edge never taken may be the only way
                    // into a block (glslang's `OpBranchConditional %true`), and the
                    // machine form's analyses and the allocator need every block
                    // reachable from the entry.
                    c @ Sc::Bool(_) => {
                        let p = self.pred(c)?;
                        self.term(
                            MInst::new(Op::Bra)
                                .o(MOpnd::Target(t))
                                .guard(p, false)
                                .uniform(true),
                        );
                        self.jump(f);
                    }
                    // In a kernel that never diverges every IR branch is uniform; the
                    // allocator must know, or the uniform registers that such kernels
                    // write (REDUX) would sit in blocks it takes for divergent.
                    Sc::P(p) => {
                        self.term(
                            MInst::new(Op::Bra)
                                .o(MOpnd::Target(t))
                                .guard(p, false)
                                .uniform(self.opts.converged),
                        );
                        self.jump(f);
                    }
                    _ => return Err(self.unsupported("br_if on a non-boolean")),
                }
            }
            Terminator::Switch {
                selector,
                default,
                cases,
            } => {
                let sel = self.scalar(*selector, &frames[fi])?;
                let sel = self.reg(sel)?;
                for (lit, b) in cases {
                    let t = target(frames, b);
                    let p = self.mf.vreg(RegClass::P, 1);
                    let k = self.reg(Sc::Imm(*lit as u32))?;
                    self.term(
                        MInst::new(Op::Isetp)
                            .m(".EQ")
                            .m(".U32")
                            .m(".AND")
                            .d(p)
                            .f(PT)
                            .u(sel)
                            .u(k)
                            .f(PT),
                    );
                    self.term(
                        MInst::new(Op::Bra)
                            .o(MOpnd::Target(t))
                            .guard(p, false)
                            .uniform(self.opts.converged),
                    );
                }
                let d = target(frames, default);
                self.jump(d);
            }
            Terminator::Return | Terminator::ReturnValue(_) => {
                let value = match term {
                    Terminator::ReturnValue(v) => self.val(*v, &frames[fi])?,
                    _ => MVal::Nothing,
                };
                if self.depth == 1 {
                    self.term(MInst::new(Op::Exit));
                    return Ok(());
                }
                let from = self.cur;
                let cont = match &frames[fi].ret {
                    Some((c, _)) => *c,
                    None => {
                        let c = self.mf.block();
                        frames[fi].ret = Some((c, Vec::new()));
                        c
                    }
                };
                if let Some((_, rets)) = &mut frames[fi].ret {
                    rets.push((from, value));
                }
                self.jump(cont);
            }
            Terminator::Unreachable | Terminator::Kill | Terminator::TerminateInvocation => {
                // The lowering ends an exiting block with `exit true; unreachable`: its
                // unguarded EXIT becomes the terminator rather than being followed by a
                // second, dead one.
                let insts = &mut self.mf.blocks[self.cur.0 as usize].insts;
                let exit = match insts.last() {
                    Some(i) if i.op == Op::Exit && i.guard.is_none() => insts.pop(),
                    _ => None,
                };
                self.term(exit.unwrap_or_else(|| MInst::new(Op::Exit)));
            }
        }
        Ok(())
    }

    /// Fills the sources of the phis of frame `fi`, materializing constants at the end of
    /// the incoming blocks.
    fn fill_phis(&mut self, fi: usize, frames: &mut [Frame]) -> Result<(), CompileError> {
        let mine: Vec<PendingPhi> = {
            let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.pending_phis)
                .into_iter()
                .partition(|p| p.frame == fi);
            self.pending_phis = rest;
            mine
        };
        for p in mine {
            let mut phis: Vec<MPhi> = p
                .dsts
                .iter()
                .map(|&dst| MPhi {
                    dst,
                    srcs: Vec::new(),
                })
                .collect();
            for (b, operand) in &p.incoming {
                let Some(&from) = frames[fi].ends.get(b) else {
                    continue; // an unreachable predecessor
                };
                // An edge the selection did not keep (a switch case folded away): a phi's
                // operand for it has no machine edge to come in on.
                if !self.mf.blocks[from.0 as usize].succs().contains(&p.block) {
                    continue;
                }
                let scs = match p.form {
                    Some(form) => {
                        let saved = self.cur;
                        self.cur = from;
                        let words = self.ptr_words(*operand, form, &frames[fi]);
                        self.cur = saved;
                        words?
                    }
                    None => match self.val(*operand, &frames[fi])? {
                        MVal::Scalars(scs) => scs,
                        _ => return Err(self.unsupported("phi of a pointer")),
                    },
                };
                for (k, sc) in scs.into_iter().enumerate() {
                    let reg = self.materialize_at(from, sc)?;
                    phis[k].srcs.push((from, reg));
                }
            }
            self.mf.blocks[p.block.0 as usize].phis.extend(phis);
        }
        Ok(())
    }

    /// Puts scalar `sc` in a register at the end of block `at`'s body.
    fn materialize_at(&mut self, at: MBlock, sc: Sc) -> Result<VReg, CompileError> {
        let saved = self.cur;
        self.cur = at;
        let r = match sc {
            Sc::R(v) | Sc::P(v) => Ok(v),
            Sc::Imm(_) => self.reg(sc),
            Sc::Bool(_) => self.pred(sc),
        };
        self.cur = saved;
        r
    }

    /// Appends an instruction to the current block's body.
    pub(crate) fn emit(&mut self, i: MInst) {
        self.mf.blocks[self.cur.0 as usize].insts.push(i);
    }

    /// Appends an instruction to the current block's terminating instructions.
    fn term(&mut self, i: MInst) {
        self.mf.blocks[self.cur.0 as usize].term.push(i);
    }

    /// Ends the current block with a branch to `t`.
    fn jump(&mut self, t: MBlock) {
        self.term(MInst::new(Op::Bra).o(MOpnd::Target(t)));
    }

    /// Appends an instruction to the entry block (kernel set-up).
    pub(crate) fn emit_entry(&mut self, i: MInst) {
        self.mf.blocks[self.entry.0 as usize].insts.push(i);
    }

    /// An "unsupported" error at the current position.
    pub(crate) fn unsupported(&self, what: impl Into<String>) -> CompileError {
        CompileError::Unsupported {
            what: what.into(),
            at: self.at.clone(),
        }
    }
}

/// An error about an operand, made to name the operation it was found in.
fn name_operation(e: CompileError, op: &tangle_ir::Op) -> CompileError {
    match e {
        CompileError::Unsupported { what, at } if what.starts_with("a ") => {
            let name = match op {
                tangle_ir::Op::Glsl(g) => format!("glsl {}", g.name()),
                other => other.mnemonic().to_string(),
            };
            CompileError::Unsupported {
                what: format!("{name} with {what}"),
                at,
            }
        }
        other => other,
    }
}
