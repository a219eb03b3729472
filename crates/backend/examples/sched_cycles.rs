#![allow(missing_docs)]
//! Simulated cycles of the same fuzz programs three ways: our code with the conservative
//! codes (`Sched::None`), our code list-scheduled (`Sched::List`), and ptxas's code for the
//! program written as CUDA (`tangle_fuzz::cuda`, `nvcc -O3`). The cycles are the SASS
//! simulator's per-warp estimate in hazard mode (the sum of the stall counts a warp's lanes
//! issued, scoreboard waits free; **an unvalidated model**, never compared with a GPU),
//! summed over the warps of one workgroup under round-robin. Only programs where all three
//! are correct count (ours equal to the reference; ptxas's agreeing under the `ptxas` fuzz
//! engine's judge, since CUDA promises no reconvergence).
//!
//! `cargo run --release -p tangle-backend --example sched_cycles -- [N] [sm_86,...]`
//! (needs nvcc: `TANGLE_ORACLES` or `PATH`).

use tangle_backend::{compile, CompileOptions, Compiled, Param, Sched};
use tangle_fuzz::ast::INPUT;
use tangle_fuzz::build::build_module;
use tangle_fuzz::cuda::{kernel_name, translation_unit};
use tangle_fuzz::ptxas::judge::{judge, Verdict};
use tangle_fuzz::ptxas::{nvcc, options_of, reference_words};
use tangle_fuzz::{generate, GenConfig, Program};
use tangle_sass::Arch;
use tangle_sched::Policy;
use tangle_sim::{Arg, Dim3, Kernel, Launch, Options, RunOutput};

fn options() -> Options {
    let mut o = Options::new(Policy::RoundRobin);
    o.hazards = true;
    o
}

fn cycles(out: &RunOutput) -> u64 {
    out.cycles.iter().map(|w| w.cycles).sum()
}

fn words_of(out: &RunOutput, k: usize) -> Vec<u32> {
    out.buffers[k]
        .as_deref()
        .unwrap_or(&[])
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Our code's cycles, if it ran hazard-free and equal to the reference.
fn ours(c: &Compiled, reference: &[u32], local: u32) -> Option<(u64, usize)> {
    let kernel = Kernel::from_words(c.arch, &c.name, &c.code.words, &c.abi.sizes());
    let input: Vec<u8> = INPUT.iter().flat_map(|w| w.to_le_bytes()).collect();
    let out_bytes = vec![0u8; reference.len().max(1) * 4];
    let mut at = None;
    let args = c
        .abi
        .params
        .iter()
        .enumerate()
        .map(|(k, p)| match *p {
            Param::Buffer { binding: 0, .. } => {
                at = Some(k);
                Arg::Buffer(out_bytes.clone())
            }
            Param::Buffer { .. } => Arg::Buffer(input.clone()),
            Param::BufferBytes { binding, .. } => Arg::U32(if binding == 0 {
                out_bytes.len() as u32
            } else {
                input.len() as u32
            }),
            Param::PushWord(_) => Arg::U32(0),
        })
        .collect();
    let launch = Launch {
        grid: Dim3::new(1, 1, 1),
        block: Dim3::new(local, 1, 1),
        dynamic_shared: 0,
        args,
    };
    let out = tangle_sim::run(&kernel, &launch, &options()).ok()?;
    let got = words_of(&out, at?);
    (out.hazards_total == 0 && got[..reference.len()] == *reference)
        .then(|| (cycles(&out), c.code.insts.len()))
}

/// ptxas's cycles, if its code ran hazard-free and agreed with the reference.
fn theirs(cubin: &[u8], seed: u64, program: &Program, reference: &[u32]) -> Option<u64> {
    let kernel = tangle_sim::load(cubin, &kernel_name(seed)).ok()?;
    let launch = Launch {
        grid: Dim3::new(1, 1, 1),
        block: Dim3::new(program.local_size, 1, 1),
        dynamic_shared: 0,
        args: vec![
            Arg::Buffer(vec![0; (reference.len() * 4 + 64) * 4]),
            Arg::Buffer(INPUT.iter().flat_map(|w| w.to_le_bytes()).collect()),
        ],
    };
    let out = tangle_sim::run(&kernel, &launch, &options()).ok()?;
    let got = words_of(&out, 0);
    (out.hazards_total == 0 && judge(program, reference, &got) == Verdict::Agree)
        .then(|| cycles(&out))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(20);
    let archs: Vec<Arch> = match args.get(1) {
        Some(list) => list.split(',').map(|a| a.parse().expect("an SM")).collect(),
        None => Arch::ALL.to_vec(),
    };
    let nvcc = nvcc::locate_nvcc().expect("nvcc");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let programs: Vec<Program> = (0..n)
        .map(|seed| {
            generate(
                seed,
                GenConfig {
                    nesting: 2 + seed as u32 % 4,
                    ..GenConfig::default()
                },
            )
        })
        .collect();
    let source = translation_unit(
        programs
            .iter()
            .enumerate()
            .map(|(s, p)| (s as u64, p, options_of(s as u64))),
    );
    let cubins = nvcc::compile_all(&nvcc, &source, &archs, dir.path(), "sched_cycles");
    println!("| SM | programs | conservative | scheduled | ptxas | scheduled / conservative | scheduled / ptxas | our instructions |");
    println!("|---|---|---|---|---|---|---|---|");
    for (arch, cubin) in archs.iter().zip(cubins) {
        let cubin = cubin.expect("nvcc compiles the programs");
        let (mut counted, mut none_c, mut list_c, mut ptxas_c, mut insts) = (0, 0, 0, 0, 0);
        for (seed, program) in programs.iter().enumerate() {
            let Ok(reference) = reference_words(program) else {
                continue;
            };
            let module = build_module(program);
            let build = |sched| {
                let opts = CompileOptions {
                    sched,
                    ..CompileOptions::new(*arch)
                };
                compile(&module, "main", &opts).ok()
            };
            let (Some(none), Some(list)) = (build(Sched::None), build(Sched::List)) else {
                continue;
            };
            let local = program.local_size;
            let (Some((a, _)), Some((b, k)), Some(c)) = (
                ours(&none, &reference, local),
                ours(&list, &reference, local),
                theirs(&cubin, seed as u64, program, &reference),
            ) else {
                continue;
            };
            counted += 1;
            none_c += a;
            list_c += b;
            ptxas_c += c;
            insts += k;
        }
        println!(
            "| {arch} | {counted} | {none_c} | {list_c} | {ptxas_c} | {:.3} | {:.3} | {insts} |",
            list_c as f64 / none_c.max(1) as f64,
            list_c as f64 / ptxas_c.max(1) as f64,
        );
    }
}
