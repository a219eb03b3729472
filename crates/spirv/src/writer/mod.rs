//! Writes tangle's IR back to a SPIR-V binary module.
//!
//! The writer is the check that the front end lost nothing: SPIR-V → IR → SPIR-V must pass
//! spirv-val with the same entry points, interface, decorations and control-flow structure.
//! It builds rspirv's data representation instruction by instruction (no deduplication that
//! could merge types the IR keeps apart) and assembles it to words.

mod function;
mod refuse;

pub use refuse::WriteError;

use std::collections::HashMap;

use rspirv::binary::Assemble;
use rspirv::dr::{self, Instruction, Operand as RawOp};
use spirv::{Decoration, Op as SpvOp};
use tangle_ir::types::{MemberFlag, Type, TypeData};
use tangle_ir::{Const, ConstValue, ExecMode, Func, Global, Module, Op};

/// Assigns SPIR-V ids and remembers the ids of module-level entities.
pub(crate) struct Ids {
    next: u32,
    pub(crate) types: HashMap<Type, u32>,
    pub(crate) consts: HashMap<Const, u32>,
    pub(crate) globals: HashMap<Global, u32>,
    pub(crate) funcs: HashMap<Func, u32>,
    /// Extra `u32` constants the writer needs (scopes, semantics, array lengths).
    u32_consts: HashMap<u32, u32>,
    /// `u32`, when the writer had to create it.
    u32_type: Option<u32>,
    /// Function types the writer created, by (return, parameters).
    fn_types: HashMap<(Type, Vec<Type>), u32>,
    pub(crate) glsl: Option<u32>,
}

impl Ids {
    pub(crate) fn fresh(&mut self) -> u32 {
        let id = self.next;
        self.next += 1;
        id
    }
}

pub(crate) struct Writer<'a> {
    pub(crate) module: &'a Module,
    pub(crate) ids: Ids,
    pub(crate) out: dr::Module,
}

fn inst(op: SpvOp, ty: Option<u32>, id: Option<u32>, operands: Vec<RawOp>) -> Instruction {
    Instruction::new(op, ty, id, operands)
}

/// Writes `module` as SPIR-V words; refuses (with the position) what SPIR-V cannot
/// express: lowered functions, tangle-only operations and types, convergence-control
/// operands.
pub fn write(module: &Module) -> Result<Vec<u32>, WriteError> {
    refuse::check(module)?;
    let mut w = Writer {
        module,
        ids: Ids {
            next: 1,
            types: HashMap::new(),
            consts: HashMap::new(),
            globals: HashMap::new(),
            funcs: HashMap::new(),
            u32_consts: HashMap::new(),
            u32_type: None,
            fn_types: HashMap::new(),
            glsl: None,
        },
        out: dr::Module::new(),
    };
    w.write_module();
    let mut header = dr::ModuleHeader::new(w.ids.next);
    header.set_version(module.version.0, module.version.1);
    header.generator = crate::asm::TANGLE_GENERATOR;
    w.out.header = Some(header);
    Ok(w.out.assemble())
}

