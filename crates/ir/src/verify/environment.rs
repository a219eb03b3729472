//! Rules of the target environment (Vulkan 1.1 and later, compute) and of the module's SPIR-V
//! version: the scopes Vulkan allows, instructions the compute execution model cannot
//! execute, what entry point interfaces may list, the capabilities the memory model and
//! storage capabilities need, and loop controls newer than the module's version.

use spirv::{Capability, LoopControl, MemorySemantics, Scope, StorageClass};

use super::{Location, Point, Rule, Sink};
use crate::module::{Merge, Module, Terminator};
use crate::ops::Op;

pub(super) fn check(module: &Module, sink: &mut Sink) {
    check_capabilities(module, sink);
    check_interfaces(module, sink);
    for (f, func) in module.funcs.iter() {
        let reachable = module
            .entry_points
            .iter()
            .any(|e| crate::cfg::call_graph_reaches(module, e.func, f));
        for &b in &func.layout {
            let Some(block) = func.blocks.get(b) else {
                continue;
            };
            for (k, &i) in block.insts.iter().enumerate() {
                let Some(inst) = func.insts.get(i) else {
                    continue;
                };
                let loc = Location {
                    func: Some(f),
                    block: Some(b),
                    point: Some(Point::Inst(k)),
                    value: inst.result,
                };
                check_scopes(&inst.op, loc, sink);
            }
            let loc = Location {
                func: Some(f),
                block: Some(b),
                point: Some(Point::Terminator),
                value: None,
            };
            if reachable {
                check_terminator(&block.term, loc, sink);
            }
            if let Some(Merge::Loop { control, .. }) = &block.merge {
                check_loop_control(module, *control, loc, sink);
            }
        }
    }
}

fn has(module: &Module, cap: Capability) -> bool {
    super::declares(module, cap)
}

fn has_extension(module: &Module, name: &str) -> bool {
    module.extensions.iter().any(|x| x == name)
}

fn check_capabilities(module: &Module, sink: &mut Sink) {
    let at = Location::default();
    if !has(module, Capability::Shader) {
        sink.report(
            Rule::Module,
            at,
            "the GLSL450 memory model and GLCompute entry points need capability Shader",
        );
    }
    // Storage capabilities that entered core SPIR-V later than the module's version need
    // their extension (Vulkan's capability table).
    let storage: [(&[Capability], &str, (u8, u8)); 2] = [
        (
            &[
                Capability::StorageBuffer8BitAccess,
                Capability::UniformAndStorageBuffer8BitAccess,
                Capability::StoragePushConstant8,
            ],
            "SPV_KHR_8bit_storage",
            (1, 5),
        ),
        (
            &[
                Capability::StorageBuffer16BitAccess,
                Capability::UniformAndStorageBuffer16BitAccess,
                Capability::StoragePushConstant16,
            ],
            "SPV_KHR_16bit_storage",
            (1, 3),
        ),
    ];
    for (caps, extension, core) in storage {
        for &cap in caps {
            if has(module, cap) && module.version < core && !has_extension(module, extension) {
                sink.report(
                    Rule::Module,
                    at,
                    format!(
                        "capability {cap:?} needs extension {extension} before SPIR-V {}.{}",
                        core.0, core.1
                    ),
                );
            }
        }
    }
}

/// Up to SPIR-V 1.3, entry point interfaces list only Input and Output variables; from 1.4
/// on they list every global the entry point uses, each once.
fn check_interfaces(module: &Module, sink: &mut Sink) {
    if module.version >= (1, 4) {
        for e in &module.entry_points {
            for (k, g) in e.interface.iter().enumerate() {
                if e.interface[..k].contains(g) {
                    sink.report(
                        Rule::Module,
                        Location::default(),
                        format!(
                            "entry point {:?}: {g} is listed twice in the interface",
                            e.name
                        ),
                    );
                }
            }
        }
        return;
    }
    for e in &module.entry_points {
        for g in &e.interface {
            let Some(data) = module.globals.get(*g) else {
                continue;
            };
            if !matches!(data.storage, StorageClass::Input | StorageClass::Output) {
                sink.report(
                    Rule::Module,
                    Location::default(),
                    format!(
                        "entry point {:?}: in SPIR-V 1.3 and earlier an interface lists only \
                         Input and Output variables, not {g} ({:?})",
                        e.name, data.storage
                    ),
                );
            }
        }
    }
}

