//! Liveness and next-use distances of SSA values.
//!
//! A φ's source is used at the end of the predecessor it comes from (so it is live out of
//! that block and not into the φ's block); a φ's destination is defined at its block's
//! entry. The next-use distance of a value at a point counts instructions to its next use
//! along the nearest path; the allocator evicts the value used furthest away (Belady's rule,
//! as Braun and Hack apply it to SSA programs and NAK's spiller does).

use rustc_hash::FxHashMap as HashMap;

use crate::error::AllocError;
use crate::function::{BlockId, Function, ValueId};
use crate::loops::Loops;
use crate::output::ClassCounts;

/// A set of values as a bit vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ValueSet {
    words: Vec<u64>,
}

impl ValueSet {
    fn new(values: usize) -> ValueSet {
        ValueSet {
            words: vec![0; values.div_ceil(64)],
        }
    }

    pub(crate) fn contains(&self, value: ValueId) -> bool {
        let index = value.0 as usize;
        self.words
            .get(index / 64)
            .is_some_and(|w| w >> (index % 64) & 1 == 1)
    }

    fn insert(&mut self, value: ValueId) {
        let index = value.0 as usize;
        self.words[index / 64] |= 1 << (index % 64);
    }

    fn remove(&mut self, value: ValueId) {
        let index = value.0 as usize;
        self.words[index / 64] &= !(1 << (index % 64));
    }

    /// `self |= other`; whether anything was added.
    fn union_with(&mut self, other: &ValueSet) -> bool {
        let mut changed = false;
        for (mine, theirs) in self.words.iter_mut().zip(&other.words) {
            let merged = *mine | theirs;
            changed |= merged != *mine;
            *mine = merged;
        }
        changed
    }

    /// The members, in increasing order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = ValueId> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &bits)| {
            let mut bits = bits;
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let bit = bits.trailing_zeros();
                bits &= bits - 1;
                Some(ValueId(w as u32 * 64 + bit))
            })
        })
    }
}

/// "No further use": larger than any real distance.
pub(crate) const FAR: u32 = u32::MAX / 2;

/// What leaving a loop adds to a next-use distance: a value read only after the loop is
/// evicted before any value the loop itself reads.
const LOOP_EXIT: u32 = 1 << 20;

/// Liveness facts of a validated function.
pub(crate) struct Liveness {
    /// Values live on entry to each block (φ destinations excluded).
    pub(crate) live_in: Vec<ValueSet>,
    /// Values live at the end of each block (φ sources for its successors included).
    pub(crate) live_out: Vec<ValueSet>,
    /// Per block, the instruction indices reading each value (φ sources of successors at
    /// the block's length), ascending.
    pub(crate) uses: Vec<HashMap<ValueId, Vec<u32>>>,
    /// Per block, the distance from its end to the next use of each live-out value.
    pub(crate) dist_out: Vec<HashMap<ValueId, u32>>,
    /// The most registers of each class live at once (the lower bound).
    pub(crate) max_live: ClassCounts,
    /// The natural loops.
    pub(crate) loops: Loops,
    /// Per loop, the most registers of each class live at once inside it.
    pub(crate) loop_pressure: Vec<ClassCounts>,
    /// Per loop, the values read inside it (φ sources on its edges included).
    pub(crate) loop_uses: Vec<ValueSet>,
}

impl Liveness {
    /// Whether `value` is read after instruction `inst` of `block` (in the block or later).
    pub(crate) fn live_after(&self, block: BlockId, inst: usize, value: ValueId) -> bool {
        let b = block.0 as usize;
        if self.live_out[b].contains(value) {
            return true;
        }
        self.uses[b]
            .get(&value)
            .is_some_and(|positions| positions.last().is_some_and(|&last| last as usize > inst))
    }

    /// Distance from instruction `inst` of `block` to the next use of `value` at or after it.
    pub(crate) fn next_use(
        &self,
        func: &Function,
        block: BlockId,
        inst: usize,
        value: ValueId,
    ) -> u32 {
        let b = block.0 as usize;
        if let Some(positions) = self.uses[b].get(&value) {
            let at = positions.partition_point(|&p| (p as usize) < inst);
            if let Some(&p) = positions.get(at) {
                return p - inst as u32;
            }
        }
        match self.dist_out[b].get(&value) {
            Some(&d) => {
                let len = func.blocks[b].insts.len();
                (len.saturating_sub(inst) as u32).saturating_add(d).min(FAR)
            }
            None => FAR,
        }
    }
}

