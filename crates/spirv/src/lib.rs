//! SPIR-V for tangle: an assembler for the text spirv-dis prints ([`asm`]) and the grammar
//! lookups it is built on ([`grammar`]), a disassembler equal to spirv-dis ([`dis`]), reading binary modules into the IR ([`reader`]),
//! writing the IR back to SPIR-V ([`writer`]), and helpers for GLSL sources ([`glsl`],
//! [`glslang`]).

pub mod asm;
pub mod dis;
mod find_tool;
pub mod glsl;
pub mod glslang;
pub mod grammar;
pub mod reader;
pub mod spirv_opt;
pub mod writer;

pub use asm::{assemble, AsmError, AsmErrorKind, AsmOptions, TargetEnv};
