//! GLSL.std.450 operations: integer min/max/clamp/abs/sign and most-significant-bit
//! searches, float abs; narrow integers sign-extended where the operation reads a sign and
//! masked back to their width after.

use tangle_ir::glsl::GlslOp;
use tangle_ir::{Func, Operand};
use tangle_sass::typed::Operand as SOperand;
use tangle_sass::typed::{PT, RZ};
use tangle_sass::Op;

use super::ops::{lop3r, LUT_AND};
use super::{Frame, Isel, MVal, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd};

impl Isel<'_> {
    /// GLSL.std.450 operations of the subset: integer and float min/max/abs and clamps,
    /// integer sign and most-significant-bit searches, on 8- to 32-bit integers.
    pub(crate) fn glsl(
        &mut self,
        g: GlslOp,
        args: &[Operand],
        rty: Option<tangle_ir::Type>,
        func: Func,
        frame: &Frame,
    ) -> Result<MVal, CompileError> {
        if matches!(
            g,
            GlslOp::Modf | GlslOp::ModfStruct | GlslOp::Frexp | GlslOp::FrexpStruct | GlslOp::Ldexp
        ) {
            return self.float_parts(g, args, rty, func, frame);
        }
        if matches!(g, GlslOp::Determinant | GlslOp::MatrixInverse) {
            return self.glsl_matrix(g, args, func, frame);
        }
        if let Some(recipe) = tangle_lanes::recipe::for_glsl(g) {
            return self.glsl_recipe(g, recipe, args, func, frame);
        }
        if super::glsl_float::is_glsl_float(g) {
            return self.glsl_float(g, args, func, frame);
        }
        if super::glsl_exact::is_glsl_exact(g) {
            return self.glsl_exact(g, args, func, frame);
        }
        let bits = args.first().map_or(32, |a| self.operand_bits(func, *a));
        let out_bits = rty.map_or(32, |t| self.module.types.bit_width(t));
        if bits == 64 && matches!(g, GlslOp::FAbs | GlslOp::Fma) {
            return self.glsl_f64(g, args, frame);
        }
        if bits == 64 && super::glsl64::is_glsl_int64(g) {
            return self.glsl_int64(g, args, frame);
        }
        if bits == 64 || out_bits == 64 {
            return Err(self.unsupported(format!("glsl {} on 64-bit values", g.name())));
        }
        let narrow = bits < 32;
        let signed = matches!(
            g,
            GlslOp::SMin
                | GlslOp::SMax
                | GlslOp::SClamp
                | GlslOp::SAbs
                | GlslOp::SSign
                | GlslOp::FindSMsb
        );
        let cols: Vec<Vec<Sc>> = args
            .iter()
            .map(|a| self.scalars(*a, frame))
            .collect::<Result<_, _>>()?;
        let n = cols.iter().map(|c| c.len()).max().unwrap_or(0);
        let mut out = Vec::new();
        for k in 0..n {
            let mut a: Vec<Sc> = cols
                .iter()
                .map(|c| if c.len() == 1 { c[0] } else { c[k] })
                .collect();
            if narrow && signed {
                for x in &mut a {
                    *x = self.sext(*x, bits)?;
                }
            }
            let s = match g {
                GlslOp::UMin | GlslOp::SMin | GlslOp::UMax | GlslOp::SMax => {
                    let d = self.r();
                    let x = self.reg(a[0])?;
                    let y = self.reg(a[1])?;
                    let min = matches!(g, GlslOp::UMin | GlslOp::SMin);
                    let unsigned = matches!(g, GlslOp::UMin | GlslOp::UMax);
                    let i = MInst::new(Op::Imnmx);
                    let i = if unsigned { i.m(".U32") } else { i };
                    let sel = if min { PT.into() } else { !SOperand::from(PT) };
                    self.emit(i.d(d).u(x).u(y).f(sel));
                    Sc::R(d)
                }
                GlslOp::UClamp | GlslOp::SClamp => {
                    // min(max(x, lo), hi), as GLSL defines clamp.
                    let unsigned = g == GlslOp::UClamp;
                    let x = self.reg(a[0])?;
                    let lo = self.reg(a[1])?;
                    let hi = self.reg(a[2])?;
                    let m = self.r();
                    let i = MInst::new(Op::Imnmx);
                    let i = if unsigned { i.m(".U32") } else { i };
                    self.emit(i.clone().d(m).u(x).u(lo).f(!SOperand::from(PT)));
                    let d = self.r();
                    self.emit(i.d(d).u(m).u(hi).f(PT));
                    Sc::R(d)
                }
                GlslOp::SAbs => {
                    let x = self.reg(a[0])?;
                    let neg = self.r();
                    self.emit(MInst::new(Op::Iadd3).d(neg).f(RZ).o(MOpnd::neg(x)).f(RZ));
                    let d = self.r();
                    self.emit(
                        MInst::new(Op::Imnmx)
                            .d(d)
                            .u(x)
                            .u(neg)
                            .f(!SOperand::from(PT)),
                    );
                    Sc::R(d)
                }
                // FFMA rounds once, as `fma` does in the reference (f32 `mul_add`).
                GlslOp::Fma if bits == 32 => {
                    let (x, y, z) = (self.reg(a[0])?, self.reg(a[1])?, self.reg(a[2])?);
                    let d = self.r();
                    self.emit(MInst::new(Op::Ffma).d(d).u(x).u(y).u(z));
                    Sc::R(d)
                }
                // f16: DFMA on the widened operands, then one F2F.F16.F64. The product of
                // two f16 values (22 bits) is exact in f64, and the f64 sum can only land
                // on an f16 rounding midpoint it was not exactly at if the exact sum needs
                // more than 53 bits, i.e. the addends lie over 30 binades apart, where the
                // smaller cannot move the f16 result: so this rounds as the reference's
                // round-to-odd sum does. (Through an f32 FFMA it would round twice.)
                GlslOp::Fma if bits == 16 => {
                    let x = self.widen64(&a[0..1], 16)?;
                    let y = self.widen64(&a[1..2], 16)?;
                    let z = self.widen64(&a[2..3], 16)?;
                    let d = self.mf.vreg(crate::mir::RegClass::R, 2);
                    self.emit(MInst::new(Op::Dfma).d(d).u(x).u(y).u(z));
                    self.narrow64(d, 16)?[0]
                }
                GlslOp::FAbs => {
                    let x = self.reg(a[0])?;
                    // The sign bit of an f32, or of an f16 in its register's low half.
                    let sign = if bits == 16 { 0x7fff } else { 0x7fff_ffff };
                    let m = self.reg(Sc::Imm(sign))?;
                    let d = self.r();
                    self.emit(lop3r(d, x, m, LUT_AND));
                    Sc::R(d)
                }
                GlslOp::FindUMsb => {
                    let x = self.reg(a[0])?;
                    let d = self.r();
                    // FLO gives 0xffffffff for 0, GLSL's -1.
                    self.emit(MInst::new(Op::Flo).m(".U32").d(d).u(x));
                    Sc::R(d)
                }
                GlslOp::SSign => {
                    // -1, 0 or 1: the sign word, or 1 where x > 0.
                    let x = self.reg(a[0])?;
                    let k = self.reg(Sc::Imm(31))?;
                    let sign = self.r();
                    self.emit(
                        MInst::new(Op::Shf)
                            .m(".R")
                            .m(".S32")
                            .m(".HI")
                            .d(sign)
                            .f(RZ)
                            .u(k)
                            .u(x),
                    );
                    let pos = self.p();
                    self.emit(
                        MInst::new(Op::Isetp)
                            .m(".GT")
                            .m(".AND")
                            .d(pos)
                            .f(PT)
                            .u(x)
                            .f(RZ)
                            .f(PT),
                    );
                    let one = self.reg(Sc::Imm(1))?;
                    let d = self.r();
                    self.emit(MInst::new(Op::Sel).d(d).u(one).u(sign).o(MOpnd::use_(pos)));
                    Sc::R(d)
                }
                GlslOp::FindSMsb => {
                    // Signed FLO: the highest bit that differs from the sign (-1 for 0, -1).
                    let x = self.reg(a[0])?;
                    let d = self.r();
                    self.emit(MInst::new(Op::Flo).d(d).u(x));
                    Sc::R(d)
                }
                other => return Err(self.unsupported(format!("glsl {}", other.name()))),
            };
            let is_int = !matches!(g, GlslOp::FAbs | GlslOp::Fma);
            let s = if narrow && is_int && (2..32).contains(&out_bits) {
                self.mask(s, out_bits)?
            } else {
                s
            };
            out.push(s);
        }
        Ok(MVal::Scalars(out))
    }

    /// The f64 GLSL operations of the subset, element by element: `fabs` clears the high
    /// word's sign bit, `fma` is `DFMA`.
    fn glsl_f64(
        &mut self,
        g: GlslOp,
        args: &[Operand],
        frame: &Frame,
    ) -> Result<MVal, CompileError> {
        let cols: Vec<Vec<Sc>> = args
            .iter()
            .map(|a| self.scalars(*a, frame))
            .collect::<Result<_, _>>()?;
        let mut out = Vec::new();
        for k in 0..cols[0].len() / 2 {
            let e: Vec<&[Sc]> = cols.iter().map(|c| &c[2 * k..2 * k + 2]).collect();
            if g == GlslOp::FAbs {
                let hi = self.sign_bit_op(e[0][1], LUT_AND)?;
                out.extend([e[0][0], hi]);
            } else {
                out.extend(self.dfma(e[0], e[1], e[2])?);
            }
        }
        Ok(MVal::Scalars(out))
    }
}
