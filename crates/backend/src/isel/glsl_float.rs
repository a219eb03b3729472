//! GLSL.std.450 float functions on f16, f32 and f64: `sqrt`, `inversesqrt`, `length`,
//! `distance`, `normalize`, `fmin`/`fmax`/`nmin`/`nmax`, `fclamp`/`nclamp`.
//!
//! The reference evaluates these in f64 and rounds the result once to the operand's
//! width (`crates/lanes/src/value/glsl_std.rs`); every step it takes is an IEEE
//! operation (products, sums, `sqrt`, a division), so doing the same steps correctly
//! rounded in f64 ([`Isel::dsqrt`], [`Isel::ddiv`], `DMUL`, `DADD`) and rounding once with
//! `F2F` gives its bits exactly, on every input: no tolerance is needed in the
//! comparison (and `sqrt` is the correctly rounded root at every width). Min and max pick the other operand of a NaN, as the
//! reference does; which zero `min(-0, +0)` gives is the host's choice there.

use tangle_ir::glsl::GlslOp;
use tangle_ir::{Func, Operand};
use tangle_sass::typed::{Operand as SOperand, PT};
use tangle_sass::Op;

use super::{Frame, Isel, MVal, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd, VReg};

/// Whether [`Isel::glsl_float`] selects `g`.
pub(crate) fn is_glsl_float(g: GlslOp) -> bool {
    use GlslOp as G;
    matches!(
        g,
        G::Sqrt
            | G::InverseSqrt
            | G::Length
            | G::Distance
            | G::Normalize
            | G::FMin
            | G::FMax
            | G::NMin
            | G::NMax
            | G::FClamp
            | G::NClamp
    )
}

