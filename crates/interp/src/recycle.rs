//! Memory regions kept from one dispatch for the next on the same thread.
//!
//! Every lane of a dispatch gets a region per Private, Output and Input global and per
//! function variable it executes (`memory.rs`), each its own allocation, freed when the
//! dispatch ends: on the performance set that was about a tenth of execution in `malloc`
//! and `free`. A dispatch now takes the regions the previous dispatch on its thread left
//! here and makes its regions in them (`tangle_lanes::memory::variable_region_in`, which
//! sets every byte and mark, so nothing of the earlier dispatch shows); when it ends it
//! leaves its own here for the next. Only small regions are kept, and not too many, so
//! what is kept stays bounded.

use std::cell::RefCell;

use crate::value::Region;

/// At most this many regions are kept per thread.
const KEPT: usize = 1 << 14;

/// Only regions whose allocation holds at most this many bytes are kept.
const KEPT_BYTES: usize = 1 << 10;

thread_local! {
    static KEPT_REGIONS: RefCell<Vec<Region>> = const { RefCell::new(Vec::new()) };
}

/// The regions kept on this thread (taken: a dispatch running meanwhile on this thread,
/// which `run_inner`'s second pass never does at the same time, would find none).
pub(crate) fn take() -> Vec<Region> {
    KEPT_REGIONS.with(|k| std::mem::take(&mut *k.borrow_mut()))
}

/// Keeps `spare` (what [`take`] gave, less what was used) and the small regions of
/// `used` for the next dispatch on this thread.
pub(crate) fn keep(mut spare: Vec<Region>, used: impl Iterator<Item = Region>) {
    for r in used {
        if spare.len() >= KEPT {
            break;
        }
        if (1..=KEPT_BYTES).contains(&r.bytes.capacity()) {
            spare.push(r);
        }
    }
    KEPT_REGIONS.with(|k| {
        let mut k = k.borrow_mut();
        if k.is_empty() {
            *k = spare;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_regions_are_kept_and_large_or_empty_ones_are_not() {
        let _ = take();
        let used = [
            Region::defined(vec![1; 4]),
            Region::defined(Vec::new()),
            Region::defined(vec![0; KEPT_BYTES + 1]),
            Region::defined(vec![2; KEPT_BYTES]),
        ];
        keep(Vec::new(), used.into_iter());
        let kept: Vec<usize> = take().iter().map(|r| r.bytes.len()).collect();
        assert_eq!(kept, [4, KEPT_BYTES]);
        assert!(take().is_empty(), "taken once");
        let many = (0..KEPT + 10).map(|_| Region::defined(vec![0; 8]));
        keep(Vec::new(), many);
        assert_eq!(take().len(), KEPT);
    }
}
