//! The CUDA corpus (`tests/cuda/corpus.cu`): integer, 64-bit, float, memory, atomic,
//! warp-op and divergent kernels, compiled by nvcc for every SM at test time (one nvcc
//! call per SM), run on the simulator under every policy of `all`, and compared with
//! results computed here by hand-written Rust from the kernels' C source.

mod common;

use std::path::Path;

use common::{bytes_i32, compile_every_sm, i32s, policies, run};
use tangle_sass::Arch;
use tangle_sim::{Arg, BarrierModel};

const N: usize = 128;

fn input_i32() -> Vec<i32> {
    (0..N as i32).map(|i| (i * 37 + 11) % 201 - 100).collect()
}

fn input_i64() -> Vec<i64> {
    input_i32()
        .iter()
        .map(|&a| a as i64 * 123_456_789 + 7)
        .collect()
}

fn input_f32() -> Vec<f32> {
    input_i32()
        .iter()
        .map(|&a| a as f32 * 0.37 + 0.01)
        .collect()
}

fn input_f64() -> Vec<f64> {
    input_i32()
        .iter()
        .map(|&a| a as f64 * 0.1234 + 0.5)
        .collect()
}

fn ref_int_ops() -> Vec<i32> {
    let inp = input_i32();
    let mut out = vec![0i32; N * 16];
    for t in 0..N {
        let (a, b) = (inp[t], inp[(t * 7 + 3) & 127]);
        let (ua, ub) = (a as u32, b as u32);
        let ffs = if b == 0 {
            0
        } else {
            b.trailing_zeros() as i32 + 1
        };
        let o = &mut out[t * 16..t * 16 + 16];
        o[0] = a.wrapping_add(b);
        o[1] = a.wrapping_sub(b);
        o[2] = a.wrapping_mul(b);
        o[3] = if b != 0 { a.wrapping_div(b) } else { 0 };
        o[4] = if b != 0 { a.wrapping_rem(b) } else { 0 };
        o[5] = ua.checked_div(ub).unwrap_or(0) as i32;
        o[6] = (ua << (ub & 31)) as i32;
        o[7] = a >> (b & 31);
        o[8] = (ua >> (ub & 31)) as i32;
        o[9] = (a & b) ^ (a | !b);
        o[10] = a.min(b);
        o[11] = ua.max(ub) as i32;
        o[12] = a.count_ones() as i32 + ub.leading_zeros() as i32;
        o[13] = ua.reverse_bits() as i32 ^ ffs;
        o[14] = (((a as i64 * b as i64) >> 32) as i32)
            .wrapping_add(((ua as u64 * ub as u64) >> 32) as i32);
        o[15] = a.wrapping_abs() + (a < b) as i32 + 2 * (ua < ub) as i32 + 4 * (a == b) as i32;
    }
    out
}

fn ref_i64_ops() -> Vec<i64> {
    let inp = input_i64();
    let mut out = vec![0i64; N * 8];
    for t in 0..N {
        let (a, b) = (inp[t], inp[(t * 5 + 1) & 127]);
        let (ua, ub) = (a as u64, b as u64);
        let o = &mut out[t * 8..t * 8 + 8];
        o[0] = a.wrapping_add(b);
        o[1] = a.wrapping_sub(b);
        o[2] = a.wrapping_mul(b);
        o[3] = (a ^ b).wrapping_add(a >> 40);
        o[4] = (ua >> (ub & 63)) as i64;
        o[5] = a >> (b & 63);
        o[6] = (ua << (ub & 63)) as i64;
        o[7] = (a < b) as i64 + 2 * (ua < ub) as i64 + 4 * (a == b) as i64 + 8 * (a <= b) as i64;
    }
    out
}