impl Isel<'_> {
    /// A float GLSL.std.450 function of [`is_glsl_float`], component by component (or
    /// over the whole vector for `length`, `distance` and `normalize`).
    pub(crate) fn glsl_float(
        &mut self,
        g: GlslOp,
        args: &[Operand],
        func: Func,
        frame: &Frame,
    ) -> Result<MVal, CompileError> {
        use GlslOp as G;
        let (bits, w, cols) = self.float_columns(g, args, func, frame)?;
        let elems: Vec<Vec<&[Sc]>> = cols.iter().map(|c| c.chunks(w).collect()).collect();
        let n = elems[0].len();
        let mut out = Vec::new();
        match g {
            G::Length | G::Distance | G::Normalize => {
                let xs: Vec<VReg> = (0..n)
                    .map(|k| {
                        let x = self.widen64(elems[0][k], bits)?;
                        if g != G::Distance {
                            return Ok(x);
                        }
                        let y = self.widen64(elems[1][k], bits)?;
                        Ok(self.dadd(x, MOpnd::neg(y)))
                    })
                    .collect::<Result<_, CompileError>>()?;
                let mut sum: Option<VReg> = None;
                for &x in &xs {
                    let sq = self.dmul(MOpnd::use_(x), x);
                    sum = Some(match sum {
                        None => sq,
                        Some(s) => self.dadd(s, MOpnd::use_(sq)),
                    });
                }
                let len = self.dsqrt(sum.expect("a vector has a component"))?;
                if g == G::Normalize {
                    for &x in &xs {
                        let q = self.ddiv(x, len)?;
                        out.extend(self.narrow64(q, bits)?);
                    }
                } else {
                    out.extend(self.narrow64(len, bits)?);
                }
            }
            _ => {
                for k in 0..n {
                    let a: Vec<&[Sc]> = elems
                        .iter()
                        .map(|e| if e.len() == 1 { e[0] } else { e[k] })
                        .collect();
                    out.extend(self.glsl_float_elem(g, &a, bits)?);
                }
            }
        }
        Ok(MVal::Scalars(out))
    }

    /// One component of a component-wise float function.
    fn glsl_float_elem(
        &mut self,
        g: GlslOp,
        a: &[&[Sc]],
        bits: u32,
    ) -> Result<Vec<Sc>, CompileError> {
        use GlslOp as G;
        match g {
            G::Sqrt => {
                let x = self.widen64(a[0], bits)?;
                let r = self.dsqrt(x)?;
                self.narrow64(r, bits)
            }
            G::InverseSqrt => {
                let x = self.widen64(a[0], bits)?;
                let s = self.dsqrt(x)?;
                let one = self.dconst(1.0)?;
                let q = self.ddiv(one, s)?;
                self.narrow64(q, bits)
            }
            G::FMin | G::NMin | G::FMax | G::NMax => {
                let min = matches!(g, G::FMin | G::NMin);
                self.fminmax(a[0], a[1], bits, min)
            }
            _ => {
                // clamp(x, lo, hi) = min(max(x, lo), hi), as the reference computes it.
                let m = self.fminmax(a[0], a[1], bits, false)?;
                self.fminmax(&m, a[2], bits, true)
            }
        }
    }

    /// `min(x, y)` (or `max`): a NaN operand gives the other one.
    fn fminmax(
        &mut self,
        x: &[Sc],
        y: &[Sc],
        bits: u32,
        min: bool,
    ) -> Result<Vec<Sc>, CompileError> {
        if bits == 64 {
            // x where x < y (x > y for max) or y is NaN, else y.
            let xd = self.pack(x[0], x[1])?;
            let yd = self.pack(y[0], y[1])?;
            let before = self.dsetp(if min { ".LT" } else { ".GT" }, xd, yd);
            let y_nan = self.dsetp(".NAN", yd, yd);
            let pick_x = self.por(&[before, y_nan]);
            let d = self.dsel(xd, yd, pick_x);
            return Ok(self.unpack(d).to_vec());
        }
        let xf = self.widen32(x[0], bits)?;
        let yf = self.widen32(y[0], bits)?;
        let d = self.r();
        let sel = if min {
            SOperand::from(PT)
        } else {
            !SOperand::from(PT)
        };
        self.emit(MInst::new(Op::Fmnmx).d(d).u(xf).u(yf).f(sel));
        self.narrow32(d, bits)
    }

    /// An f16 or f32 scalar as an f32 register (`F2F.F32.F16`, exact).
    pub(crate) fn widen32(&mut self, x: Sc, bits: u32) -> Result<VReg, CompileError> {
        let x = self.reg(x)?;
        if bits == 32 {
            return Ok(x);
        }
        let d = self.r();
        self.emit(MInst::new(Op::F2f).m(".F32").m(".F16").d(d).u(x));
        Ok(d)
    }

    /// An f32 register as a scalar of width `bits` (16: rounded by `F2F.F16.F32`).
    pub(crate) fn narrow32(&mut self, x: VReg, bits: u32) -> Result<Vec<Sc>, CompileError> {
        if bits == 32 {
            return Ok(vec![Sc::R(x)]);
        }
        let d = self.r();
        self.emit(MInst::new(Op::F2f).m(".F16").m(".F32").d(d).u(x));
        Ok(vec![Sc::R(d)])
    }

    /// The operands of a float GLSL function, component words per operand, with their
    /// width (16, 32 or 64 bits; others refused) and the words per component.
    pub(crate) fn float_columns(
        &mut self,
        g: GlslOp,
        args: &[Operand],
        func: Func,
        frame: &Frame,
    ) -> Result<(u32, usize, Vec<Vec<Sc>>), CompileError> {
        let bits = self.operand_bits(func, args[0]);
        if !matches!(bits, 16 | 32 | 64) {
            return Err(self.unsupported(format!("glsl {} on {bits}-bit values", g.name())));
        }
        let cols = args
            .iter()
            .map(|a| self.scalars(*a, frame))
            .collect::<Result<_, _>>()?;
        Ok((bits, if bits == 64 { 2 } else { 1 }, cols))
    }

    /// A float element of width `bits` as an f64 pair (`F2F.F64`, exact).
    pub(crate) fn widen64(&mut self, e: &[Sc], bits: u32) -> Result<VReg, CompileError> {
        if bits == 64 {
            return self.pack(e[0], e[1]);
        }
        let x = self.reg(e[0])?;
        let d = self.mf.vreg(crate::mir::RegClass::R, 2);
        let from = if bits == 16 { ".F16" } else { ".F32" };
        self.emit(MInst::new(Op::F2f).m(".F64").m(from).d(d).u(x));
        Ok(d)
    }

    /// An f64 pair rounded once to a float of width `bits`.
    pub(crate) fn narrow64(&mut self, x: VReg, bits: u32) -> Result<Vec<Sc>, CompileError> {
        if bits == 64 {
            return Ok(self.unpack(x).to_vec());
        }
        let d = self.r();
        let to = if bits == 16 { ".F16" } else { ".F32" };
        self.emit(MInst::new(Op::F2f).m(to).m(".F64").d(d).u(x));
        Ok(vec![Sc::R(d)])
    }
}