impl Writer<'_> {
    fn write_module(&mut self) {
        let m = self.module;
        for cap in &m.capabilities {
            self.out.capabilities.push(inst(
                SpvOp::Capability,
                None,
                None,
                vec![RawOp::Capability(*cap)],
            ));
        }
        for ext in &m.extensions {
            self.out.extensions.push(inst(
                SpvOp::Extension,
                None,
                None,
                vec![RawOp::LiteralString(ext.clone())],
            ));
        }
        let uses_glsl = m
            .funcs
            .values()
            .any(|f| f.insts.values().any(|i| matches!(i.op, Op::Glsl(_))));
        if uses_glsl {
            let id = self.ids.fresh();
            self.ids.glsl = Some(id);
            self.out.ext_inst_imports.push(inst(
                SpvOp::ExtInstImport,
                None,
                Some(id),
                vec![RawOp::LiteralString("GLSL.std.450".into())],
            ));
        }
        self.out.memory_model = Some(inst(
            SpvOp::MemoryModel,
            None,
            None,
            vec![
                RawOp::AddressingModel(spirv::AddressingModel::Logical),
                RawOp::MemoryModel(m.memory_model),
            ],
        ));
        // Functions get their ids first: entry points name them.
        for f in m.funcs.keys() {
            let id = self.ids.fresh();
            self.ids.funcs.insert(f, id);
        }
        for (t, _) in m.types.iter() {
            self.type_id(t);
        }
        for (c, _) in m.consts.iter() {
            self.write_const(c);
        }
        for (g, _) in m.globals.iter() {
            self.write_global(g);
        }
        for e in &m.entry_points {
            let fid = self.ids.funcs[&e.func];
            let mut ops = vec![
                RawOp::ExecutionModel(e.model),
                RawOp::IdRef(fid),
                RawOp::LiteralString(e.name.clone()),
            ];
            ops.extend(
                e.interface
                    .iter()
                    .map(|g| RawOp::IdRef(self.ids.globals[g])),
            );
            self.out
                .entry_points
                .push(inst(SpvOp::EntryPoint, None, None, ops));
            for mode in &e.modes {
                let mut args = vec![RawOp::IdRef(fid)];
                let op = match mode {
                    ExecMode::LocalSize(size) => {
                        args.push(RawOp::ExecutionMode(spirv::ExecutionMode::LocalSize));
                        args.extend(size.iter().map(|x| RawOp::LiteralBit32(*x)));
                        SpvOp::ExecutionMode
                    }
                    ExecMode::LocalSizeId(cs) => {
                        args.push(RawOp::ExecutionMode(spirv::ExecutionMode::LocalSizeId));
                        args.extend(cs.iter().map(|c| RawOp::IdRef(self.ids.consts[c])));
                        SpvOp::ExecutionModeId
                    }
                    ExecMode::FloatControl(f, width) => {
                        args.push(RawOp::ExecutionMode(f.spirv()));
                        args.push(RawOp::LiteralBit32(*width));
                        SpvOp::ExecutionMode
                    }
                    ExecMode::MaximallyReconverges => {
                        args.push(RawOp::ExecutionMode(
                            spirv::ExecutionMode::MaximallyReconvergesKHR,
                        ));
                        SpvOp::ExecutionMode
                    }
                    ExecMode::SubgroupUniformControlFlow => {
                        args.push(RawOp::ExecutionMode(
                            spirv::ExecutionMode::SubgroupUniformControlFlowKHR,
                        ));
                        SpvOp::ExecutionMode
                    }
                };
                self.out.execution_modes.push(inst(op, None, None, args));
            }
        }
        for (f, func) in m.funcs.iter() {
            if let Some(name) = &func.name {
                self.name(self.ids.funcs[&f], name);
            }
            let fn_ty = self.fn_type(
                func.ret,
                func.params.iter().map(|p| func.values[*p].ty).collect(),
            );
            function::write(self, f, fn_ty);
        }
    }

    pub(crate) fn name(&mut self, id: u32, name: &str) {
        self.out.debug_names.push(inst(
            SpvOp::Name,
            None,
            None,
            vec![RawOp::IdRef(id), RawOp::LiteralString(name.to_string())],
        ));
    }

    fn decorate(&mut self, id: u32, deco: Decoration, args: Vec<RawOp>) {
        let mut ops = vec![RawOp::IdRef(id), RawOp::Decoration(deco)];
        ops.extend(args);
        self.out
            .annotations
            .push(inst(SpvOp::Decorate, None, None, ops));
    }

    /// The layout of the matrices a struct member of type `ty` holds (a laid-out matrix, or
    /// arrays of them).
    fn member_matrix_layout(&self, mut ty: Type) -> Option<tangle_ir::MatrixLayout> {
        let types = &self.module.types;
        loop {
            match types.get(ty) {
                TypeData::Array { elem, .. } | TypeData::RuntimeArray { elem, .. } => ty = *elem,
                TypeData::Matrix { layout, .. } => return *layout,
                _ => return None,
            }
        }
    }

    /// The type SPIR-V writes for `ty` when that is another type of the table: the plain
    /// matrix for a laid-out one, the vector for a strided column, and pointers and arrays of
    /// those as the same of the plain type.
    fn plain_equivalent(&self, ty: Type) -> Option<Type> {
        let types = &self.module.types;
        let plain = |t: Type| self.plain_equivalent(t).unwrap_or(t);
        let data = match types.get(ty) {
            TypeData::Matrix {
                column,
                count,
                layout: Some(_),
            } => TypeData::Matrix {
                column: *column,
                count: *count,
                layout: None,
            },
            TypeData::StridedVector { vector, .. } => return Some(*vector),
            TypeData::Pointer { storage, pointee } => TypeData::Pointer {
                storage: *storage,
                pointee: self.plain_equivalent(*pointee)?,
            },
            TypeData::Array { elem, len, stride } => TypeData::Array {
                elem: self.plain_equivalent(*elem)?,
                len: *len,
                stride: *stride,
            },
            TypeData::RuntimeArray { elem, stride } => TypeData::RuntimeArray {
                elem: plain(*elem),
                stride: *stride,
            },
            _ => return None,
        };
        types.find(&data).filter(|t| *t != ty)
    }

    /// The id of `ty`, writing it (and what it needs) first when it is new.
    pub(crate) fn type_id(&mut self, ty: Type) -> u32 {
        if let Some(id) = self.ids.types.get(&ty) {
            return *id;
        }
        // SPIR-V spells matrix layouts on struct members, not on types: a laid-out matrix,
        // a strided column and what is built from them are written as the plain type.
        if let Some(plain) = self.plain_equivalent(ty) {
            let id = self.type_id(plain);
            self.ids.types.insert(ty, id);
            return id;
        }
        let data = self.module.types.get(ty).clone();
        let (op, operands) = match &data {
            TypeData::Matrix { column, count, .. } => (
                SpvOp::TypeMatrix,
                vec![
                    RawOp::IdRef(self.type_id(*column)),
                    RawOp::LiteralBit32(u32::from(*count)),
                ],
            ),
            TypeData::StridedVector { vector, .. } => {
                // Only reached for a table without the plain vector: write the vector.
                let id = self.type_id(*vector);
                self.ids.types.insert(ty, id);
                return id;
            }
            TypeData::Void => (SpvOp::TypeVoid, vec![]),
            TypeData::Bool => (SpvOp::TypeBool, vec![]),
            TypeData::Token | TypeData::Barrier => {
                unreachable!("refuse::check turns tangle-only types away before writing")
            }
            TypeData::Int { width, signed } => (
                SpvOp::TypeInt,
                vec![
                    RawOp::LiteralBit32(u32::from(*width)),
                    RawOp::LiteralBit32(u32::from(*signed)),
                ],
            ),
            TypeData::Float { width } => (
                SpvOp::TypeFloat,
                vec![RawOp::LiteralBit32(u32::from(*width))],
            ),
            TypeData::Vector { elem, count } => (
                SpvOp::TypeVector,
                vec![
                    RawOp::IdRef(self.type_id(*elem)),
                    RawOp::LiteralBit32(u32::from(*count)),
                ],
            ),
            TypeData::Array { elem, len, .. } => {
                let e = self.type_id(*elem);
                let l = self.u32_const(*len);
                (SpvOp::TypeArray, vec![RawOp::IdRef(e), RawOp::IdRef(l)])
            }
            TypeData::RuntimeArray { elem, .. } => (
                SpvOp::TypeRuntimeArray,
                vec![RawOp::IdRef(self.type_id(*elem))],
            ),
            TypeData::Struct { members, .. } => {
                let ids = members
                    .iter()
                    .map(|m| RawOp::IdRef(self.type_id(m.ty)))
                    .collect();
                (SpvOp::TypeStruct, ids)
            }
            TypeData::Pointer { storage, pointee } => (
                SpvOp::TypePointer,
                vec![
                    RawOp::StorageClass(*storage),
                    RawOp::IdRef(self.type_id(*pointee)),
                ],
            ),
            TypeData::Function { ret, params } => {
                let mut ids = vec![RawOp::IdRef(self.type_id(*ret))];
                ids.extend(params.iter().map(|p| RawOp::IdRef(self.type_id(*p))));
                (SpvOp::TypeFunction, ids)
            }
        };
        // A dependency may have written this very type already (never for valid tables).
        if let Some(id) = self.ids.types.get(&ty) {
            return *id;
        }
        let id = self.ids.fresh();
        self.ids.types.insert(ty, id);
        self.out
            .types_global_values
            .push(inst(op, None, Some(id), operands));
        match &data {
            TypeData::Array {
                stride: Some(s), ..
            }
            | TypeData::RuntimeArray {
                stride: Some(s), ..
            } => {
                self.decorate(id, Decoration::ArrayStride, vec![RawOp::LiteralBit32(*s)]);
            }
            TypeData::Struct {
                members,
                block,
                buffer_block,
                name,
            } => {
                if *block {
                    self.decorate(id, Decoration::Block, vec![]);
                }
                if *buffer_block {
                    self.decorate(id, Decoration::BufferBlock, vec![]);
                }
                if let Some(n) = name {
                    self.name(id, n);
                }
                for (k, m) in members.iter().enumerate() {
                    let k = k as u32;
                    if let Some(n) = &m.name {
                        self.out.debug_names.push(inst(
                            SpvOp::MemberName,
                            None,
                            None,
                            vec![
                                RawOp::IdRef(id),
                                RawOp::LiteralBit32(k),
                                RawOp::LiteralString(n.clone()),
                            ],
                        ));
                    }
                    if let Some(o) = m.offset {
                        self.member_decorate(
                            id,
                            k,
                            Decoration::Offset,
                            vec![RawOp::LiteralBit32(o)],
                        );
                    }
                    for f in &m.flags {
                        self.member_decorate(id, k, flag_decoration(*f), vec![]);
                    }
                    if let Some(l) = self.member_matrix_layout(m.ty) {
                        let major = if l.row_major {
                            Decoration::RowMajor
                        } else {
                            Decoration::ColMajor
                        };
                        self.member_decorate(id, k, major, vec![]);
                        self.member_decorate(
                            id,
                            k,
                            Decoration::MatrixStride,
                            vec![RawOp::LiteralBit32(l.stride)],
                        );
                    }
                }
            }
            _ => {}
        }
        if data
            == (TypeData::Int {
                width: 32,
                signed: false,
            })
        {
            self.ids.u32_type.get_or_insert(id);
        }
        id
    }

    fn member_decorate(&mut self, id: u32, member: u32, deco: Decoration, args: Vec<RawOp>) {
        let mut ops = vec![
            RawOp::IdRef(id),
            RawOp::LiteralBit32(member),
            RawOp::Decoration(deco),
        ];
        ops.extend(args);
        self.out
            .annotations
            .push(inst(SpvOp::MemberDecorate, None, None, ops));
    }

    /// The id of `u32`, from the type table or written by the writer.
    fn u32_type(&mut self) -> u32 {
        if let Some(t) = self.module.types.find(&TypeData::Int {
            width: 32,
            signed: false,
        }) {
            return self.type_id(t);
        }
        if let Some(id) = self.ids.u32_type {
            return id;
        }
        let id = self.ids.fresh();
        self.ids.u32_type = Some(id);
        self.out.types_global_values.push(inst(
            SpvOp::TypeInt,
            None,
            Some(id),
            vec![RawOp::LiteralBit32(32), RawOp::LiteralBit32(0)],
        ));
        id
    }

    /// The id of a `u32` constant with value `v` that the writer itself needs.
    pub(crate) fn u32_const(&mut self, v: u32) -> u32 {
        if let Some(id) = self.ids.u32_consts.get(&v) {
            return *id;
        }
        let ty = self.u32_type();
        let id = self.ids.fresh();
        self.out.types_global_values.push(inst(
            SpvOp::Constant,
            Some(ty),
            Some(id),
            vec![RawOp::LiteralBit32(v)],
        ));
        self.ids.u32_consts.insert(v, id);
        id
    }

    fn fn_type(&mut self, ret: Type, params: Vec<Type>) -> u32 {
        if let Some(t) = self.module.types.find(&TypeData::Function {
            ret,
            params: params.clone(),
        }) {
            return self.type_id(t);
        }
        if let Some(id) = self.ids.fn_types.get(&(ret, params.clone())) {
            return *id;
        }
        let mut ops = vec![RawOp::IdRef(self.type_id(ret))];
        ops.extend(params.iter().map(|p| RawOp::IdRef(self.type_id(*p))));
        let id = self.ids.fresh();
        self.out
            .types_global_values
            .push(inst(SpvOp::TypeFunction, None, Some(id), ops));
        self.ids.fn_types.insert((ret, params), id);
        id
    }

    fn write_const(&mut self, c: Const) {
        let data = &self.module.consts[c];
        let ty = self.type_id(data.ty);
        let width = self.module.types.bit_width(data.ty);
        let (op, operands) = match (&data.value, data.spec) {
            (ConstValue::Bool(true), false) => (SpvOp::ConstantTrue, vec![]),
            (ConstValue::Bool(false), false) => (SpvOp::ConstantFalse, vec![]),
            (ConstValue::Bool(true), true) => (SpvOp::SpecConstantTrue, vec![]),
            (ConstValue::Bool(false), true) => (SpvOp::SpecConstantFalse, vec![]),
            (ConstValue::Bits(b), spec) => {
                let lit = if width > 32 {
                    RawOp::LiteralBit64(*b)
                } else {
                    // Narrow signed integers are sign-extended to 32 bits in the binary.
                    let signed = matches!(
                        self.module.types.get(data.ty),
                        TypeData::Int { signed: true, .. }
                    );
                    let v = if signed && width < 32 {
                        let shift = 32 - width;
                        (((*b as u32) << shift) as i32 >> shift) as u32
                    } else {
                        *b as u32
                    };
                    RawOp::LiteralBit32(v)
                };
                (
                    if spec {
                        SpvOp::SpecConstant
                    } else {
                        SpvOp::Constant
                    },
                    vec![lit],
                )
            }
            (ConstValue::Composite(parts), spec) => (
                if spec {
                    SpvOp::SpecConstantComposite
                } else {
                    SpvOp::ConstantComposite
                },
                parts
                    .iter()
                    .map(|p| RawOp::IdRef(self.ids.consts[p]))
                    .collect(),
            ),
            (ConstValue::Null, _) => (SpvOp::ConstantNull, vec![]),
            (ConstValue::Undef, _) => (SpvOp::Undef, vec![]),
            (ConstValue::SpecOp(op, args), _) => {
                let (opcode, lits) = match op {
                    Op::Plain(p) => (p.spirv(), vec![]),
                    Op::CompositeExtract(l) => (SpvOp::CompositeExtract, l.to_vec()),
                    Op::CompositeInsert(l) => (SpvOp::CompositeInsert, l.to_vec()),
                    Op::VectorShuffle(l) => (SpvOp::VectorShuffle, l.to_vec()),
                    other => unreachable!("the verifier allows no {other:?} in a constant"),
                };
                let mut ops = vec![RawOp::LiteralSpecConstantOpInteger(opcode)];
                ops.extend(args.iter().map(|a| RawOp::IdRef(self.ids.consts[a])));
                ops.extend(lits.into_iter().map(RawOp::LiteralBit32));
                (SpvOp::SpecConstantOp, ops)
            }
        };
        let id = self.ids.fresh();
        self.ids.consts.insert(c, id);
        self.out
            .types_global_values
            .push(inst(op, Some(ty), Some(id), operands));
        if let Some(n) = &data.name {
            self.name(id, n);
        }
        if let Some(s) = data.spec_id {
            self.decorate(id, Decoration::SpecId, vec![RawOp::LiteralBit32(s)]);
        }
        if let Some(b) = data.builtin {
            self.decorate(id, Decoration::BuiltIn, vec![RawOp::BuiltIn(b)]);
        }
    }

    fn write_global(&mut self, g: Global) {
        let data = &self.module.globals[g];
        let ty = self.type_id(data.ty);
        let id = self.ids.fresh();
        self.ids.globals.insert(g, id);
        let mut ops = vec![RawOp::StorageClass(data.storage)];
        if let Some(init) = data.init {
            ops.push(RawOp::IdRef(self.ids.consts[&init]));
        }
        self.out
            .types_global_values
            .push(inst(SpvOp::Variable, Some(ty), Some(id), ops));
        if let Some(n) = &data.name {
            self.name(id, n);
        }
        let d = &data.decorations;
        if let Some(b) = d.builtin {
            self.decorate(id, Decoration::BuiltIn, vec![RawOp::BuiltIn(b)]);
        }
        if let Some(s) = d.set {
            self.decorate(id, Decoration::DescriptorSet, vec![RawOp::LiteralBit32(s)]);
        }
        if let Some(b) = d.binding {
            self.decorate(id, Decoration::Binding, vec![RawOp::LiteralBit32(b)]);
        }
        for f in &d.flags {
            self.decorate(id, flag_decoration(*f), vec![]);
        }
    }
}

fn flag_decoration(f: MemberFlag) -> Decoration {
    match f {
        MemberFlag::NonWritable => Decoration::NonWritable,
        MemberFlag::NonReadable => Decoration::NonReadable,
        MemberFlag::Coherent => Decoration::Coherent,
        MemberFlag::Volatile => Decoration::Volatile,
        MemberFlag::Restrict => Decoration::Restrict,
        MemberFlag::RelaxedPrecision => Decoration::RelaxedPrecision,
        MemberFlag::Aliased => Decoration::Aliased,
    }
}
