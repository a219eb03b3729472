//! The token engine (`Convergence::Tokens`) on hand-written token-annotated lowered
//! programs: calls converge by the call's token instance, a program that cannot finish is
//! a deadlock report naming the rendezvous and the lanes it waits for, and what the engine
//! gives no meaning to (warp barriers, uncontrolled subgroup operations) is refused before
//! the run.

mod common;
use common::*;
use tangle_machine::{Convergence, GroupState, MachineError, Policy};

fn tokens(size: u32, policy: Policy) -> tangle_machine::MachineConfig {
    tangle_machine::MachineConfig {
        convergence: Convergence::Tokens,
        ..config(size, policy)
    }
}

/// `out[id*3 + k]` = the first word of the ballot the callee takes on its entry token, for
/// the call in the odd arm (k = 0), the even arm (k = 1) and after the branch (k = 2).
fn calls(local: u32) -> String {
    format!(
        "{p}fn f0 \"main\"() -> void lowered {{
b0:
{START}  v1 = conv_entry token
  v2 = imul u32 v901, c3
  v3 = and u32 v901, c1
  v4 = ieq bool v3, c1
  br_if v4, b1, b2
b1:
  v5 = call[f1] u32 conv(v1)
  v6 = access_chain ptr<StorageBuffer, u32> g0, c0, v2
  store v6, v5
  br b3
b2:
  v7 = call[f1] u32 conv(v1)
  v8 = iadd u32 v2, c1
  v9 = access_chain ptr<StorageBuffer, u32> g0, c0, v8
  store v9, v7
  br b3
b3:
  v10 = call[f1] u32 conv(v1)
  v11 = iadd u32 v2, c2
  v12 = access_chain ptr<StorageBuffer, u32> g0, c0, v11
  store v12, v10
  return
}}

fn f1 \"callee\"() -> u32 lowered {{
b0:
  v0 = conv_entry token
  v1 = group_ballot[subgroup] u32x4 c12 conv(v0)
  v2 = composite_extract[0] u32 v1
  return v2
}}
",
        p = prelude(local)
    )
}

#[test]
fn a_callee_converges_the_lanes_that_made_one_call_together() {
    let m = module(&calls(16));
    for size in [1, 4, 8, 16, 32] {
        for policy in all_policies() {
            let got = machine_outcome(&m, tokens(size, policy), 48, &[])
                .unwrap_or_else(|e| panic!("{policy} at {size}: {e}"));
            let words: Vec<u32> = got.buffers[&(0, 0)]
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            for id in 0..16u32 {
                // The lanes of `id`'s subgroup with a parity, as ballot bits.
                let of = |parity: Option<u32>| {
                    (0..16u32)
                        .filter(|j| j / size == id / size && parity.is_none_or(|p| j % 2 == p))
                        .fold(0u32, |m, j| m | 1 << (j % size))
                };
                let (sub, odd, even) = (of(None), of(Some(1)), of(Some(0)));
                let arm = if id % 2 == 1 { odd } else { even };
                let slot = if id % 2 == 1 { 0 } else { 1 };
                let w = |k: u32| words[(id * 3 + k) as usize];
                assert_eq!(w(slot), arm, "{policy} at {size}: lane {id} in its arm");
                assert_eq!(w(2), sub, "{policy} at {size}: lane {id} after the branch");
            }
        }
    }
}

/// Lane 0 alone waits at a workgroup barrier; the others wait at a ballot after it for
/// lane 0, which may still come: neither can go.
fn barrier_then_ballot(local: u32) -> String {
    format!(
        "{p}fn f0 \"main\"() -> void lowered {{
b0:
{START}  v1 = conv_entry token
  v2 = ieq bool v901, c0
  br_if v2, b1, b2
b1:
  control_barrier[workgroup, workgroup, acquire_release|workgroup_memory] conv(v1)
  br b2
b2:
  v3 = group_ballot[subgroup] u32x4 c12 conv(v1)
  return
}}
",
        p = prelude(local)
    )
}

#[test]
fn a_rendezvous_that_cannot_complete_is_a_deadlock_with_its_missing_lanes() {
    let m = module(&barrier_then_ballot(4));
    for policy in all_policies() {
        let e = machine_outcome(&m, tokens(4, policy), 4, &[]).unwrap_err();
        let MachineError::Deadlock(stuck) = &e else {
            panic!("{policy}: expected a deadlock, got {e}");
        };
        let states: Vec<(u128, GroupState)> = stuck
            .groups
            .iter()
            .map(|g| (g.lanes, g.state.clone()))
            .collect();
        assert_eq!(
            states,
            [
                (0b0001, GroupState::WorkgroupBarrier),
                (0b1110, GroupState::Token { missing: 0b0001 }),
            ],
            "{policy}: {e}"
        );
        assert!(
            e.to_string()
                .contains("waits at a token rendezvous for lanes 0x1"),
            "{e}"
        );
    }
}

#[test]
fn warp_barriers_and_uncontrolled_subgroup_operations_are_refused() {
    let bars = format!(
        "{p}fn f0 \"main\"() -> void lowered {{
b0:
  v1 = bar_set barrier
  bar_sync v1
  return
}}
",
        p = prelude(4)
    );
    let uncontrolled = format!(
        "{p}fn f0 \"main\"() -> void lowered {{
b0:
  v1 = group_ballot[subgroup] u32x4 c12
  return
}}
",
        p = prelude(4)
    );
    for (text, want) in [
        (bars, "a warp-barrier operation"),
        (uncontrolled, "an uncontrolled convergent operation"),
    ] {
        let m = module(&text);
        let e = machine_outcome(&m, tokens(4, Policy::Strict), 4, &[]).unwrap_err();
        assert!(
            matches!(&e, MachineError::Config(s) if s.contains(want) && s.contains("f0 b0")),
            "{e}"
        );
        // The barrier machine runs them.
        assert!(machine_outcome(&m, config(4, Policy::Strict), 4, &[]).is_ok());
    }
}
