//! One test per reconvergence rule, on 32-lane subgroups. Expected tangles are derived by
//! hand in the comments; each known-wrong variant must fail at least one of them.

mod common;
use common::*;
use tangle_interp::{Config, SchedulePolicy, SwitchPolicy, Variant};

/// if (idx < 10) { A = ballot } ; M = ballot
fn selection_text() -> String {
    prelude(32, &[("main", 0)])
        + r#"fn f0 "main"() -> void {
b0:
  v0 = load u32 g2
  v1 = ult bool v0, c10
  selection_merge b2
  br_if v1, b1, b2
b1:
  v2 = group_ballot[subgroup] u32x4 c13
  br b2
b2:
  v3 = group_ballot[subgroup] u32x4 c13
  return
}
"#
}

#[test]
fn selection_merge_reconverges() {
    let m = module(&selection_text());
    let o = run(&m, "main", cfg(32), 4, &[]).unwrap();
    // Lanes 0..9 take the then-branch; all 32 meet at the merge.
    assert_eq!(masks(&m, &o, 0, 2), vec![0x3ff]);
    assert_eq!(masks(&m, &o, 0, 3), vec![0xffff_ffff]);
}

/// for (i = 0;; i++) {
///   if (i == idx % 4) { B = ballot; break; }       // b6: break block
///   if ((i + idx) odd) continue;                     // b8
///   A = ballot                                       // b9
/// } // continue target b3: C = ballot
/// M = ballot                                         // b4
fn loop_text() -> String {
    prelude(32, &[("main", 0)])
        + r#"fn f0 "main"() -> void {
b0:
  v0 = load u32 g2
  v10 = umod u32 v0, c4
  br b1
b1:
  v1 = phi u32 [c0, b0], [v5, b3]
  loop_merge b4, b3
  br b2
b2:
  v2 = ieq bool v1, v10
  selection_merge b7
  br_if v2, b6, b7
b6:
  v23 = group_ballot[subgroup] u32x4 c13
  br b4
b7:
  v6 = iadd u32 v1, v0
  v3 = and u32 v6, c1
  v4 = ieq bool v3, c1
  selection_merge b9
  br_if v4, b8, b9
b8:
  br b3
b9:
  v20 = group_ballot[subgroup] u32x4 c13
  br b3
b3:
  v21 = group_ballot[subgroup] u32x4 c13
  v5 = iadd u32 v1, c1
  br b1
b4:
  v22 = group_ballot[subgroup] u32x4 c13
  return
}
"#
}

// Lane l leaves in iteration l % 4. K_j = lanes with l % 4 == j:
// K0 = 0x11111111, K1 = 0x22222222, K2 = 0x44444444, K3 = 0x88888888.
// Iteration 0: remaining R0 = 0xeeeeeeee; (0 + l) odd → odd lanes 0xaaaaaaaa continue early,
//   A = even ∩ R0 = 0x44444444; C = R0.
// Iteration 1: R1 = 0xcccccccc; (1 + l) odd → even lanes 0x44444444 early; A = 0x88888888.
// Iteration 2: R2 = 0x88888888; (2 + l) odd for all of them → no A; C = 0x88888888.
// Iteration 3: K3 breaks, nobody continues. Break block B runs per iteration: K0..K3.
const LOOP_A: [u128; 2] = [0x4444_4444, 0x8888_8888];
const LOOP_C: [u128; 3] = [0xeeee_eeee, 0xcccc_cccc, 0x8888_8888];
const LOOP_B: [u128; 4] = [0x1111_1111, 0x2222_2222, 0x4444_4444, 0x8888_8888];

fn check_loop(variant: Variant) -> Result<(), String> {
    let m = module(&loop_text());
    let o = run(&m, "main", Config { variant, ..cfg(32) }, 4, &[]).map_err(|e| e.to_string())?;
    let got = (
        masks(&m, &o, 0, 20),
        masks(&m, &o, 0, 21),
        masks(&m, &o, 0, 23),
        masks(&m, &o, 0, 22),
    );
    let want = (
        LOOP_A.to_vec(),
        LOOP_C.to_vec(),
        LOOP_B.to_vec(),
        vec![0xffff_ffff],
    );
    if got == want {
        Ok(())
    } else {
        Err(format!("got {got:x?}, want {want:x?}"))
    }
}

