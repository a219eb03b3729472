//! The mask simulator on small programs whose buffers are derived by hand, and the
//! generator's own promises (determinism per seed, the nesting knob, the size budget).

use tangle_fuzz::ast::{Collective, Cond, Program, Selector, Stmt, Trip, RECORD_WORDS};
use tangle_fuzz::mask::{simulate, simulate_with, Fallthrough};
use tangle_fuzz::{generate, GenConfig};

/// The mask simulator's outcome, after checking that the reference interpreter on the
/// built IR writes the same buffer (so each hand-derived value below holds for both).
fn simulate_both(p: &Program, subgroup_size: u32) -> tangle_fuzz::mask::MaskOutcome {
    let out = simulate(p, subgroup_size);
    let module = tangle_fuzz::build::build_module(p);
    let reference = tangle_fuzz::compare::run_reference(
        &module,
        subgroup_size,
        out.words.len(),
        tangle_interp::Variant::Maximal,
    )
    .unwrap();
    assert_eq!(reference, out.words, "reference vs mask at {subgroup_size}");
    out
}

/// Record `r` of invocation `inv`.
fn record(words: &[u32], local_size: u32, r: u32, inv: u32) -> [u32; 5] {
    let at = ((r * local_size + inv) * RECORD_WORDS) as usize;
    words[at..at + 5].try_into().unwrap()
}

#[test]
fn if_else_on_a_lane_mask_splits_then_merges() {
    // 8 invocations, subgroups of 4: lanes 0 and 2 take the then branch.
    let p = Program {
        local_size: 8,
        loops: 0,
        functions: Vec::new(),
        body: vec![
            Stmt::If {
                cond: Cond::LaneMask(0b0101),
                then: vec![Stmt::Ballot { id: 0 }],
                els: Some(vec![Stmt::Elect { id: 1 }]),
            },
            Stmt::Ballot { id: 2 },
        ],
    };
    let out = simulate_both(&p, 4);
    assert_eq!(out.max_records, 2);
    for sg in 0..2 {
        assert_eq!(record(&out.words, 8, 0, sg * 4), [0b0101, 0, 0, 0, 1]);
        assert_eq!(record(&out.words, 8, 0, sg * 4 + 2), [0b0101, 0, 0, 0, 1]);
        // The else tangle is lanes 1 and 3: lane 1 is elected.
        assert_eq!(record(&out.words, 8, 0, sg * 4 + 1), [1, 0, 0, 0, 2]);
        assert_eq!(record(&out.words, 8, 0, sg * 4 + 3), [0, 0, 0, 0, 2]);
        for l in 0..4 {
            assert_eq!(record(&out.words, 8, 1, sg * 4 + l), [0b1111, 0, 0, 0, 3]);
        }
    }
}

#[test]
fn lanes_breaking_in_different_iterations_observe_apart() {
    // for (i in 0..3) { if ((lane & 3) == i) { ballot; break; } } ballot
    let p = Program {
        local_size: 4,
        loops: 1,
        functions: Vec::new(),
        body: vec![
            Stmt::For {
                loop_id: 0,
                trip: Trip::Uniform(3),
                body: vec![Stmt::If {
                    cond: Cond::LoopIndexIsLane { loop_id: 0 },
                    then: vec![Stmt::Ballot { id: 0 }, Stmt::Break],
                    els: None,
                }],
            },
            Stmt::Ballot { id: 1 },
        ],
    };
    let out = simulate_both(&p, 4);
    for l in 0..3 {
        assert_eq!(record(&out.words, 4, 0, l), [1 << l, 0, 0, 0, 1]);
        assert_eq!(record(&out.words, 4, 1, l), [0b1111, 0, 0, 0, 2]);
    }
    // Lane 3 never breaks: it leaves through the back edge and meets the others.
    assert_eq!(record(&out.words, 4, 0, 3), [0b1111, 0, 0, 0, 2]);
}

#[test]
fn continue_rejoins_at_the_continue_target_and_return_ends_lanes() {
    // for (i in 0..(lane&1)+1) { if (lane mask 0b0011) { continue; } ballot }
    // then: if (lane mask 0b1000) return; ballot
    let p = Program {
        local_size: 4,
        loops: 1,
        functions: Vec::new(),
        body: vec![
            Stmt::For {
                loop_id: 0,
                trip: Trip::LaneBits(1),
                body: vec![
                    Stmt::If {
                        cond: Cond::LaneMask(0b0011),
                        then: vec![Stmt::Continue],
                        els: None,
                    },
                    Stmt::Ballot { id: 0 },
                ],
            },
            Stmt::If {
                cond: Cond::LaneMask(0b1000),
                then: vec![Stmt::Return],
                els: None,
            },
            Stmt::Ballot { id: 1 },
        ],
    };
    let out = simulate_both(&p, 4);
    // Iteration 0: lanes 2, 3 ballot together; iteration 1 runs lanes 1 and 3 (odd
    // lanes have two trips), lane 1 continues, lane 3 ballots alone.
    assert_eq!(record(&out.words, 4, 0, 2), [0b1100, 0, 0, 0, 1]);
    assert_eq!(record(&out.words, 4, 0, 3), [0b1100, 0, 0, 0, 1]);
    assert_eq!(record(&out.words, 4, 1, 3), [0b1000, 0, 0, 0, 1]);
    // After the loop lane 3 returns; lanes 0, 1, 2 ballot together.
    assert_eq!(record(&out.words, 4, 0, 0), [0b0111, 0, 0, 0, 2]);
    assert_eq!(record(&out.words, 4, 0, 1), [0b0111, 0, 0, 0, 2]);
    assert_eq!(record(&out.words, 4, 1, 2), [0b0111, 0, 0, 0, 2]);
    assert_eq!(
        out.max_records, 2,
        "lane 3 returned before its third record"
    );
}

