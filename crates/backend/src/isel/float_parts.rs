//! The GLSL.std.450 operations that take a float apart or put one together, on f32 (and
//! f16 for `ldexp`): `modf`/`modf_struct` (whole part by masking the fraction bits off,
//! both parts with x's sign, a NaN quieted in both), `frexp`/`frexp_struct` (the exponent field, subnormals scaled
//! by 2^24 first), and `ldexp` (in double precision: x widened exactly, multiplied by 2^e
//! built in the exponent field with e clamped to where every f32 result is 0 or infinite,
//! then rounded once to the result's precision). The out-parameter of `modf`/`frexp` is a
//! pointer, stored through as any store.

use tangle_ir::glsl::GlslOp;
use tangle_ir::{Func, Operand, TypeData};

use tangle_sass::typed::{Operand as SOperand, PT, RZ};
use tangle_sass::Op;

use super::ops::{lop3r, LUT_AND, LUT_OR};
use super::{Frame, Isel, MVal, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd, RegClass, VReg};

/// LOP3 truth tables: `A & ~B` and `A | B`.
const LUT_AND_NOT: i64 = 0x30;

/// The part of `modf`/`frexp`'s result that is stored, and the part that is returned.
struct Split {
    first: Vec<Sc>,
    second: Vec<Sc>,
}

