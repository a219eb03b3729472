//! Hash maps and sets keyed by the IR's small integer entities.
//!
//! The standard library's default hasher (SipHash, seeded per map) guards against
//! adversarial keys, which a compiler's own block, value and instruction numbers are not,
//! and costs tens of instructions per lookup; the passes that look up every instruction or
//! value took a seventh of the lowering's instructions in hashing (docs/lowering.md,
//! "Speed"). These use the Fx hash of `rustc-hash` (a multiply and a rotate per word). Their
//! iteration order is fixed rather than random per map, so nothing may depend on it any more
//! than before.

use std::hash::BuildHasherDefault;

pub use rustc_hash::FxHasher;

/// A `HashMap` with the Fx hash; make one with `FxHashMap::default()`.
pub type FxHashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// A `HashSet` with the Fx hash; make one with `FxHashSet::default()`.
pub type FxHashSet<K> = std::collections::HashSet<K, BuildHasherDefault<FxHasher>>;
