//! Subgroup sizes, partial subgroups, several workgroups, barriers and shared memory,
//! atomics, subgroup data operations, and the budget and deadlock errors.

mod common;
use common::*;
use tangle_interp::{Config, InterpError};

const LOCAL: u32 = 200;

/// out[3 idx + 0] = subgroupBallotBitCount(ballot(true))          (lanes in my subgroup)
/// out[3 idx + 1] = subgroupBallotExclusiveBitCount(ballot(true)) (my subgroup lane id)
/// out[3 idx + 2] = subgroupInclusiveAdd(1)
/// if (sid < 3) A = ballot(true)
fn sizes_text() -> String {
    prelude(LOCAL, &[("main", 0)])
        + r#"fn f0 "main"() -> void {
b0:
  v0 = load u32 g2
  v1 = load u32 g3
  v2 = group_ballot[subgroup] u32x4 c13
  v3 = group_ballot_bit_count[subgroup, reduce] u32 v2
  v4 = group_ballot_bit_count[subgroup, exclusive_scan] u32 v2
  v5 = group_iadd[subgroup, inclusive_scan] u32 c1
  v10 = imul u32 v0, c3
  v11 = access_chain ptr<StorageBuffer, u32> g0, c0, v10
  store v11, v3
  v12 = iadd u32 v10, c1
  v13 = access_chain ptr<StorageBuffer, u32> g0, c0, v12
  store v13, v4
  v14 = iadd u32 v10, c2
  v15 = access_chain ptr<StorageBuffer, u32> g0, c0, v14
  store v15, v5
  v6 = ult bool v1, c3
  selection_merge b2
  br_if v6, b1, b2
b1:
  v7 = group_ballot[subgroup] u32x4 c13
  br b2
b2:
  return
}
"#
}

#[test]
fn subgroup_sizes_and_partial_last_subgroup() {
    let m = module(&sizes_text());
    for s in [1u32, 4, 8, 16, 32, 64, 128] {
        let o = run(&m, "main", cfg(s), 3 * LOCAL as usize, &[]).unwrap();
        let out = out_words(&o);
        let nsub = LOCAL.div_ceil(s);
        for idx in 0..LOCAL {
            let sg = idx / s;
            let count = s.min(LOCAL - sg * s);
            let lane = idx % s;
            let got = &out[3 * idx as usize..3 * idx as usize + 3];
            assert_eq!(got, &[count, lane, lane + 1], "size {s} idx {idx}");
        }
        let a = masks(&m, &o, 0, 7);
        assert_eq!(a.len() as u32, nsub, "size {s}");
        let want = if s >= 3 { 0b111 } else { (1u128 << s) - 1 };
        assert!(a.iter().all(|&mk| mk == want), "size {s}: {a:x?}");
    }
}

/// `run_once` (bound buffers moved into the run) gives what `run` gives, and `run` leaves
/// the prepared dispatch's buffers as bound, so running it again gives the same again.
#[test]
fn run_once_is_run() {
    let m = module(&sizes_text());
    for s in [4u32, 32] {
        let mut it = tangle_interp::Interpreter::new(&m, "main", cfg(s)).unwrap();
        it.bind_buffer(0, 0, vec![7; 3 * LOCAL as usize * 4]);
        it.bind_buffer(0, 1, vec![0; 4]);
        let first = it.run().unwrap();
        let again = it.run().unwrap();
        let once = it.run_once().unwrap();
        for o in [&again, &once] {
            assert_eq!(o.buffers, first.buffers, "size {s}");
            assert_eq!(o.undefined, first.undefined, "size {s}");
            assert_eq!((o.steps, o.lane_steps), (first.steps, first.lane_steps));
            assert_eq!(o.memory_bytes, first.memory_bytes);
        }
        assert_eq!(out_words(&first)[0], s.min(LOCAL), "size {s}");
    }
}

#[test]
fn bad_subgroup_size_is_refused() {
    let m = module(&sizes_text());
    for s in [0, 3, 256] {
        assert!(matches!(
            run(&m, "main", cfg(s), 1, &[]),
            Err(InterpError::Config(_))
        ));
    }
}

