//! Small hand-written functions whose right allocation is known: every result is also
//! run through the symbolic checker, and the specific facts (registers used, the spill
//! moves each class needs, swaps for a φ cycle) are asserted from first principles.

// Functions are built up field by field here, the way a client builds one.
#![allow(clippy::field_reassign_with_default)]

use tangle_regalloc::check::check;
use tangle_regalloc::{
    allocate, Allocation, Block, BlockId, Def, DefConstraint, Edit, Function, Inst, Limits,
    Location, Phi, PhysReg, RegClass, Use, ValueId,
};

fn def(values: &[ValueId]) -> Inst {
    Inst {
        defs: values.iter().map(|v| Def::new(*v)).collect(),
        ..Default::default()
    }
}

fn use_(values: &[ValueId]) -> Inst {
    Inst {
        uses: values.iter().map(|v| Use::new(*v)).collect(),
        ..Default::default()
    }
}

fn one_block(func: &mut Function, insts: Vec<Inst>) {
    func.blocks.push(Block {
        insts,
        ..Default::default()
    });
}

fn allocate_checked(func: &Function, limits: &Limits) -> Allocation {
    let alloc = allocate(func, limits).unwrap_or_else(|e| panic!("{e}\n{func}"));
    if let Err(e) = check(func, limits, &alloc) {
        panic!("{e}\n{}", tangle_regalloc::check::listing(func, &alloc));
    }
    alloc
}

fn moves(alloc: &Allocation) -> Vec<(Location, Location)> {
    alloc
        .edits
        .iter()
        .filter_map(|(_, e)| match e {
            Edit::Move { from, to, .. } => Some((*from, *to)),
            Edit::Swap { .. } => None,
        })
        .collect()
}

fn class_of(loc: Location) -> Option<RegClass> {
    match loc {
        Location::Reg(r) => Some(r.class),
        Location::Slot(_) => None,
    }
}

#[test]
fn straight_line_code_uses_exactly_its_pressure() {
    // a, b live together; c = a + b; d = c; a chain never needs more than 2 registers.
    let mut f = Function::default();
    let [a, b, c, d] = [0; 4].map(|_| f.new_value(RegClass::Gpr, 1));
    one_block(
        &mut f,
        vec![
            def(&[a]),
            def(&[b]),
            Inst {
                defs: vec![Def::new(c)],
                uses: vec![Use::new(a), Use::new(b)],
                ..Default::default()
            },
            Inst {
                defs: vec![Def::new(d)],
                uses: vec![Use::new(c)],
                ..Default::default()
            },
            use_(&[d]),
        ],
    );
    let alloc = allocate_checked(&f, &Limits::HARDWARE);
    assert_eq!(alloc.max_live.of(RegClass::Gpr), 2);
    assert_eq!(alloc.regs_used.of(RegClass::Gpr), 2);
    assert!(alloc.edits.is_empty(), "no moves needed: {:?}", alloc.edits);
}

#[test]
fn pairs_and_quads_are_aligned_and_packed() {
    // Two scalars at R0 and R2 are live when a quad is defined: the quad needs an aligned
    // window of four, so packing or a higher window is needed; 4+2 live words fit in 8.
    let mut f = Function::default();
    let s0 = f.new_value(RegClass::Gpr, 1);
    let s1 = f.new_value(RegClass::Gpr, 1);
    let s2 = f.new_value(RegClass::Gpr, 1);
    let pair = f.new_value(RegClass::Gpr, 2);
    let quad = f.new_value(RegClass::Gpr, 4);
    one_block(
        &mut f,
        vec![
            def(&[s0]),
            def(&[s1]),
            def(&[s2]),
            use_(&[s1]), // s1 dies: s0 and s2 stay, with a hole between them
            def(&[quad]),
            def(&[pair]),
            use_(&[s0, s2, quad, pair]),
        ],
    );
    let alloc = allocate_checked(&f, &Limits::HARDWARE);
    for (b, block) in f.blocks.iter().enumerate() {
        for (inst, regs) in block.insts.iter().zip(&alloc.insts[b]) {
            for (d, reg) in inst.defs.iter().zip(&regs.defs) {
                let size = f.info(d.value).size as u16;
                assert_eq!(reg.index % size, 0, "{} in {reg} is misaligned", d.value);
            }
        }
    }
    assert_eq!(alloc.max_live.of(RegClass::Gpr), 8);
    assert_eq!(
        alloc.regs_used.of(RegClass::Gpr),
        8,
        "{}",
        tangle_regalloc::check::listing(&f, &alloc)
    );
}

