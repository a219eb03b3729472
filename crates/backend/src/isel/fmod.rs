//! `frem` and `fmod` of f32 (and f16, through f32) as the reference computes them: the
//! exact remainder `a % b` in binary64 (the dividend's sign), and for `fmod` the divisor
//! added once (rounded) where a non-zero remainder's sign differs from the divisor's.
//!
//! The exact remainder of f32 values: with `A = MA 2^(eA - 23)` and `B = MB 2^(eB - 23)`
//! (24-bit integer significands), `A % B = 2^(eB - 23) ((MA 2^D) mod MB)`, `D = eA - eB`
//! (at most 276). The residue is reduced 29 bits of `D` at a time, straight-line: `x = R
//! 2^k` is below 2^53, so exact in f64; `q = trunc(x / MB)` comes from a reciprocal of
//! `MB` (ptxas's division fast path on `MB 2^-23`) and may be one off, `x - q MB` (`DFMA`,
//! exact) is brought into [0, MB) by one `MB` added or subtracted. Ten steps cover every
//! `D` (steps past `D` shift by 0 and leave `R`). f64 remainders are refused: their
//! 53-bit significands leave no room for the shift.

use tangle_ir::PlainOp;
use tangle_sass::Op;

use super::ops::{LUT_AND, LUT_OR};
use super::Isel;
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd, RegClass, VReg};

impl Isel<'_> {
    /// `x % y` (`op` `FRem`) or GLSL's `mod` (`FMod`) of two f32 values widened to f64
    /// pairs; the f64 result, to be rounded once to f32.
    pub(crate) fn fmod_f32(&mut self, op: PlainOp, x: VReg, y: VReg) -> Result<VReg, CompileError> {
        let xlo = self.word(x, 0);
        let xhi = self.word(x, 1);
        let ylo = self.word(y, 0);
        let yhi = self.word(y, 1);
        let axh = self.lop_k(xhi, 0x7fff_ffff, LUT_AND)?;
        let ayh = self.lop_k(yhi, 0x7fff_ffff, LUT_AND)?;
        let ax = self.pair(xlo, axh);
        let ay = self.pair(ylo, ayh);
        // Exponents (every f32 is a normal f64) and the 24-bit integer significands.
        let ea = self.field(axh, 20, 0x7ff)?;
        let eb = self.field(ayh, 20, 0x7ff)?;
        let k23 = self.reg_k(1023 + 23)?;
        let sa = self.iadd(k23, MOpnd::neg(ea));
        let sb = self.iadd(k23, MOpnd::neg(eb));
        let pa = self.pow2(sa, 1023)?;
        let pb = self.pow2(sb, 1023)?;
        let ma = self.dmul(MOpnd::use_(ax), pa);
        let mb = self.dmul(MOpnd::use_(ay), pb);
        let d = self.iadd(ea, MOpnd::neg(eb));
        // R0 = MA mod MB (MA < 2 MB).
        let ge = self.dsetp(".GE", ma, mb);
        let less = self.dadd(ma, MOpnd::neg(mb));
        let mut r = self.dsel(less, ma, ge);
        // 1 / MB: the fast path's quotient 1 / (MB 2^-23), times 2^-23.
        let m23 = self.dconst(2f64.powi(-23))?;
        let mbn = self.dmul(MOpnd::use_(mb), m23);
        let one = self.dconst(1.0)?;
        let inv = self.ddiv_1_2(one, mbn)?;
        let inv = self.dmul(MOpnd::use_(inv), m23);
        let zero = self.reg_k(0)?;
        let k29 = self.reg_k(29)?;
        let dz = self.dconst(0.0)?;
        for i in 0..10u32 {
            // k = clamp(D - 29 i, 0, 29)
            let off = self.reg_k((29 * i).wrapping_neg())?;
            let t = self.iadd(d, MOpnd::use_(off));
            let t = self.imnmx(t, zero, false);
            let k = self.imnmx(t, k29, true);
            let p = self.pow2(k, 1023)?;
            let xs = self.dmul(MOpnd::use_(r), p);
            let qf = self.dmul(MOpnd::use_(xs), inv);
            let q = self.mf.vreg(RegClass::R, 2);
            self.emit(MInst::new(Op::Frnd).m(".F64").m(".TRUNC").d(q).u(qf));
            let rem = self.dfma_regs(MOpnd::neg(mb), q, xs);
            let neg = self.dsetp(".LT", rem, dz);
            let up = self.dadd(rem, MOpnd::use_(mb));
            let rem = self.dsel(up, rem, neg);
            let big = self.dsetp(".GE", rem, mb);
            let down = self.dadd(rem, MOpnd::neg(mb));
            r = self.dsel(down, rem, big);
        }
        // A % B = R 2^(eB - 1023 - 23) (exact), or A itself where D < 0 (A < B).
        let kb = self.reg_k(1023 + 23)?;
        let nb = self.iadd(eb, MOpnd::neg(kb));
        let pr = self.pow2(nb, 1023)?;
        let rr = self.dmul(MOpnd::use_(r), pr);
        let small = self.p();
        self.emit(
            MInst::new(Op::Isetp)
                .m(".LT")
                .m(".AND")
                .d(small)
                .f(tangle_sass::typed::PT)
                .u(d)
                .f(tangle_sass::typed::RZ)
                .f(tangle_sass::typed::PT),
        );
        let mag = self.dsel(ax, rr, small);
        // The dividend's sign.
        let sign = self.lop_k(xhi, 0x8000_0000, LUT_AND)?;
        let mlo = self.word(mag, 0);
        let mhi = self.word(mag, 1);
        let shi = self.r();
        self.emit(super::ops::lop3r(shi, mhi, sign, LUT_OR));
        let mut out = self.pair(mlo, shi);
        if op == PlainOp::FMod {
            // r + b where r != 0 and (r < 0) != (b < 0).
            let nz = self.dsetp(".NE", out, dz);
            let rn = self.dsetp(".LT", out, dz);
            let bn = self.dsetp(".LT", y, dz);
            let differ = self.p();
            self.emit(
                MInst::new(Op::Plop3)
                    .m(".LUT")
                    .d(differ)
                    .f(tangle_sass::typed::PT)
                    .u(rn)
                    .u(bn)
                    .f(tangle_sass::typed::PT)
                    .imm(0x3c)
                    .imm(0),
            );
            let adj = self.pand(nz, differ);
            let moved = self.dadd(out, MOpnd::use_(y));
            out = self.dsel(moved, out, adj);
        }
        // x infinite, y zero, or a NaN: NaN; y infinite (x finite): the steps above give
        // x (then x + y for fmod), as the reference's do.
        let inf = self.dconst(f64::INFINITY)?;
        let x_inf = self.dsetp(".EQ", ax, inf);
        let y_zero = self.dsetp(".EQ", ay, dz);
        let x_nan = self.dsetp(".NAN", x, x);
        let y_nan = self.dsetp(".NAN", y, y);
        let nan = self.por(&[x_inf, y_zero, x_nan, y_nan]);
        let qnan = self.dconst(f64::from_bits(0x7ff8_0000_0000_0000))?;
        Ok(self.dsel(qnan, out, nan))
    }
}
