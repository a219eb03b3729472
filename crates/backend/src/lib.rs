//! tangle's back end: from a shader's lowered IR (the reconvergence lowering's output) to
//! SASS for SM75-SM90.
//!
//! The pipeline (`docs/backend.md`): [`isel`] selects typed SASS operations on virtual
//! registers ([`mir`], checked by [`verify`]); [`assign`] eliminates phis and gives every
//! virtual register a physical one (a stand-in until the SSA allocator lands); [`emit`]
//! lays the code out and [`control`] gives every instruction conservative control codes
//! from the measured latency tables. [`compile`] runs it all; [`abi`] says where the
//! shader's buffers and push constants are among the kernel parameters.

pub mod abi;
pub mod assign;
pub mod control;
pub mod emit;
pub mod error;
pub mod isel;
pub mod mir;
pub mod verify;

use std::collections::BTreeMap;

use tangle_ir::Module;
use tangle_reconverge::{lower_module, LowerOptions, Scheme};
use tangle_sass::Arch;

pub use abi::{Abi, Param};
pub use emit::Code;
pub use error::CompileError;

/// The passes whose output `--print-after` can show, in order.
pub const PASSES: [&str; 4] = ["lower", "isel", "phis", "emit"];

/// How to compile.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// The target SM.
    pub arch: Arch,
    /// The reconvergence lowering's barrier placement.
    pub scheme: Scheme,
    /// Specialization constant values by `SpecId` (bit patterns), folded into the code.
    pub spec: BTreeMap<u32, u64>,
    /// Bytes of push constants the kernel takes (each 4 bytes a parameter).
    pub push_bytes: u32,
    /// The subgroup size asked for (only 32 is accepted).
    pub subgroup_size: u32,
}

impl CompileOptions {
    /// Options for `arch` with tangle's lowering, no specialization and no push constants.
    pub fn new(arch: Arch) -> CompileOptions {
        CompileOptions {
            arch,
            scheme: Scheme::Scopes,
            spec: BTreeMap::new(),
            push_bytes: 0,
            subgroup_size: 32,
        }
    }
}

/// A compiled kernel.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The kernel's name (the entry point's).
    pub name: String,
    /// The target.
    pub arch: Arch,
    /// Its parameters.
    pub abi: Abi,
    /// The code.
    pub code: Code,
    /// The workgroup size (the CUDA block).
    pub workgroup_size: [u32; 3],
    /// General registers used (one past the highest).
    pub gprs: u32,
    /// Convergence barriers used.
    pub barriers: u32,
    /// Local memory per invocation in bytes.
    pub local_bytes: u32,
    /// Static shared memory in bytes (without SM90's reserved 0x400).
    pub shared_bytes: u32,
    /// The text after each pass of [`PASSES`].
    pub stages: Vec<(&'static str, String)>,
}

/// Compiles entry point `entry` of the structured `module`.
pub fn compile(
    module: &Module,
    entry: &str,
    opts: &CompileOptions,
) -> Result<Compiled, CompileError> {
    if opts.subgroup_size != 32 {
        return Err(CompileError::SubgroupSize(opts.subgroup_size));
    }
    let lowered = lower_module(
        module,
        &LowerOptions {
            scheme: opts.scheme,
            ..LowerOptions::default()
        },
    )
    .map_err(|e| CompileError::Lower(e.to_string()))?;
    // Whether no function branches divergently: then the warp runs as one group from
    // entry to exit, and uniform registers may hold per-group results (REDUX).
    let uniformity = tangle_reconverge::Uniformity::analyse(module);
    let converged = module.funcs.iter().all(|(f, _)| {
        uniformity
            .function(f)
            .is_none_or(|u| u.divergent_branches().next().is_none())
    });
    compile_lowered_as(&lowered, entry, opts, converged)
}

/// Compiles entry point `entry` of an already lowered module (with no knowledge of its
/// uniformity: nothing is written to a uniform register).
pub fn compile_lowered(
    lowered: &Module,
    entry: &str,
    opts: &CompileOptions,
) -> Result<Compiled, CompileError> {
    compile_lowered_as(lowered, entry, opts, false)
}

/// [`compile_lowered`], told whether the warp never splits (`converged`).
fn compile_lowered_as(
    lowered: &Module,
    entry: &str,
    opts: &CompileOptions,
    converged: bool,
) -> Result<Compiled, CompileError> {
    let mut stages = vec![("lower", tangle_ir::text::print(lowered))];
    let ep = lowered
        .entry_points
        .iter()
        .find(|e| e.name == entry)
        .ok_or_else(|| CompileError::Input(format!("no entry point named `{entry}`")))?;
    if ep.model != spirv::ExecutionModel::GLCompute {
        return Err(CompileError::Input(format!(
            "entry point `{entry}` is not a compute shader"
        )));
    }
    let consts =
        tangle_lanes::constants::evaluate(lowered, &opts.spec).map_err(CompileError::Input)?;
    let workgroup_size = tangle_lanes::builtins::workgroup_size(lowered, ep, &consts)
        .map_err(CompileError::Input)?;
    let abi = Abi::new(lowered, opts.arch, opts.push_bytes);
    let iopts = isel::IselOptions {
        arch: opts.arch,
        abi: abi.clone(),
        consts,
        workgroup_size,
        converged,
    };
    let (mut mf, local_bytes, shared_bytes) = isel::Isel::run(lowered, ep.func, &iopts)?;
    mf.name = entry.to_string();
    stages.push(("isel", mf.to_string()));
    check(&mf, verify::Stage::Ssa, "isel")?;
    assign::eliminate_phis(&mut mf);
    stages.push(("phis", mf.to_string()));
    check(&mf, verify::Stage::Copies, "phi elimination")?;
    let asg = assign::assign(&mf)?;
    let code = emit::emit(&mf, &asg, opts.arch, local_bytes)?;
    stages.push(("emit", emit::text(&code, opts.arch, true)?));
    Ok(Compiled {
        name: entry.to_string(),
        arch: opts.arch,
        abi,
        code,
        workgroup_size,
        gprs: asg.gprs,
        barriers: asg.barriers,
        local_bytes,
        shared_bytes,
        stages,
    })
}

impl Compiled {
    /// The kernel as a cubin (`tangle-cubin`): its code, its parameters, its local frame
    /// and its workgroup size as the required block size.
    pub fn cubin(&self) -> Result<Vec<u8>, CompileError> {
        let mut k = tangle_cubin::Kernel::new(self.name.clone(), self.code.words.clone())
            .with_param_sizes(&self.abi.sizes());
        k.local_frame = self.local_bytes.div_ceil(8) * 8;
        k.shared_bytes = self.shared_bytes;
        k.reqntid = Some(self.workgroup_size);
        tangle_cubin::write(self.arch, &[k])
            .map_err(|e| CompileError::Internal(format!("the cubin writer refused: {e}")))
    }
}

fn check(mf: &mir::MFunc, stage: verify::Stage, after: &str) -> Result<(), CompileError> {
    let errs = verify::verify(mf, stage);
    if errs.is_empty() {
        Ok(())
    } else {
        Err(CompileError::Internal(format!(
            "the machine form is invalid after {after}:\n{}",
            errs.join("\n")
        )))
    }
}
