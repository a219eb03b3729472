//! The policies really differ, and stuck runs are reported, never hung: a deadlock under
//! every policy (exhaustive included), a livelock, a program that passes under `strict`
//! and fails under `opportunistic`, the exhaustive search's counts and bound, and the
//! dynamic barrier counts by hand.

mod common;
use common::programs::*;
use common::*;
use tangle_machine::{ExhaustiveBound, GroupState, MachineError, Policy};

fn with_exhaustive() -> Vec<Policy> {
    let mut p = all_policies();
    p.push(Policy::Exhaustive);
    p
}

#[test]
fn a_deadlock_is_reported_under_every_policy_with_each_group() {
    let m = module(&deadlock(8));
    for policy in with_exhaustive() {
        let e = machine(&m, 8, policy, 8, &[]).expect_err("must deadlock");
        let MachineError::Deadlock(stuck) = &e else {
            panic!("{policy}: not a deadlock: {e}");
        };
        // Even lanes wait at b1's bar_sync for the odd ones, which wait at b2's.
        let waits: Vec<(u128, String, u128)> = stuck
            .groups
            .iter()
            .map(|g| match &g.state {
                GroupState::Sync { missing, .. } => (g.lanes, g.at.block.to_string(), *missing),
                other => panic!("{policy}: {other:?}"),
            })
            .collect();
        assert_eq!(
            waits,
            vec![(0x55, "b1".into(), 0xaa), (0xaa, "b2".into(), 0x55)],
            "{policy}"
        );
        let text = e.to_string();
        assert!(text.contains("lanes 0x55 at f0 b1"), "{text}");
    }
}

#[test]
fn a_livelock_names_the_spinning_and_the_waiting_groups() {
    let m = module(&livelock(8));
    for policy in with_exhaustive() {
        let e = machine(&m, 8, policy, 8, &[]).expect_err("must not finish");
        let MachineError::Livelock(stuck) = &e else {
            panic!("{policy}: not a livelock: {e}");
        };
        assert_eq!(stuck.budget, Some(200_000));
        let spinning = stuck.groups.iter().find(|g| g.lanes == 1).expect("lane 0");
        assert_eq!(spinning.state, GroupState::Ready, "{policy}");
        assert!(spinning.idle < 10, "{policy}: {spinning}");
        let rest = stuck
            .groups
            .iter()
            .find(|g| g.lanes == 0xfe)
            .expect("the rest");
        // Fair policies let the other lanes reach the barrier, where they wait for lane
        // 0; `strict` and `opportunistic` never switch away from the spinning lane, and
        // the search's first run takes the lowest lane at every choice, so the others
        // starve before the barrier.
        match policy {
            Policy::Strict | Policy::Opportunistic | Policy::Exhaustive => {
                assert_eq!(rest.state, GroupState::Ready, "{policy}");
                assert!(rest.idle > 100_000, "{policy}: {rest}");
            }
            _ => assert!(
                matches!(rest.state, GroupState::Sync { missing: 1, .. }),
                "{policy}: {rest}"
            ),
        }
    }
}

#[test]
fn merging_groups_at_one_point_changes_a_result_that_needs_them_apart() {
    let (s, l) = apart(8);
    let (sm, lm) = (module(&s), module(&l));
    let want = reference(&sm, 8, 8, &[]);
    // Odd lanes leave in iteration 0, even ones in iteration 1: two ballots.
    let by_hand: Vec<u32> = (0..8u32)
        .map(|l| expected_record(&[(0, if l % 2 == 1 { 0xaa } else { 0x55 })]))
        .collect();
    assert_eq!(want, by_hand);
    for policy in with_exhaustive() {
        let got = machine(&lm, 8, policy, 8, &[]).unwrap();
        if policy == Policy::Opportunistic {
            // The even lanes reach the break block where the odd ones stand: one ballot.
            assert_eq!(got, vec![expected_record(&[(0, 0xff)]); 8]);
        } else {
            assert_eq!(got, want, "{policy}");
        }
    }
}

