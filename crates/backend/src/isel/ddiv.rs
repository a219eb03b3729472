//! Double-precision division, correctly rounded over the whole range.
//!
//! Both magnitudes are scaled to [1, 2) (subnormals by 2^64 first), so their quotient
//! `q` is computed by ptxas's `div.rn.f64` fast path (`MUFU.RCP64H` seed, a cubic and a
//! Newton step on the reciprocal, the quotient corrected by its residual) where nothing
//! can overflow or underflow, and `q` is the correctly rounded quotient of the scaled
//! operands. The exponent difference `E` is then applied in two multiplications, the
//! first exact (`2^(E/2)`), the second rounding once (`2^(E - E/2)`), which gives IEEE's
//! result for a normal or overflowing quotient. A subnormal quotient rounds `q` a second
//! time, wrong only where `q` lies exactly halfway between two subnormals while the exact
//! quotient does not: that case is found (the rounding error equals half a subnormal
//! step) and `q` moved one unit towards the exact quotient (the residual's sign) before
//! the rounding multiplication, which then rounds the way the exact quotient does (the
//! moved value lies strictly between the halfway point and the next subnormal, or on
//! it when only one bit is lost). Zeros, infinities and NaN take IEEE's table (`SEL`),
//! as in [`super::fdiv`]. Straight-line code: no branch, no divergence.

use tangle_sass::Op;

use super::ops::{LUT_AND, LUT_OR, LUT_XOR};
use super::{Isel, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd, VReg};

