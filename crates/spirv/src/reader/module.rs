//! Module-level lowering: capabilities, entry points, names, decorations, types, constants
//! and globals. Function bodies are in `function.rs`.

use rustc_hash::FxHashMap as HashMap;

use rspirv::dr::{Instruction, Operand as RawOp};
use spirv::{Decoration, Op as SpvOp};
use tangle_ir::types::{MemberFlag, Type};
use tangle_ir::{
    Const, ConstData, ConstValue, EntryPoint, ExecMode, Func, Global, GlobalData,
    GlobalDecorations, Module, Op, PlainOp,
};

use super::binary::{Located, RawModule};
use super::types::{lower_type, member_flag};
use super::{Position, ReadError, ReadErrorKind, SUPPORTED_CAPABILITIES};

/// What a module-level id stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Def {
    Type(Type),
    Const(Const),
    Global(Global),
    Func(Func),
    /// The `GLSL.std.450` extended instruction set.
    GlslSet,
}

/// One decoration with where it was written.
pub(crate) struct Deco {
    pub(crate) deco: Decoration,
    pub(crate) args: Vec<RawOp>,
    pub(crate) pos: Position,
}

pub(crate) struct Ctx<'a> {
    pub(crate) module: Module,
    pub(crate) ids: HashMap<u32, Def>,
    pub(crate) names: HashMap<u32, String>,
    pub(super) member_names: HashMap<(u32, u32), String>,
    pub(crate) decos: HashMap<u32, Vec<Deco>>,
    pub(super) member_decos: HashMap<(u32, u32), Vec<Deco>>,
    pub(crate) raw: &'a RawModule,
    /// Where each IR instruction and terminator came from.
    pub(crate) origins: super::Origins,
}

pub(crate) type Res<T> = Result<T, ReadError>;

pub(crate) fn fail<T>(pos: Position, kind: ReadErrorKind) -> Res<T> {
    Err(ReadError {
        kind,
        pos: Some(pos),
    })
}

pub(crate) fn unsupported<T>(pos: Position, what: impl Into<String>) -> Res<T> {
    fail(pos, ReadErrorKind::Unsupported(what.into()))
}

pub(crate) fn malformed<T>(pos: Position, what: impl Into<String>) -> Res<T> {
    fail(pos, ReadErrorKind::Malformed(what.into()))
}

/// The `i`th operand as an id.
pub(crate) fn id_at(inst: &Instruction, i: usize, pos: Position) -> Res<u32> {
    match inst.operands.get(i) {
        Some(RawOp::IdRef(id)) | Some(RawOp::IdScope(id)) | Some(RawOp::IdMemorySemantics(id)) => {
            Ok(*id)
        }
        _ => malformed(
            pos,
            format!("operand {i} of Op{:?} should be an id", inst.class.opcode),
        ),
    }
}

/// The `i`th operand as a 32-bit literal.
pub(crate) fn lit_at(inst: &Instruction, i: usize, pos: Position) -> Res<u32> {
    match inst.operands.get(i) {
        Some(RawOp::LiteralBit32(v)) | Some(RawOp::LiteralExtInstInteger(v)) => Ok(*v),
        _ => malformed(
            pos,
            format!(
                "operand {i} of Op{:?} should be a literal",
                inst.class.opcode
            ),
        ),
    }
}

pub(crate) fn result_id(inst: &Instruction, pos: Position) -> Res<u32> {
    inst.result_id
        .map_or_else(|| malformed(pos, "missing result id"), Ok)
}