fn ref_float_ops() -> (Vec<f32>, Vec<f64>) {
    let (f, d) = (input_f32(), input_f64());
    let mut out = vec![0f32; N * 12];
    let mut dout = vec![0f64; N * 4];
    for t in 0..N {
        let (a, b, c) = (f[t], f[(t * 3 + 2) & 127], f[(t * 11 + 5) & 127]);
        let o = &mut out[t * 12..t * 12 + 12];
        o[0] = a + b;
        o[1] = a * b;
        o[2] = a.mul_add(b, c);
        o[3] = a.mul_add(0.5, -b);
        o[4] = a.abs().sqrt();
        o[5] = a.min(b);
        o[6] = a.max(c);
        o[7] = (a as i32) as f32;
        o[8] = (t as i32 * 3 - 100) as f32;
        o[9] = if a < b { b } else { c };
        o[10] = -a * c.abs();
        o[11] = ((b.abs() * 1000.0) as u32) as f32;
        let (da, db) = (d[t], d[(t * 3 + 2) & 127]);
        let od = &mut dout[t * 4..t * 4 + 4];
        od[0] = da.mul_add(db, da);
        od[1] = da - db;
        od[2] = da.mul_add(da, -db);
        od[3] = ((da * db) as i64) as f64;
    }
    (out, dout)
}

fn ref_mem_ops() -> Vec<u8> {
    let inp = input_i32();
    let in_bytes = bytes_i32(&inp);
    let mut out = vec![0i32; 640];
    for g in 0..N {
        let t = g % 64;
        let base = g - t;
        let k = (inp[g] & 7) as usize;
        out[g * 4] = inp[base + 63 - t].wrapping_mul(3);
        out[g * 4 + 1] = inp[(g + k) & 127] ^ k as i32;
        let byte = in_bytes[g * 3 + 1] as i32;
        let half = i16::from_le_bytes([in_bytes[(g * 2 + 1) * 2], in_bytes[(g * 2 + 1) * 2 + 1]]);
        out[g * 4 + 2] = byte + half as i32;
        out[g * 4 + 3] = (inp[g] + 1) as u8 as i32;
    }
    bytes_i32(&out)
}

fn ref_atomic_ops() -> Vec<i32> {
    let inp = input_i32();
    let mut out = vec![0i32; 640];
    let mut wide = 0u64;
    for (g, &v) in inp.iter().enumerate() {
        out[0] = out[0].wrapping_add(v);
        out[1] = out[1].max(v);
        out[2] = out[2].min(v);
        out[3] |= 1 << (g & 31);
        wide = wide.wrapping_add(((v & 0xff) as u64) << 20);
        out[8 + (v & 7) as usize] += ((v >> 3) & 1) + 1;
    }
    out[4] = wide as u32 as i32;
    out[5] = (wide >> 32) as i32;
    out
}

fn ref_warp_ops(arch: Arch) -> Vec<i32> {
    let inp = input_i32();
    let mut out = vec![0i32; 640 * 2];
    for g in 0..N {
        let t = g % 64;
        let lane = g % 32;
        let wb = g - lane;
        let warp = &inp[wb..wb + 32];
        let v = inp[g];
        let o = &mut out[g * 8..g * 8 + 8];
        o[0] = (0..32).fold(0u32, |m, l| m | (((warp[l] & 1) as u32) << l)) as i32;
        o[1] = warp[(t * 5) & 31];
        o[2] = if lane >= 3 { warp[lane - 3] } else { v };
        o[3] = if lane + 5 <= 31 { warp[lane + 5] } else { v };
        o[4] = warp[lane ^ 6];
        o[5] = warp.iter().any(|&x| x > 90) as i32 + 2 * warp.iter().all(|&x| x > -100) as i32;
        o[6] = (0..32).fold(
            0u32,
            |m, l| if warp[l] & 3 == v & 3 { m | 1 << l } else { m },
        ) as i32;
        o[7] = if arch.number() >= 80 {
            let sum = warp.iter().fold(0i32, |s, &x| s.wrapping_add(x));
            let max = warp.iter().map(|&x| x as u32).max().unwrap();
            sum ^ max as i32
        } else {
            0
        };
    }
    out
}