impl Isel<'_> {
    /// `modf`, `modf_struct`, `frexp`, `frexp_struct` and `ldexp`.
    pub(crate) fn float_parts(
        &mut self,
        g: GlslOp,
        args: &[Operand],
        rty: Option<tangle_ir::Type>,
        func: Func,
        frame: &Frame,
    ) -> Result<MVal, CompileError> {
        let bits = self.operand_bits(func, args[0]);
        if g == GlslOp::Ldexp {
            let xs = self.scalars(args[0], frame)?;
            let es = self.scalars(args[1], frame)?;
            let eb = self.operand_bits(func, args[1]);
            let ew = if eb == 64 { 2 } else { 1 };
            let xw = if bits == 64 { 2 } else { 1 };
            let mut out = Vec::new();
            for k in 0..xs.len() / xw {
                let e = &es[k * ew..(k + 1) * ew];
                if bits == 64 {
                    out.extend(self.ldexp64([xs[2 * k], xs[2 * k + 1]], e, eb)?);
                } else {
                    out.push(self.ldexp(xs[k], bits, e, eb)?);
                }
            }
            return Ok(MVal::Scalars(out));
        }
        if bits != 32 {
            return Err(self.unsupported(format!("glsl {} on {bits}-bit floats", g.name())));
        }
        let xs = self.scalars(args[0], frame)?;
        let modf = matches!(g, GlslOp::Modf | GlslOp::ModfStruct);
        // The exponent's type: the pointee of frexp's pointer, or the struct's second member.
        let exp_bits = if modf {
            32
        } else if g == GlslOp::Frexp {
            let p = self.ptr(args[1], frame)?;
            self.module.types.bit_width(p.ty)
        } else {
            rty.map_or(32, |t| self.struct_second_bits(t))
        };
        let mut split = Split {
            first: Vec::new(),
            second: Vec::new(),
        };
        for x in xs {
            let (a, b) = if modf { self.modf(x)? } else { self.frexp(x)? };
            split.first.push(a);
            match exp_bits {
                64 => {
                    let hi = self.sign_of(b)?;
                    split.second.extend([b, hi]);
                }
                32 => split.second.push(b),
                n => split.second.push(self.mask(b, n)?),
            }
        }
        match g {
            GlslOp::Modf | GlslOp::Frexp => {
                let p = self.ptr(args[1], frame)?;
                self.store(&p, &split.second)?;
                Ok(MVal::Scalars(split.first))
            }
            _ => {
                split.first.extend(split.second);
                Ok(MVal::Scalars(split.first))
            }
        }
    }

    /// The struct result type's exponent width of `frexp_struct` (its second member).
    fn struct_second_bits(&self, rty: tangle_ir::Type) -> u32 {
        match self.module.types.get(rty) {
            TypeData::Struct { members, .. } if members.len() == 2 => {
                self.module.types.bit_width(members[1].ty)
            }
            _ => 32,
        }
    }

    /// All ones when the 32-bit `x` is negative.
    fn sign_of(&mut self, x: Sc) -> Result<Sc, CompileError> {
        let x = self.reg(x)?;
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
        Ok(Sc::R(d))
    }

    /// `(x >> sh) & mask` of a register.
    pub(crate) fn field(&mut self, x: VReg, sh: u32, mask: u32) -> Result<VReg, CompileError> {
        let s = self.reg(Sc::Imm(sh))?;
        let t = self.r();
        self.emit(
            MInst::new(Op::Shf)
                .m(".R")
                .m(".U32")
                .m(".HI")
                .d(t)
                .f(RZ)
                .u(s)
                .u(x),
        );
        let m = self.reg(Sc::Imm(mask))?;
        let d = self.r();
        self.emit(lop3r(d, t, m, LUT_AND));
        Ok(d)
    }

    /// An unsigned comparison of a register with a constant.
    pub(crate) fn cmp_u(
        &mut self,
        cmp: &'static str,
        x: VReg,
        k: u32,
    ) -> Result<VReg, CompileError> {
        let kr = self.reg(Sc::Imm(k))?;
        let p = self.p();
        self.emit(
            MInst::new(Op::Isetp)
                .m(cmp)
                .m(".U32")
                .m(".AND")
                .d(p)
                .f(PT)
                .u(x)
                .u(kr)
                .f(PT),
        );
        Ok(p)
    }

    /// `p ? a : b`.
    pub(crate) fn sel(&mut self, a: VReg, b: VReg, p: VReg) -> VReg {
        let d = self.r();
        self.emit(MInst::new(Op::Sel).d(d).u(a).u(b).o(MOpnd::use_(p)));
        d
    }

    /// `modf` of an f32: (fraction, whole part), both with x's sign; an infinity is all
    /// whole part.
    fn modf(&mut self, x: Sc) -> Result<(Sc, Sc), CompileError> {
        let x = self.reg(x)?;
        let sign_m = self.reg(Sc::Imm(0x8000_0000))?;
        let sign = self.r();
        self.emit(lop3r(sign, x, sign_m, LUT_AND));
        // The whole part: the fraction bits below the binary point cleared; |x| < 1 gives
        // a signed zero (SHF clamps the other shifts: exponents past 22 clear nothing).
        let e = self.field(x, 23, 0xff)?;
        let k = self.reg(Sc::Imm(127u32.wrapping_neg()))?;
        let unbiased = self.r();
        self.emit(MInst::new(Op::Iadd3).d(unbiased).u(e).u(k).f(RZ));
        let frac_bits = self.reg(Sc::Imm(0x7f_ffff))?;
        let m = self.r();
        self.emit(
            MInst::new(Op::Shf)
                .m(".R")
                .m(".U32")
                .m(".HI")
                .d(m)
                .f(RZ)
                .u(unbiased)
                .u(frac_bits),
        );
        let cleared = self.r();
        self.emit(lop3r(cleared, x, m, LUT_AND_NOT));
        let small = self.cmp_u(".LT", e, 127)?;
        let whole = self.sel(sign, cleared, small);
        // The fraction: x - whole (exact), with x's sign; zero for an infinity.
        let diff = self.r();
        self.emit(MInst::new(Op::Fadd).d(diff).u(x).o(MOpnd::neg(whole)));
        let mag_m = self.reg(Sc::Imm(0x7fff_ffff))?;
        let mag = self.r();
        self.emit(lop3r(mag, diff, mag_m, LUT_AND));
        let ax = self.r();
        self.emit(lop3r(ax, x, mag_m, LUT_AND));
        let inf = self.cmp_u(".EQ", ax, 0x7f80_0000)?;
        let zero = self.reg(Sc::Imm(0))?;
        let mag = self.sel(zero, mag, inf);
        let frac = self.r();
        self.emit(lop3r(frac, mag, sign, LUT_OR));
        // A NaN gives itself, quieted, as both parts (as the reference's arithmetic on it
        // does: a signalling NaN gets its quiet bit).
        let quiet_bit = self.reg(Sc::Imm(0x0040_0000))?;
        let quiet = self.r();
        self.emit(lop3r(quiet, x, quiet_bit, LUT_OR));
        let nan = self.cmp_u(".GT", ax, 0x7f80_0000)?;
        let frac = self.sel(quiet, frac, nan);
        let whole = self.sel(quiet, whole, nan);
        Ok((Sc::R(frac), Sc::R(whole)))
    }

    /// `frexp` of an f32: (significand in [0.5, 1) with x's sign, exponent); zero,
    /// infinities and NaN give (x, 0).
    fn frexp(&mut self, x: Sc) -> Result<(Sc, Sc), CompileError> {
        let x = self.reg(x)?;
        let mag_m = self.reg(Sc::Imm(0x7fff_ffff))?;
        let ax = self.r();
        self.emit(lop3r(ax, x, mag_m, LUT_AND));
        // A subnormal (or zero) is scaled by 2^24 first, exactly.
        let sub = self.cmp_u(".LT", ax, 0x0080_0000)?;
        let two24 = self.reg(Sc::Imm(0x4b80_0000))?;
        let scaled = self.r();
        self.emit(MInst::new(Op::Fmul).d(scaled).u(x).u(two24));
        let xs = self.sel(scaled, x, sub);
        let e = self.field(xs, 23, 0xff)?;
        let bias_sub = self.reg(Sc::Imm((-126i32 - 24) as u32))?;
        let bias_norm = self.reg(Sc::Imm((-126i32) as u32))?;
        let bias = self.sel(bias_sub, bias_norm, sub);
        let exp = self.r();
        self.emit(MInst::new(Op::Iadd3).d(exp).u(e).u(bias).f(RZ));
        let keep = self.reg(Sc::Imm(0x807f_ffff))?;
        let half = self.reg(Sc::Imm(0x3f00_0000))?;
        let t = self.r();
        self.emit(lop3r(t, xs, keep, LUT_AND));
        let m = self.r();
        self.emit(lop3r(m, t, half, LUT_OR));
        // Zero, infinities and NaN: x itself and exponent 0.
        let zero_p = self.cmp_u(".EQ", ax, 0)?;
        let kr = self.reg(Sc::Imm(0x7f80_0000))?;
        let special = self.p();
        self.emit(
            MInst::new(Op::Isetp)
                .m(".GE")
                .m(".U32")
                .m(".OR")
                .d(special)
                .f(PT)
                .u(ax)
                .u(kr)
                .u(zero_p),
        );
        let m = self.sel(x, m, special);
        let zero = self.reg(Sc::Imm(0))?;
        let exp = self.sel(zero, exp, special);
        Ok((Sc::R(m), Sc::R(exp)))
    }

    /// `ldexp(x, e)` for an f32 or f16 `x` and an integer exponent of `eb` bits (its
    /// words in `e`): exact in f64, rounded once.
    fn ldexp(&mut self, x: Sc, bits: u32, e: &[Sc], eb: u32) -> Result<Sc, CompileError> {
        // The exponent as a 32-bit signed number, clamped to [-400, 400] (past which every
        // f32 or f16 result is 0 or infinite, and inside which 2^e and x * 2^e are normal
        // doubles).
        let c = self.exponent_clamped(e, eb, 400)?;
        // 2^c as a double: the exponent field (c + 1023) << 20 of the high word.
        let bias = self.reg(Sc::Imm(1023))?;
        let biased = self.r();
        self.emit(MInst::new(Op::Iadd3).d(biased).u(c).u(bias).f(RZ));
        let twenty = self.reg(Sc::Imm(20))?;
        let hi = self.r();
        self.emit(
            MInst::new(Op::Shf)
                .m(".L")
                .m(".U32")
                .d(hi)
                .u(biased)
                .u(twenty)
                .f(RZ),
        );
        let pow = self.pack(Sc::Imm(0), Sc::R(hi))?;
        let xr = self.reg(x)?;
        let src = if bits == 16 { ".F16" } else { ".F32" };
        let xd = self.mf.vreg(RegClass::R, 2);
        self.emit(MInst::new(Op::F2f).m(".F64").m(src).d(xd).u(xr));
        let prod = self.mf.vreg(RegClass::R, 2);
        self.emit(MInst::new(Op::Dmul).d(prod).u(xd).u(pow));
        let d = self.r();
        self.emit(MInst::new(Op::F2f).m(src).m(".F64").d(d).u(prod));
        Ok(Sc::R(d))
    }

    /// The exponent `e` (its words, `eb` bits, signed) as a 32-bit number clamped to
    /// [-limit, limit]; a 64-bit one outside the 32-bit range is clamped by its sign.
    fn exponent_clamped(&mut self, e: &[Sc], eb: u32, limit: u32) -> Result<VReg, CompileError> {
        let e32 = match eb {
            64 => {
                let lo = self.reg(e[0])?;
                let hi = self.reg(e[1])?;
                let Sc::R(sign) = self.sign_of(Sc::R(lo))? else {
                    unreachable!("sign_of gives a register")
                };
                let fits = self.p();
                self.emit(
                    MInst::new(Op::Isetp)
                        .m(".EQ")
                        .m(".U32")
                        .m(".AND")
                        .d(fits)
                        .f(PT)
                        .u(hi)
                        .u(sign)
                        .f(PT),
                );
                let neg = self.p();
                self.emit(
                    MInst::new(Op::Isetp)
                        .m(".LT")
                        .m(".AND")
                        .d(neg)
                        .f(PT)
                        .u(hi)
                        .f(RZ)
                        .f(PT),
                );
                let big = self.reg(Sc::Imm(limit))?;
                let small = self.reg(Sc::Imm(limit.wrapping_neg()))?;
                let out = self.sel(small, big, neg);
                self.sel(lo, out, fits)
            }
            32 => self.reg(e[0])?,
            n => {
                let s = self.sext(e[0], n)?;
                self.reg(s)?
            }
        };
        self.clamp_s(e32, limit.wrapping_neg() as i32, limit as i32)
    }

    /// `x` clamped to [lo, hi] (signed): IMNMX max, then min.
    fn clamp_s(&mut self, x: VReg, lo: i32, hi: i32) -> Result<VReg, CompileError> {
        let lo_r = self.reg(Sc::Imm(lo as u32))?;
        let hi_r = self.reg(Sc::Imm(hi as u32))?;
        let c1 = self.r();
        self.emit(
            MInst::new(Op::Imnmx)
                .d(c1)
                .u(x)
                .u(lo_r)
                .f(!SOperand::from(PT)),
        );
        let c = self.r();
        self.emit(MInst::new(Op::Imnmx).d(c).u(c1).u(hi_r).f(PT));
        Ok(c)
    }

    /// 2^t as an f64 pair, for t in [-1022, 1023]: the exponent field (t + 1023) << 20.
    fn pow2_pair(&mut self, t: VReg) -> Result<VReg, CompileError> {
        let bias = self.reg(Sc::Imm(1023))?;
        let biased = self.r();
        self.emit(MInst::new(Op::Iadd3).d(biased).u(t).u(bias).f(RZ));
        let twenty = self.reg(Sc::Imm(20))?;
        let hi = self.r();
        self.emit(
            MInst::new(Op::Shf)
                .m(".L")
                .m(".U32")
                .d(hi)
                .u(biased)
                .u(twenty)
                .f(RZ),
        );
        self.pack(Sc::Imm(0), Sc::R(hi))
    }

    /// `ldexp(x, e)` for an f64 `x`, as the reference computes it: x's significand m
    /// (1 <= |m| < 2; a subnormal x scaled by 2^64 first) times 2^t1 (exact) times 2^t2,
    /// where t1 + t2 is the target exponent and only the second product can round
    /// (t2 = -128 when the result is subnormal, t1 = t2 = -1022 when it is below half the
    /// smallest subnormal, t2 > 0 only to overflow). Zero, infinities and NaN give x.
    fn ldexp64(&mut self, x: [Sc; 2], e: &[Sc], eb: u32) -> Result<Vec<Sc>, CompileError> {
        let e = self.exponent_clamped(e, eb, 2200)?;
        let lo = self.reg(x[0])?;
        let hi = self.reg(x[1])?;
        let mag_m = self.reg(Sc::Imm(0x7fff_ffff))?;
        let ahi = self.r();
        self.emit(lop3r(ahi, hi, mag_m, LUT_AND));
        // A subnormal (exponent field 0) scaled by 2^64, exactly.
        let sub = self.cmp_u(".LT", ahi, 0x0010_0000)?;
        let xp = self.pack(Sc::R(lo), Sc::R(hi))?;
        let two64 = self.pack(Sc::Imm(0), Sc::Imm((1023 + 64) << 20))?;
        let scaled = self.mf.vreg(RegClass::R, 2);
        self.emit(MInst::new(Op::Dmul).d(scaled).u(xp).u(two64));
        let [s_lo, s_hi] = self.unpack(scaled);
        let (Sc::R(s_lo), Sc::R(s_hi)) = (s_lo, s_hi) else {
            unreachable!("unpack gives registers")
        };
        let xl = self.sel(s_lo, lo, sub);
        let xh = self.sel(s_hi, hi, sub);
        let bias_sub = self.reg(Sc::Imm((-1023i32 - 64) as u32))?;
        let bias_norm = self.reg(Sc::Imm((-1023i32) as u32))?;
        let bias = self.sel(bias_sub, bias_norm, sub);
        // target = exponent field + bias + e; m = x with the exponent field of 1.0.
        let field = self.field(xh, 20, 0x7ff)?;
        let target = self.r();
        self.emit(MInst::new(Op::Iadd3).d(target).u(field).u(bias).u(e));
        let keep = self.reg(Sc::Imm(0x800f_ffff))?;
        let one_exp = self.reg(Sc::Imm(0x3ff0_0000))?;
        let t = self.r();
        self.emit(lop3r(t, xh, keep, LUT_AND));
        let mh = self.r();
        self.emit(lop3r(mh, t, one_exp, LUT_OR));
        let m = self.pack(Sc::R(xl), Sc::R(mh))?;
        // t1 = clamp(target + (target < -1022 ? 128 : 0)), t2 = clamp(target - t1).
        let lim = self.reg(Sc::Imm((-1022i32) as u32))?;
        let tiny = self.p();
        self.emit(
            MInst::new(Op::Isetp)
                .m(".LT")
                .m(".AND")
                .d(tiny)
                .f(PT)
                .u(target)
                .u(lim)
                .f(PT),
        );
        let k128 = self.reg(Sc::Imm(128))?;
        let zero = self.reg(Sc::Imm(0))?;
        let s = self.sel(k128, zero, tiny);
        let ts = self.r();
        self.emit(MInst::new(Op::Iadd3).d(ts).u(target).u(s).f(RZ));
        let t1 = self.clamp_s(ts, -1022, 1023)?;
        let diff = self.r();
        self.emit(
            MInst::new(Op::Iadd3)
                .d(diff)
                .u(target)
                .o(MOpnd::neg(t1))
                .f(RZ),
        );
        let t2 = self.clamp_s(diff, -1022, 1023)?;
        let p1 = self.pow2_pair(t1)?;
        let p2 = self.pow2_pair(t2)?;
        let r1 = self.mf.vreg(RegClass::R, 2);
        self.emit(MInst::new(Op::Dmul).d(r1).u(m).u(p1));
        let r2 = self.mf.vreg(RegClass::R, 2);
        self.emit(MInst::new(Op::Dmul).d(r2).u(r1).u(p2));
        let [r_lo, r_hi] = self.unpack(r2);
        let (Sc::R(r_lo), Sc::R(r_hi)) = (r_lo, r_hi) else {
            unreachable!("unpack gives registers")
        };
        // Zero, infinities and NaN: x itself.
        let or = self.r();
        self.emit(lop3r(or, ahi, lo, LUT_OR));
        let is_zero = self.cmp_u(".EQ", or, 0)?;
        let kr = self.reg(Sc::Imm(0x7ff0_0000))?;
        let special = self.p();
        self.emit(
            MInst::new(Op::Isetp)
                .m(".GE")
                .m(".U32")
                .m(".OR")
                .d(special)
                .f(PT)
                .u(ahi)
                .u(kr)
                .u(is_zero),
        );
        let out_lo = self.sel(lo, r_lo, special);
        let out_hi = self.sel(hi, r_hi, special);
        Ok(vec![Sc::R(out_lo), Sc::R(out_hi)])
    }
}
