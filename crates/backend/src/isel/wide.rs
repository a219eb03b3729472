//! Integers of other widths than 32 bits, element by element.
//!
//! A 64-bit integer is two scalars, its low and its high word, each a 32-bit register (or a
//! constant), so that memory, composites, phis and constants handle it as they handle two
//! 32-bit values. Carries go through predicates (`IADD3` with a carry-out, `IADD3.X`),
//! comparisons through `ISETP` on the low words and `ISETP.EX` on the high ones, shifts
//! through the funnel shifter (`SHF.L.U64.HI`, `SHF.R.U64`, `SHF.R.S64`), as ptxas does.
//! Instructions that read or write a whole 64-bit operand (`I2F.S64`, `F2I.U64`) take an
//! aligned pair, built by a pair construction ([`MInst::is_pack`]) and read back by
//! component.
//!
//! Integers of 8 and 16 bits live zero-extended in a 32-bit register: an operation whose
//! result can carry bits above the width (add, multiply, negate, shift left, ...) is masked
//! back, and one that reads the sign (signed compares, divisions, arithmetic shifts,
//! conversions) sign-extends its operands first.

use tangle_ir::PlainOp;
use tangle_sass::typed::{PT, RZ};
use tangle_sass::Op;

use super::ops::{lop3r, LUT_AND};
use super::{Isel, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd, RegClass, RegRef, VReg};

/// The bit widths of one element operation: each operand's element and the result's
/// (1 for booleans).
pub(crate) struct Widths<'a> {
    /// Per operand.
    pub args: &'a [u32],
    /// The result's.
    pub out: u32,
    /// Whether the result is an integer (narrow results are masked to their width).
    pub out_int: bool,
    /// Whether an operand or the result is an f64.
    pub float64: bool,
    /// Which operands are f16.
    pub half_args: &'a [bool],
    /// Whether the result is an f16.
    pub half_out: bool,
}

