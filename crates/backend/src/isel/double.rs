//! Double precision: an f64 is two scalars, its low and high words, as a 64-bit integer
//! is ([`super::wide`]); the double-precision unit reads and writes aligned pairs, so the
//! operands are put together with a pair construction and the result read back by word.
//! Arithmetic is `DADD`/`DMUL`/`DFMA`, comparisons `DSETP`, conversions `F2F`, `I2F.F64`
//! and `F2I.F64`, as ptxas selects them; negation and absolute value flip or clear the
//! high word's sign bit (bit-exact, NaNs included, as the reference does).

use tangle_ir::PlainOp;
use tangle_sass::typed::PT;
use tangle_sass::Op;

use super::ops::{lop3r, LUT_AND, LUT_XOR};
use super::wide::Widths;
use super::{Isel, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd, RegClass, VReg};

impl Isel<'_> {
    /// One element of a plain operation with a double-precision operand or result.
    pub(crate) fn double(
        &mut self,
        op: PlainOp,
        a: &[&[Sc]],
        w: &Widths<'_>,
    ) -> Result<Vec<Sc>, CompileError> {
        use PlainOp as P;
        match op {
            P::FAdd | P::FSub | P::FMul => {
                let x = self.pack(a[0][0], a[0][1])?;
                let y = self.pack(a[1][0], a[1][1])?;
                let d = self.mf.vreg(RegClass::R, 2);
                let i = match op {
                    P::FMul => MInst::new(Op::Dmul).d(d).u(x).u(y),
                    P::FSub => MInst::new(Op::Dadd).d(d).u(x).o(MOpnd::neg(y)),
                    _ => MInst::new(Op::Dadd).d(d).u(x).u(y),
                };
                self.emit(i);
                Ok(self.unpack(d).to_vec())
            }
            P::FDiv => {
                let x = self.pack(a[0][0], a[0][1])?;
                let y = self.pack(a[1][0], a[1][1])?;
                let d = self.ddiv(x, y)?;
                Ok(self.unpack(d).to_vec())
            }
            P::FNegate => {
                let hi = self.sign_bit_op(a[0][1], LUT_XOR)?;
                Ok(vec![a[0][0], hi])
            }
            P::FOrdEqual
            | P::FUnordEqual
            | P::FOrdNotEqual
            | P::FUnordNotEqual
            | P::FOrdLessThan
            | P::FUnordLessThan
            | P::FOrdGreaterThan
            | P::FUnordGreaterThan
            | P::FOrdLessThanEqual
            | P::FUnordLessThanEqual
            | P::FOrdGreaterThanEqual
            | P::FUnordGreaterThanEqual
            | P::IsNan => {
                let cmp = match op {
                    P::FOrdEqual => ".EQ",
                    P::FUnordEqual => ".EQU",
                    P::FOrdNotEqual => ".NE",
                    P::FUnordNotEqual => ".NEU",
                    P::FOrdLessThan => ".LT",
                    P::FUnordLessThan => ".LTU",
                    P::FOrdGreaterThan => ".GT",
                    P::FUnordGreaterThan => ".GTU",
                    P::FOrdLessThanEqual => ".LE",
                    P::FUnordLessThanEqual => ".LEU",
                    P::FOrdGreaterThanEqual => ".GE",
                    P::FUnordGreaterThanEqual => ".GEU",
                    _ => ".NAN",
                };
                let x = self.pack(a[0][0], a[0][1])?;
                let y = match a.get(1) {
                    Some(b) => self.pack(b[0], b[1])?,
                    None => x,
                };
                let d = self.p();
                self.emit(
                    MInst::new(Op::Dsetp)
                        .m(cmp)
                        .m(".AND")
                        .d(d)
                        .f(PT)
                        .u(x)
                        .u(y)
                        .f(PT),
                );
                Ok(vec![Sc::P(d)])
            }
            P::IsInf => {
                // A zero low word and the high word's magnitude 0x7ff00000.
                let lo = self.reg(a[0][0])?;
                let hi = self.reg(a[0][1])?;
                let m = self.reg(Sc::Imm(0x7fff_ffff))?;
                let ah = self.r();
                self.emit(lop3r(ah, hi, m, LUT_AND));
                let inf = self.reg(Sc::Imm(0x7ff0_0000))?;
                let low_zero = self.p();
                self.emit(
                    MInst::new(Op::Isetp)
                        .m(".EQ")
                        .m(".U32")
                        .m(".AND")
                        .d(low_zero)
                        .f(PT)
                        .u(lo)
                        .f(tangle_sass::typed::RZ)
                        .f(PT),
                );
                let d = self.p();
                self.emit(
                    MInst::new(Op::Isetp)
                        .m(".EQ")
                        .m(".U32")
                        .m(".AND")
                        .d(d)
                        .f(PT)
                        .u(ah)
                        .u(inf)
                        .u(low_zero),
                );
                Ok(vec![Sc::P(d)])
            }
            P::FConvert if w.out == 64 => {
                let x = self.reg(a[0][0])?;
                let d = self.mf.vreg(RegClass::R, 2);
                self.emit(MInst::new(Op::F2f).m(".F64").m(".F32").d(d).u(x));
                Ok(self.unpack(d).to_vec())
            }
            P::FConvert => {
                let x = self.pack(a[0][0], a[0][1])?;
                let d = self.r();
                self.emit(MInst::new(Op::F2f).m(".F32").m(".F64").d(d).u(x));
                Ok(vec![Sc::R(d)])
            }
            P::ConvertSToF | P::ConvertUToF => {
                let signed = op == P::ConvertSToF;
                let bits = w.args[0];
                let (src, ty): (VReg, &'static str) = if bits == 64 {
                    let x = self.pack(a[0][0], a[0][1])?;
                    (x, if signed { ".S64" } else { ".U64" })
                } else {
                    let x = if signed && bits < 32 {
                        self.sext(a[0][0], bits)?
                    } else {
                        a[0][0]
                    };
                    (self.reg(x)?, if signed { "" } else { ".U32" })
                };
                let d = self.mf.vreg(RegClass::R, 2);
                let i = MInst::new(Op::I2f).m(".F64");
                let i = if ty.is_empty() { i } else { i.m(ty) };
                self.emit(i.d(d).u(src));
                Ok(self.unpack(d).to_vec())
            }
            P::ConvertFToS | P::ConvertFToU => {
                let signed = op == P::ConvertFToS;
                let x = self.pack(a[0][0], a[0][1])?;
                if w.out == 64 {
                    let d = self.mf.vreg(RegClass::R, 2);
                    let ty = if signed { ".S64" } else { ".U64" };
                    self.emit(MInst::new(Op::F2i).m(ty).m(".F64").m(".TRUNC").d(d).u(x));
                    return Ok(self.unpack(d).to_vec());
                }
                let d = self.r();
                let i = MInst::new(Op::F2i);
                let i = if signed { i } else { i.m(".U32") };
                self.emit(i.m(".F64").m(".TRUNC").d(d).u(x));
                let r = Sc::R(d);
                if (2..32).contains(&w.out) {
                    return Ok(vec![self.mask(r, w.out)?]);
                }
                Ok(vec![r])
            }
            other => Err(self.unsupported(format!("{} on f64", other.name()))),
        }
    }

    /// `DFMA`: `x * y + z` rounded once.
    pub(crate) fn dfma(&mut self, x: &[Sc], y: &[Sc], z: &[Sc]) -> Result<Vec<Sc>, CompileError> {
        let x = self.pack(x[0], x[1])?;
        let y = self.pack(y[0], y[1])?;
        let z = self.pack(z[0], z[1])?;
        let d = self.mf.vreg(RegClass::R, 2);
        self.emit(MInst::new(Op::Dfma).d(d).u(x).u(y).u(z));
        Ok(self.unpack(d).to_vec())
    }

    /// The high word of an f64 with its sign bit flipped (`LUT_XOR`) or cleared (`LUT_AND`
    /// with the complement).
    pub(crate) fn sign_bit_op(&mut self, hi: Sc, lut: i64) -> Result<Sc, CompileError> {
        let m = if lut == LUT_AND {
            0x7fff_ffff
        } else {
            0x8000_0000
        };
        let x = self.reg(hi)?;
        let mr = self.reg(Sc::Imm(m))?;
        let d = self.r();
        self.emit(lop3r(d, x, mr, lut));
        Ok(Sc::R(d))
    }

    /// One element of a plain operation with a half-precision operand or result: the f16
    /// operands widened to f32 (`F2F.F32.F16`, exact), the operation done there, the result
    /// rounded back (`F2F.F16.F32`). For `+ - *` one rounding to f32 and then to f16 gives
    /// the correctly rounded f16 result for + - * / (f32 keeps at least 2 * 11 + 2 bits); integers
    /// reach f16 exactly through f32 (any integer past 2^24 is past f16's range). Negation
    /// flips bit 15 and a select moves the bits, unconverted.
    pub(crate) fn half(
        &mut self,
        op: PlainOp,
        a: &[&[Sc]],
        w: &Widths<'_>,
    ) -> Result<Vec<Sc>, CompileError> {
        use PlainOp as P;
        match op {
            P::FNegate => {
                let x = self.reg(a[0][0])?;
                let m = self.reg(Sc::Imm(0x8000))?;
                let d = self.r();
                self.emit(lop3r(d, x, m, LUT_XOR));
                return Ok(vec![Sc::R(d)]);
            }
            P::Select => return Ok(vec![self.plain_scalar(op, &[a[0][0], a[1][0], a[2][0]])?]),
            P::FConvert if w.out == 64 => {
                let x = self.reg(a[0][0])?;
                let d = self.mf.vreg(RegClass::R, 2);
                self.emit(MInst::new(Op::F2f).m(".F64").m(".F16").d(d).u(x));
                return Ok(self.unpack(d).to_vec());
            }
            P::FConvert if w.args[0] == 64 => {
                let x = self.pack(a[0][0], a[0][1])?;
                let d = self.r();
                self.emit(MInst::new(Op::F2f).m(".F16").m(".F64").d(d).u(x));
                return Ok(vec![Sc::R(d)]);
            }
            P::FConvert | P::FAdd | P::FSub | P::FMul | P::FDiv | P::IsNan | P::IsInf => {}
            P::FRem | P::FMod => {}
            P::ConvertSToF | P::ConvertUToF | P::ConvertFToS | P::ConvertFToU => {}
            P::FOrdEqual
            | P::FUnordEqual
            | P::FOrdNotEqual
            | P::FUnordNotEqual
            | P::FOrdLessThan
            | P::FUnordLessThan
            | P::FOrdGreaterThan
            | P::FUnordGreaterThan
            | P::FOrdLessThanEqual
            | P::FUnordLessThanEqual
            | P::FOrdGreaterThanEqual
            | P::FUnordGreaterThanEqual => {}
            other => return Err(self.unsupported(format!("{} on f16", other.name()))),
        }
        let mut wide: Vec<Vec<Sc>> = Vec::with_capacity(a.len());
        let mut bits = w.args.to_vec();
        for (k, x) in a.iter().enumerate() {
            if w.half_args[k] {
                let r = self.reg(x[0])?;
                let d = self.r();
                self.emit(MInst::new(Op::F2f).m(".F32").m(".F16").d(d).u(r));
                wide.push(vec![Sc::R(d)]);
                bits[k] = 32;
            } else {
                wide.push(x.to_vec());
            }
        }
        let parts: Vec<&[Sc]> = wide.iter().map(|v| &v[..]).collect();
        let no_halves = vec![false; a.len()];
        let inner = Widths {
            args: &bits,
            out: if w.half_out { 32 } else { w.out },
            out_int: w.out_int,
            float64: w.float64,
            half_args: &no_halves,
            half_out: false,
        };
        let plain32 = bits.iter().chain([&inner.out]).all(|&b| b == 32 || b == 1);
        let r = if plain32 {
            let x: Vec<Sc> = parts.iter().map(|p| p[0]).collect();
            vec![self.plain_scalar(op, &x)?]
        } else {
            self.plain_elem(op, &parts, &inner)?
        };
        if !w.half_out {
            return Ok(r);
        }
        let x = self.reg(r[0])?;
        let d = self.r();
        self.emit(MInst::new(Op::F2f).m(".F16").m(".F32").d(d).u(x));
        Ok(vec![Sc::R(d)])
    }
}