#[test]
fn an_infinite_loop_lets_one_elected_lane_go_per_iteration() {
    // while (true) { ballot; if (elect()) break; }  in a partial subgroup of 3 lanes (of 4)
    let p = Program {
        local_size: 3,
        loops: 0,
        functions: Vec::new(),
        body: vec![Stmt::Infinite {
            body: vec![Stmt::Ballot { id: 0 }],
        }],
    };
    let out = simulate_both(&p, 4);
    assert_eq!(out.max_records, 3);
    assert_eq!(record(&out.words, 3, 0, 0), [0b111, 0, 0, 0, 1]);
    assert_eq!(record(&out.words, 3, 1, 1), [0b110, 0, 0, 0, 1]);
    assert_eq!(record(&out.words, 3, 2, 2), [0b100, 0, 0, 0, 1]);
    assert_eq!(record(&out.words, 3, 1, 0), [0; 5]);
}

#[test]
fn ballots_of_128_lanes_fill_four_words() {
    let p = Program {
        local_size: 128,
        loops: 0,
        functions: Vec::new(),
        body: vec![Stmt::Ballot { id: 0 }],
    };
    let out = simulate_both(&p, 128);
    let all = u32::MAX;
    assert_eq!(record(&out.words, 128, 0, 127), [all, all, all, all, 1]);
    let out = simulate_both(&p, 64);
    assert_eq!(
        record(&out.words, 128, 0, 127),
        [u32::MAX, u32::MAX, 0, 0, 1]
    );
}