#[test]
fn seventeen_live_barriers_spill_one_through_a_gpr() {
    // 17 barrier values live at once: one must leave B0-B15 through BMOV to a GPR and come back.
    let mut f = Function::default();
    let barriers: Vec<ValueId> = (0..17).map(|_| f.new_value(RegClass::Barrier, 1)).collect();
    let mut insts: Vec<Inst> = barriers.iter().map(|b| def(&[*b])).collect();
    for b in &barriers {
        insts.push(use_(&[*b]));
    }
    one_block(&mut f, insts);
    let alloc = allocate_checked(&f, &Limits::HARDWARE);
    let mv = moves(&alloc);
    assert!(
        mv.iter()
            .any(|(a, b)| class_of(*a) == Some(RegClass::Barrier)
                && class_of(*b) == Some(RegClass::Gpr)),
        "{mv:?}"
    );
    assert!(
        mv.iter()
            .any(|(a, b)| class_of(*a) == Some(RegClass::Gpr)
                && class_of(*b) == Some(RegClass::Barrier)),
        "{mv:?}"
    );
    assert_eq!(alloc.regs_used.of(RegClass::Barrier), 16);
    assert_eq!(alloc.spill_words, 0, "barriers go to GPRs, not memory");
}

#[test]
fn gprs_past_the_limit_spill_to_local_memory() {
    let limits = Limits {
        gpr: 4,
        ..Limits::HARDWARE
    };
    let mut f = Function::default();
    let values: Vec<ValueId> = (0..6).map(|_| f.new_value(RegClass::Gpr, 1)).collect();
    let mut insts: Vec<Inst> = values.iter().map(|v| def(&[*v])).collect();
    for v in values.iter().rev() {
        insts.push(use_(&[*v]));
    }
    one_block(&mut f, insts);
    let alloc = allocate_checked(&f, &limits);
    let mv = moves(&alloc);
    let stores = mv
        .iter()
        .filter(|(a, b)| class_of(*a) == Some(RegClass::Gpr) && matches!(b, Location::Slot(_)))
        .count();
    let loads = mv
        .iter()
        .filter(|(a, b)| matches!(a, Location::Slot(_)) && class_of(*b) == Some(RegClass::Gpr))
        .count();
    // Six values, four registers: exactly two go to memory and come back (Belady is optimal
    // on a single block: the values used last are the ones evicted).
    assert_eq!((stores, loads), (2, 2), "{mv:?}");
    assert_eq!(alloc.spill_words, 2);
    assert_eq!(alloc.regs_used.of(RegClass::Gpr), 4);
}

#[test]
fn predicates_spill_to_gprs_and_uniform_predicates_to_uniform_registers() {
    let mut f = Function::default();
    let preds: Vec<ValueId> = (0..8).map(|_| f.new_value(RegClass::Pred, 1)).collect();
    let upreds: Vec<ValueId> = (0..8).map(|_| f.new_value(RegClass::UPred, 1)).collect();
    let mut insts: Vec<Inst> = preds.iter().chain(&upreds).map(|v| def(&[*v])).collect();
    for v in preds.iter().chain(&upreds) {
        insts.push(use_(&[*v]));
    }
    one_block(&mut f, insts);
    let alloc = allocate_checked(&f, &Limits::HARDWARE);
    let mv = moves(&alloc);
    let pairs: Vec<(Option<RegClass>, Option<RegClass>)> = mv
        .iter()
        .map(|(a, b)| (class_of(*a), class_of(*b)))
        .collect();
    assert!(
        pairs.contains(&(Some(RegClass::Pred), Some(RegClass::Gpr))),
        "{pairs:?}"
    );
    assert!(
        pairs.contains(&(Some(RegClass::Gpr), Some(RegClass::Pred))),
        "{pairs:?}"
    );
    assert!(
        pairs.contains(&(Some(RegClass::UPred), Some(RegClass::UGpr))),
        "{pairs:?}"
    );
    assert!(
        pairs.contains(&(Some(RegClass::UGpr), Some(RegClass::UPred))),
        "{pairs:?}"
    );
    assert_eq!(alloc.regs_used.of(RegClass::Pred), 7);
    assert_eq!(alloc.regs_used.of(RegClass::UPred), 7);
}

