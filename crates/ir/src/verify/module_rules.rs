//! Module-level rules: types, constants, globals, interface layout, entry points and the
//! capabilities that types need.

use spirv::{BuiltIn, Capability, ExecutionModel, StorageClass};

use super::{Location, Rule, Sink};
use crate::module::{ConstValue, ExecMode, Module, ValueDef};
use crate::types::{Type, TypeData};

pub(super) fn check(module: &Module, sink: &mut Sink) {
    let at = Location::default();
    check_types(module, sink);
    check_consts(module, sink);
    check_globals(module, sink);
    check_entry_points(module, sink);
    if module.memory_model == spirv::MemoryModel::Vulkan
        && !has(module, Capability::VulkanMemoryModel)
    {
        sink.report(
            Rule::Module,
            at,
            "the Vulkan memory model needs capability VulkanMemoryModel",
        );
    }
    for e in &module.entry_points {
        for m in &e.modes {
            if let ExecMode::FloatControl(f, width) = m {
                if !has(module, f.capability()) {
                    sink.report(
                        Rule::Module,
                        at,
                        format!(
                            "execution mode {} {width} needs capability {:?}",
                            f.name(),
                            f.capability()
                        ),
                    );
                }
            }
        }
    }
    if module.entry_points.is_empty() && !module.capabilities.contains(&Capability::Linkage) {
        sink.report(
            Rule::Module,
            at,
            "a module without the Linkage capability needs an entry point",
        );
    }
}

fn has(module: &Module, cap: Capability) -> bool {
    super::declares(module, cap)
}

