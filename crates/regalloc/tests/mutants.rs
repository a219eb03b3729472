//! The checker catches wrong allocations: mutants of right ones (two uses' registers
//! swapped, two live defs' registers swapped) must all be rejected, so a check that passes
//! means something.

mod common;

use common::brute::liveness;
use common::{random_function, Shape, TIGHT};
use tangle_regalloc::{allocate, check::check, Allocation, Function, Limits};

/// Every mutant of `alloc` that swaps the registers of two uses of different values of the
/// same class and size in one instruction.
fn swapped_uses(func: &Function, alloc: &Allocation) -> Vec<Allocation> {
    let mut mutants = Vec::new();
    for (b, block) in func.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            for x in 0..inst.uses.len() {
                for y in x + 1..inst.uses.len() {
                    let (u, v) = (inst.uses[x], inst.uses[y]);
                    let regs = &alloc.insts[b][i].uses;
                    if u.value != v.value
                        && func.info(u.value) == func.info(v.value)
                        && regs[x] != regs[y]
                    {
                        let mut m = alloc.clone();
                        m.insts[b][i].uses.swap(x, y);
                        mutants.push(m);
                    }
                }
            }
        }
    }
    mutants
}

/// Every mutant that swaps the registers of two defs of one instruction that are both read
/// later (same class and size, free constraints).
fn swapped_defs(func: &Function, alloc: &Allocation) -> Vec<Allocation> {
    let live = liveness(func);
    let mut mutants = Vec::new();
    for (b, block) in func.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            for x in 0..inst.defs.len() {
                for y in x + 1..inst.defs.len() {
                    let (d, e) = (inst.defs[x], inst.defs[y]);
                    let both_live = live.live_after[b][i].contains(&d.value)
                        && live.live_after[b][i].contains(&e.value);
                    let free = d.constraint == tangle_regalloc::DefConstraint::Free
                        && e.constraint == d.constraint;
                    if both_live && free && func.info(d.value) == func.info(e.value) {
                        let mut m = alloc.clone();
                        m.insts[b][i].defs.swap(x, y);
                        mutants.push(m);
                    }
                }
            }
        }
    }
    mutants
}

fn catches_all(shape: Shape, limits: &Limits, seeds: std::ops::Range<u64>) -> (usize, usize) {
    let (mut uses, mut defs) = (0, 0);
    for seed in seeds {
        let func = random_function(seed, shape, limits);
        let alloc = allocate(&func, limits).unwrap();
        check(&func, limits, &alloc).unwrap();
        for m in swapped_uses(&func, &alloc) {
            assert!(
                check(&func, limits, &m).is_err(),
                "seed {seed}: a use-swap mutant passed"
            );
            uses += 1;
        }
        for m in swapped_defs(&func, &alloc) {
            assert!(
                check(&func, limits, &m).is_err(),
                "seed {seed}: a def-swap mutant passed"
            );
            defs += 1;
        }
    }
    (uses, defs)
}

#[test]
fn swapped_assignments_are_caught() {
    let (uses, defs) = catches_all(Shape::mixed(8, 10, 50), &Limits::HARDWARE, 0..150);
    let (tight_uses, tight_defs) = catches_all(Shape::mixed(8, 10, 70), &TIGHT, 0..150);
    assert!(uses + tight_uses > 200 && defs + tight_defs > 20, "too few mutants to mean anything: {uses}+{tight_uses} use swaps, {defs}+{tight_defs} def swaps");
}

#[test]
fn dropped_spills_are_caught() {
    // Under tight limits, dropping every store into a slot that is read back loses the
    // spilled value: the fill reads a slot that holds nothing.
    use tangle_regalloc::{Edit, Location};
    let mut caught = 0;
    for seed in 0..100 {
        let func = random_function(seed, Shape::mixed(8, 10, 70), &TIGHT);
        let alloc = allocate(&func, &TIGHT).unwrap();
        let loaded = alloc.edits.iter().find_map(|(_, e)| match e {
            Edit::Move {
                from: Location::Slot(s),
                ..
            } => Some(*s),
            _ => None,
        });
        let Some(slot) = loaded else { continue };
        let mut m = alloc.clone();
        m.edits
            .retain(|(_, e)| !matches!(e, Edit::Move { to: Location::Slot(s), .. } if *s == slot));
        assert!(
            check(&func, &TIGHT, &m).is_err(),
            "seed {seed}: dropping the stores to slot {slot} went unnoticed"
        );
        caught += 1;
    }
    assert!(caught > 20, "only {caught} functions spilled to memory");
}

