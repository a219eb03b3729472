//! A seeded generator of random SSA machine functions for the allocator's tests and bench:
//! random CFGs with branches and loops (critical edges split), values of every class and
//! tuple size, long live ranges for pressure, φs at joins, and occasional fixed, tied and
//! early-clobber operands kept satisfiable under the given limits.

#![allow(dead_code)]

pub mod brute;

use tangle_regalloc::{
    Block, BlockId, Def, DefConstraint, Function, Inst, Limits, Phi, RegClass, Use, ValueId,
};

/// Knobs of one random function.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Blocks before critical edges are split.
    pub blocks: usize,
    /// Instructions per block (at most).
    pub insts: usize,
    /// Chance in percent that an instruction's use picks any older value (long live ranges,
    /// high pressure) rather than a recent one.
    pub far_uses: u32,
    /// Whether to add fixed, tied and early-clobber operands.
    pub constraints: bool,
    /// Only 32-bit GPR values (and the entry's branch predicate): the case where an SSA
    /// allocator can always reach the max-live lower bound exactly.
    pub scalar: bool,
    /// Uniform registers and predicates only from the entry block (read anywhere, defined
    /// nowhere else, never φs): code whose other blocks may all be divergent.
    pub uniform_entry_only: bool,
}

impl Shape {
    /// Every kind of value, no constraints.
    pub const fn mixed(blocks: usize, insts: usize, far_uses: u32) -> Shape {
        Shape {
            blocks,
            insts,
            far_uses,
            constraints: false,
            scalar: false,
            uniform_entry_only: false,
        }
    }
}

const SHAPES: [(RegClass, u8); 8] = [
    (RegClass::Gpr, 1),
    (RegClass::Gpr, 1),
    (RegClass::Gpr, 2),
    (RegClass::Gpr, 4),
    (RegClass::Pred, 1),
    (RegClass::UGpr, 1),
    (RegClass::UGpr, 2),
    (RegClass::UPred, 1),
];

fn all_shapes(scalar: bool) -> Vec<(RegClass, u8)> {
    if scalar {
        return vec![(RegClass::Gpr, 1)];
    }
    let mut shapes = SHAPES.to_vec();
    shapes.push((RegClass::Barrier, 1));
    shapes.push((RegClass::UGpr, 4));
    shapes
}

/// The shapes defined outside the entry block.
fn later_shapes(shape: Shape) -> Vec<(RegClass, u8)> {
    let mut shapes = all_shapes(shape.scalar);
    if shape.uniform_entry_only {
        shapes.retain(|(class, _)| !matches!(class, RegClass::UGpr | RegClass::UPred));
    }
    shapes
}

/// A random CFG: block `i` falls through or branches to `i + 1` and maybe elsewhere
/// (backwards makes loops); the last block exits. Critical edges are then split.
fn random_cfg(rng: &mut fastrand::Rng, blocks: usize) -> Vec<Vec<usize>> {
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); blocks];
    for (i, list) in succs.iter_mut().enumerate().take(blocks.saturating_sub(1)) {
        list.push(i + 1);
        if rng.u32(0..100) < 45 {
            let other = rng.usize(0..blocks);
            if other != i + 1 && other != 0 {
                list.push(other);
            }
        }
    }
    // Split critical edges.
    let mut preds = vec![0usize; blocks];
    for list in &succs {
        for s in list {
            preds[*s] += 1;
        }
    }
    let original = succs.len();
    for b in 0..original {
        if succs[b].len() < 2 {
            continue;
        }
        for k in 0..succs[b].len() {
            let s = succs[b][k];
            if preds[s] > 1 {
                let split = succs.len();
                succs.push(vec![s]);
                succs[b][k] = split;
            }
        }
    }
    succs
}

