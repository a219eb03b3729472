//! GLSL.std.450's transcendental functions, each *defined* as one fixed sequence of IEEE
//! binary32 operations (a [`Recipe`]), so that every engine computes the same bits.
//!
//! Vulkan gives these functions an error bound, not a value ("Precision and Operation of
//! SPIR-V Instructions"), so any value within it is a valid result. tangle fixes one: the
//! reference evaluates the recipe step by step ([`Recipe::eval`]) and the SASS back end
//! emits the same steps as the same instructions (`FFMA` for [`Step::Fma`], ...), so the
//! simulator's result equals the reference's bit for bit, on every host: each step is a
//! correctly rounded IEEE operation, a comparison, a select or a bit operation, and every
//! NaN result is the one NaN `0x7fffffff` (a final select), so no host's libm or NaN
//! propagation shows through. The polynomials are this crate's own minimax fits
//! (`tools/gen_coefficients.py` writes `coefficients.rs`). See `docs/interp.md`,
//! "Transcendental functions", for each recipe's derivation and measured error.

mod build;
mod coefficients;
mod error;
mod exp_log;
mod functions;

use std::sync::OnceLock;

use tangle_ir::glsl::GlslOp;

pub use build::Builder;
pub use error::ulps;

/// The index of an earlier step of the same recipe, whose result an operand reads.
pub type Slot = u16;

/// The one NaN every recipe returns for a NaN result (NVIDIA's canonical NaN).
pub const CANONICAL_NAN: u32 = 0x7fff_ffff;

/// An ordered float comparison (false when either operand is NaN), or `Nan`: either
/// operand is NaN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FCmp {
    /// `a < b`.
    Lt,
    /// `a > b`.
    Gt,
    /// `a == b` (`-0 == +0`).
    Eq,
    /// `a` or `b` is NaN.
    Nan,
}

/// One step of a recipe. Word steps give a 32-bit word (an f32's bits, or an integer);
/// [`Step::Cmp`] gives a boolean that only [`Step::Sel`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The function's operand `k` (f32 bits).
    Arg(u8),
    /// A constant word.
    Const(u32),
    /// `a * b + c`, rounded once (`FFMA`).
    Fma(Slot, Slot, Slot),
    /// `a * b`, rounded (`FMUL`).
    Mul(Slot, Slot),
    /// `a + b`, rounded (`FADD`).
    Add(Slot, Slot),
    /// `a - b`, rounded (`FADD` with the second operand negated).
    Sub(Slot, Slot),
    /// `a / b`, correctly rounded; a NaN quotient is [`CANONICAL_NAN`] (the back end's
    /// division gives that NaN, whatever the operands' payloads).
    Div(Slot, Slot),
    /// The bitwise and of two words (`LOP3`).
    And(Slot, Slot),
    /// The bitwise or of two words (`LOP3`).
    Or(Slot, Slot),
    /// The wrapping sum of two words as integers (`IADD3`).
    IAdd(Slot, Slot),
    /// A word shifted left by a constant, zeros in (`SHF.L.U32`).
    Shl(Slot, u8),
    /// A word shifted right by a constant, zeros in (`SHF.R.U32.HI`).
    Shr(Slot, u8),
    /// A word shifted right by a constant, copies of its sign bit in (`SHF.R.S32.HI`).
    Sar(Slot, u8),
    /// A float comparison of two words (`FSETP`), a boolean.
    Cmp(FCmp, Slot, Slot),
    /// `if p { a } else { b }` (`SEL`), `p` a boolean step.
    Sel(Slot, Slot, Slot),
}

impl Step {
    /// The slots this step reads.
    pub fn operands(&self) -> Vec<Slot> {
        match *self {
            Step::Arg(_) | Step::Const(_) => vec![],
            Step::Shl(a, _) | Step::Shr(a, _) | Step::Sar(a, _) => vec![a],
            Step::Fma(a, b, c) | Step::Sel(a, b, c) => vec![a, b, c],
            Step::Mul(a, b)
            | Step::Add(a, b)
            | Step::Sub(a, b)
            | Step::Div(a, b)
            | Step::And(a, b)
            | Step::Or(a, b)
            | Step::IAdd(a, b)
            | Step::Cmp(_, a, b) => vec![a, b],
        }
    }

    /// Whether the step gives a boolean rather than a word.
    pub fn is_bool(&self) -> bool {
        matches!(self, Step::Cmp(..))
    }
}

/// A function as a straight-line sequence of steps; its result is the last step's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recipe {
    /// The function's name (GLSL.std.450's).
    pub name: &'static str,
    /// How many operands it takes.
    pub arity: u8,
    /// The steps, each reading earlier ones only.
    pub steps: Vec<Step>,
}