fn depth(stmts: &[Stmt]) -> u32 {
    stmts
        .iter()
        .map(|s| match s {
            Stmt::If { then, els, .. } => 1 + depth(then).max(els.as_deref().map_or(0, depth)),
            Stmt::For { body, .. } | Stmt::Infinite { body } | Stmt::DoWhileElect { body } => {
                1 + depth(body)
            }
            Stmt::Switch { cases, default, .. } => {
                1 + cases
                    .iter()
                    .map(|c| depth(&c.1))
                    .chain(default.as_deref().map(depth))
                    .max()
                    .unwrap_or(0)
            }
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn the_generator_is_deterministic_and_keeps_its_knobs() {
    let mut deepest = 0;
    for nesting in 1..=8 {
        for seed in 0..50 {
            let config = GenConfig {
                nesting,
                size_budget: 30,
            };
            let p = generate(seed, config);
            assert_eq!(p, generate(seed, config), "seed {seed}");
            let d = depth(&p.body);
            assert!(d <= nesting, "seed {seed}: depth {d} > nesting {nesting}");
            deepest = deepest.max(d);
            // The budget counts generated statements; the two framing ballots and the
            // same-jump and break-block arms may add a few.
            assert!(
                tangle_fuzz::ast::count_stmts(&p.body) <= 2 * 30 + 2,
                "seed {seed}"
            );
        }
    }
    assert!(
        deepest >= 6,
        "the nesting knob is never used deeply: {deepest}"
    );
}

#[test]
fn collectives_in_divergent_code_see_only_their_tangle() {
    // Invocations 4..8 (the second subgroup of 4): lanes 1 and 3 take the then branch,
    // holding values 6 and 8 (LocalInvocationIndex + 1).
    let then = vec![
        Stmt::Collective {
            id: 0,
            op: Collective::Sum,
        },
        Stmt::Collective {
            id: 1,
            op: Collective::InclusiveSum,
        },
        Stmt::Collective {
            id: 2,
            op: Collective::BroadcastFirst,
        },
    ];
    let p = Program {
        local_size: 8,
        loops: 0,
        functions: Vec::new(),
        body: vec![Stmt::If {
            cond: Cond::LaneMask(0b1010),
            then,
            els: None,
        }],
    };
    let out = simulate_both(&p, 4);
    assert_eq!(record(&out.words, 8, 0, 5), [14, 0, 0, 0, 1]);
    assert_eq!(record(&out.words, 8, 0, 7), [14, 0, 0, 0, 1]);
    assert_eq!(record(&out.words, 8, 1, 5), [6, 0, 0, 0, 2]);
    assert_eq!(record(&out.words, 8, 1, 7), [14, 0, 0, 0, 2]);
    assert_eq!(record(&out.words, 8, 2, 5), [6, 0, 0, 0, 3]);
    assert_eq!(record(&out.words, 8, 2, 7), [6, 0, 0, 0, 3]);
    // The first subgroup: lanes 1 and 3 hold 2 and 4.
    assert_eq!(record(&out.words, 8, 0, 1), [6, 0, 0, 0, 1]);
    assert_eq!(record(&out.words, 8, 1, 3), [6, 0, 0, 0, 2]);
}

#[test]
fn lanes_falling_through_run_the_next_case_on_their_own() {
    // switch (lane & 3) { case 1: ballot; /* falls */ case 2: ballot; break; } ballot
    let p = Program {
        local_size: 4,
        loops: 0,
        functions: Vec::new(),
        body: vec![
            Stmt::Switch {
                selector: Selector::LaneBits,
                cases: vec![
                    (1, vec![Stmt::Ballot { id: 0 }]),
                    (2, vec![Stmt::Ballot { id: 1 }]),
                ],
                default: None,
                fallthrough: vec![true, false],
            },
            Stmt::Ballot { id: 2 },
        ],
    };
    let out = simulate_both(&p, 4);
    assert_eq!(record(&out.words, 4, 0, 1), [0b0010, 0, 0, 0, 1]);
    // Lane 1 fell into case 2 and runs it apart from lane 2, which switched there.
    assert_eq!(record(&out.words, 4, 1, 1), [0b0010, 0, 0, 0, 2]);
    assert_eq!(record(&out.words, 4, 0, 2), [0b0100, 0, 0, 0, 2]);
    for l in [0, 3] {
        assert_eq!(record(&out.words, 4, 0, l), [0b1111, 0, 0, 0, 3]);
    }
    assert_eq!(record(&out.words, 4, 2, 1), [0b1111, 0, 0, 0, 3]);
    assert_eq!(record(&out.words, 4, 1, 2), [0b1111, 0, 0, 0, 3]);
}

#[test]
fn under_merge_lanes_falling_through_join_the_next_case() {
    // The program above with `FallthroughPolicy::Merge`: lane 1 falls into case 2 and runs
    // it together with lane 2.
    let p = Program {
        local_size: 4,
        loops: 0,
        functions: Vec::new(),
        body: vec![
            Stmt::Switch {
                selector: Selector::LaneBits,
                cases: vec![
                    (1, vec![Stmt::Ballot { id: 0 }]),
                    (2, vec![Stmt::Ballot { id: 1 }]),
                ],
                default: None,
                fallthrough: vec![true, false],
            },
            Stmt::Ballot { id: 2 },
        ],
    };
    let out = simulate_with(&p, 4, Fallthrough::Merge);
    let module = tangle_fuzz::build::build_module(&p);
    let reference =
        tangle_fuzz::lowered::run_reference_merging(&module, 4, out.words.len()).unwrap();
    assert_eq!(reference, out.words, "reference vs mask under Merge");
    assert_eq!(record(&out.words, 4, 0, 1), [0b0010, 0, 0, 0, 1]);
    assert_eq!(record(&out.words, 4, 1, 1), [0b0110, 0, 0, 0, 2]);
    assert_eq!(record(&out.words, 4, 0, 2), [0b0110, 0, 0, 0, 2]);
    assert_eq!(record(&out.words, 4, 2, 1), [0b1111, 0, 0, 0, 3]);
    // And the independent grouping differs, so the mode is not ignored.
    assert_ne!(simulate(&p, 4).words, out.words);
}

#[test]
fn a_do_while_left_through_elect_elects_at_its_continue_target() {
    // do { if (lane == 0) continue; ballot } while (!subgroupElect());  with 3 lanes
    let p = Program {
        local_size: 3,
        loops: 0,
        functions: Vec::new(),
        body: vec![Stmt::DoWhileElect {
            body: vec![
                Stmt::If {
                    cond: Cond::LaneMask(0b001),
                    then: vec![Stmt::Continue],
                    els: None,
                },
                Stmt::Ballot { id: 0 },
            ],
        }],
    };
    let out = simulate_both(&p, 4);
    // Lane 0 continues, but it is at the continue target with the others: it is elected
    // first. Then lane 1, then lane 2.
    assert_eq!(out.max_records, 3);
    assert_eq!(record(&out.words, 3, 0, 0), [0; 5]);
    assert_eq!(record(&out.words, 3, 0, 1), [0b110, 0, 0, 0, 1]);
    assert_eq!(record(&out.words, 3, 1, 1), [0b110, 0, 0, 0, 1]);
    assert_eq!(record(&out.words, 3, 2, 1), [0; 5]);
    assert_eq!(record(&out.words, 3, 1, 2), [0b110, 0, 0, 0, 1]);
    assert_eq!(record(&out.words, 3, 2, 2), [0b100, 0, 0, 0, 1]);
}
