//! The sizes of the IR's records (docs/ir.md, "Representation"): every pass reads them, and
//! on functions of 100k instructions their size decides how much of the function fits in
//! the cache (docs/lowering-speed.md, round 7). A change that grows one fails here.

use std::mem::size_of;

use tangle_ir::{
    Block, BlockData, Inst, InstData, InstList, Literals, Op, Operand, Operands, PhiBlocks,
    Terminator, Value, ValueData,
};

#[test]
fn records_stay_small() {
    eprintln!(
        "InstData {} Op {} Operands {} BlockData {} InstList {} Terminator {} Merge {} ValueData {} Literals {} PhiBlocks {} Operand {}",
        size_of::<InstData>(),
        size_of::<Op>(),
        size_of::<Operands>(),
        size_of::<BlockData>(),
        size_of::<InstList>(),
        size_of::<Terminator>(),
        size_of::<Option<tangle_ir::Merge>>(),
        size_of::<ValueData>(),
        size_of::<Literals>(),
        size_of::<PhiBlocks>(),
        size_of::<Operand>(),
    );
    assert_eq!(size_of::<Option<Value>>(), 4);
    assert_eq!(size_of::<Option<Block>>(), 4);
    assert_eq!(size_of::<Option<Inst>>(), 4);
}
