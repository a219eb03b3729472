//! 64-bit integer division and remainder: restoring long division unrolled over the 64
//! bits of the dividend, on word pairs (no branch, so no divergence to manage), signed
//! through the magnitudes as the 32-bit division in `intdiv.rs` does. A zero divisor
//! gives some value, as Vulkan leaves it undefined (all ones as the quotient, the
//! dividend as the remainder).

use tangle_ir::PlainOp;
use tangle_sass::typed::{PT, RZ};
use tangle_sass::Op;

use super::ops::{lop3r, LUT_AND, LUT_OR, LUT_XOR};
use super::{Isel, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, VReg};

impl Isel<'_> {
    /// Unsigned 64-bit quotient and remainder of `n / d` (low, high words each).
    pub(crate) fn udivmod64(
        &mut self,
        n: [Sc; 2],
        d: [Sc; 2],
    ) -> Result<([VReg; 2], [VReg; 2]), CompileError> {
        let n = [self.reg(n[0])?, self.reg(n[1])?];
        let d = [self.reg(d[0])?, self.reg(d[1])?];
        let zero = self.reg_k(0)?;
        let one = self.reg_k(1)?;
        let mut r = [zero, zero];
        let mut q = [zero, zero];
        for i in (0..64u32).rev() {
            // bit = (n >> i) & 1
            let word = n[(i / 32) as usize];
            let k = self.reg_k(i % 32)?;
            let sh = self.r();
            self.emit(
                MInst::new(Op::Shf)
                    .m(".R")
                    .m(".U32")
                    .m(".HI")
                    .d(sh)
                    .f(RZ)
                    .u(k)
                    .u(word),
            );
            let bit = self.r();
            self.emit(lop3r(bit, sh, one, LUT_AND));
            // r2 = 2r + bit fits in 64 bits: r never exceeds the dividend's bits above bit
            // i (what has been shifted in), which are below 2^(63 - i).
            let rh = self.r();
            self.emit(
                MInst::new(Op::Shf)
                    .m(".L")
                    .m(".U64")
                    .m(".HI")
                    .d(rh)
                    .u(r[0])
                    .u(one)
                    .u(r[1]),
            );
            let rl = self.r();
            self.emit(MInst::new(Op::Iadd3).d(rl).u(r[0]).u(r[0]).u(bit));
            // r2 >= d: subtract.
            let ge = self.cmp64(
                PlainOp::UGreaterThanEqual,
                [Sc::R(rl), Sc::R(rh)],
                [Sc::R(d[0]), Sc::R(d[1])],
            )?;
            let Sc::P(ge) = ge else {
                return Err(CompileError::Internal(
                    "a comparison without a predicate".into(),
                ));
            };
            let [sl, sh2] = self.add64([Sc::R(rl), Sc::R(rh)], [Sc::R(d[0]), Sc::R(d[1])], true)?;
            let (sl, sh2) = (self.reg(sl)?, self.reg(sh2)?);
            r = [self.sel(sl, rl, ge), self.sel(sh2, rh, ge)];
            // Quotient bit i.
            let qk = self.reg_k(1 << (i % 32))?;
            let qb = self.sel(qk, zero, ge);
            let w = (i / 32) as usize;
            let nq = self.r();
            self.emit(lop3r(nq, q[w], qb, LUT_OR));
            q[w] = nq;
        }
        Ok((q, r))
    }

    /// 64-bit `udiv`, `umod`, `sdiv`, `srem` and `smod` on words.
    pub(crate) fn div64(
        &mut self,
        op: PlainOp,
        a: [Sc; 2],
        b: [Sc; 2],
    ) -> Result<[Sc; 2], CompileError> {
        use PlainOp as P;
        if matches!(op, P::UDiv | P::UMod) {
            let (q, r) = self.udivmod64(a, b)?;
            let v = if op == P::UDiv { q } else { r };
            return Ok([Sc::R(v[0]), Sc::R(v[1])]);
        }
        let a = [self.reg(a[0])?, self.reg(a[1])?];
        let b = [self.reg(b[0])?, self.reg(b[1])?];
        let sa = self.sar(a[1], 31)?;
        let sb = self.sar(b[1], 31)?;
        let ua = self.apply_sign64(a, sa)?;
        let ub = self.apply_sign64(b, sb)?;
        let (q, r) = self.udivmod64(ua.map(Sc::R), ub.map(Sc::R))?;
        if op == P::SDiv {
            let s = self.r();
            self.emit(lop3r(s, sa, sb, LUT_XOR));
            return Ok(self.apply_sign64(q, s)?.map(Sc::R));
        }
        let rem = self.apply_sign64(r, sa)?;
        if op == P::SRem {
            return Ok(rem.map(Sc::R));
        }
        // Modulo: a non-zero remainder whose sign differs from the divisor's moves by it.
        let any = self.r();
        self.emit(lop3r(any, rem[0], rem[1], LUT_OR));
        let nz = self.cmp_u(".NE", any, 0)?;
        let x = self.r();
        self.emit(lop3r(x, rem[1], b[1], LUT_XOR));
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
        let [ml, mh] = self.add64(
            [Sc::R(rem[0]), Sc::R(rem[1])],
            [Sc::R(b[0]), Sc::R(b[1])],
            false,
        )?;
        let (ml, mh) = (self.reg(ml)?, self.reg(mh)?);
        Ok([
            Sc::R(self.sel(ml, rem[0], differ)),
            Sc::R(self.sel(mh, rem[1], differ)),
        ])
    }

    /// `(x ^ s) - s` on a pair of words: `x` negated where the mask `s` is all ones.
    fn apply_sign64(&mut self, x: [VReg; 2], s: VReg) -> Result<[VReg; 2], CompileError> {
        let t0 = self.r();
        self.emit(lop3r(t0, x[0], s, LUT_XOR));
        let t1 = self.r();
        self.emit(lop3r(t1, x[1], s, LUT_XOR));
        let [l, h] = self.add64([Sc::R(t0), Sc::R(t1)], [Sc::R(s), Sc::R(s)], true)?;
        Ok([self.reg(l)?, self.reg(h)?])
    }
}