#[test]
fn the_exhaustive_search_reports_its_runs_and_never_passes_a_cut_off() {
    let (s, l) = cascade(8);
    let (sm, lm) = (module(&s), module(&l));
    let want = reference(&sm, 8, 8, &[]);
    let o = machine_outcome(&lm, config(8, Policy::Exhaustive), 8, &[]).unwrap();
    let summary = o.search.expect("a search summary");
    // Every interleaving of this program is equivalent to one: the sleep sets prune the
    // others after their first differing choice.
    assert!(summary.runs >= 1 && summary.pruned > 0, "{summary:?}");
    eprintln!("cascade(8), exhaustive: {summary:?}");
    let got: Vec<u32> = o.buffers[&(0, 0)]
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(got, want);
    // The same search with room for one run only is cut off: an error, not a pass.
    let mut c = config(8, Policy::Exhaustive);
    c.bound = ExhaustiveBound {
        max_runs: 1,
        max_depth: 10_000,
    };
    match machine_outcome(&lm, c, 8, &[]) {
        Err(MachineError::CutOff {
            completed: 1,
            cut_off: 0,
            unexplored: true,
        }) => {}
        other => panic!("{other:?}"),
    }
    // And with too little depth for a run, every run is cut off.
    let mut c = config(8, Policy::Exhaustive);
    c.bound = ExhaustiveBound {
        max_runs: 10_000,
        max_depth: 1,
    };
    match machine_outcome(&lm, c, 8, &[]) {
        Err(MachineError::CutOff {
            completed, cut_off, ..
        }) => assert!(
            cut_off > 0 && completed < summary.runs,
            "{completed} {cut_off}"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_exhaustive_search_finds_a_disagreement_between_interleavings() {
    // Two groups store to the same word: which store lands last depends on the order.
    let text = format!(
        "{p}fn f0 \"main\"() -> void lowered {{
b0:
{START}  v2 = and u32 v901, c1
  v3 = ieq bool v2, c0
  v4 = access_chain ptr<StorageBuffer, u32> g0, c0, c0
  br_if v3, b1, b2
b1:
  store v4, c1
  return
b2:
  store v4, c2
  return
}}
",
        p = prelude(2)
    );
    let m = module(&text);
    for policy in all_policies() {
        machine(&m, 2, policy, 2, &[]).unwrap();
    }
    match machine(&m, 2, Policy::Exhaustive, 2, &[]) {
        Err(MachineError::Disagreement { run, .. }) => assert!(run >= 1),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_exhaustive_policy_refuses_subgroups_over_eight_lanes() {
    let m = module(&k_brk(16).1);
    assert!(matches!(
        machine(&m, 16, Policy::Exhaustive, 16, &[]),
        Err(MachineError::Config(_))
    ));
}

#[test]
fn dynamic_barrier_counts_by_hand() {
    // k_brk with 4 lanes (l % 3 = 0, 1, 2, 0): the outer bar_set once; the iteration's
    // bar_set in iterations 0, 1, 2; a bar_break by each breaking group ({0, 3}, {1},
    // {2}); bar_sync at the continue target in iterations 0 and 1 and at the loop's end by
    // each of the three breaking groups.
    let m = module(&k_brk(4).1);
    for policy in with_exhaustive() {
        let o = machine_outcome(&m, config(4, policy), 4, &[]).unwrap();
        assert_eq!(
            (o.stats.set, o.stats.sync, o.stats.brk, o.stats.exit),
            (4, 5, 3, 0),
            "{policy}"
        );
    }
}

#[test]
fn an_undefined_branch_condition_is_an_error_with_its_position() {
    let text = format!(
        "{p}fn f0 \"main\"() -> void lowered {{
b0:
  v1 = undef bool
  br_if v1, b1, b1
b1:
  return
}}
",
        p = prelude(4)
    );
    let m = module(&text);
    match machine(&m, 4, Policy::Strict, 4, &[]) {
        Err(MachineError::UndefinedValue(u)) => {
            assert_eq!(u.at.to_string(), "f0 b0 terminator");
            assert_eq!(u.lane, 0);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_endless_loop_without_waiters_is_a_budget_error() {
    let text = format!(
        "{p}fn f0 \"main\"() -> void lowered {{
b0:
  br b1
b1:
  br b1
}}
",
        p = prelude(4)
    );
    let m = module(&text);
    match machine(&m, 4, Policy::RoundRobin, 4, &[]) {
        Err(MachineError::Budget(stuck)) => {
            assert_eq!(stuck.groups.len(), 1);
            assert_eq!(stuck.groups[0].lanes, 0xf);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn recursion_is_an_error_not_a_memory_blow_up() {
    let text = format!(
        "{p}fn f0 \"main\"() -> void lowered {{
b0:
  v0 = call[f1] void
  return
}}
fn f1 \"again\"() -> void lowered {{
b0:
  v0 = call[f1] void
  return
}}
",
        p = prelude(4).replace(
            "type t7 = array<u32, 256> [stride 4]",
            "type t7 = array<u32, 256> [stride 4]\ntype t8 = fn() -> void"
        )
    );
    let m = tangle_ir::text::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    match machine(&m, 4, Policy::Strict, 4, &[]) {
        Err(MachineError::Unsupported { what, .. }) => {
            assert!(what.contains("recursion"), "{what}")
        }
        other => panic!("{other:?}"),
    }
}
