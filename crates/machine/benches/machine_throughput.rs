#![allow(missing_docs)]
//! Lane-instructions per second of the barrier machine on a loop-heavy lowered shader (the
//! interpreter's throughput shader, lowered by hand with a break, a continue and an `if`
//! scope): 256 invocations in subgroups of 32, lane l runs 64 + l % 32 iterations with a
//! ballot under a divergent `if` and a reduction. Prints the throughput under `strict` and
//! `adversarial` once, then lets criterion time each.

use criterion::{criterion_group, criterion_main, Criterion};
use tangle_machine::{Machine, MachineConfig, Policy};

const TEXT: &str = r#"spirv 1.3
memory_model GLSL450
capability Shader
capability GroupNonUniform
capability GroupNonUniformBallot
capability GroupNonUniformArithmetic

type t0 = void
type t1 = u32
type t2 = bool
type t3 = u32x4
type t4 = rtarray<u32> [stride 4]
type t5 = struct "Buf" { t4 [offset 0, name "data"] } [block]

const c0 u32 = 0
const c1 u32 = 1
const c2 u32 = 32
const c3 u32 = 64
const c4 bool = true
const c5 u32 = 3

global g0 ptr<StorageBuffer, t5> [set 0, binding 0, name "out"]
global g1 ptr<Input, u32> [builtin LocalInvocationIndex]

entry GLCompute "main" f0 (g1) [local_size 256 1 1]

fn f0 "main"() -> void lowered {
b0:
  v0 = load u32 g1
  v1 = umod u32 v0, c2
  v2 = iadd u32 v1, c3
  v20 = bar_set barrier
  br b1
b1:
  v3 = phi u32 [c0, b0], [v9, b3]
  v4 = phi u32 [c0, b0], [v10, b3]
  v21 = bar_set barrier
  v5 = ult bool v3, v2
  br_if v5, b6, b9
b6:
  v6 = and u32 v3, c5
  v7 = ieq bool v6, c0
  v22 = bar_set barrier
  br_if v7, b7, b8
b7:
  v11 = group_ballot[subgroup] u32x4 c4
  br b8
b8:
  bar_sync v22
  v12 = group_iadd[subgroup, reduce] u32 v3
  br b9
b9:
  v30 = phi u32 [c1, b1], [c0, b8]
  v31 = phi u32 [c0, b1], [v12, b8]
  bar_sync v21
  v32 = ine bool v30, c0
  br_if v32, b4, b3
b3:
  v9 = iadd u32 v3, c1
  v13 = imul u32 v4, c5
  v10 = iadd u32 v13, v31
  br b1
b4:
  bar_sync v20
  v14 = access_chain ptr<StorageBuffer, u32> g0, c0, v0
  store v14, v4
  return
}
"#;

fn run(m: &tangle_ir::Module, policy: Policy) -> u64 {
    let c = MachineConfig {
        record_trace: false,
        policy,
        ..MachineConfig::default()
    };
    let mut machine = Machine::new(m, "main", c).unwrap();
    machine.bind_buffer(0, 0, vec![0; 4 * 256]);
    machine.run().unwrap().lane_steps
}

fn bench(c: &mut Criterion) {
    let m = tangle_ir::text::parse(TEXT).unwrap();
    tangle_ir::verify::verify(&m).unwrap();
    for policy in [Policy::Strict, Policy::Adversarial] {
        let start = std::time::Instant::now();
        let mut lanes = 0;
        for _ in 0..5 {
            lanes += run(&m, policy);
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "machine ({policy}): {} lane-instructions per run, {:.1} M lane-instructions/s",
            lanes / 5,
            lanes as f64 / secs / 1e6
        );
        c.bench_function(&format!("machine loop-heavy 256 lanes {policy}"), |b| {
            b.iter(|| run(&m, policy))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
