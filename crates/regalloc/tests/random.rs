//! Random SSA functions through the allocator, each judged by the symbolic checker:
//! roomy limits (no spilling needed), tight limits (spilling in every class), and
//! constraints (fixed, tied, early-clobber operands).

mod common;

use common::{random_function, Shape, TIGHT};
use tangle_regalloc::{allocate, check::check, Edit, Limits, Location, Position};

fn cases() -> u64 {
    std::env::var("TANGLE_REGALLOC_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}

fn run(seed: u64, shape: Shape, limits: &Limits) -> tangle_regalloc::Allocation {
    if let Some(only) = std::env::var("TANGLE_REGALLOC_SEED")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
    {
        if only != seed {
            return tangle_regalloc::Allocation::default();
        }
    }
    let func = random_function(seed, shape, limits);
    let alloc = match allocate(&func, limits) {
        Ok(alloc) => alloc,
        Err(e) => panic!("seed {seed} {shape:?}: allocation failed: {e}\n{func}"),
    };
    if let Err(e) = check(&func, limits, &alloc) {
        panic!(
            "seed {seed} {shape:?}: checker: {e}\n{func}\n{}",
            tangle_regalloc::check::listing(&func, &alloc)
        );
    }
    alloc
}

#[test]
fn random_functions_with_roomy_limits_check() {
    let shape = Shape::mixed(8, 8, 30);
    for seed in 0..cases() {
        run(seed, shape, &Limits::HARDWARE);
    }
}

#[test]
fn random_functions_under_pressure_check() {
    let shape = Shape::mixed(10, 10, 70);
    let (mut spilled, mut memory, mut memory_in_loops, mut other, mut frame) = (0, 0, 0, 0, 0);
    for seed in 0..cases() {
        let alloc = run(seed, shape, &TIGHT);
        if alloc.spill_words > 0 {
            spilled += 1;
        }
        frame += alloc.spill_words;
        let looping = common::brute::on_cycle(&random_function(seed, shape, &TIGHT));
        for (pos, edit) in &alloc.edits {
            let block = match *pos {
                Position::Before { block, .. } | Position::End { block } => block,
            };
            let to_memory = matches!(
                edit,
                Edit::Move {
                    to: Location::Slot(_),
                    ..
                }
            );
            if to_memory
                || matches!(
                    edit,
                    Edit::Move {
                        from: Location::Slot(_),
                        ..
                    }
                )
            {
                memory += 1;
                memory_in_loops += usize::from(looping[block.0 as usize]);
            } else {
                other += 1;
            }
        }
    }
    println!(
        "tight limits, {} functions: {spilled} spill to memory; {memory} loads and stores ({memory_in_loops} in loops), {other} other moves and swaps; {frame} spill words",
        cases()
    );
    assert!(
        spilled > cases() / 4,
        "only {spilled} of {} functions spilled: the pressure test is too weak",
        cases()
    );
}

#[test]
fn random_functions_with_constraints_check() {
    let shape = Shape {
        constraints: true,
        ..Shape::mixed(8, 10, 50)
    };
    for seed in 0..cases() {
        run(seed, shape, &TIGHT);
        run(seed + 1_000_000, shape, &Limits::HARDWARE);
    }
}

#[test]
fn random_functions_keep_off_reserved_registers() {
    use tangle_regalloc::{allocate_reserving, check::check_reserving, PhysReg, RegClass};
    // R1 as the stack pointer, as ptxas keeps it, and one register of each other class.
    let reserved = [
        PhysReg {
            class: RegClass::Gpr,
            index: 1,
        },
        PhysReg {
            class: RegClass::Pred,
            index: 0,
        },
        PhysReg {
            class: RegClass::UGpr,
            index: 5,
        },
        PhysReg {
            class: RegClass::Barrier,
            index: 15,
        },
    ];
    let limits = tangle_regalloc::Limits {
        gpr: 24,
        pred: 4,
        ugpr: 9,
        upred: 2,
        barrier: 16,
    };
    for (n, seed) in (0..cases()).enumerate() {
        let shape = Shape::mixed(8, 10, if n % 2 == 0 { 70 } else { 30 });
        let func = random_function(seed, shape, &TIGHT);
        let alloc = allocate_reserving(&func, &limits, &reserved)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{func}"));
        if let Err(e) = check_reserving(&func, &limits, &reserved, &alloc) {
            panic!(
                "seed {seed}: {e}\n{}",
                tangle_regalloc::check::listing(&func, &alloc)
            );
        }
        assert!(
            alloc.regs_used.of(RegClass::Gpr) >= 2,
            "R1 is counted as used"
        );
    }
}

#[test]
fn random_functions_with_divergent_blocks_never_write_uniform_registers_there() {
    use tangle_regalloc::{allocate_with, check::check_with, AllocError, BlockId, Options};
    // Uniform values come from the entry block only (as instruction selection keeps them to
    // uniform control flow); any other block may be divergent.
    let shape = Shape {
        uniform_entry_only: true,
        ..Shape::mixed(8, 10, 40)
    };
    for (limits, must_all_allocate) in [
        (Limits::HARDWARE, true),
        (
            Limits {
                ugpr: 6,
                upred: 1,
                ..Limits::HARDWARE
            },
            false,
        ),
    ] {
        let (mut allocated, mut refused) = (0, 0);
        for seed in 0..cases() {
            let func = random_function(seed, shape, &limits);
            let mut rng = fastrand::Rng::with_seed(seed);
            let divergent: Vec<BlockId> = (1..func.blocks.len() as u32)
                .filter(|_| rng.bool())
                .map(BlockId)
                .collect();
            let options = Options {
                divergent,
                ..Options::default()
            };
            match allocate_with(&func, &limits, &options) {
                Ok(alloc) => {
                    if let Err(e) = check_with(&func, &limits, &options, &alloc) {
                        panic!(
                            "seed {seed}: {e}\n{}",
                            tangle_regalloc::check::listing(&func, &alloc)
                        );
                    }
                    allocated += 1;
                }
                Err(AllocError::UniformWriteInDivergentCode { .. }) if !must_all_allocate => {
                    refused += 1
                }
                Err(e) => panic!("seed {seed} under {limits:?}: {e}\n{func}"),
            }
        }
        println!("divergent blocks under {limits:?}: {allocated} allocated, {refused} refused");
        assert!(
            allocated * 2 > cases(),
            "only {allocated} of {} allocated",
            cases()
        );
    }
}
