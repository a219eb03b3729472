//! Lowering of `OpType*` declarations (with their decorations: array strides, member
//! offsets, matrix layouts, member flags) into the IR's type table.

use rspirv::dr::{Instruction, Operand as RawOp};
use spirv::{Decoration, Op as SpvOp};
use tangle_ir::types::{MatrixLayout, Member, MemberFlag, Type, TypeData, TypeTable};

use super::module::*;
use super::Position;

pub(super) fn lower_type(cx: &mut Ctx<'_>, inst: &Instruction, pos: Position) -> Res<()> {
    let id = result_id(inst, pos)?;
    let mut decos = cx.take_decos(id);
    let mut stride = None;
    let mut block = false;
    let mut buffer_block = false;
    decos.retain(|d| match d.deco {
        Decoration::ArrayStride => {
            stride = match d.args.first() {
                Some(RawOp::LiteralBit32(s)) => Some(*s),
                _ => None,
            };
            false
        }
        Decoration::Block => {
            block = true;
            false
        }
        Decoration::BufferBlock => {
            buffer_block = true;
            false
        }
        _ => true,
    });
    if buffer_block && cx.module.version > (1, 3) {
        // spirv-val: "operand BufferBlock(3) requires SPIR-V version 1.3 or earlier".
        let (major, minor) = cx.module.version;
        return malformed(
            pos,
            format!("BufferBlock requires SPIR-V 1.3 or earlier (the module is {major}.{minor})"),
        );
    }
    if let Some(d) = decos.first() {
        return unsupported(d.pos, format!("decoration {:?} on a type", d.deco));
    }
    let data = match inst.class.opcode {
        SpvOp::TypeVoid => TypeData::Void,
        SpvOp::TypeBool => TypeData::Bool,
        SpvOp::TypeInt => {
            let width = lit_at(inst, 0, pos)?;
            let signed = lit_at(inst, 1, pos)?;
            if !matches!(width, 8 | 16 | 32 | 64) {
                return unsupported(pos, format!("integer type of width {width}"));
            }
            if signed > 1 {
                return unsupported(
                    pos,
                    format!("integer signedness {signed} (SPIR-V defines 0 and 1)"),
                );
            }
            TypeData::Int {
                width: width as u8,
                signed: signed == 1,
            }
        }
        SpvOp::TypeFloat => {
            let width = lit_at(inst, 0, pos)?;
            if inst.operands.len() > 1 {
                return unsupported(pos, "float encodings");
            }
            if !matches!(width, 16 | 32 | 64) {
                return unsupported(pos, format!("float type of width {width}"));
            }
            TypeData::Float { width: width as u8 }
        }
        SpvOp::TypeVector => {
            let elem = cx.ty(id_at(inst, 0, pos)?, pos)?;
            let count = lit_at(inst, 1, pos)?;
            if !(2..=4).contains(&count) {
                return unsupported(pos, format!("vectors of {count} components"));
            }
            TypeData::Vector {
                elem,
                count: count as u8,
            }
        }
        SpvOp::TypeMatrix => {
            let column = cx.ty(id_at(inst, 0, pos)?, pos)?;
            let count = lit_at(inst, 1, pos)?;
            if !(2..=4).contains(&count) {
                return malformed(pos, format!("matrices have 2 to 4 columns, not {count}"));
            }
            let float_column = matches!(cx.module.types.get(column), TypeData::Vector { elem, .. }
                if matches!(cx.module.types.get(*elem), TypeData::Float { .. }));
            if !float_column {
                return malformed(pos, "a matrix's column type must be a float vector");
            }
            TypeData::Matrix {
                column,
                count: count as u8,
                layout: None,
            }
        }
        SpvOp::TypeArray => {
            let elem = cx.ty(id_at(inst, 0, pos)?, pos)?;
            let len_id = id_at(inst, 1, pos)?;
            let c = cx.constant(len_id, pos)?;
            if cx.module.consts[c].spec {
                return unsupported(pos, "array lengths given by specialization constants");
            }
            let len = cx.const_u32(len_id, pos)?;
            TypeData::Array { elem, len, stride }
        }
        SpvOp::TypeRuntimeArray => TypeData::RuntimeArray {
            elem: cx.ty(id_at(inst, 0, pos)?, pos)?,
            stride,
        },
        SpvOp::TypeStruct => {
            let mut members = Vec::new();
            for k in 0..inst.operands.len() {
                let ty = cx.ty(id_at(inst, k, pos)?, pos)?;
                let mut m = Member {
                    ty,
                    offset: None,
                    flags: Vec::new(),
                    name: cx.member_names.remove(&(id, k as u32)),
                };
                let (mut matrix_stride, mut row_major) = (None, None);
                let mut layout_pos = pos;
                for d in cx.member_decos.remove(&(id, k as u32)).unwrap_or_default() {
                    match (d.deco, member_flag(d.deco)) {
                        (Decoration::Offset, _) => {
                            m.offset = match d.args.first() {
                                Some(RawOp::LiteralBit32(o)) => Some(*o),
                                _ => return malformed(d.pos, "Offset needs a literal"),
                            };
                        }
                        (Decoration::MatrixStride, _) => {
                            matrix_stride = match d.args.first() {
                                Some(RawOp::LiteralBit32(o)) => Some(*o),
                                _ => return malformed(d.pos, "MatrixStride needs a literal"),
                            };
                            layout_pos = d.pos;
                        }
                        (Decoration::RowMajor | Decoration::ColMajor, _) => {
                            let row = d.deco == Decoration::RowMajor;
                            if row_major.is_some_and(|r| r != row) {
                                return malformed(d.pos, "a member is both RowMajor and ColMajor");
                            }
                            row_major = Some(row);
                            layout_pos = d.pos;
                        }
                        (_, Some(f)) => {
                            if !m.flags.contains(&f) {
                                m.flags.push(f);
                            }
                        }
                        (other, None) => {
                            return unsupported(d.pos, format!("member decoration {other:?}"))
                        }
                    }
                }
                m.flags
                    .sort_by_key(|f| MemberFlag::ALL.iter().position(|x| x == f));
                if matrix_stride.is_some() || row_major.is_some() {
                    m.ty = laid_out_matrix(
                        &mut cx.module.types,
                        m.ty,
                        matrix_stride,
                        row_major.unwrap_or(false),
                        layout_pos,
                    )?;
                }
                members.push(m);
            }
            TypeData::Struct {
                members,
                block,
                buffer_block,
                name: cx.names.get(&id).cloned(),
            }
        }
        SpvOp::TypePointer => {
            let Some(RawOp::StorageClass(storage)) = inst.operands.first() else {
                return malformed(pos, "OpTypePointer needs a storage class");
            };
            TypeData::Pointer {
                storage: *storage,
                pointee: cx.ty(id_at(inst, 1, pos)?, pos)?,
            }
        }
        SpvOp::TypeFunction => {
            let ret = cx.ty(id_at(inst, 0, pos)?, pos)?;
            let mut params = Vec::new();
            for k in 1..inst.operands.len() {
                params.push(cx.ty(id_at(inst, k, pos)?, pos)?);
            }
            TypeData::Function { ret, params }
        }
        op => return unsupported(pos, format!("type Op{op:?}")),
    };
    if (stride.is_some() || block || buffer_block)
        && !matches!(
            data,
            TypeData::Array { .. } | TypeData::RuntimeArray { .. } | TypeData::Struct { .. }
        )
    {
        return unsupported(pos, "ArrayStride, Block or BufferBlock on this type");
    }
    let ty = cx.module.types.intern(data);
    cx.define(id, Def::Type(ty), pos)
}

