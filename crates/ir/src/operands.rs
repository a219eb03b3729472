//! An instruction's operand list, stored inside the instruction when it is short.
//!
//! Most instructions take at most three operands. Kept in a `Vec`, each instruction's
//! operands were a separate heap block: every pass that reads an instruction and then its
//! operands touched two places in memory, and on functions of 100k instructions the second
//! read was a last-level cache miss (docs/lowering-speed.md). [`Operands`] holds up to
//! [`Operands::INLINE`] operands in the instruction itself and moves to the heap only for
//! longer lists (calls, composites, phis with many predecessors). It reads like a slice
//! (it dereferences to `[Operand]`) and has the `Vec` methods the passes use.
//!
//! Why not [`crate::SmallList`]`<Operand, 3>`, which has the same interface: a `SmallList`
//! boxes its spilled `Vec` so that it takes 8 bytes inside `Op` and `BlockData`, where an
//! unboxed `Vec` would grow the record; here the unboxed `Vec` fits in the 32 bytes the
//! inline operands take anyway, so a spilled list costs one heap block, not two. Written as a
//! `SmallList` (tried 2026-12-08), the fuzz pipeline — whose access chains take four
//! operands — ran 2.3% more instructions at nesting 4 / subgroup 32 (142.0 M → 145.2 M)
//! and 1.7% more at nesting 6 / subgroup 64.

use std::fmt;
use std::ops::{Deref, DerefMut};

use crate::module::{Operand, Value};

/// How many operands fit without a heap block.
const INLINE: usize = 3;

/// A filler for unused inline slots (never read: `len` bounds every access).
const FILLER: Operand = Operand::Value(Value::from_u32(0));

#[derive(Clone)]
enum Repr {
    Inline { len: u8, items: [Operand; INLINE] },
    Heap(Vec<Operand>),
}

/// The operands of an instruction: a short list inline, a longer one on the heap.
#[derive(Clone)]
pub struct Operands(Repr);

impl Operands {
    /// How many operands are stored without a heap block.
    pub const INLINE: usize = INLINE;

    /// An empty list.
    pub const fn new() -> Self {
        Operands(Repr::Inline {
            len: 0,
            items: [FILLER; INLINE],
        })
    }

    /// Whether the operands live on the heap (more than [`Operands::INLINE`] of them,
    /// now or once).
    pub fn spilled(&self) -> bool {
        matches!(self.0, Repr::Heap(_))
    }

    /// Appends `op`.
    pub fn push(&mut self, op: Operand) {
        match &mut self.0 {
            Repr::Inline { len, items } if (*len as usize) < INLINE => {
                items[*len as usize] = op;
                *len += 1;
            }
            Repr::Inline { len, items } => {
                let mut v = Vec::with_capacity(INLINE * 2);
                v.extend_from_slice(&items[..*len as usize]);
                v.push(op);
                self.0 = Repr::Heap(v);
            }
            Repr::Heap(v) => v.push(op),
        }
    }

    /// Removes and returns the last operand.
    pub fn pop(&mut self) -> Option<Operand> {
        match &mut self.0 {
            Repr::Inline { len, items } => {
                if *len == 0 {
                    return None;
                }
                *len -= 1;
                Some(items[*len as usize])
            }
            Repr::Heap(v) => v.pop(),
        }
    }

    /// Inserts `op` at `index`, moving the later ones up (panics past the end, as `Vec`).
    pub fn insert(&mut self, index: usize, op: Operand) {
        assert!(index <= self.len(), "operand index {index} past the end");
        self.push(op);
        self[index..].rotate_right(1);
    }

    /// Removes and returns the operand at `index`, moving the later ones down (panics past
    /// the end, as `Vec`).
    pub fn remove(&mut self, index: usize) -> Operand {
        let out = self[index];
        self[index..].rotate_left(1);
        self.pop();
        out
    }

    /// Keeps only the operands for which `keep` holds, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&Operand) -> bool) {
        let mut kept = 0;
        for k in 0..self.len() {
            let op = self[k];
            if keep(&op) {
                self[kept] = op;
                kept += 1;
            }
        }
        self.truncate(kept);
    }

    /// Drops the operands from `len` on.
    pub fn truncate(&mut self, new_len: usize) {
        match &mut self.0 {
            Repr::Inline { len, .. } => *len = (*len).min(new_len as u8),
            Repr::Heap(v) => v.truncate(new_len),
        }
    }

    /// Removes every operand.
    pub fn clear(&mut self) {
        self.truncate(0);
    }

    /// The operands as a `Vec`.
    pub fn into_vec(self) -> Vec<Operand> {
        match self.0 {
            Repr::Inline { len, items } => items[..len as usize].to_vec(),
            Repr::Heap(v) => v,
        }
    }
}

