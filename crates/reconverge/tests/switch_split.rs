//! Why a divergent switch makes the values of its construct divergent after the merge: under
//! the by-selector policy the reference runs one target as one tangle per selector value,
//! and those tangles meet at the merge. Shown on the interpreter: a ballot in the shared
//! target is uniform in the target, differs after the merge, and the analysis says so.

mod common;

use tangle_interp::{Config, SwitchPolicy};
use tangle_ir::{Block, Func, Value};
use tangle_reconverge::Uniformity;

const MODULE: &str = r#"spirv 1.3
memory_model GLSL450
capability Shader
capability GroupNonUniform
capability GroupNonUniformBallot
extension "SPV_KHR_maximal_reconvergence"

type t0 = void
type t1 = u32
type t2 = bool
type t3 = u32x4
type t4 = rtarray<u32> [stride 4]
type t5 = struct "Out" { t4 [offset 0, name "data"] } [block]

const c0 u32 = 0
const c1 u32 = 3
const c2 bool = true

global g0 ptr<StorageBuffer, t5> [set 0, binding 0, name "out"]
global g1 ptr<Input, u32> [builtin LocalInvocationIndex]

entry GLCompute "main" f0 (g1) [local_size 8 1 1, maximally_reconverges]

fn f0 "main"() -> void {
b0:
  v0 = load u32 g1
  v1 = umod u32 v0, c1
  selection_merge b2
  switch v1, b3 [0: b1, 1: b1]
b1:
  v2 = group_ballot[subgroup] u32x4 c2
  br b2
b3:
  return
b2:
  v3 = composite_extract[0] u32 v2
  v4 = access_chain ptr<StorageBuffer, u32> g0, c0, v0
  store v4, v3
  return
}
"#;

#[test]
fn a_value_of_a_divergent_switch_is_divergent_after_its_merge() {
    let module = tangle_ir::text::parse(MODULE).expect("parses");
    tangle_ir::verify::verify(&module).expect("verifies");
    let u = Uniformity::analyse(&module);
    let f = u.function(Func::from_u32(0)).expect("f0");
    let (ballot, target, merge) = (Value::from_u32(2), Block::from_u32(1), Block::from_u32(2));
    assert!(f.is_uniform_at(ballot, target));
    assert!(!f.is_uniform_at(ballot, merge));
    assert!(!f.is_uniform(Value::from_u32(3)));

    let buffers = vec![((0, 0), vec![0u8; 8 * 4])];
    for policy in [SwitchPolicy::ByTarget, SwitchPolicy::BySelector] {
        let config = Config {
            subgroup_size: 8,
            switch_policy: policy,
            record_trace: false,
            ..Config::default()
        };
        // The analysis's own claims hold under both policies.
        let t = common::check_run(&module, &u, "main", config.clone(), &buffers).expect("runs");
        assert!(t.violations.is_empty(), "{policy:?}: {:?}", t.violations);
        // Calling the ballot uniform at the merge too is wrong exactly under by-selector.
        let claim = |_: Func, v: Value, _: Block| v == ballot;
        let branch = |_: Func, b: Block| f.branch_is_uniform(b);
        let t =
            common::check_claims(&module, &claim, &branch, "main", config, &buffers).expect("runs");
        assert_eq!(
            t.violations.is_empty(),
            policy == SwitchPolicy::ByTarget,
            "{policy:?}: {:?}",
            t.violations
        );
    }
}
