//! Built-in variables and constants (the Vulkan rules for compute): the capability each
//! built-in needs, its type, its storage class, whether GLCompute may use it at all, and one
//! variable per built-in in each entry point's interface.

use crate::hash::FxHashMap;

use spirv::{BuiltIn, Capability, StorageClass};

use super::{Location, Rule, Sink};
use crate::module::{EntryPoint, Global, Module, Operand};
use crate::types::{Type, TypeData};

/// The shape of a compute built-in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// A 32-bit integer scalar.
    Scalar,
    /// A vector of `n` 32-bit integers.
    Vector(u8),
}

impl Shape {
    fn describe(self) -> String {
        match self {
            Shape::Scalar => "a 32-bit int scalar".into(),
            Shape::Vector(n) => format!("a {n}-component 32-bit int vector"),
        }
    }
}

/// The built-ins GLCompute may use, with their shape and the capabilities (any one) that
/// the `BuiltIn` decoration needs.
fn compute_builtin(b: BuiltIn) -> Option<(Shape, &'static [Capability])> {
    use BuiltIn::*;
    const NONE: &[Capability] = &[];
    const BASIC: &[Capability] = &[
        Capability::Kernel,
        Capability::GroupNonUniform,
        Capability::SubgroupBallotKHR,
    ];
    const BALLOT: &[Capability] = &[
        Capability::GroupNonUniformBallot,
        Capability::SubgroupBallotKHR,
    ];
    Some(match b {
        NumWorkgroups | WorkgroupSize | WorkgroupId | LocalInvocationId | GlobalInvocationId => {
            (Shape::Vector(3), NONE)
        }
        LocalInvocationIndex => (Shape::Scalar, NONE),
        SubgroupSize | SubgroupLocalInvocationId => (Shape::Scalar, BASIC),
        NumSubgroups | SubgroupId => (
            Shape::Scalar,
            &[Capability::Kernel, Capability::GroupNonUniform],
        ),
        SubgroupEqMask | SubgroupGeMask | SubgroupGtMask | SubgroupLeMask | SubgroupLtMask => {
            (Shape::Vector(4), BALLOT)
        }
        _ => return None,
    })
}

/// Built-ins only OpenCL kernels have: their decoration needs capability `Kernel`.
fn kernel_only(b: BuiltIn) -> bool {
    use BuiltIn::*;
    matches!(
        b,
        WorkDim
            | GlobalSize
            | EnqueuedWorkgroupSize
            | GlobalOffset
            | GlobalLinearId
            | SubgroupMaxSize
            | NumEnqueuedSubgroups
    )
}

fn fits(module: &Module, ty: Type, shape: Shape) -> bool {
    let types = &module.types;
    let int32 = |t: Type| matches!(types.get(t), TypeData::Int { width: 32, .. });
    match (shape, types.get(ty)) {
        (Shape::Scalar, _) => int32(ty),
        (Shape::Vector(n), TypeData::Vector { elem, count }) => *count == n && int32(*elem),
        _ => false,
    }
}

pub(super) fn check(module: &Module, sink: &mut Sink) {
    let at = Location::default();
    let has =
        |caps: &[Capability]| caps.is_empty() || caps.iter().any(|c| super::declares(module, *c));
    for (g, data) in module.globals.iter() {
        let Some(b) = data.decorations.builtin else {
            continue;
        };
        let what = format!("{g} (BuiltIn {b:?})");
        if kernel_only(b) && !has(&[Capability::Kernel]) {
            sink.report(
                Rule::Module,
                at,
                format!("{what}: the decoration needs capability Kernel"),
            );
            continue;
        }
        if b == BuiltIn::WorkgroupSize {
            sink.report(
                Rule::Module,
                at,
                format!("{what}: WorkgroupSize decorates a constant, not a variable"),
            );
            continue;
        }
        let referenced = module.entry_points.iter().any(|e| references(module, e, g));
        let Some((shape, caps)) = compute_builtin(b) else {
            if referenced {
                sink.report(
                    Rule::Module,
                    at,
                    format!("{what}: Vulkan does not allow this built-in in GLCompute"),
                );
            }
            continue;
        };
        if !has(caps) {
            let names: Vec<String> = caps.iter().map(|c| format!("{c:?}")).collect();
            sink.report(
                Rule::Module,
                at,
                format!(
                    "{what}: the decoration needs capability {}",
                    names.join(" or ")
                ),
            );
        }
        if let Some((_, pointee)) = module.types.pointer(data.ty) {
            if !fits(module, pointee, shape) {
                sink.report(
                    Rule::Module,
                    at,
                    format!("{what}: the variable must be {}", shape.describe()),
                );
            }
        }
        if referenced && data.storage != StorageClass::Input {
            sink.report(
                Rule::Module,
                at,
                format!(
                    "{what}: Vulkan allows this built-in only in the Input storage class, not {:?}",
                    data.storage
                ),
            );
        }
    }
    for (c, data) in module.consts.iter() {
        if let (Some(BuiltIn::WorkgroupSize), crate::module::ConstValue::Composite(parts)) =
            (data.builtin, &data.value)
        {
            // A specialization composite may still be given other sizes (spirv-val too
            // checks only constant composites).
            let fixed = !data.spec;
            let zero = parts.iter().any(|p| {
                module.consts.get(*p).is_some_and(|k| {
                    !k.spec && matches!(k.value, crate::module::ConstValue::Bits(0))
                })
            });
            if fixed && zero {
                sink.report(
                    Rule::Module,
                    at,
                    format!("{c} (BuiltIn WorkgroupSize): a component is 0, so the workgroup has no invocations"),
                );
            }
        }
        if data.builtin == Some(BuiltIn::WorkgroupSize)
            && module.types.contains(data.ty)
            && !fits(module, data.ty, Shape::Vector(3))
        {
            sink.report(
                Rule::Module,
                at,
                format!("{c} (BuiltIn WorkgroupSize): the constant must be a 3-component 32-bit int vector"),
            );
        }
    }
    for e in &module.entry_points {
        let mut seen: FxHashMap<BuiltIn, Global> = FxHashMap::default();
        for g in &e.interface {
            let Some(data) = module.globals.get(*g) else {
                continue;
            };
            let Some(b) = data.decorations.builtin else {
                continue;
            };
            if data.storage != StorageClass::Input {
                continue;
            }
            if let Some(first) = seen.insert(b, *g) {
                if first != *g {
                    sink.report(
                        Rule::Module,
                        at,
                        format!(
                            "entry point {:?}: {first} and {g} are both the BuiltIn {b:?} input",
                            e.name
                        ),
                    );
                }
            }
        }
    }
}

/// Whether entry point `e` lists `g` in its interface or uses it in its call tree.
fn references(module: &Module, e: &EntryPoint, g: Global) -> bool {
    e.interface.contains(&g)
        || module.funcs.iter().any(|(f, func)| {
            crate::cfg::call_graph_reaches(module, e.func, f)
                && func
                    .insts
                    .values()
                    .any(|i| i.args.contains(&Operand::Global(g)))
        })
}
