//! Shared helpers for the barrier machine's tests: a prelude of types, constants and
//! globals; `rec(k)`, which folds the ballot of the group executing it into a per-lane
//! record; and runners for the reference interpreter (on a structured program) and the
//! machine (on its hand-written lowered form), both giving the `out` buffer as words.
#![allow(dead_code)]

pub mod programs;

use tangle_interp::{Config, Interpreter};
use tangle_ir::Module;
use tangle_machine::{Machine, MachineConfig, MachineError, Policy};

/// Types, constants c0..c13 and globals g0 (`out`), g1 (`in`), g2 (LocalInvocationIndex);
/// an entry point "main" f0 with this workgroup size.
pub fn prelude(local_size: u32) -> String {
    format!(
        r#"spirv 1.4
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
type t5 = struct "Buf" {{ t4 [offset 0, name "data"] }} [block]
type t6 = barrier
type t7 = array<u32, 256> [stride 4]

const c0 u32 = 0
const c1 u32 = 1
const c2 u32 = 2
const c3 u32 = 3
const c4 u32 = 4
const c5 u32 = 5
const c6 u32 = 6
const c7 u32 = 7
const c8 u32 = 8
const c9 u32 = 9
const c10 u32 = 10
const c11 u32 = 31
const c12 bool = true
const c13 bool = false

global g0 ptr<StorageBuffer, t5> [set 0, binding 0, name "out"]
global g1 ptr<StorageBuffer, t5> [set 0, binding 1, name "in"]
global g2 ptr<Input, u32> [builtin LocalInvocationIndex]
global g3 ptr<Workgroup, t7> [name "shared"]

entry GLCompute "main" f0 (g2, g0, g1, g3) [local_size {local_size} 1 1, maximally_reconverges]

"#
    )
}

/// The declaration every program's entry block starts with: the record variable `v900`,
/// zero at first, and `v901` = LocalInvocationIndex.
pub const START: &str = "  v900 = variable[Function] ptr<Function, u32> c0\n  v901 = load u32 g2\n";

/// Record `k` (0..=9): `acc = acc * 31 + ballot + k`, where `ballot` folds the four words
/// of the ballot of the lanes executing it together (so it works up to 128 lanes).
pub fn rec(k: u32) -> String {
    let b = 1000 + 20 * k;
    format!(
        "  v{b} = group_ballot[subgroup] u32x4 c12
  v{b1} = composite_extract[0] u32 v{b}
  v{b2} = composite_extract[1] u32 v{b}
  v{b3} = composite_extract[2] u32 v{b}
  v{b4} = composite_extract[3] u32 v{b}
  v{b5} = imul u32 v{b2}, c3
  v{b6} = imul u32 v{b3}, c5
  v{b7} = imul u32 v{b4}, c7
  v{b8} = iadd u32 v{b1}, v{b5}
  v{b9} = iadd u32 v{b8}, v{b6}
  v{b10} = iadd u32 v{b9}, v{b7}
  v{b11} = load u32 v900
  v{b12} = imul u32 v{b11}, c11
  v{b13} = iadd u32 v{b12}, v{b10}
  v{b14} = iadd u32 v{b13}, c{k}
  store v900, v{b14}
",
        b1 = b + 1,
        b2 = b + 2,
        b3 = b + 3,
        b4 = b + 4,
        b5 = b + 5,
        b6 = b + 6,
        b7 = b + 7,
        b8 = b + 8,
        b9 = b + 9,
        b10 = b + 10,
        b11 = b + 11,
        b12 = b + 12,
        b13 = b + 13,
        b14 = b + 14,
    )
}

/// Store number `k`: `out[LocalInvocationIndex] = acc`.
pub fn store(k: u32) -> String {
    let s = 1500 + 4 * k;
    format!(
        "  v{s} = load u32 v900\n  v{s1} = access_chain ptr<StorageBuffer, u32> g0, c0, v901\n  store v{s1}, v{s}\n",
        s1 = s + 1
    )
}

/// The record a lane gets from a sequence of (record number, ballot mask) it saw.
pub fn expected_record(seen: &[(u32, u128)]) -> u32 {
    let mut acc: u32 = 0;
    for &(k, m) in seen {
        let w = |i: u32| (m >> (32 * i)) as u32;
        let folded = w(0)
            .wrapping_add(w(1).wrapping_mul(3))
            .wrapping_add(w(2).wrapping_mul(5))
            .wrapping_add(w(3).wrapping_mul(7));
        acc = acc.wrapping_mul(31).wrapping_add(folded).wrapping_add(k);
    }
    acc
}

/// Parses and verifies a module.
pub fn module(text: &str) -> Module {
    let m = tangle_ir::text::parse(text).unwrap_or_else(|e| panic!("parse: {e}\n{text}"));
    if let Err(e) = tangle_ir::verify::verify(&m) {
        panic!("verify: {e}\n{text}");
    }
    m
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The `out` buffer (`n` words) after the reference interpreter runs `m` with subgroups
/// of `size`, `input` bound at binding 1.
pub fn reference(m: &Module, size: u32, n: usize, input: &[u32]) -> Vec<u32> {
    let config = Config {
        subgroup_size: size,
        ..Config::default()
    };
    let mut it = Interpreter::new(m, "main", config).expect("interpreter");
    it.bind_buffer(0, 0, vec![0; n * 4]);
    it.bind_buffer(0, 1, input.iter().flat_map(|w| w.to_le_bytes()).collect());
    let o = it.run().unwrap_or_else(|e| panic!("reference: {e}"));
    words(&o.buffers[&(0, 0)])
}

/// A machine configuration with this subgroup size and policy.
pub fn config(size: u32, policy: Policy) -> MachineConfig {
    MachineConfig {
        subgroup_size: size,
        policy,
        step_budget: 200_000,
        ..MachineConfig::default()
    }
}

/// The machine's full outcome.
pub fn machine_outcome(
    m: &Module,
    config: MachineConfig,
    n: usize,
    input: &[u32],
) -> Result<tangle_machine::Outcome, MachineError> {
    let mut mc = Machine::new(m, "main", config)?;
    mc.bind_buffer(0, 0, vec![0; n * 4]);
    mc.bind_buffer(0, 1, input.iter().flat_map(|w| w.to_le_bytes()).collect());
    mc.run()
}

/// The `out` buffer (`n` words) after the machine runs `m`.
pub fn machine(
    m: &Module,
    size: u32,
    policy: Policy,
    n: usize,
    input: &[u32],
) -> Result<Vec<u32>, MachineError> {
    machine_outcome(m, config(size, policy), n, input).map(|o| words(&o.buffers[&(0, 0)]))
}

/// Every policy `all` names for the machine.
pub fn all_policies() -> Vec<Policy> {
    tangle_sched::expand(
        "all",
        "barrier machine",
        &tangle_machine::SUPPORTED_POLICIES,
    )
    .expect("all expands")
}
