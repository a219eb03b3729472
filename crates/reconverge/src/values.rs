//! The per-instruction rules: whether an instruction's result is uniform given which of its
//! operands are. Control dependence (phis at joins, values leaving divergent regions) is
//! `control.rs`'s; this file only answers "same inputs in every lane of the tangle, and an
//! operation that gives every lane the same output for them?".

use spirv::{BuiltIn, StorageClass};
use tangle_ir::{Function, GroupOp, GroupOperation, InstData, Module, Op, Operand, PlainOp};

use crate::memory::{self, Root, Writes};

/// Whether input built-in `b` holds one value for every lane of a subgroup. The ids of the
/// workgroup and of the subgroup, and the sizes, are shared by all its lanes; every
/// per-invocation id and the lane masks differ between lanes. Anything not listed is taken
/// to differ.
pub(crate) fn builtin_is_uniform(b: BuiltIn) -> bool {
    matches!(
        b,
        BuiltIn::WorkgroupId
            | BuiltIn::NumWorkgroups
            | BuiltIn::WorkgroupSize
            | BuiltIn::SubgroupSize
            | BuiltIn::SubgroupId
            | BuiltIn::NumSubgroups
    )
}

/// What the rules need to know about the module and the state of the fixpoint.
pub(crate) struct Facts<'a> {
    pub(crate) module: &'a Module,
    pub(crate) writes: &'a Writes,
}

/// Whether `inst`'s result is uniform when `uniform(op)` tells which operands are.
/// `call_uniform` answers for a callee whether its result is uniform. Phis are not handled
/// here (their operands come from different predecessors; see `control.rs`): for a phi this
/// answers whether every incoming value is uniform.
pub(crate) fn result_is_uniform(
    facts: &Facts<'_>,
    func: &Function,
    inst: &InstData,
    uniform: &dyn Fn(Operand) -> bool,
    call_uniform: &dyn Fn(tangle_ir::Func) -> bool,
) -> bool {
    let all_args = || inst.args.iter().all(|a| uniform(*a));
    match &inst.op {
        // Each lane gets its own variable; the pointer names different memory in each.
        Op::Variable(_) => false,
        // Read-modify-writes return each lane's own old value; even an atomic load may see
        // other lanes' writes in between.
        Op::Atomic { .. } => false,
        Op::Load(_) => load_is_uniform(facts, func, inst, uniform),
        Op::Call(f) => call_uniform(*f),
        Op::Group { op, group, .. } => group_is_uniform(*op, *group, inst, uniform),
        Op::Plain(PlainOp::Undef) => true,
        Op::Plain(PlainOp::AccessChain) => {
            // A pointer into per-lane memory differs between lanes whatever its indices.
            let per_lane = inst
                .args
                .first()
                .and_then(|b| memory::storage_class(facts.module, func, *b))
                .is_none_or(memory::is_per_lane);
            !per_lane && all_args()
        }
        Op::Plain(_)
        | Op::Glsl(_)
        | Op::CompositeExtract(_)
        | Op::CompositeInsert(_)
        | Op::VectorShuffle(_)
        | Op::ArrayLength(_)
        | Op::Phi(_) => all_args(),
        // Tokens and barrier names have no per-lane data: every lane executing the
        // operation gets the same token or barrier.
        Op::Tangle(_) => true,
        Op::Store(_) | Op::ControlBarrier { .. } | Op::MemoryBarrier { .. } => true,
    }
}

/// A load is uniform when every lane reads the same bytes: built-ins by [`builtin_is_uniform`];
/// per-lane memory never (each lane has its own copy); read-only memory (`Uniform`,
/// `PushConstant`, `UniformConstant`) at a uniform address; other shared memory (storage
/// buffers, workgroup memory) at a uniform address only when the module never writes the
/// variable, so no lane of this or another subgroup can change it during the dispatch.
fn load_is_uniform(
    facts: &Facts<'_>,
    func: &Function,
    inst: &InstData,
    uniform: &dyn Fn(Operand) -> bool,
) -> bool {
    let Some(&ptr) = inst.args.first() else {
        return false;
    };
    let Some(sc) = memory::storage_class(facts.module, func, ptr) else {
        return false;
    };
    let root = memory::root(func, ptr);
    match sc {
        StorageClass::Input => match root {
            Root::Global(g) => facts
                .module
                .globals
                .get(g)
                .and_then(|d| d.decorations.builtin)
                .is_some_and(builtin_is_uniform),
            Root::Unknown => false,
        },
        sc if memory::is_per_lane(sc) => false,
        StorageClass::Uniform | StorageClass::PushConstant | StorageClass::UniformConstant => {
            uniform(ptr)
        }
        _ => {
            uniform(ptr)
                && matches!(root, Root::Global(g) if facts.writes.is_read_only(facts.module, g))
        }
    }
}

/// Subgroup operations whose result is one value for the whole tangle that executes them
/// (votes, ballots, broadcasts, reductions), given uniform operands where the result reads
/// them per lane. Scans, elect, inverse ballots, shuffles and quad operations give each lane
/// its own result.
fn group_is_uniform(
    op: GroupOp,
    group: Option<GroupOperation>,
    inst: &InstData,
    uniform: &dyn Fn(Operand) -> bool,
) -> bool {
    use GroupOp::*;
    let arg = |i: usize| inst.args.get(i).is_some_and(|a| uniform(*a));
    match op {
        All | Any | AllEqual | Ballot | BroadcastFirst => true,
        // The lane index must be dynamically uniform; with a divergent one the result is
        // whatever each lane's chosen lane holds.
        Broadcast => arg(1),
        BallotBitExtract => arg(0) && arg(1),
        BallotFindLsb | BallotFindMsb => arg(0),
        BallotBitCount => group == Some(GroupOperation::Reduce) && arg(0),
        Elect | InverseBallot | Shuffle | ShuffleXor | ShuffleUp | ShuffleDown | QuadBroadcast
        | QuadSwap => false,
        IAdd | FAdd | IMul | FMul | SMin | UMin | FMin | SMax | UMax | FMax | BitwiseAnd
        | BitwiseOr | BitwiseXor | LogicalAnd | LogicalOr | LogicalXor => {
            group == Some(GroupOperation::Reduce)
        }
    }
}
