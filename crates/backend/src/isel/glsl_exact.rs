//! GLSL.std.450 functions the reference defines by exact or short IEEE steps in binary64:
//! `floor`, `ceil`, `trunc`, `roundEven`, `round` (halves away from zero), `fract`,
//! `fsign`, `step`, `mix`, `smoothstep`, `radians`, `degrees`, `cross`, `reflect`, on
//! f16, f32 and f64. As in `glsl_float.rs`, each step is done in f64 as the reference
//! writes it (`FRND.F64` for the roundings, `DMUL`/`DADD` in its order, the division of
//! `ddiv.rs`) and the result rounded once to the width, so it equals the reference's
//! bit for bit (NaN bits aside).

use tangle_ir::glsl::GlslOp;
use tangle_ir::{Func, Operand};
use tangle_sass::Op;

use super::ops::{LUT_AND, LUT_OR};
use super::{Frame, Isel, MVal};
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd, RegClass, VReg};

/// Whether [`Isel::glsl_exact`] selects `g`.
pub(crate) fn is_glsl_exact(g: GlslOp) -> bool {
    use GlslOp as G;
    matches!(
        g,
        G::Floor
            | G::Ceil
            | G::Trunc
            | G::RoundEven
            | G::Round
            | G::Fract
            | G::FSign
            | G::Step
            | G::FMix
            | G::SmoothStep
            | G::Radians
            | G::Degrees
            | G::Cross
            | G::Reflect
    )
}