/// b0 -> b1 (loop header: a' = phi(a, b'), b' = phi(b, a')) -> b2 (latch, back to b1) ; b1 -> b3 exit.
fn swap_loop() -> Function {
    let mut f = Function::default();
    let [a, b, a1, b1, p] = [
        f.new_value(RegClass::Gpr, 1),
        f.new_value(RegClass::Gpr, 1),
        f.new_value(RegClass::Gpr, 1),
        f.new_value(RegClass::Gpr, 1),
        f.new_value(RegClass::Pred, 1),
    ];
    f.blocks = vec![
        Block {
            succs: vec![BlockId(1)],
            insts: vec![def(&[a]), def(&[b]), def(&[p])],
            ..Default::default()
        },
        Block {
            succs: vec![BlockId(2), BlockId(3)],
            phis: vec![
                Phi {
                    dst: a1,
                    srcs: vec![a, b1],
                },
                Phi {
                    dst: b1,
                    srcs: vec![b, a1],
                },
            ],
            insts: vec![Inst {
                uses: vec![Use::new(p)],
                branch: true,
                ..Default::default()
            }],
            ..Default::default()
        },
        Block {
            succs: vec![BlockId(1)],
            insts: vec![Inst {
                branch: true,
                ..Default::default()
            }],
            ..Default::default()
        },
        Block {
            insts: vec![use_(&[a1, b1])],
            ..Default::default()
        },
    ];
    f.compute_preds();
    f
}

#[test]
fn a_phi_swap_on_a_back_edge_is_a_swap_not_a_spill() {
    let f = swap_loop();
    let alloc = allocate_checked(&f, &Limits::HARDWARE);
    let at_latch: Vec<&Edit> = alloc
        .edits_at(tangle_regalloc::Position::End { block: BlockId(2) })
        .collect();
    assert_eq!(at_latch.len(), 1, "{at_latch:?}");
    assert!(matches!(at_latch[0], Edit::Swap { .. }));
    assert_eq!(alloc.regs_used.of(RegClass::Gpr), 2);
}

#[test]
fn fixed_and_tied_operands_are_honoured() {
    let mut f = Function::default();
    let param = f.new_value(RegClass::Gpr, 2);
    let x = f.new_value(RegClass::Gpr, 1);
    let y = f.new_value(RegClass::Gpr, 1);
    let bar = f.new_value(RegClass::Barrier, 1);
    let bar2 = f.new_value(RegClass::Barrier, 1);
    one_block(
        &mut f,
        vec![
            Inst {
                defs: vec![Def {
                    value: param,
                    constraint: DefConstraint::Fixed(4),
                }],
                ..Default::default()
            },
            Inst {
                defs: vec![Def::new(x), Def::new(bar)],
                uses: vec![Use::new(param)],
                ..Default::default()
            },
            // A two-address update of the barrier whose old value lives on.
            Inst {
                defs: vec![Def {
                    value: bar2,
                    constraint: DefConstraint::TiedToUse(0),
                }],
                uses: vec![Use::new(bar)],
                ..Default::default()
            },
            Inst {
                defs: vec![Def::new(y)],
                uses: vec![Use {
                    value: x,
                    fixed: Some(7),
                }],
                ..Default::default()
            },
            use_(&[bar, bar2, y]),
        ],
    );
    let alloc = allocate_checked(&f, &Limits::HARDWARE);
    assert_eq!(
        alloc.insts[0][0].defs[0],
        PhysReg {
            class: RegClass::Gpr,
            index: 4
        }
    );
    assert_eq!(alloc.insts[0][2].defs[0], alloc.insts[0][2].uses[0]);
    assert_eq!(
        alloc.insts[0][3].uses[0],
        PhysReg {
            class: RegClass::Gpr,
            index: 7
        }
    );
}

