//! A short list stored inside its owner: up to `N` items inline, longer lists behind one
//! pointer.
//!
//! The IR's records hold many short lists: a phi's predecessors, a composite access's
//! literal indices, a block's instructions. As a `Vec` each is 24 bytes in the record plus
//! a heap block of its own, and every pass that reads the record and then the list touches
//! two places in memory (on functions of 100k instructions, a last-level cache miss each:
//! docs/lowering-speed.md, round 7). A [`SmallList`] keeps up to `N` items in the record
//! and moves a longer list to the heap behind a single pointer, so the record stays as
//! small as the inline items allow (16 bytes for three `u32`s, 24 for five). It reads like
//! a slice (it dereferences to `[T]`) and has the `Vec` methods the passes use; it compares
//! and hashes as the slice does, so it hashes exactly as the `Vec` it replaces.

use std::fmt;
use std::ops::{Deref, DerefMut};

/// An item a [`SmallList`] can hold: a `Copy` type with a filler for unused inline slots
/// (never read: the length bounds every access).
pub trait ListItem: Copy {
    /// The value unused inline slots hold.
    const FILLER: Self;
}

impl ListItem for u32 {
    const FILLER: Self = 0;
}

#[derive(Clone)]
enum Repr<T: ListItem, const N: usize> {
    Inline {
        len: u8,
        items: [T; N],
    },
    // Boxed on purpose: one pointer (8 bytes) in the record instead of the `Vec`'s 24; the
    // extra allocation is paid only by lists longer than `N`.
    #[allow(clippy::box_collection)]
    Heap(Box<Vec<T>>),
}

/// A list of `Copy` items, inline up to `N` (at most 255), on the heap beyond.
#[derive(Clone)]
pub struct SmallList<T: ListItem, const N: usize>(Repr<T, N>);

impl<T: ListItem, const N: usize> SmallList<T, N> {
    /// How many items are stored without a heap block.
    pub const INLINE: usize = N;

    /// An empty list.
    pub fn new() -> Self {
        const { assert!(N <= u8::MAX as usize, "inline capacity fits in u8") };
        SmallList(Repr::Inline {
            len: 0,
            items: [T::FILLER; N],
        })
    }

    /// An empty list with room for `capacity` items.
    pub fn with_capacity(capacity: usize) -> Self {
        let mut list = Self::new();
        list.reserve(capacity);
        list
    }

    /// Whether the items live on the heap (more than `N` of them, now or once).
    pub fn spilled(&self) -> bool {
        matches!(self.0, Repr::Heap(_))
    }

    /// Moves the items to the heap with room for `capacity`, and returns that `Vec`.
    fn spill(&mut self, capacity: usize) -> &mut Vec<T> {
        if let Repr::Inline { len, items } = &self.0 {
            let mut heap = Vec::with_capacity(capacity.max(N * 2));
            heap.extend_from_slice(&items[..*len as usize]);
            self.0 = Repr::Heap(Box::new(heap));
        }
        match &mut self.0 {
            Repr::Heap(heap) => heap,
            Repr::Inline { .. } => unreachable!("spilled just above"),
        }
    }

    /// Makes room for `additional` more items.
    pub fn reserve(&mut self, additional: usize) {
        let wanted = self.len() + additional;
        match &mut self.0 {
            Repr::Inline { .. } if wanted <= N => {}
            Repr::Inline { .. } => {
                self.spill(wanted);
            }
            Repr::Heap(heap) => heap.reserve(additional),
        }
    }

    /// Makes room for `additional` more items (as [`SmallList::reserve`]).
    pub fn reserve_exact(&mut self, additional: usize) {
        self.reserve(additional);
    }

    /// Appends `item`.
    pub fn push(&mut self, item: T) {
        match &mut self.0 {
            Repr::Inline { len, items } if (*len as usize) < N => {
                items[*len as usize] = item;
                *len += 1;
            }
            Repr::Inline { .. } => self.spill(N + 1).push(item),
            Repr::Heap(heap) => heap.push(item),
        }
    }

    /// Removes and returns the last item.
    pub fn pop(&mut self) -> Option<T> {
        match &mut self.0 {
            Repr::Inline { len, items } => {
                if *len == 0 {
                    return None;
                }
                *len -= 1;
                Some(items[*len as usize])
            }
            Repr::Heap(heap) => heap.pop(),
        }
    }

    /// Inserts `item` at `index`, moving the later ones up (panics past the end, as `Vec`).
    pub fn insert(&mut self, index: usize, item: T) {
        assert!(index <= self.len(), "index {index} past the end");
        self.push(item);
        self[index..].rotate_right(1);
    }