/// shared[idx] = 2 idx; barrier; out[idx] = shared[(idx + 1) % 200]
fn barrier_text() -> String {
    prelude(LOCAL, &[("main", 0)])
        + r#"fn f0 "main"() -> void {
b0:
  v0 = load u32 g2
  v1 = imul u32 v0, c2
  v2 = access_chain ptr<Workgroup, u32> g4, v0
  store v2, v1
  control_barrier[workgroup, workgroup, acquire_release|workgroup_memory]
  v3 = iadd u32 v0, c1
  v4 = umod u32 v3, c12
  v5 = access_chain ptr<Workgroup, u32> g4, v4
  v6 = load u32 v5
  v7 = access_chain ptr<StorageBuffer, u32> g0, c0, v0
  store v7, v6
  return
}
"#
}

#[test]
fn workgroup_barrier_orders_shared_memory_across_subgroups() {
    let m = module(&barrier_text());
    for s in [8, 32, 64] {
        let o = run(&m, "main", cfg(s), LOCAL as usize, &[]).unwrap();
        let want: Vec<u32> = (0..LOCAL).map(|i| ((i + 1) % LOCAL) * 2).collect();
        assert_eq!(out_words(&o), want, "size {s}");
    }
}

/// if (idx % 32 < 4) barrier; — in every subgroup the other lanes wait at the merge for the
/// lanes at the barrier, which wait for them: a deadlock.
fn deadlock_text() -> String {
    prelude(LOCAL, &[("main", 0)])
        + r#"fn f0 "main"() -> void {
b0:
  v0 = load u32 g2
  v1 = umod u32 v0, c11
  v2 = ult bool v1, c4
  selection_merge b2
  br_if v2, b1, b2
b1:
  control_barrier[workgroup, workgroup, acquire_release|workgroup_memory]
  br b2
b2:
  return
}
"#
}

#[test]
fn divergent_barrier_deadlocks_with_a_description() {
    let m = module(&deadlock_text());
    let e = run(&m, "main", cfg(32), 1, &[]).unwrap_err();
    let InterpError::Deadlock { tangles, .. } = &e else {
        panic!("{e}")
    };
    assert!(tangles.contains("subgroup 0:\n  tangle 0xf at f0 b1 instruction 1 (after a workgroup barrier, waiting)\n  tangle 0xfffffff0 waits at b2"), "{tangles}");
    // The partial last subgroup (lanes 192..199) too.
    assert!(tangles.contains("subgroup 6:\n  tangle 0xf at f0 b1 instruction 1 (after a workgroup barrier, waiting)\n  tangle 0xf0 waits at b2"), "{tangles}");
}

/// loop { } forever.
fn spin_text() -> String {
    prelude(32, &[("main", 0)])
        + r#"fn f0 "main"() -> void {
b0:
  br b1
b1:
  loop_merge b3, b2
  br b2
b2:
  br b1
b3:
  return
}
"#
}

#[test]
fn step_budget_names_every_tangle() {
    let m = module(&spin_text());
    let c = Config {
        step_budget: 1000,
        ..cfg(32)
    };
    let e = run(&m, "main", c, 1, &[]).unwrap_err();
    let InterpError::Budget { tangles, .. } = &e else {
        panic!("{e}")
    };
    assert!(
        tangles.contains("subgroup 0:\n  tangle 0xffffffff at f0"),
        "{tangles}"
    );
}

/// old = atomicAdd(out[0], 1); out[1 + idx] = old — 3 workgroups of 200.
fn atomic_text() -> String {
    prelude(LOCAL, &[("main", 0)])
        + r#"fn f0 "main"() -> void {
b0:
  v0 = load u32 g2
  v1 = access_chain ptr<StorageBuffer, u32> g0, c0, c0
  v2 = atomic_iadd[device, relaxed] u32 v1, c1
  v3 = iadd u32 v0, c1
  v4 = access_chain ptr<StorageBuffer, u32> g0, c0, v3
  store v4, v2
  return
}
"#
}

#[test]
fn atomics_across_several_workgroups() {
    let m = module(&atomic_text());
    let c = Config {
        workgroups: [3, 1, 1],
        ..cfg(32)
    };
    let out = out_words(&run(&m, "main", c, 1 + LOCAL as usize, &[]).unwrap());
    assert_eq!(out[0], 600);
    // Workgroups run in order, subgroups of a workgroup in order, lanes in lane order: the
    // last workgroup's lane idx saw 400 + idx.
    assert_eq!(&out[1..], &(400..600).collect::<Vec<u32>>()[..]);
}

