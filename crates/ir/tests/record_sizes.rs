//! The sizes of the IR's records (docs/ir.md, "Representation"): every pass reads them, and
//! on functions of 100k instructions their size decides how much of the function fits in
//! the cache (docs/lowering-speed.md, round 7). A change that grows one fails here.

use std::mem::size_of;

use tangle_ir::{Block, BlockData, Inst, InstData, InstList, Literals, Op, PhiBlocks, Value};

/// An instruction is one 64-byte cache line's worth (80 bytes before round 7): its `Op`
/// 24 (was 32, a `Vec` for phi predecessors and literal lists), its operands 32, its
/// result and convergence operand 4 each (were 8: `Option` of an entity uses the entity's
/// free value).
#[test]
fn an_instruction_fits_a_cache_line() {
    assert_eq!(size_of::<Option<Value>>(), 4);
    assert_eq!(size_of::<Option<Block>>(), 4);
    assert_eq!(size_of::<Option<Inst>>(), 4);
    assert_eq!(size_of::<Literals>(), 16);
    assert_eq!(size_of::<PhiBlocks>(), 16);
    assert_eq!(size_of::<Op>(), 24);
    assert_eq!(size_of::<InstData>(), 64);
}

/// A block's instruction list takes no more room in the block than the `Vec` it replaced,
/// and no heap block at all up to five instructions.
#[test]
fn a_block_keeps_short_instruction_lists_inline() {
    assert_eq!(size_of::<InstList>(), 24);
    assert_eq!(InstList::INLINE, 5);
    assert_eq!(size_of::<BlockData>(), 104);
    let mut list = InstList::new();
    for i in 0..5 {
        list.push(Inst::from_u32(i));
    }
    assert!(!list.spilled());
    list.push(Inst::from_u32(5));
    assert!(list.spilled());
}