impl Ctx<'_> {
    pub(crate) fn define(&mut self, id: u32, def: Def, pos: Position) -> Res<()> {
        if self.ids.insert(id, def).is_some() {
            return fail(pos, ReadErrorKind::Redefined(id));
        }
        Ok(())
    }

    pub(crate) fn lookup(&self, id: u32, pos: Position) -> Res<Def> {
        self.ids
            .get(&id)
            .copied()
            .map_or_else(|| fail(pos, ReadErrorKind::UndefinedId(id)), Ok)
    }

    pub(crate) fn ty(&self, id: u32, pos: Position) -> Res<Type> {
        match self.lookup(id, pos)? {
            Def::Type(t) => Ok(t),
            _ => fail(
                pos,
                ReadErrorKind::WrongId {
                    id,
                    expected: "a type",
                },
            ),
        }
    }

    pub(crate) fn constant(&self, id: u32, pos: Position) -> Res<Const> {
        match self.lookup(id, pos)? {
            Def::Const(c) => Ok(c),
            _ => fail(
                pos,
                ReadErrorKind::WrongId {
                    id,
                    expected: "a constant",
                },
            ),
        }
    }

    /// The value of a non-specialization integer constant (scopes, semantics, lengths).
    pub(crate) fn const_u32(&self, id: u32, pos: Position) -> Res<u32> {
        let c = self.constant(id, pos)?;
        let data = &self.module.consts[c];
        match (&data.value, data.spec) {
            (ConstValue::Bits(b), false) if self.module.types.is_int(data.ty) => u32::try_from(*b)
                .or_else(|_| malformed(pos, format!("%{id} does not fit in 32 bits"))),
            _ => fail(
                pos,
                ReadErrorKind::WrongId {
                    id,
                    expected: "an integer constant (not a specialization constant)",
                },
            ),
        }
    }

    pub(super) fn take_decos(&mut self, id: u32) -> Vec<Deco> {
        self.decos.remove(&id).unwrap_or_default()
    }
}

