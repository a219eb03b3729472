//! The register state at one program point: which value each register holds, and where each
//! live value can be found. A value may be in several places at once — its own class's
//! register, a register of a class it spills into (a predicate's copy in a GPR), its spill
//! slot — because SSA values never change, so every copy stays valid until dropped.

use rustc_hash::FxHashMap as HashMap;

use crate::function::{Limits, RegClass, ValueId};
use crate::output::PhysReg;

/// "No register" in [`ValueLoc::regs`].
pub(crate) const NONE: u16 = u16::MAX;

/// The owner of a register the client reserved: an id past every value and temporary, so
/// the allocator treats it as pinned and never looks it up.
pub(crate) const RESERVED: ValueId = ValueId(u32::MAX);

/// Where one value is: a register per class (the first of a tuple, or [`NONE`]) and whether
/// its spill slot holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ValueLoc {
    /// Per [`RegClass::index`], the value's register in that class.
    pub(crate) regs: [u16; 5],
    /// Whether the value's spill slot holds it.
    pub(crate) in_slot: bool,
}

impl ValueLoc {
    const EMPTY: ValueLoc = ValueLoc {
        regs: [NONE; 5],
        in_slot: false,
    };

    /// Whether the value is anywhere at all.
    pub(crate) fn is_empty(&self) -> bool {
        !self.in_slot && self.regs.iter().all(|r| *r == NONE)
    }
}

/// The register files and the values' locations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct State {
    /// Per class, per register: the value whose word it holds.
    owner: [Vec<Option<ValueId>>; 5],
    /// Every value held anywhere.
    locs: HashMap<ValueId, ValueLoc>,
}

impl State {
    /// Empty register files of the sizes `limits` allows, with the `reserved` registers
    /// held for good by [`RESERVED`] (never moved, evicted or handed out).
    pub(crate) fn new(limits: &Limits, reserved: &[PhysReg]) -> State {
        let file = |class: RegClass| vec![None; usize::from(limits.of(class))];
        let mut owner = [
            file(RegClass::Gpr),
            file(RegClass::Pred),
            file(RegClass::UGpr),
            file(RegClass::UPred),
            file(RegClass::Barrier),
        ];
        for reg in reserved {
            if let Some(slot) = owner[reg.class.index()].get_mut(usize::from(reg.index)) {
                *slot = Some(RESERVED);
            }
        }
        State {
            owner,
            locs: HashMap::default(),
        }
    }

    /// The value holding register `reg` of `class`, if any.
    pub(crate) fn owner(&self, class: RegClass, reg: u16) -> Option<ValueId> {
        self.owner[class.index()]
            .get(usize::from(reg))
            .copied()
            .flatten()
    }

    /// Where `value` is (empty when nowhere).
    pub(crate) fn loc(&self, value: ValueId) -> ValueLoc {
        self.locs.get(&value).copied().unwrap_or(ValueLoc::EMPTY)
    }

    /// `value`'s register in `class`.
    pub(crate) fn reg(&self, value: ValueId, class: RegClass) -> Option<u16> {
        let reg = self.loc(value).regs[class.index()];
        (reg != NONE).then_some(reg)
    }

    /// Every value held anywhere, in increasing order (deterministic walks).
    pub(crate) fn values(&self) -> Vec<ValueId> {
        let mut values: Vec<ValueId> = self.locs.keys().copied().collect();
        values.sort_unstable();
        values
    }

    /// Whether registers `start..start+size` of `class` are all free.
    pub(crate) fn is_free(&self, class: RegClass, start: u16, size: u16) -> bool {
        let file = &self.owner[class.index()];
        (start..start + size).all(|r| file.get(usize::from(r)).is_some_and(|o| o.is_none()))
    }

