//! The transcendental GLSL.std.450 functions (atan, atan2, exp, exp2, log, log2, pow): each is *defined* by a
//! recipe of IEEE f32 steps in `tangle_lanes::recipe`, which the reference evaluates;
//! here every step becomes the instruction that performs exactly that IEEE operation, so
//! the SASS result equals the reference's bit for bit:
//!
//! | step | instruction |
//! |---|---|
//! | `Fma`, `Mul`, `Add`, `Sub` | `FFMA`, `FMUL`, `FADD`, `FADD` with `-b` (round to nearest, denormals kept) |
//! | `Div` | the correctly rounded division of `fdiv.rs` (its NaN is `0x7fffffff`, as the recipe's) |
//! | `And`, `Or` | `LOP3.LUT` |
//! | `IAdd`, `Shl`, `Shr`, `Sar` | `IADD3` with `RZ`, `SHF.L.U32`, `SHF.R.U32.HI`, `SHF.R.S32.HI` |
//! | `Cmp` | `FSETP.LT/GT/EQ/NAN.AND` |
//! | `Sel` | `SEL` |
//! | `Const`, `Arg` | `MOV` of the word (once per distinct word), the operand |
//!
//! f16 operands are widened exactly (`F2F.F32.F16`) and the f32 result rounded once
//! (`F2F.F16.F32`), as the reference does; f64 is refused (GLSL.std.450 allows these on
//! 16- and 32-bit floats only). Vectors go component by component.

use std::collections::HashMap;

use tangle_ir::glsl::GlslOp;
use tangle_ir::{Func, Operand};
use tangle_lanes::recipe::{FCmp, Recipe, Step};
use tangle_sass::typed::{PT, RZ};
use tangle_sass::Op;

use super::ops::{lop3r, LUT_AND, LUT_OR};
use super::{Frame, Isel, MVal, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd, VReg};

impl Isel<'_> {
    /// `g` by its recipe, component by component.
    pub(crate) fn glsl_recipe(
        &mut self,
        g: GlslOp,
        recipe: &Recipe,
        args: &[Operand],
        func: Func,
        frame: &Frame,
    ) -> Result<MVal, CompileError> {
        let (bits, _, cols) = self.float_columns(g, args, func, frame)?;
        if bits == 64 {
            return Err(self.unsupported(format!(
                "glsl {} on f64 (GLSL.std.450 allows 16- and 32-bit floats only)",
                g.name()
            )));
        }
        let n = cols.iter().map(|c| c.len()).max().unwrap_or(0);
        let mut out = Vec::with_capacity(n);
        for k in 0..n {
            let xs = cols
                .iter()
                .map(|c| self.widen32(if c.len() == 1 { c[0] } else { c[k] }, bits))
                .collect::<Result<Vec<_>, _>>()?;
            let r = self.emit_recipe(recipe, &xs)?;
            out.extend(self.narrow32(r, bits)?);
        }
        Ok(MVal::Scalars(out))
    }

    /// The recipe's steps on the f32 registers `args`; its result's register.
    fn emit_recipe(&mut self, recipe: &Recipe, args: &[VReg]) -> Result<VReg, CompileError> {
        let mut slots: Vec<VReg> = Vec::with_capacity(recipe.steps.len());
        let mut consts: HashMap<u32, VReg> = HashMap::new();
        for step in &recipe.steps {
            let s = |k: u16| slots[k as usize];
            let d = match *step {
                Step::Arg(k) => args[k as usize],
                Step::Const(c) => match consts.get(&c) {
                    Some(&v) => v,
                    None => {
                        let v = self.reg(Sc::Imm(c))?;
                        consts.insert(c, v);
                        v
                    }
                },
                Step::Fma(a, b, c) => {
                    let d = self.r();
                    self.emit(MInst::new(Op::Ffma).d(d).u(s(a)).u(s(b)).u(s(c)));
                    d
                }
                Step::Mul(a, b) => {
                    let d = self.r();
                    self.emit(MInst::new(Op::Fmul).d(d).u(s(a)).u(s(b)));
                    d
                }
                Step::Add(a, b) => {
                    let d = self.r();
                    self.emit(MInst::new(Op::Fadd).d(d).u(s(a)).u(s(b)));
                    d
                }
                Step::Sub(a, b) => {
                    let d = self.r();
                    self.emit(MInst::new(Op::Fadd).d(d).u(s(a)).o(MOpnd::neg(s(b))));
                    d
                }
                Step::Div(a, b) => {
                    let q = self.fdiv32(Sc::R(s(a)), Sc::R(s(b)))?;
                    self.reg(q)?
                }
                Step::And(a, b) => {
                    let d = self.r();
                    self.emit(lop3r(d, s(a), s(b), LUT_AND));
                    d
                }
                Step::Or(a, b) => {
                    let d = self.r();
                    self.emit(lop3r(d, s(a), s(b), LUT_OR));
                    d
                }
                Step::IAdd(a, b) => {
                    let d = self.r();
                    self.emit(MInst::new(Op::Iadd3).d(d).u(s(a)).u(s(b)).f(RZ));
                    d
                }
                Step::Shl(a, k) => {
                    let k = self.reg(Sc::Imm(u32::from(k)))?;
                    let d = self.r();
                    self.emit(
                        MInst::new(Op::Shf)
                            .m(".L")
                            .m(".U32")
                            .d(d)
                            .u(s(a))
                            .u(k)
                            .f(RZ),
                    );
                    d
                }
                Step::Shr(a, k) | Step::Sar(a, k) => {
                    let kind = if matches!(step, Step::Sar(..)) {
                        ".S32"
                    } else {
                        ".U32"
                    };
                    let k = self.reg(Sc::Imm(u32::from(k)))?;
                    let d = self.r();
                    self.emit(
                        MInst::new(Op::Shf)
                            .m(".R")
                            .m(kind)
                            .m(".HI")
                            .d(d)
                            .f(RZ)
                            .u(k)
                            .u(s(a)),
                    );
                    d
                }
                Step::Cmp(c, a, b) => {
                    let cmp = match c {
                        FCmp::Lt => ".LT",
                        FCmp::Gt => ".GT",
                        FCmp::Eq => ".EQ",
                        FCmp::Nan => ".NAN",
                    };
                    let p = self.p();
                    self.emit(
                        MInst::new(Op::Fsetp)
                            .m(cmp)
                            .m(".AND")
                            .d(p)
                            .f(PT)
                            .u(s(a))
                            .u(s(b))
                            .f(PT),
                    );
                    p
                }
                Step::Sel(p, a, b) => self.sel(s(a), s(b), s(p)),
            };
            slots.push(d);
        }
        Ok(*slots.last().expect("a recipe has steps"))
    }
}