/// Lowers a parsed binary into a module.
pub(crate) fn lower(raw: &RawModule) -> Res<(Module, super::Origins)> {
    let mut cx = Ctx {
        module: Module {
            version: raw.version,
            capabilities: Vec::new(),
            ..Module::default()
        },
        ids: HashMap::default(),
        names: HashMap::default(),
        member_names: HashMap::default(),
        decos: HashMap::default(),
        member_decos: HashMap::default(),
        raw,
        origins: super::Origins::default(),
    };
    // Function ids first: entry points and calls may name functions defined later.
    let mut next_func = 0u32;
    for l in &raw.insts {
        if l.inst.class.opcode == SpvOp::Function {
            let id = result_id(&l.inst, l.pos)?;
            cx.define(id, Def::Func(Func::from_u32(next_func)), l.pos)?;
            next_func += 1;
        }
    }
    let mut entries = Vec::new();
    let mut modes = Vec::new();
    let mut saw_memory_model = false;
    let mut i = 0;
    while i < raw.insts.len() {
        let Located { inst, pos } = &raw.insts[i];
        let pos = *pos;
        match inst.class.opcode {
            SpvOp::Capability => {
                let Some(RawOp::Capability(cap)) = inst.operands.first() else {
                    return malformed(pos, "OpCapability needs a capability");
                };
                if !SUPPORTED_CAPABILITIES.contains(cap) {
                    return fail(pos, ReadErrorKind::UnsupportedCapability(*cap));
                }
                if !cx.module.capabilities.contains(cap) {
                    cx.module.capabilities.push(*cap);
                }
            }
            SpvOp::Extension => {
                let Some(RawOp::LiteralString(s)) = inst.operands.first() else {
                    return malformed(pos, "OpExtension needs a name");
                };
                cx.module.extensions.push(s.clone());
            }
            SpvOp::ExtInstImport => {
                let Some(RawOp::LiteralString(s)) = inst.operands.first() else {
                    return malformed(pos, "OpExtInstImport needs a name");
                };
                if s != "GLSL.std.450" {
                    return unsupported(pos, format!("extended instruction set {s:?}"));
                }
                cx.define(result_id(inst, pos)?, Def::GlslSet, pos)?;
            }
            SpvOp::MemoryModel => {
                match inst.operands.as_slice() {
                    [RawOp::AddressingModel(spirv::AddressingModel::Logical), RawOp::MemoryModel(m)] =>
                    {
                        // Vulkan's model differs from GLSL450's in what other invocations
                        // may see between synchronizations; the interpreter makes every
                        // write visible at once (docs/interp.md), which both allow.
                        if !matches!(*m, spirv::MemoryModel::GLSL450 | spirv::MemoryModel::Vulkan) {
                            return unsupported(pos, format!("memory model {m:?}"));
                        }
                        cx.module.memory_model = *m;
                    }
                    _ => return unsupported(pos, "addressing models other than Logical"),
                }
                saw_memory_model = true;
            }
            SpvOp::EntryPoint => entries.push(i),
            SpvOp::ExecutionMode | SpvOp::ExecutionModeId => modes.push(i),
            SpvOp::Name => {
                if let [RawOp::IdRef(id), RawOp::LiteralString(s)] = inst.operands.as_slice() {
                    cx.names.insert(*id, s.clone());
                }
            }
            SpvOp::MemberName => {
                if let [RawOp::IdRef(id), RawOp::LiteralBit32(m), RawOp::LiteralString(s)] =
                    inst.operands.as_slice()
                {
                    cx.member_names.insert((*id, *m), s.clone());
                }
            }
            SpvOp::Source
            | SpvOp::SourceContinued
            | SpvOp::SourceExtension
            | SpvOp::String
            | SpvOp::Line
            | SpvOp::NoLine
            | SpvOp::ModuleProcessed
            | SpvOp::Nop => {}
            SpvOp::Decorate => {
                let target = id_at(inst, 0, pos)?;
                let Some(RawOp::Decoration(deco)) = inst.operands.get(1) else {
                    return malformed(pos, "OpDecorate needs a decoration");
                };
                cx.decos.entry(target).or_default().push(Deco {
                    deco: *deco,
                    args: inst.operands[2..].to_vec(),
                    pos,
                });
            }
            SpvOp::MemberDecorate => {
                let target = id_at(inst, 0, pos)?;
                let member = lit_at(inst, 1, pos)?;
                let Some(RawOp::Decoration(deco)) = inst.operands.get(2) else {
                    return malformed(pos, "OpMemberDecorate needs a decoration");
                };
                cx.member_decos
                    .entry((target, member))
                    .or_default()
                    .push(Deco {
                        deco: *deco,
                        args: inst.operands[3..].to_vec(),
                        pos,
                    });
            }
            SpvOp::DecorationGroup | SpvOp::GroupDecorate | SpvOp::GroupMemberDecorate => {
                return unsupported(pos, "decoration groups");
            }
            op if is_type(op) => lower_type(&mut cx, inst, pos)?,
            op if is_constant(op) => lower_constant(&mut cx, inst, pos)?,
            SpvOp::Variable => lower_global(&mut cx, inst, pos)?,
            SpvOp::Undef => {
                let ty = cx.ty(inst.result_type.unwrap_or(0), pos)?;
                let c = push_const(&mut cx, ty, ConstValue::Undef, false);
                cx.define(result_id(inst, pos)?, Def::Const(c), pos)?;
            }
            SpvOp::Function => {
                i = super::function::lower(&mut cx, i)?;
                continue;
            }
            SpvOp::ExtInst => {
                return fail(
                    pos,
                    ReadErrorKind::Misplaced("OpExtInst outside a function".into()),
                );
            }
            op => {
                return fail(
                    pos,
                    ReadErrorKind::Misplaced(format!("Op{op:?} outside a function")),
                )
            }
        }
        i += 1;
    }
    if !saw_memory_model {
        return fail(
            Position {
                word: 0,
                index: None,
            },
            ReadErrorKind::Malformed("the module has no OpMemoryModel".into()),
        );
    }
    // `RelaxedPrecision` on an instruction result only allows lower precision; tangle computes
    // at full precision, which the decoration permits, so it is dropped (docs/spirv-frontend.md).
    // `NonUniform` only tells a compiler that a value may differ between invocations (a
    // descriptor index, say); the engines assume nothing of the kind, so it is dropped too.
    for decos in cx.decos.values_mut() {
        decos.retain(|d| {
            !matches!(
                d.deco,
                Decoration::RelaxedPrecision | Decoration::NonUniform
            )
        });
    }
    // Every other decoration must have been taken by what it decorates.
    let leftover = cx
        .decos
        .values()
        .flatten()
        .chain(cx.member_decos.values().flatten())
        .min_by_key(|d| d.pos.word);
    if let Some(d) = leftover {
        return unsupported(d.pos, format!("decoration {:?} on this target", d.deco));
    }
    for k in entries {
        lower_entry(&mut cx, k)?;
    }
    for k in modes {
        lower_mode(&mut cx, k)?;
    }
    Ok((cx.module, cx.origins))
}