impl Recipe {
    /// The function of the f32 operands `args` (bit patterns), step by step.
    pub fn eval(&self, args: &[u32]) -> u32 {
        let f = f32::from_bits;
        let mut v: Vec<u32> = Vec::with_capacity(self.steps.len());
        for step in &self.steps {
            let g = |s: Slot| v[s as usize];
            let r = match *step {
                Step::Arg(k) => args[k as usize],
                Step::Const(c) => c,
                Step::Fma(a, b, c) => f(g(a)).mul_add(f(g(b)), f(g(c))).to_bits(),
                Step::Mul(a, b) => (f(g(a)) * f(g(b))).to_bits(),
                Step::Add(a, b) => (f(g(a)) + f(g(b))).to_bits(),
                Step::Sub(a, b) => (f(g(a)) - f(g(b))).to_bits(),
                Step::Div(a, b) => {
                    let q = f(g(a)) / f(g(b));
                    if q.is_nan() {
                        CANONICAL_NAN
                    } else {
                        q.to_bits()
                    }
                }
                Step::And(a, b) => g(a) & g(b),
                Step::Or(a, b) => g(a) | g(b),
                Step::IAdd(a, b) => g(a).wrapping_add(g(b)),
                Step::Shl(a, k) => g(a) << k,
                Step::Shr(a, k) => g(a) >> k,
                Step::Sar(a, k) => ((g(a) as i32) >> k) as u32,
                Step::Cmp(c, a, b) => {
                    let (x, y) = (f(g(a)), f(g(b)));
                    u32::from(match c {
                        FCmp::Lt => x < y,
                        FCmp::Gt => x > y,
                        FCmp::Eq => x == y,
                        FCmp::Nan => x.is_nan() || y.is_nan(),
                    })
                }
                Step::Sel(p, a, b) => {
                    if g(p) != 0 {
                        g(a)
                    } else {
                        g(b)
                    }
                }
            };
            v.push(r);
        }
        *v.last().expect("a recipe has steps")
    }

    /// Checks the recipe's shape: operands refer to earlier steps, booleans are read only
    /// as a select's condition and a select's condition is a boolean, arguments are in
    /// range, and the result is a word. Every recipe of [`for_glsl`] passes (a unit test).
    pub fn check(&self) -> Result<(), String> {
        for (i, s) in self.steps.iter().enumerate() {
            if let Step::Shl(_, k) | Step::Shr(_, k) | Step::Sar(_, k) = s {
                if *k >= 32 {
                    return Err(format!("{}: step {i} shifts by {k}", self.name));
                }
            }
            for (k, &o) in s.operands().iter().enumerate() {
                let Some(src) = self.steps.get(o as usize).filter(|_| (o as usize) < i) else {
                    return Err(format!(
                        "{}: step {i} reads step {o}, not before it",
                        self.name
                    ));
                };
                let want_bool = matches!(s, Step::Sel(..)) && k == 0;
                if src.is_bool() != want_bool {
                    return Err(format!(
                        "{}: step {i} operand {k} has the wrong kind",
                        self.name
                    ));
                }
            }
            if let Step::Arg(k) = s {
                if *k >= self.arity {
                    return Err(format!("{}: step {i} reads operand {k}", self.name));
                }
            }
        }
        match self.steps.last() {
            Some(s) if !s.is_bool() => Ok(()),
            _ => Err(format!("{}: no word result", self.name)),
        }
    }
}

/// The recipe that defines `op` on f32 (and, through f32, f16), if `op` is one of the
/// transcendental functions defined so.
pub fn for_glsl(op: GlslOp) -> Option<&'static Recipe> {
    static RECIPES: OnceLock<Vec<(GlslOp, Recipe)>> = OnceLock::new();
    let all = RECIPES.get_or_init(|| {
        vec![
            (GlslOp::Atan, functions::atan()),
            (GlslOp::Atan2, functions::atan2()),
            (GlslOp::Exp2, exp_log::exp2()),
            (GlslOp::Exp, exp_log::exp()),
            (GlslOp::Log2, exp_log::log2()),
            (GlslOp::Log, exp_log::log()),
            (GlslOp::Pow, exp_log::pow()),
        ]
    });
    all.iter().find(|(o, _)| *o == op).map(|(_, r)| r)
}

/// All functions [`for_glsl`] defines.
pub const DEFINED: &[GlslOp] = &[
    GlslOp::Atan,
    GlslOp::Atan2,
    GlslOp::Exp2,
    GlslOp::Exp,
    GlslOp::Log2,
    GlslOp::Log,
    GlslOp::Pow,
];

#[cfg(test)]
mod tests;
