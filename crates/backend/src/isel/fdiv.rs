//! Single-precision division, correctly rounded as the reference computes it.
//!
//! The operands are widened to f64 (exact; subnormals become normal), the reciprocal of
//! the divisor is seeded by `MUFU.RCP64H` and refined by two Newton steps (`DFMA`), the
//! quotient is corrected once by its residual, and the f64 quotient is rounded once to
//! f32 (`F2F.F32.F64`). The f64 quotient is within far less than 2^-50 of the exact one,
//! and an exact quotient of two f32 values that is not itself an f64 lies further than
//! that from every f32 rounding boundary, so the one rounding gives IEEE's result,
//! subnormal and overflowing quotients included. Zeros, infinities and NaN operands take
//! the table of IEEE 754 instead (ptxas branches to a slow path there; this code selects).

use tangle_sass::typed::PT;
use tangle_sass::Op;

use super::ops::{lop3r, LUT_AND, LUT_OR, LUT_XOR};
use super::{Isel, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd, RegClass, VReg};

impl Isel<'_> {
    /// `x / y` on f32 scalars.
    pub(crate) fn fdiv32(&mut self, x: Sc, y: Sc) -> Result<Sc, CompileError> {
        let x = self.reg(x)?;
        let y = self.reg(y)?;
        let quotient = self.fdiv_finite(x, y)?;
        // The special operands: either a NaN, or x infinite, or y zero or infinite.
        let mag_m = self.reg(Sc::Imm(0x7fff_ffff))?;
        let ax = self.r();
        self.emit(lop3r(ax, x, mag_m, LUT_AND));
        let ay = self.r();
        self.emit(lop3r(ay, y, mag_m, LUT_AND));
        let inf = self.reg(Sc::Imm(0x7f80_0000))?;
        let zero = self.reg(Sc::Imm(0))?;
        // inf / inf, 0 / 0 and NaN operands are NaN; inf / y and x / 0 are infinite;
        // x / inf and 0 / y are zero; all with the sign of x ^ y. Each class is one
        // predicate built by chained compares, so few are live at once.
        let x_nan = self.ucmp(".GT", ".AND", ax, inf, None);
        let any_nan = self.ucmp(".GT", ".OR", ay, inf, Some(x_nan));
        let x_inf = self.ucmp(".EQ", ".AND", ax, inf, None);
        let both_inf = self.ucmp(".EQ", ".AND", ay, inf, Some(x_inf));
        let x_zero = self.ucmp(".EQ", ".AND", ax, zero, None);
        let both_zero = self.ucmp(".EQ", ".AND", ay, zero, Some(x_zero));
        let nan = self.por(&[any_nan, both_inf, both_zero]);
        let x_inf = self.ucmp(".EQ", ".AND", ax, inf, None);
        let to_inf = self.ucmp(".EQ", ".OR", ay, zero, Some(x_inf));
        // A zero x takes the table too: its quotient's sign would be lost in the residual.
        let y_inf = self.ucmp(".EQ", ".AND", ay, inf, None);
        let zero_or_inf = self.ucmp(".EQ", ".OR", ax, zero, Some(y_inf));
        let special = self.por(&[zero_or_inf, nan, to_inf]);
        let sign_m = self.reg(Sc::Imm(0x8000_0000))?;
        let xy = self.r();
        self.emit(lop3r(xy, x, y, LUT_XOR));
        let sign = self.r();
        self.emit(lop3r(sign, xy, sign_m, LUT_AND));
        let mag = self.sel(inf, zero, to_inf);
        let signed = self.r();
        self.emit(lop3r(signed, mag, sign, LUT_OR));
        let qnan = self.reg(Sc::Imm(0x7fff_ffff))?;
        let table = self.sel(qnan, signed, nan);
        Ok(Sc::R(self.sel(table, quotient, special)))
    }

    /// The quotient of finite `x` and finite non-zero `y` through f64, rounded once.
    fn fdiv_finite(&mut self, x: VReg, y: VReg) -> Result<VReg, CompileError> {
        let xd = self.mf.vreg(RegClass::R, 2);
        self.emit(MInst::new(Op::F2f).m(".F64").m(".F32").d(xd).u(x));
        let yd = self.mf.vreg(RegClass::R, 2);
        self.emit(MInst::new(Op::F2f).m(".F64").m(".F32").d(yd).u(y));
        // The seed: MUFU.RCP64H of the divisor's high word, the low word zero.
        let seed_hi = self.r();
        self.emit(
            MInst::new(Op::Mufu)
                .m(".RCP64H")
                .d(seed_hi)
                .u(crate::mir::RegRef {
                    vreg: yd,
                    sub: Some(1),
                }),
        );
        let mut r = self.pack(Sc::Imm(0), Sc::R(seed_hi))?;
        let one = self.pack(Sc::Imm(0), Sc::Imm(0x3ff0_0000))?;
        // Two Newton steps on the reciprocal: e = 1 - y r, r += r e.
        for _ in 0..2 {
            let e = self.dfma_regs(MOpnd::neg(yd), r, one);
            r = self.dfma_regs(MOpnd::use_(r), e, r);
        }
        // The quotient and one correction by its residual: q += r (x - y q).
        let q = self.mf.vreg(RegClass::R, 2);
        self.emit(MInst::new(Op::Dmul).d(q).u(xd).u(r));
        let res = self.dfma_regs(MOpnd::neg(yd), q, xd);
        let q = self.dfma_regs(MOpnd::use_(r), res, q);
        let d = self.r();
        self.emit(MInst::new(Op::F2f).m(".F32").m(".F64").d(d).u(q));
        Ok(d)
    }

    /// `DFMA d, a, b, c` on pairs.
    pub(crate) fn dfma_regs(&mut self, a: MOpnd, b: VReg, c: VReg) -> VReg {
        let d = self.mf.vreg(RegClass::R, 2);
        self.emit(MInst::new(Op::Dfma).d(d).o(a).u(b).u(c));
        d
    }

    /// An unsigned comparison of two registers, combined (`.AND`/`.OR`) with `with`.
    pub(crate) fn ucmp(
        &mut self,
        cmp: &'static str,
        logic: &'static str,
        a: VReg,
        b: VReg,
        with: Option<VReg>,
    ) -> VReg {
        let p = self.p();
        let c = match with {
            Some(w) => MOpnd::use_(w),
            None => MOpnd::Fixed(PT.into()),
        };
        self.emit(
            MInst::new(Op::Isetp)
                .m(cmp)
                .m(".U32")
                .m(logic)
                .d(p)
                .f(PT)
                .u(a)
                .u(b)
                .o(c),
        );
        p
    }

    /// The disjunction of predicates.
    pub(crate) fn por(&mut self, ps: &[VReg]) -> VReg {
        let mut acc = ps[0];
        for &p in &ps[1..] {
            let d = self.p();
            self.emit(plop3(d, acc, p, 0xfc));
            acc = d;
        }
        acc
    }
}

/// `PLOP3.LUT d, PT, a, b, PT, lut, 0x0`.
fn plop3(d: VReg, a: VReg, b: VReg, lut: i64) -> MInst {
    MInst::new(Op::Plop3)
        .m(".LUT")
        .d(d)
        .f(PT)
        .u(a)
        .u(b)
        .f(PT)
        .imm(lut)
        .imm(0)
}