fn is_type(op: SpvOp) -> bool {
    matches!(
        op,
        SpvOp::TypeVoid
            | SpvOp::TypeBool
            | SpvOp::TypeInt
            | SpvOp::TypeFloat
            | SpvOp::TypeVector
            | SpvOp::TypeMatrix
            | SpvOp::TypeImage
            | SpvOp::TypeSampler
            | SpvOp::TypeSampledImage
            | SpvOp::TypeArray
            | SpvOp::TypeRuntimeArray
            | SpvOp::TypeStruct
            | SpvOp::TypeOpaque
            | SpvOp::TypePointer
            | SpvOp::TypeFunction
            | SpvOp::TypeForwardPointer
    )
}

fn is_constant(op: SpvOp) -> bool {
    matches!(
        op,
        SpvOp::ConstantTrue
            | SpvOp::ConstantFalse
            | SpvOp::Constant
            | SpvOp::ConstantComposite
            | SpvOp::ConstantNull
            | SpvOp::SpecConstantTrue
            | SpvOp::SpecConstantFalse
            | SpvOp::SpecConstant
            | SpvOp::SpecConstantComposite
            | SpvOp::SpecConstantOp
    )
}

fn push_const(cx: &mut Ctx<'_>, ty: Type, value: ConstValue, spec: bool) -> Const {
    cx.module.consts.push(ConstData {
        ty,
        value,
        spec,
        spec_id: None,
        builtin: None,
        name: None,
    })
}

