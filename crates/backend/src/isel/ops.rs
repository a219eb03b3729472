//! Selection of plain operations (arithmetic, logic, shifts, comparisons, selects,
//! conversions, composites), the warp-barrier operations and the dispatch of every other
//! instruction to its file.

use tangle_ir::{Func, Operand, PlainOp, TangleOp, TypeData, Value};
use tangle_sass::typed::Operand as SOperand;
use tangle_sass::typed::{PT, RZ};
use tangle_sass::Op;

use super::wide::Widths;
use super::{sub_range, Frame, Isel, MVal, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd, RegClass, VReg};

/// LOP3/PLOP3 truth-table inputs: A = 0xf0, B = 0xcc, C = 0xaa.
pub(crate) const LUT_AND: i64 = 0xc0;
pub(crate) const LUT_OR: i64 = 0xfc;
pub(crate) const LUT_XOR: i64 = 0x3c;
const LUT_XNOR: i64 = 0xc3;
pub(crate) const LUT_NOT_A: i64 = 0x0f;
/// `A ? B : C`.
const LUT_MUX: i64 = 0xca;

impl Isel<'_> {
    /// Selects one instruction; returns the value of its result.
    pub(crate) fn inst(
        &mut self,
        op: &tangle_ir::Op,
        args: &[Operand],
        result: Option<Value>,
        func: Func,
        frame: &Frame,
    ) -> Result<Option<MVal>, CompileError> {
        let rty = result.map(|r| self.module.funcs[func].value_type(r));
        use tangle_ir::Op as I;
        match op {
            // `all`/`any` of a bool vector: its components folded with AND / OR.
            I::Plain(p @ (PlainOp::All | PlainOp::Any)) => {
                let lut = if *p == PlainOp::All { LUT_AND } else { LUT_OR };
                let parts = self.scalars(args[0], frame)?;
                let mut acc = parts[0];
                for part in &parts[1..] {
                    let pd = self.p();
                    let x = self.pred_opnd(acc)?;
                    let y = self.pred_opnd(*part)?;
                    self.emit(plop3(pd, x, y, MOpnd::Fixed(PT.into()), lut));
                    acc = Sc::P(pd);
                }
                Ok(Some(MVal::Scalars(vec![acc])))
            }
            I::Plain(p) => self.plain(*p, args, rty, func, frame).map(Some),
            I::CompositeExtract(idx) => {
                let ty = self.module.operand_type(&self.module.funcs[func], args[0]);
                let s = self.scalars(args[0], frame)?;
                let (start, n, _) = sub_range(self, ty, idx)?;
                Ok(Some(MVal::Scalars(s[start..start + n].to_vec())))
            }
            I::CompositeInsert(idx) => {
                let ty = self.module.operand_type(&self.module.funcs[func], args[1]);
                let obj = self.scalars(args[0], frame)?;
                let mut s = self.scalars(args[1], frame)?;
                let (start, n, _) = sub_range(self, ty, idx)?;
                s[start..start + n].copy_from_slice(&obj);
                Ok(Some(MVal::Scalars(s)))
            }
            I::VectorShuffle(sel) => {
                let mut both = self.scalars(args[0], frame)?;
                both.extend(self.scalars(args[1], frame)?);
                let mut out = Vec::new();
                for &k in sel {
                    out.push(match both.get(k as usize) {
                        Some(s) => *s,
                        None => Sc::Imm(0), // 0xffffffff: an undefined component
                    });
                }
                Ok(Some(MVal::Scalars(out)))
            }
            I::Load(_) => {
                let ptr = self.ptr(args[0], frame)?;
                self.load(&ptr, rty.expect("load result")).map(Some)
            }
            I::Store(_) => {
                let ptr = self.ptr(args[0], frame)?;
                let v = self.scalars(args[1], frame)?;
                self.store(&ptr, &v)?;
                Ok(None)
            }
            I::Variable(_) => {
                let ptr = self.local_variable(rty.expect("variable type"))?;
                if let Some(init) = args.first() {
                    let v = self.scalars(*init, frame)?;
                    self.store(&ptr, &v)?;
                }
                Ok(Some(MVal::Ptr(ptr)))
            }
            I::Atomic { op, .. } => self.atomic(*op, args, rty, frame),
            I::ArrayLength(member) => self.array_length(*member, args[0], frame).map(Some),
            I::Glsl(g) => self.glsl(*g, args, rty, func, frame).map(Some),
            I::Group { op, group, .. } => self.group(*op, *group, args, rty, frame).map(Some),
            I::ControlBarrier { exec, .. } => {
                match exec {
                    spirv::Scope::Workgroup => {
                        let bar = MInst::new(Op::Bar).m(".SYNC");
                        let bar = if self.opts.arch == tangle_sass::Arch::Sm75 {
                            bar
                        } else {
                            bar.m(".DEFER_BLOCKING")
                        };
                        self.emit(bar.imm(0));
                    }
                    // A subgroup barrier orders nothing the warp does not already order:
                    // the lanes that run it together are the tangle.
                    spirv::Scope::Subgroup => {}
                    _ => return Err(self.unsupported("control_barrier of this scope")),
                }
                Ok(None)
            }
            I::MemoryBarrier { .. } => {
                // The simulator's memory is sequentially consistent, but hardware is not:
                // order memory at the GPU scope as ptxas does for a fence.
                self.emit(MInst::new(Op::Membar).m(".SC").m(".GPU"));
                Ok(None)
            }
            I::Tangle(t) => self.tangle(*t, args, frame),
            other => Err(self.unsupported(other.mnemonic())),
        }
    }

    /// The warp-barrier operations, exits and tokens.
    fn tangle(
        &mut self,
        t: TangleOp,
        args: &[Operand],
        frame: &Frame,
    ) -> Result<Option<MVal>, CompileError> {
        match t {
            TangleOp::ConvEntry | TangleOp::ConvAnchor | TangleOp::ConvLoop => {
                Ok(Some(MVal::Nothing))
            }
            TangleOp::BarSet => {
                let b = self.mf.vreg(RegClass::B, 1);
                self.emit(MInst::new(Op::Bssy).d(b).o(MOpnd::SyncOf(b)));
                Ok(Some(MVal::Bar(b)))
            }
            TangleOp::BarSync => {
                let b = self.barrier(args[0], frame)?;
                self.emit(MInst::new(Op::Bsync).u(b));
                Ok(None)
            }
            TangleOp::BarBreak => {
                let b = self.barrier(args[0], frame)?;
                match self.scalar(args[1], frame)? {
                    Sc::Bool(false) => {}
                    Sc::Bool(true) => self.emit(MInst::new(Op::Break).u(b)),
                    c => {
                        let p = self.pred(c)?;
                        self.emit(MInst::new(Op::Break).u(b).guard(p, false));
                    }
                }
                Ok(None)
            }
            TangleOp::Exit => {
                match self.scalar(args[0], frame)? {
                    Sc::Bool(false) => {}
                    Sc::Bool(true) => self.emit(MInst::new(Op::Exit)),
                    c => {
                        let p = self.pred(c)?;
                        self.emit(MInst::new(Op::Exit).guard(p, false));
                    }
                }
                Ok(None)
            }
        }
    }

    fn barrier(&mut self, o: Operand, frame: &Frame) -> Result<VReg, CompileError> {
        match self.val(o, frame)? {
            MVal::Bar(b) => Ok(b),
            _ => Err(self.unsupported("a barrier operand that is not a barrier")),
        }
    }

    /// A new 32-bit register.
    pub(crate) fn r(&mut self) -> VReg {
        self.mf.vreg(RegClass::R, 1)
    }

    /// A new predicate.
    pub(crate) fn p(&mut self) -> VReg {
        self.mf.vreg(RegClass::P, 1)
    }

    /// Plain operations, component-wise over vectors.
    fn plain(
        &mut self,
        op: PlainOp,
        args: &[Operand],
        rty: Option<tangle_ir::Type>,
        func: Func,
        frame: &Frame,
    ) -> Result<MVal, CompileError> {
        use PlainOp as P;
        let rty = rty.expect("plain op result");
        if super::matrix::is_matrix_op(op) {
            return self.matrix_op(op, args, func, frame);
        }
        match op {
            // A copy of a pointer is the same pointer.
            P::CopyObject => return self.val(args[0], frame),
            P::Select if self.is_pointer(rty) => return self.select_ptr(args, rty, frame),
            P::Bitcast => {
                // Same words in the same order (a 64-bit value is its low word first, as
                // a two-component vector of 32-bit ones is); narrow scalars (one to a
                // register) are joined into or split out of their words.
                let s = self.scalars(args[0], frame)?;
                let from = self.operand_bits(func, args[0]);
                let to = self.module.types.bit_width(rty);
                let s = self.bitcast_pieces(s, from, to)?;
                if self.scalar_kinds(rty)?.len() != s.len() {
                    return Err(self.unsupported("a bitcast that splits or joins words"));
                }
                return Ok(MVal::Scalars(s));
            }
            P::Undef => {
                let kinds = self.scalar_kinds(rty)?;
                return Ok(MVal::Scalars(
                    kinds
                        .into_iter()
                        .map(|k| {
                            if k == RegClass::P {
                                Sc::Bool(false)
                            } else {
                                Sc::Imm(0)
                            }
                        })
                        .collect(),
                ));
            }
            P::CompositeConstruct => {
                let mut out = Vec::new();
                for a in args {
                    out.extend(self.scalars(*a, frame)?);
                }
                return Ok(MVal::Scalars(out));
            }
            P::AccessChain => return Ok(MVal::Ptr(self.access_chain(args, rty, frame)?)),
            P::UMulExtended | P::SMulExtended if self.operand_bits(func, args[0]) == 32 => {
                // A struct of the low and the high words of the 64-bit product, per component.
                let a = self.scalars(args[0], frame)?;
                let b = self.scalars(args[1], frame)?;
                let (mut lo, mut hi) = (Vec::new(), Vec::new());
                for (x, y) in a.into_iter().zip(b) {
                    let x = self.reg(x)?;
                    let y = self.reg(y)?;
                    let l = self.r();
                    self.emit(MInst::new(Op::Imad).d(l).u(x).u(y).f(RZ));
                    let h = self.r();
                    let i = MInst::new(Op::Imad).m(".HI");
                    let i = if op == P::UMulExtended {
                        i.m(".U32")
                    } else {
                        i
                    };
                    self.emit(i.d(h).u(x).u(y).f(RZ));
                    lo.push(Sc::R(l));
                    hi.push(Sc::R(h));
                }
                lo.extend(hi);
                return Ok(MVal::Scalars(lo));
            }
            P::UMulExtended | P::SMulExtended if self.operand_bits(func, args[0]) == 64 => {
                // Per component, the 128-bit product's low and high 64-bit halves; all low
                // halves first (the struct's first member), each as two words.
                let a = self.scalars(args[0], frame)?;
                let b = self.scalars(args[1], frame)?;
                let (mut lo, mut hi) = (Vec::new(), Vec::new());
                for (x, y) in a.chunks_exact(2).zip(b.chunks_exact(2)) {
                    let w =
                        self.mul_extended64([x[0], x[1]], [y[0], y[1]], op == P::SMulExtended)?;
                    lo.extend([w[0], w[1]]);
                    hi.extend([w[2], w[3]]);
                }
                lo.extend(hi);
                return Ok(MVal::Scalars(lo));
            }
            P::UMulExtended | P::SMulExtended
                if matches!(self.operand_bits(func, args[0]), 8 | 16) =>
            {
                // Narrow: the whole product fits one 32-bit IMAD (of the sign-extended
                // operands when signed); its low and high halves masked to the width.
                let n = self.operand_bits(func, args[0]);
                let signed = op == P::SMulExtended;
                let a = self.scalars(args[0], frame)?;
                let b = self.scalars(args[1], frame)?;
                let (mut lo, mut hi) = (Vec::new(), Vec::new());
                for (x, y) in a.into_iter().zip(b) {
                    let (x, y) = if signed {
                        (self.sext(x, n)?, self.sext(y, n)?)
                    } else {
                        (x, y)
                    };
                    let x = self.reg(x)?;
                    let y = self.reg(y)?;
                    let p = self.r();
                    self.emit(MInst::new(Op::Imad).d(p).u(x).u(y).f(RZ));
                    lo.push(self.mask(Sc::R(p), n)?);
                    let k = self.reg(Sc::Imm(n))?;
                    let h = self.r();
                    self.emit(
                        MInst::new(Op::Shf)
                            .m(".R")
                            .m(".U32")
                            .m(".HI")
                            .d(h)
                            .f(RZ)
                            .u(k)
                            .u(p),
                    );
                    hi.push(self.mask(Sc::R(h), n)?);
                }
                lo.extend(hi);
                return Ok(MVal::Scalars(lo));
            }
            P::VectorExtractDynamic => {
                let v = self.scalars(args[0], frame)?;
                let i = self.scalar(args[1], frame)?;
                // Each word of the element chosen among the same words of every element.
                let w = self.scalar_kinds(rty)?.len();
                let mut out = Vec::with_capacity(w);
                for part in 0..w {
                    let words: Vec<Sc> = v.iter().skip(part).step_by(w).copied().collect();
                    out.push(self.extract_dynamic(&words, i)?);
                }
                return Ok(MVal::Scalars(out));
            }
            _ => {}
        }
        // Component-wise operations, element by element (a 64-bit element is two scalars).
        let module = self.module;
        let f = &module.funcs[func];
        let types = &module.types;
        let arg_tys: Vec<tangle_ir::Type> =
            args.iter().map(|a| module.operand_type(f, *a)).collect();
        let bits: Vec<u32> = arg_tys.iter().map(|t| types.bit_width(*t)).collect();
        let out_bits = types.bit_width(rty);
        let out_int = matches!(types.get(types.scalar_of(rty)), TypeData::Int { .. });
        let is_f64 = |t: tangle_ir::Type| {
            matches!(types.get(types.scalar_of(t)), TypeData::Float { width: 64 })
        };
        let float64 = is_f64(rty) || arg_tys.iter().any(|t| is_f64(*t));
        let is_f16 = |t: tangle_ir::Type| {
            matches!(types.get(types.scalar_of(t)), TypeData::Float { width: 16 })
        };
        let half_args: Vec<bool> = arg_tys.iter().map(|t| is_f16(*t)).collect();
        let half_out = is_f16(rty);
        let n = types.component_count(rty) as usize;
        let cols: Vec<Vec<Sc>> = args
            .iter()
            .map(|a| self.scalars(*a, frame))
            .collect::<Result<_, _>>()?;
        let plain32 = bits.iter().chain([&out_bits]).all(|&b| b == 32 || b == 1);
        let mut out = Vec::with_capacity(n);
        for k in 0..n {
            let parts: Vec<&[Sc]> = cols
                .iter()
                .zip(&bits)
                .map(|(c, &b)| {
                    let w = if b == 64 { 2 } else { 1 };
                    // A scalar operand (a shift amount, a select's condition) serves
                    // every element.
                    if c.len() == w {
                        &c[..]
                    } else {
                        &c[k * w..(k + 1) * w]
                    }
                })
                .collect();
            if plain32 {
                let a: Vec<Sc> = parts.iter().map(|p| p[0]).collect();
                out.push(self.plain_scalar(op, &a)?);
            } else {
                let w = Widths {
                    args: &bits,
                    out: out_bits,
                    out_int,
                    float64,
                    half_args: &half_args,
                    half_out,
                };
                out.extend(self.plain_elem(op, &parts, &w)?);
            }
        }
        Ok(MVal::Scalars(out))
    }

    /// One component of a plain operation.
    pub(crate) fn plain_scalar(&mut self, op: PlainOp, a: &[Sc]) -> Result<Sc, CompileError> {
        use PlainOp as P;
        let d = self.r();
        match op {
            P::IAdd | P::ISub | P::SNegate => {
                let (x, y, neg) = match op {
                    P::SNegate => (Sc::Imm(0), a[0], true),
                    _ => (a[0], a[1], op == P::ISub),
                };
                let x = self.reg(x)?;
                let y = self.reg(y)?;
                let yo = if neg { MOpnd::neg(y) } else { MOpnd::use_(y) };
                self.emit(MInst::new(Op::Iadd3).d(d).u(x).o(yo).f(RZ));
            }
            P::IMul => {
                let x = self.reg(a[0])?;
                let y = self.reg(a[1])?;
                self.emit(MInst::new(Op::Imad).d(d).u(x).u(y).f(RZ));
            }
            P::BitwiseAnd | P::BitwiseOr | P::BitwiseXor | P::Not => {
                let lut = match op {
                    P::BitwiseAnd => LUT_AND,
                    P::BitwiseOr => LUT_OR,
                    P::BitwiseXor => LUT_XOR,
                    _ => LUT_NOT_A,
                };
                let x = self.reg(a[0])?;
                let y = match a.get(1) {
                    Some(y) => MOpnd::use_(self.reg(*y)?),
                    None => MOpnd::Fixed(RZ.into()),
                };
                self.emit(
                    MInst::new(Op::Lop3)
                        .m(".LUT")
                        .d(d)
                        .u(x)
                        .o(y)
                        .f(RZ)
                        .imm(lut)
                        .f(!SOperand::from(PT)),
                );
            }
            P::ShiftLeftLogical | P::ShiftRightLogical | P::ShiftRightArithmetic => {
                let x = self.reg(a[0])?;
                let y = self.reg(a[1])?;
                // Vulkan leaves shifts by 32 or more undefined; SHF clamps them.
                let i = match op {
                    P::ShiftLeftLogical => {
                        MInst::new(Op::Shf).m(".L").m(".U32").d(d).u(x).u(y).f(RZ)
                    }
                    P::ShiftRightLogical => MInst::new(Op::Shf)
                        .m(".R")
                        .m(".U32")
                        .m(".HI")
                        .d(d)
                        .f(RZ)
                        .u(y)
                        .u(x),
                    _ => MInst::new(Op::Shf)
                        .m(".R")
                        .m(".S32")
                        .m(".HI")
                        .d(d)
                        .f(RZ)
                        .u(y)
                        .u(x),
                };
                self.emit(i);
            }
            P::FAdd | P::FSub | P::FMul => {
                let x = self.reg(a[0])?;
                let y = self.reg(a[1])?;
                let i = match op {
                    P::FMul => MInst::new(Op::Fmul).d(d).u(x).u(y),
                    P::FSub => MInst::new(Op::Fadd).d(d).u(x).o(MOpnd::neg(y)),
                    _ => MInst::new(Op::Fadd).d(d).u(x).u(y),
                };
                self.emit(i);
            }
            P::FNegate => {
                // The sign bit flips, whatever the value (0 - x would turn -0 into +0).
                let x = self.reg(a[0])?;
                let m = self.reg(Sc::Imm(0x8000_0000))?;
                self.emit(lop3r(d, x, m, LUT_XOR));
            }
            P::ConvertSToF | P::ConvertUToF => {
                let x = self.reg(a[0])?;
                let i = MInst::new(Op::I2f).d(d).u(x);
                self.emit(if op == P::ConvertUToF { i.m(".U32") } else { i });
            }
            P::ConvertFToS | P::ConvertFToU => {
                let x = self.reg(a[0])?;
                let i = MInst::new(Op::F2i);
                let i = if op == P::ConvertFToU { i.m(".U32") } else { i };
                self.emit(i.m(".TRUNC").m(".NTZ").d(d).u(x));
            }
            P::UConvert | P::SConvert | P::FConvert => {
                // 32 bits to 32 bits (other widths are refused with their types).
                return Ok(a[0]);
            }
            P::Select => {
                let c = a[0];
                if matches!(a[1], Sc::P(_) | Sc::Bool(_)) {
                    let pd = self.p();
                    let c = self.pred_opnd(c)?;
                    let x = self.pred_opnd(a[1])?;
                    let y = self.pred_opnd(a[2])?;
                    self.emit(plop3(pd, c, x, y, LUT_MUX));
                    return Ok(Sc::P(pd));
                }
                let x = self.reg(a[1])?;
                let y = self.reg(a[2])?;
                let c = self.pred_opnd(c)?;
                self.emit(MInst::new(Op::Sel).d(d).u(x).u(y).o(c));
            }
            P::LogicalAnd | P::LogicalOr | P::LogicalEqual | P::LogicalNotEqual | P::LogicalNot => {
                let lut = match op {
                    P::LogicalAnd => LUT_AND,
                    P::LogicalOr => LUT_OR,
                    P::LogicalEqual => LUT_XNOR,
                    P::LogicalNotEqual => LUT_XOR,
                    _ => LUT_NOT_A,
                };
                let pd = self.p();
                let x = self.pred_opnd(a[0])?;
                let y = match a.get(1) {
                    Some(y) => self.pred_opnd(*y)?,
                    None => MOpnd::Fixed(PT.into()),
                };
                self.emit(plop3(pd, x, y, MOpnd::Fixed(PT.into()), lut));
                return Ok(Sc::P(pd));
            }
            P::IEqual
            | P::INotEqual
            | P::UGreaterThan
            | P::SGreaterThan
            | P::UGreaterThanEqual
            | P::SGreaterThanEqual
            | P::ULessThan
            | P::SLessThan
            | P::ULessThanEqual
            | P::SLessThanEqual => {
                let (cmp, unsigned) = match op {
                    P::IEqual => (".EQ", true),
                    P::INotEqual => (".NE", true),
                    P::UGreaterThan => (".GT", true),
                    P::SGreaterThan => (".GT", false),
                    P::UGreaterThanEqual => (".GE", true),
                    P::SGreaterThanEqual => (".GE", false),
                    P::ULessThan => (".LT", true),
                    P::SLessThan => (".LT", false),
                    P::ULessThanEqual => (".LE", true),
                    _ => (".LE", false),
                };
                let pd = self.p();
                let x = self.reg(a[0])?;
                let y = self.reg(a[1])?;
                let i = MInst::new(Op::Isetp).m(cmp);
                let i = if unsigned { i.m(".U32") } else { i };
                self.emit(i.m(".AND").d(pd).f(PT).u(x).u(y).f(PT));
                return Ok(Sc::P(pd));
            }
            P::FOrdEqual
            | P::FUnordEqual
            | P::FOrdNotEqual
            | P::FUnordNotEqual
            | P::FOrdLessThan
            | P::FUnordLessThan
            | P::FOrdGreaterThan
            | P::FUnordGreaterThan
            | P::FOrdLessThanEqual
            | P::FUnordLessThanEqual
            | P::FOrdGreaterThanEqual
            | P::FUnordGreaterThanEqual
            | P::IsNan => {
                let cmp = match op {
                    P::FOrdEqual => ".EQ",
                    P::FUnordEqual => ".EQU",
                    P::FOrdNotEqual => ".NE",
                    P::FUnordNotEqual => ".NEU",
                    P::FOrdLessThan => ".LT",
                    P::FUnordLessThan => ".LTU",
                    P::FOrdGreaterThan => ".GT",
                    P::FUnordGreaterThan => ".GTU",
                    P::FOrdLessThanEqual => ".LE",
                    P::FUnordLessThanEqual => ".LEU",
                    P::FOrdGreaterThanEqual => ".GE",
                    P::FUnordGreaterThanEqual => ".GEU",
                    _ => ".NAN",
                };
                let pd = self.p();
                let x = self.reg(a[0])?;
                let y = match a.get(1) {
                    Some(y) => self.reg(*y)?,
                    None => x,
                };
                self.emit(
                    MInst::new(Op::Fsetp)
                        .m(cmp)
                        .m(".AND")
                        .d(pd)
                        .f(PT)
                        .u(x)
                        .u(y)
                        .f(PT),
                );
                return Ok(Sc::P(pd));
            }
            P::IsInf => {
                // |x| == infinity, on the bits.
                let x = self.reg(a[0])?;
                let m = self.reg(Sc::Imm(0x7fff_ffff))?;
                let ax = self.r();
                self.emit(lop3r(ax, x, m, LUT_AND));
                let inf = self.reg(Sc::Imm(0x7f80_0000))?;
                let pd = self.p();
                self.emit(
                    MInst::new(Op::Isetp)
                        .m(".EQ")
                        .m(".U32")
                        .m(".AND")
                        .d(pd)
                        .f(PT)
                        .u(ax)
                        .u(inf)
                        .f(PT),
                );
                return Ok(Sc::P(pd));
            }
            P::FDiv => {
                let (x, y) = (a[0], a[1]);
                return self.fdiv32(x, y);
            }
            P::FRem | P::FMod => {
                let x = self.reg(a[0])?;
                let y = self.reg(a[1])?;
                let (xd, yd) = (self.mf.vreg(RegClass::R, 2), self.mf.vreg(RegClass::R, 2));
                self.emit(MInst::new(Op::F2f).m(".F64").m(".F32").d(xd).u(x));
                self.emit(MInst::new(Op::F2f).m(".F64").m(".F32").d(yd).u(y));
                let r = self.fmod_f32(op, xd, yd)?;
                let d = self.r();
                self.emit(MInst::new(Op::F2f).m(".F32").m(".F64").d(d).u(r));
                return Ok(Sc::R(d));
            }
            P::UDiv | P::UMod => {
                let (q, r) = self.udivmod(a[0], a[1])?;
                return Ok(Sc::R(if op == P::UDiv { q } else { r }));
            }
            P::SDiv | P::SRem | P::SMod => return self.signed_div(op, a[0], a[1]).map(Sc::R),
            other => return Err(self.unsupported(other.name())),
        }
        Ok(Sc::R(d))
    }

    /// `v[i]` for a vector of scalars and a dynamic index: a chain of selects.
    fn extract_dynamic(&mut self, v: &[Sc], i: Sc) -> Result<Sc, CompileError> {
        if let Sc::Imm(k) = i {
            return Ok(v.get(k as usize).copied().unwrap_or(Sc::Imm(0)));
        }
        let idx = self.reg(i)?;
        let mut acc = self.reg(v[0])?;
        for (k, c) in v.iter().enumerate().skip(1) {
            let p = self.p();
            let kr = self.reg(Sc::Imm(k as u32))?;
            self.emit(
                MInst::new(Op::Isetp)
                    .m(".EQ")
                    .m(".U32")
                    .m(".AND")
                    .d(p)
                    .f(PT)
                    .u(idx)
                    .u(kr)
                    .f(PT),
            );
            let x = self.reg(*c)?;
            let d = self.r();
            self.emit(MInst::new(Op::Sel).d(d).u(x).u(acc).o(MOpnd::use_(p)));
            acc = d;
        }
        Ok(Sc::R(acc))
    }
}

/// `LOP3.LUT d, a, b, RZ, lut, !PT`.
pub(crate) fn lop3r(d: VReg, a: VReg, b: VReg, lut: i64) -> MInst {
    MInst::new(Op::Lop3)
        .m(".LUT")
        .d(d)
        .u(a)
        .u(b)
        .f(RZ)
        .imm(lut)
        .f(!SOperand::from(PT))
}

/// `PLOP3.LUT d, PT, a, b, c, lut, 0x0`.
fn plop3(d: VReg, a: MOpnd, b: MOpnd, c: MOpnd, lut: i64) -> MInst {
    MInst::new(Op::Plop3)
        .m(".LUT")
        .d(d)
        .f(PT)
        .o(a)
        .o(b)
        .o(c)
        .imm(lut)
        .imm(0)
}
