//! Descriptors that view memory: a buffer seen through several descriptors (one buffer
//! bound at two bindings, or at two elements of a descriptor array) is one region that
//! every view shares, each from its own byte offset; a descriptor array (`array<Block, N>`
//! in `StorageBuffer` or `Uniform` storage) is a table of such views, the first index of an
//! access chain choosing the element.
//!
//! An engine keeps its bound buffers as regions `0..n` in key order (the keys are the
//! engine's business: `(set, binding)` for a buffer bound at one binding, anything else the
//! runner picks for a shared one) and adds the views by `(set, binding)`.

use std::collections::BTreeMap;

use tangle_ir::{Type, TypeData, TypeTable};

/// The first pointer region number of descriptor arrays: the variable of a descriptor array
/// points at `DESCRIPTOR_ARRAYS + k` (its table `k`), a region no access may use; the
/// access chain's first index replaces it by the element's (region, offset).
pub const DESCRIPTOR_ARRAYS: u32 = 1 << 30;

/// Views by `(set, binding)`: per array element (one for a plain descriptor) the key of
/// the bound buffer it views and the byte offset it starts at.
pub type Views = BTreeMap<(u32, u32), Vec<((u32, u32), u64)>>;

/// Whether `pointee` (of a `StorageBuffer` or `Uniform` variable) is a descriptor array: an
/// array of `Block` (or `BufferBlock`) structs.
pub fn is_descriptor_array(types: &TypeTable, pointee: Type) -> bool {
    match types.get(pointee) {
        TypeData::Array { elem, .. } | TypeData::RuntimeArray { elem, .. } => matches!(
            types.get(*elem),
            TypeData::Struct { block: true, .. }
                | TypeData::Struct {
                    buffer_block: true,
                    ..
                }
        ),
        _ => false,
    }
}

/// The views of one run, resolved to regions.
#[derive(Clone, Debug, Default)]
pub struct DescriptorTable {
    /// The regions of the bound buffers, by key (region `i` is the `i`-th key).
    keys: Vec<(u32, u32)>,
    /// Per viewed `(set, binding)`, its table number.
    by_binding: BTreeMap<(u32, u32), usize>,
    /// Per table, each element's (region, byte offset); `None` where the viewed key is not
    /// bound.
    tables: Vec<Vec<Option<(u32, u64)>>>,
}

impl DescriptorTable {
    /// The table of a run whose bound buffers are regions `0..keys.len()` in `keys` order.
    pub fn new(keys: &[(u32, u32)], views: &Views) -> Self {
        let region = |k: &(u32, u32)| keys.iter().position(|x| x == k).map(|p| p as u32);
        let mut table = DescriptorTable {
            keys: keys.to_vec(),
            ..DescriptorTable::default()
        };
        for (binding, elements) in views {
            table.by_binding.insert(*binding, table.tables.len());
            table.tables.push(
                elements
                    .iter()
                    .map(|(k, off)| region(k).map(|r| (r, *off)))
                    .collect(),
            );
        }
        table
    }

    /// The (region, offset) the variable at `(set, binding)` with pointee `pointee` points
    /// at: a descriptor array's table, a view's buffer, or the buffer bound at that key;
    /// `None` when nothing is bound there.
    pub fn global(
        &self,
        types: &TypeTable,
        set: u32,
        binding: u32,
        pointee: Type,
    ) -> Option<(u32, u64)> {
        match self.by_binding.get(&(set, binding)) {
            Some(&k) if is_descriptor_array(types, pointee) => {
                Some((DESCRIPTOR_ARRAYS + k as u32, 0))
            }
            Some(&k) => self.tables[k].first().copied().flatten(),
            None => self
                .keys
                .iter()
                .position(|x| *x == (set, binding))
                .map(|p| (p as u32, 0)),
        }
    }

    /// Element `index` of the descriptor array whose variable points at region `mem`, when
    /// `mem` is one ([`DESCRIPTOR_ARRAYS`]) and the element is bound.
    pub fn element(&self, mem: u32, index: u64) -> Option<(u32, u64)> {
        let k = mem.checked_sub(DESCRIPTOR_ARRAYS)? as usize;
        self.tables
            .get(k)?
            .get(usize::try_from(index).ok()?)
            .copied()
            .flatten()
    }
}