impl Isel<'_> {
    /// `a / b` on f64 pairs, correctly rounded.
    pub(crate) fn ddiv(&mut self, a: VReg, b: VReg) -> Result<VReg, CompileError> {
        let alo = self.word(a, 0);
        let ahi = self.word(a, 1);
        let blo = self.word(b, 0);
        let bhi = self.word(b, 1);
        let aah = self.lop_k(ahi, 0x7fff_ffff, LUT_AND)?;
        let abh = self.lop_k(bhi, 0x7fff_ffff, LUT_AND)?;
        let am = self.pair(alo, aah);
        let bm = self.pair(blo, abh);
        let (an, ea) = self.dnorm(am, aah)?;
        let (bn, eb) = self.dnorm(bm, abh)?;
        let q = self.ddiv_1_2(an, bn)?;
        let rem = self.dfma_regs(MOpnd::neg(bn), q, an);
        // E = ea - eb, clamped to where the quotient is surely zero or infinite.
        let e = self.iadd(ea, MOpnd::neg(eb));
        let lo_k = self.reg_k((-1700i32) as u32)?;
        let hi_k = self.reg_k(1700)?;
        let e = self.imnmx(e, lo_k, false);
        let e = self.imnmx(e, hi_k, true);
        let e1 = self.sar(e, 1)?;
        let e2 = self.iadd(e, MOpnd::neg(e1));
        let p1 = self.pow2(e1, 1023)?;
        let p2 = self.pow2(e2, 1023)?;
        let t = self.dscale(q, p1, p2);
        // Halfway between two subnormals: q 2^e1 (exact) less the rounded result scaled
        // back (exact) is half a subnormal step, 2^(-1075 - e2) (its biased exponent
        // -52 - e2, at least 1: where that clamps, the result is normal and the
        // difference 0).
        let q1 = self.dmul(MOpnd::use_(q), p1);
        let z0 = self.zero_reg()?;
        let ne2 = self.iadd(z0, MOpnd::neg(e2));
        let back_s = self.pow2(ne2, 1023)?;
        let back = self.dmul(MOpnd::use_(t), back_s);
        let diff = self.dadd(q1, MOpnd::neg(back));
        let dlo = self.word(diff, 0);
        let dhi = self.word(diff, 1);
        let adh = self.lop_k(dhi, 0x7fff_ffff, LUT_AND)?;
        let adiff = self.pair(dlo, adh);
        let k52 = self.reg_k(52)?;
        let hexp = self.iadd(ne2, MOpnd::neg(k52));
        let one = self.reg_k(1)?;
        let hexp = self.imnmx(hexp, one, false);
        let hhi = self.shl(hexp, 20)?;
        let zero = self.zero_reg()?;
        let h = self.pair(zero, hhi);
        let tie = self.dsetp(".EQ", adiff, h);
        let dz = self.dconst(0.0)?;
        let inexact = self.dsetp(".NE", rem, dz);
        let nudge = self.pand(tie, inexact);
        let up = self.dsetp(".GT", rem, dz);
        let ones = self.reg_k(u32::MAX)?;
        let step_lo = self.sel(one, ones, up);
        let step_hi = self.sel(zero, ones, up);
        let qlo = self.word(q, 0);
        let qhi = self.word(q, 1);
        let [nlo, nhi] = self.add64(
            [Sc::R(qlo), Sc::R(qhi)],
            [Sc::R(step_lo), Sc::R(step_hi)],
            false,
        )?;
        let (nlo, nhi) = (self.reg(nlo)?, self.reg(nhi)?);
        let qn = self.pair(nlo, nhi);
        let tn = self.dscale(qn, p1, p2);
        let t = self.dsel(tn, t, nudge);
        // The sign of a ^ b.
        let xs = self.r();
        self.emit(super::ops::lop3r(xs, ahi, bhi, LUT_XOR));
        let sign = self.lop_k(xs, 0x8000_0000, LUT_AND)?;
        let tlo = self.word(t, 0);
        let thi = self.word(t, 1);
        let shi = self.r();
        self.emit(super::ops::lop3r(shi, thi, sign, LUT_OR));
        let quotient = self.pair(tlo, shi);
        // IEEE's table: a NaN operand gives itself quieted (a's first), inf / inf and
        // 0 / 0 the default NaN; inf / y and x / 0 infinity, x / inf and 0 / y zero, with
        // the sign of a ^ b.
        let a_nan = self.dsetp(".NAN", a, a);
        let b_nan = self.dsetp(".NAN", b, b);
        let inf = self.dconst(f64::INFINITY)?;
        let a_inf = self.dsetp(".EQ", am, inf);
        let b_inf = self.dsetp(".EQ", bm, inf);
        let a_zero = self.dsetp(".EQ", am, dz);
        let b_zero = self.dsetp(".EQ", bm, dz);
        let both_inf = self.pand(a_inf, b_inf);
        let both_zero = self.pand(a_zero, b_zero);
        let invalid = self.por(&[both_inf, both_zero]);
        let to_inf = self.por(&[a_inf, b_zero]);
        let to_zero = self.por(&[b_inf, a_zero]);
        let special = self.por(&[a_nan, b_nan, invalid, to_inf, to_zero]);
        let inf_hi = self.reg_k(0x7ff0_0000)?;
        let mag_hi = self.sel(inf_hi, zero, to_inf);
        let sig_hi = self.r();
        self.emit(super::ops::lop3r(sig_hi, mag_hi, sign, LUT_OR));
        let signed = self.pair(zero, sig_hi);
        let dnan = self.dconst(f64::from_bits(0xfff8_0000_0000_0000))?;
        let table = self.dsel(dnan, signed, invalid);
        let qb = self.quiet(b, blo, bhi)?;
        let table = self.dsel(qb, table, b_nan);
        let qa = self.quiet(a, alo, ahi)?;
        let table = self.dsel(qa, table, a_nan);
        Ok(self.dsel(table, quotient, special))
    }

    /// `x` with its quiet bit set (a NaN stays the same NaN, quieted).
    fn quiet(&mut self, _x: VReg, lo: VReg, hi: VReg) -> Result<VReg, CompileError> {
        let qh = self.lop_k(hi, 0x0008_0000, LUT_OR)?;
        Ok(self.pair(lo, qh))
    }

    /// A positive f64 `x` (high word `hi`) as `m 2^e` with `m` in [1, 2): (m, e).
    /// Subnormals are scaled by 2^64 first (exact). Zero, infinity and NaN give some `m`.
    fn dnorm(&mut self, x: VReg, hi: VReg) -> Result<(VReg, VReg), CompileError> {
        let ex = self.lop_k(hi, 0x7ff0_0000, LUT_AND)?;
        let sub = self.cmp_u(".EQ", ex, 0)?;
        let two64 = self.dconst(2f64.powi(64))?;
        let scaled = self.dmul(MOpnd::use_(x), two64);
        let xs = self.dsel(scaled, x, sub);
        let slo = self.word(xs, 0);
        let shi = self.word(xs, 1);
        let eb = self.field(shi, 20, 0x7ff)?;
        let b_sub = self.reg_k(1023 + 64)?;
        let b_norm = self.reg_k(1023)?;
        let bias = self.sel(b_sub, b_norm, sub);
        let e = self.iadd(eb, MOpnd::neg(bias));
        let frac = self.lop_k(shi, 0x000f_ffff, LUT_AND)?;
        let mhi = self.lop_k(frac, 0x3ff0_0000, LUT_OR)?;
        Ok((self.pair(slo, mhi), e))
    }

    /// ptxas's `div.rn.f64` fast path for `a` and `b` in [1, 2): `r = MUFU.RCP64H(b)` (low
    /// word 1), `e = 1 - b r`, `r += r (e + e^2)`, one Newton step, `q = a r` and
    /// `q + r (a - b q)`.
    pub(crate) fn ddiv_1_2(&mut self, a: VReg, b: VReg) -> Result<VReg, CompileError> {
        let bhi = self.word(b, 1);
        let seed = self.r();
        self.emit(MInst::new(Op::Mufu).m(".RCP64H").d(seed).u(bhi));
        let one_w = self.reg_k(1)?;
        let r0 = self.pair(one_w, seed);
        let one = self.dconst(1.0)?;
        let e = self.dfma_regs(MOpnd::neg(b), r0, one);
        let e2 = self.dfma_regs(MOpnd::use_(e), e, e);
        let r1 = self.dfma_regs(MOpnd::use_(r0), e2, r0);
        let e3 = self.dfma_regs(MOpnd::neg(b), r1, one);
        let r2 = self.dfma_regs(MOpnd::use_(r1), e3, r1);
        let q0 = self.dmul(MOpnd::use_(a), r2);
        let res = self.dfma_regs(MOpnd::neg(b), q0, a);
        Ok(self.dfma_regs(MOpnd::use_(r2), res, q0))
    }

    /// `(q p1) p2`: the first product exact, the second rounding once.
    fn dscale(&mut self, q: VReg, p1: VReg, p2: VReg) -> VReg {
        let q1 = self.dmul(MOpnd::use_(q), p1);
        self.dmul(MOpnd::use_(q1), p2)
    }

    /// The f64 `2^e` (`bias + e` its biased exponent, which must lie in 1..=2046).
    pub(crate) fn pow2(&mut self, e: VReg, bias: u32) -> Result<VReg, CompileError> {
        let b = self.reg_k(bias)?;
        let be = self.iadd(e, MOpnd::use_(b));
        let hi = self.shl(be, 20)?;
        let zero = self.zero_reg()?;
        Ok(self.pair(zero, hi))
    }

    /// A register holding 0.
    fn zero_reg(&mut self) -> Result<VReg, CompileError> {
        self.reg_k(0)
    }

    /// Signed `min(a, b)` (`max` when `max`): `IMNMX`.
    pub(crate) fn imnmx(&mut self, a: VReg, b: VReg, min: bool) -> VReg {
        use tangle_sass::typed::{Operand as SOperand, PT};
        let d = self.r();
        let sel = if min {
            SOperand::from(PT)
        } else {
            !SOperand::from(PT)
        };
        self.emit(MInst::new(Op::Imnmx).d(d).u(a).u(b).f(sel));
        d
    }

    /// `a && b` on predicates.
    pub(crate) fn pand(&mut self, a: VReg, b: VReg) -> VReg {
        use tangle_sass::typed::PT;
        let d = self.p();
        self.emit(
            MInst::new(Op::Plop3)
                .m(".LUT")
                .d(d)
                .f(PT)
                .u(a)
                .u(b)
                .f(PT)
                .imm(0xc0)
                .imm(0),
        );
        d
    }
}
