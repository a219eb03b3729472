//! How the engine holds one lane's value of an SSA value, a constant or a global's pointer:
//! [`Slot`], 16 bytes of plain data with scalars and pointers inline, and [`Store`], where
//! the values a slot holds by index live.
//!
//! The lane arrays (`state.rs`) hold a slot per lane per value of a function, so a slot's
//! size is the arrays' size: an `Option<Val>` takes 32 bytes, and making, zeroing and
//! dropping arrays of them was a large part of a short dispatch. Conformance-style programs
//! compute almost only scalars and pointers; a ballot's `u32x4` of a mask below 2^64 is
//! held inline too ([`Slot::Ballot`]). A module constant of another kind is held by its
//! number ([`Slot::Const`]) and any other value (a composite, an undefined value) by its
//! index in the subgroup's [`Store`] ([`Slot::Stored`]), so a slot owns nothing: copying
//! one is copying 16 bytes and a lane array is dropped or reused without a loop over it.
//!
//! A stored value never changes after it is pushed: writing a slot pushes a new value
//! instead of overwriting the old one in place. So slots copied between frames (call
//! arguments, return values, phis) may share an index and none can see another's later
//! writes. The values nothing refers to any more are dropped by [`Store::collect`], which
//! the engine runs between instructions when the store has grown enough.

use crate::state::FuncValues;
use crate::value::Val;
use crate::Mask;

/// One lane's value, or [`Slot::Unset`] before it is defined.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
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
    /// (every lane of the tangle, each time it runs) stores nothing in the [`Store`].
    Ballot(u64),
    /// A module constant that is not a scalar or a pointer: its number in the
    /// interpreter's constants.
    Const(u32),
    /// Any other value (a composite or an undefined value): its index in the subgroup's
    /// [`Store`].
    Stored(u32),
}