#[test]
fn an_allocation_ignoring_a_reservation_is_caught() {
    use tangle_regalloc::{check::check_reserving, Edit, Location, PhysReg, RegClass};
    let reserved = [PhysReg {
        class: RegClass::Gpr,
        index: 1,
    }];
    let covers_r1 = |loc: Location, size: u8| matches!(loc, Location::Reg(r) if r.class == RegClass::Gpr && r.index <= 1 && 1 < r.index + u16::from(size));
    let mut caught = 0;
    for seed in 0..50 {
        let func = random_function(seed, Shape::mixed(6, 8, 50), &Limits::HARDWARE);
        let alloc = allocate(&func, &Limits::HARDWARE).unwrap();
        let mut touches = false;
        for (b, block) in func.blocks.iter().enumerate() {
            for (inst, regs) in block.insts.iter().zip(&alloc.insts[b]) {
                let defs = inst.defs.iter().map(|d| d.value).zip(&regs.defs);
                let uses = inst.uses.iter().map(|u| u.value).zip(&regs.uses);
                touches |= defs
                    .chain(uses)
                    .any(|(v, r)| covers_r1(Location::Reg(*r), func.info(v).size));
            }
            touches |= block
                .phis
                .iter()
                .zip(&alloc.phis[b])
                .any(|(p, l)| covers_r1(*l, func.info(p.dst).size));
        }
        touches |= alloc.edits.iter().any(|(_, e)| match *e {
            Edit::Move { from, to, size } => covers_r1(from, size) || covers_r1(to, size),
            Edit::Swap { a, b } => covers_r1(Location::Reg(a), 1) || covers_r1(Location::Reg(b), 1),
        });
        let rejected = check_reserving(&func, &Limits::HARDWARE, &reserved, &alloc).is_err();
        assert_eq!(
            rejected, touches,
            "seed {seed}: the checker's verdict on R1 is wrong"
        );
        caught += usize::from(rejected);
    }
    assert!(
        caught > 25,
        "only {caught} of 50 unreserved allocations touched R1"
    );
}

#[test]
fn slots_merged_into_one_are_caught() {
    // Every spill slot folded onto word 0: where two spilled values are live at once, one
    // overwrites the other and a later load reads the wrong value.
    use tangle_regalloc::{Edit, Location};
    let (mut candidates, mut caught) = (0, 0);
    for seed in 0..100 {
        let func = random_function(seed, Shape::mixed(8, 10, 70), &TIGHT);
        let alloc = allocate(&func, &TIGHT).unwrap();
        if alloc.spill_words <= 4 {
            continue; // one value's worth: nothing to fold
        }
        let mut m = alloc.clone();
        for (_, edit) in &mut m.edits {
            if let Edit::Move { from, to, .. } = edit {
                for loc in [from, to] {
                    if let Location::Slot(s) = loc {
                        *s = 0;
                    }
                }
            }
        }
        for loc in m.phis.iter_mut().flatten() {
            if let Location::Slot(s) = loc {
                *s = 0;
            }
        }
        candidates += 1;
        caught += usize::from(check(&func, &TIGHT, &m).is_err());
    }
    assert!(
        candidates > 20 && caught * 10 >= candidates * 9,
        "{caught} of {candidates} folded frames caught"
    );
}

#[test]
fn uniform_writes_in_divergent_code_are_caught() {
    // Allocated without being told which blocks diverge, tight uniform files get refilled
    // inside divergent blocks: the checker, told, must reject exactly those.
    use tangle_regalloc::{check::check_with, BlockId, Edit, Location, Options, RegClass};
    let limits = Limits {
        ugpr: 6,
        upred: 1,
        ..Limits::HARDWARE
    };
    let shape = Shape {
        uniform_entry_only: true,
        ..Shape::mixed(8, 10, 40)
    };
    let mut caught = 0;
    for seed in 0..100 {
        let func = random_function(seed, shape, &limits);
        let mut rng = fastrand::Rng::with_seed(seed);
        let divergent: Vec<BlockId> = (1..func.blocks.len() as u32)
            .filter(|_| rng.bool())
            .map(BlockId)
            .collect();
        let alloc = allocate(&func, &limits).unwrap();
        let writes = alloc.edits.iter().any(|(pos, e)| {
            let block = match *pos {
                tangle_regalloc::Position::Before { block, .. }
                | tangle_regalloc::Position::End { block } => block,
            };
            let uniform = |c: RegClass| matches!(c, RegClass::UGpr | RegClass::UPred);
            divergent.contains(&block)
                && match *e {
                    Edit::Move {
                        to: Location::Reg(r),
                        ..
                    } => uniform(r.class),
                    Edit::Move { .. } => false,
                    Edit::Swap { a, .. } => uniform(a.class),
                }
        });
        let options = Options {
            divergent,
            ..Options::default()
        };
        let rejected = check_with(&func, &limits, &options, &alloc).is_err();
        assert_eq!(rejected, writes, "seed {seed}");
        caught += usize::from(rejected);
    }
    assert!(
        caught > 10,
        "only {caught} allocations wrote uniform registers in divergent blocks"
    );
}
