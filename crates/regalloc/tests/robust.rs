//! Bad input gets a typed error, never a panic or a hang: random functions are mutated
//! (values renamed, sizes broken, edges added or dropped, constraints and branch flags set at
//! random) and every result is either an error or an allocation the checker accepts.

mod common;

use common::{random_function, Shape, TIGHT};
use tangle_regalloc::{
    allocate, check::check, BlockId, DefConstraint, Function, Phi, RegClass, ValueId,
};

fn mutate(func: &mut Function, rng: &mut fastrand::Rng) {
    let blocks = func.blocks.len();
    let values = func.values.len() as u32;
    let b = rng.usize(0..blocks);
    match rng.u32(0..9) {
        0 => {
            if let Some(inst) = func.blocks[b].insts.first_mut() {
                if let Some(u) = inst.uses.first_mut() {
                    u.value = ValueId(rng.u32(0..values + 3));
                }
            }
        }
        1 => {
            let v = rng.usize(0..func.values.len());
            func.values[v].size = rng.u8(0..6);
        }
        2 => func.blocks[b]
            .succs
            .push(BlockId(rng.u32(0..blocks as u32 + 1))),
        3 => {
            func.blocks[b].preds.pop();
        }
        4 => {
            for inst in &mut func.blocks[b].insts {
                if let Some(u) = inst.uses.last_mut() {
                    u.fixed = Some(rng.u16(0..300));
                }
            }
        }
        5 => {
            if let Some(inst) = func.blocks[b].insts.last_mut() {
                if let Some(d) = inst.defs.first_mut() {
                    d.constraint = if rng.bool() {
                        DefConstraint::TiedToUse(rng.usize(0..4))
                    } else {
                        DefConstraint::Fixed(rng.u16(0..260))
                    };
                }
            }
        }
        6 => {
            let n = func.blocks[b].insts.len();
            if n > 0 {
                func.blocks[b].insts[rng.usize(0..n)].branch = true;
            }
        }
        7 => {
            let dst = ValueId(rng.u32(0..values));
            let srcs = (0..rng.usize(0..3))
                .map(|_| ValueId(rng.u32(0..values)))
                .collect();
            func.blocks[b].phis.push(Phi { dst, srcs });
        }
        _ => {
            let v = rng.usize(0..func.values.len());
            func.values[v].class = [
                RegClass::Gpr,
                RegClass::Pred,
                RegClass::UGpr,
                RegClass::UPred,
                RegClass::Barrier,
            ][rng.usize(0..5)];
        }
    }
}

#[test]
fn mutated_functions_are_refused_or_allocated_correctly() {
    let cases: u64 = std::env::var("TANGLE_REGALLOC_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let mut refused = 0;
    let mut allocated = 0;
    for seed in 0..cases * 4 {
        let mut rng = fastrand::Rng::with_seed(seed ^ 0x5eed);
        let mut func = random_function(
            seed / 4,
            Shape {
                constraints: true,
                ..Shape::mixed(6, 8, 50)
            },
            &TIGHT,
        );
        for _ in 0..rng.usize(1..4) {
            mutate(&mut func, &mut rng);
        }
        // Printing and checking a bad function must not panic either.
        let _ = func.to_string();
        match allocate(&func, &TIGHT) {
            Err(_) => {
                refused += 1;
                assert!(check(&func, &TIGHT, &tangle_regalloc::Allocation::default()).is_err());
            }
            Ok(alloc) => {
                if let Err(e) = check(&func, &TIGHT, &alloc) {
                    panic!("seed {seed}: accepted but wrong: {e}\n{func}");
                }
                allocated += 1;
            }
        }
    }
    assert!(
        refused > 0 && allocated > 0,
        "{refused} refused, {allocated} allocated: the mutations are too weak or too strong"
    );
}