    /// Removes and returns the item at `index`, moving the later ones down (panics past
    /// the end, as `Vec`).
    pub fn remove(&mut self, index: usize) -> T {
        let out = self[index];
        self[index..].rotate_left(1);
        self.pop();
        out
    }

    /// Keeps only the items for which `keep` holds, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        let mut kept = 0;
        for k in 0..self.len() {
            let item = self[k];
            if keep(&item) {
                self[kept] = item;
                kept += 1;
            }
        }
        self.truncate(kept);
    }

    /// Drops the items from `new_len` on.
    pub fn truncate(&mut self, new_len: usize) {
        match &mut self.0 {
            Repr::Inline { len, .. } => *len = (*len as usize).min(new_len) as u8,
            Repr::Heap(heap) => heap.truncate(new_len),
        }
    }

    /// Removes every item.
    pub fn clear(&mut self) {
        self.truncate(0);
    }

    /// The items as a slice.
    pub fn as_slice(&self) -> &[T] {
        self
    }

    /// The items as a `Vec`.
    pub fn into_vec(self) -> Vec<T> {
        match self.0 {
            Repr::Inline { len, items } => items[..len as usize].to_vec(),
            Repr::Heap(heap) => *heap,
        }
    }
}

impl<T: ListItem, const N: usize> Default for SmallList<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: ListItem, const N: usize> Deref for SmallList<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match &self.0 {
            Repr::Inline { len, items } => &items[..*len as usize],
            Repr::Heap(heap) => heap,
        }
    }
}

impl<T: ListItem, const N: usize> DerefMut for SmallList<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.0 {
            Repr::Inline { len, items } => &mut items[..*len as usize],
            Repr::Heap(heap) => heap,
        }
    }
}

impl<T: ListItem + fmt::Debug, const N: usize> fmt::Debug for SmallList<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: ListItem + PartialEq, const N: usize> PartialEq for SmallList<T, N> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: ListItem + Eq, const N: usize> Eq for SmallList<T, N> {}

impl<T: ListItem + PartialEq, const N: usize> PartialEq<Vec<T>> for SmallList<T, N> {
    fn eq(&self, other: &Vec<T>) -> bool {
        **self == other[..]
    }
}

impl<T: ListItem + PartialEq, const N: usize> PartialEq<[T]> for SmallList<T, N> {
    fn eq(&self, other: &[T]) -> bool {
        **self == *other
    }
}

impl<T: ListItem + PartialEq, const N: usize, const M: usize> PartialEq<[T; M]>
    for SmallList<T, N>
{
    fn eq(&self, other: &[T; M]) -> bool {
        **self == other[..]
    }
}

impl<T: ListItem + std::hash::Hash, const N: usize> std::hash::Hash for SmallList<T, N> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

impl<T: ListItem, const N: usize> From<&[T]> for SmallList<T, N> {
    fn from(items: &[T]) -> Self {
        let mut list = Self::with_capacity(items.len());
        list.extend(items.iter().copied());
        list
    }
}

impl<T: ListItem, const N: usize> From<Vec<T>> for SmallList<T, N> {
    fn from(items: Vec<T>) -> Self {
        if items.len() <= N {
            Self::from(&items[..])
        } else {
            SmallList(Repr::Heap(Box::new(items)))
        }
    }
}

impl<T: ListItem, const N: usize, const M: usize> From<[T; M]> for SmallList<T, N> {
    fn from(items: [T; M]) -> Self {
        Self::from(&items[..])
    }
}

impl<T: ListItem, const N: usize> From<SmallList<T, N>> for Vec<T> {
    fn from(list: SmallList<T, N>) -> Self {
        list.into_vec()
    }
}

impl<T: ListItem, const N: usize> FromIterator<T> for SmallList<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut list = Self::new();
        list.extend(iter);
        list
    }
}

impl<T: ListItem, const N: usize> Extend<T> for SmallList<T, N> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        let iter = iter.into_iter();
        self.reserve(iter.size_hint().0);
        for item in iter {
            self.push(item);
        }
    }
}

impl<'a, T: ListItem + 'a, const N: usize> Extend<&'a T> for SmallList<T, N> {
    fn extend<I: IntoIterator<Item = &'a T>>(&mut self, iter: I) {
        self.extend(iter.into_iter().copied());
    }
}

impl<'a, T: ListItem, const N: usize> IntoIterator for &'a SmallList<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, T: ListItem, const N: usize> IntoIterator for &'a mut SmallList<T, N> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<T: ListItem, const N: usize> IntoIterator for SmallList<T, N> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

#[cfg(test)]
#[path = "list_tests.rs"]
mod tests;
