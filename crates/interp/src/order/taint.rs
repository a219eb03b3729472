//! The second run's memory shadow: which bytes of each region are order-dependent, and
//! the per-buffer [`OrderDependent`] outcome engines compare as wildcards.

use tangle_ir::hash::FxHashMap;
use tangle_ir::Block;

use super::control::Root;
use super::races::Decided;
use crate::error::Position;
use crate::Mask;

/// The second run's state: which memory bytes are order-dependent (the lane values'
/// shadow lives beside them, in `FuncValues::taint`).
#[derive(Debug)]
pub(crate) struct Taint {
    pub(super) decided: Decided,
    /// Per region, per byte: [`VALUED`] and [`MAY`] bits (empty: none).
    mem: Vec<Vec<u8>>,
    /// Per region, where its first order-dependent byte was marked.
    born: Vec<Option<Position>>,
    /// Lanes entering a block released from a marked instance: their phis there are
    /// order-dependent (which edge a lane came by depended on the order).
    pub(crate) entering: Mask,
    /// Per (function, loop header), the values defined in the loop's region.
    pub(super) loop_values: FxHashMap<(u32, Block), Vec<u32>>,
    /// Per (function, construct header), what the stores and atomics in the construct
    /// (and the functions it calls) may write (`None`: the whole function).
    pub(super) roots: FxHashMap<(u32, Option<Block>), Vec<Root>>,
}

/// A memory byte holds a value that came from the order (a store or atomic of an
/// order-dependent value, or under order-dependent control, in this run).
const VALUED: u8 = 1;
/// A memory byte another order may write: a store or atomic the run did not execute,
/// in a construct whose branch was order-dependent.
const MAY: u8 = 2;

/// A buffer's order-dependent bytes after a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderDependent {
    /// Per byte whether it is order-dependent: its value, or whether it is written at all,
    /// may differ under another order. Engines compare these bytes as wildcards.
    pub bytes: Vec<bool>,
    /// The bytes of `bytes` whose value in this run itself came from the order (a store
    /// or atomic executed with an order-dependent value or under order-dependent control);
    /// the others only another order may write (a store under an order-dependent branch
    /// that this run did not execute). An `EXPECT` reading these fails.
    pub valued: Vec<bool>,
    /// Where the first of them was marked (a store or an atomic).
    pub marked_at: Position,
    /// The first atomic of the dispatch that raced with another invocation's.
    pub race_at: Position,
}

impl Taint {
    /// The second run's state for `decided`.
    pub(crate) fn new(decided: Decided) -> Taint {
        Taint {
            decided,
            mem: Vec::new(),
            born: Vec::new(),
            entering: 0,
            loop_values: FxHashMap::default(),
            roots: FxHashMap::default(),
        }
    }

    /// Region `mem`'s shadow, grown to `len` bytes.
    fn region(&mut self, mem: u32, len: usize) -> &mut Vec<u8> {
        let i = mem as usize;
        if self.mem.len() <= i {
            self.mem.resize_with(i + 1, Vec::new);
            self.born.resize(i + 1, None);
        }
        let r = &mut self.mem[i];
        if r.len() < len {
            r.resize(len, 0);
        }
        r
    }

    /// Whether any byte of `mem` in `off..off + n` is order-dependent.
    pub(super) fn any(&self, mem: u32, off: u64, n: u64) -> bool {
        self.mem.get(mem as usize).is_some_and(|r| {
            let end = (off.saturating_add(n) as usize).min(r.len());
            (off as usize) < end && r[off as usize..end].iter().any(|&b| b != 0)
        })
    }

    /// Sets bytes `off..off + n` of `mem` (of `len` bytes) to `od`; marks `at` as where
    /// the region's first order-dependent byte came from.
    pub(super) fn set(&mut self, mem: u32, len: usize, off: u64, n: u64, od: bool, at: Position) {
        if !od && self.mem.get(mem as usize).is_none_or(Vec::is_empty) {
            return;
        }
        let end = (off.saturating_add(n) as usize).min(len);
        let r = self.region(mem, len);
        for b in &mut r[(off as usize).min(end)..end] {
            *b = if od { VALUED } else { 0 };
        }
        if od {
            self.born[mem as usize].get_or_insert(at);
        }
    }

    /// Every byte of region `mem` (of `len` bytes) may be written by another order.
    pub(super) fn set_may(&mut self, mem: u32, len: usize, at: Position) {
        let r = self.region(mem, len);
        for b in r.iter_mut() {
            *b |= MAY;
        }
        if len > 0 {
            self.born[mem as usize].get_or_insert(at);
        }
    }

    /// The order-dependent bytes of region `mem`, if any, for the outcome.
    pub(crate) fn outcome(&self, mem: u32, len: usize) -> Option<OrderDependent> {
        let r = self.mem.get(mem as usize)?;
        if !r.iter().any(|&b| b != 0) {
            return None;
        }
        let mut bytes: Vec<bool> = r.iter().map(|&b| b != 0).collect();
        let mut valued: Vec<bool> = r.iter().map(|&b| b & VALUED != 0).collect();
        bytes.resize(len, false);
        valued.resize(len, false);
        Some(OrderDependent {
            bytes,
            valued,
            marked_at: self.born[mem as usize]?,
            race_at: self.decided.first_race,
        })
    }
}