fn check_types(module: &Module, sink: &mut Sink) {
    let types = &module.types;
    let at = Location::default();
    for (ty, data) in types.iter() {
        let exists = |t: Type| types.contains(t);
        match data {
            TypeData::Int { width, .. } => {
                let need = match width {
                    8 => Some(Capability::Int8),
                    16 => Some(Capability::Int16),
                    64 => Some(Capability::Int64),
                    _ => None,
                };
                if let Some(cap) = need {
                    if !has(module, cap) {
                        sink.report(
                            Rule::Module,
                            at,
                            format!("{ty}: {width}-bit integers need capability {cap:?}"),
                        );
                    }
                }
            }
            TypeData::Float { width } => {
                let need = match width {
                    16 => Some(Capability::Float16),
                    64 => Some(Capability::Float64),
                    _ => None,
                };
                if let Some(cap) = need {
                    if !has(module, cap) {
                        sink.report(
                            Rule::Module,
                            at,
                            format!("{ty}: {width}-bit floats need capability {cap:?}"),
                        );
                    }
                }
            }
            TypeData::Vector { elem, count } => {
                if !exists(*elem) {
                    sink.report(
                        Rule::Reference,
                        at,
                        format!("{ty}: element type {elem} does not exist"),
                    );
                } else if !matches!(
                    types.get(*elem),
                    TypeData::Int { .. } | TypeData::Float { .. } | TypeData::Bool
                ) {
                    sink.report(
                        Rule::Type,
                        at,
                        format!("{ty}: vector components must be scalars"),
                    );
                }
                if !(2..=4).contains(count) {
                    sink.report(
                        Rule::Type,
                        at,
                        format!("{ty}: vectors have 2, 3 or 4 components, not {count}"),
                    );
                }
            }
            TypeData::Matrix {
                column,
                count,
                layout,
            } => {
                let column_ok = exists(*column)
                    && matches!(types.get(*column), TypeData::Vector { elem, .. }
                        if exists(*elem) && matches!(types.get(*elem), TypeData::Float { .. }));
                if !column_ok {
                    sink.report(
                        Rule::Type,
                        at,
                        format!("{ty}: matrix columns must be float vectors"),
                    );
                }
                if !(2..=4).contains(count) {
                    sink.report(
                        Rule::Type,
                        at,
                        format!("{ty}: matrices have 2, 3 or 4 columns, not {count}"),
                    );
                }
                if !has(module, Capability::Matrix) {
                    sink.report(
                        Rule::Module,
                        at,
                        format!("{ty}: matrices need capability Matrix"),
                    );
                }
                if let Some(l) = layout {
                    if column_ok && l.stride == 0 {
                        sink.report(Rule::Type, at, format!("{ty}: a matrix stride of 0"));
                    }
                }
            }
            TypeData::StridedVector { vector, .. } => {
                if !exists(*vector) || !matches!(types.get(*vector), TypeData::Vector { .. }) {
                    sink.report(
                        Rule::Type,
                        at,
                        format!("{ty}: a strided vector must name a vector type"),
                    );
                }
            }
            TypeData::Array { elem, len, .. } => {
                if !exists(*elem) {
                    sink.report(
                        Rule::Reference,
                        at,
                        format!("{ty}: element type {elem} does not exist"),
                    );
                } else if matches!(
                    types.get(*elem),
                    TypeData::Void | TypeData::RuntimeArray { .. } | TypeData::Function { .. }
                ) {
                    sink.report(Rule::Type, at, format!("{ty}: bad array element type"));
                }
                if *len == 0 {
                    sink.report(
                        Rule::Type,
                        at,
                        format!("{ty}: arrays need at least one element"),
                    );
                }
            }
            TypeData::RuntimeArray { elem, .. } => {
                if !exists(*elem) {
                    sink.report(
                        Rule::Reference,
                        at,
                        format!("{ty}: element type {elem} does not exist"),
                    );
                }
            }
            TypeData::Struct { members, .. } => {
                for (i, m) in members.iter().enumerate() {
                    if !exists(m.ty) {
                        sink.report(
                            Rule::Reference,
                            at,
                            format!("{ty}: member {i} type {} does not exist", m.ty),
                        );
                        continue;
                    }
                    if matches!(types.get(m.ty), TypeData::Void | TypeData::Function { .. }) {
                        sink.report(
                            Rule::Type,
                            at,
                            format!("{ty}: member {i} cannot be of type {}", m.ty),
                        );
                    }
                    if matches!(types.get(m.ty), TypeData::RuntimeArray { .. })
                        && i + 1 != members.len()
                    {
                        sink.report(
                            Rule::Type,
                            at,
                            format!("{ty}: a runtime array may only be the last member"),
                        );
                    }
                }
            }
            TypeData::Pointer { pointee, .. } => {
                if !exists(*pointee) {
                    sink.report(
                        Rule::Reference,
                        at,
                        format!("{ty}: pointee type {pointee} does not exist"),
                    );
                }
            }
            TypeData::Function { ret, params } => {
                if !exists(*ret) || params.iter().any(|p| !exists(*p)) {
                    sink.report(
                        Rule::Reference,
                        at,
                        format!("{ty}: refers to a missing type"),
                    );
                }
            }
            TypeData::Void | TypeData::Bool | TypeData::Token | TypeData::Barrier => {}
        }
        // Tokens and barriers are SSA values only: nothing holds, stores or points to one.
        let parts: Vec<Type> = match data {
            TypeData::Vector { elem, .. }
            | TypeData::Array { elem, .. }
            | TypeData::RuntimeArray { elem, .. } => vec![*elem],
            TypeData::Struct { members, .. } => members.iter().map(|m| m.ty).collect(),
            TypeData::Pointer { pointee, .. } => vec![*pointee],
            _ => Vec::new(),
        };
        if let Some(part) = parts
            .into_iter()
            .find(|p| exists(*p) && types.get(*p).is_tangle_only())
        {
            sink.report(
                Rule::Type,
                at,
                format!(
                    "{ty}: a {} cannot be part of another type",
                    crate::text::type_ref(types, part)
                ),
            );
        }
    }
}

