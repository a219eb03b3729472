//! Convergence-control tokens beyond the verifier's rules (`docs/tokens.md`):
//!
//! - [`brute`]: the static rules decided by enumerating closed paths and program points, an
//!   oracle written apart from the verifier's cycle-based checks;
//! - [`random`]: random token-annotated control-flow graphs, irreducible ones included, for
//!   comparing the verifier, the brute-force oracle and LLVM's `opt`.

pub mod brute;
pub mod random;
