//! Typed `u32` entity indices and the dense maps that hold their data.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// A typed index into an [`EntityVec`].
pub trait EntityRef: Copy + Eq + Ord + std::hash::Hash + fmt::Debug {
    /// The entity with index `index`.
    fn new(index: usize) -> Self;
    /// This entity's index.
    fn index(self) -> usize;
}

/// Declares a typed entity index whose `Display` is its text-form name (`prefix` + index).
///
/// The index is stored plus one in a `NonZeroU32`, so `Option<Self>` is as small as the
/// index itself (4 bytes, not 8: an instruction's optional result and convergence operand,
/// docs/ir.md "Representation"). It orders and hashes as the plain `u32` index did.
macro_rules! entity {
    ($(#[$attr:meta])* $name:ident, $prefix:literal) => {
        $(#[$attr])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
        pub struct $name(std::num::NonZeroU32);

        impl $crate::entity::EntityRef for $name {
            fn new(index: usize) -> Self {
                let index = u32::try_from(index)
                    .ok()
                    .filter(|&i| i < u32::MAX)
                    .expect("entity index fits in u32");
                Self::from_u32(index)
            }
            fn index(self) -> usize {
                self.as_u32() as usize
            }
        }

        impl $name {
            /// The text-form prefix of this kind of entity.
            pub const PREFIX: &'static str = $prefix;

            /// The entity with index `index` (below `u32::MAX`).
            pub const fn from_u32(index: u32) -> Self {
                match std::num::NonZeroU32::new(index.wrapping_add(1)) {
                    Some(stored) => $name(stored),
                    None => panic!("entity index u32::MAX is reserved"),
                }
            }

            /// This entity's index.
            pub const fn as_u32(self) -> u32 {
                self.0.get() - 1
            }
        }

        impl std::hash::Hash for $name {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                self.as_u32().hash(state)
            }
        }

        impl $crate::list::ListItem for $name {
            const FILLER: Self = Self::from_u32(0);
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}{}", $prefix, self.as_u32())
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(self, f)
            }
        }
    };
}
pub(crate) use entity;

/// A dense map from entity `K` to data `V`, indexed by `K`.
#[derive(Clone, PartialEq, Eq)]
pub struct EntityVec<K: EntityRef, V> {
    items: Vec<V>,
    _key: PhantomData<K>,
}

impl<K: EntityRef, V> EntityVec<K, V> {
    /// An empty map.
    pub fn new() -> Self {
        EntityVec {
            items: Vec::new(),
            _key: PhantomData,
        }
    }

    /// An empty map with room for `capacity` entities (no reallocation, so no copy of the
    /// whole arena, while it grows to that size).
    pub fn with_capacity(capacity: usize) -> Self {
        EntityVec {
            items: Vec::with_capacity(capacity),
            _key: PhantomData,
        }
    }

    /// Makes room for `additional` more entities.
    pub fn reserve(&mut self, additional: usize) {
        self.items.reserve(additional);
    }

    /// Appends `value` and returns its new key.
    pub fn push(&mut self, value: V) -> K {
        let key = K::new(self.items.len());
        self.items.push(value);
        key
    }

    /// The number of entities.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there are no entities.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether `key` names an entity of this map.
    pub fn contains(&self, key: K) -> bool {
        key.index() < self.items.len()
    }

    /// The data of `key`, if it exists.
    pub fn get(&self, key: K) -> Option<&V> {
        self.items.get(key.index())
    }

    /// Every key, in index order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = K> + ExactSizeIterator {
        (0..self.items.len()).map(K::new)
    }

    /// Every (key, data) pair, in index order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (K, &V)> + ExactSizeIterator {
        self.items.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }

    /// Every (key, data) pair with mutable data, in index order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (K, &mut V)> {
        self.items
            .iter_mut()
            .enumerate()
            .map(|(i, v)| (K::new(i), v))
    }

    /// Every data item, in index order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator {
        self.items.iter()
    }
}

impl<K: EntityRef, V: Clone> EntityVec<K, V> {
    /// Grows the map to hold `key`, filling new slots with `fill`.
    pub fn ensure(&mut self, key: K, fill: V) {
        if key.index() >= self.items.len() {
            self.items.resize(key.index() + 1, fill);
        }
    }
}

impl<K: EntityRef, V> Default for EntityVec<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: EntityRef, V: fmt::Debug> fmt::Debug for EntityVec<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: EntityRef, V> Index<K> for EntityVec<K, V> {
    type Output = V;
    fn index(&self, key: K) -> &V {
        &self.items[key.index()]
    }
}

impl<K: EntityRef, V> IndexMut<K> for EntityVec<K, V> {
    fn index_mut(&mut self, key: K) -> &mut V {
        &mut self.items[key.index()]
    }
}

/// A dense map from `K` to `V` that answers a default for keys never set.
#[derive(Clone, Debug)]
pub struct SecondaryMap<K: EntityRef, V: Clone> {
    items: Vec<V>,
    default: V,
    _key: PhantomData<K>,
}

impl<K: EntityRef, V: Clone> SecondaryMap<K, V> {
    /// A map where every key starts with `default`.
    pub fn with_default(default: V) -> Self {
        SecondaryMap {
            items: Vec::new(),
            default,
            _key: PhantomData,
        }
    }

