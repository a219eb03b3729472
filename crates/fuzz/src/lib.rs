//! `tangle-fuzz`: random structured reconvergence programs and two independent oracles.
//!
//! - [`amber`]: the program as an AmberScript file with expectations;
//! - [`ast`]: the generator's own program form (if/else on lane masks, uniform values, loop
//!   indices and invocation indices; counted and infinite loops; break, continue, return;
//!   ballot and elect observations recorded per invocation);
//! - [`generate`]: the seeded generator (nesting knob, size budget);
//! - [`build`]: the program as an IR module, through the IR builder's structured helpers;
//! - [`glsl`]: the program as a GLSL compute shader, for glslang;
//! - [`cuda`]: the program as a CUDA kernel, for nvcc (observations over `__activemask()`);
//! - [`mask`]: the mask-stack simulator over the program form, the second oracle;
//! - [`compare`]: both oracles on one program at several subgroup sizes;
//! - [`campaign`]: many seeds on several threads, with a summary;
//! - [`shrink`]: greedy reduction of a failing program to a small reproducer;
//! - [`lowered`]: the lowered engines: the program lowered to barriers and run on the
//!   barrier machine under scheduling policies, against the reference;
//! - [`ptxas`]: the `ptxas` engine: the CUDA kernels compiled by nvcc and run on the SASS
//!   simulator under scheduling policies, judged against the reference;
//! - [`sass`]: the `sass` engines: the program compiled by tangle's back end and run on the
//!   SASS simulator in hazard mode under scheduling policies, against the reference;
//! - [`cost`]: tangle's code against ptxas's on the same programs: compile time,
//!   registers, instructions and simulated cycles, with a summary.
//!
//! See `docs/fuzz.md` for the program mix and the oracle's design.

pub mod amber;
pub mod ast;
pub mod build;
pub mod campaign;
mod clike;
pub mod compare;
pub mod cost;
pub mod cuda;
pub mod generate;
pub mod glsl;
pub mod lowered;
pub mod mask;
pub mod ptxas;
pub mod sass;
pub mod shrink;

pub use ast::Program;
pub use compare::{compare, Mismatch};
pub use generate::{generate, GenConfig};