#[test]
fn loop_continue_target_reconverges_every_iteration_and_break_blocks_split_by_iteration() {
    check_loop(Variant::Maximal).unwrap();
}

#[test]
fn no_continue_reconvergence_variant_is_caught() {
    assert!(check_loop(Variant::NoContinueReconvergence).is_err());
}

#[test]
fn break_not_split_by_iteration_variant_is_caught() {
    let e = check_loop(Variant::BreakNotSplitByIteration).unwrap_err();
    assert!(e.contains("ffffffff"), "{e}");
}

/// f1(x): if (x even) return 1; return 0.   main: r = f1(idx); A = ballot
/// f2(x): for (i = 0;; i++) { if (i == x) return; L = ballot }   main: f2(idx % 4); B = ballot
fn call_text() -> String {
    prelude(32, &[("main", 0)])
        + r#"fn f0 "main"() -> void {
b0:
  v0 = load u32 g2
  v1 = call[f1] u32 v0
  v2 = group_ballot[subgroup] u32x4 c13
  v3 = umod u32 v0, c4
  v9 = call[f2] void v3
  v4 = group_ballot[subgroup] u32x4 c13
  return
}

fn f1 "f1"(v0: u32) -> u32 {
b0:
  v1 = umod u32 v0, c2
  v2 = ieq bool v1, c0
  selection_merge b2
  br_if v2, b1, b2
b1:
  return c1
b2:
  return c0
}

fn f2 "f2"(v0: u32) -> void {
b0:
  br b1
b1:
  v1 = phi u32 [c0, b0], [v5, b3]
  loop_merge b4, b3
  br b2
b2:
  v2 = ieq bool v1, v0
  selection_merge b6
  br_if v2, b5, b6
b5:
  return
b6:
  v3 = group_ballot[subgroup] u32x4 c13
  br b3
b3:
  v5 = iadd u32 v1, c1
  br b1
b4:
  return
}
"#
}

fn check_call(variant: Variant) -> Result<(), String> {
    let m = module(&call_text());
    let o = run(&m, "main", Config { variant, ..cfg(32) }, 4, &[]).map_err(|e| e.to_string())?;
    // After each call all 32 lanes are together again; inside f2 the loop body runs with the
    // lanes that have not returned yet: l % 4 > i.
    let got = (
        masks(&m, &o, 0, 2),
        masks(&m, &o, 0, 4),
        masks(&m, &o, 2, 3),
    );
    let want = (vec![0xffff_ffff], vec![0xffff_ffff], LOOP_C.to_vec());
    if got == want {
        Ok(())
    } else {
        Err(format!("got {got:x?}, want {want:x?}"))
    }
}

#[test]
fn call_reconverges_and_return_escapes_nested_constructs() {
    check_call(Variant::Maximal).unwrap();
}

#[test]
fn no_call_reconvergence_variant_is_caught() {
    assert!(check_call(Variant::NoCallReconvergence).is_err());
}

/// switch (idx % 4) { case 0: case 1: A; break; case 2: B; /* fallthrough */ default: C; }
/// M = ballot
fn switch_text() -> String {
    prelude(32, &[("main", 0)])
        + r#"fn f0 "main"() -> void {
b0:
  v0 = load u32 g2
  v1 = umod u32 v0, c4
  selection_merge b4
  switch v1, b3 [0: b1, 1: b1, 2: b2]
b1:
  v2 = group_ballot[subgroup] u32x4 c13
  br b4
b2:
  v3 = group_ballot[subgroup] u32x4 c13
  br b3
b3:
  v4 = group_ballot[subgroup] u32x4 c13
  br b4
b4:
  v5 = group_ballot[subgroup] u32x4 c13
  return
}
"#
}

