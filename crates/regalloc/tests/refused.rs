//! Input the allocator refuses, each with a typed error naming where.

// Functions are built up field by field here, the way a client builds one.
#![allow(clippy::field_reassign_with_default)]

use tangle_regalloc::{
    allocate, AllocError, Block, BlockId, Def, DefConstraint, Function, Inst, Limits, Phi,
    RegClass, Use,
};

fn err(f: &Function) -> AllocError {
    allocate(f, &Limits::HARDWARE).expect_err("refused")
}

#[test]
fn an_empty_function_is_refused() {
    assert_eq!(err(&Function::default()), AllocError::Empty);
}

#[test]
fn a_use_not_dominated_by_its_definition_is_refused() {
    let mut f = Function::default();
    let v = f.new_value(RegClass::Gpr, 1);
    f.blocks.push(Block {
        insts: vec![
            Inst {
                uses: vec![Use::new(v)],
                ..Default::default()
            },
            Inst {
                defs: vec![Def::new(v)],
                ..Default::default()
            },
        ],
        ..Default::default()
    });
    assert!(matches!(err(&f), AllocError::NotSsa { value, .. } if value == v));
}

#[test]
fn a_value_defined_twice_is_refused() {
    let mut f = Function::default();
    let v = f.new_value(RegClass::Gpr, 1);
    let d = Inst {
        defs: vec![Def::new(v)],
        ..Default::default()
    };
    f.blocks.push(Block {
        insts: vec![d.clone(), d],
        ..Default::default()
    });
    assert!(matches!(err(&f), AllocError::NotSsa { .. }));
}

#[test]
fn bad_sizes_are_refused() {
    for (class, size) in [
        (RegClass::Gpr, 3),
        (RegClass::Pred, 2),
        (RegClass::Barrier, 4),
        (RegClass::Gpr, 8),
    ] {
        let mut f = Function::default();
        f.new_value(class, size);
        f.blocks.push(Block::default());
        assert!(
            matches!(err(&f), AllocError::BadSize { .. }),
            "{class} size {size}"
        );
    }
}

#[test]
fn critical_edges_and_unreachable_blocks_are_refused() {
    // b0 -> b1, b2; b1 -> b2: b0 -> b2 is critical.
    let mut f = Function::default();
    f.blocks = vec![
        Block {
            succs: vec![BlockId(1), BlockId(2)],
            ..Default::default()
        },
        Block {
            succs: vec![BlockId(2)],
            ..Default::default()
        },
        Block::default(),
    ];
    f.compute_preds();
    assert_eq!(
        err(&f),
        AllocError::CriticalEdge {
            from: BlockId(0),
            to: BlockId(2)
        }
    );
    let mut g = Function::default();
    g.blocks = vec![Block::default(), Block::default()];
    assert_eq!(err(&g), AllocError::Unreachable { block: BlockId(1) });
}

#[test]
fn disagreeing_edge_lists_are_refused() {
    let mut f = Function::default();
    f.blocks = vec![
        Block {
            succs: vec![BlockId(1)],
            ..Default::default()
        },
        Block::default(),
    ];
    assert!(matches!(err(&f), AllocError::BadCfg { .. }));
    f.blocks[1].preds = vec![BlockId(0)];
    f.blocks[0].succs.push(BlockId(7));
    assert!(matches!(err(&f), AllocError::BadCfg { .. }));
}

#[test]
fn malformed_phis_are_refused() {
    let mut f = Function::default();
    let a = f.new_value(RegClass::Gpr, 1);
    let p = f.new_value(RegClass::Pred, 1);
    let dst = f.new_value(RegClass::Gpr, 1);
    f.blocks = vec![
        Block {
            succs: vec![BlockId(1)],
            insts: vec![Inst {
                defs: vec![Def::new(a), Def::new(p)],
                ..Default::default()
            }],
            ..Default::default()
        },
        Block {
            phis: vec![Phi { dst, srcs: vec![p] }],
            ..Default::default()
        },
    ];
    f.compute_preds();
    assert!(
        matches!(err(&f), AllocError::BadPhi { .. }),
        "class mismatch"
    );
    f.blocks[1].phis[0].srcs = vec![a, a];
    assert!(matches!(err(&f), AllocError::BadPhi { .. }), "source count");
}

