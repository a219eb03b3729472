//! How the engine holds one lane's value of an SSA value, a constant or a global's pointer:
//! [`Slot`], 16 bytes with scalars and pointers inline and anything else boxed.
//!
//! The lane arrays (`state.rs`) hold a slot per lane per value of a function, so a slot's
//! size is the arrays' size: an `Option<Val>` takes 32 bytes, and making, zeroing and
//! dropping arrays of them was a large part of a short dispatch. Conformance-style programs
//! compute almost only scalars and pointers; a ballot's `u32x4` of a mask below 2^64 is
//! held inline too ([`Slot::Ballot`]); other composites and undefined values are boxed, and
//! overwriting a boxed slot with another boxed value reuses the box.

use crate::value::Val;
use crate::Mask;

/// One lane's value, or [`Slot::Unset`] before it is defined.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum Slot {
    /// Not defined yet (read as "used before it is defined").
    #[default]
    Unset,
    /// [`Val::Bool`].
    Bool(bool),
    /// [`Val::Bits`].
    Bits(u64),
    /// [`Val::Ptr`].
    Ptr { mem: u32, off: u64 },
    /// The ballot (`u32x4`) of a lane mask below 2^64, [`crate::group::ballot_val`] of it:
    /// its words are the mask's low and high halves and two zeros. Inline, so a ballot
    /// (every lane of the tangle, each time it runs) neither allocates nor frees a box.
    Ballot(u64),
    /// Any other value: a composite or an undefined value.
    Boxed(Box<Val>),
}

impl Slot {
    /// The slot holding `v`.
    #[inline]
    pub(crate) fn of(v: Val) -> Slot {
        match v {
            Val::Bool(b) => Slot::Bool(b),
            Val::Bits(b) => Slot::Bits(b),
            Val::Ptr { mem, off } => Slot::Ptr { mem, off },
            v => Slot::Boxed(Box::new(v)),
        }
    }

    /// Stores `v` in this slot, reusing its box when both are boxed.
    #[inline]
    pub(crate) fn put(&mut self, v: Val) {
        match (self, v) {
            (s, Val::Bool(b)) => *s = Slot::Bool(b),
            (s, Val::Bits(b)) => *s = Slot::Bits(b),
            (s, Val::Ptr { mem, off }) => *s = Slot::Ptr { mem, off },
            (Slot::Boxed(old), v) => **old = v,
            (s, v) => *s = Slot::Boxed(Box::new(v)),
        }
    }

    /// Stores the ballot (`u32x4`) of lane mask `m`, as [`crate::group::ballot_val`] makes
    /// it: inline ([`Slot::Ballot`]) when `m` fits 64 bits, otherwise boxed, writing the
    /// words in place when the slot already holds a four-component vector (a ballot
    /// executed again: no allocation).
    #[inline]
    pub(crate) fn put_ballot(&mut self, m: Mask) {
        if let Ok(low) = u64::try_from(m) {
            crate::state::put(self, Slot::Ballot(low));
            return;
        }
        let word = |i: usize| Val::Bits(((m >> (32 * i)) as u64) & 0xffff_ffff);
        if let Slot::Boxed(b) = self {
            if let Val::Comp(c) = &mut **b {
                if c.len() == 4 {
                    for (i, w) in c.iter_mut().enumerate() {
                        *w = word(i);
                    }
                    return;
                }
            }
        }
        self.put(crate::group::ballot_val(m));
    }

    /// The value held, or `None` when unset.
    #[inline]
    pub(crate) fn get(&self) -> Option<Val> {
        Some(match self {
            Slot::Unset => return None,
            Slot::Bool(b) => Val::Bool(*b),
            Slot::Bits(b) => Val::Bits(*b),
            Slot::Ptr { mem, off } => Val::Ptr {
                mem: *mem,
                off: *off,
            },
            Slot::Ballot(m) => crate::group::ballot_val(Mask::from(*m)),
            Slot::Boxed(v) => (**v).clone(),
        })
    }

    /// The bits of a defined scalar (booleans as 0/1), or `None` for anything else.
    #[inline(always)]
    pub(crate) fn bits(&self) -> Option<u64> {
        match self {
            Slot::Bits(b) => Some(*b),
            Slot::Bool(b) => Some(u64::from(*b)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Born, Poison};
    use std::sync::Arc;

    #[test]
    fn a_slot_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Slot>(), 16);
    }

    #[test]
    fn every_value_comes_back_as_it_went_in() {
        let poison = Arc::new(Poison {
            born: Born::Input,
            why: "test".into(),
        });
        let values = [
            Val::Bool(true),
            Val::Bits(u64::MAX),
            Val::Ptr { mem: 7, off: 12 },
            Val::Comp(vec![Val::Bits(1), Val::Undef(poison.clone())]),
            Val::Undef(poison),
        ];
        for v in &values {
            assert_eq!(Slot::of(v.clone()).get().as_ref(), Some(v));
            // Overwriting any slot with any value gives that value.
            for w in &values {
                let mut s = Slot::of(v.clone());
                s.put(w.clone());
                assert_eq!(s.get().as_ref(), Some(w));
            }
        }
        assert_eq!(Slot::Unset.get(), None);
    }

    #[test]
    fn a_ballot_in_place_is_the_ballot_value() {
        let masks: [Mask; 4] = [0, 1, 0x8000_0000_0000_0001, Mask::MAX];
        for &m in &masks {
            for start in [
                Slot::Unset,
                Slot::Bits(3),
                Slot::of(crate::group::ballot_val(0x1234)),
                Slot::of(Val::Comp(vec![Val::Bits(1); 3])),
            ] {
                let mut s = start;
                s.put_ballot(m);
                assert_eq!(s.get(), Some(crate::group::ballot_val(m)));
            }
        }
    }
}
