//! Writes a module as LLVM IR text (`.ll`) that LLVM 19's `opt` reads.
//!
//! Every function becomes a `define` (or a `declare`, when its body is one empty block
//! ending in `unreachable`, which is how the reader keeps a declaration), with its
//! `convergent` attribute; values are `%vN`, blocks `bN`, functions their names where those
//! are unique LLVM identifiers and `@fN` otherwise. What LLVM IR cannot say the way tangle
//! means it (warp barriers, atomics, opaque types) is refused with the position, before
//! anything is written. A shader's interface is written too (`mapping::address_space`):
//! buffers, push constants and built-ins as external globals in an address space per
//! storage class (with their set, binding or built-in in a comment), workgroup variables
//! as `undef`-initialized globals, structs as literal struct types (LLVM's layout stands
//! in for the SPIR-V offsets), runtime arrays as `[0 x T]`, `access_chain` as
//! `getelementptr` with a leading 0. The reader does not take these back: `--emit ll` of
//! a shader is for reading and for `opt`, not a round trip.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use tangle_ir::module::{
    Block, ConstValue, Func, Function, Inst, Module, Operand, Terminator, Value,
};
use tangle_ir::ops::{Op, PlainOp};
use tangle_ir::types::{Type, TypeData};

use crate::mapping;

/// Why a module cannot be written as LLVM IR.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// An instruction LLVM IR has no form for here.
    #[error("{func} {block} #{index}: `{op}` has no LLVM IR form in tangle's mapping")]
    Operation {
        /// The function.
        func: Func,
        /// The block.
        block: Block,
        /// The instruction's position in the block.
        index: usize,
        /// Its mnemonic.
        op: String,
    },
    /// A type LLVM IR has no form for in the mapping.
    #[error("type {ty}: {why}")]
    Type {
        /// The type's text.
        ty: String,
        /// Why.
        why: String,
    },
    /// A constant, global or other module-level item the mapping does not write.
    #[error("{what}: {why}")]
    Item {
        /// What.
        what: String,
        /// Why.
        why: String,
    },
}

/// Whether `func` is a declaration: one empty block that ends in `unreachable`.
pub fn is_declaration(func: &Function) -> bool {
    func.layout.len() == 1
        && func.blocks[func.layout[0]].insts.is_empty()
        && func.blocks[func.layout[0]].term == Terminator::Unreachable
        && func.blocks[func.layout[0]].merge.is_none()
}

/// The LLVM IR text of `module`.
pub fn write(module: &Module) -> Result<String, WriteError> {
    let mut w = Writer {
        module,
        names: Vec::new(),
        extern_decls: BTreeMap::new(),
    };
    w.name_functions();
    let mut out = String::new();
    for (g, data) in module.globals.iter() {
        let TypeData::Pointer { pointee, .. } = module.types.get(data.ty) else {
            return Err(WriteError::Item {
                what: g.to_string(),
                why: "not a pointer".into(),
            });
        };
        let space = match mapping::address_space(data.storage) {
            0 => String::new(),
            n => format!(" addrspace({n})"),
        };
        let ty = w.ty(*pointee)?;
        // What the shader's environment provides (buffers, push constants, built-ins) is
        // external: its bytes come from outside the module.
        let provided = matches!(
            data.storage,
            spirv::StorageClass::StorageBuffer
                | spirv::StorageClass::Uniform
                | spirv::StorageClass::UniformConstant
                | spirv::StorageClass::PushConstant
                | spirv::StorageClass::Input
        );
        let mut note = format!("{:?}", data.storage);
        if let (Some(set), Some(binding)) = (data.decorations.set, data.decorations.binding) {
            let _ = write!(note, ", set {set} binding {binding}");
        }
        if let Some(b) = data.decorations.builtin {
            let _ = write!(note, ", built-in {b:?}");
        }
        if provided {
            if data.init.is_some() {
                return Err(WriteError::Item {
                    what: g.to_string(),
                    why: "an initializer on a variable the environment provides".into(),
                });
            }
            let _ = writeln!(out, "@{g} = external{space} global {ty} ; {note}");
        } else {
            let init = match data.init {
                Some(c) => w.constant(c)?,
                None if data.storage == spirv::StorageClass::Workgroup => "undef".to_string(),
                None => "zeroinitializer".to_string(),
            };
            let _ = writeln!(out, "@{g} ={space} global {ty} {init} ; {note}");
        }
    }
    if !module.globals.is_empty() {
        out.push('\n');
    }
    let mut bodies = String::new();
    for (f, func) in module.funcs.iter() {
        w.function(f, func, &mut bodies)?;
    }
    out.push_str(&bodies);
    for (name, (ret, params)) in &w.extern_decls {
        let _ = writeln!(
            out,
            "declare {ret} @{name}({}) convergent",
            params.join(", ")
        );
    }
    Ok(out)
}

