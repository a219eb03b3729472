//! Liveness by its definition, independent of the allocator's: a value is live after an
//! instruction when some path from there reaches a use (φ sources used at the end of the
//! predecessor) without passing its definition. Computed per instruction point with plain
//! sets to a fixed point — slow and simple on purpose.

use std::collections::HashSet;

use tangle_regalloc::{Function, RegClass, ValueId};

/// `live_after[b][i]`: values live just after instruction `i` of block `b`;
/// `live_after[b][len]` is unused; `entry[b]` holds the values live on entry (φs excluded).
pub struct BruteLiveness {
    /// Per block, per instruction, the values live just after it.
    pub live_after: Vec<Vec<HashSet<ValueId>>>,
    /// Per block, the values live on entry (before the φs define theirs).
    pub entry: Vec<HashSet<ValueId>>,
}

/// Computes [`BruteLiveness`].
pub fn liveness(func: &Function) -> BruteLiveness {
    let n = func.blocks.len();
    let mut entry: Vec<HashSet<ValueId>> = vec![HashSet::new(); n];
    let mut live_after: Vec<Vec<HashSet<ValueId>>> = func
        .blocks
        .iter()
        .map(|b| vec![HashSet::new(); b.insts.len()])
        .collect();
    loop {
        let mut changed = false;
        for b in (0..n).rev() {
            let block = &func.blocks[b];
            // Live at the end: successors' entries plus this edge's φ sources.
            let mut live: HashSet<ValueId> = HashSet::new();
            for succ in &block.succs {
                let s = succ.0 as usize;
                live.extend(entry[s].iter().copied());
                let slot = func.blocks[s]
                    .preds
                    .iter()
                    .position(|p| p.0 as usize == b)
                    .unwrap();
                for phi in &func.blocks[s].phis {
                    live.insert(phi.srcs[slot]);
                }
            }
            for (i, inst) in block.insts.iter().enumerate().rev() {
                if live_after[b][i] != live {
                    live_after[b][i] = live.clone();
                    changed = true;
                }
                for def in &inst.defs {
                    live.remove(&def.value);
                }
                for use_ in &inst.uses {
                    live.insert(use_.value);
                }
            }
            for phi in &block.phis {
                live.remove(&phi.dst);
            }
            if entry[b] != live {
                entry[b] = live;
                changed = true;
            }
        }
        if !changed {
            return BruteLiveness { live_after, entry };
        }
    }
}

/// The most 32-bit GPR words live at once anywhere (after each instruction with its dead
/// defs, before each with its uses, at each block entry with its φs).
pub fn max_live_gpr_words(func: &Function) -> u32 {
    let live = liveness(func);
    let words = |set: &HashSet<ValueId>| -> u32 {
        set.iter()
            .filter(|v| func.info(**v).class == RegClass::Gpr)
            .map(|v| u32::from(func.info(*v).size))
            .sum()
    };
    let mut best = 0;
    for (b, block) in func.blocks.iter().enumerate() {
        let mut at_entry = live.entry[b].clone();
        for phi in &block.phis {
            at_entry.insert(phi.dst);
        }
        best = best.max(words(&at_entry));
        for (i, inst) in block.insts.iter().enumerate() {
            let mut after = live.live_after[b][i].clone();
            after.extend(inst.defs.iter().map(|d| d.value));
            best = best.max(words(&after));
            let mut before = live.live_after[b][i].clone();
            for def in &inst.defs {
                before.remove(&def.value);
            }
            before.extend(inst.uses.iter().map(|u| u.value));
            best = best.max(words(&before));
        }
    }
    best
}

/// Per block, whether it lies on a cycle of the CFG (reaches itself): code there may run
/// many times.
pub fn on_cycle(func: &Function) -> Vec<bool> {
    let n = func.blocks.len();
    (0..n)
        .map(|start| {
            let mut seen = vec![false; n];
            let mut stack: Vec<usize> = func.blocks[start]
                .succs
                .iter()
                .map(|s| s.0 as usize)
                .collect();
            while let Some(b) = stack.pop() {
                if b == start {
                    return true;
                }
                if !std::mem::replace(&mut seen[b], true) {
                    stack.extend(func.blocks[b].succs.iter().map(|s| s.0 as usize));
                }
            }
            false
        })
        .collect()
}