fn ref_diverge_ops() -> Vec<i32> {
    let inp = input_i32();
    let mut s = vec![0i32; N];
    for g in 0..N {
        let v = inp[g];
        for i in 0..(v & 7) {
            if (v + i) % 3 == 0 {
                continue;
            }
            s[g] += i * v;
            if s[g] > 200 {
                break;
            }
        }
    }
    let mut out = vec![0i32; 640];
    for g in 0..N {
        let wb = g - g % 32;
        let m = (0..32).fold(0u32, |m, l| m | (((s[wb + l] & 1) as u32) << l));
        out[g * 2] = if inp[g] & 1 != 0 { s[g] + 5 } else { s[g] - 1 };
        out[g * 2 + 1] = m as i32;
    }
    out
}

/// One kernel of the corpus: its arguments and the expected final buffers (by parameter
/// position).
struct Case {
    name: &'static str,
    args: Vec<Arg>,
    expect: Vec<(usize, Vec<u8>)>,
}

fn cases(arch: Arch) -> Vec<Case> {
    let buf_i = Arg::Buffer(bytes_i32(&input_i32()));
    let zero = |n: usize| Arg::Buffer(vec![0; n]);
    let (f, d) = ref_float_ops();
    vec![
        Case {
            name: "int_ops",
            args: vec![buf_i.clone(), zero(N * 64)],
            expect: vec![(1, bytes_i32(&ref_int_ops()))],
        },
        Case {
            name: "i64_ops",
            args: vec![
                Arg::Buffer(input_i64().iter().flat_map(|x| x.to_le_bytes()).collect()),
                zero(N * 64),
            ],
            expect: vec![(
                1,
                ref_i64_ops().iter().flat_map(|x| x.to_le_bytes()).collect(),
            )],
        },
        Case {
            name: "float_ops",
            args: vec![
                Arg::Buffer(input_f32().iter().flat_map(|x| x.to_le_bytes()).collect()),
                Arg::Buffer(input_f64().iter().flat_map(|x| x.to_le_bytes()).collect()),
                zero(N * 48),
                zero(N * 32),
            ],
            expect: vec![
                (2, f.iter().flat_map(|x| x.to_le_bytes()).collect()),
                (3, d.iter().flat_map(|x| x.to_le_bytes()).collect()),
            ],
        },
        Case {
            name: "mem_ops",
            args: vec![buf_i.clone(), zero(2560)],
            expect: vec![(1, ref_mem_ops())],
        },
        Case {
            name: "atomic_ops",
            args: vec![buf_i.clone(), zero(2560)],
            expect: vec![(1, bytes_i32(&ref_atomic_ops()))],
        },
        Case {
            name: "warp_ops",
            args: vec![buf_i.clone(), zero(5120)],
            expect: vec![(1, bytes_i32(&ref_warp_ops(arch)))],
        },
        Case {
            name: "diverge_ops",
            args: vec![buf_i, zero(2560)],
            expect: vec![(1, bytes_i32(&ref_diverge_ops()))],
        },
    ]
}