struct Writer<'m> {
    module: &'m Module,
    names: Vec<String>,
    /// Intrinsics and subgroup functions used: name -> (return type, parameter types).
    extern_decls: BTreeMap<String, (String, Vec<String>)>,
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with(|c: char| c.is_ascii_digit())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '-'))
        && !s.starts_with("llvm.")
        && !s.starts_with(mapping::SUBGROUP_PREFIX)
}

impl<'m> Writer<'m> {
    fn name_functions(&mut self) {
        let funcs = &self.module.funcs;
        for (f, func) in funcs.iter() {
            let name = func.name.clone().filter(|n| {
                is_identifier(n)
                    && funcs
                        .iter()
                        .filter(|(_, o)| o.name.as_deref() == Some(n.as_str()))
                        .count()
                        == 1
                    && !(n.starts_with('f') && n[1..].chars().all(|c| c.is_ascii_digit()))
            });
            self.names.push(name.unwrap_or_else(|| f.to_string()));
        }
    }

    fn ty(&self, ty: Type) -> Result<String, WriteError> {
        let types = &self.module.types;
        Ok(match types.get(ty) {
            TypeData::Void => "void".into(),
            TypeData::Bool => "i1".into(),
            TypeData::Int { width, .. } => format!("i{width}"),
            TypeData::Float { width: 16 } => "half".into(),
            TypeData::Float { width: 32 } => "float".into(),
            TypeData::Float { width: 64 } => "double".into(),
            TypeData::Vector { elem, count } => format!("<{count} x {}>", self.ty(*elem)?),
            TypeData::Array { elem, len, .. } => format!("[{len} x {}]", self.ty(*elem)?),
            TypeData::RuntimeArray { elem, .. } => format!("[0 x {}]", self.ty(*elem)?),
            TypeData::Struct { members, .. } => {
                let items: Vec<String> = members
                    .iter()
                    .map(|m| self.ty(m.ty))
                    .collect::<Result<_, _>>()?;
                format!("{{ {} }}", items.join(", "))
            }
            TypeData::Pointer { storage, .. } => match mapping::address_space(*storage) {
                0 => "ptr".into(),
                n => format!("ptr addrspace({n})"),
            },
            TypeData::Token => "token".into(),
            _ => {
                return Err(WriteError::Type {
                    ty: tangle_ir::text::type_ref(types, ty),
                    why: "images, samplers and other opaque SPIR-V types have no LLVM IR form in tangle's mapping".into(),
                })
            }
        })
    }

