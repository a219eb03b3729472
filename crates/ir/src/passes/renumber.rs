//! Instruction renumbering: gives the instructions new numbers in layout order, so that a
//! walk over the blocks reads the instruction arena front to back.
//!
//! Edits append new instructions at the arena's end, and promotion or a control-flow
//! rewrite leaves the arena in creation order, not in the order the whole-function passes
//! walk it. On functions of 100k instructions each out-of-order read is a last-level cache
//! miss (docs/lowering-speed.md); in layout order the walks stream. Instruction numbers
//! are not part of the text form (it names results), so the printed function is unchanged;
//! values keep their numbers. Every instruction is kept: those of blocks outside the
//! layout, then those in no block, follow the laid-out ones in their old order.

use crate::entity::{EntityRef, EntityVec, SecondaryMap};
use crate::module::{Function, Inst, InstData, ValueDef};
use crate::ops::Op;

/// Renumbers the instructions of `func` in layout order; returns whether any number
/// changed.
pub fn run(func: &mut Function) -> bool {
    run_with_room(func, 0)
}

/// [`run`], leaving room in the new arena for `room` more instructions: a caller about to
/// add many (the lowering's rewrite and SSA repair) saves the copy of the whole arena that
/// growing it would cost. When nothing moves, the arena keeps its order and only gains
/// the room.
pub fn run_with_room(func: &mut Function, room: usize) -> bool {
    let n = func.insts.len();
    let mut order: Vec<Inst> = Vec::with_capacity(n);
    let mut placed: SecondaryMap<Inst, bool> = SecondaryMap::with_capacity(false, n);
    let mut in_layout: SecondaryMap<crate::module::Block, bool> =
        SecondaryMap::with_capacity(false, func.blocks.len());
    for &b in &func.layout {
        in_layout.set(b, true);
    }
    let blocks_in_order = func
        .layout
        .iter()
        .copied()
        .chain(func.blocks.keys().filter(|&b| !*in_layout.get(b)));
    for b in blocks_in_order {
        for &i in &func.blocks[b].insts {
            // An instruction listed twice (invalid, the verifier's to report) keeps its
            // first place.
            if i.index() < n && !*placed.get(i) {
                placed.set(i, true);
                order.push(i);
            }
        }
    }
    order.extend(func.insts.keys().filter(|&i| !*placed.get(i)));
    if order.iter().enumerate().all(|(k, i)| i.index() == k) {
        func.insts.reserve(room);
        return false;
    }
    let mut new_of: Vec<Inst> = vec![Inst::from_u32(0); n];
    for (k, &i) in order.iter().enumerate() {
        new_of[i.index()] = Inst::new(k);
    }
    let mut old = std::mem::take(&mut func.insts);
    let mut insts: EntityVec<Inst, InstData> = EntityVec::with_capacity(n + room);
    for &i in &order {
        let data = std::mem::replace(
            &mut old[i],
            InstData::new(Op::Phi(Default::default()), Vec::new(), None),
        );
        insts.push(data);
    }
    func.insts = insts;
    for (_, block) in func.blocks.iter_mut() {
        for i in &mut block.insts {
            if i.index() < n {
                *i = new_of[i.index()];
            }
        }
    }
    for (_, value) in func.values.iter_mut() {
        if let ValueDef::Inst(i) = &mut value.def {
            if i.index() < n {
                *i = new_of[i.index()];
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use crate::builder::InsertAt;
    use crate::text::{parse, print};
    use crate::{Func, ValueDef};

    /// An instruction moved to the arena's end (as an edit leaves it) comes back in layout
    /// order, and the printed module is the same before and after.
    #[test]
    fn renumbered_in_layout_order_prints_the_same() {
        let src = "spirv 1.3\nmemory_model GLSL450\ncapability Shader\ntype t0 = void\n\
                   type t1 = u32\nconst c0 u32 = 1\n\
                   entry GLCompute \"main\" f0 () [local_size 1 1 1]\nfn f0() -> void {\nb0:\n  \
                   v0 = iadd u32 c0, c0\n  br b1\nb1:\n  v1 = iadd u32 v0, c0\n  return\n}\n";
        let mut m = parse(src).expect("the sample parses");
        let before = print(&m);
        let f = Func::from_u32(0);
        let func = &mut m.funcs[f];
        let b0 = func.layout[0];
        let first = func.blocks[b0].insts[0];
        // A copy of the first instruction at the arena's end takes over its result.
        let (moved, _) = func.insert_inst(
            InsertAt::Before(first),
            func.insts[first].op.clone(),
            func.insts[first].args.clone(),
            None,
        );
        func.blocks[b0].insts.remove(1);
        let r = func.insts[first].result.take().expect("iadd has a result");
        func.insts[moved].result = Some(r);
        func.values[r].def = ValueDef::Inst(moved);
        assert_eq!(print(&m), before);

        assert!(super::run(&mut m.funcs[f]));
        let func = &m.funcs[f];
        let walked: Vec<u32> = func
            .layout
            .iter()
            .flat_map(|&b| func.blocks[b].insts.iter().map(|i| i.as_u32()))
            .collect();
        assert_eq!(walked, vec![0, 1]);
        // The dropped original is kept, after the laid-out ones.
        assert_eq!(func.insts.len(), 3);
        assert_eq!(print(&m), before);
        crate::verify::verify(&m).expect("still verifies");
        assert!(!super::run(&mut m.funcs[f]));
    }
}
