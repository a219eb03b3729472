//! Tests of [`SmallList`]: every edit reads back what the same edit gives on a `Vec`.

use super::*;

/// A small deterministic generator (xorshift64), so a failure names its seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn hash_of<H: std::hash::Hash + ?Sized>(value: &H) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<crate::hash::FxHasher>::default().hash_one(value)
}

/// Applies one random edit to both, and checks they agree afterwards.
fn edit<const N: usize>(rng: &mut Rng, list: &mut SmallList<u32, N>, model: &mut Vec<u32>) {
    let item = rng.below(1000) as u32;
    match rng.below(11) {
        0..=2 => {
            list.push(item);
            model.push(item);
        }
        3 => assert_eq!(list.pop(), model.pop()),
        4 => {
            let at = rng.below(model.len() + 1);
            list.insert(at, item);
            model.insert(at, item);
        }
        5 if !model.is_empty() => {
            let at = rng.below(model.len());
            assert_eq!(list.remove(at), model.remove(at));
        }
        6 => {
            let cut = item % 3;
            list.retain(|x| x % 3 != cut);
            model.retain(|x| x % 3 != cut);
        }
        7 => {
            let keep = rng.below(model.len() + 2);
            list.truncate(keep);
            model.truncate(keep);
        }
        8 => {
            let more = [item, item + 1, item + 2];
            let count = rng.below(4);
            list.extend(more[..count].iter().copied());
            model.extend_from_slice(&more[..count]);
        }
        9 if !model.is_empty() => {
            let at = rng.below(model.len());
            list[at] = item;
            model[at] = item;
        }
        10 => {
            list.reserve(rng.below(8));
            if rng.below(20) == 0 {
                list.clear();
                model.clear();
            }
        }
        _ => {}
    }
    assert_eq!(&list[..], &model[..]);
    assert_eq!(*list, *model);
    assert_eq!(list.len(), model.len());
    assert_eq!(list.clone().into_vec(), *model);
    assert_eq!(SmallList::<u32, N>::from(model.clone()), *list);
    assert_eq!(
        hash_of(list),
        hash_of(model),
        "hashes as the Vec it replaces"
    );
    assert_eq!(format!("{list:?}"), format!("{model:?}"));
    if model.len() > N {
        assert!(list.spilled(), "{} items cannot be inline", model.len());
    }
}

fn random_edits<const N: usize>() {
    for seed in 1..=200u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut list = SmallList::<u32, N>::new();
        let mut model = Vec::new();
        for _ in 0..60 {
            edit(&mut rng, &mut list, &mut model);
        }
    }
}

/// Random edit sequences give what the same edits give on a `Vec`, for every inline
/// capacity the IR uses, across the inline/heap border both ways.
#[test]
fn random_edits_match_a_vec() {
    random_edits::<1>();
    random_edits::<3>();
    random_edits::<5>();
}

/// Lists up to the inline capacity take no heap block, and stay inline through edits that
/// keep them short; a longer list moves to the heap.
#[test]
fn short_lists_stay_inline() {
    let mut list = SmallList::<u32, 3>::from(vec![1, 2]);
    assert!(!list.spilled());
    list.insert(0, 0);
    assert_eq!(list, [0, 1, 2]);
    assert!(!list.spilled());
    assert_eq!(list.remove(1), 1);
    list.push(7);
    list.reserve(0);
    assert!(!list.spilled());
    list.push(8);
    assert!(list.spilled());
    assert_eq!(list, [0, 2, 7, 8]);
    assert!(!SmallList::<u32, 3>::from([1, 2, 3]).spilled());
    assert!(SmallList::<u32, 3>::from(vec![1, 2, 3, 4]).spilled());
}

/// The point of the type: no bigger than a `Vec`'s header with up to five `u32`s inline,
/// and a third smaller with up to three.
#[test]
fn sizes() {
    assert_eq!(std::mem::size_of::<SmallList<u32, 3>>(), 16);
    assert_eq!(std::mem::size_of::<SmallList<u32, 5>>(), 24);
}
