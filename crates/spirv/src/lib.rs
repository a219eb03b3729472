//! SPIR-V for tangle: an assembler for the text spirv-dis prints ([`asm`]), the grammar
//! lookups it is built on ([`grammar`]) and helpers for GLSL sources ([`glsl`]).

pub mod asm;
pub mod glsl;
pub mod grammar;

pub use asm::{assemble, AsmError, AsmErrorKind, AsmOptions, TargetEnv};