fn lower_constant(cx: &mut Ctx<'_>, inst: &Instruction, pos: Position) -> Res<()> {
    let id = result_id(inst, pos)?;
    let ty = cx.ty(inst.result_type.unwrap_or(0), pos)?;
    let op = inst.class.opcode;
    let spec = matches!(
        op,
        SpvOp::SpecConstantTrue
            | SpvOp::SpecConstantFalse
            | SpvOp::SpecConstant
            | SpvOp::SpecConstantComposite
            | SpvOp::SpecConstantOp
    );
    let value = match op {
        SpvOp::ConstantTrue | SpvOp::SpecConstantTrue => ConstValue::Bool(true),
        SpvOp::ConstantFalse | SpvOp::SpecConstantFalse => ConstValue::Bool(false),
        SpvOp::Constant | SpvOp::SpecConstant => {
            let width = cx.module.types.bit_width(ty);
            let bits = match inst.operands.first() {
                Some(RawOp::LiteralBit32(v)) => u64::from(*v),
                Some(RawOp::LiteralBit64(v)) => *v,
                _ => return malformed(pos, "a numeric constant needs a literal"),
            };
            if width == 0 || width == 1 {
                return malformed(pos, "OpConstant needs an integer or float type");
            }
            // Narrow signed literals are sign-extended in the binary; keep the type's bits.
            let mask = if width >= 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            ConstValue::Bits(bits & mask)
        }
        SpvOp::ConstantComposite | SpvOp::SpecConstantComposite => {
            let mut parts = Vec::new();
            for k in 0..inst.operands.len() {
                parts.push(cx.constant(id_at(inst, k, pos)?, pos)?);
            }
            ConstValue::Composite(parts)
        }
        SpvOp::ConstantNull => ConstValue::Null,
        SpvOp::SpecConstantOp => {
            let Some(RawOp::LiteralSpecConstantOpInteger(opcode)) = inst.operands.first() else {
                return malformed(pos, "OpSpecConstantOp needs an opcode");
            };
            let (ir_op, first_id) = match opcode {
                SpvOp::CompositeExtract | SpvOp::CompositeInsert | SpvOp::VectorShuffle => {
                    let nids = if *opcode == SpvOp::CompositeExtract {
                        1
                    } else {
                        2
                    };
                    let mut lits = Vec::new();
                    for k in 1 + nids..inst.operands.len() {
                        lits.push(lit_at(inst, k, pos)?);
                    }
                    let op = match opcode {
                        SpvOp::CompositeExtract => Op::CompositeExtract(lits.into()),
                        SpvOp::CompositeInsert => Op::CompositeInsert(lits.into()),
                        _ => Op::VectorShuffle(lits.into()),
                    };
                    (op, Some(nids))
                }
                other => match PlainOp::from_spirv(*other) {
                    Some(p) => (Op::Plain(p), None),
                    None => return unsupported(pos, format!("OpSpecConstantOp with Op{other:?}")),
                },
            };
            let nids = first_id.unwrap_or(inst.operands.len() - 1);
            let mut args = Vec::new();
            for k in 1..=nids {
                args.push(cx.constant(id_at(inst, k, pos)?, pos)?);
            }
            ConstValue::SpecOp(ir_op, args)
        }
        _ => unreachable!("is_constant covers exactly these opcodes"),
    };
    let c = push_const(cx, ty, value, spec);
    cx.module.consts[c].name = cx.names.get(&id).cloned();
    for d in cx.take_decos(id) {
        match (d.deco, d.args.as_slice()) {
            (Decoration::SpecId, [RawOp::LiteralBit32(n)]) => {
                cx.module.consts[c].spec_id = Some(*n)
            }
            (Decoration::BuiltIn, [RawOp::BuiltIn(b)]) => cx.module.consts[c].builtin = Some(*b),
            // Permits lower precision only; tangle computes at full precision.
            (Decoration::RelaxedPrecision, []) => {}
            (other, _) => return unsupported(d.pos, format!("decoration {other:?} on a constant")),
        }
    }
    cx.define(id, Def::Const(c), pos)
}

fn lower_global(cx: &mut Ctx<'_>, inst: &Instruction, pos: Position) -> Res<()> {
    let id = result_id(inst, pos)?;
    let ty = cx.ty(inst.result_type.unwrap_or(0), pos)?;
    let Some(RawOp::StorageClass(storage)) = inst.operands.first() else {
        return malformed(pos, "OpVariable needs a storage class");
    };
    let init = match inst.operands.get(1) {
        Some(RawOp::IdRef(i)) => Some(cx.constant(*i, pos)?),
        _ => None,
    };
    let mut decorations = GlobalDecorations::default();
    for d in cx.take_decos(id) {
        match (d.deco, d.args.as_slice(), member_flag(d.deco)) {
            (Decoration::BuiltIn, [RawOp::BuiltIn(b)], _) => decorations.builtin = Some(*b),
            (Decoration::DescriptorSet, [RawOp::LiteralBit32(n)], _) => decorations.set = Some(*n),
            (Decoration::Binding, [RawOp::LiteralBit32(n)], _) => decorations.binding = Some(*n),
            (_, [], Some(f)) => {
                if !decorations.flags.contains(&f) {
                    decorations.flags.push(f);
                }
            }
            (other, _, _) => {
                return unsupported(d.pos, format!("decoration {other:?} on a variable"))
            }
        }
    }
    decorations
        .flags
        .sort_by_key(|f| MemberFlag::ALL.iter().position(|x| x == f));
    let g = cx.module.globals.push(GlobalData {
        ty,
        storage: *storage,
        init,
        decorations,
        name: cx.names.get(&id).cloned(),
    });
    cx.define(id, Def::Global(g), pos)
}

