//! The barrier machine on hand-written lowered programs, each against the reference
//! interpreter on the structured program it stands for (an engine written apart from this
//! one), under every policy of `all`, at every subgroup size 1–128, and against values
//! derived by hand where the tangles are short enough to write down.

mod common;
use common::programs::*;
use common::*;
use tangle_machine::{MachineError, Policy};

const SIZES: [u32; 8] = [1, 2, 4, 8, 16, 32, 64, 128];

/// Runs a (structured, lowered) pair at every subgroup size under every policy of `all`,
/// with `local` lanes, and demands the reference's `out` buffer.
fn agrees_everywhere(pair: (String, String), local: u32) {
    let (s, l) = pair;
    let (sm, lm) = (module(&s), module(&l));
    for size in SIZES {
        let want = reference(&sm, size, local as usize, &[]);
        for policy in all_policies() {
            let got = machine(&lm, size, policy, local as usize, &[])
                .unwrap_or_else(|e| panic!("size {size}, {policy}: {e}"));
            assert_eq!(got, want, "size {size}, {policy}");
        }
    }
}

#[test]
fn k_brk_breaks_a_subset_through_the_break_flag() {
    agrees_everywhere(k_brk(96), 96);
}

#[test]
fn k_brk_records_by_hand() {
    // 8 lanes in one subgroup; lane l leaves in iteration l % 3. Iteration i: rec0 sees
    // the lanes with l % 3 >= i, rec1 (the continue sync) those with l % 3 > i; rec2 all.
    let lm = module(&k_brk(8).1);
    let at_least = |i: u32| {
        (0..8u32)
            .filter(|l| l % 3 >= i)
            .fold(0u128, |m, l| m | 1 << l)
    };
    let above = |i: u32| {
        (0..8u32)
            .filter(|l| l % 3 > i)
            .fold(0u128, |m, l| m | 1 << l)
    };
    let want: Vec<u32> = (0..8u32)
        .map(|l| {
            let mut seen = Vec::new();
            for i in 0..=l % 3 {
                seen.push((0, at_least(i)));
                if i < l % 3 {
                    seen.push((1, above(i)));
                }
            }
            seen.push((2, 0xff));
            expected_record(&seen)
        })
        .collect();
    for policy in all_policies() {
        assert_eq!(machine(&lm, 8, policy, 8, &[]).unwrap(), want, "{policy}");
    }
}

#[test]
fn an_early_exit_inside_a_barrier_region_never_blocks_it() {
    agrees_everywhere(early_exit(96), 96);
}

#[test]
fn early_exit_records_by_hand() {
    // Lanes 1 and 5 (of 8) enter the arm (rec0 = {1, 5}); lane 5 exits; lane 1 records
    // rec3 = {1}; at the sync every lane that has not exited meets: rec1 = all but 5.
    let lm = module(&early_exit(8).1);
    let rest = 0xff & !(1u128 << 5);
    let want: Vec<u32> = (0..8u32)
        .map(|l| match l {
            1 => expected_record(&[(0, 0x22), (3, 0x2), (1, rest)]),
            5 => expected_record(&[(0, 0x22)]),
            _ => expected_record(&[(1, rest)]),
        })
        .collect();
    for policy in all_policies() {
        assert_eq!(machine(&lm, 8, policy, 8, &[]).unwrap(), want, "{policy}");
    }
}

#[test]
fn nested_scopes_cascade_the_break_out_one_sync_at_a_time() {
    agrees_everywhere(cascade(96), 96);
}

#[test]
fn programs_at_a_partial_last_subgroup_and_several_workgroups() {
    let (s, l) = k_brk(48);
    let (sm, lm) = (module(&s), module(&l));
    let want = reference(&sm, 32, 48, &[]);
    for policy in all_policies() {
        let mut c = config(32, policy);
        c.workgroups = [2, 1, 1];
        let o = machine_outcome(&lm, c, 48, &[]).unwrap();
        let got: Vec<u32> = o.buffers[&(0, 0)]
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert_eq!(got, want, "{policy}");
    }
}

#[test]
fn seed_000s_baseline_gives_a_wrong_ballot_not_a_deadlock() {
    let (s, l) = seed000_baseline(8);
    let (sm, lm) = (module(&s), module(&l));
    let want = reference(&sm, 8, 8, &[]);
    for policy in all_policies() {
        let got = machine(&lm, 8, policy, 8, &[])
            .unwrap_or_else(|e| panic!("{policy}: the baseline must run to its end: {e}"));
        assert_ne!(got, want, "{policy}: the baseline must be caught");
    }
    // What it gets wrong, by hand (strict): in iteration 0 the odd lanes continue on
    // their own and never meet the even ones at the continue target (rec2 = odd lanes,
    // 0xaa, where the reference has all 8); and the breakers' `bar_break` sets their
    // break flags, so the loop's `bar_sync` lets each group through alone (rec3 of the
    // odd lanes = 0xaa, not 0xff).
    let got = machine(&lm, 8, Policy::Strict, 8, &[]).unwrap();
    let odd: Vec<(u32, u128)> = vec![
        (0, 0xff),
        (2, 0xaa),
        (0, 0xaa),
        (1, 0xaa),
        (2, 0xaa),
        (0, 0xaa),
        (1, 0xaa),
        (3, 0xaa),
    ];
    assert_eq!(got[1], expected_record(&odd));
    let reference_odd: Vec<(u32, u128)> = vec![
        (0, 0xff),
        (2, 0xff),
        (0, 0xff),
        (1, 0xff),
        (2, 0xff),
        (0, 0xff),
        (1, 0xff),
        (3, 0xff),
    ];
    assert_eq!(want[1], expected_record(&reference_odd));
}

#[test]
fn workgroup_barriers_hold_every_subgroup() {
    let (s, l) = workgroup_barrier(8);
    let (sm, lm) = (module(&s), module(&l));
    for size in [1, 2, 4, 8] {
        let want = reference(&sm, size, 8, &[]);
        for policy in all_policies() {
            let got = machine(&lm, size, policy, 8, &[]).unwrap();
            assert_eq!(got, want, "size {size}, {policy}");
        }
    }
}

#[test]
fn the_machine_refuses_a_structured_entry_point() {
    let sm = module(&k_brk(8).0);
    let e = match tangle_machine::Machine::new(&sm, "main", config(8, Policy::Strict)) {
        Err(e) => e,
        Ok(_) => panic!("a structured function must be refused"),
    };
    assert!(matches!(e, MachineError::Config(_)), "{e}");
}
