//! Order-dependent values (`docs/interp.md`, "Order-dependent values"): one test per rule.
//! A subgroup of 32 lanes executing one atomic instruction is 32 invocations whose order
//! SPIR-V leaves open. The expected masks are derived by hand from the rules.

mod common;

use common::{module, word_flags, words as le_words};
use tangle_interp::{Config, Interpreter, Outcome, Variant};

/// A program of one subgroup of 32: `v0` is the lane, `v1` a pointer to `d[0]` (buffer
/// `d`, set 0 binding 1, 4 words), then `body`. Buffer `out` (set 0 binding 0) has 64
/// words.
fn program(body: &str) -> String {
    format!(
        r#"spirv 1.4
memory_model GLSL450
capability Shader
capability GroupNonUniform
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

const c0 u32 = 0
const c1 u32 = 1
const c2 u32 = 32
const c3 u32 = 16
const c4 u32 = 31
const c5 u32 = 7

global g0 ptr<StorageBuffer, t4> [set 0, binding 0, name "out"]
global g1 ptr<StorageBuffer, t4> [set 0, binding 1, name "d"]
global g2 ptr<Input, u32> [builtin SubgroupLocalInvocationId]

entry GLCompute "main" f0 (g2, g0, g1) [local_size 32 1 1, maximally_reconverges]

fn f0 "main"() -> void {{
b0:
  v0 = load u32 g2
  v1 = access_chain ptr<StorageBuffer, u32> g1, c0, c0
{body}
}}
"#
    )
}