    fn constant(&self, c: tangle_ir::module::Const) -> Result<String, WriteError> {
        let data = &self.module.consts[c];
        let types = &self.module.types;
        let refuse = |why: &str| WriteError::Item {
            what: c.to_string(),
            why: why.to_string(),
        };
        if data.spec {
            return Err(refuse("specialization constants have no LLVM IR form"));
        }
        Ok(match (&data.value, types.get(data.ty)) {
            (ConstValue::Bool(b), _) => b.to_string(),
            (ConstValue::Bits(bits), TypeData::Int { width, .. }) => {
                let shift = 64 - u32::from(*width);
                (((*bits << shift) as i64) >> shift).to_string()
            }
            (ConstValue::Bits(bits), TypeData::Float { width: 32 }) => {
                let f = f32::from_bits(*bits as u32) as f64;
                format!("0x{:016X}", f.to_bits())
            }
            (ConstValue::Bits(bits), TypeData::Float { width: 64 }) => format!("0x{bits:016X}"),
            (ConstValue::Bits(bits), TypeData::Float { width: 16 }) => format!("0xH{bits:04X}"),
            (ConstValue::Undef, _) => "undef".into(),
            (ConstValue::Null, TypeData::Pointer { .. }) => "null".into(),
            (ConstValue::Null, _) => "zeroinitializer".into(),
            (ConstValue::Composite(parts), TypeData::Vector { .. }) => {
                let mut items = Vec::new();
                for &p in parts {
                    let ty = self.ty(self.module.consts[p].ty)?;
                    items.push(format!("{ty} {}", self.constant(p)?));
                }
                format!("<{}>", items.join(", "))
            }
            _ => {
                return Err(refuse(
                    "this constant has no LLVM IR form in tangle's mapping",
                ))
            }
        })
    }

    fn operand(&self, _func: &Function, o: Operand) -> Result<String, WriteError> {
        Ok(match o {
            Operand::Value(v) => format!("%{v}"),
            Operand::Const(c) => self.constant(c)?,
            Operand::Global(g) => format!("@{g}"),
        })
    }

    fn typed(&self, func: &Function, o: Operand) -> Result<String, WriteError> {
        let ty = self.ty(self.module.operand_type(func, o))?;
        Ok(format!("{ty} {}", self.operand(func, o)?))
    }

    fn function(&mut self, f: Func, func: &Function, out: &mut String) -> Result<(), WriteError> {
        let ret = self.ty(func.ret)?;
        let mut params = Vec::new();
        for &p in &func.params {
            params.push(format!("{} %{p}", self.ty(func.values[p].ty)?));
        }
        let conv = if func.convergent { " convergent" } else { "" };
        let name = &self.names[f.as_u32() as usize];
        if is_declaration(func) {
            let types: Vec<String> = func
                .params
                .iter()
                .map(|&p| self.ty(func.values[p].ty))
                .collect::<Result<_, _>>()?;
            let _ = writeln!(out, "declare {ret} @{name}({}){conv}\n", types.join(", "));
            return Ok(());
        }
        let _ = writeln!(out, "define {ret} @{name}({}){conv} {{", params.join(", "));
        for (k, &b) in func.layout.iter().enumerate() {
            if k > 0 {
                out.push('\n');
            }
            let _ = writeln!(out, "{b}:");
            for (index, &i) in func.blocks[b].insts.iter().enumerate() {
                let line = self.inst(f, func, b, index, i)?;
                let _ = writeln!(out, "  {line}");
            }
            let line = self.terminator(func, &func.blocks[b].term)?;
            let _ = writeln!(out, "  {line}");
        }
        out.push_str("}\n\n");
        Ok(())
    }