impl Default for Operands {
    fn default() -> Self {
        Operands::new()
    }
}

impl Deref for Operands {
    type Target = [Operand];
    fn deref(&self) -> &[Operand] {
        match &self.0 {
            Repr::Inline { len, items } => &items[..*len as usize],
            Repr::Heap(v) => v,
        }
    }
}

impl DerefMut for Operands {
    fn deref_mut(&mut self) -> &mut [Operand] {
        match &mut self.0 {
            Repr::Inline { len, items } => &mut items[..*len as usize],
            Repr::Heap(v) => v,
        }
    }
}

impl fmt::Debug for Operands {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for Operands {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for Operands {}

impl PartialEq<Vec<Operand>> for Operands {
    fn eq(&self, other: &Vec<Operand>) -> bool {
        **self == other[..]
    }
}

impl PartialEq<[Operand]> for Operands {
    fn eq(&self, other: &[Operand]) -> bool {
        **self == *other
    }
}

impl std::hash::Hash for Operands {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

impl From<Vec<Operand>> for Operands {
    fn from(v: Vec<Operand>) -> Self {
        if v.len() <= INLINE {
            Operands::from(&v[..])
        } else {
            Operands(Repr::Heap(v))
        }
    }
}

impl From<&[Operand]> for Operands {
    fn from(s: &[Operand]) -> Self {
        if s.len() <= INLINE {
            let mut items = [FILLER; INLINE];
            items[..s.len()].copy_from_slice(s);
            Operands(Repr::Inline {
                len: s.len() as u8,
                items,
            })
        } else {
            Operands(Repr::Heap(s.to_vec()))
        }
    }
}

impl<const N: usize> From<[Operand; N]> for Operands {
    fn from(a: [Operand; N]) -> Self {
        Operands::from(&a[..])
    }
}

impl From<Operands> for Vec<Operand> {
    fn from(o: Operands) -> Self {
        o.into_vec()
    }
}

impl FromIterator<Operand> for Operands {
    fn from_iter<I: IntoIterator<Item = Operand>>(iter: I) -> Self {
        let mut out = Operands::new();
        out.extend(iter);
        out
    }
}

impl Extend<Operand> for Operands {
    fn extend<I: IntoIterator<Item = Operand>>(&mut self, iter: I) {
        for op in iter {
            self.push(op);
        }
    }
}

impl<'a> IntoIterator for &'a Operands {
    type Item = &'a Operand;
    type IntoIter = std::slice::Iter<'a, Operand>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Operands {
    type Item = &'a mut Operand;
    type IntoIter = std::slice::IterMut<'a, Operand>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl IntoIterator for Operands {
    type Item = Operand;
    type IntoIter = std::vec::IntoIter<Operand>;
    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::Const;

    fn v(n: u32) -> Operand {
        Operand::Value(Value::from_u32(n))
    }

    /// Every edit gives what the same edit gives on a `Vec`, across the inline/heap border.
    #[test]
    fn edits_match_a_vec() {
        let mut ops = Operands::new();
        let mut model: Vec<Operand> = Vec::new();
        for n in 0..7 {
            ops.push(v(n));
            model.push(v(n));
            assert_eq!(ops, model);
        }
        assert!(ops.spilled());
        ops.insert(2, Operand::Const(Const::from_u32(9)));
        model.insert(2, Operand::Const(Const::from_u32(9)));
        assert_eq!(ops, model);
        assert_eq!(ops.remove(0), model.remove(0));
        ops.retain(|o| *o != v(3));
        model.retain(|o| *o != v(3));
        assert_eq!(ops, model);
        ops.truncate(2);
        model.truncate(2);
        assert_eq!(ops, model);
        assert_eq!(ops.clone().into_vec(), model);

        let mut short = Operands::from(vec![v(1), v(2)]);
        assert!(!short.spilled());
        short.insert(0, v(0));
        assert_eq!(short, vec![v(0), v(1), v(2)]);
        assert!(!short.spilled());
        assert_eq!(short.remove(1), v(1));
        assert_eq!(short.pop(), Some(v(2)));
        assert_eq!(short.pop(), Some(v(0)));
        assert_eq!(short.pop(), None);
        assert!(short.is_empty());
    }

    /// Lists of up to three operands take no heap block; the instruction stays small.
    #[test]
    fn short_lists_stay_inline() {
        assert!(!Operands::from([v(1), v(2), v(3)]).spilled());
        assert!(Operands::from([v(1), v(2), v(3), v(4)]).spilled());
        assert!(std::mem::size_of::<Operands>() <= 32);
    }
}
