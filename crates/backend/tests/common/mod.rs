//! Shared helpers of the back end's tests: compiling a module and running it on the SASS
//! simulator in hazard mode.

#![allow(dead_code)]

use tangle_backend::{compile, CompileOptions, Compiled, Param};
use tangle_ir::Module;
use tangle_reconverge::Scheme;
use tangle_sass::Arch;
use tangle_sched::Policy;
use tangle_sim::{Arg, Dim3, Kernel, Launch, Options, RunOutput};

/// Compiles `module`'s `main` for `arch` under `scheme`.
pub fn build(module: &Module, arch: Arch, scheme: Scheme) -> Compiled {
    let opts = CompileOptions {
        scheme,
        ..CompileOptions::new(arch)
    };
    compile(module, "main", &opts).unwrap_or_else(|e| panic!("{arch}: {e}"))
}

/// Compiles `module`'s `main` for `arch` under tangle's scopes with `push_bytes` bytes of
/// push constants.
pub fn build_with_push(module: &Module, arch: Arch, push_bytes: u32) -> Compiled {
    let opts = CompileOptions {
        push_bytes,
        ..CompileOptions::new(arch)
    };
    compile(module, "main", &opts).unwrap_or_else(|e| panic!("{arch}: {e}"))
}

/// Runs `c` with the buffers of (set 0, binding k) = `buffers[k]`, one workgroup, in hazard
/// mode under `policy`.
pub fn simulate(c: &Compiled, buffers: &[Vec<u8>], policy: Policy) -> Result<RunOutput, String> {
    let mut kernel = Kernel::from_words(c.arch, &c.name, &c.code.words, &c.abi.sizes());
    kernel.static_shared = 0;
    let args = c
        .abi
        .params
        .iter()
        .map(|p| match *p {
            Param::Buffer { binding, .. } => {
                Arg::Buffer(buffers.get(binding as usize).cloned().unwrap_or_default())
            }
            Param::BufferBytes { binding, .. } => {
                Arg::U32(buffers.get(binding as usize).map_or(0, |b| b.len() as u32))
            }
            Param::PushWord(_) => Arg::U32(0),
        })
        .collect();
    let [x, y, z] = c.workgroup_size;
    let launch = Launch {
        grid: Dim3::new(1, 1, 1),
        block: Dim3::new(x, y, z),
        dynamic_shared: 0,
        args,
    };
    let mut o = Options::new(policy);
    o.hazards = true;
    tangle_sim::run(&kernel, &launch, &o).map_err(|e| e.to_string())
}

/// The buffer of binding `b` after a run.
pub fn buffer(c: &Compiled, out: &RunOutput, binding: u32) -> Vec<u8> {
    let i = c
        .abi
        .params
        .iter()
        .position(|p| {
            *p == Param::Buffer {
                set: 0,
                binding,
                element: 0,
            }
        })
        .expect("binding");
    out.buffers[i].clone().unwrap_or_default()
}