impl Isel<'_> {
    /// A function of [`is_glsl_exact`], component by component (`cross` and `reflect`
    /// over the vectors).
    pub(crate) fn glsl_exact(
        &mut self,
        g: GlslOp,
        args: &[Operand],
        func: Func,
        frame: &Frame,
    ) -> Result<MVal, CompileError> {
        use GlslOp as G;
        let (bits, w, cols) = self.float_columns(g, args, func, frame)?;
        let mut vecs: Vec<Vec<VReg>> = Vec::new();
        for c in &cols {
            let v = c
                .chunks(w)
                .map(|e| self.widen64(e, bits))
                .collect::<Result<Vec<_>, _>>()?;
            vecs.push(v);
        }
        let n = vecs.iter().map(|v| v.len()).max().unwrap_or(0);
        let results: Vec<VReg> = match g {
            G::Cross => {
                let (a, b) = (&vecs[0], &vecs[1]);
                let mut out = Vec::new();
                for (i, j) in [(1, 2), (2, 0), (0, 1)] {
                    // a[i] * b[j] - b[i] * a[j]
                    let p = self.dmul(MOpnd::use_(a[i]), b[j]);
                    let q = self.dmul(MOpnd::use_(b[i]), a[j]);
                    out.push(self.dadd(p, MOpnd::neg(q)));
                }
                out
            }
            G::Reflect => {
                // i - 2 d n with d the dot product, summed in component order.
                let (iv, nv) = (vecs[0].clone(), vecs[1].clone());
                let mut d: Option<VReg> = None;
                for (x, y) in iv.iter().zip(&nv) {
                    let p = self.dmul(MOpnd::use_(*x), *y);
                    d = Some(match d {
                        None => p,
                        Some(s) => self.dadd(s, MOpnd::use_(p)),
                    });
                }
                let two = self.dconst(2.0)?;
                let d2 = self.dmul(MOpnd::use_(two), d.expect("a vector has a component"));
                let mut out = Vec::new();
                for (x, y) in iv.iter().zip(&nv) {
                    let t = self.dmul(MOpnd::use_(d2), *y);
                    out.push(self.dadd(*x, MOpnd::neg(t)));
                }
                out
            }
            _ => {
                let mut out = Vec::new();
                for k in 0..n {
                    let a: Vec<VReg> = vecs
                        .iter()
                        .map(|v| if v.len() == 1 { v[0] } else { v[k] })
                        .collect();
                    out.push(self.exact_elem(g, &a)?);
                }
                out
            }
        };
        let mut out = Vec::new();
        for r in results {
            out.extend(self.narrow64(r, bits)?);
        }
        Ok(MVal::Scalars(out))
    }

    /// One component, in f64.
    fn exact_elem(&mut self, g: GlslOp, a: &[VReg]) -> Result<VReg, CompileError> {
        use GlslOp as G;
        let x = a[0];
        Ok(match g {
            G::Floor => self.frnd(x, Some(".FLOOR")),
            G::Ceil => self.frnd(x, Some(".CEIL")),
            G::Trunc => self.frnd(x, Some(".TRUNC")),
            G::RoundEven => self.frnd(x, None),
            G::Round => {
                // trunc(x), and one more away from zero where |x - trunc(x)| >= 1/2.
                let t = self.frnd(x, Some(".TRUNC"));
                let diff = self.dadd(x, MOpnd::neg(t));
                let dlo = self.word(diff, 0);
                let dhi = self.word(diff, 1);
                let ahi = self.lop_k(dhi, 0x7fff_ffff, LUT_AND)?;
                let ad = self.pair(dlo, ahi);
                let half = self.dconst(0.5)?;
                let up = self.dsetp(".GE", ad, half);
                let xhi = self.word(x, 1);
                let sign = self.lop_k(xhi, 0x8000_0000, LUT_AND)?;
                let one_hi = self.lop_k(sign, 0x3ff0_0000, LUT_OR)?;
                let zero = self.reg_k(0)?;
                let one = self.pair(zero, one_hi);
                let moved = self.dadd(t, MOpnd::use_(one));
                self.dsel(moved, t, up)
            }
            G::Fract => {
                let f = self.frnd(x, Some(".FLOOR"));
                self.dadd(x, MOpnd::neg(f))
            }
            G::FSign => {
                // 1 where x > 0, -1 where x < 0, else x (zeros keep their sign).
                let zero = self.dconst(0.0)?;
                let pos = self.dsetp(".GT", x, zero);
                let neg = self.dsetp(".LT", x, zero);
                let one = self.dconst(1.0)?;
                let minus = self.dconst(-1.0)?;
                let r = self.dsel(minus, x, neg);
                self.dsel(one, r, pos)
            }
            G::Step => {
                // step(edge, x): 0 where x < edge, else 1.
                let below = self.dsetp(".LT", a[1], x);
                let zero = self.dconst(0.0)?;
                let one = self.dconst(1.0)?;
                self.dsel(zero, one, below)
            }
            G::FMix => {
                // x (1 - a) + y a
                let one = self.dconst(1.0)?;
                let t = self.dadd(one, MOpnd::neg(a[2]));
                let p = self.dmul(MOpnd::use_(x), t);
                let q = self.dmul(MOpnd::use_(a[1]), a[2]);
                self.dadd(p, MOpnd::use_(q))
            }
            G::SmoothStep => {
                // t = clamp((x - e0) / (e1 - e0), 0, 1); t t (3 - 2 t)
                let (e0, e1, v) = (a[0], a[1], a[2]);
                let num = self.dadd(v, MOpnd::neg(e0));
                let den = self.dadd(e1, MOpnd::neg(e0));
                let q = self.ddiv(num, den)?;
                let zero = self.dconst(0.0)?;
                let one = self.dconst(1.0)?;
                let lt = self.dsetp(".LT", q, zero);
                let gt = self.dsetp(".GT", q, one);
                let t = self.dsel(zero, q, lt);
                let t = self.dsel(one, t, gt);
                let tt = self.dmul(MOpnd::use_(t), t);
                let two = self.dconst(2.0)?;
                let t2 = self.dmul(MOpnd::use_(two), t);
                let three = self.dconst(3.0)?;
                let s = self.dadd(three, MOpnd::neg(t2));
                self.dmul(MOpnd::use_(tt), s)
            }
            G::Radians => {
                let k = self.dconst(1f64.to_radians())?;
                self.dmul(MOpnd::use_(x), k)
            }
            _ => {
                let k = self.dconst(1f64.to_degrees())?;
                self.dmul(MOpnd::use_(x), k)
            }
        })
    }

    /// `FRND.F64[.mode]`.
    fn frnd(&mut self, x: VReg, mode: Option<&'static str>) -> VReg {
        let d = self.mf.vreg(RegClass::R, 2);
        let i = MInst::new(Op::Frnd).m(".F64");
        let i = match mode {
            Some(m) => i.m(m),
            None => i,
        };
        self.emit(i.d(d).u(x));
        d
    }
}
