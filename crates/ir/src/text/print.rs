//! Writes a module as text.

use std::fmt::Write;

use spirv::{LoopControl, MemorySemantics, SelectionControl};

use crate::module::{ConstValue, ExecMode, Form, Function, Merge, Module, Terminator, ValueDef};
use crate::ops::{scope_name, MemAccess, Op, ACCESS_NAMES, SEMANTICS_NAMES};
use crate::types::{Type, TypeData, TypeTable};

/// The text of `module`.
pub fn print(module: &Module) -> String {
    let mut out = String::new();
    let w = &mut out;
    let (major, minor) = module.version;
    let _ = writeln!(w, "spirv {major}.{minor}");
    let _ = writeln!(w, "memory_model {:?}", module.memory_model);
    for cap in &module.capabilities {
        let _ = writeln!(w, "capability {cap:?}");
    }
    for ext in &module.extensions {
        let _ = writeln!(w, "extension {}", quote(ext));
    }
    if !module.types.is_empty() {
        w.push('\n');
    }
    for (ty, data) in module.types.iter() {
        let _ = writeln!(w, "type {ty} = {}", type_def(&module.types, data));
    }
    if !module.consts.is_empty() {
        w.push('\n');
    }
    for (c, data) in module.consts.iter() {
        let kw = if data.spec { "spec_const" } else { "const" };
        let _ = write!(w, "{kw} {c} {} = ", type_ref(&module.types, data.ty));
        match &data.value {
            ConstValue::Bool(b) => {
                let _ = write!(w, "{b}");
            }
            ConstValue::Bits(bits) => w.push_str(&scalar_literal(&module.types, data.ty, *bits)),
            ConstValue::Composite(parts) => {
                let _ = write!(w, "composite({})", join(parts));
            }
            ConstValue::Null => w.push_str("null"),
            ConstValue::Undef => w.push_str("undef"),
            ConstValue::SpecOp(op, args) => {
                let _ = write!(w, "{}", op.mnemonic());
                immediates(w, op);
                let _ = write!(w, "({})", join(args));
            }
        }
        let mut attrs = Vec::new();
        if let Some(id) = data.spec_id {
            attrs.push(format!("spec_id {id}"));
        }
        if let Some(b) = data.builtin {
            attrs.push(format!("builtin {b:?}"));
        }
        if let Some(n) = &data.name {
            attrs.push(format!("name {}", quote(n)));
        }
        attr_list(w, &attrs);
        w.push('\n');
    }
    if !module.globals.is_empty() {
        w.push('\n');
    }
    for (g, data) in module.globals.iter() {
        let _ = write!(w, "global {g} {}", type_ref(&module.types, data.ty));
        if let Some(init) = data.init {
            let _ = write!(w, " = {init}");
        }
        let d = &data.decorations;
        let mut attrs = Vec::new();
        if let Some(b) = d.builtin {
            attrs.push(format!("builtin {b:?}"));
        }
        if let Some(s) = d.set {
            attrs.push(format!("set {s}"));
        }
        if let Some(b) = d.binding {
            attrs.push(format!("binding {b}"));
        }
        attrs.extend(d.flags.iter().map(|f| f.name().to_string()));
        if let Some(n) = &data.name {
            attrs.push(format!("name {}", quote(n)));
        }
        attr_list(w, &attrs);
        w.push('\n');
    }
    if !module.entry_points.is_empty() {
        w.push('\n');
    }
    for e in &module.entry_points {
        let _ = write!(
            w,
            "entry {:?} {} {} ({})",
            e.model,
            quote(&e.name),
            e.func,
            join(&e.interface)
        );
        let attrs: Vec<String> = e
            .modes
            .iter()
            .map(|m| match m {
                ExecMode::LocalSize([x, y, z]) => format!("local_size {x} {y} {z}"),
                ExecMode::LocalSizeId([x, y, z]) => format!("local_size_id {x} {y} {z}"),
                ExecMode::MaximallyReconverges => "maximally_reconverges".to_string(),
                ExecMode::SubgroupUniformControlFlow => "subgroup_uniform_control_flow".to_string(),
                ExecMode::FloatControl(f, width) => format!("{} {width}", f.name()),
            })
            .collect();
        attr_list(w, &attrs);
        w.push('\n');
    }
    for (f, func) in module.funcs.iter() {
        w.push('\n');
        let _ = write!(w, "fn {f}");
        if let Some(n) = &func.name {
            let _ = write!(w, " {}", quote(n));
        }
        let params: Vec<String> = func
            .params
            .iter()
            .map(|p| format!("{p}: {}", type_ref(&module.types, func.values[*p].ty)))
            .collect();
        let _ = write!(
            w,
            "({}) -> {}",
            params.join(", "),
            type_ref(&module.types, func.ret)
        );
        let control: Vec<String> = func
            .control
            .iter_names()
            .map(|(n, _)| n.to_ascii_lowercase())
            .collect();
        attr_list(w, &control);
        if func.form != Form::Structured {
            let _ = write!(w, " {}", func.form.name());
        }
        if !func.convergent {
            let _ = write!(w, " non_convergent");
        }
        w.push_str(" {\n");
        print_body(w, module, func);
        w.push_str("}\n");
    }
    out
}

