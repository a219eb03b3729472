//! [`Builder`]: writes a recipe's steps, one method per step kind, plus the shapes the
//! recipes share (a Horner polynomial, a two-word constant sum, the NaN canonicalization).

use super::{FCmp, Recipe, Slot, Step, CANONICAL_NAN};

/// Appends steps to a recipe under construction; every method returns the new step's slot.
pub struct Builder {
    steps: Vec<Step>,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    /// An empty recipe.
    pub fn new() -> Self {
        Builder { steps: Vec::new() }
    }

    fn push(&mut self, s: Step) -> Slot {
        self.steps.push(s);
        Slot::try_from(self.steps.len() - 1).expect("a recipe has fewer than 65536 steps")
    }

    /// Operand `k`.
    pub fn arg(&mut self, k: u8) -> Slot {
        self.push(Step::Arg(k))
    }

    /// The f32 constant `x`.
    pub fn f(&mut self, x: f32) -> Slot {
        self.push(Step::Const(x.to_bits()))
    }

    /// The constant word `w`.
    pub fn word(&mut self, w: u32) -> Slot {
        self.push(Step::Const(w))
    }

    /// `a * b + c`, rounded once.
    pub fn fma(&mut self, a: Slot, b: Slot, c: Slot) -> Slot {
        self.push(Step::Fma(a, b, c))
    }

    /// `a * b`.
    pub fn mul(&mut self, a: Slot, b: Slot) -> Slot {
        self.push(Step::Mul(a, b))
    }

    /// `a + b`.
    pub fn add(&mut self, a: Slot, b: Slot) -> Slot {
        self.push(Step::Add(a, b))
    }

    /// `a - b`.
    pub fn sub(&mut self, a: Slot, b: Slot) -> Slot {
        self.push(Step::Sub(a, b))
    }

    /// `a / b`.
    pub fn div(&mut self, a: Slot, b: Slot) -> Slot {
        self.push(Step::Div(a, b))
    }

    /// `a & b`.
    pub fn and(&mut self, a: Slot, b: Slot) -> Slot {
        self.push(Step::And(a, b))
    }

    /// `a | b`.
    pub fn or(&mut self, a: Slot, b: Slot) -> Slot {
        self.push(Step::Or(a, b))
    }

    /// `a + b` as integers (wrapping).
    pub fn iadd(&mut self, a: Slot, b: Slot) -> Slot {
        self.push(Step::IAdd(a, b))
    }

    /// `a << k`.
    pub fn shl(&mut self, a: Slot, k: u8) -> Slot {
        self.push(Step::Shl(a, k))
    }

    /// `a >> k`, zeros in.
    pub fn shr(&mut self, a: Slot, k: u8) -> Slot {
        self.push(Step::Shr(a, k))
    }

    /// `a >> k`, sign bits in.
    pub fn sar(&mut self, a: Slot, k: u8) -> Slot {
        self.push(Step::Sar(a, k))
    }

    /// The comparison `a c b`.
    pub fn cmp(&mut self, c: FCmp, a: Slot, b: Slot) -> Slot {
        self.push(Step::Cmp(c, a, b))
    }

    /// `if p { a } else { b }`.
    pub fn sel(&mut self, p: Slot, a: Slot, b: Slot) -> Slot {
        self.push(Step::Sel(p, a, b))
    }

    /// `|x|` (the sign bit cleared).
    pub fn abs(&mut self, x: Slot) -> Slot {
        let m = self.word(0x7fff_ffff);
        self.and(x, m)
    }

    /// `x`'s sign bit alone.
    pub fn sign(&mut self, x: Slot) -> Slot {
        let m = self.word(0x8000_0000);
        self.and(x, m)
    }

    /// `c[0] + x (c[1] + x (c[2] + ...))` by Horner's rule, one `fma` per coefficient
    /// after the highest (`coeffs` as f32 bits, lowest degree first).
    pub fn poly(&mut self, x: Slot, coeffs: &[u32]) -> Slot {
        let (last, rest) = coeffs.split_last().expect("a polynomial has a coefficient");
        let mut acc = self.word(*last);
        for &c in rest.iter().rev() {
            let k = self.word(c);
            acc = self.fma(acc, x, k);
        }
        acc
    }

    /// `(hi - x) + lo`: a constant known to twice f32's precision (`hi + lo`) minus `x`.
    pub fn minus_from(&mut self, hi: f32, lo: f32, x: Slot) -> Slot {
        let h = self.f(hi);
        let l = self.f(lo);
        let d = self.sub(h, x);
        self.add(d, l)
    }

    /// The recipe whose result is `result`, which is replaced by [`CANONICAL_NAN`] when it
    /// is a NaN (so the NaN bits do not depend on how a host propagates payloads).
    pub fn finish(mut self, name: &'static str, arity: u8, result: Slot) -> Recipe {
        let nan = self.cmp(FCmp::Nan, result, result);
        let q = self.word(CANONICAL_NAN);
        self.sel(nan, q, result);
        let r = Recipe {
            name,
            arity,
            steps: self.steps,
        };
        debug_assert_eq!(r.check(), Ok(()));
        r
    }
}
