//! GLSL.std.450 integer functions on 64-bit values (`umin`/`umax`/`smin`/`smax`,
//! `uclamp`/`sclamp`, `sabs`, `ssign`), on word pairs: a 64-bit compare (`ISETP` on the low
//! words, `.EX` on the high ones) and a `SEL` per word, as the reference picks.

use tangle_ir::glsl::GlslOp;
use tangle_ir::{Operand, PlainOp};

use super::{Frame, Isel, MVal, Sc};
use crate::error::CompileError;

/// Whether [`Isel::glsl_int64`] selects `g`.
pub(crate) fn is_glsl_int64(g: GlslOp) -> bool {
    use GlslOp as G;
    matches!(
        g,
        G::UMin | G::UMax | G::SMin | G::SMax | G::UClamp | G::SClamp | G::SAbs | G::SSign
    )
}

impl Isel<'_> {
    /// A function of [`is_glsl_int64`] on 64-bit operands, element by element.
    pub(crate) fn glsl_int64(
        &mut self,
        g: GlslOp,
        args: &[Operand],
        frame: &Frame,
    ) -> Result<MVal, CompileError> {
        use GlslOp as G;
        let cols: Vec<Vec<Sc>> = args
            .iter()
            .map(|a| self.scalars(*a, frame))
            .collect::<Result<_, _>>()?;
        let mut out = Vec::new();
        for k in 0..cols[0].len() / 2 {
            let e: Vec<[Sc; 2]> = cols.iter().map(|c| [c[2 * k], c[2 * k + 1]]).collect();
            let signed = matches!(g, G::SMin | G::SMax | G::SClamp | G::SAbs | G::SSign);
            let r = match g {
                G::UMin | G::SMin => self.pick64(e[0], e[1], signed, true)?,
                G::UMax | G::SMax => self.pick64(e[0], e[1], signed, false)?,
                G::UClamp | G::SClamp => {
                    // min(max(x, lo), hi), as the reference computes it.
                    let m = self.pick64(e[0], e[1], signed, false)?;
                    self.pick64(m, e[2], signed, true)?
                }
                G::SAbs => {
                    let neg = self.add64([Sc::Imm(0); 2], e[0], true)?;
                    let below = self.cmp64(PlainOp::SLessThan, e[0], [Sc::Imm(0); 2])?;
                    self.sel64(neg, e[0], below)?
                }
                _ => {
                    // -1, 0 or 1.
                    let below = self.cmp64(PlainOp::SLessThan, e[0], [Sc::Imm(0); 2])?;
                    let above = self.cmp64(PlainOp::SGreaterThan, e[0], [Sc::Imm(0); 2])?;
                    let one = [Sc::Imm(1), Sc::Imm(0)];
                    let zero = [Sc::Imm(0); 2];
                    let r = self.sel64(one, zero, above)?;
                    self.sel64([Sc::Imm(u32::MAX); 2], r, below)?
                }
            };
            out.extend(r);
        }
        Ok(MVal::Scalars(out))
    }

    /// `min(x, y)` (or `max`): x where x <= y (x >= y), else y.
    fn pick64(
        &mut self,
        x: [Sc; 2],
        y: [Sc; 2],
        signed: bool,
        min: bool,
    ) -> Result<[Sc; 2], CompileError> {
        use PlainOp as P;
        let op = match (signed, min) {
            (false, true) => P::ULessThanEqual,
            (true, true) => P::SLessThanEqual,
            (false, false) => P::UGreaterThanEqual,
            (true, false) => P::SGreaterThanEqual,
        };
        let p = self.cmp64(op, x, y)?;
        self.sel64(x, y, p)
    }

    /// `p ? a : b` per word.
    fn sel64(&mut self, a: [Sc; 2], b: [Sc; 2], p: Sc) -> Result<[Sc; 2], CompileError> {
        let mut r = [Sc::Imm(0); 2];
        for (w, slot) in r.iter_mut().enumerate() {
            *slot = self.plain_scalar(PlainOp::Select, &[p, a[w], b[w]])?;
        }
        Ok(r)
    }
}
