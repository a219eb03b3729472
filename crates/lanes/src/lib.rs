//! tangle's shared per-lane semantics: everything one invocation does that does not depend
//! on how an engine schedules lanes, so that every engine (the reference interpreter, the
//! barrier machine of the lowering, the token engine) calls the same code and only their
//! control flow (reconvergence) is written apart — each can then catch the other's
//! reconvergence mistakes without sharing them.
//!
//! - [`value`]: values ([`value::Val`]) and undefined values ([`value::Poison`]), the
//!   per-lane ops (plain ops, conversions, composites, GLSL.std.450), memory layout and
//!   [`value::Region`]s with their undefined-byte shadow;
//! - [`ops`]: one entry point for every per-lane value instruction of the IR;
//! - [`group`]: subgroup operations over a set of lanes;
//! - [`memory`]: variables, access chains, loads, stores, atomics, `array_length` over a
//!   list of regions;
//! - [`builtins`]: the input built-ins of one invocation;
//! - [`constants`]: constants and specialization-constant evaluation.
//!
//! See `docs/interp.md` ("Shared lane semantics").

pub mod builtins;
pub mod constants;
pub mod descriptors;
pub mod group;
pub mod memory;
pub mod ops;
pub mod value;

mod position;

pub use position::Position;

/// A set of lanes of one subgroup (bit `i` = subgroup invocation `i`).
pub type Mask = u128;

/// The mask of lanes `0..n` (all 128 for `n >= 128`).
#[inline]
pub fn lanes_below(n: u32) -> Mask {
    if n >= 128 {
        Mask::MAX
    } else {
        (1 << n) - 1
    }
}

/// The lanes of a mask in increasing order.
#[inline]
pub fn lanes_of(m: Mask) -> impl Iterator<Item = usize> {
    let mut m = m;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}