/// Data movement and arithmetic subgroup operations on lane ids.
fn data_text() -> String {
    prelude(32, &[("main", 0)])
        + r#"fn f0 "main"() -> void {
b0:
  v0 = load u32 g3
  v1 = group_shuffle_xor[subgroup] u32 v0, c1
  v2 = group_broadcast[subgroup] u32 v0, c3
  v3 = group_iadd[subgroup, exclusive_scan] u32 v0
  v4 = group_iadd[subgroup, clustered_reduce] u32 v0, c4
  v5 = group_umax[subgroup, reduce] u32 v0
  v6 = group_shuffle_up[subgroup] u32 v0, c0
  v7 = group_broadcast_first[subgroup] u32 v0
  v20 = imul u32 v0, c8
  v21 = access_chain ptr<StorageBuffer, u32> g0, c0, v20
  store v21, v1
  v22 = iadd u32 v20, c1
  v23 = access_chain ptr<StorageBuffer, u32> g0, c0, v22
  store v23, v2
  v24 = iadd u32 v20, c2
  v25 = access_chain ptr<StorageBuffer, u32> g0, c0, v24
  store v25, v3
  v26 = iadd u32 v20, c3
  v27 = access_chain ptr<StorageBuffer, u32> g0, c0, v26
  store v27, v4
  v28 = iadd u32 v20, c4
  v29 = access_chain ptr<StorageBuffer, u32> g0, c0, v28
  store v29, v5
  v30 = ugt bool v0, c9
  selection_merge b2
  br_if v30, b1, b2
b1:
  v8 = group_umin[subgroup, reduce] u32 v0
  v9 = group_iadd[subgroup, inclusive_scan] u32 c1
  v31 = iadd u32 v20, c5
  v32 = access_chain ptr<StorageBuffer, u32> g0, c0, v31
  store v32, v8
  v33 = iadd u32 v20, c6
  v34 = access_chain ptr<StorageBuffer, u32> g0, c0, v33
  store v34, v9
  br b2
b2:
  v35 = iadd u32 v20, c7
  v36 = access_chain ptr<StorageBuffer, u32> g0, c0, v35
  store v36, v7
  return
}
"#
}

#[test]
fn subgroup_data_operations() {
    let m = module(&data_text());
    let out = out_words(&run(&m, "main", cfg(32), 8 * 32, &[]).unwrap());
    for l in 0..32u32 {
        let r = &out[8 * l as usize..8 * l as usize + 8];
        let (mn, scan) = if l > 9 { (10, l - 9) } else { (0, 0) };
        let cluster: u32 = (l & !3..(l & !3) + 4).sum();
        assert_eq!(
            r,
            &[
                l ^ 1,
                3,
                l * (l.max(1) - 1) / 2 * u32::from(l > 0),
                cluster,
                31,
                mn,
                scan,
                0
            ],
            "lane {l}"
        );
    }
}

/// group_shuffle_down by 1 reads past the last lane: an undefined value, which is fine while
/// unused; `strict_undefined` reports it where it is born.
#[test]
fn shuffle_from_an_inactive_lane_is_undefined() {
    let text = prelude(32, &[("main", 0)])
        + r#"fn f0 "main"() -> void {
b0:
  v0 = load u32 g3
  v1 = group_shuffle_down[subgroup] u32 v0, c1
  return
}
"#;
    let m = module(&text);
    run(&m, "main", cfg(32), 1, &[]).unwrap();
    let strict = Config {
        strict_undefined: true,
        ..cfg(32)
    };
    let e = run(&m, "main", strict, 1, &[]).unwrap_err();
    assert!(
        matches!(&e, InterpError::UndefinedValue(u) if u.lane == 31),
        "{e}"
    );
    assert!(e.to_string().contains("lane 31 reads lane 32"), "{e}");
}

#[test]
fn out_of_bounds_store_is_an_error() {
    let m = module(&atomic_text());
    let e = run(&m, "main", cfg(32), 10, &[]).unwrap_err();
    assert!(matches!(e, InterpError::OutOfBounds { .. }), "{e}");
}