    fn inst(
        &mut self,
        f: Func,
        func: &Function,
        b: Block,
        index: usize,
        i: Inst,
    ) -> Result<String, WriteError> {
        let data = &func.insts[i];
        let refuse = || WriteError::Operation {
            func: f,
            block: b,
            index,
            op: data.op.mnemonic().to_string(),
        };
        let is_void = |v: Value| matches!(self.module.types.get(func.values[v].ty), TypeData::Void);
        let result = match data.result {
            Some(v) if !is_void(v) => format!("%{v} = "),
            _ => String::new(),
        };
        let rty = match data.result {
            Some(v) => self.ty(func.values[v].ty)?,
            None => "void".into(),
        };
        let bundle = match data.conv {
            Some(t) => format!(" [ \"convergencectrl\"(token %{t}) ]"),
            None => String::new(),
        };
        let args = &data.args;
        let arg_types = |w: &Self| -> Result<Vec<String>, WriteError> {
            args.iter()
                .map(|&a| w.ty(w.module.operand_type(func, a)))
                .collect()
        };
        let bool_operands = args.first().is_some_and(|&a| {
            matches!(
                self.module.types.get(self.module.operand_type(func, a)),
                TypeData::Bool
            )
        });
        let text = match &data.op {
            Op::Plain(PlainOp::AccessChain) => {
                // The base's pointee, then one index per chain step after the leading 0.
                let base_ty = self.module.operand_type(func, args[0]);
                let TypeData::Pointer { pointee, .. } = self.module.types.get(base_ty) else {
                    return Err(refuse());
                };
                let mut items = vec![self.typed(func, args[0])?, "i32 0".to_string()];
                for &a in &args[1..] {
                    items.push(self.typed(func, a)?);
                }
                format!(
                    "{result}getelementptr {}, {}",
                    self.ty(*pointee)?,
                    items.join(", ")
                )
            }
            Op::Plain(p) => {
                let p = *p;
                let find = |table: &[(&'static str, PlainOp)]| {
                    table.iter().find(|(_, q)| *q == p).map(|&(n, _)| n)
                };
                if let Some(n) = find(mapping::LOGICAL_BINARY).filter(|_| bool_operands) {
                    let a = self.typed(func, args[0])?;
                    format!("{result}{n} {a}, {}", self.operand(func, args[1])?)
                } else if let Some(n) = find(mapping::BINARY) {
                    let a = self.typed(func, args[0])?;
                    format!("{result}{n} {a}, {}", self.operand(func, args[1])?)
                } else if let Some(n) = find(mapping::ICMP) {
                    let a = self.typed(func, args[0])?;
                    format!("{result}icmp {n} {a}, {}", self.operand(func, args[1])?)
                } else if let Some(n) = find(mapping::FCMP) {
                    let a = self.typed(func, args[0])?;
                    format!("{result}fcmp {n} {a}, {}", self.operand(func, args[1])?)
                } else if p == PlainOp::LogicalEqual {
                    let a = self.typed(func, args[0])?;
                    format!("{result}icmp eq {a}, {}", self.operand(func, args[1])?)
                } else if p == PlainOp::LogicalNot {
                    format!("{result}xor {}, true", self.typed(func, args[0])?)
                } else if p == PlainOp::Select {
                    format!(
                        "{result}select {}, {}, {}",
                        self.typed(func, args[0])?,
                        self.typed(func, args[1])?,
                        self.typed(func, args[2])?
                    )
                } else if matches!(p, PlainOp::UConvert | PlainOp::SConvert | PlainOp::FConvert) {
                    let from = self.module.operand_type(func, args[0]);
                    let width = |t: Type| match self.module.types.get(t) {
                        TypeData::Int { width, .. } | TypeData::Float { width } => *width,
                        _ => 0,
                    };
                    let to = data.result.map(|v| func.values[v].ty).ok_or_else(refuse)?;
                    let widen = width(to) > width(from);
                    let n = match (p, widen) {
                        (PlainOp::UConvert, true) => "zext",
                        (PlainOp::SConvert, true) => "sext",
                        (PlainOp::FConvert, true) => "fpext",
                        (PlainOp::FConvert, false) => "fptrunc",
                        _ => "trunc",
                    };
                    format!("{result}{n} {} to {rty}", self.typed(func, args[0])?)
                } else if let Some(n) = find(mapping::CASTS) {
                    format!("{result}{n} {} to {rty}", self.typed(func, args[0])?)
                } else {
                    return Err(refuse());
                }
            }
            Op::CompositeExtract(indices) => {
                let from = self.module.operand_type(func, args[0]);
                let src = self.typed(func, args[0])?;
                match (self.module.types.get(from), indices.as_slice()) {
                    (TypeData::Vector { .. }, [i]) => {
                        format!("{result}extractelement {src}, i32 {i}")
                    }
                    (TypeData::Vector { .. }, _) => return Err(refuse()),
                    _ => {
                        let idx: Vec<String> = indices.iter().map(u32::to_string).collect();
                        format!("{result}extractvalue {src}, {}", idx.join(", "))
                    }
                }
            }
            Op::CompositeInsert(indices) => {
                let into = self.module.operand_type(func, args[1]);
                let (obj, comp) = (self.typed(func, args[0])?, self.typed(func, args[1])?);
                match (self.module.types.get(into), indices.as_slice()) {
                    (TypeData::Vector { .. }, [i]) => {
                        format!("{result}insertelement {comp}, {obj}, i32 {i}")
                    }
                    (TypeData::Vector { .. }, _) => return Err(refuse()),
                    _ => {
                        let idx: Vec<String> = indices.iter().map(u32::to_string).collect();
                        format!("{result}insertvalue {comp}, {obj}, {}", idx.join(", "))
                    }
                }
            }
            Op::Load(_) => format!("{result}load {rty}, {}", self.typed(func, args[0])?),
            Op::Store(_) => format!(
                "store {}, {}",
                self.typed(func, args[1])?,
                self.typed(func, args[0])?
            ),
            Op::Variable(spirv::StorageClass::Function) => {
                let ty = func.values[data.result.ok_or_else(refuse)?].ty;
                let TypeData::Pointer { pointee, .. } = self.module.types.get(ty) else {
                    return Err(refuse());
                };
                format!("{result}alloca {}", self.ty(*pointee)?)
            }
            Op::Phi(blocks) => {
                let mut items = Vec::new();
                for (a, pb) in args.iter().zip(blocks) {
                    items.push(format!("[ {}, %{pb} ]", self.operand(func, *a)?));
                }
                format!("{result}phi {rty} {}", items.join(", "))
            }
            Op::Call(callee) => {
                let mut items = Vec::new();
                for &a in args {
                    items.push(self.typed(func, a)?);
                }
                let name = &self.names[callee.as_u32() as usize];
                format!("{result}call {rty} @{name}({}){bundle}", items.join(", "))
            }
            Op::Tangle(t) => {
                let name = mapping::token_intrinsic(*t).ok_or_else(refuse)?;
                self.extern_decls
                    .insert(name.to_string(), ("token".into(), Vec::new()));
                format!("{result}call token @{name}(){bundle}")
            }
            Op::Group { op, scope, group } => {
                if *scope != spirv::Scope::Subgroup {
                    return Err(refuse());
                }
                let types = arg_types(self)?;
                let mut name = mapping::subgroup_stem(*op, *group);
                for t in std::iter::once(&rty).chain(types.iter()) {
                    name.push('.');
                    name.push_str(&t.replace(['<', '>', ' '], ""));
                }
                self.extern_decls.insert(name.clone(), (rty.clone(), types));
                let mut items = Vec::new();
                for &a in args {
                    items.push(self.typed(func, a)?);
                }
                format!("{result}call {rty} @{name}({}){bundle}", items.join(", "))
            }
            _ => return Err(refuse()),
        };
        Ok(text)
    }

    fn terminator(&self, func: &Function, t: &Terminator) -> Result<String, WriteError> {
        Ok(match t {
            Terminator::Branch(b) => format!("br label %{b}"),
            Terminator::CondBranch {
                cond,
                if_true,
                if_false,
            } => format!(
                "br {}, label %{if_true}, label %{if_false}",
                self.typed(func, *cond)?
            ),
            Terminator::Switch {
                selector,
                default,
                cases,
            } => {
                let ty = self.ty(self.module.operand_type(func, *selector))?;
                let width = match self
                    .module
                    .types
                    .get(self.module.operand_type(func, *selector))
                {
                    TypeData::Int { width, .. } => u32::from(*width),
                    _ => 32,
                };
                let items: Vec<String> = cases
                    .iter()
                    .map(|(lit, b)| {
                        let shift = 64 - width;
                        format!("{ty} {}, label %{b}", ((*lit << shift) as i64) >> shift)
                    })
                    .collect();
                format!(
                    "switch {}, label %{default} [ {} ]",
                    self.typed(func, *selector)?,
                    items.join(" ")
                )
            }
            Terminator::Return => "ret void".into(),
            Terminator::ReturnValue(v) => format!("ret {}", self.typed(func, *v)?),
            Terminator::Unreachable => "unreachable".into(),
            Terminator::Kill | Terminator::TerminateInvocation => {
                return Err(WriteError::Item {
                    what: "terminator".into(),
                    why: "`kill` and `terminate` have no LLVM IR form here".into(),
                })
            }
        })
    }
}
