//! SPIR-V for tangle: reading binary modules into the IR ([`reader`]) and writing the IR
//! back to SPIR-V ([`writer`]).

pub mod glsl;
pub mod glslang;
pub mod reader;
pub mod writer;
