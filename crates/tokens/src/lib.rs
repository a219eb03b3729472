//! Convergence-control tokens beyond the verifier's rules (`docs/tokens.md`):
//!
//! - [`brute`]: the static rules decided by enumerating closed paths and program points, an
//!   oracle written apart from the verifier's cycle-based checks;
//! - [`random`]: random token-annotated control-flow graphs, irreducible ones included, for
//!   comparing the verifier, the brute-force oracle and LLVM's `opt`;
//! - [`infer`]: token inference for structured functions (pass `infer-tokens`);
//! - [`preheader`]: token inference for lowered functions with seed 004's preheader
//!   transform for natural loops inside irreducible cycles (pass `infer-tokens-cfg`);
//! - [`engine`]: the form the token engine runs (tokens inferred, structure dropped);
//! - [`PASSES`]: both passes, for the pipeline.

pub mod brute;
pub mod engine;
pub mod infer;
pub mod preheader;
pub mod random;

use tangle_ir::pipeline::Pass;

/// The token passes, to be looked up beside `tangle_ir::pipeline::PASSES`.
pub const PASSES: &[Pass] = &[
    Pass::module(
        "infer-tokens",
        "structured functions: conv_entry, a heart in each loop header, every convergent operation on its innermost loop construct's heart (maximal reconvergence)",
        infer::run,
    ),
    Pass::module(
        "infer-tokens-cfg",
        "lowered functions: tokens by cycles, with an anchor in a new preheader for each natural loop inside an irreducible cycle (seed 004)",
        preheader::run,
    ),
];