fn run_with(body: &str, config: Config) -> Outcome {
    let text = program(body);
    let m = module(&text);
    let mut it = Interpreter::new(&m, "main", config).unwrap();
    it.bind_buffer(0, 0, vec![0; 64 * 4]);
    it.bind_buffer(0, 1, vec![0; 4 * 4]);
    it.run().unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn run(body: &str) -> Outcome {
    run_with(body, Config::default())
}

/// Per word of the buffer at (0, `binding`): whether it is order-dependent (all four bytes
/// alike), and whether its value came from the order.
fn words(o: &Outcome, binding: u32, n: usize) -> (Vec<bool>, Vec<bool>) {
    let Some(od) = o.order_dependent.get(&(0, binding)) else {
        return (vec![false; n], vec![false; n]);
    };
    (word_flags(&od.bytes), word_flags(&od.valued))
}

/// `n` words, `true` where `f(word)`.
fn mask(n: usize, f: impl Fn(usize) -> bool) -> Vec<bool> {
    (0..n).map(f).collect()
}

/// The word `i` of buffer (0, `binding`).
fn word(o: &Outcome, binding: u32, i: usize) -> u32 {
    le_words(&o.buffers[&(0, binding)])[i]
}

/// Stores `v9` at out[lane].
const STORE_V9: &str = "  v30 = access_chain ptr<StorageBuffer, u32> g0, c0, v0
  store v30, v9";

#[test]
fn racing_exchange_whose_result_is_stored_is_a_wildcard() {
    let o = run(&format!(
        "  v9 = atomic_exchange[device, relaxed] u32 v1, v0\n{STORE_V9}\n  return"
    ));
    let (out, valued) = words(&o, 0, 64);
    assert_eq!(out, mask(64, |w| w < 32));
    assert_eq!(valued, out, "the values stored came from the order");
    // d[0] is the last exchange's value: which lane is last is open.
    assert_eq!(words(&o, 1, 4).0, mask(4, |w| w == 0));
    let od = &o.order_dependent[&(0, 1)];
    assert!(od.race_at.inst.is_some(), "the race is placed at an atomic");
}

#[test]
fn racing_adds_leave_a_determined_final_value() {
    let o = run("  v9 = atomic_iadd[device, relaxed] u32 v1, c1\n  return");
    assert!(o.order_dependent.is_empty(), "{:?}", o.order_dependent);
    assert_eq!(word(&o, 1, 0), 32);
}

#[test]
fn a_racing_add_whose_result_is_used_is_a_wildcard() {
    let o = run(&format!(
        "  v9 = atomic_iadd[device, relaxed] u32 v1, c1\n{STORE_V9}\n  return"
    ));
    assert_eq!(words(&o, 0, 64).0, mask(64, |w| w < 32));
    // The sum is the same in every order.
    assert!(!o.order_dependent.contains_key(&(0, 1)));
    assert_eq!(word(&o, 1, 0), 32);
}

/// `v9 = atomicAdd(d[0], 1); if (v9 < 16) out[lane] = 1; out[32 + lane] = lane`.
const BRANCH: &str = "  v9 = atomic_iadd[device, relaxed] u32 v1, c1
  v10 = ult bool v9, c3
  selection_merge b2
  br_if v10, b1, b2
b1:
  v11 = access_chain ptr<StorageBuffer, u32> g0, c0, v0
  store v11, c1
  br b2
b2:
  v12 = iadd u32 v0, c2
  v13 = access_chain ptr<StorageBuffer, u32> g0, c0, v12
  store v13, v0
  return";

#[test]
fn a_branch_on_a_returned_value_makes_its_construct_order_dependent() {
    let o = run(BRANCH);
    let (out, valued) = words(&o, 0, 64);
    // Another order may make any lane take the branch, and the construct's store may
    // write anywhere in `out` as far as a static look can tell: the whole buffer is marked
    // at the branch; the stores after the merge then write determined values over their
    // words (another invocation writing them unsynchronized would be a data race).
    assert_eq!(out, mask(64, |w| w < 32));
    // The pointer the construct computes is order-dependent too (every value defined
    // under order-dependent control is; the shadow does not tell data from control), so
    // its store marks the whole buffer as holding values from the order, up to the
    // determined stores after the merge.
    assert_eq!(valued, out);
    for lane in 0..32 {
        assert_eq!(word(&o, 0, 32 + lane), lane as u32);
    }
}

#[test]
fn stores_after_the_merge_are_compared_when_the_construct_writes_elsewhere() {
    // As above, but the construct writes `d[1]`: `out` stays exact.
    let o = run("  v9 = atomic_iadd[device, relaxed] u32 v1, c1
  v10 = ult bool v9, c3
  selection_merge b2
  br_if v10, b1, b2
b1:
  v11 = access_chain ptr<StorageBuffer, u32> g1, c0, c1
  store v11, c1
  br b2
b2:
  v30 = access_chain ptr<StorageBuffer, u32> g0, c0, v0
  store v30, v0
  return");
    assert!(!o.order_dependent.contains_key(&(0, 0)));
    assert_eq!(words(&o, 1, 4).0, mask(4, |_| true));
}

#[test]
fn an_order_dependent_address_makes_the_whole_buffer_order_dependent() {
    let o = run("  v9 = atomic_iadd[device, relaxed] u32 v1, c1
  v10 = and u32 v9, c4
  v11 = access_chain ptr<StorageBuffer, u32> g0, c0, v10
  store v11, c1
  return");
    let (out, valued) = words(&o, 0, 64);
    assert_eq!(out, mask(64, |_| true));
    assert_eq!(valued, out);
    assert!(!o.order_dependent.contains_key(&(0, 1)));
}

#[test]
fn an_atomic_of_one_invocation_is_not_order_dependent() {
    // Only lane 0 exchanges; its result is stored.
    let o = run("  v10 = ieq bool v0, c0
  selection_merge b2
  br_if v10, b1, b2
b1:
  v9 = atomic_exchange[device, relaxed] u32 v1, c5
  v11 = access_chain ptr<StorageBuffer, u32> g0, c0, c0
  store v11, v9
  br b2
b2:
  return");
    assert!(o.order_dependent.is_empty(), "{:?}", o.order_dependent);
    assert_eq!(word(&o, 1, 0), 7);
}

#[test]
fn atomics_on_different_locations_do_not_race() {
    // Each lane exchanges its own word of `out` and stores the old value after it.
    let o = run("  v10 = access_chain ptr<StorageBuffer, u32> g0, c0, v0
  v9 = atomic_exchange[device, relaxed] u32 v10, c5
  v11 = iadd u32 v0, c2
  v12 = access_chain ptr<StorageBuffer, u32> g0, c0, v11
  store v12, v9
  return");
    assert!(o.order_dependent.is_empty(), "{:?}", o.order_dependent);
}

#[test]
fn the_known_wrong_variant_that_orders_returned_values_is_caught() {
    let body = format!("  v9 = atomic_iadd[device, relaxed] u32 v1, c1\n{STORE_V9}\n  return");
    let config = Config {
        variant: Variant::ReturnedValuesOrdered,
        ..Config::default()
    };
    let o = run_with(&body, config);
    assert_ne!(
        words(&o, 0, 64).0,
        mask(64, |w| w < 32),
        "the variant must lose the wildcards"
    );
}

#[test]
fn a_loop_exit_on_a_returned_value_makes_the_values_defined_in_the_loop_order_dependent() {
    // do { v20 = phi(0, v21); v21 = v20 + 1; v22 = atomicAdd(d[0], 1) } while (v22 < 40);
    // out[lane] = v21: how many iterations a lane ran depends on the order.
    let o = run("  br b1
b1:
  v20 = phi u32 [c0, b0], [v21, b2]
  loop_merge b3, b2
  br b4
b4:
  v21 = iadd u32 v20, c1
  v22 = atomic_iadd[device, relaxed] u32 v1, c1
  br b2
b2:
  v23 = ult bool v22, c2
  br_if v23, b1, b3
b3:
  v30 = access_chain ptr<StorageBuffer, u32> g0, c0, v0
  store v30, v21
  v31 = iadd u32 v0, c2
  v32 = access_chain ptr<StorageBuffer, u32> g0, c0, v31
  store v32, v0
  return");
    let (out, _) = words(&o, 0, 64);
    assert_eq!(
        out,
        mask(64, |w| w < 32),
        "the loop's values are, the lane id is not"
    );
}

#[test]
fn a_workgroup_barrier_orders_the_atomics_before_it() {
    // Lane 0 exchanges 7 in; barrier; every lane adds 1; barrier; lane 0 exchanges 0 and
    // stores what it got: 7 + 32 in every order (the CTS's atomic_barrier_sum).
    let o = run("  v10 = ieq bool v0, c0
  selection_merge b2
  br_if v10, b1, b2
b1:
  v9 = atomic_exchange[device, relaxed] u32 v1, c5
  br b2
b2:
  control_barrier[workgroup, workgroup, acquire_release|workgroup_memory]
  v11 = atomic_iadd[device, relaxed] u32 v1, c1
  control_barrier[workgroup, workgroup, acquire_release|workgroup_memory]
  selection_merge b4
  br_if v10, b3, b4
b3:
  v12 = atomic_exchange[device, relaxed] u32 v1, c0
  v13 = access_chain ptr<StorageBuffer, u32> g0, c0, c0
  store v13, v12
  br b4
b4:
  return");
    assert!(o.order_dependent.is_empty(), "{:?}", o.order_dependent);
    assert_eq!(word(&o, 0, 0), 39);
}
