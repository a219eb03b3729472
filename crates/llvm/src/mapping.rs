//! The correspondence between tangle's operations and LLVM's, shared by the reader and the
//! writer so that the two cannot drift apart.

use tangle_ir::ops::{GroupOp, GroupOperation, PlainOp, TangleOp};

/// LLVM binary operators (`add`, `fdiv`, ...) and the tangle operation each stands for.
/// Integer operations on `i1` are the logical ones (see [`logical_binary`]).
pub const BINARY: &[(&str, PlainOp)] = &[
    ("add", PlainOp::IAdd),
    ("sub", PlainOp::ISub),
    ("mul", PlainOp::IMul),
    ("udiv", PlainOp::UDiv),
    ("sdiv", PlainOp::SDiv),
    ("urem", PlainOp::UMod),
    ("srem", PlainOp::SRem),
    ("fadd", PlainOp::FAdd),
    ("fsub", PlainOp::FSub),
    ("fmul", PlainOp::FMul),
    ("fdiv", PlainOp::FDiv),
    ("frem", PlainOp::FRem),
    ("shl", PlainOp::ShiftLeftLogical),
    ("lshr", PlainOp::ShiftRightLogical),
    ("ashr", PlainOp::ShiftRightArithmetic),
    ("and", PlainOp::BitwiseAnd),
    ("or", PlainOp::BitwiseOr),
    ("xor", PlainOp::BitwiseXor),
];

/// `and`/`or`/`xor` on `i1`: tangle's logical operations (`xor` is `logical_ne`).
pub const LOGICAL_BINARY: &[(&str, PlainOp)] = &[
    ("and", PlainOp::LogicalAnd),
    ("or", PlainOp::LogicalOr),
    ("xor", PlainOp::LogicalNotEqual),
];

/// The logical operation of an integer operator applied to `i1`.
pub fn logical_binary(name: &str) -> Option<PlainOp> {
    LOGICAL_BINARY
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, p)| p)
}

/// `icmp` predicates (`icmp eq i1` is `logical_eq`).
pub const ICMP: &[(&str, PlainOp)] = &[
    ("eq", PlainOp::IEqual),
    ("ne", PlainOp::INotEqual),
    ("ugt", PlainOp::UGreaterThan),
    ("uge", PlainOp::UGreaterThanEqual),
    ("ult", PlainOp::ULessThan),
    ("ule", PlainOp::ULessThanEqual),
    ("sgt", PlainOp::SGreaterThan),
    ("sge", PlainOp::SGreaterThanEqual),
    ("slt", PlainOp::SLessThan),
    ("sle", PlainOp::SLessThanEqual),
];

/// `fcmp` predicates.
pub const FCMP: &[(&str, PlainOp)] = &[
    ("oeq", PlainOp::FOrdEqual),
    ("one", PlainOp::FOrdNotEqual),
    ("olt", PlainOp::FOrdLessThan),
    ("ole", PlainOp::FOrdLessThanEqual),
    ("ogt", PlainOp::FOrdGreaterThan),
    ("oge", PlainOp::FOrdGreaterThanEqual),
    ("ueq", PlainOp::FUnordEqual),
    ("une", PlainOp::FUnordNotEqual),
    ("ult", PlainOp::FUnordLessThan),
    ("ule", PlainOp::FUnordLessThanEqual),
    ("ugt", PlainOp::FUnordGreaterThan),
    ("uge", PlainOp::FUnordGreaterThanEqual),
];

/// Casts whose tangle operation does not depend on the widths.
pub const CASTS: &[(&str, PlainOp)] = &[
    ("fptoui", PlainOp::ConvertFToU),
    ("fptosi", PlainOp::ConvertFToS),
    ("uitofp", PlainOp::ConvertUToF),
    ("sitofp", PlainOp::ConvertSToF),
    ("bitcast", PlainOp::Bitcast),
    ("zext", PlainOp::UConvert),
    ("sext", PlainOp::SConvert),
    ("fpext", PlainOp::FConvert),
    ("fptrunc", PlainOp::FConvert),
];

/// The LLVM names of the token operations.
pub fn token_intrinsic(op: TangleOp) -> Option<&'static str> {
    match op {
        TangleOp::ConvEntry => Some("llvm.experimental.convergence.entry"),
        TangleOp::ConvAnchor => Some("llvm.experimental.convergence.anchor"),
        TangleOp::ConvLoop => Some("llvm.experimental.convergence.loop"),
        _ => None,
    }
}

/// The token operation an intrinsic name stands for.
pub fn token_op(name: &str) -> Option<TangleOp> {
    [
        TangleOp::ConvEntry,
        TangleOp::ConvAnchor,
        TangleOp::ConvLoop,
    ]
    .into_iter()
    .find(|&t| token_intrinsic(t) == Some(name))
}

/// The prefix of the convergent functions that stand for subgroup operations.
pub const SUBGROUP_PREFIX: &str = "tangle.subgroup.";

/// The text of a group operation in a subgroup function name.
pub fn group_operation_name(g: GroupOperation) -> &'static str {
    match g {
        GroupOperation::Reduce => "reduce",
        GroupOperation::InclusiveScan => "inclusive_scan",
        GroupOperation::ExclusiveScan => "exclusive_scan",
        GroupOperation::ClusteredReduce => "clustered_reduce",
    }
}

/// The group operation spelled `name` in a subgroup function name.
pub fn group_operation(name: &str) -> Option<GroupOperation> {
    [
        GroupOperation::Reduce,
        GroupOperation::InclusiveScan,
        GroupOperation::ExclusiveScan,
        GroupOperation::ClusteredReduce,
    ]
    .into_iter()
    .find(|&g| group_operation_name(g) == name)
}

/// The stem of the function standing for a subgroup operation: `tangle.subgroup.` and the
/// mnemonic without `group_`, then the group operation for reductions and scans
/// (`tangle.subgroup.iadd.reduce`). The writer appends the operand and result types to
/// keep LLVM's one-signature-per-name rule; the reader ignores what follows the stem.
pub fn subgroup_stem(op: GroupOp, group: Option<GroupOperation>) -> String {
    let base = op.name().trim_start_matches("group_");
    match group {
        Some(g) => format!("{SUBGROUP_PREFIX}{base}.{}", group_operation_name(g)),
        None => format!("{SUBGROUP_PREFIX}{base}"),
    }
}

/// The subgroup operation a function name stands for: `(op, group operation)`.
pub fn subgroup_op(name: &str) -> Option<(GroupOp, Option<GroupOperation>)> {
    let rest = name.strip_prefix(SUBGROUP_PREFIX)?;
    let mut parts = rest.split('.');
    let op = GroupOp::from_name(&format!("group_{}", parts.next()?))?;
    let group = parts.next().and_then(group_operation);
    if op.takes_group_operation() != group.is_some() {
        return None;
    }
    Some((op, group))
}

/// The LLVM address space `--emit ll` gives pointers of a SPIR-V storage class: 0 (the
/// default) for a lane's own memory (function, private), 1 for storage buffers, 3 for
/// workgroup memory, 4 for uniform and push-constant data, 5 for inputs and 6 for outputs
/// (the numbers follow AMDGPU's global, local and constant spaces where there is one).
pub fn address_space(storage: spirv::StorageClass) -> u32 {
    use spirv::StorageClass as S;
    match storage {
        S::StorageBuffer | S::CrossWorkgroup | S::PhysicalStorageBuffer => 1,
        S::Workgroup => 3,
        S::Uniform | S::UniformConstant | S::PushConstant => 4,
        S::Input => 5,
        S::Output => 6,
        _ => 0,
    }
}
