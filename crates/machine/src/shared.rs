//! Which shared-memory words the exhaustive search must interleave at: the words two
//! lanes of one workgroup have been seen to touch, one of them writing.
//!
//! An access to memory other lanes can reach is a choice point of the search only when it
//! touches such a *conflicting* word; any other access is run as a step of the group's own
//! (it commutes with everything). The set starts empty and grows as runs show conflicts:
//! every access the search executes is logged per 4-byte word with the lane that made it,
//! over all runs. A new conflicting word makes the search start again with the larger set
//! (`explore.rs`), since the runs explored so far took that word's accesses as private.
//!
//! Why this loses no outcome: take a search that finished with the set `S` and no new
//! conflict, and any execution `E` from a state the search reached where it ran a group's
//! access `t` to words outside `S` without a choice. If `t` commutes with every step
//! other groups take before it in `E`, moving it first gives an equivalent execution from
//! the state after `t`, which the search reached. Otherwise let `u` be the first such step
//! that does not commute with `t`: `t` and `u` are accesses by different lanes to one word
//! with a write among them (nothing else fails to commute with a memory access). The
//! execution `t` then `E` up to `u` exists (nothing before `u` conflicts with `t`), and by
//! the same argument from the state after `t` an explored run contains the same events
//! as it, `t` and `u` among them: the log would have seen the conflict. So every
//! execution is equivalent to an explored one. The log keeps accesses of all runs, not
//! one run's: a superset of the conflicts, which only adds choice points.
//!
//! The log also says when two *subgroups* conflict: their interleavings are then not
//! independent and the search explores their product (`explore.rs`).

use std::collections::{HashMap, HashSet};

/// A word of shared memory: (region, byte offset / 4).
pub(crate) type Word = (u32, u64);

/// A lane: (workgroup index, subgroup, lane).
pub(crate) type Accessor = (u64, u32, u32);

/// Who touched a word first in a workgroup, and how it has been touched since.
#[derive(Clone, Copy, Debug)]
struct Touch {
    /// (subgroup, lane) of the first access.
    owner: (u32, u32),
    /// Whether the owner wrote it.
    wrote: bool,
    /// Whether another lane read it.
    read_by_others: bool,
}

/// The conflicting words and the log of accesses behind them.
#[derive(Default, Debug)]
pub(crate) struct SharedWords {
    conflicting: HashSet<Word>,
    /// Per (workgroup index, word): its accesses (workgroups run one after another, so
    /// accesses of two workgroups never interleave).
    log: HashMap<(u64, Word), Touch>,
    /// A conflicting word was found since the last [`SharedWords::take_news`].
    news: bool,
    /// Two subgroups of one workgroup conflict on a word.
    coupled: bool,
}

/// The words of bytes `lo..hi`.
pub(crate) fn words(lo: u64, hi: u64) -> std::ops::Range<u64> {
    lo / 4..hi.div_ceil(4)
}

impl SharedWords {
    /// Whether bytes `lo..hi` of region `mem` touch a conflicting word.
    pub(crate) fn conflicts(&self, mem: u32, lo: u64, hi: u64) -> bool {
        !self.conflicting.is_empty() && words(lo, hi).any(|w| self.conflicting.contains(&(mem, w)))
    }

    /// Logs an access to bytes `lo..hi` of region `mem` by `who`.
    pub(crate) fn log(&mut self, who: Accessor, mem: u32, lo: u64, hi: u64, write: bool) {
        let (wg, subgroup, lane) = who;
        let who = (subgroup, lane);
        for w in words(lo, hi) {
            let word = (mem, w);
            let t = self.log.entry((wg, word)).or_insert(Touch {
                owner: who,
                wrote: write,
                read_by_others: false,
            });
            let conflict = if t.owner == who {
                t.wrote |= write;
                write && t.read_by_others
            } else if write || t.wrote {
                true
            } else {
                t.read_by_others = true;
                false
            };
            if conflict {
                if t.owner.0 != subgroup {
                    self.news |= !self.coupled;
                    self.coupled = true;
                }
                if self.conflicting.insert(word) {
                    self.news = true;
                }
            }
        }
    }

    /// Whether anything that invalidates the runs explored so far was found since the
    /// last call: a new conflicting word, or the first conflict between subgroups.
    pub(crate) fn take_news(&mut self) -> bool {
        std::mem::take(&mut self.news)
    }

    /// Whether two subgroups of a workgroup conflict on a word.
    pub(crate) fn coupled(&self) -> bool {
        self.coupled
    }

    /// How many words conflict.
    pub(crate) fn conflicting_words(&self) -> usize {
        self.conflicting.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_conflicts_when_two_lanes_touch_it_and_one_writes() {
        let mut s = SharedWords::default();
        // Reads by many lanes: no conflict.
        s.log((0, 0, 0), 1, 0, 4, false);
        s.log((0, 0, 1), 1, 0, 4, false);
        assert!(!s.conflicts(1, 0, 4) && !s.take_news());
        // The first reader writes after another lane read: a conflict.
        s.log((0, 0, 0), 1, 0, 4, true);
        assert!(s.conflicts(1, 0, 4) && s.conflicts(1, 3, 5) && !s.conflicts(1, 4, 8));
        assert!(s.take_news() && !s.take_news() && !s.coupled());
        // One lane reading and writing its own word: none.
        s.log((0, 0, 2), 1, 8, 12, false);
        s.log((0, 0, 2), 1, 8, 12, true);
        assert!(!s.conflicts(1, 8, 12));
        // Another workgroup's lanes never interleave with these.
        s.log((1, 0, 3), 1, 8, 12, true);
        assert!(!s.conflicts(1, 8, 12) && !s.take_news());
        // A lane of another subgroup writing a word a lane read: coupled.
        s.log((0, 1, 0), 1, 8, 10, true);
        assert!(s.conflicts(1, 8, 12) && s.coupled() && s.take_news());
        assert_eq!(s.conflicting_words(), 2);
    }
}