/// `ty` (a matrix, or arrays of matrices) with its matrices laid out as a member's
/// `MatrixStride` and `RowMajor` / `ColMajor` say (column-major when neither is given, as
/// SPIR-V's default). A majorness without a stride is kept only on a member that holds no
/// matrix: spirv-val requires the stride wherever a matrix lies in explicit layout, which the
/// verifier's layout rules report.
fn laid_out_matrix(
    types: &mut TypeTable,
    ty: Type,
    stride: Option<u32>,
    row_major: bool,
    pos: Position,
) -> Res<Type> {
    match types.get(ty).clone() {
        TypeData::Matrix { column, count, .. } => match stride {
            Some(stride) => {
                Ok(types.matrix(column, count, Some(MatrixLayout { stride, row_major })))
            }
            None => Ok(ty),
        },
        TypeData::Array {
            elem,
            len,
            stride: s,
        } => {
            let elem = laid_out_matrix(types, elem, stride, row_major, pos)?;
            Ok(types.intern(TypeData::Array {
                elem,
                len,
                stride: s,
            }))
        }
        TypeData::RuntimeArray { elem, stride: s } => {
            let elem = laid_out_matrix(types, elem, stride, row_major, pos)?;
            Ok(types.intern(TypeData::RuntimeArray { elem, stride: s }))
        }
        _ => malformed(
            pos,
            "MatrixStride, RowMajor and ColMajor decorate only members that hold matrices",
        ),
    }
}

pub(super) fn member_flag(d: Decoration) -> Option<MemberFlag> {
    Some(match d {
        Decoration::NonWritable => MemberFlag::NonWritable,
        Decoration::NonReadable => MemberFlag::NonReadable,
        Decoration::Coherent => MemberFlag::Coherent,
        Decoration::Volatile => MemberFlag::Volatile,
        Decoration::Restrict => MemberFlag::Restrict,
        Decoration::RelaxedPrecision => MemberFlag::RelaxedPrecision,
        Decoration::Aliased => MemberFlag::Aliased,
        _ => return None,
    })
}
