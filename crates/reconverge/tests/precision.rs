//! Verdicts on small functions worked out by hand: the analysis must find these values and
//! branches uniform (precision: uniform control flow must stay uniform) and these divergent
//! (the sources and control-dependence rules at work). Soundness on real runs is
//! `tests/shaders.rs`.

use tangle_ir::{Block, Func, Value};
use tangle_reconverge::Uniformity;

const HEADER: &str = r#"spirv 1.3
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
type t6 = ptr<StorageBuffer, t5>
type t7 = ptr<Input, u32>
type t8 = ptr<StorageBuffer, u32>
type t9 = fn(u32) -> u32

const c0 u32 = 0
const c1 u32 = 1
const c2 u32 = 3

global g0 ptr<StorageBuffer, t5> [set 0, binding 0, name "out"]
global g1 ptr<Input, u32> [builtin LocalInvocationIndex]
global g2 ptr<Input, u32> [builtin SubgroupSize]
global g3 ptr<StorageBuffer, t5> [set 0, binding 1, name "in"]

entry GLCompute "main" f0 (g1, g2) [local_size 32 1 1, maximally_reconverges]
"#;

fn analyse(body: &str) -> (tangle_ir::Module, Uniformity) {
    let text = format!("{HEADER}\n{body}");
    let module = tangle_ir::text::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    tangle_ir::verify::verify(&module).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let u = Uniformity::analyse(&module);
    (module, u)
}

fn v(n: u32) -> Value {
    Value::from_u32(n)
}

fn b(n: u32) -> Block {
    Block::from_u32(n)
}

fn f(n: u32) -> Func {
    Func::from_u32(n)
}

#[test]
fn a_divergent_if_inside_a_uniform_loop_leaves_the_loop_uniform() {
    let (_, u) = analyse(
        r#"
fn f0 "main"() -> void {
b0:
  v0 = load u32 g1
  v1 = load u32 g2
  br b1
b1:
  v2 = phi u32 [c0, b0], [v6, b3]
  loop_merge b4, b3
  br b2
b2:
  v3 = umod u32 v0, c2
  v4 = ieq bool v3, c0
  selection_merge b5
  br_if v4, b6, b5
b6:
  v9 = group_ballot[subgroup] u32x4 v4
  br b5
b5:
  v10 = phi u32 [c1, b6], [c0, b2]
  br b3
b3:
  v6 = iadd u32 v2, c1
  v7 = ult bool v6, v1
  br_if v7, b1, b4
b4:
  v8 = iadd u32 v6, c1
  return
}
"#,
    );
    let u = u.function(f(0)).expect("f0");
    for x in [1, 2, 6, 7, 8, 9] {
        assert!(u.is_uniform(v(x)), "v{x} should be uniform");
    }
    for x in [0, 3, 4, 10] {
        assert!(!u.is_uniform(v(x)), "v{x} should be divergent");
    }
    assert!(u.branch_is_uniform(b(3)));
    assert!(!u.branch_is_uniform(b(2)));
    assert!(!u.has_divergent_exits(b(1)));
    assert_eq!(u.divergent_branches().collect::<Vec<_>>(), vec![b(2)]);
}