fn print_body(w: &mut String, module: &Module, func: &Function) {
    let types = &module.types;
    for &b in &func.layout {
        let _ = writeln!(w, "{b}:");
        let block = &func.blocks[b];
        for &i in &block.insts {
            let inst = &func.insts[i];
            w.push_str("  ");
            if let Some(r) = inst.result {
                let _ = write!(w, "{r} = ");
            }
            w.push_str(inst.op.mnemonic());
            immediates(w, &inst.op);
            if let Some(r) = inst.result {
                let _ = write!(w, " {}", type_ref(types, func.values[r].ty));
            }
            if let Op::Phi(blocks) = &inst.op {
                let pairs: Vec<String> = inst
                    .args
                    .iter()
                    .zip(blocks)
                    .map(|(a, b)| format!("[{a}, {b}]"))
                    .collect();
                let _ = write!(w, " {}", pairs.join(", "));
            } else if !inst.args.is_empty() {
                let _ = write!(w, " {}", join(&inst.args));
            }
            if let Some(token) = inst.conv {
                let _ = write!(w, " conv({token})");
            }
            w.push('\n');
        }
        match block.merge {
            Some(Merge::Selection { merge, control }) => {
                let _ = write!(w, "  selection_merge {merge}");
                attr_list(w, &selection_control_names(control));
                w.push('\n');
            }
            Some(Merge::Loop {
                merge,
                continue_target,
                control,
                params,
            }) => {
                let _ = write!(w, "  loop_merge {merge}, {continue_target}");
                let mut attrs = loop_control_names(control);
                for (k, (bit, name)) in crate::module::LOOP_PARAMS.iter().enumerate() {
                    if control.contains(*bit) {
                        attrs.push(format!("{name} {}", params[k]));
                    }
                }
                attr_list(w, &attrs);
                w.push('\n');
            }
            None => {}
        }
        w.push_str("  ");
        match &block.term {
            Terminator::Branch(t) => {
                let _ = write!(w, "br {t}");
            }
            Terminator::CondBranch {
                cond,
                if_true,
                if_false,
            } => {
                let _ = write!(w, "br_if {cond}, {if_true}, {if_false}");
            }
            Terminator::Switch {
                selector,
                default,
                cases,
            } => {
                let ty = module.operand_type(func, *selector);
                let cases: Vec<String> = cases
                    .iter()
                    .map(|(lit, t)| format!("{}: {t}", scalar_literal(types, ty, *lit)))
                    .collect();
                let _ = write!(w, "switch {selector}, {default} [{}]", cases.join(", "));
            }
            Terminator::Return => w.push_str("return"),
            Terminator::ReturnValue(v) => {
                let _ = write!(w, "return {v}");
            }
            Terminator::Unreachable => w.push_str("unreachable"),
            Terminator::Kill => w.push_str("kill"),
            Terminator::TerminateInvocation => w.push_str("terminate"),
        }
        w.push('\n');
    }
    // Values that are defined by nothing are not printed: they do not exist in the text.
    debug_assert!(func
        .params
        .iter()
        .all(|p| matches!(func.values[*p].def, ValueDef::Param(_))));
}