    /// Puts `value` (of `size` words) into `class` at `start`; the registers must be free
    /// and the value not already in the class.
    pub(crate) fn set(&mut self, value: ValueId, class: RegClass, start: u16, size: u16) {
        debug_assert!(
            self.is_free(class, start, size),
            "{value} into busy {}{start}",
            class.prefix()
        );
        let file = &mut self.owner[class.index()];
        for r in start..start + size {
            file[usize::from(r)] = Some(value);
        }
        let loc = self.locs.entry(value).or_insert(ValueLoc::EMPTY);
        debug_assert_eq!(loc.regs[class.index()], NONE);
        loc.regs[class.index()] = start;
    }

    /// Takes `value` out of `class` (no-op when it is not there).
    pub(crate) fn clear(&mut self, value: ValueId, class: RegClass, size: u16) {
        let Some(loc) = self.locs.get_mut(&value) else {
            return;
        };
        let start = std::mem::replace(&mut loc.regs[class.index()], NONE);
        if start != NONE {
            let file = &mut self.owner[class.index()];
            for r in start..start + size {
                file[usize::from(r)] = None;
            }
        }
        if loc.is_empty() {
            self.locs.remove(&value);
        }
    }

    /// Marks whether `value`'s spill slot holds it.
    pub(crate) fn set_in_slot(&mut self, value: ValueId, in_slot: bool) {
        if in_slot {
            self.locs.entry(value).or_insert(ValueLoc::EMPTY).in_slot = true;
        } else if let Some(loc) = self.locs.get_mut(&value) {
            loc.in_slot = false;
            if loc.is_empty() {
                self.locs.remove(&value);
            }
        }
    }

    /// Drops `value` everywhere.
    pub(crate) fn release(&mut self, value: ValueId, size: u16) {
        for class in RegClass::ALL {
            self.clear(value, class, size);
        }
        self.locs.remove(&value);
    }

    /// Whether `value` is somewhere other than its register in `class`.
    pub(crate) fn elsewhere(&self, value: ValueId, class: RegClass) -> bool {
        let loc = self.loc(value);
        loc.in_slot
            || RegClass::ALL
                .iter()
                .any(|c| *c != class && loc.regs[c.index()] != NONE)
    }

    /// The distinct values holding any register of `start..start+size` in `class`.
    pub(crate) fn occupants(&self, class: RegClass, start: u16, size: u16) -> Vec<ValueId> {
        let mut found: Vec<ValueId> = Vec::new();
        for r in start..start + size {
            if let Some(value) = self.owner(class, r) {
                if !found.contains(&value) {
                    found.push(value);
                }
            }
        }
        found
    }

    /// The lowest free aligned window of `size` registers below `cap` in `class`, preferring
    /// `prefer` when it is free, and skipping registers for which `skip` says so.
    pub(crate) fn find_free(
        &self,
        class: RegClass,
        size: u16,
        cap: u16,
        prefer: Option<u16>,
        skip: &dyn Fn(u16) -> bool,
    ) -> Option<u16> {
        let fits = |start: u16| {
            start % size == 0
                && start + size <= cap
                && self.is_free(class, start, size)
                && !(start..start + size).any(skip)
        };
        if let Some(start) = prefer {
            if fits(start) {
                return Some(start);
            }
        }
        if size >= 4 || !matches!(class, RegClass::Gpr | RegClass::UGpr) {
            return (0..cap)
                .step_by(usize::from(size))
                .find(|&start| fits(start));
        }
        // Best fit: the free window in the aligned quad with the fewest free registers, so
        // scalars and pairs fill holes and whole quads stay free for 128-bit values.
        let file = &self.owner[class.index()];
        let free_in_quad = |start: u16| {
            let base = start / 4 * 4;
            (base..(base + 4).min(cap))
                .filter(|r| file[usize::from(*r)].is_none())
                .count()
        };
        (0..cap)
            .step_by(usize::from(size))
            .filter(|&start| fits(start))
            .min_by_key(|&start| (free_in_quad(start), start))
    }
}
