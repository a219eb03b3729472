//! Spill-slot sharing. During allocation every spilled value gets a slot of its own; after
//! it, values that are never live at the same time share slots, so a thread's local-memory
//! frame is as small as the spills' own pressure. Two SSA values interfere when one is live
//! where the other is defined; a φ's value counts as defined at the end of each predecessor
//! too, since the edge's copies store it there while the predecessor's values are still
//! read. Slots are then coloured greedily, largest values first, each aligned to its size.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::function::{Function, ValueId};
use crate::liveness::Liveness;
use crate::output::{Edit, Location};

/// Renumbers the slots of `slots` (each spilled value's first word) so that values that
/// never interfere share words, rewriting `edits` and `phis`; returns the new frame size in
/// words.
pub(crate) fn share(
    func: &Function,
    live: &Liveness,
    slots: &FxHashMap<ValueId, u32>,
    edits: &mut [(crate::Position, Edit)],
    phis: &mut [Vec<Location>],
) -> u32 {
    if slots.is_empty() {
        return 0;
    }
    let spilled = |v: ValueId| slots.contains_key(&v);
    let mut neighbours: FxHashMap<ValueId, FxHashSet<ValueId>> = FxHashMap::default();
    let mut interfere = |a: ValueId, b: ValueId| {
        if a != b {
            neighbours.entry(a).or_default().insert(b);
            neighbours.entry(b).or_default().insert(a);
        }
    };
    for (b, block) in func.blocks.iter().enumerate() {
        let mut alive: FxHashSet<ValueId> =
            live.live_out[b].iter().filter(|v| spilled(*v)).collect();
        // φs of the successor are written at this block's end, over everything live out.
        for succ in &block.succs {
            for phi in &func.block(*succ).phis {
                if spilled(phi.dst) {
                    for &other in &alive {
                        interfere(phi.dst, other);
                    }
                }
            }
        }
        for inst in block.insts.iter().rev() {
            for def in &inst.defs {
                if spilled(def.value) {
                    for &other in &alive {
                        interfere(def.value, other);
                    }
                }
            }
            for def in &inst.defs {
                alive.remove(&def.value);
            }
            for use_ in &inst.uses {
                if spilled(use_.value) {
                    alive.insert(use_.value);
                }
            }
        }
        let phi_dsts: Vec<ValueId> = block
            .phis
            .iter()
            .map(|p| p.dst)
            .filter(|v| spilled(*v))
            .collect();
        for &dst in &phi_dsts {
            for &other in alive.iter().chain(&phi_dsts) {
                interfere(dst, other);
            }
        }
    }
    // Greedy colouring, largest first (so alignment wastes little), then by id.
    let mut order: Vec<ValueId> = slots.keys().copied().collect();
    order.sort_by_key(|v| (std::cmp::Reverse(func.info(*v).size), *v));
    let mut placed: FxHashMap<ValueId, u32> = FxHashMap::default();
    let mut words = 0;
    for v in order {
        let size = u32::from(func.info(v).size);
        let taken: Vec<(u32, u32)> = neighbours
            .get(&v)
            .into_iter()
            .flatten()
            .filter_map(|n| {
                placed
                    .get(n)
                    .map(|&s| (s, s + u32::from(func.info(*n).size)))
            })
            .collect();
        let mut start = 0;
        while taken
            .iter()
            .any(|&(lo, hi)| start < hi && lo < start + size)
        {
            start += size;
        }
        placed.insert(v, start);
        words = words.max(start + size);
    }
    // Old words to new: each value's old slot words are its own.
    let mut remap: FxHashMap<u32, u32> = FxHashMap::default();
    for (v, &old) in slots {
        let new = placed[v];
        for w in 0..u32::from(func.info(*v).size) {
            remap.insert(old + w, new + w);
        }
    }
    let fix = |loc: &mut Location| {
        if let Location::Slot(s) = loc {
            *s = remap.get(s).copied().unwrap_or(*s);
        }
    };
    for (_, edit) in edits.iter_mut() {
        if let Edit::Move { from, to, .. } = edit {
            fix(from);
            fix(to);
        }
    }
    for loc in phis.iter_mut().flatten() {
        fix(loc);
    }
    words
}
