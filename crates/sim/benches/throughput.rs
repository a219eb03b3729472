//! Simulator throughput in warp-instructions per second (one group issuing one instruction
//! is one): a hand-written SASS loop (no oracle needed) of integer work, a global load and
//! store, a divergent branch with a convergence barrier and a warp vote, on 4 blocks of 128
//! threads, under the round-robin and the adversarial policy.
//!
//! `cargo bench -p tangle-sim --bench throughput`; criterion reports time per launch and
//! the throughput in elements (= warp-instructions) per second.

// criterion's macros define undocumented functions.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tangle_sass::{assemble, Arch};
use tangle_sched::Policy;
use tangle_sim::{run, Arg, Dim3, Kernel, Launch, Options};

/// out[tid] = sum over 64 iterations of (tid ^ i) with a lane-dependent branch in each.
const LOOP: &str = "S2R R0, SR_TID.X
S2R R6, SR_CTAID.X
LDC.64 R2, c[0x0][0x160]
IMAD R0, R6, c[0x0][0x0], R0
IMAD.WIDE.U32 R2, R0, 0x4, R2
IMAD.MOV.U32 R4, RZ, RZ, RZ
IMAD.MOV.U32 R5, RZ, RZ, RZ
LOP3.LUT R7, R4, R0, RZ, 0x3c, !PT
BSSY B0, 0xb0
ISETP.GT.U32.AND P0, PT, R7, 0x20, PT
@P0 IADD3 R5, R5, R7, RZ
BSYNC B0
VOTE.ANY R8, PT, P0
IADD3 R5, R5, R8, RZ
IADD3 R4, R4, 0x1, RZ
ISETP.NE.U32.AND P1, PT, R4, 0x40, PT
@P1 BRA 0x70
STG.E [R2.64], R5
EXIT";

fn bench(c: &mut Criterion) {
    let words = assemble(Arch::Sm86, LOOP).expect("the bench kernel assembles");
    let k = Kernel::from_words(Arch::Sm86, "loop", &words, &[8]);
    let launch = Launch {
        grid: Dim3::new(4, 1, 1),
        block: Dim3::new(128, 1, 1),
        dynamic_shared: 0,
        args: vec![Arg::Buffer(vec![0; 4 * 512])],
    };
    let mut g = c.benchmark_group("sim");
    for policy in [Policy::RoundRobin, Policy::Adversarial] {
        let steps = run(&k, &launch, &Options::new(policy)).expect("runs").steps;
        g.throughput(Throughput::Elements(steps));
        g.bench_function(format!("loop/{policy}"), |b| {
            b.iter(|| run(&k, &launch, &Options::new(policy)).expect("runs"))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
