//! Typing of the extended-instruction and subgroup operations: GLSL.std.450 operands against
//! their result, and the group operations' scope, operation and operand types.

use spirv::{Capability, Scope};

use super::{int_scalar, is_scalar, kind, matrix_dims, unsigned, Ctx, Kind};
use crate::glsl::GlslOp;
use crate::module::Operand;
use crate::ops::{GroupOp, GroupOperation};
use crate::types::{Type, TypeData};

pub(super) fn check_glsl(cx: &mut Ctx<'_>, g: GlslOp, a: &[Type], r: Type) {
    use GlslOp::*;
    let types = &cx.module.types;
    let all_r = a.iter().all(|t| *t == r);
    let ok = match g {
        SAbs | SSign | SMin | SMax | SClamp | UMin | UMax | UClamp => {
            kind(types, r) == Kind::Int && all_r
        }
        FindILsb | FindSMsb | FindUMsb => {
            kind(types, r) == Kind::Int
                && kind(types, a[0]) == Kind::Int
                && types.component_count(a[0]) == types.component_count(r)
        }
        Length => {
            kind(types, r) == Kind::Float && is_scalar(types, r) && types.scalar_of(a[0]) == r
        }
        Distance => {
            kind(types, r) == Kind::Float
                && is_scalar(types, r)
                && a[0] == a[1]
                && types.scalar_of(a[0]) == r
        }
        Ldexp => {
            kind(types, r) == Kind::Float
                && a[0] == r
                && kind(types, a[1]) == Kind::Int
                && types.component_count(a[1]) == types.component_count(r)
        }
        PackHalf2x16 => {
            int_scalar(types, r)
                && kind(types, a[0]) == Kind::Float
                && types.component_count(a[0]) == 2
        }
        UnpackHalf2x16 => {
            kind(types, r) == Kind::Float
                && types.component_count(r) == 2
                && int_scalar(types, a[0])
        }
        Cross => kind(types, r) == Kind::Float && types.component_count(r) == 3 && all_r,
        Determinant => {
            matches!(matrix_dims(types, a[0]), Some((c, rw, e)) if c == rw && e == r)
        }
        MatrixInverse => {
            matches!(matrix_dims(types, a[0]), Some((c, rw, _)) if c == rw) && a[0] == r
        }
        // x, and a pointer to where the second result goes: the whole part (same type) or
        // the exponent (integers, as many components).
        Modf | Frexp => {
            let second = types.pointer(a[1]).map(|(_, p)| p);
            kind(types, r) == Kind::Float
                && a[0] == r
                && second.is_some_and(|p| {
                    if g == Modf {
                        p == r
                    } else {
                        kind(types, p) == Kind::Int
                            && types.component_count(p) == types.component_count(r)
                    }
                })
        }
        // A struct of the two results.
        ModfStruct | FrexpStruct => match types.get(r) {
            TypeData::Struct { members, .. } if members.len() == 2 => {
                let (first, second) = (members[0].ty, members[1].ty);
                kind(types, first) == Kind::Float
                    && a[0] == first
                    && if g == ModfStruct {
                        second == first
                    } else {
                        kind(types, second) == Kind::Int
                            && types.component_count(second) == types.component_count(first)
                    }
            }
            _ => false,
        },
        // Angle, trigonometric and exponential functions: 16- or 32-bit floats only.
        Radians | Degrees | Sin | Cos | Tan | Asin | Acos | Atan | Sinh | Cosh | Tanh | Asinh
        | Acosh | Atanh | Atan2 | Pow | Exp | Log | Exp2 | Log2 => {
            kind(types, r) == Kind::Float && types.bit_width(r) <= 32 && all_r
        }
        _ => kind(types, r) == Kind::Float && all_r,
    };
    if !ok {
        cx.fail(format!(
            "glsl {}: operand types do not fit result {}",
            g.name(),
            cx.name(r)
        ));
    }
}