#[test]
fn unsupported_op_names_its_position() {
    let text = prelude(32, &[("main", 0)]).replace(
        "type t14 = ptr<Workgroup, u32>\n",
        "type t14 = ptr<Workgroup, u32>\ntype t15 = f32\n",
    ) + r#"fn f0 "main"() -> void {
b0:
  v0 = load u32 g3
  v1 = ieq bool v0, c0
  v2 = group_ballot[workgroup] u32x4 v1
  return
}
"#;
    // The verifier refuses a workgroup-scope group operation (Vulkan allows only subgroup
    // scope); the interpreter must still refuse it by position rather than misbehave.
    let m = tangle_ir::text::parse(&text).unwrap();
    let e = run(&m, "main", cfg(32), 1, &[]).unwrap_err();
    assert!(matches!(e, InterpError::Unsupported { .. }), "{e}");
    assert!(e.to_string().starts_with("unsupported at f0 b0 i2"), "{e}");
}

/// LocalSizeId with a specialization constant, overridden at run time; NumSubgroups and
/// SubgroupId follow.
#[test]
fn local_size_id_follows_spec_constants() {
    let text = prelude(1, &[])
        .replace("const c20 bool = false\n", "const c20 bool = false\nspec_const c21 u32 = 8 [spec_id 3]\n")
        + "entry GLCompute \"main\" f0 (g2, g3, g5, g0, g1, g4) [local_size_id c21 c1 c1, maximally_reconverges]\n\n"
        + r#"fn f0 "main"() -> void {
b0:
  v0 = load u32 g2
  v1 = load u32 g5
  v2 = access_chain ptr<StorageBuffer, u32> g0, c0, v0
  store v2, v1
  return
}
"#;
    let m = module(&text);
    let o = run(&m, "main", cfg(4), 8, &[]).unwrap();
    assert_eq!(out_words(&o), vec![0, 0, 0, 0, 1, 1, 1, 1]);
    let mut c = cfg(4);
    c.spec_constants.insert(3, 12);
    let it = tangle_interp::Interpreter::new(&m, "main", c.clone()).unwrap();
    assert_eq!(it.local_size(), [12, 1, 1]);
    let o = run(&m, "main", c, 12, &[]).unwrap();
    assert_eq!(out_words(&o), vec![0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
}

/// Each invocation stores `ballot(lane % 3 == 0)` into a function variable of type `u32x4`
/// and copies its four words to `out[4 idx ..]`: the ballot held inline (subgroups up to 64
/// lanes) and boxed (128) must store the same words, those of the mask.
fn ballot_store_text() -> String {
    prelude(LOCAL, &[("main", 0)])
        + r#"fn f0 "main"() -> void {
b0:
  v2 = variable[Function] ptr<Function, t3>
  v0 = load u32 g2
  v1 = load u32 g3
  v3 = umod u32 v1, c3
  v4 = ieq bool v3, c0
  v5 = group_ballot[subgroup] u32x4 v4
  store v2, v5
  v6 = imul u32 v0, c4
  v10 = access_chain ptr<Function, u32> v2, c0
  v11 = access_chain ptr<Function, u32> v2, c1
  v12 = access_chain ptr<Function, u32> v2, c2
  v13 = access_chain ptr<Function, u32> v2, c3
  v20 = load u32 v10
  v21 = load u32 v11
  v22 = load u32 v12
  v23 = load u32 v13
  v30 = iadd u32 v6, c1
  v31 = iadd u32 v6, c2
  v32 = iadd u32 v6, c3
  v40 = access_chain ptr<StorageBuffer, u32> g0, c0, v6
  v41 = access_chain ptr<StorageBuffer, u32> g0, c0, v30
  v42 = access_chain ptr<StorageBuffer, u32> g0, c0, v31
  v43 = access_chain ptr<StorageBuffer, u32> g0, c0, v32
  store v40, v20
  store v41, v21
  store v42, v22
  store v43, v23
  return
}
"#
}

#[test]
fn a_stored_ballot_has_the_words_of_its_mask_at_every_size() {
    let m = module(&ballot_store_text());
    for s in [1u32, 4, 32, 64, 128] {
        let o = run(&m, "main", cfg(s), 4 * LOCAL as usize, &[]).unwrap();
        let out = out_words(&o);
        for idx in 0..LOCAL {
            let count = s.min(LOCAL - idx / s * s);
            let mask: u128 = (0..count).filter(|l| l % 3 == 0).fold(0, |m, l| m | 1 << l);
            let want: Vec<u32> = (0..4).map(|k| (mask >> (32 * k)) as u32).collect();
            let got = &out[4 * idx as usize..4 * idx as usize + 4];
            assert_eq!(got, &want[..], "size {s} idx {idx}");
        }
    }
}