/// Vulkan's limits on scopes: group operations run at subgroup scope, control barriers at
/// workgroup or subgroup scope, and no memory scope is cross-device.
fn check_scopes(op: &Op, loc: Location, sink: &mut Sink) {
    let mut memory = None;
    let semantics: Vec<MemorySemantics> = match op {
        Op::ControlBarrier { semantics, .. } | Op::MemoryBarrier { semantics, .. } => {
            vec![*semantics]
        }
        Op::Atomic {
            semantics, unequal, ..
        } => vec![*semantics, *unequal],
        _ => Vec::new(),
    };
    let ordered =
        MemorySemantics::ACQUIRE | MemorySemantics::RELEASE | MemorySemantics::ACQUIRE_RELEASE;
    let storage = MemorySemantics::UNIFORM_MEMORY
        | MemorySemantics::WORKGROUP_MEMORY
        | MemorySemantics::IMAGE_MEMORY
        | MemorySemantics::OUTPUT_MEMORY;
    if semantics
        .iter()
        .any(|s| s.intersects(ordered) && !s.intersects(storage))
    {
        sink.report(
            Rule::Module,
            loc,
            format!(
                "{}: in a Vulkan environment an acquire or release needs a storage class \
                 bit (uniform, workgroup, image or output memory)",
                op.mnemonic()
            ),
        );
    }
    match op {
        // The core rule (subgroup or workgroup) is the typing pass's; a workgroup scope is
        // Vulkan's to refuse.
        Op::Group { op, scope, .. } if *scope == Scope::Workgroup => sink.report(
            Rule::Module,
            loc,
            format!(
                "{}: in a Vulkan environment the execution scope of group operations is \
                 Subgroup",
                op.name()
            ),
        ),
        Op::ControlBarrier {
            exec, memory: m, ..
        } => {
            if !matches!(exec, Scope::Workgroup | Scope::Subgroup) {
                sink.report(
                    Rule::Module,
                    loc,
                    format!(
                        "control_barrier: in a Vulkan environment the execution scope is \
                         Workgroup or Subgroup, not {exec:?}"
                    ),
                );
            }
            memory = Some(*m);
        }
        Op::MemoryBarrier { memory: m, .. } => memory = Some(*m),
        Op::Atomic { scope, .. } => memory = Some(*scope),
        _ => {}
    }
    if memory == Some(Scope::CrossDevice) {
        sink.report(
            Rule::Module,
            loc,
            format!(
                "{}: in a Vulkan environment the memory scope cannot be CrossDevice",
                op.mnemonic()
            ),
        );
    }
}

/// `OpKill` and `OpTerminateInvocation` need the Fragment execution model; every entry point
/// tangle reads is GLCompute.
fn check_terminator(term: &Terminator, loc: Location, sink: &mut Sink) {
    let name = match term {
        Terminator::Kill => "kill",
        Terminator::TerminateInvocation => "terminate",
        _ => return,
    };
    sink.report(
        Rule::Module,
        loc,
        format!("`{name}` needs the Fragment execution model, and this function is called from a GLCompute entry point"),
    );
}

/// Loop controls by the SPIR-V version that introduced them, and not both unroll hints.
fn check_loop_control(module: &Module, control: LoopControl, loc: Location, sink: &mut Sink) {
    if control.contains(LoopControl::UNROLL | LoopControl::DONT_UNROLL) {
        sink.report(
            Rule::Module,
            loc,
            "loop controls unroll and dont_unroll must not both be given",
        );
    }
    let since: [(LoopControl, (u8, u8)); 7] = [
        (LoopControl::DEPENDENCY_INFINITE, (1, 1)),
        (LoopControl::DEPENDENCY_LENGTH, (1, 1)),
        (LoopControl::MIN_ITERATIONS, (1, 4)),
        (LoopControl::MAX_ITERATIONS, (1, 4)),
        (LoopControl::ITERATION_MULTIPLE, (1, 4)),
        (LoopControl::PEEL_COUNT, (1, 4)),
        (LoopControl::PARTIAL_COUNT, (1, 4)),
    ];
    for (bit, version) in since {
        if control.contains(bit) && module.version < version {
            sink.report(
                Rule::Module,
                loc,
                format!(
                    "loop control {bit:?} needs SPIR-V {}.{} (the module is {}.{})",
                    version.0, version.1, module.version.0, module.version.1
                ),
            );
        }
    }
}
