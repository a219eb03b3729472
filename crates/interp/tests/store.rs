//! Composite values held by index in the subgroup's store (`slot.rs`): copied between
//! frames by phis, call arguments and return values, and collected many times while a
//! divergent loop runs, every lane's values must stay its own. Checked against the loop
//! computed here by hand, at several subgroup sizes and under every schedule policy.

mod common;

use tangle_interp::{Config, Interpreter, SchedulePolicy};

const LOCAL: u32 = 64;

/// Lane `l` runs `l % 7 + 100` iterations of `(p, q) = (step(q, i), p)` from
/// `p = q = (l, 1, 0, l)`, `step` a call taking and returning a `u32x4`; it stores `p`
/// and `q` as eight words at `out[8 l ..]`.
fn text() -> String {
    let mut stores = String::new();
    for (k, (vec, comp)) in [
        (5, 0),
        (5, 1),
        (5, 2),
        (5, 3),
        (6, 0),
        (6, 1),
        (6, 2),
        (6, 3),
    ]
    .into_iter()
    .enumerate()
    {
        let (x, at, ptr) = (20 + 3 * k, 21 + 3 * k, 22 + 3 * k);
        stores += &format!(
            "  v{x} = composite_extract[{comp}] u32 v{vec}\n  v{at} = iadd u32 v11, c{k}\n  \
             v{ptr} = access_chain ptr<StorageBuffer, u32> g0, c0, v{at}\n  store v{ptr}, v{x}\n",
            k = 5 + k
        );
    }
    format!(
        r#"spirv 1.3
memory_model GLSL450
capability Shader
extension "SPV_KHR_maximal_reconvergence"

type t0 = void
type t1 = u32
type t2 = bool
type t3 = rtarray<u32> [stride 4]
type t4 = struct "Buf" {{ t3 [offset 0, name "data"] }} [block]
type t5 = fn() -> void
type t6 = ptr<StorageBuffer, t4>
type t7 = ptr<Input, u32>
type t8 = ptr<StorageBuffer, u32>
type t9 = u32x4
type t10 = fn(u32x4, u32) -> u32x4

const c0 u32 = 0
const c1 u32 = 1
const c2 u32 = 7
const c3 u32 = 100
const c4 u32 = 8
const c5 u32 = 0
const c6 u32 = 1
const c7 u32 = 2
const c8 u32 = 3
const c9 u32 = 4
const c10 u32 = 5
const c11 u32 = 6
const c12 u32 = 7

global g0 ptr<StorageBuffer, t4> [set 0, binding 0, name "out"]
global g1 ptr<Input, u32> [builtin LocalInvocationIndex]

entry GLCompute "main" f0 (g1) [local_size {LOCAL} 1 1, maximally_reconverges]

fn f0 "main"() -> void {{
b0:
  v0 = load u32 g1
  v1 = umod u32 v0, c2
  v2 = iadd u32 v1, c3
  v3 = composite_construct u32x4 v0, c1, c0, v0
  br b1
b1:
  v4 = phi u32 [c0, b0], [v9, b3]
  v5 = phi u32x4 [v3, b0], [v10, b3]
  v6 = phi u32x4 [v3, b0], [v5, b3]
  loop_merge b4, b3
  br b2
b2:
  v7 = ult bool v4, v2
  selection_merge b6
  br_if v7, b6, b4
b6:
  br b3
b3:
  v9 = iadd u32 v4, c1
  v10 = call[f1] u32x4 v6, v4
  br b1
b4:
  v11 = imul u32 v0, c4
{stores}  return
}}

fn f1 "step"(v0: u32x4, v1: u32) -> u32x4 {{
b0:
  v2 = composite_extract[0] u32 v0
  v3 = composite_extract[1] u32 v0
  v4 = composite_extract[2] u32 v0
  v5 = composite_extract[3] u32 v0
  v6 = iadd u32 v3, v1
  v7 = iadd u32 v4, v2
  v8 = composite_construct u32x4 v6, v2, v7, v5
  return v8
}}
"#
    )
}

/// Lane `l`'s eight words, computed as the program does.
fn want(l: u32) -> [u32; 8] {
    let step = |v: [u32; 4], i: u32| [v[1].wrapping_add(i), v[0], v[2].wrapping_add(v[0]), v[3]];
    let init = [l, 1, 0, l];
    let (mut p, mut q) = (init, init);
    for i in 0..l % 7 + 100 {
        (p, q) = (step(q, i), p);
    }
    [p[0], p[1], p[2], p[3], q[0], q[1], q[2], q[3]]
}

#[test]
fn composites_copied_between_frames_survive_collections() {
    let m = common::module(&text());
    let policies = [
        SchedulePolicy::LowestLaneFirst,
        SchedulePolicy::NewestFirst,
        SchedulePolicy::Random(7),
    ];
    for size in [8, 32, 64] {
        for policy in policies {
            let config = Config {
                subgroup_size: size,
                schedule_policy: policy,
                ..Config::default()
            };
            let mut it = Interpreter::new(&m, "main", config).expect("interpreter");
            it.bind_buffer(0, 0, vec![0; 8 * LOCAL as usize * 4]);
            let o = it.run().expect("run");
            let words = common::out_words(&o);
            for l in 0..LOCAL {
                let got = &words[8 * l as usize..8 * l as usize + 8];
                assert_eq!(got, want(l), "size {size} {policy:?}: lane {l}");
            }
        }
    }
}