#[test]
fn early_clobber_defs_avoid_every_use() {
    let mut f = Function::default();
    let a = f.new_value(RegClass::Gpr, 1);
    let b = f.new_value(RegClass::Gpr, 2);
    one_block(
        &mut f,
        vec![
            def(&[a]),
            Inst {
                defs: vec![Def::new(b)],
                uses: vec![Use::new(a)],
                early_clobber: true,
                ..Default::default()
            },
            use_(&[b]),
        ],
    );
    let alloc = allocate_checked(&f, &Limits::HARDWARE);
    let (d, u) = (
        alloc.insts[0][1].defs[0].index,
        alloc.insts[0][1].uses[0].index,
    );
    assert!(u < d || u >= d + 2, "b in R{d} overlaps a in R{u}");
}

#[test]
fn a_value_the_loop_never_reads_is_spilled_outside_the_loop() {
    // x lives through a loop that needs four GPRs under a limit of three: x is stored before
    // the loop and loaded after it, with no memory traffic inside.
    let limits = Limits {
        gpr: 3,
        ..Limits::HARDWARE
    };
    let mut f = Function::default();
    let [x, a, c, a1, t, a2] = [0; 6].map(|_| f.new_value(RegClass::Gpr, 1));
    let p = f.new_value(RegClass::Pred, 1);
    let op = |defs: &[ValueId], uses: &[ValueId]| Inst {
        defs: defs.iter().map(|v| Def::new(*v)).collect(),
        uses: uses.iter().map(|v| Use::new(*v)).collect(),
        ..Default::default()
    };
    f.blocks = vec![
        Block {
            succs: vec![BlockId(1)],
            insts: vec![def(&[x]), def(&[a]), def(&[c]), def(&[p])],
            ..Default::default()
        },
        Block {
            succs: vec![BlockId(2), BlockId(3)],
            phis: vec![Phi {
                dst: a1,
                srcs: vec![a, a2],
            }],
            insts: vec![
                op(&[t], &[a1, c]),
                op(&[a2], &[t, a1]),
                Inst {
                    uses: vec![Use::new(p)],
                    branch: true,
                    ..Default::default()
                },
            ],
            ..Default::default()
        },
        Block {
            succs: vec![BlockId(1)],
            insts: vec![Inst {
                branch: true,
                ..Default::default()
            }],
            ..Default::default()
        },
        Block {
            insts: vec![use_(&[x, c])],
            ..Default::default()
        },
    ];
    f.compute_preds();
    let alloc = allocate_checked(&f, &limits);
    let in_loop = |pos: &tangle_regalloc::Position| match *pos {
        tangle_regalloc::Position::Before { block, .. }
        | tangle_regalloc::Position::End { block } => block == BlockId(1) || block == BlockId(2),
    };
    let memory_in_loop: Vec<_> = alloc
        .edits
        .iter()
        .filter(|(pos, e)| {
            in_loop(pos)
                && matches!(
                    e,
                    Edit::Move {
                        from: Location::Slot(_),
                        ..
                    } | Edit::Move {
                        to: Location::Slot(_),
                        ..
                    }
                )
        })
        .collect();
    assert!(
        memory_in_loop.is_empty(),
        "{memory_in_loop:?}\n{}",
        tangle_regalloc::check::listing(&f, &alloc)
    );
    assert!(alloc.spill_words >= 1, "x is spilled");
}