fn check_consts(module: &Module, sink: &mut Sink) {
    let types = &module.types;
    let at = Location::default();
    for (c, data) in module.consts.iter() {
        if !types.contains(data.ty) {
            sink.report(
                Rule::Reference,
                at,
                format!("{c}: type {} does not exist", data.ty),
            );
            continue;
        }
        let ty = types.get(data.ty);
        // A null pointer (`OpConstantNull` of a pointer type, with `VariablePointers`) is the
        // one pointer constant: a value no access may go through.
        let null_pointer = matches!(ty, TypeData::Pointer { .. }) && data.value == ConstValue::Null;
        if !null_pointer
            && matches!(
                ty,
                TypeData::Void
                    | TypeData::Function { .. }
                    | TypeData::Pointer { .. }
                    | TypeData::Token
                    | TypeData::Barrier
            )
        {
            sink.report(
                Rule::Type,
                at,
                format!("{c}: a constant cannot have type {}", data.ty),
            );
            continue;
        }
        match &data.value {
            ConstValue::Bool(_) => {
                if *ty != TypeData::Bool {
                    sink.report(
                        Rule::Type,
                        at,
                        format!("{c}: a boolean constant must have type bool"),
                    );
                }
            }
            ConstValue::Bits(bits) => match ty {
                TypeData::Int { width, .. } | TypeData::Float { width } => {
                    if *width < 64 && bits >> width != 0 {
                        sink.report(
                            Rule::Type,
                            at,
                            format!("{c}: value has more than {width} bits"),
                        );
                    }
                }
                _ => sink.report(
                    Rule::Type,
                    at,
                    format!("{c}: a numeric constant must have a numeric scalar type"),
                ),
            },
            ConstValue::Composite(parts) => {
                if parts.iter().any(|p| !module.consts.contains(*p) || *p >= c) {
                    sink.report(
                        Rule::Reference,
                        at,
                        format!("{c}: a constituent is not an earlier constant"),
                    );
                    continue;
                }
                let expected: Option<Vec<Type>> = match ty {
                    TypeData::Vector { elem, count } => Some(vec![*elem; usize::from(*count)]),
                    TypeData::Array { elem, len, .. } => Some(vec![*elem; *len as usize]),
                    TypeData::Matrix { column, count, .. } => {
                        Some(vec![*column; usize::from(*count)])
                    }
                    TypeData::Struct { members, .. } => {
                        Some(members.iter().map(|m| m.ty).collect())
                    }
                    _ => None,
                };
                match expected {
                    None => sink.report(
                        Rule::Type,
                        at,
                        format!("{c}: a composite constant needs a composite type"),
                    ),
                    Some(tys) => {
                        let got: Vec<Type> = parts.iter().map(|p| module.consts[*p].ty).collect();
                        if got != tys {
                            sink.report(
                                Rule::Type,
                                at,
                                format!("{c}: constituents do not match the type's components"),
                            );
                        }
                    }
                }
                if !data.spec && parts.iter().any(|p| module.consts[*p].spec) {
                    sink.report(
                        Rule::Type,
                        at,
                        format!(
                            "{c}: a constant composite cannot contain specialization constants"
                        ),
                    );
                }
            }
            ConstValue::Null | ConstValue::Undef => {}
            ConstValue::SpecOp(_, args) => {
                if !data.spec {
                    sink.report(
                        Rule::Type,
                        at,
                        format!("{c}: an operation constant must be a specialization constant"),
                    );
                }
                if args.iter().any(|p| !module.consts.contains(*p) || *p >= c) {
                    sink.report(
                        Rule::Reference,
                        at,
                        format!("{c}: an operand is not an earlier constant"),
                    );
                }
            }
        }
        if data.spec_id.is_some()
            && !(data.spec && matches!(data.value, ConstValue::Bool(_) | ConstValue::Bits(_)))
        {
            sink.report(
                Rule::Module,
                at,
                format!("{c}: spec_id only applies to scalar specialization constants"),
            );
        }
        if let Some(b) = data.builtin {
            if b != BuiltIn::WorkgroupSize {
                sink.report(
                    Rule::Module,
                    at,
                    format!("{c}: only WorkgroupSize may decorate a constant"),
                );
            }
        }
    }
}

fn check_globals(module: &Module, sink: &mut Sink) {
    let types = &module.types;
    let at = Location::default();
    for (g, data) in module.globals.iter() {
        let Some((storage, pointee)) = types
            .contains(data.ty)
            .then(|| types.pointer(data.ty))
            .flatten()
        else {
            sink.report(
                Rule::Type,
                at,
                format!("{g}: a global's type must be a pointer"),
            );
            continue;
        };
        if storage != data.storage {
            sink.report(
                Rule::Type,
                at,
                format!(
                    "{g}: storage class {:?} differs from its pointer's {storage:?}",
                    data.storage
                ),
            );
        }
        match storage {
            StorageClass::Function => {
                sink.report(
                    Rule::Module,
                    at,
                    format!("{g}: Function variables belong inside functions"),
                );
            }
            StorageClass::StorageBuffer | StorageClass::Uniform | StorageClass::PushConstant => {
                let block_struct = match types.get(pointee) {
                    TypeData::Array { elem, .. } | TypeData::RuntimeArray { elem, .. } => *elem,
                    _ => pointee,
                };
                let (block, buffer_block) = match types.get(block_struct) {
                    TypeData::Struct {
                        block,
                        buffer_block,
                        ..
                    } => (*block, *buffer_block),
                    _ => (false, false),
                };
                // `BufferBlock` (SPIR-V before 1.4's storage buffers) belongs behind Uniform
                // variables only, and a struct is one kind of block or the other.
                let fits = match (block, buffer_block) {
                    (true, false) => true,
                    (false, true) => storage == StorageClass::Uniform,
                    _ => false,
                };
                if !fits {
                    let wanted = if storage == StorageClass::Uniform {
                        "a Block or BufferBlock struct (not both)"
                    } else {
                        "a Block struct"
                    };
                    sink.report(
                        Rule::Layout,
                        at,
                        format!("{g}: a {storage:?} variable must point to {wanted}"),
                    );
                }
                super::block_layout::check(module, pointee, storage, &g.to_string(), sink);
                if storage != StorageClass::PushConstant
                    && (data.decorations.set.is_none() || data.decorations.binding.is_none())
                {
                    sink.report(
                        Rule::Module,
                        at,
                        format!("{g}: a {storage:?} variable needs DescriptorSet and Binding"),
                    );
                }
            }
            StorageClass::Input | StorageClass::Output => {
                if data.init.is_some() && storage == StorageClass::Input {
                    sink.report(
                        Rule::Module,
                        at,
                        format!("{g}: Input variables cannot have an initializer"),
                    );
                }
            }
            StorageClass::Workgroup | StorageClass::Private => {}
            other => {
                sink.report(
                    Rule::Module,
                    at,
                    format!("{g}: storage class {other:?} is not supported"),
                );
            }
        }
        if let Some(init) = data.init {
            if !module.consts.contains(init) {
                sink.report(
                    Rule::Reference,
                    at,
                    format!("{g}: initializer {init} does not exist"),
                );
            } else if module.consts[init].ty != pointee {
                sink.report(
                    Rule::Type,
                    at,
                    format!("{g}: initializer {init} has the wrong type"),
                );
            }
        }
    }
}