    /// The value of `key`.
    pub fn get(&self, key: K) -> &V {
        self.items.get(key.index()).unwrap_or(&self.default)
    }

    /// Sets the value of `key`.
    pub fn set(&mut self, key: K, value: V) {
        *self.get_mut(key) = value;
    }

    /// The value of `key`, to change in place (a key never set gets the default first).
    pub fn get_mut(&mut self, key: K) -> &mut V {
        if key.index() >= self.items.len() {
            self.items.resize(key.index() + 1, self.default.clone());
        }
        &mut self.items[key.index()]
    }

    /// A map where every key starts with `default`, with room for keys below `capacity`.
    pub fn with_capacity(default: V, capacity: usize) -> Self {
        let mut m = Self::with_default(default);
        m.items.reserve(capacity);
        m
    }
}

#[cfg(test)]
mod tests {
    use super::EntityRef;
    use crate::module::{Block, Value};

    fn fx_hash<H: std::hash::Hash>(value: H) -> u64 {
        use std::hash::{BuildHasher, BuildHasherDefault};
        BuildHasherDefault::<crate::hash::FxHasher>::default().hash_one(value)
    }

    /// An optional entity is as small as the entity (its index is stored plus one).
    #[test]
    fn option_of_an_entity_takes_no_extra_space() {
        assert_eq!(std::mem::size_of::<Option<Value>>(), 4);
        assert_eq!(std::mem::size_of::<Option<Block>>(), 4);
    }

    /// Entities read back their index, print it, and order and hash as the plain `u32`
    /// index did (hash maps iterate in the same order as before, so passes that walk one
    /// give the same output).
    #[test]
    fn entities_behave_as_their_index() {
        for index in [0u32, 1, 2, 77, 1 << 20, u32::MAX - 1] {
            let v = Value::from_u32(index);
            assert_eq!(v.as_u32(), index);
            assert_eq!(
                <Value as EntityRef>::new(index as usize).index(),
                index as usize
            );
            assert_eq!(v.to_string(), format!("v{index}"));
            assert_eq!(fx_hash(v), fx_hash(index));
            assert!(Value::from_u32(index / 2) <= v);
        }
        assert!(Block::from_u32(3) < Block::from_u32(4));
    }

    /// The text form cannot name index `u32::MAX`: a positioned parse error, not a panic.
    #[test]
    fn the_parser_refuses_the_largest_index() {
        let text = "spirv 1.3\nmemory_model GLSL450\ncapability Shader\ntype t0 = void\n\
                    fn f0 \"main\"() -> void {\nb0:\n  v4294967295 = undef t0\n  return\n}\n";
        let err = crate::text::parse(text).expect_err("index u32::MAX is refused");
        assert_eq!((err.pos.line, err.pos.col), (7, 3), "{}", err.message);
        let text = text.replace("b0:", "b4294967295:");
        let err = crate::text::parse(&text).expect_err("block index u32::MAX is refused");
        assert_eq!(err.pos.line, 6, "{}", err.message);
    }

    /// Indices at or above the text form's limit are refused where they are written, as a
    /// definition, a use, a block label, a branch or switch target or a returned value —
    /// before any table is sized by them (`v4294967294` made the parser try to allocate
    /// tens of GiB and abort); the index just below the limit still parses.
    #[test]
    fn the_parser_refuses_indices_beyond_its_limit() {
        use crate::text::TEXT_INDEX_LIMIT;
        let big = TEXT_INDEX_LIMIT;
        let head = "spirv 1.3\nmemory_model GLSL450\ncapability Shader\ntype t0 = void\n\
                    type t1 = u32\n";
        let cases = [
            (
                format!("fn f0 \"main\"() -> void {{\nb0:\n  v{big} = undef t1\n  return\n}}\n"),
                8,
                3,
            ),
            (
                format!(
                    "fn f0 \"main\"() -> void {{\nb0:\n  v0 = iadd t1 v{big}, v{big}\n  return\n}}\n"
                ),
                8,
                16,
            ),
            (
                format!("fn f0 \"main\"() -> void {{\nb{big}:\n  return\n}}\n"),
                7,
                1,
            ),
            (
                format!("fn f0 \"main\"() -> void {{\nb0:\n  br b{big}\n}}\n"),
                8,
                6,
            ),
            (
                "fn f0 \"f\"() -> t1 {\nb0:\n  return v4294967294\n}\n".to_string(),
                8,
                10,
            ),
        ];
        for (body, line, col) in cases {
            let text = format!("{head}{body}");
            let err = crate::text::parse(&text).expect_err("an index beyond the limit");
            assert!(
                err.message.contains("must be below"),
                "{text}\n{}",
                err.message
            );
            assert_eq!(
                (err.pos.line, err.pos.col),
                (line, col),
                "{text}\n{}",
                err.message
            );
        }
        let below = big - 1;
        let text = format!(
            "{head}fn f0 \"main\"() -> void {{\nb0:\n  v{below} = undef t1\n  return\n}}\n"
        );
        crate::text::parse(&text).expect("the index just below the limit parses");
    }

    /// `u32::MAX` is the one index no entity may have.
    #[test]
    #[should_panic(expected = "entity index fits in u32")]
    fn the_largest_index_is_refused() {
        <Value as EntityRef>::new(u32::MAX as usize);
    }
}
