#![allow(missing_docs)]
//! Lane-instructions per second on a loop-heavy shader: 256 invocations in subgroups of 32,
//! lane l runs 64 + l % 32 iterations of a loop with a divergent continue, arithmetic, a
//! ballot and a reduction; prints the throughput once, then lets criterion time it.

use criterion::{criterion_group, criterion_main, Criterion};
use tangle_interp::{Config, Interpreter};

const TEXT: &str = r#"spirv 1.3
memory_model GLSL450
capability Shader
capability GroupNonUniform
capability GroupNonUniformBallot
capability GroupNonUniformArithmetic
extension "SPV_KHR_maximal_reconvergence"

type t0 = void
type t1 = u32
type t2 = bool
type t3 = u32x4
type t4 = rtarray<u32> [stride 4]
type t5 = struct "Buf" { t4 [offset 0, name "data"] } [block]
type t6 = fn() -> void
type t7 = ptr<StorageBuffer, t5>
type t8 = ptr<Input, u32>
type t9 = ptr<StorageBuffer, u32>

const c0 u32 = 0
const c1 u32 = 1
const c2 u32 = 32
const c3 u32 = 64
const c4 bool = true
const c5 u32 = 3

global g0 ptr<StorageBuffer, t5> [set 0, binding 0, name "out"]
global g1 ptr<Input, u32> [builtin LocalInvocationIndex]

entry GLCompute "main" f0 (g1) [local_size 256 1 1, maximally_reconverges]

fn f0 "main"() -> void {
b0:
  v0 = load u32 g1
  v1 = umod u32 v0, c2
  v2 = iadd u32 v1, c3
  br b1
b1:
  v3 = phi u32 [c0, b0], [v9, b3]
  v4 = phi u32 [c0, b0], [v10, b3]
  loop_merge b4, b3
  br b2
b2:
  v5 = ult bool v3, v2
  selection_merge b6
  br_if v5, b6, b4
b6:
  v6 = and u32 v3, c5
  v7 = ieq bool v6, c0
  selection_merge b8
  br_if v7, b7, b8
b7:
  v11 = group_ballot[subgroup] u32x4 c4
  br b8
b8:
  v12 = group_iadd[subgroup, reduce] u32 v3
  br b3
b3:
  v9 = iadd u32 v3, c1
  v13 = imul u32 v4, c5
  v10 = iadd u32 v13, v12
  br b1
b4:
  v14 = access_chain ptr<StorageBuffer, u32> g0, c0, v0
  store v14, v4
  return
}
"#;

fn run(m: &tangle_ir::Module) -> u64 {
    let c = Config {
        record_trace: false,
        ..Config::default()
    };
    let mut it = Interpreter::new(m, "main", c).unwrap();
    it.bind_buffer(0, 0, vec![0; 4 * 256]);
    it.run().unwrap().lane_steps
}

fn bench(c: &mut Criterion) {
    let m = tangle_ir::text::parse(TEXT).unwrap();
    tangle_ir::verify::verify(&m).unwrap();
    let start = std::time::Instant::now();
    let mut lanes = 0;
    for _ in 0..5 {
        lanes += run(&m);
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "interp: {} lane-instructions per run, {:.1} M lane-instructions/s",
        lanes / 5,
        lanes as f64 / secs / 1e6
    );
    c.bench_function("interp loop-heavy 256 lanes", |b| b.iter(|| run(&m)));
}

criterion_group!(benches, bench);
criterion_main!(benches);