impl Isel<'_> {
    /// One element of a plain operation whose operands or result are not all 32-bit or
    /// boolean: `a[k]` holds operand `k`'s scalars (two for a 64-bit element).
    pub(crate) fn plain_elem(
        &mut self,
        op: PlainOp,
        a: &[&[Sc]],
        w: &Widths<'_>,
    ) -> Result<Vec<Sc>, CompileError> {
        if w.half_out || w.half_args.contains(&true) {
            return self.half(op, a, w);
        }
        if w.out == 64 || w.args.contains(&64) {
            return self.wide(op, a, w);
        }
        let mut x: Vec<Sc> = a.iter().map(|s| s[0]).collect();
        for k in signed_operands(op) {
            if let (Some(&b), Some(s)) = (w.args.get(k), x.get(k).copied()) {
                if (2..32).contains(&b) {
                    x[k] = self.sext(s, b)?;
                }
            }
        }
        let r = self.plain_scalar(op, &x)?;
        if w.out_int && (2..32).contains(&w.out) && needs_mask(op) {
            return Ok(vec![self.mask(r, w.out)?]);
        }
        Ok(vec![r])
    }

    /// The scalars of a bitcast from elements of `from` bits to elements of `to` bits: each
    /// a register of at most 32 bits (a 64-bit element is two words). Narrow pieces are
    /// joined into a wider one low first (`IMAD` of the piece by its place value, adding
    /// the pieces below: they never overlap), or split out of it (`SHF.R.U32.HI` then the
    /// width's mask).
    pub(crate) fn bitcast_pieces(
        &mut self,
        s: Vec<Sc>,
        from: u32,
        to: u32,
    ) -> Result<Vec<Sc>, CompileError> {
        let (fw, tw) = (from.min(32), to.min(32));
        if fw == tw || !matches!(fw, 8 | 16 | 32) || !matches!(tw, 8 | 16 | 32) {
            return Ok(s);
        }
        let mut out = Vec::new();
        if fw < tw {
            let k = (tw / fw) as usize;
            if s.len() % k != 0 {
                return Err(self.unsupported("a bitcast that splits or joins words"));
            }
            for chunk in s.chunks(k) {
                let mut acc = self.reg(chunk[0])?;
                for (j, piece) in chunk.iter().enumerate().skip(1) {
                    let x = self.reg(*piece)?;
                    let place = self.reg(Sc::Imm(1 << (j as u32 * fw)))?;
                    let d = self.mf.vreg(RegClass::R, 1);
                    self.emit(MInst::new(Op::Imad).d(d).u(x).u(place).u(acc));
                    acc = d;
                }
                out.push(Sc::R(acc));
            }
        } else {
            let k = fw / tw;
            for x in s {
                let x = self.reg(x)?;
                for j in 0..k {
                    let piece = if j == 0 {
                        Sc::R(x)
                    } else {
                        let sh = self.reg(Sc::Imm(j * tw))?;
                        let d = self.mf.vreg(RegClass::R, 1);
                        self.emit(
                            MInst::new(Op::Shf)
                                .m(".R")
                                .m(".U32")
                                .m(".HI")
                                .d(d)
                                .f(RZ)
                                .u(sh)
                                .u(x),
                        );
                        Sc::R(d)
                    };
                    // The top piece has no bits above the width after its shift.
                    out.push(if j + 1 == k {
                        piece
                    } else {
                        self.mask(piece, tw)?
                    });
                }
            }
        }
        Ok(out)
    }

    /// `x` (the low `bits` bits, zero-extended) sign-extended to 32 bits.
    pub(crate) fn sext(&mut self, x: Sc, bits: u32) -> Result<Sc, CompileError> {
        if let Sc::Imm(k) = x {
            let s = 32 - bits;
            return Ok(Sc::Imm((((k << s) as i32) >> s) as u32));
        }
        let x = self.reg(x)?;
        let s = self.reg(Sc::Imm(32 - bits))?;
        let up = self.r();
        self.emit(MInst::new(Op::Shf).m(".L").m(".U32").d(up).u(x).u(s).f(RZ));
        let d = self.r();
        self.emit(
            MInst::new(Op::Shf)
                .m(".R")
                .m(".S32")
                .m(".HI")
                .d(d)
                .f(RZ)
                .u(s)
                .u(up),
        );
        Ok(Sc::R(d))
    }

    /// The low `bits` bits of `x`, zero-extended.
    pub(crate) fn mask(&mut self, x: Sc, bits: u32) -> Result<Sc, CompileError> {
        let m = (1u64 << bits) as u32 - 1;
        if let Sc::Imm(k) = x {
            return Ok(Sc::Imm(k & m));
        }
        let x = self.reg(x)?;
        let mr = self.reg(Sc::Imm(m))?;
        let d = self.r();
        self.emit(lop3r(d, x, mr, LUT_AND));
        Ok(Sc::R(d))
    }

    /// An aligned pair holding `lo` and `hi`.
    pub(crate) fn pack(&mut self, lo: Sc, hi: Sc) -> Result<VReg, CompileError> {
        let lo = self.reg(lo)?;
        let hi = self.reg(hi)?;
        let d = self.mf.vreg(RegClass::R, 2);
        self.emit(MInst::new(Op::Mov).d(d).u(lo).u(hi));
        Ok(d)
    }

    /// The two words of pair `v`, each copied into a register of its own.
    pub(crate) fn unpack(&mut self, v: VReg) -> [Sc; 2] {
        [0, 1].map(|k| {
            let d = self.r();
            self.emit(MInst::new(Op::Mov).d(d).u(RegRef {
                vreg: v,
                sub: Some(k),
            }));
            Sc::R(d)
        })
    }

    /// The low and high words of an element of width `bits` (a 64-bit one as it is, a
    /// narrower one extended by the signedness of `signed`).
    fn words(&mut self, s: &[Sc], bits: u32, signed: bool) -> Result<[Sc; 2], CompileError> {
        if bits == 64 {
            return Ok([s[0], s[1]]);
        }
        let lo = if signed && bits < 32 {
            self.sext(s[0], bits)?
        } else {
            s[0]
        };
        let hi = if signed {
            self.sign_word(lo)?
        } else {
            Sc::Imm(0)
        };
        Ok([lo, hi])
    }

    /// All ones when the 32-bit `x` is negative, else zero.
    fn sign_word(&mut self, x: Sc) -> Result<Sc, CompileError> {
        if let Sc::Imm(k) = x {
            return Ok(Sc::Imm(((k as i32) >> 31) as u32));
        }
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

    /// An operation with a 64-bit operand or result.
    fn wide(&mut self, op: PlainOp, a: &[&[Sc]], w: &Widths<'_>) -> Result<Vec<Sc>, CompileError> {
        use PlainOp as P;
        if w.float64 && op != P::Select {
            return self.double(op, a, w);
        }
        match op {
            P::IAdd | P::ISub => {
                let x = self.words(a[0], w.args[0], false)?;
                let y = self.words(a[1], w.args[1], false)?;
                Ok(self.add64(x, y, op == P::ISub)?.to_vec())
            }
            P::SNegate => {
                let y = self.words(a[0], w.args[0], false)?;
                Ok(self.add64([Sc::Imm(0); 2], y, true)?.to_vec())
            }
            P::IMul => {
                let x = self.words(a[0], w.args[0], false)?;
                let y = self.words(a[1], w.args[1], false)?;
                self.mul64(x, y).map(|v| v.to_vec())
            }
            P::BitwiseAnd | P::BitwiseOr | P::BitwiseXor | P::Not => {
                let mut out = Vec::new();
                for k in 0..2 {
                    let parts: Vec<Sc> = a.iter().map(|s| s[k]).collect();
                    out.push(self.plain_scalar(op, &parts)?);
                }
                Ok(out)
            }
            P::ShiftLeftLogical | P::ShiftRightLogical | P::ShiftRightArithmetic => {
                let x = self.words(a[0], w.args[0], false)?;
                // The amount's low word (an amount of 64 or more is undefined).
                self.shift64(op, x, a[1][0]).map(|v| v.to_vec())
            }
            P::IEqual
            | P::INotEqual
            | P::UGreaterThan
            | P::SGreaterThan
            | P::UGreaterThanEqual
            | P::SGreaterThanEqual
            | P::ULessThan
            | P::SLessThan
            | P::ULessThanEqual
            | P::SLessThanEqual => {
                let x = self.words(a[0], w.args[0], false)?;
                let y = self.words(a[1], w.args[1], false)?;
                Ok(vec![self.cmp64(op, x, y)?])
            }
            P::Select => {
                let mut out = Vec::new();
                for k in 0..2 {
                    out.push(self.plain_scalar(op, &[a[0][0], a[1][k], a[2][k]])?);
                }
                Ok(out)
            }
            P::UConvert | P::SConvert => {
                let x = self.words(a[0], w.args[0], op == P::SConvert)?;
                Ok(match w.out {
                    64 => x.to_vec(),
                    32 => vec![x[0]],
                    b => vec![self.mask(x[0], b)?],
                })
            }
            P::ConvertUToF | P::ConvertSToF if w.out == 32 => {
                let x = self.words(a[0], w.args[0], op == P::ConvertSToF)?;
                let pair = self.pack(x[0], x[1])?;
                let d = self.r();
                let ty = if op == P::ConvertUToF { ".U64" } else { ".S64" };
                self.emit(MInst::new(Op::I2f).m(ty).d(d).u(pair));
                Ok(vec![Sc::R(d)])
            }
            P::ConvertFToU | P::ConvertFToS if w.args[0] == 32 => {
                let x = self.reg(a[0][0])?;
                let d = self.mf.vreg(RegClass::R, 2);
                let ty = if op == P::ConvertFToU { ".U64" } else { ".S64" };
                self.emit(MInst::new(Op::F2i).m(ty).m(".TRUNC").d(d).u(x));
                Ok(self.unpack(d).to_vec())
            }
            P::UDiv | P::UMod | P::SDiv | P::SRem | P::SMod => {
                let signed = !matches!(op, P::UDiv | P::UMod);
                let x = self.words(a[0], w.args[0], signed)?;
                let y = self.words(a[1], w.args[1], signed)?;
                Ok(self.div64(op, x, y)?.to_vec())
            }
            other => Err(self.unsupported(format!("{} on 64-bit integers", other.name()))),
        }
    }

    /// `x + y` (or `x - y`) on words: the low words' carry (or borrow) into the high ones.
    pub(crate) fn add64(
        &mut self,
        x: [Sc; 2],
        y: [Sc; 2],
        sub: bool,
    ) -> Result<[Sc; 2], CompileError> {
        let (xl, yl) = (self.reg(x[0])?, self.reg(y[0])?);
        let (xh, yh) = (self.reg(x[1])?, self.reg(y[1])?);
        let carry = self.p();
        let lo = self.r();
        let ylo = if sub { MOpnd::neg(yl) } else { MOpnd::use_(yl) };
        self.emit(MInst::new(Op::Iadd3).d(lo).d(carry).u(xl).o(ylo).f(RZ));
        // x - y = x + ~y + 1: the low word's `-y` supplies the + 1 and its carry.
        let yhi = if sub { MOpnd::not(yh) } else { MOpnd::use_(yh) };
        let hi = self.r();
        self.emit(
            MInst::new(Op::Iadd3)
                .m(".X")
                .d(hi)
                .u(xh)
                .o(yhi)
                .f(RZ)
                .u(carry)
                .f(!tangle_sass::typed::Operand::from(PT)),
        );
        Ok([Sc::R(lo), Sc::R(hi)])
    }

    /// The low 64 bits of `x * y`: the low words' full product plus the cross products
    /// in the high word.
    fn mul64(&mut self, x: [Sc; 2], y: [Sc; 2]) -> Result<[Sc; 2], CompileError> {
        let (xl, yl) = (self.reg(x[0])?, self.reg(y[0])?);
        let (xh, yh) = (self.reg(x[1])?, self.reg(y[1])?);
        let lo = self.r();
        self.emit(MInst::new(Op::Imad).d(lo).u(xl).u(yl).f(RZ));
        let h0 = self.r();
        self.emit(
            MInst::new(Op::Imad)
                .m(".HI")
                .m(".U32")
                .d(h0)
                .u(xl)
                .u(yl)
                .f(RZ),
        );
        let h1 = self.r();
        self.emit(MInst::new(Op::Imad).d(h1).u(xl).u(yh).u(h0));
        let hi = self.r();
        self.emit(MInst::new(Op::Imad).d(hi).u(xh).u(yl).u(h1));
        Ok([Sc::R(lo), Sc::R(hi)])
    }

    /// The 128-bit product of two 64-bit words pairs, as four words from the lowest, for
    /// `umul_extended`/`smul_extended` on 64-bit integers. Schoolbook over 32-bit digits
    /// with `IMAD.WIDE.U32` (a 32x32 product plus a 64-bit addend, which cannot overflow
    /// when the addend is below 2^33 - 1). Signed: the unsigned product's high half less
    /// `y` where `x` is negative and less `x` where `y` is (mod 2^64), as two's complement
    /// gives.
    pub(crate) fn mul_extended64(
        &mut self,
        x: [Sc; 2],
        y: [Sc; 2],
        signed: bool,
    ) -> Result<[Sc; 4], CompileError> {
        let (x0, x1) = (self.reg(x[0])?, self.reg(x[1])?);
        let (y0, y1) = (self.reg(y[0])?, self.reg(y[1])?);
        // p = a * b + (c, 0) as a pair, returned as its two words.
        let mad = |s: &mut Self, a: VReg, b: VReg, c: Sc| -> Result<[Sc; 2], CompileError> {
            let add = s.pack(c, Sc::Imm(0))?;
            let d = s.mf.vreg(RegClass::R, 2);
            s.emit(
                MInst::new(Op::Imad)
                    .m(".WIDE")
                    .m(".U32")
                    .d(d)
                    .u(a)
                    .u(b)
                    .u(add),
            );
            Ok(s.unpack(d))
        };
        let [w0, c0] = mad(self, x0, y0, Sc::Imm(0))?;
        let [m0, m1] = mad(self, x1, y0, c0)?;
        let [w1, k] = mad(self, x0, y1, m0)?;
        let u = mad(self, x1, y1, m1)?;
        let mut hi = self.add64(u, [k, Sc::Imm(0)], false)?;
        if signed {
            for (neg_of, other) in [(x[1], y), (y[1], x)] {
                let sign = self.sign_word(neg_of)?;
                let mut masked = [Sc::Imm(0); 2];
                for (m, w) in masked.iter_mut().zip(other) {
                    *m = self.plain_scalar(PlainOp::BitwiseAnd, &[w, sign])?;
                }
                hi = self.add64(hi, masked, true)?;
            }
        }
        Ok([w0, w1, hi[0], hi[1]])
    }

    /// A 64-bit shift by `n` through the funnel shifter.
    fn shift64(&mut self, op: PlainOp, x: [Sc; 2], n: Sc) -> Result<[Sc; 2], CompileError> {
        let (lo, hi) = (self.reg(x[0])?, self.reg(x[1])?);
        let n = self.reg(n)?;
        let (dl, dh) = (self.r(), self.r());
        if op == PlainOp::ShiftLeftLogical {
            self.emit(
                MInst::new(Op::Shf)
                    .m(".L")
                    .m(".U64")
                    .m(".HI")
                    .d(dh)
                    .u(lo)
                    .u(n)
                    .u(hi),
            );
            self.emit(MInst::new(Op::Shf).m(".L").m(".U32").d(dl).u(lo).u(n).f(RZ));
        } else {
            let (wide, narrow) = if op == PlainOp::ShiftRightArithmetic {
                (".S64", ".S32")
            } else {
                (".U64", ".U32")
            };
            self.emit(MInst::new(Op::Shf).m(".R").m(wide).d(dl).u(lo).u(n).u(hi));
            self.emit(
                MInst::new(Op::Shf)
                    .m(".R")
                    .m(narrow)
                    .m(".HI")
                    .d(dh)
                    .f(RZ)
                    .u(n)
                    .u(hi),
            );
        }
        Ok([Sc::R(dl), Sc::R(dh)])
    }

    /// A 64-bit comparison: the low words unsigned, then the high words with `.EX`, which
    /// decides by the low words' result where the high words are equal.
    pub(crate) fn cmp64(
        &mut self,
        op: PlainOp,
        x: [Sc; 2],
        y: [Sc; 2],
    ) -> Result<Sc, CompileError> {
        use PlainOp as P;
        let (cmp, signed) = match op {
            P::IEqual => (".EQ", false),
            P::INotEqual => (".NE", false),
            P::UGreaterThan => (".GT", false),
            P::SGreaterThan => (".GT", true),
            P::UGreaterThanEqual => (".GE", false),
            P::SGreaterThanEqual => (".GE", true),
            P::ULessThan => (".LT", false),
            P::SLessThan => (".LT", true),
            P::ULessThanEqual => (".LE", false),
            _ => (".LE", true),
        };
        let (xl, yl) = (self.reg(x[0])?, self.reg(y[0])?);
        let (xh, yh) = (self.reg(x[1])?, self.reg(y[1])?);
        let low = self.p();
        self.emit(
            MInst::new(Op::Isetp)
                .m(cmp)
                .m(".U32")
                .m(".AND")
                .d(low)
                .f(PT)
                .u(xl)
                .u(yl)
                .f(PT),
        );
        let d = self.p();
        let i = MInst::new(Op::Isetp).m(cmp);
        let i = if signed { i } else { i.m(".U32") };
        self.emit(i.m(".AND").m(".EX").d(d).f(PT).u(xh).u(yh).f(PT).u(low));
        Ok(Sc::P(d))
    }
}

/// The operands an operation reads as signed numbers (sign-extended when narrow).
fn signed_operands(op: PlainOp) -> Vec<usize> {
    use PlainOp as P;
    match op {
        P::SDiv
        | P::SRem
        | P::SMod
        | P::SGreaterThan
        | P::SGreaterThanEqual
        | P::SLessThan
        | P::SLessThanEqual => vec![0, 1],
        P::ShiftRightArithmetic | P::ConvertSToF | P::SConvert => vec![0],
        _ => Vec::new(),
    }
}

/// Whether a narrow result of `op` may carry bits above its width.
fn needs_mask(op: PlainOp) -> bool {
    use PlainOp as P;
    matches!(
        op,
        P::IAdd
            | P::ISub
            | P::SNegate
            | P::IMul
            | P::Not
            | P::ShiftLeftLogical
            | P::ShiftRightArithmetic
            | P::SDiv
            | P::SRem
            | P::SMod
            | P::SConvert
            | P::UConvert
            | P::ConvertFToS
            | P::ConvertFToU
    )
}