fn lower_entry(cx: &mut Ctx<'_>, k: usize) -> Res<()> {
    let Located { inst, pos } = &cx.raw.insts[k];
    let pos = *pos;
    let Some(RawOp::ExecutionModel(model)) = inst.operands.first() else {
        return malformed(pos, "OpEntryPoint needs an execution model");
    };
    let fid = id_at(inst, 1, pos)?;
    let func = match cx.lookup(fid, pos)? {
        Def::Func(f) => f,
        _ => {
            return fail(
                pos,
                ReadErrorKind::WrongId {
                    id: fid,
                    expected: "a function",
                },
            )
        }
    };
    let Some(RawOp::LiteralString(name)) = inst.operands.get(2) else {
        return malformed(pos, "OpEntryPoint needs a name");
    };
    let mut interface = Vec::new();
    for j in 3..inst.operands.len() {
        let gid = id_at(inst, j, pos)?;
        match cx.lookup(gid, pos)? {
            Def::Global(g) => interface.push(g),
            _ => {
                return fail(
                    pos,
                    ReadErrorKind::WrongId {
                        id: gid,
                        expected: "a global variable",
                    },
                )
            }
        }
    }
    if *model != spirv::ExecutionModel::GLCompute {
        return unsupported(pos, format!("execution model {model:?}"));
    }
    cx.module.entry_points.push(EntryPoint {
        model: *model,
        name: name.clone(),
        func,
        interface,
        modes: Vec::new(),
    });
    Ok(())
}

fn lower_mode(cx: &mut Ctx<'_>, k: usize) -> Res<()> {
    let Located { inst, pos } = &cx.raw.insts[k];
    let pos = *pos;
    let fid = id_at(inst, 0, pos)?;
    let Some(RawOp::ExecutionMode(mode)) = inst.operands.get(1) else {
        return malformed(pos, "OpExecutionMode needs a mode");
    };
    let mode = match mode {
        spirv::ExecutionMode::LocalSize => ExecMode::LocalSize([
            lit_at(inst, 2, pos)?,
            lit_at(inst, 3, pos)?,
            lit_at(inst, 4, pos)?,
        ]),
        spirv::ExecutionMode::LocalSizeId => ExecMode::LocalSizeId([
            cx.constant(id_at(inst, 2, pos)?, pos)?,
            cx.constant(id_at(inst, 3, pos)?, pos)?,
            cx.constant(id_at(inst, 4, pos)?, pos)?,
        ]),
        spirv::ExecutionMode::MaximallyReconvergesKHR => ExecMode::MaximallyReconverges,
        spirv::ExecutionMode::SubgroupUniformControlFlowKHR => ExecMode::SubgroupUniformControlFlow,
        m @ (spirv::ExecutionMode::DenormPreserve
        | spirv::ExecutionMode::SignedZeroInfNanPreserve
        | spirv::ExecutionMode::RoundingModeRTE) => {
            let f = tangle_ir::module::FloatControl::ALL
                .into_iter()
                .find(|f| f.spirv() == *m)
                .expect("the three accepted modes");
            let width = lit_at(inst, 2, pos)?;
            if !matches!(width, 16 | 32 | 64) {
                return malformed(pos, format!("{m:?} for floats of width {width}"));
            }
            ExecMode::FloatControl(f, width)
        }
        m @ (spirv::ExecutionMode::DenormFlushToZero | spirv::ExecutionMode::RoundingModeRTZ) => {
            return unsupported(
                pos,
                format!(
                    "execution mode {m:?}: the interpreter keeps subnormals and rounds to nearest even"
                ),
            )
        }
        other => return unsupported(pos, format!("execution mode {other:?}")),
    };
    let func = match cx.lookup(fid, pos)? {
        Def::Func(f) => f,
        _ => {
            return fail(
                pos,
                ReadErrorKind::WrongId {
                    id: fid,
                    expected: "a function",
                },
            )
        }
    };
    let mut found = false;
    for e in cx.module.entry_points.iter_mut().filter(|e| e.func == func) {
        e.modes.push(mode.clone());
        found = true;
    }
    if !found {
        return fail(
            pos,
            ReadErrorKind::WrongId {
                id: fid,
                expected: "an entry point",
            },
        );
    }
    Ok(())
}