#[test]
fn switch_partitions_by_policy() {
    let m = module(&switch_text());
    let o = run(&m, "main", cfg(32), 4, &[]).unwrap();
    // ByTarget: selectors 0 and 1 share target b1 → one tangle.
    assert_eq!(masks(&m, &o, 0, 2), vec![0x3333_3333]);
    assert_eq!(masks(&m, &o, 0, 3), vec![0x4444_4444]);
    // Fallthrough lanes (K2) do not wait for the default's lanes (K3) at b3.
    assert_eq!(sorted_masks(&m, &o, 0, 4), vec![0x4444_4444, 0x8888_8888]);
    assert_eq!(masks(&m, &o, 0, 5), vec![0xffff_ffff]);
    let c = Config {
        switch_policy: SwitchPolicy::BySelector,
        ..cfg(32)
    };
    let o = run(&m, "main", c, 4, &[]).unwrap();
    assert_eq!(sorted_masks(&m, &o, 0, 2), vec![0x1111_1111, 0x2222_2222]);
    assert_eq!(masks(&m, &o, 0, 5), vec![0xffff_ffff]);
}

#[test]
fn switch_fallthrough_merge_policy() {
    use tangle_interp::FallthroughPolicy;
    let m = module(&switch_text());
    for p in [
        SchedulePolicy::LowestLaneFirst,
        SchedulePolicy::NewestFirst,
        SchedulePolicy::Random(9),
    ] {
        let c = Config {
            fallthrough_policy: FallthroughPolicy::Merge,
            schedule_policy: p,
            ..cfg(32)
        };
        let o = run(&m, "main", c, 4, &[]).unwrap();
        // The default's lanes (K3) wait at b3 for the case-2 lanes (K2) falling through.
        assert_eq!(masks(&m, &o, 0, 3), vec![0x4444_4444]);
        assert_eq!(masks(&m, &o, 0, 4), vec![0xcccc_cccc]);
        assert_eq!(masks(&m, &o, 0, 2), vec![0x3333_3333]);
        assert_eq!(masks(&m, &o, 0, 5), vec![0xffff_ffff]);
    }
}

/// loop { if (subgroupElect()) { out[idx] = i; break; } i++ }
fn elect_text() -> String {
    prelude(32, &[("main", 0)])
        + r#"fn f0 "main"() -> void {
b0:
  v0 = load u32 g2
  br b1
b1:
  v1 = phi u32 [c0, b0], [v5, b3]
  loop_merge b4, b3
  br b2
b2:
  v2 = group_elect[subgroup] bool
  selection_merge b6
  br_if v2, b5, b6
b5:
  v3 = access_chain ptr<StorageBuffer, u32> g0, c0, v0
  store v3, v1
  br b4
b6:
  br b3
b3:
  v5 = iadd u32 v1, c1
  br b1
b4:
  return
}
"#
}

#[test]
fn divergent_infinite_loop_left_through_elect() {
    let m = module(&elect_text());
    let o = run(&m, "main", cfg(32), 32, &[]).unwrap();
    // Each iteration the lowest remaining lane leaves: lane l leaves in iteration l.
    assert_eq!(out_words(&o), (0..32).collect::<Vec<u32>>());
    let elect = masks(&m, &o, 0, 2);
    assert_eq!(elect.len(), 32);
    for (i, mk) in elect.iter().enumerate() {
        assert_eq!(*mk, 0xffff_ffffu128 & !((1u128 << i) - 1));
    }
}

#[test]
fn all_schedule_policies_give_the_same_tangles() {
    use SchedulePolicy::*;
    for text in [
        loop_text(),
        call_text(),
        switch_text(),
        elect_text(),
        single_block_loop_text(),
        nested_loop_text(),
    ] {
        let m = module(&text);
        let mut base = None;
        for p in [
            LowestLaneFirst,
            NewestFirst,
            Random(1),
            Random(7),
            Random(12345),
        ] {
            let c = Config {
                schedule_policy: p,
                ..cfg(32)
            };
            let mut t = run(&m, "main", c, 32, &[]).unwrap().trace;
            t.sort();
            match &base {
                None => base = Some(t),
                Some(b) => assert_eq!(b, &t, "policy {p:?}"),
            }
        }
    }
}