fn dominators(succs: &[Vec<usize>], preds: &[Vec<usize>], rpo: &[usize]) -> Vec<usize> {
    let n = succs.len();
    let mut order = vec![usize::MAX; n];
    for (i, b) in rpo.iter().enumerate() {
        order[*b] = i;
    }
    let mut idom = vec![usize::MAX; n];
    idom[0] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for &b in rpo.iter().skip(1) {
            let mut new = usize::MAX;
            for &p in &preds[b] {
                if idom[p] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX {
                    p
                } else {
                    let (mut x, mut y) = (p, new);
                    while x != y {
                        while order[x] > order[y] {
                            x = idom[x];
                        }
                        while order[y] > order[x] {
                            y = idom[y];
                        }
                    }
                    x
                };
            }
            if new != idom[b] {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

fn rpo_of(succs: &[Vec<usize>]) -> Vec<usize> {
    let mut seen = vec![false; succs.len()];
    let mut post = Vec::new();
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    while let Some(top) = stack.last_mut() {
        let (b, k) = *top;
        if k < succs[b].len() {
            top.1 += 1;
            let s = succs[b][k];
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// A random strict-SSA function whose every instruction fits `limits`.
pub fn random_function(seed: u64, shape: Shape, limits: &Limits) -> Function {
    let mut rng = fastrand::Rng::with_seed(seed);
    let succs = random_cfg(&mut rng, shape.blocks.max(1));
    let n = succs.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, list) in succs.iter().enumerate() {
        for s in list {
            preds[*s].push(b);
        }
    }
    let rpo = rpo_of(&succs);
    let idom = dominators(&succs, &preds, &rpo);
    let mut func = Function {
        values: Vec::new(),
        blocks: (0..n)
            .map(|b| Block {
                preds: preds[b].iter().map(|p| BlockId(*p as u32)).collect(),
                succs: succs[b].iter().map(|s| BlockId(*s as u32)).collect(),
                ..Default::default()
            })
            .collect(),
    };
    // Values defined in each block, in order (for availability through dominators).
    let mut defined: Vec<Vec<ValueId>> = vec![Vec::new(); n];
    let shapes = all_shapes(shape.scalar);
    let fits = |class: RegClass, size: u8| u16::from(size) <= limits.of(class);
    // The entry defines one value of every shape first, so every φ and use finds one.
    let mut entry = Vec::new();
    let mut first = shapes.clone();
    if shape.scalar {
        first.push((RegClass::Pred, 1));
    }
    for &(class, size) in &first {
        if !fits(class, size) {
            continue;
        }
        let v = func.new_value(class, size);
        entry.push(Inst {
            defs: vec![Def::new(v)],
            ..Default::default()
        });
        defined[0].push(v);
    }
    func.blocks[0].insts = entry;
    let mut pending_phis: Vec<(usize, usize, ValueId)> = Vec::new();
    for &b in &rpo {
        // Values available at the block's entry: those of its dominators.
        let mut avail: Vec<ValueId> = Vec::new();
        if b != 0 {
            let mut d = idom[b];
            loop {
                avail.extend(defined[d].iter().copied());
                if d == 0 {
                    break;
                }
                d = idom[d];
            }
        }
        if preds[b].len() > 1 {
            for _ in 0..rng.usize(1..4) {
                let later = later_shapes(shape);
                let (class, size) = later[rng.usize(0..later.len())];
                if !fits(class, size) {
                    continue;
                }
                let dst = func.new_value(class, size);
                func.blocks[b].phis.push(Phi {
                    dst,
                    srcs: vec![ValueId(u32::MAX); preds[b].len()],
                });
                let k = func.blocks[b].phis.len() - 1;
                pending_phis.push((b, k, dst));
                defined[b].push(dst);
                avail.push(dst);
            }
        }
        if b == 0 {
            avail.extend(defined[0].iter().copied());
        }
        let count = rng.usize(1..shape.insts.max(2));
        for _ in 0..count {
            let inst = random_inst(&mut rng, &mut func, &avail, shape, limits);
            for def in &inst.defs {
                defined[b].push(def.value);
                avail.push(def.value);
            }
            func.blocks[b].insts.push(inst);
        }
        if succs[b].len() > 1 {
            // A conditional branch on some predicate.
            let preds_avail: Vec<ValueId> = avail
                .iter()
                .copied()
                .filter(|v| func.info(*v).class == RegClass::Pred)
                .collect();
            let cond = preds_avail[rng.usize(0..preds_avail.len())];
            func.blocks[b].insts.push(Inst {
                uses: vec![Use::new(cond)],
                branch: true,
                ..Default::default()
            });
        } else if rng.bool() {
            func.blocks[b].insts.push(Inst {
                branch: true,
                ..Default::default()
            });
        }
    }
    // φ sources: any value of the right shape available at the end of each predecessor.
    for (b, k, dst) in pending_phis {
        let info = func.info(dst);
        for (slot, &p) in preds[b].iter().enumerate() {
            let mut avail: Vec<ValueId> = Vec::new();
            let mut d = p;
            loop {
                avail.extend(defined[d].iter().copied().filter(|v| func.info(*v) == info));
                if d == 0 {
                    break;
                }
                d = idom[d];
            }
            let src = if rng.u32(0..100) < 60 {
                *avail.last().unwrap()
            } else {
                avail[rng.usize(0..avail.len())]
            };
            func.blocks[b].phis[k].srcs[slot] = src;
        }
    }
    func
}

fn random_inst(
    rng: &mut fastrand::Rng,
    func: &mut Function,
    avail: &[ValueId],
    shape: Shape,
    limits: &Limits,
) -> Inst {
    let mut inst = Inst::default();
    // Registers this instruction needs at once, per class, kept under half the limit.
    let mut words = [0u16; 5];
    let room = |words: &[u16; 5], class: RegClass, size: u8| {
        words[class.index()] + u16::from(size) <= (limits.of(class) / 2).max(1)
    };
    let uses = rng.usize(0..4);
    let mut fixed_taken: Vec<(RegClass, u16, u16)> = Vec::new();
    for _ in 0..uses {
        if avail.is_empty() {
            break;
        }
        let pick = if rng.u32(0..100) < shape.far_uses {
            avail[rng.usize(0..avail.len())]
        } else {
            avail[avail.len() - 1 - rng.usize(0..avail.len().min(4))]
        };
        if shape.scalar && func.info(pick).class != RegClass::Gpr {
            continue;
        }
        let v = pick;
        let info = func.info(v);
        if inst.uses.iter().any(|u| u.value == v) || !room(&words, info.class, info.size) {
            continue;
        }
        words[info.class.index()] += u16::from(info.size);
        let mut use_ = Use::new(v);
        if shape.constraints && rng.u32(0..100) < 8 {
            let size = u16::from(info.size);
            let slots = limits.of(info.class) / size;
            let reg = rng.u16(0..slots) * size;
            let clash = fixed_taken
                .iter()
                .any(|&(c, lo, hi)| c == info.class && reg < hi && lo < reg + size);
            if !clash {
                fixed_taken.push((info.class, reg, reg + size));
                use_.fixed = Some(reg);
            }
        }
        inst.uses.push(use_);
    }
    inst.early_clobber = shape.constraints && rng.u32(0..100) < 10;
    let defs = rng.usize(0..3);
    let shapes = later_shapes(shape);
    let mut def_fixed: Vec<(RegClass, u16, u16)> = Vec::new();
    for _ in 0..defs {
        // A tied def, now and then, shaped like the use it is tied to.
        if shape.constraints && !inst.early_clobber && !inst.uses.is_empty() && rng.u32(0..100) < 15
        {
            let k = rng.usize(0..inst.uses.len());
            let already = inst
                .defs
                .iter()
                .any(|d| d.constraint == DefConstraint::TiedToUse(k))
                || inst.uses[k].fixed.is_some();
            if !already {
                let info = func.info(inst.uses[k].value);
                let v = func.new_value(info.class, info.size);
                inst.defs.push(Def {
                    value: v,
                    constraint: DefConstraint::TiedToUse(k),
                });
                continue;
            }
        }
        let (class, size) = shapes[rng.usize(0..shapes.len())];
        if !room(&words, class, size) {
            continue;
        }
        words[class.index()] += u16::from(size);
        let v = func.new_value(class, size);
        let mut def = Def::new(v);
        if shape.constraints && !inst.early_clobber && rng.u32(0..100) < 8 {
            let n = u16::from(size);
            let reg = rng.u16(0..limits.of(class) / n) * n;
            let clash = def_fixed
                .iter()
                .any(|&(c, lo, hi)| c == class && reg < hi && lo < reg + n);
            if !clash {
                def_fixed.push((class, reg, reg + n));
                def.constraint = DefConstraint::Fixed(reg);
            }
        }
        inst.defs.push(def);
    }
    inst
}

/// Limits low enough that random functions spill in every class.
pub const TIGHT: Limits = Limits {
    gpr: 24,
    pred: 3,
    ugpr: 8,
    upred: 2,
    barrier: 2,
};