fn check_entry_points(module: &Module, sink: &mut Sink) {
    let at = Location::default();
    for e in &module.entry_points {
        let what = format!("entry point {:?}", e.name);
        if !module.funcs.contains(e.func) {
            sink.report(
                Rule::Reference,
                at,
                format!("{what}: function {} does not exist", e.func),
            );
            continue;
        }
        let func = &module.funcs[e.func];
        if !func.params.is_empty() || module.types.get(func.ret) != &TypeData::Void {
            sink.report(
                Rule::Module,
                at,
                format!("{what}: an entry point takes no parameters and returns void"),
            );
        }
        if e.model != ExecutionModel::GLCompute {
            sink.report(
                Rule::Module,
                at,
                format!("{what}: only GLCompute entry points are supported"),
            );
        }
        let has_size = e
            .modes
            .iter()
            .any(|m| matches!(m, ExecMode::LocalSize(_) | ExecMode::LocalSizeId(_)))
            || module
                .consts
                .values()
                .any(|c| c.builtin == Some(BuiltIn::WorkgroupSize));
        if e.model == ExecutionModel::GLCompute && !has_size {
            sink.report(Rule::Module, at, format!("{what}: a compute entry point needs LocalSize, LocalSizeId or a WorkgroupSize constant"));
        }
        if let Some(ExecMode::LocalSize(s)) =
            e.modes.iter().find(|m| matches!(m, ExecMode::LocalSize(_)))
        {
            if s.contains(&0) {
                sink.report(
                    Rule::Module,
                    at,
                    format!("{what}: LocalSize components must be at least 1"),
                );
            }
        }
        if e.maximally_reconverges()
            && !module
                .extensions
                .iter()
                .any(|x| x == "SPV_KHR_maximal_reconvergence")
        {
            sink.report(Rule::Module, at, format!("{what}: MaximallyReconvergesKHR needs the SPV_KHR_maximal_reconvergence extension"));
        }
        for g in &e.interface {
            if !module.globals.contains(*g) {
                sink.report(
                    Rule::Reference,
                    at,
                    format!("{what}: interface global {g} does not exist"),
                );
            }
        }
        // Every Input/Output global that the entry point's call tree uses must be listed
        // (SPIR-V 1.4 and later: every global).
        let all = module.version >= (1, 4);
        for (f, func) in module.funcs.iter() {
            if !crate::cfg::call_graph_reaches(module, e.func, f) {
                continue;
            }
            for (_, inst) in func.insts.iter() {
                if inst
                    .result
                    .is_some_and(|r| func.values.get(r).is_none_or(|v| v.def == ValueDef::Unused))
                {
                    continue;
                }
                for a in &inst.args {
                    let crate::module::Operand::Global(g) = a else {
                        continue;
                    };
                    let Some(data) = module.globals.get(*g) else {
                        continue;
                    };
                    let io = matches!(data.storage, StorageClass::Input | StorageClass::Output);
                    if (io || all) && !e.interface.contains(g) {
                        sink.report(
                            Rule::Module,
                            at,
                            format!("{what}: uses {g} but does not list it in its interface"),
                        );
                    }
                }
            }
        }
    }
}
