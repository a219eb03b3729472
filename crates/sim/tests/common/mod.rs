//! Shared by the simulator's tests: compiling CUDA for every SM (one nvcc call per SM, all
//! SMs in parallel) and running a kernel under every policy.

#![allow(dead_code)]

use std::path::Path;

use tangle_oracle::{require, scratch_dir, Tool};
use tangle_sass::Arch;
use tangle_sim::{Arg, BarrierModel, Dim3, Kernel, Launch, Options, RunOutput, SimError};

/// Compiles `src` with `nvcc -cubin -O3` for every supported SM; `None` when nvcc is
/// missing outside CI (the test then prints SKIPPED).
pub fn compile_every_sm(src: &Path, test: &str) -> Option<Vec<(Arch, Vec<u8>)>> {
    let nvcc = require(Tool::Nvcc, test)?;
    let dir = scratch_dir();
    let out: Vec<(Arch, Vec<u8>)> = std::thread::scope(|s| {
        let handles: Vec<_> = Arch::ALL
            .iter()
            .map(|&arch| {
                let nvcc = &nvcc;
                let dir = dir.path();
                s.spawn(move || {
                    let cubin = dir.join(format!("k_{}.cubin", arch.number()));
                    let mut args: Vec<std::ffi::OsString> = vec![
                        "-cubin".into(),
                        "-O3".into(),
                        format!("-arch=sm_{}", arch.number()).into(),
                        "-o".into(),
                        cubin.clone().into(),
                    ];
                    args.push(src.into());
                    nvcc.run_ok(&args);
                    (arch, std::fs::read(&cubin).expect("nvcc wrote the cubin"))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("nvcc thread"))
            .collect()
    });
    Some(out)
}

/// Every policy `all` names for the simulator.
pub fn policies() -> Vec<tangle_sched::Policy> {
    tangle_sched::expand("all", "SASS simulator", &tangle_sim::SUPPORTED).expect("all")
}

/// Runs `kernel` with `args` on `grid` blocks of `block` threads, in hazard mode: a run
/// that finds a hazard in ptxas's own control codes is an error here.
pub fn run(
    k: &Kernel,
    grid: u32,
    block: u32,
    args: Vec<Arg>,
    policy: tangle_sched::Policy,
    model: BarrierModel,
) -> Result<RunOutput, SimError> {
    let launch = Launch {
        grid: Dim3::new(grid, 1, 1),
        block: Dim3::new(block, 1, 1),
        dynamic_shared: 0,
        args,
    };
    let mut o = Options::new(policy);
    o.model = model;
    o.step_budget = 2_000_000;
    o.hazards = true;
    let out = tangle_sim::run(k, &launch, &o)?;
    assert!(
        out.hazards.is_empty(),
        "{} under {policy}: hazards in ptxas's code: {:?}",
        k.name,
        out.hazards
    );
    Ok(out)
}

/// Little-endian bytes of 32-bit values.
pub fn bytes_i32(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// 32-bit values of little-endian bytes.
pub fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