/// Computes liveness; fails when a value is live into the entry block (a use its
/// definition does not dominate).
pub(crate) fn compute(func: &Function, rpo: &[BlockId]) -> Result<Liveness, AllocError> {
    let blocks = func.blocks.len();
    let values = func.values.len();
    let mut uses: Vec<HashMap<ValueId, Vec<u32>>> = vec![HashMap::default(); blocks];
    let mut gen = vec![ValueSet::new(values); blocks];
    let mut kill = vec![ValueSet::new(values); blocks];
    for (b, block) in func.blocks.iter().enumerate() {
        for phi in &block.phis {
            kill[b].insert(phi.dst);
        }
        for (i, inst) in block.insts.iter().enumerate() {
            for use_ in &inst.uses {
                if !kill[b].contains(use_.value) {
                    gen[b].insert(use_.value);
                }
                let list = uses[b].entry(use_.value).or_default();
                if list.last() != Some(&(i as u32)) {
                    list.push(i as u32);
                }
            }
            for def in &inst.defs {
                kill[b].insert(def.value);
            }
        }
        // φ sources of successors: used at this block's end.
        let end = block.insts.len() as u32;
        for succ in &block.succs {
            let target = func.block(*succ);
            let Some(slot) = target.preds.iter().position(|p| p.0 as usize == b) else {
                continue;
            };
            for phi in &target.phis {
                let src = phi.srcs[slot];
                if !kill[b].contains(src) {
                    gen[b].insert(src);
                }
                let list = uses[b].entry(src).or_default();
                if list.last() != Some(&end) {
                    list.push(end);
                }
            }
        }
    }
    let mut phi_out = vec![ValueSet::new(values); blocks];
    for (b, block) in func.blocks.iter().enumerate() {
        for succ in &block.succs {
            let target = func.block(*succ);
            if let Some(slot) = target.preds.iter().position(|p| p.0 as usize == b) {
                for phi in &target.phis {
                    phi_out[b].insert(phi.srcs[slot]);
                }
            }
        }
    }
    // A worklist in post-order: a block is revisited only when a successor's live-in grew.
    let mut live_in = gen.clone();
    let mut live_out = vec![ValueSet::new(values); blocks];
    let mut queued = vec![true; blocks];
    let mut work: std::collections::VecDeque<usize> =
        rpo.iter().rev().map(|b| b.0 as usize).collect();
    let mut out = ValueSet::new(values);
    while let Some(b) = work.pop_front() {
        queued[b] = false;
        out.words.copy_from_slice(&phi_out[b].words);
        for succ in &func.blocks[b].succs {
            out.union_with(&live_in[succ.0 as usize]);
        }
        live_out[b].words.copy_from_slice(&out.words);
        let mut grew = false;
        for w in 0..out.words.len() {
            let inside = (out.words[w] & !kill[b].words[w]) | gen[b].words[w];
            let merged = live_in[b].words[w] | inside;
            grew |= merged != live_in[b].words[w];
            live_in[b].words[w] = merged;
        }
        if grew {
            for pred in &func.blocks[b].preds {
                let p = pred.0 as usize;
                if !queued[p] {
                    queued[p] = true;
                    work.push_back(p);
                }
            }
        }
    }
    if let Some(value) = live_in[0].iter().next() {
        return Err(AllocError::NotSsa {
            block: BlockId(0),
            value,
            what: "used on a path from the entry that does not pass its definition".into(),
        });
    }
    let loops = crate::loops::find(func, rpo);
    let dist_out = next_use_distances(func, rpo, &loops, &phi_out, &uses, &live_in, &live_out);
    let block_pressure = max_pressure(func, &live_out);
    let mut max_live = ClassCounts::default();
    for counts in &block_pressure {
        for (best, c) in max_live.0.iter_mut().zip(counts.0) {
            *best = (*best).max(c);
        }
    }
    let mut loop_pressure = vec![ClassCounts::default(); loops.count()];
    let mut loop_uses = vec![ValueSet::new(values); loops.count()];
    for (b, counts) in block_pressure.iter().enumerate() {
        for &l in loops.containing(b) {
            for (best, c) in loop_pressure[l].0.iter_mut().zip(counts.0) {
                *best = (*best).max(c);
            }
            for value in uses[b].keys() {
                loop_uses[l].insert(*value);
            }
        }
    }
    Ok(Liveness {
        live_in,
        live_out,
        uses,
        dist_out,
        max_live,
        loops,
        loop_pressure,
        loop_uses,
    })
}

