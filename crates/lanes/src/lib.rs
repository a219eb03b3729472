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
//! - [`constants`]: constants and specialization-constant evaluation;
//! - [`recipe`]: the transcendental functions, each defined as one sequence of IEEE f32
//!   steps that every engine (the reference, the SASS back end) performs identically.
//!
//! See `docs/interp.md` ("Shared lane semantics").

pub mod builtins;
pub mod constants;
pub mod descriptors;
pub mod group;
pub mod memory;
pub mod ops;
pub mod recipe;
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
    LaneIter {
        low: m as u64,
        high: (m >> 64) as u64,
    }
}

/// [`lanes_of`]'s iterator: the mask as two 64-bit words, so a step is a test, a count of
/// trailing zeros and a clear of the lowest bit on one machine word (a 128-bit mask's take
/// twice the instructions, and every engine's per-lane loop runs on it).
struct LaneIter {
    low: u64,
    high: u64,
}

impl Iterator for LaneIter {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.low != 0 {
            let l = self.low.trailing_zeros() as usize;
            self.low &= self.low - 1;
            Some(l)
        } else if self.high != 0 {
            let l = self.high.trailing_zeros() as usize;
            self.high &= self.high - 1;
            Some(64 + l)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_of_lists_the_set_bits_in_order() {
        let masks: [Mask; 7] = [
            0,
            1,
            1 << 63,
            1 << 64,
            Mask::MAX,
            0x8000_0000_0000_0001_8000_0000_0000_0001,
            lanes_below(96) & !0xf0f0,
        ];
        for m in masks {
            let want: Vec<usize> = (0..128).filter(|l| m >> l & 1 == 1).collect();
            assert_eq!(lanes_of(m).collect::<Vec<_>>(), want, "{m:#x}");
        }
    }
}