#[test]
fn impossible_constraints_are_refused() {
    let cases: Vec<Inst> = {
        let v = tangle_regalloc::ValueId(0);
        let w = tangle_regalloc::ValueId(1);
        vec![
            // past the limit
            Inst {
                defs: vec![Def {
                    value: w,
                    constraint: DefConstraint::Fixed(255),
                }],
                uses: vec![Use::new(v)],
                ..Default::default()
            },
            // misaligned pair
            Inst {
                uses: vec![Use {
                    value: v,
                    fixed: Some(1),
                }],
                ..Default::default()
            },
            // tie to a missing use
            Inst {
                defs: vec![Def {
                    value: w,
                    constraint: DefConstraint::TiedToUse(3),
                }],
                uses: vec![Use::new(v)],
                ..Default::default()
            },
            // a branch that is not last
            Inst {
                branch: true,
                ..Default::default()
            },
        ]
    };
    for (n, inst) in cases.into_iter().enumerate() {
        let mut f = Function::default();
        let v = f.new_value(RegClass::Gpr, 2);
        f.new_value(RegClass::Gpr, 1);
        f.blocks.push(Block {
            insts: vec![
                Inst {
                    defs: vec![Def::new(v)],
                    ..Default::default()
                },
                inst,
                Inst {
                    uses: vec![Use::new(v)],
                    ..Default::default()
                },
            ],
            ..Default::default()
        });
        assert!(
            matches!(err(&f), AllocError::BadConstraint { .. }),
            "case {n}: {:?}",
            allocate(&f, &Limits::HARDWARE)
        );
    }
}

#[test]
fn one_instruction_needing_more_than_a_class_holds_is_refused() {
    let limits = Limits {
        pred: 2,
        ..Limits::HARDWARE
    };
    let mut f = Function::default();
    let preds: Vec<_> = (0..3).map(|_| f.new_value(RegClass::Pred, 1)).collect();
    let mut insts: Vec<Inst> = preds
        .iter()
        .map(|p| Inst {
            defs: vec![Def::new(*p)],
            ..Default::default()
        })
        .collect();
    insts.push(Inst {
        uses: preds.iter().map(|p| Use::new(*p)).collect(),
        ..Default::default()
    });
    f.blocks.push(Block {
        insts,
        ..Default::default()
    });
    assert!(matches!(
        allocate(&f, &limits),
        Err(AllocError::OutOfRegisters {
            class: RegClass::Pred,
            ..
        })
    ));
}

#[test]
fn fixed_operands_on_reserved_registers_are_refused() {
    use tangle_regalloc::{allocate_reserving, PhysReg};
    let mut f = Function::default();
    let v = f.new_value(RegClass::Gpr, 2);
    f.blocks.push(Block {
        insts: vec![
            Inst {
                defs: vec![Def {
                    value: v,
                    constraint: DefConstraint::Fixed(0),
                }],
                ..Default::default()
            },
            Inst {
                uses: vec![Use::new(v)],
                ..Default::default()
            },
        ],
        ..Default::default()
    });
    let r1 = [PhysReg {
        class: RegClass::Gpr,
        index: 1,
    }];
    assert!(matches!(
        allocate_reserving(&f, &Limits::HARDWARE, &r1),
        Err(AllocError::BadConstraint { .. })
    ));
    let past = [PhysReg {
        class: RegClass::Pred,
        index: 7,
    }];
    assert!(matches!(
        allocate_reserving(&f, &Limits::HARDWARE, &past),
        Err(AllocError::BadConstraint { .. })
    ));
}

#[test]
fn uniform_defs_in_divergent_blocks_are_refused() {
    use tangle_regalloc::{allocate_with, Options};
    let mut f = Function::default();
    let u = f.new_value(RegClass::UGpr, 1);
    f.blocks.push(Block {
        insts: vec![
            Inst {
                defs: vec![Def::new(u)],
                ..Default::default()
            },
            Inst {
                uses: vec![Use::new(u)],
                ..Default::default()
            },
        ],
        ..Default::default()
    });
    let options = Options {
        divergent: vec![BlockId(0)],
        ..Options::default()
    };
    assert!(matches!(
        allocate_with(&f, &Limits::HARDWARE, &options),
        Err(AllocError::UniformWriteInDivergentCode { .. })
    ));
    let options = Options {
        divergent: vec![BlockId(3)],
        ..Options::default()
    };
    assert!(matches!(
        allocate_with(&f, &Limits::HARDWARE, &options),
        Err(AllocError::BadCfg { .. })
    ));
}