#[test]
fn a_divergent_break_makes_loop_values_used_after_it_divergent() {
    let (_, u) = analyse(
        r#"
fn f0 "main"() -> void {
b0:
  v0 = load u32 g1
  br b1
b1:
  v1 = phi u32 [c0, b0], [v5, b3]
  loop_merge b4, b3
  br b2
b2:
  v2 = ieq bool v1, v0
  v11 = iadd u32 v1, c2
  selection_merge b5
  br_if v2, b6, b5
b6:
  v12 = group_ballot[subgroup] u32x4 v2
  br b4
b5:
  br b3
b3:
  v5 = iadd u32 v1, c1
  br b1
b4:
  v8 = phi u32 [v11, b6]
  v6 = group_ballot[subgroup] u32x4 v2
  v7 = iadd u32 v1, c1
  v13 = composite_extract[0] u32 v12
  return
}
"#,
    );
    let u = u.function(f(0)).expect("f0");
    assert!(u.has_divergent_exits(b(1)));
    // v1 and v2 are uniform in each iteration, but read after the loop each lane holds
    // its own last iteration's; the break block's ballot v12 ran once per iteration, and
    // the lanes meet after it. The phi of the merge block joins different iterations.
    for x in [1, 2, 12] {
        assert!(
            !u.is_uniform_at(v(x), b(4)),
            "v{x} should be divergent after the loop"
        );
        assert!(!u.is_uniform(v(x)), "v{x} is not uniform everywhere");
    }
    assert!(u.is_uniform_at(v(1), b(2)) && u.is_uniform_at(v(1), b(3)));
    assert!(u.is_uniform_at(v(12), b(6)));
    for x in [7, 8, 13] {
        assert!(!u.is_uniform(v(x)), "v{x} should be divergent");
    }
    // Read inside the loop only (v5, the increment; v11 by the break block's tangle, as
    // the phi's incoming value), and the ballot after the loop.
    for x in [5, 6, 11] {
        assert!(u.is_uniform(v(x)), "v{x} should be uniform");
    }
}

#[test]
fn loads_are_uniform_only_from_unwritten_shared_memory_at_uniform_addresses() {
    let (_, u) = analyse(
        r#"
fn f0 "main"() -> void {
b0:
  v0 = load u32 g1
  v1 = load u32 g2
  v2 = access_chain ptr<StorageBuffer, u32> g3, c0, c1
  v3 = load u32 v2
  v4 = access_chain ptr<StorageBuffer, u32> g3, c0, v0
  v5 = load u32 v4
  v6 = access_chain ptr<StorageBuffer, u32> g0, c0, c1
  v7 = load u32 v6
  v8 = access_chain ptr<StorageBuffer, u32> g0, c0, v0
  store v8, v3
  return
}
"#,
    );
    let u = u.function(f(0)).expect("f0");
    // SubgroupSize; a constant address of a buffer nobody writes.
    for x in [1, 2, 3, 6] {
        assert!(u.is_uniform(v(x)), "v{x} should be uniform");
    }
    // LocalInvocationIndex; a per-lane address; a buffer the shader writes.
    for x in [0, 4, 5, 7, 8] {
        assert!(!u.is_uniform(v(x)), "v{x} should be divergent");
    }
}

#[test]
fn calls_return_uniform_results_only_from_uniform_callees() {
    let (_, u) = analyse(
        r#"
fn f0 "main"() -> void {
b0:
  v0 = load u32 g1
  v1 = load u32 g2
  v2 = call[f1] u32 v1
  v3 = call[f2] u32 v1
  v4 = call[f3] u32 v1
  v5 = call[f3] u32 v0
  return
}

fn f1 "same"(v0: u32) -> u32 {
b0:
  v1 = iadd u32 v0, c1
  return v1
}

fn f2 "lane"(v0: u32) -> u32 {
b0:
  v1 = load u32 g1
  v2 = ult bool v1, v0
  selection_merge b2
  br_if v2, b1, b2
b1:
  br b2
b2:
  v3 = phi u32 [c1, b1], [c0, b0]
  return c0
}

fn f3 "passes"(v0: u32) -> u32 {
b0:
  return v0
}
"#,
    );
    let main = u.function(f(0)).expect("f0");
    assert!(
        main.is_uniform(v(2)),
        "a callee in uniform control flow on uniform data"
    );
    assert!(
        !main.is_uniform(v(3)),
        "the callee branches divergently before returning"
    );
    // f3 is called once with a divergent argument: its parameter is divergent, so every
    // call of it is (the summary is per function, not per call site).
    assert!(!main.is_uniform(v(4)));
    assert!(!main.is_uniform(v(5)));
    assert!(u.function(f(1)).expect("f1").returns_uniform());
    assert!(!u.function(f(2)).expect("f2").returns_uniform());
    assert!(!u.function(f(3)).expect("f3").is_uniform(v(0)));
}
