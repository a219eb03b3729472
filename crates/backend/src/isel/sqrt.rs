//! The correctly rounded f64 square root (ptxas's `sqrt.rn.f64` refinement of
//! `MUFU.RSQ64H` on the operand scaled into [1, 4)), which f16 and f32 roots go through
//! too, plus the pair helpers the double-precision sequences share.
//!
//! Straight-line code: where ptxas branches to a slow path (subnormal and huge operands,
//! zeros, infinities, NaN, negative operands) the operand is scaled or the result chosen
//! by `SEL`, so no divergence is introduced. The seed's last bits do not decide the
//! result: the refinement gives the correctly rounded root for seeds several units of
//! their last place off (`refine_tests.rs`). ptxas's f32 sequence (`MUFU.RSQ`, one FFMA
//! correction) is not used: with a seed one unit off it rounds 5 of the 2^24 operands in
//! [1, 4) wrongly, so its result depends on how the hardware rounds MUFU.RSQ, which the
//! simulator does not model (`docs/backend.md`).

use tangle_sass::typed::{PT, RZ};
use tangle_sass::Op;

use super::ops::{lop3r, LUT_AND, LUT_OR};
use super::{Isel, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd, RegClass, RegRef, VReg};

impl Isel<'_> {
    /// Word `k` (0 low, 1 high) of pair `pair`, copied into a register of its own.
    pub(crate) fn word(&mut self, pair: VReg, k: u8) -> VReg {
        let d = self.r();
        self.emit(MInst::new(Op::Mov).d(d).u(RegRef {
            vreg: pair,
            sub: Some(k),
        }));
        d
    }

    /// A pair of the two registers (low, high).
    pub(crate) fn pair(&mut self, lo: VReg, hi: VReg) -> VReg {
        let d = self.mf.vreg(RegClass::R, 2);
        self.emit(MInst::new(Op::Mov).d(d).u(lo).u(hi));
        d
    }

    /// A pair holding the f64 constant `v`.
    pub(crate) fn dconst(&mut self, v: f64) -> Result<VReg, CompileError> {
        let b = v.to_bits();
        self.pack(Sc::Imm(b as u32), Sc::Imm((b >> 32) as u32))
    }

    /// `DMUL d, a, b`.
    pub(crate) fn dmul(&mut self, a: MOpnd, b: VReg) -> VReg {
        let d = self.mf.vreg(RegClass::R, 2);
        self.emit(MInst::new(Op::Dmul).d(d).o(a).u(b));
        d
    }

    /// `DADD d, a, b`.
    pub(crate) fn dadd(&mut self, a: VReg, b: MOpnd) -> VReg {
        let d = self.mf.vreg(RegClass::R, 2);
        self.emit(MInst::new(Op::Dadd).d(d).u(a).o(b));
        d
    }

    /// `p ? a : b` on pairs, word by word.
    pub(crate) fn dsel(&mut self, a: VReg, b: VReg, p: VReg) -> VReg {
        let w: Vec<VReg> = (0..2)
            .map(|k| {
                let d = self.r();
                let wa = RegRef {
                    vreg: a,
                    sub: Some(k),
                };
                let wb = RegRef {
                    vreg: b,
                    sub: Some(k),
                };
                self.emit(MInst::new(Op::Sel).d(d).u(wa).u(wb).o(MOpnd::use_(p)));
                d
            })
            .collect();
        self.pair(w[0], w[1])
    }

    /// `DSETP.<cmp>.AND p, PT, a, b, PT`.
    pub(crate) fn dsetp(&mut self, cmp: &'static str, a: VReg, b: VReg) -> VReg {
        let p = self.p();
        self.emit(
            MInst::new(Op::Dsetp)
                .m(cmp)
                .m(".AND")
                .d(p)
                .f(PT)
                .u(a)
                .u(b)
                .f(PT),
        );
        p
    }

    /// `IADD3 d, a, b, RZ`.
    pub(crate) fn iadd(&mut self, a: VReg, b: MOpnd) -> VReg {
        let d = self.r();
        self.emit(MInst::new(Op::Iadd3).d(d).u(a).o(b).f(RZ));
        d
    }

    /// `x << k` (`SHF.L.U32`).
    pub(crate) fn shl(&mut self, x: VReg, k: u32) -> Result<VReg, CompileError> {
        let kr = self.reg(Sc::Imm(k))?;
        let d = self.r();
        self.emit(MInst::new(Op::Shf).m(".L").m(".U32").d(d).u(x).u(kr).f(RZ));
        Ok(d)
    }

    /// `x >> k`, arithmetic (`SHF.R.S32.HI`).
    pub(crate) fn sar(&mut self, x: VReg, k: u32) -> Result<VReg, CompileError> {
        let kr = self.reg(Sc::Imm(k))?;
        let d = self.r();
        self.emit(
            MInst::new(Op::Shf)
                .m(".R")
                .m(".S32")
                .m(".HI")
                .d(d)
                .f(RZ)
                .u(kr)
                .u(x),
        );
        Ok(d)
    }

    /// `LOP3` of a register and a constant.
    pub(crate) fn lop_k(&mut self, x: VReg, k: u32, lut: i64) -> Result<VReg, CompileError> {
        let kr = self.reg(Sc::Imm(k))?;
        let d = self.r();
        self.emit(lop3r(d, x, kr, lut));
        Ok(d)
    }

    /// The correctly rounded square root of an f64 pair: the operand (subnormals scaled by
    /// 2^64 first) split as `m 2^2k` with `m` in [1, 4), ptxas's `sqrt.rn.f64` refinement
    /// of `MUFU.RSQ64H` on `m` (its fast path, which covers [1, 4)), and `k` added to the
    /// root's exponent (exact: every root of a positive f64 is normal). Zeros and
    /// +infinity give themselves, a NaN itself quieted (`x + x`), a negative operand the
    /// NaN `0xfff8000000000000`.
    pub(crate) fn dsqrt(&mut self, x: VReg) -> Result<VReg, CompileError> {
        let lo = self.word(x, 0);
        let hi = self.word(x, 1);
        let ex = self.lop_k(hi, 0x7ff0_0000, LUT_AND)?;
        let zero = self.reg(Sc::Imm(0))?;
        let sub = self.ucmp(".EQ", ".AND", ex, zero, None);
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
        let k = self.sar(e, 1)?;
        let two_k = self.r();
        self.emit(MInst::new(Op::Iadd3).d(two_k).u(k).u(k).f(RZ));
        let odd = self.iadd(e, MOpnd::neg(two_k));
        let odd_f = self.shl(odd, 20)?;
        let frac = self.lop_k(shi, 0x000f_ffff, LUT_AND)?;
        let one_exp = self.reg_k(0x3ff0_0000)?;
        let mexp = self.iadd(odd_f, MOpnd::use_(one_exp));
        let mhi = self.r();
        self.emit(lop3r(mhi, frac, mexp, LUT_OR));
        let m = self.pair(slo, mhi);
        let root = self.dsqrt_1_4(m, mhi)?;
        // The root times 2^k: k added to its exponent field.
        let rlo = self.word(root, 0);
        let rhi = self.word(root, 1);
        let kf = self.shl(k, 20)?;
        let nhi = self.iadd(rhi, MOpnd::use_(kf));
        let out = self.pair(rlo, nhi);
        // The special operands: the high word at or above +infinity's (negatives,
        // infinities, NaN) or +0.
        let special = self.cmp_u(".GE", hi, 0x7ff0_0000)?;
        let zhi = self.ucmp(".EQ", ".AND", hi, zero, None);
        let z = self.ucmp(".EQ", ".AND", lo, zero, Some(zhi));
        let special = self.por(&[special, z]);
        let dzero = self.dconst(0.0)?;
        let neg = self.dsetp(".LT", x, dzero);
        let xx = self.dadd(x, MOpnd::use_(x));
        let nan = self.dconst(f64::from_bits(0xfff8_0000_0000_0000))?;
        let sp = self.dsel(nan, xx, neg);
        Ok(self.dsel(sp, out, special))
    }

    /// ptxas's refinement for `m` in [1, 4) (`mhi` its high word): the seed
    /// `r = MUFU.RSQ64H`, `e = 1 - m r^2`, `r' = r + r e (1/2 + 3/8 e)`, `s = m r'`, and
    /// `s + (m - s^2) r' / 2`.
    fn dsqrt_1_4(&mut self, m: VReg, mhi: VReg) -> Result<VReg, CompileError> {
        let seed = self.r();
        self.emit(MInst::new(Op::Mufu).m(".RSQ64H").d(seed).u(mhi));
        let zero = self.reg(Sc::Imm(0))?;
        let r = self.pair(zero, seed);
        let one = self.dconst(1.0)?;
        let c38 = self.dconst(0.375)?;
        let c12 = self.dconst(0.5)?;
        let t = self.dmul(MOpnd::use_(r), r);
        let e = self.dfma_regs_o(MOpnd::use_(m), MOpnd::neg(t), one);
        let h = self.dfma_regs_o(MOpnd::use_(e), MOpnd::use_(c38), c12);
        let u = self.dmul(MOpnd::use_(r), e);
        let r2 = self.dfma_regs_o(MOpnd::use_(h), MOpnd::use_(u), r);
        let s = self.dmul(MOpnd::use_(m), r2);
        let r2lo = self.word(r2, 0);
        let r2hi = self.word(r2, 1);
        let ulp_e = self.reg_k(0x10_0000)?;
        let halfhi = self.iadd(r2hi, MOpnd::neg(ulp_e));
        let r2h = self.pair(r2lo, halfhi);
        let res = self.dfma_regs_o(MOpnd::use_(s), MOpnd::neg(s), m);
        Ok(self.dfma_regs_o(MOpnd::use_(res), MOpnd::use_(r2h), s))
    }

    /// `DFMA d, a, b, c`.
    pub(crate) fn dfma_regs_o(&mut self, a: MOpnd, b: MOpnd, c: VReg) -> VReg {
        let d = self.mf.vreg(RegClass::R, 2);
        self.emit(MInst::new(Op::Dfma).d(d).o(a).o(b).u(c));
        d
    }

    /// A register holding the constant `k`.
    pub(crate) fn reg_k(&mut self, k: u32) -> Result<VReg, CompileError> {
        self.reg(Sc::Imm(k))
    }
}
