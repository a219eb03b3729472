//! The three loops of seed 000 ("Re-converging control flow on NVIDIA GPUs"), made concrete:
//! thing() reads in[i * 32 + idx]; lane l sees a value over 200 (201 + l) first in
//! iteration l % 3.
//!
//! v1: loop { x = thing(); if (x > 200) { s = subgroupAdd(x); break; } }  m = subgroupMin(s)
//! v2: loop { x = thing(); if (x > 200) break; }  s = subgroupAdd(x); m = subgroupMin(s)
//! v3: loop { x = thing(); if (x > 200) { s = subgroupAdd(x); m = subgroupMin(s); break; } }
//! Each lane writes out[idx] = m.

mod common;
use common::*;

fn text() -> String {
    let body = |name: &str, f: u32, brk: &str, merge: &str| {
        format!(
            r#"fn f{f} "{name}"() -> void {{
b0:
  v0 = load u32 g2
  br b1
b1:
  v1 = phi u32 [c0, b0], [v9, b3]
  loop_merge b4, b3
  br b2
b2:
  v2 = imul u32 v1, c11
  v3 = iadd u32 v2, v0
  v4 = access_chain ptr<StorageBuffer, u32> g1, c0, v3
  v5 = load u32 v4
  v6 = ugt bool v5, c12
  selection_merge b6
  br_if v6, b5, b6
b5:
{brk}  br b4
b6:
  br b3
b3:
  v9 = iadd u32 v1, c1
  br b1
b4:
{merge}  v20 = access_chain ptr<StorageBuffer, u32> g0, c0, v0
  store v20, v12
  return
}}
"#
        )
    };
    prelude(32, &[("v1", 0), ("v2", 1), ("v3", 2)])
        + &body(
            "v1",
            0,
            "  v7 = group_iadd[subgroup, reduce] u32 v5\n",
            "  v12 = group_umin[subgroup, reduce] u32 v7\n",
        )
        + &body(
            "v2",
            1,
            "",
            "  v10 = phi u32 [v5, b5]\n  v11 = group_iadd[subgroup, reduce] u32 v10\n  v12 = group_umin[subgroup, reduce] u32 v11\n",
        )
        + &body(
            "v3",
            2,
            "  v7 = group_iadd[subgroup, reduce] u32 v5\n  v12 = group_umin[subgroup, reduce] u32 v7\n",
            "",
        )
}

fn input() -> Vec<u32> {
    let mut v = vec![0; 3 * 32];
    for l in 0..32u32 {
        for i in 0..3 {
            v[(i * 32 + l) as usize] = if i == l % 3 { 201 + l } else { l };
        }
    }
    v
}

#[test]
fn the_three_loops_differ() {
    let m = module(&text());
    let group = |j: u32| {
        (0..32u32)
            .filter(|l| l % 3 == j)
            .map(|l| 201 + l)
            .sum::<u32>()
    };
    let total: u32 = (0..32u32).map(|l| 201 + l).sum();
    let r1 = out_words(&run(&m, "v1", cfg(32), 32, &input()).unwrap());
    let r2 = out_words(&run(&m, "v2", cfg(32), 32, &input()).unwrap());
    let r3 = out_words(&run(&m, "v3", cfg(32), 32, &input()).unwrap());
    let min_group = (0..3).map(group).min().unwrap();
    assert_eq!(r1, vec![min_group; 32]);
    assert_eq!(r2, vec![total; 32]);
    assert_eq!(r3, (0..32).map(|l| group(l % 3)).collect::<Vec<_>>());
    assert_ne!(r2, r3);
}

/// The IR passes change nothing a program shows: after `dead-code,reverse-post-order` (which
/// moves the break blocks after the continue constructs), every variant writes the same
/// buffer and every subgroup operation runs with the same tangles.
#[test]
fn the_ir_passes_change_nothing_observable() {
    let m = module(&text());
    let mut passed = m.clone();
    let mut pipeline =
        tangle_ir::pipeline::Pipeline::parse("dead-code,reverse-post-order").unwrap();
    pipeline.verify_each = true;
    pipeline.run(&mut passed, |_, _, _| {}).unwrap();
    let layouts = |m: &tangle_ir::Module| -> Vec<Vec<tangle_ir::Block>> {
        m.funcs.values().map(|f| f.layout.clone()).collect()
    };
    assert_ne!(layouts(&m), layouts(&passed), "the passes moved blocks");
    for entry in ["v1", "v2", "v3"] {
        for size in [4, 32] {
            let config = || tangle_interp::Config {
                record_trace: true,
                ..cfg(size)
            };
            let before = run(&m, entry, config(), 32, &input()).unwrap();
            let after = run(&passed, entry, config(), 32, &input()).unwrap();
            assert_eq!(out_words(&before), out_words(&after), "{entry} @ {size}");
            let tangles = |o: &tangle_interp::Outcome| {
                let mut t: Vec<_> = o
                    .trace
                    .iter()
                    .map(|e| (e.subgroup, e.func, e.inst, e.mask))
                    .collect();
                t.sort();
                t
            };
            assert!(!before.trace.is_empty());
            assert_eq!(tangles(&before), tangles(&after), "{entry} @ {size}");
        }
    }
}
