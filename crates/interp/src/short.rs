//! [`Short`]: a list of at most a few items kept inline, for the decoded operands and
//! operand types of an instruction (`decode.rs`).
//!
//! Nearly every instruction has one to four operands (an access chain into a record of
//! an array in a block: the base and three indices); decoding a module gave each
//! instruction two heap vectors, and making and dropping them (about 1,300 allocations
//! per fuzz program) was a fifth of preparing and tearing down a dispatch. A `Short` of
//! up to [`INLINE`] items allocates nothing; a longer one (a call, a composite) is one
//! boxed slice, and an empty one is an empty boxed slice, which does not allocate either.

use std::ops::{Deref, DerefMut};

/// How many items a [`Short`] holds without a heap allocation.
pub(crate) const INLINE: usize = 4;

/// A list of `Copy` items, inline up to [`INLINE`] of them (see the module docs); reads
/// and writes as a slice.
#[derive(Clone, Debug)]
pub(crate) enum Short<T: Copy> {
    /// `len` items (1 to [`INLINE`]) at the front of the array; the rest repeat the first.
    Inline { len: u8, items: [T; INLINE] },
    /// Any other length (0, or more than [`INLINE`]).
    Heap(Box<[T]>),
}

impl<T: Copy> Default for Short<T> {
    fn default() -> Self {
        Short::Heap(Box::default())
    }
}

impl<T: Copy> FromIterator<T> for Short<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut iter = iter.into_iter();
        let Some(first) = iter.next() else {
            return Short::default();
        };
        let mut items = [first; INLINE];
        let mut len = 1;
        for x in iter.by_ref() {
            if len == INLINE {
                // Longer than the inline room: everything so far, this one and the rest.
                let mut v = Vec::with_capacity(INLINE + 1 + iter.size_hint().0);
                v.extend_from_slice(&items);
                v.push(x);
                v.extend(iter);
                return Short::Heap(v.into_boxed_slice());
            }
            items[len] = x;
            len += 1;
        }
        Short::Inline {
            len: len as u8,
            items,
        }
    }
}

impl<T: Copy> Deref for Short<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        match self {
            Short::Inline { len, items } => &items[..*len as usize],
            Short::Heap(b) => b,
        }
    }
}

impl<T: Copy> DerefMut for Short<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Short::Inline { len, items } => &mut items[..*len as usize],
            Short::Heap(b) => b,
        }
    }
}

impl<'s, T: Copy> IntoIterator for &'s Short<T> {
    type Item = &'s T;
    type IntoIter = std::slice::Iter<'s, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length from 0 to past the inline room reads back as the vector it was made
    /// from, inline exactly when it fits, and writes through the slice.
    #[test]
    fn short_lists_read_back_what_they_were_made_from() {
        for n in 0..=INLINE + 3 {
            let want: Vec<u32> = (0..n as u32).map(|i| 10 + i).collect();
            let mut s: Short<u32> = want.iter().copied().collect();
            assert_eq!(&s[..], &want[..], "length {n}");
            assert_eq!(
                matches!(s, Short::Inline { .. }),
                (1..=INLINE).contains(&n),
                "length {n} inline"
            );
            if n > 0 {
                s[n - 1] = 99;
                assert_eq!(s.last(), Some(&99));
                assert_eq!(s.iter().count(), n);
            }
        }
    }
}