#[test]
fn cuda_corpus_matches_the_host_reference_on_every_sm_under_every_policy() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cuda/corpus.cu");
    let Some(cubins) = compile_every_sm(&src, "cuda_corpus") else {
        return;
    };
    let mut runs = 0;
    let mut failures = Vec::new();
    for (arch, bytes) in &cubins {
        for case in cases(*arch) {
            let k = tangle_sim::load(bytes, case.name).unwrap();
            for p in policies() {
                runs += 1;
                match run(&k, 2, 64, case.args.clone(), p, BarrierModel::PerLane) {
                    Ok(out) => {
                        for (pos, want) in &case.expect {
                            let got = out.buffers[*pos].as_ref().unwrap();
                            if got != want {
                                let (g, w) = (i32s(got), i32s(want));
                                let first = (0..g.len()).find(|&i| g[i] != w[i]).unwrap_or(0);
                                failures.push(format!(
                                    "{arch} {} {p}: arg{pos} word {first}: got {:#x}, want {:#x}",
                                    case.name, g[first], w[first]
                                ));
                            }
                        }
                    }
                    Err(e) => failures.push(format!("{arch} {} {p}: {e}", case.name)),
                }
            }
        }
    }
    eprintln!("cuda corpus: {runs} runs, {} failures", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What a control-code mutant changes in every instruction of a kernel.
#[derive(Clone, Copy, Debug)]
enum Mutant {
    /// Every stall cut to 1 cycle.
    StallCut,
    /// Every scoreboard wait bit cleared.
    WaitCleared,
    /// Every write scoreboard dropped.
    ScoreboardDropped,
}

fn mutate(k: &tangle_sim::Kernel, m: Mutant) -> tangle_sim::Kernel {
    let mut k = k.clone();
    for slot in &mut k.code {
        if let tangle_sim::kernel::Slot::Inst(i) = slot {
            let c = &mut i.m.control;
            match m {
                Mutant::StallCut => c.stall = 1,
                Mutant::WaitCleared => c.wait = 0,
                Mutant::ScoreboardDropped => c.write_sb = None,
            }
        }
    }
    k
}

fn hazards(k: &tangle_sim::Kernel, args: Vec<Arg>) -> usize {
    let launch = tangle_sim::Launch {
        grid: tangle_sim::Dim3::new(2, 1, 1),
        block: tangle_sim::Dim3::new(64, 1, 1),
        dynamic_shared: 0,
        args,
    };
    let mut o = tangle_sim::Options::new(tangle_sched::Policy::RoundRobin);
    o.hazards = true;
    tangle_sim::run(k, &launch, &o).unwrap().hazards_total
}

#[test]
fn ptxas_control_codes_have_no_hazards_and_their_mutants_do() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cuda/corpus.cu");
    let Some(cubins) = compile_every_sm(&src, "hazards") else {
        return;
    };
    let mut failures = Vec::new();
    for (arch, bytes) in &cubins {
        for case in cases(*arch) {
            let k = tangle_sim::load(bytes, case.name).unwrap();
            let n = hazards(&k, case.args.clone());
            if n != 0 {
                failures.push(format!(
                    "{arch} {}: {n} hazards in ptxas's own code",
                    case.name
                ));
            }
            for m in [
                Mutant::StallCut,
                Mutant::WaitCleared,
                Mutant::ScoreboardDropped,
            ] {
                if hazards(&mutate(&k, m), case.args.clone()) == 0 {
                    failures.push(format!("{arch} {}: mutant {m:?} not flagged", case.name));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Mutated ptxas code (random bit flips in the operation bits of random words) never panics
/// or hangs the simulator: every run ends, successfully or with a typed error.
#[test]
fn mutated_code_ends_in_a_result_or_a_typed_error() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cuda/corpus.cu");
    let Some(cubins) = compile_every_sm(&src, "mutants") else {
        return;
    };
    let mut rng = tangle_sched::Rng::new(16);
    let mut outcomes = [0usize; 2];
    for (arch, bytes) in &cubins {
        let c = tangle_sass::cubin::read(bytes).unwrap();
        for case in cases(*arch) {
            let k = tangle_sim::load(bytes, case.name).unwrap();
            let f = c
                .functions
                .iter()
                .find(|f| f.name.contains(case.name))
                .unwrap();
            for _ in 0..24 {
                let mut words = f.words.clone();
                for _ in 0..3 {
                    let at = rng.below(words.len() as u64) as usize;
                    let bit = 12 + rng.below(93) as u32;
                    words[at].0 ^= 1u128 << bit;
                }
                let mut m = k.clone();
                m.code = tangle_sim::kernel::decode_code(*arch, &words);
                let launch = tangle_sim::Launch {
                    grid: tangle_sim::Dim3::new(2, 1, 1),
                    block: tangle_sim::Dim3::new(64, 1, 1),
                    dynamic_shared: 0,
                    args: case.args.clone(),
                };
                let mut o = tangle_sim::Options::new(tangle_sched::Policy::Random(rng.next_u64()));
                o.step_budget = 50_000;
                o.hazards = true;
                outcomes[tangle_sim::run(&m, &launch, &o).is_ok() as usize] += 1;
            }
        }
    }
    eprintln!(
        "mutants: {} ran to the end, {} stopped with an error",
        outcomes[1], outcomes[0]
    );
    assert!(outcomes[0] > 0 && outcomes[1] > 0);
}