pub(super) fn check_group(
    cx: &mut Ctx<'_>,
    op: GroupOp,
    scope: Scope,
    group: Option<GroupOperation>,
    ops: &[Operand],
    a: &[Type],
    r: Type,
) {
    use GroupOp::*;
    let types = &cx.module.types;
    let uvec4 = |t: Type| matches!(types.get(t), TypeData::Vector { count: 4, elem } if matches!(types.get(*elem), TypeData::Int { width: 32, .. }));
    let bool_scalar = |t: Type| matches!(types.get(t), TypeData::Bool);
    let ok = match op {
        Elect => bool_scalar(r),
        All | Any => bool_scalar(r) && bool_scalar(a[0]),
        AllEqual => bool_scalar(r) && kind(types, a[0]) != Kind::Other,
        Broadcast | Shuffle | ShuffleXor | ShuffleUp | ShuffleDown | QuadBroadcast | QuadSwap => {
            a[0] == r && kind(types, r) != Kind::Other && int_scalar(types, a[1])
        }
        BroadcastFirst => a[0] == r && kind(types, r) != Kind::Other,
        Ballot => uvec4(r) && bool_scalar(a[0]),
        InverseBallot => bool_scalar(r) && uvec4(a[0]),
        BallotBitExtract => bool_scalar(r) && uvec4(a[0]) && int_scalar(types, a[1]),
        BallotBitCount | BallotFindLsb | BallotFindMsb => int_scalar(types, r) && uvec4(a[0]),
        UMin | UMax => a[0] == r && unsigned(types, r),
        IAdd | IMul | SMin | SMax | BitwiseAnd | BitwiseOr | BitwiseXor => {
            a[0] == r && kind(types, r) == Kind::Int
        }
        FAdd | FMul | FMin | FMax => a[0] == r && kind(types, r) == Kind::Float,
        LogicalAnd | LogicalOr | LogicalXor => a[0] == r && kind(types, r) == Kind::Bool,
    };
    if !ok {
        cx.fail(format!(
            "{}: operand types do not fit result {}",
            op.name(),
            cx.name(r)
        ));
    }
    if op.takes_group_operation() != group.is_some() {
        cx.fail(format!(
            "{}: group operation {}",
            op.name(),
            if group.is_some() {
                "not allowed"
            } else {
                "missing"
            }
        ));
    }
    if op == BallotBitCount && group == Some(GroupOperation::ClusteredReduce) {
        cx.fail("group_ballot_bit_count: clustered reduce is not allowed");
    }
    if matches!(
        group,
        Some(
            GroupOperation::Reduce | GroupOperation::InclusiveScan | GroupOperation::ExclusiveScan
        )
    ) {
        let caps = [
            Capability::Kernel,
            Capability::GroupNonUniformArithmetic,
            Capability::GroupNonUniformBallot,
        ];
        cx.need_cap(&caps, "a reduce or scan group operation");
    }
    // Before SPIR-V 1.5 the lane of a broadcast is a constant.
    if matches!(op, Broadcast | QuadBroadcast)
        && cx.module.version < (1, 5)
        && !matches!(ops[1], Operand::Const(_))
    {
        cx.fail(format!(
            "{}: before SPIR-V 1.5 the lane must be a constant",
            op.name()
        ));
    }
    if group == Some(GroupOperation::ClusteredReduce) {
        let size = cx.const_int(ops[1]);
        let ok = size.is_some_and(|s| s >= 1 && s.is_power_of_two());
        cx.need(ok, "the cluster size must be a constant power of two");
        cx.need_cap(&[Capability::GroupNonUniformClustered], "clustered reduce");
    }
    if matches!(op, QuadSwap) {
        let ok = cx.const_int(ops[1]).is_some_and(|d| d <= 2);
        cx.need(
            ok,
            "group_quad_swap: the direction must be a constant 0, 1 or 2",
        );
    }
    if !matches!(scope, Scope::Subgroup | Scope::Workgroup) {
        cx.fail(format!(
            "{}: the execution scope must be subgroup or workgroup",
            op.name()
        ));
    }
    // The SPIR-V grammar's capability lists: any one of them enables the operation.
    let caps: &[Capability] = match op {
        Elect => &[Capability::GroupNonUniform],
        All | Any | AllEqual => &[Capability::GroupNonUniformVote],
        Broadcast | BroadcastFirst | Ballot | InverseBallot | BallotBitExtract | BallotBitCount
        | BallotFindLsb | BallotFindMsb => &[Capability::GroupNonUniformBallot],
        Shuffle | ShuffleXor => &[Capability::GroupNonUniformShuffle],
        ShuffleUp | ShuffleDown => &[Capability::GroupNonUniformShuffleRelative],
        QuadBroadcast | QuadSwap => &[Capability::GroupNonUniformQuad],
        _ => &[
            Capability::GroupNonUniformArithmetic,
            Capability::GroupNonUniformClustered,
            Capability::GroupNonUniformPartitionedNV,
        ],
    };
    cx.need_cap(caps, op.name());
}
