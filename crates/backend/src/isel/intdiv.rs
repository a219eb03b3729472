//! Integer division: unsigned by restoring long division unrolled over 32 bits (no
//! branch, so no divergence to manage), signed through the magnitudes, and division by a
//! constant (a shift for powers of two).

use tangle_ir::PlainOp;
use tangle_sass::typed::{PT, RZ};
use tangle_sass::Op;

use super::ops::{lop3r, LUT_AND, LUT_XOR};
use super::{Isel, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd, VReg};

impl Isel<'_> {
    /// Unsigned division and remainder by restoring long division, unrolled over the 32
    /// bits (straight-line code: no branch, so no divergence to manage). A zero divisor
    /// gives some value, as Vulkan leaves it undefined.
    pub(crate) fn udivmod(&mut self, n: Sc, dv: Sc) -> Result<(VReg, VReg), CompileError> {
        let n = self.reg(n)?;
        let dv = self.reg(dv)?;
        let one = self.reg(Sc::Imm(1))?;
        let mut q = self.reg(Sc::Imm(0))?;
        let mut r = self.reg(Sc::Imm(0))?;
        for i in (0..32u32).rev() {
            let ir = self.reg(Sc::Imm(i))?;
            let sh = self.r();
            self.emit(
                MInst::new(Op::Shf)
                    .m(".R")
                    .m(".U32")
                    .m(".HI")
                    .d(sh)
                    .f(RZ)
                    .u(ir)
                    .u(n),
            );
            let bit = self.r();
            self.emit(lop3r(bit, sh, one, LUT_AND));
            let r2 = self.r();
            self.emit(MInst::new(Op::Iadd3).d(r2).u(r).u(r).u(bit));
            let p = self.p();
            self.emit(
                MInst::new(Op::Isetp)
                    .m(".GE")
                    .m(".U32")
                    .m(".AND")
                    .d(p)
                    .f(PT)
                    .u(r2)
                    .u(dv)
                    .f(PT),
            );
            let r3 = self.r();
            self.emit(MInst::new(Op::Iadd3).d(r3).u(r2).o(MOpnd::neg(dv)).f(RZ));
            let rn = self.r();
            self.emit(MInst::new(Op::Sel).d(rn).u(r3).u(r2).u(p));
            let qb = self.r();
            self.emit(MInst::new(Op::Sel).d(qb).u(one).f(RZ).u(p));
            let qn = self.r();
            self.emit(MInst::new(Op::Iadd3).d(qn).u(q).u(q).u(qb));
            q = qn;
            r = rn;
        }
        Ok((q, r))
    }

    /// `n / k` for a constant `k` (a shift for powers of two).
    pub(crate) fn udiv_by(&mut self, n: Sc, k: u32) -> Result<VReg, CompileError> {
        if k.is_power_of_two() {
            let n = self.reg(n)?;
            let sh = self.reg(Sc::Imm(k.trailing_zeros()))?;
            let d = self.r();
            self.emit(
                MInst::new(Op::Shf)
                    .m(".R")
                    .m(".U32")
                    .m(".HI")
                    .d(d)
                    .f(RZ)
                    .u(sh)
                    .u(n),
            );
            return Ok(d);
        }
        Ok(self.udivmod(n, Sc::Imm(k))?.0)
    }

    /// `(x ^ s) - s`: `x` negated where the mask `s` is all ones.
    fn apply_sign(&mut self, x: VReg, s: VReg) -> VReg {
        let t = self.r();
        self.emit(lop3r(t, x, s, LUT_XOR));
        let d = self.r();
        self.emit(MInst::new(Op::Iadd3).d(d).u(t).o(MOpnd::neg(s)).f(RZ));
        d
    }

    /// The sign mask of `x` (all ones when negative).
    fn sign_mask(&mut self, x: VReg) -> Result<VReg, CompileError> {
        let k = self.reg(Sc::Imm(31))?;
        let d = self.r();
        self.emit(
            MInst::new(Op::Shf)
                .m(".R")
                .m(".S32")
                .m(".HI")
                .d(d)
                .f(RZ)
                .u(k)
                .u(x),
        );
        Ok(d)
    }

    /// Signed division (rounding to zero), remainder (the dividend's sign) and modulo (the
    /// divisor's sign), through the unsigned division of the magnitudes.
    pub(crate) fn signed_div(&mut self, op: PlainOp, a: Sc, b: Sc) -> Result<VReg, CompileError> {
        let a = self.reg(a)?;
        let b = self.reg(b)?;
        let sa = self.sign_mask(a)?;
        let sb = self.sign_mask(b)?;
        let ua = self.apply_sign(a, sa);
        let ub = self.apply_sign(b, sb);
        let (q, r) = self.udivmod(Sc::R(ua), Sc::R(ub))?;
        if op == PlainOp::SDiv {
            let s = self.r();
            self.emit(lop3r(s, sa, sb, LUT_XOR));
            return Ok(self.apply_sign(q, s));
        }
        let rem = self.apply_sign(r, sa);
        if op == PlainOp::SRem {
            return Ok(rem);
        }
        // Modulo: a non-zero remainder whose sign differs from the divisor's moves by it.
        let nz = self.p();
        self.emit(
            MInst::new(Op::Isetp)
                .m(".NE")
                .m(".U32")
                .m(".AND")
                .d(nz)
                .f(PT)
                .u(rem)
                .f(RZ)
                .f(PT),
        );
        let x = self.r();
        self.emit(lop3r(x, rem, b, LUT_XOR));
        let differ = self.p();
        self.emit(
            MInst::new(Op::Isetp)
                .m(".LT")
                .m(".AND")
                .d(differ)
                .f(PT)
                .u(x)
                .f(RZ)
                .u(nz),
        );
        let moved = self.r();
        self.emit(MInst::new(Op::Iadd3).d(moved).u(rem).u(b).f(RZ));
        let d = self.r();
        self.emit(MInst::new(Op::Sel).d(d).u(moved).u(rem).u(differ));
        Ok(d)
    }
}