impl Slot {
    /// The slot of module constant number `c` whose value is `v`: inline where it fits,
    /// otherwise by its number.
    pub(crate) fn constant(c: usize, v: &Val) -> Slot {
        match *v {
            Val::Bool(b) => Slot::Bool(b),
            Val::Bits(b) => Slot::Bits(b),
            Val::Ptr { mem, off } => Slot::Ptr { mem, off },
            _ => Slot::Const(c as u32),
        }
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

/// The fewest values a [`Store`] holds before it is collected.
const FIRST_LIMIT: usize = 256;

/// The values of one subgroup's slots that are not inline ([`Slot::Stored`]), each pushed
/// once and never changed.
#[derive(Debug)]
pub(crate) struct Store {
    vals: Vec<Val>,
    /// How many values it holds before [`Store::collect`] is due.
    limit: usize,
}

impl Default for Store {
    fn default() -> Self {
        Store {
            vals: Vec::new(),
            limit: FIRST_LIMIT,
        }
    }
}

impl Store {
    /// The slot holding `v`: inline where it fits, otherwise a new stored value.
    #[inline]
    pub(crate) fn slot_of(&mut self, v: Val) -> Slot {
        match v {
            Val::Bool(b) => Slot::Bool(b),
            Val::Bits(b) => Slot::Bits(b),
            Val::Ptr { mem, off } => Slot::Ptr { mem, off },
            v => {
                self.vals.push(v);
                Slot::Stored((self.vals.len() - 1) as u32)
            }
        }
    }

    /// The slot holding the ballot (`u32x4`) of lane mask `m`, as
    /// [`crate::group::ballot_val`] makes it: inline ([`Slot::Ballot`]) when `m` fits 64
    /// bits, otherwise stored.
    #[inline]
    pub(crate) fn ballot(&mut self, m: Mask) -> Slot {
        match u64::try_from(m) {
            Ok(low) => Slot::Ballot(low),
            Err(_) => self.slot_of(crate::group::ballot_val(m)),
        }
    }

    /// The value `s` holds by reference ([`Slot::Stored`] here, [`Slot::Const`] in
    /// `consts`), or `None` for any other slot.
    #[inline]
    pub(crate) fn held<'s>(&'s self, s: &Slot, consts: &'s [Val]) -> Option<&'s Val> {
        match *s {
            Slot::Stored(i) => Some(&self.vals[i as usize]),
            Slot::Const(c) => Some(&consts[c as usize]),
            _ => None,
        }
    }

    /// The value `s` holds (constants' values in `consts`), or `None` when unset.
    #[inline]
    pub(crate) fn get(&self, s: &Slot, consts: &[Val]) -> Option<Val> {
        Some(match *s {
            Slot::Unset => return None,
            Slot::Bool(b) => Val::Bool(b),
            Slot::Bits(b) => Val::Bits(b),
            Slot::Ptr { mem, off } => Val::Ptr { mem, off },
            Slot::Ballot(m) => crate::group::ballot_val(Mask::from(m)),
            Slot::Stored(_) | Slot::Const(_) => self.held(s, consts)?.clone(),
        })
    }

    /// How many values it holds.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.vals.len()
    }

    /// Whether it has grown enough since the last [`Store::collect`] for the next to be due.
    #[inline(always)]
    pub(crate) fn due(&self) -> bool {
        self.vals.len() >= self.limit
    }

    /// Drops every value no slot of `values` refers to, renumbering the rest (in the order
    /// their first slot is met) and rewriting the slots. `values` must be every lane array
    /// of the subgroup, and no other stored slot may be held anywhere (the engine calls it
    /// between instructions). The next collection is due once as many values as now live
    /// (at least a quarter of the slots, and [`FIRST_LIMIT`]) have been pushed, so the
    /// work of a collection is spread over the pushes before it.
    pub(crate) fn collect(&mut self, values: &mut [FuncValues]) {
        let mut renumbered = vec![u32::MAX; self.vals.len()];
        let mut live = Vec::new();
        let mut slots = 0;
        for fv in values.iter_mut() {
            slots += fv.vals.len();
            for s in fv.vals.iter_mut() {
                if let Slot::Stored(i) = s {
                    let new = &mut renumbered[*i as usize];
                    if *new == u32::MAX {
                        *new = live.len() as u32;
                        live.push(std::mem::replace(
                            &mut self.vals[*i as usize],
                            Val::Bool(false),
                        ));
                    }
                    *i = *new;
                }
            }
        }
        self.limit = live.len() + live.len().max(slots / 4).max(FIRST_LIMIT);
        self.vals = live;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Born, Poison};
    use std::sync::Arc;

    #[test]
    fn a_slot_is_sixteen_bytes_of_plain_data() {
        fn plain<T: Copy>() {}
        plain::<Slot>();
        assert_eq!(std::mem::size_of::<Slot>(), 16);
    }

    fn poison(why: &str) -> Arc<Poison> {
        Arc::new(Poison {
            born: Born::Input,
            why: why.into(),
        })
    }

    #[test]
    fn every_value_comes_back_as_it_went_in() {
        let p = poison("test");
        let values = [
            Val::Bool(true),
            Val::Bits(u64::MAX),
            Val::Ptr { mem: 7, off: 12 },
            Val::Comp(vec![Val::Bits(1), Val::Undef(p.clone())]),
            Val::Undef(p),
        ];
        let mut store = Store::default();
        for v in &values {
            let s = store.slot_of(v.clone());
            assert_eq!(store.get(&s, &[]).as_ref(), Some(v));
        }
        // Module constants: inline, or by their number in the constants.
        for (c, v) in values.iter().enumerate() {
            let s = Slot::constant(c, v);
            assert_eq!(store.get(&s, &values).as_ref(), Some(v));
        }
        assert_eq!(store.get(&Slot::Unset, &[]), None);
    }

    #[test]
    fn a_ballot_slot_holds_the_ballot_value() {
        let masks: [Mask; 4] = [0, 1, 0x8000_0000_0000_0001, Mask::MAX];
        let mut store = Store::default();
        for &m in &masks {
            let s = store.ballot(m);
            assert_eq!(store.get(&s, &[]), Some(crate::group::ballot_val(m)));
        }
    }

    /// The lane arrays of two functions under random writes, copies between them (the
    /// way calls, returns and phis copy slots: two slots then share a stored value),
    /// resets and collections, against a model holding each slot's value itself. Every
    /// slot reads its model's value after every step (a write to one slot never shows in
    /// a copy of it), and a collection keeps exactly the values some slot refers to.
    #[test]
    fn stored_values_survive_copies_writes_and_collections() {
        let mut rng = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let sizes = [24usize, 40];
        let mut values: Vec<FuncValues> = sizes
            .iter()
            .map(|&n| FuncValues {
                vals: vec![Slot::Unset; n],
                ..Default::default()
            })
            .collect();
        let mut model: Vec<Vec<Option<Val>>> = sizes.iter().map(|&n| vec![None; n]).collect();
        let mut store = Store::default();
        let mut collections = 0;
        for step in 0..20_000u64 {
            let (f, i) = ((next() % 2) as usize, next() as usize);
            let i = i % sizes[f];
            match next() % 8 {
                0..=2 => {
                    let v = match next() % 4 {
                        0 => Val::Bits(step),
                        1 => Val::Undef(poison(&format!("step {step}"))),
                        _ => Val::Comp(vec![Val::Bits(step), Val::Bool(step % 2 == 0)]),
                    };
                    values[f].vals[i] = store.slot_of(v.clone());
                    model[f][i] = Some(v);
                }
                3..=5 => {
                    let (g, j) = ((next() % 2) as usize, next() as usize);
                    let j = j % sizes[g];
                    values[g].vals[j] = values[f].vals[i];
                    model[g][j] = model[f][i].clone();
                }
                6 => {
                    values[f].vals[i] = Slot::Unset;
                    model[f][i] = None;
                }
                _ => {
                    if store.due() {
                        store.collect(&mut values);
                        collections += 1;
                        let mut live: Vec<u32> = values
                            .iter()
                            .flat_map(|fv| fv.vals.iter())
                            .filter_map(|s| match s {
                                Slot::Stored(k) => Some(*k),
                                _ => None,
                            })
                            .collect();
                        live.sort_unstable();
                        live.dedup();
                        assert_eq!(live, (0..store.len() as u32).collect::<Vec<_>>());
                    }
                }
            }
            for (fv, want) in values.iter().zip(&model) {
                for (s, w) in fv.vals.iter().zip(want) {
                    assert_eq!(store.get(s, &[]).as_ref(), w.as_ref(), "step {step}");
                }
            }
        }
        assert!(
            collections > 10,
            "the store was collected ({collections} times)"
        );
    }
}