/// Writes the bracketed immediates of `op`, if it has any.
fn immediates(w: &mut String, op: &Op) {
    let items: Vec<String> = match op {
        Op::CompositeExtract(ix) | Op::CompositeInsert(ix) | Op::VectorShuffle(ix) => {
            ix.iter().map(u32::to_string).collect()
        }
        Op::ArrayLength(m) => vec![m.to_string()],
        Op::Load(a) | Op::Store(a) => access_names(*a),
        Op::Variable(sc) => vec![format!("{sc:?}")],
        Op::Atomic {
            op,
            scope,
            semantics,
            unequal,
        } => {
            let mut v = vec![scope_name(*scope).to_string(), semantics_text(*semantics)];
            if *op == crate::ops::AtomicOp::CompareExchange {
                v.push(semantics_text(*unequal));
            }
            v
        }
        Op::Call(f) => vec![f.to_string()],
        Op::Glsl(g) => vec![g.name().to_string()],
        Op::Group { scope, group, .. } => {
            let mut v = vec![scope_name(*scope).to_string()];
            if let Some(g) = group {
                v.push(g.name().to_string());
            }
            v
        }
        Op::ControlBarrier {
            exec,
            memory,
            semantics,
        } => vec![
            scope_name(*exec).to_string(),
            scope_name(*memory).to_string(),
            semantics_text(*semantics),
        ],
        Op::MemoryBarrier { memory, semantics } => {
            vec![scope_name(*memory).to_string(), semantics_text(*semantics)]
        }
        Op::Plain(_) | Op::Phi(_) | Op::Tangle(_) => Vec::new(),
    };
    if !items.is_empty() {
        let _ = write!(w, "[{}]", items.join(", "));
    }
}

fn access_names(a: MemAccess) -> Vec<String> {
    let mut v: Vec<String> = ACCESS_NAMES
        .iter()
        .filter(|(bit, _)| a.flags.contains(*bit))
        .map(|(_, n)| n.to_string())
        .collect();
    if let Some(al) = a.aligned {
        v.push(format!("aligned {al}"));
    }
    v
}

/// The text of a memory-semantics mask: `relaxed`, or bit names joined by `|`.
pub(crate) fn semantics_text(s: MemorySemantics) -> String {
    if s.is_empty() {
        return "relaxed".to_string();
    }
    let names: Vec<&str> = SEMANTICS_NAMES
        .iter()
        .filter(|(bit, _)| s.contains(*bit))
        .map(|(_, n)| *n)
        .collect();
    names.join("|")
}

pub(crate) fn selection_control_names(c: SelectionControl) -> Vec<String> {
    let mut v = Vec::new();
    if c.contains(SelectionControl::FLATTEN) {
        v.push("flatten".to_string());
    }
    if c.contains(SelectionControl::DONT_FLATTEN) {
        v.push("dont_flatten".to_string());
    }
    v
}

pub(crate) fn loop_control_names(c: LoopControl) -> Vec<String> {
    let mut v = Vec::new();
    for (bit, name) in LOOP_CONTROL_NAMES {
        if c.contains(bit) {
            v.push(name.to_string());
        }
    }
    v
}

/// Loop-control bits without parameters, with their text spellings.
pub(crate) const LOOP_CONTROL_NAMES: [(LoopControl, &str); 3] = [
    (LoopControl::UNROLL, "unroll"),
    (LoopControl::DONT_UNROLL, "dont_unroll"),
    (LoopControl::DEPENDENCY_INFINITE, "dependency_infinite"),
];

fn attr_list(w: &mut String, attrs: &[String]) {
    if !attrs.is_empty() {
        let _ = write!(w, " [{}]", attrs.join(", "));
    }
}

