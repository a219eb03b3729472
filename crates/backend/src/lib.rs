//! tangle's back end: from a shader's lowered IR (the reconvergence lowering's output) to
//! SASS for SM75-SM90.
//!
//! The pipeline (`docs/backend.md`): [`isel`] selects typed SASS operations on virtual
//! registers ([`mir`], checked by [`verify`]); [`regalloc`] hands it to the SSA register
//! allocator (`tangle-regalloc`) and writes its registers, moves, spills and fills back as
//! machine code on physical registers ([`assign`], the earlier stand-in, stays as a
//! baseline for register counts); [`emit`] lays the code out and [`control`] gives every
//! instruction conservative control codes from the measured latency tables; [`sched`] then
//! reorders each straight-line region with a list scheduler and computes the control codes
//! from the schedule (unless [`Sched::None`] keeps the conservative ones). [`compile`] runs
//! it all; [`abi`] says where the shader's buffers and push constants are among the kernel
//! parameters.

pub mod abi;
pub mod assign;
pub mod control;
pub mod emit;
pub mod error;
pub mod isel;
pub mod mir;
pub mod regalloc;
pub mod sched;
pub mod verify;

use std::collections::BTreeMap;

use tangle_ir::Module;
use tangle_reconverge::{lower_module, LowerOptions, Scheme};
use tangle_sass::Arch;

pub use abi::{Abi, Param};
pub use emit::Code;
pub use error::CompileError;
pub use regalloc::AllocStats;
pub use sched::{Notes, Sched};
pub use tangle_regalloc::Limits as RegLimits;

/// The passes whose output `--print-after` can show, in order.
pub const PASSES: [&str; 5] = ["lower", "isel", "regalloc", "emit", "sched"];

/// Which register allocator assigns registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allocator {
    /// The SSA allocator of `tangle-regalloc`, with spilling (the default).
    Ssa,
    /// The earlier stand-in ([`assign`]): phis to copies, greedy colouring, no spilling.
    /// Kept as the baseline the SSA allocator's register counts are compared with.
    StandIn,
}

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
    /// The register allocator.
    pub allocator: Allocator,
    /// How many registers of each file the allocator may use (lower limits force spills).
    pub reg_limits: RegLimits,
    /// Whether the allocator's symbolic checker judges every allocation (on by default in
    /// debug builds, so in every test: the verifier after every pass).
    pub check_allocation: bool,
    /// Scheduling and control codes: the list scheduler, or the conservative codes.
    pub sched: Sched,
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
            allocator: Allocator::Ssa,
            reg_limits: RegLimits::HARDWARE,
            check_allocation: cfg!(debug_assertions),
            sched: Sched::List,
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
    /// Figures of the SSA allocation (`None` under the stand-in).
    pub alloc_stats: Option<AllocStats>,
    /// The text after each pass of [`PASSES`].
    pub stages: Vec<(&'static str, String)>,
    /// Why the scheduled control codes are what they are (`None` under [`Sched::None`]).
    pub notes: Option<Notes>,
}

/// A kernel after instruction selection: the machine form and what it needs in memory.
#[derive(Clone, Debug)]
pub struct Selected {
    /// The machine form (SSA, verified).
    pub mf: mir::MFunc,
    /// The parameters.
    pub abi: Abi,
    /// The workgroup size.
    pub workgroup_size: [u32; 3],
    /// Local memory of the kernel's variables, in bytes.
    pub local_bytes: u32,
    /// Static shared memory in bytes.
    pub shared_bytes: u32,
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

/// Selects entry point `entry` of an already lowered module: the verified machine form
/// (with no knowledge of its uniformity: nothing is written to a uniform register).
pub fn select(
    lowered: &Module,
    entry: &str,
    opts: &CompileOptions,
) -> Result<Selected, CompileError> {
    select_as(lowered, entry, opts, false)
}

/// [`select`], told whether the warp never splits (`converged`).
fn select_as(
    lowered: &Module,
    entry: &str,
    opts: &CompileOptions,
    converged: bool,
) -> Result<Selected, CompileError> {
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
    check(&mf, verify::Stage::Ssa, "isel")?;
    Ok(Selected {
        mf,
        abi,
        workgroup_size,
        local_bytes,
        shared_bytes,
    })
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
    let sel = select_as(lowered, entry, opts, converged)?;
    stages.push(("isel", sel.mf.to_string()));
    let (mf, asg, local_bytes, alloc_stats) = match opts.allocator {
        Allocator::Ssa => {
            let a = regalloc::run(
                &sel.mf,
                opts.arch,
                sel.local_bytes,
                opts.reg_limits,
                opts.check_allocation,
            )?;
            stages.push(("regalloc", a.listing));
            check(&a.mf, verify::Stage::Copies, "register allocation")?;
            (a.mf, a.asg, a.frame_bytes, Some(a.stats))
        }
        Allocator::StandIn => {
            let mut mf = sel.mf;
            assign::eliminate_phis(&mut mf);
            stages.push(("regalloc", mf.to_string()));
            check(&mf, verify::Stage::Copies, "phi elimination")?;
            let asg = assign::assign(&mf)?;
            (mf, asg, sel.local_bytes, None)
        }
    };
    let mut code = emit::emit(&mf, &asg, opts.arch, local_bytes)?;
    stages.push(("emit", emit::text(&code, opts.arch, true)?));
    let notes = match opts.sched {
        Sched::None => None,
        Sched::List => {
            let notes = sched::schedule(opts.arch, &mut code.insts)?;
            code.words = sched::encode(opts.arch, &code.insts)?;
            Some(notes)
        }
    };
    stages.push(("sched", emit::text(&code, opts.arch, true)?));
    Ok(Compiled {
        name: entry.to_string(),
        arch: opts.arch,
        abi: sel.abi,
        code,
        workgroup_size: sel.workgroup_size,
        gprs: asg.gprs,
        barriers: asg.barriers,
        local_bytes,
        shared_bytes: sel.shared_bytes,
        alloc_stats,
        stages,
        notes,
    })
}

impl Compiled {
    /// The kernel as a cubin (`tangle-cubin`): its code, its parameters, its local frame
    /// and its workgroup size as the required block size.
    pub fn cubin(&self) -> Result<Vec<u8>, CompileError> {
        tangle_cubin::write(self.arch, &[self.cubin_kernel()])
            .map_err(|e| CompileError::Internal(format!("the cubin writer refused: {e}")))
    }

    /// The kernel as the cubin writer takes it (several may share one cubin, given
    /// distinct names).
    pub fn cubin_kernel(&self) -> tangle_cubin::Kernel {
        let mut k = tangle_cubin::Kernel::new(self.name.clone(), self.code.words.clone())
            .with_param_sizes(&self.abi.sizes());
        k.local_frame = self.local_bytes.div_ceil(8) * 8;
        k.shared_bytes = self.shared_bytes;
        k.reqntid = Some(self.workgroup_size);
        k
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