fn next_use_distances(
    func: &Function,
    rpo: &[BlockId],
    loops: &Loops,
    phi_out: &[ValueSet],
    uses: &[HashMap<ValueId, Vec<u32>>],
    live_in: &[ValueSet],
    live_out: &[ValueSet],
) -> Vec<HashMap<ValueId, u32>> {
    let blocks = func.blocks.len();
    let mut dist_out: Vec<HashMap<ValueId, u32>> = vec![HashMap::default(); blocks];
    // Shortest distances from above (Bellman-Ford on a post-order worklist): a block is
    // revisited only when a successor's distances dropped.
    let mut queued = vec![true; blocks];
    let mut work: std::collections::VecDeque<usize> =
        rpo.iter().rev().map(|b| b.0 as usize).collect();
    while let Some(b) = work.pop_front() {
        queued[b] = false;
        let mut changed = false;
        for value in live_out[b].iter() {
            let mut best = FAR;
            if phi_out[b].contains(value) {
                best = 0;
            }
            for succ in &func.blocks[b].succs {
                let s = succ.0 as usize;
                if !live_in[s].contains(value) {
                    continue;
                }
                let here = match uses[s].get(&value).and_then(|p| p.first()) {
                    Some(&first) => first,
                    None => match dist_out[s].get(&value) {
                        Some(&d) => (func.blocks[s].insts.len() as u32).saturating_add(d),
                        None => FAR,
                    },
                };
                let penalty = LOOP_EXIT.saturating_mul(loops.exits(b, s));
                best = best.min(here.saturating_add(1).saturating_add(penalty).min(FAR));
            }
            if dist_out[b].get(&value) != Some(&best) {
                dist_out[b].insert(value, best);
                changed = true;
            }
        }
        if changed {
            for pred in &func.blocks[b].preds {
                let p = pred.0 as usize;
                if !queued[p] {
                    queued[p] = true;
                    work.push_back(p);
                }
            }
        }
    }
    dist_out
}

/// Per block, the most registers of each class live at once at any of its points, counting a definition that
/// is never read, and a whole instruction's uses and defs together when it is early-clobber.
fn max_pressure(func: &Function, live_out: &[ValueSet]) -> Vec<ClassCounts> {
    let mut per_block = Vec::with_capacity(func.blocks.len());
    let consider = |best: &mut ClassCounts, live: &[u32; 5]| {
        for (slot, count) in best.0.iter_mut().zip(live) {
            *slot = (*slot).max(*count);
        }
    };
    let weight = |value: ValueId| {
        let info = func.info(value);
        (info.class.index(), u32::from(info.size))
    };
    for (b, block) in func.blocks.iter().enumerate() {
        let mut best = ClassCounts::default();
        let mut members = live_out[b].clone();
        let mut counts = [0u32; 5];
        for value in members.iter() {
            let (c, n) = weight(value);
            counts[c] += n;
        }
        consider(&mut best, &counts);
        for inst in block.insts.iter().rev() {
            let mut after = counts;
            for def in &inst.defs {
                if !members.contains(def.value) {
                    let (c, n) = weight(def.value);
                    after[c] += n;
                }
            }
            consider(&mut best, &after);
            for def in &inst.defs {
                if members.contains(def.value) {
                    members.remove(def.value);
                    let (c, n) = weight(def.value);
                    counts[c] -= n;
                }
            }
            for use_ in &inst.uses {
                if !members.contains(use_.value) {
                    members.insert(use_.value);
                    let (c, n) = weight(use_.value);
                    counts[c] += n;
                }
            }
            consider(&mut best, &counts);
            if inst.early_clobber {
                let mut both = counts;
                for def in &inst.defs {
                    let (c, n) = weight(def.value);
                    both[c] += n;
                }
                consider(&mut best, &both);
            }
        }
        let mut entry = counts;
        for phi in &block.phis {
            if !members.contains(phi.dst) {
                let (c, n) = weight(phi.dst);
                entry[c] += n;
            }
        }
        consider(&mut best, &entry);
        per_block.push(best);
    }
    per_block
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_set_iterates_members_in_order() {
        let mut set = ValueSet::new(200);
        for v in [3, 64, 65, 199] {
            set.insert(ValueId(v));
        }
        set.remove(ValueId(65));
        assert_eq!(
            set.iter().collect::<Vec<_>>(),
            vec![ValueId(3), ValueId(64), ValueId(199)]
        );
        assert!(set.contains(ValueId(199)) && !set.contains(ValueId(65)));
    }
}
