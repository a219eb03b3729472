//! Phis on block entry, checked against values computed here by hand: a divergent loop
//! whose back edge swaps two phis (an edge that reads its own results, so every lane takes
//! the general per-lane copy), an entry edge of constants, and a selection's merge where
//! lanes of both edges arrive together, one of them bringing an undefined constant (so
//! those lanes' words must come out undefined, the others exact), under every schedule
//! policy and with 32 and 8 lanes a subgroup.

mod common;

use tangle_interp::{Config, Interpreter, SchedulePolicy};

const TEXT: &str = r#"spirv 1.3
memory_model GLSL450
capability Shader
capability GroupNonUniform
extension "SPV_KHR_maximal_reconvergence"

type t0 = void
type t1 = u32
type t2 = bool
type t3 = rtarray<u32> [stride 4]
type t4 = struct "Buf" { t3 [offset 0, name "data"] } [block]
type t5 = fn() -> void
type t6 = ptr<StorageBuffer, t4>
type t7 = ptr<Input, u32>
type t8 = ptr<StorageBuffer, u32>

const c0 u32 = 0
const c1 u32 = 1
const c2 u32 = 7
const c3 u32 = 3
const c4 u32 = 5
const c5 u32 = undef
const c6 u32 = 2
const c7 u32 = 100

global g0 ptr<StorageBuffer, t4> [set 0, binding 0, name "out"]
global g1 ptr<Input, u32> [builtin LocalInvocationIndex]

entry GLCompute "main" f0 (g1) [local_size 32 1 1, maximally_reconverges]

fn f0 "main"() -> void {
b0:
  v0 = load u32 g1
  v1 = umod u32 v0, c2
  v2 = iadd u32 v1, c1
  br b1
b1:
  v3 = phi u32 [c0, b0], [v9, b3]
  v4 = phi u32 [c3, b0], [v10, b3]
  v5 = phi u32 [c4, b0], [v4, b3]
  loop_merge b4, b3
  br b2
b2:
  v6 = ult bool v3, v2
  selection_merge b6
  br_if v6, b6, b4
b6:
  br b3
b3:
  v9 = iadd u32 v3, c1
  v10 = iadd u32 v5, v3
  br b1
b4:
  v11 = umod u32 v0, c6
  v12 = ieq bool v11, c0
  selection_merge b8
  br_if v12, b7, b8
b7:
  br b8
b8:
  v13 = phi u32 [c5, b7], [v5, b4]
  v14 = phi u32 [v4, b7], [c7, b4]
  v15 = imul u32 v0, c6
  v16 = access_chain ptr<StorageBuffer, u32> g0, c0, v15
  store v16, v13
  v17 = iadd u32 v15, c1
  v18 = access_chain ptr<StorageBuffer, u32> g0, c0, v17
  store v18, v14
  return
}
"#;

/// Lane `l`'s two words (`None` where undefined): the loop runs `l % 7 + 1` times with
/// `(a, b) = (b + i, a)`, starting from `(3, 5)`; an even lane stores (undefined, a), an
/// odd one (b, 100).
fn want(l: u32) -> [Option<u32>; 2] {
    let (mut a, mut b) = (3u32, 5u32);
    for i in 0..l % 7 + 1 {
        (a, b) = (b.wrapping_add(i), a);
    }
    if l % 2 == 0 {
        [None, Some(a)]
    } else {
        [Some(b), Some(100)]
    }
}

#[test]
fn phis_copy_by_edge_and_swap_under_every_schedule() {
    let m = common::module(TEXT);
    let policies = [
        SchedulePolicy::LowestLaneFirst,
        SchedulePolicy::NewestFirst,
        SchedulePolicy::Random(7),
        SchedulePolicy::Random(0x9e37_79b9),
    ];
    for size in [32, 8] {
        for policy in policies {
            let config = Config {
                subgroup_size: size,
                schedule_policy: policy,
                ..Config::default()
            };
            let mut it = Interpreter::new(&m, "main", config).expect("interpreter");
            it.bind_buffer(0, 0, vec![0xAB; 64 * 4]);
            let o = it.run().expect("run");
            let words = common::out_words(&o);
            let undefined = o.undefined.get(&(0, 0)).expect("some words are undefined");
            for l in 0..32u32 {
                for (k, w) in want(l).into_iter().enumerate() {
                    let at = 2 * l as usize + k;
                    let got = words[at];
                    let undef = undefined[4 * at..4 * at + 4].iter().all(|b| *b);
                    match w {
                        None => assert!(undef, "{size} {policy:?}: lane {l} word {k} defined"),
                        Some(v) => {
                            assert!(!undefined[4 * at], "{size} {policy:?}: lane {l} word {k}");
                            assert_eq!(got, v, "{size} {policy:?}: lane {l} word {k}");
                        }
                    }
                }
            }
        }
    }
}