fn join<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A string literal with `"` and `\` escaped.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// How a type is written where it is used: inline for scalars, vectors and pointers, by
/// name (`tN`) for aggregates and function types.
pub fn type_ref(types: &TypeTable, ty: Type) -> String {
    if !types.contains(ty) {
        return ty.to_string();
    }
    let data = types.get(ty);
    if data.is_inline() {
        type_def(types, data)
    } else {
        ty.to_string()
    }
}

fn type_def(types: &TypeTable, data: &TypeData) -> String {
    match data {
        TypeData::Void => "void".to_string(),
        TypeData::Bool => "bool".to_string(),
        TypeData::Token => "token".to_string(),
        TypeData::Barrier => "barrier".to_string(),
        TypeData::Int { width, signed } => {
            format!("{}{width}", if *signed { 'i' } else { 'u' })
        }
        TypeData::Float { width } => format!("f{width}"),
        TypeData::Vector { elem, count } => format!("{}x{count}", type_ref(types, *elem)),
        TypeData::Pointer { storage, pointee } => {
            format!("ptr<{storage:?}, {}>", type_ref(types, *pointee))
        }
        TypeData::Array { elem, len, stride } => {
            let mut s = format!("array<{}, {len}>", type_ref(types, *elem));
            if let Some(st) = stride {
                let _ = write!(s, " [stride {st}]");
            }
            s
        }
        TypeData::Matrix {
            column,
            count,
            layout,
        } => {
            let mut s = format!("matrix<{}, {count}>", type_ref(types, *column));
            if let Some(l) = layout {
                let major = if l.row_major {
                    "row_major"
                } else {
                    "col_major"
                };
                let _ = write!(s, " [stride {}, {major}]", l.stride);
            }
            s
        }
        TypeData::StridedVector { vector, stride } => {
            format!("strided<{}> [stride {stride}]", type_ref(types, *vector))
        }
        TypeData::RuntimeArray { elem, stride } => {
            let mut s = format!("rtarray<{}>", type_ref(types, *elem));
            if let Some(st) = stride {
                let _ = write!(s, " [stride {st}]");
            }
            s
        }
        TypeData::Struct {
            members,
            block,
            buffer_block,
            name,
        } => {
            let mut s = "struct".to_string();
            if let Some(n) = name {
                let _ = write!(s, " {}", quote(n));
            }
            let ms: Vec<String> = members
                .iter()
                .map(|m| {
                    let mut t = type_ref(types, m.ty);
                    let mut attrs = Vec::new();
                    if let Some(o) = m.offset {
                        attrs.push(format!("offset {o}"));
                    }
                    attrs.extend(m.flags.iter().map(|f| f.name().to_string()));
                    if let Some(n) = &m.name {
                        attrs.push(format!("name {}", quote(n)));
                    }
                    attr_list(&mut t, &attrs);
                    t
                })
                .collect();
            let _ = write!(s, " {{ {} }}", ms.join(", "));
            match (*block, *buffer_block) {
                (true, true) => s.push_str(" [block, buffer_block]"),
                (true, false) => s.push_str(" [block]"),
                (false, true) => s.push_str(" [buffer_block]"),
                (false, false) => {}
            }
            s
        }
        TypeData::Function { ret, params } => {
            let ps: Vec<String> = params.iter().map(|p| type_ref(types, *p)).collect();
            format!("fn({}) -> {}", ps.join(", "), type_ref(types, *ret))
        }
    }
}

/// A scalar literal of type `ty` from its bit pattern: decimal for integers (signed types
/// print negative values), the shortest exact decimal for floats when one reads back to the
/// same bits, and `0x` raw bits otherwise (NaN payloads, f16).
pub fn scalar_literal(types: &TypeTable, ty: Type, bits: u64) -> String {
    match types.get(types.scalar_of(ty)) {
        TypeData::Int { width, signed } => {
            let w = u32::from(*width);
            if *signed {
                let shift = 64 - w;
                (((bits << shift) as i64) >> shift).to_string()
            } else {
                bits.to_string()
            }
        }
        TypeData::Float { width: 32 } => {
            let f = f32::from_bits(bits as u32);
            float_text(
                f.is_finite(),
                format!("{f:?}"),
                || {
                    format!("{f:?}")
                        .parse::<f32>()
                        .ok()
                        .map(|g| u64::from(g.to_bits()))
                },
                bits,
            )
        }
        TypeData::Float { width: 64 } => {
            let f = f64::from_bits(bits);
            float_text(
                f.is_finite(),
                format!("{f:?}"),
                || format!("{f:?}").parse::<f64>().ok().map(f64::to_bits),
                bits,
            )
        }
        _ => format!("{bits:#x}"),
    }
}

fn float_text(finite: bool, text: String, reparse: impl Fn() -> Option<u64>, bits: u64) -> String {
    if finite && reparse() == Some(bits) {
        text
    } else {
        format!("{bits:#x}")
    }
}