/// A single-block loop (the header is its own continue target): lane l runs l % 4 + 1
/// iterations; A = ballot in the loop, M = ballot after it.
fn single_block_loop_text() -> String {
    prelude(32, &[("main", 0)])
        + r#"fn f0 "main"() -> void {
b0:
  v0 = load u32 g3
  v10 = umod u32 v0, c4
  v11 = iadd u32 v10, c1
  br b1
b1:
  v1 = phi u32 [c0, b0], [v2, b1]
  v2 = iadd u32 v1, c1
  v3 = group_ballot[subgroup] u32x4 c13
  v4 = ult bool v2, v11
  loop_merge b2, b1
  br_if v4, b1, b2
b2:
  v5 = group_ballot[subgroup] u32x4 c13
  return
}
"#
}

#[test]
fn single_block_loop_reconverges_every_iteration() {
    let m = module(&single_block_loop_text());
    let o = run(&m, "main", cfg(32), 4, &[]).unwrap();
    // Iteration i runs with the lanes whose l % 4 >= i.
    assert_eq!(
        masks(&m, &o, 0, 3),
        vec![0xffff_ffff, 0xeeee_eeee, 0xcccc_cccc, 0x8888_8888]
    );
    assert_eq!(masks(&m, &o, 0, 5), vec![0xffff_ffff]);
}

/// for (i = 0; i < 2; i++) { for (j = 0;; j++) { if (j == l % 4) break; A } B }  C
fn nested_loop_text() -> String {
    prelude(32, &[("main", 0)])
        + r#"fn f0 "main"() -> void {
b0:
  v0 = load u32 g3
  v10 = umod u32 v0, c4
  br b1
b1:
  v1 = phi u32 [c0, b0], [v8, b7]
  loop_merge b8, b7
  br b2
b2:
  br b3
b3:
  v2 = phi u32 [c0, b2], [v5, b5]
  loop_merge b6, b5
  br b4
b4:
  v3 = ieq bool v2, v10
  selection_merge b10
  br_if v3, b6, b10
b10:
  v20 = group_ballot[subgroup] u32x4 c13
  br b5
b5:
  v5 = iadd u32 v2, c1
  br b3
b6:
  v21 = group_ballot[subgroup] u32x4 c13
  br b7
b7:
  v8 = iadd u32 v1, c1
  v9 = ult bool v8, c2
  br_if v9, b1, b8
b8:
  v22 = group_ballot[subgroup] u32x4 c13
  return
}
"#
}

#[test]
fn nested_loops_reconverge_at_inner_merge_each_outer_iteration() {
    let m = module(&nested_loop_text());
    let o = run(&m, "main", cfg(32), 4, &[]).unwrap();
    let inner = [0xeeee_eeee, 0xcccc_cccc, 0x8888_8888];
    assert_eq!(masks(&m, &o, 0, 20), [inner, inner].concat());
    assert_eq!(masks(&m, &o, 0, 21), vec![0xffff_ffff; 2]);
    assert_eq!(masks(&m, &o, 0, 22), vec![0xffff_ffff]);
}

/// if (l < 4) terminate;  M = ballot — terminated lanes do not block the merge.
#[test]
fn terminated_lanes_do_not_block() {
    let text = prelude(32, &[("main", 0)])
        + r#"fn f0 "main"() -> void {
b0:
  v0 = load u32 g3
  v1 = ult bool v0, c4
  selection_merge b2
  br_if v1, b1, b2
b1:
  terminate
b2:
  v2 = group_ballot[subgroup] u32x4 c13
  return
}
"#;
    // `terminate` needs the Fragment execution model, so the verifier refuses it in this
    // GLCompute module; the interpreter still gives it its meaning (the lane exits).
    let m = tangle_ir::text::parse(&text).unwrap();
    let errors = tangle_ir::verify::verify(&m).unwrap_err();
    assert!(errors.to_string().contains("Fragment"), "{errors}");
    let o = run(&m, "main", cfg(32), 4, &[]).unwrap();
    assert_eq!(masks(&m, &o, 0, 2), vec![0xffff_fff0]);
}
