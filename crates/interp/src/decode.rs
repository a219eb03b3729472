//! What the interpreter looks up on every executed instruction, computed once per module:
//! per instruction its operands resolved to where their values live ([`Src`]), operand and
//! result types, the result's slot, and a fast path ([`Fast`]) where one applies; per block
//! the phis of every incoming edge.
//!
//! The fast paths cover the instructions conformance-style programs spend their time in
//! (32-bit and narrower integer arithmetic, comparisons, booleans, copies, scalar loads
//! and stores, access chains with constant indices). Each applies only to lanes whose
//! operands are defined scalars (or defined pointers); any other lane takes the general
//! path through `tangle_lanes`, so the two cannot disagree on undefined values.

use tangle_ir::{Block, Func, Module, Op, Operand, PlainOp, Type, TypeData, TypeTable};
use tangle_lanes::value::Val;

use crate::short::Short;

/// Where an operand's value lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Src {
    /// An SSA value of the running function (its number).
    Value(u32),
    /// A module constant (its number).
    Const(u32),
    /// A global's pointer, per lane (its number).
    Global(u32),
}

impl Src {
    /// Where operand `o` lives.
    pub(crate) fn of(o: Operand) -> Src {
        match o {
            Operand::Value(v) => Src::Value(v.as_u32()),
            Operand::Const(c) => Src::Const(c.as_u32()),
            Operand::Global(g) => Src::Global(g.as_u32()),
        }
    }
}

/// An integer binary operation a fast path computes on defined scalars.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntBin {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
}

/// An integer operation a fast path computes on defined scalars only where its result is
/// defined: a division by a nonzero divisor, a shift by less than the width (elsewhere the
/// general path makes the undefined value and its message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntPartial {
    UDiv,
    UMod,
    Shl,
    Shr,
    Sar,
}

/// An integer comparison a fast path computes on defined scalars.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntCmp {
    Eq,
    Ne,
    UGt,
    UGe,
    ULt,
    ULe,
    SGt,
    SGe,
    SLt,
    SLe,
}

/// A boolean operation a fast path computes on defined booleans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BoolOp {
    And,
    Or,
    Eq,
    Ne,
}

/// The fast path of an instruction, if it has one (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fast {
    /// No fast path.
    None,
    /// Integer arithmetic on scalars of one width: the result masked to it.
    Int(IntBin, u64),
    /// An integer operation at this width, fast only where defined (see [`IntPartial`]).
    IntPartial(IntPartial, u32),
    /// Integer comparison at this operand width.
    Cmp(IntCmp, u32),
    /// Boolean logic.
    Bool(BoolOp),
    /// Logical not.
    Not,
    /// `select` on a scalar condition between scalars.
    Select,
    /// A copy of a defined scalar (`copy_object`, a same-width scalar `bitcast`).
    Copy,
    /// A load of an integer or float scalar of this many bytes.
    LoadBits(u8),
    /// A store of an integer or float scalar of this many bytes.
    StoreBits(u8),
    /// A store of a vector of `count` integer or float components of `bytes` bytes each,
    /// `stride` bytes apart (the vector type's stride, as the general write uses it).
    StoreVec { bytes: u8, count: u8, stride: u64 },
    /// `group_elect` at subgroup scope.
    Elect,
    /// `group_ballot` at subgroup scope.
    Ballot,
    /// An integer reduction or scan at subgroup scope (`group` is `None`, a reduce or a
    /// scan) of scalars of `width` bits, the result of the operand's type.
    GroupInt {
        op: tangle_ir::GroupOp,
        width: u32,
        group: Option<tangle_ir::GroupOperation>,
    },
    /// An access chain whose struct indices are constants: its steps are in
    /// [`DInst::chain`] (constant indices checked at decode time against fixed sizes).
    Chain,
}

/// One instruction, pre-decoded.
#[derive(Debug)]
pub(crate) struct DInst {
    /// Its operands (inline up to four: no allocation per instruction, `short.rs`).
    pub(crate) args: Short<Src>,
    /// The operand types (likewise).
    pub(crate) atys: Short<Type>,
    /// The result type.
    pub(crate) rty: Option<Type>,
    /// The result's value number.
    pub(crate) result: Option<u32>,
    /// Its fast path.
    pub(crate) fast: Fast,
    /// For [`Fast::Chain`]: the byte offsets the indices add.
    pub(crate) chain: ChainPlan,
    /// For a function `variable`: its number among the module's function variables (the
    /// engine keeps one region per variable and lane, reused by every execution).
    pub(crate) var_slot: Option<u32>,
}

/// The phis of one incoming edge of a block: per phi its result and its operand on that edge.
#[derive(Debug, Default)]
pub(crate) struct EdgePhis {
    pub(crate) from: Option<Block>,
    pub(crate) copies: Vec<(u32, Src)>,
    /// No copy reads a result of this edge, so the copies can run one after another (each
    /// as one loop over the edge's lanes) instead of reading all before writing any.
    pub(crate) sequential: bool,
}

/// One switch's case targets, each with the case target it can fall into.
pub(crate) type CaseFallthrough = Vec<(Block, Option<Block>)>;

/// One function's pre-decoded facts, indexed by instruction and block number.
#[derive(Debug, Default)]
pub(crate) struct FuncFacts {
    /// Per instruction.
    pub(crate) insts: Vec<DInst>,
    /// Per block: how many phis it starts with.
    pub(crate) phis: Vec<usize>,
    /// Per block: its phis per incoming edge (empty without phis).
    pub(crate) edges: Vec<Vec<EdgePhis>>,
    /// How many SSA values the function has.
    pub(crate) values: usize,
    /// Per switch header (only under `FallthroughPolicy::Merge`): each case target with
    /// the case target it can fall into, from the shared construct tree
    /// (`ConstructTree::executable_case_fallthrough`).
    pub(crate) fallthrough: Vec<(Block, CaseFallthrough)>,
}

impl FuncFacts {
    /// How many phis `block` starts with.
    pub(crate) fn phis(&self, block: Block) -> usize {
        self.phis[block.as_u32() as usize]
    }
}

/// The facts of every function of `module`, indexed by function number.
/// `consts` are the module's constants after specialization; `case_fallthrough` asks for
/// the switches' fallthrough pairs. Also returns how many function variables the module
/// has.
pub(crate) fn decode(
    module: &Module,
    consts: &[Val],
    case_fallthrough: bool,
) -> (Vec<FuncFacts>, usize) {
    let mut slots = 0u32;
    let var_slots = &mut slots;
    let facts = module
        .funcs
        .iter()
        .map(|(_, f): (Func, _)| {
            let mut facts = FuncFacts {
                values: f.values.len(),
                ..FuncFacts::default()
            };
            facts.insts.reserve_exact(f.insts.len());
            for (i, d) in f.insts.iter() {
                let n = i.as_u32() as usize;
                while facts.insts.len() <= n {
                    facts.insts.push(DInst {
                        args: Short::default(),
                        atys: Short::default(),
                        rty: None,
                        result: None,
                        fast: Fast::None,
                        chain: ChainPlan::default(),
                        var_slot: None,
                    });
                }
                let mut atys: Short<Type> =
                    d.args.iter().map(|a| module.operand_type(f, *a)).collect();
                let mut rty = d.result.map(|v| f.values[v].ty);
                // Loads and stores move values as the memory's type lays them out: a
                // laid-out matrix or a row-major matrix's column is not where its plain value
                // type would put it (`TypeTable::same_value_type`).
                if let Some(pointee) = atys.first().and_then(|p| module.types.pointer(*p)) {
                    match d.op {
                        Op::Load(_) => rty = Some(pointee.1),
                        Op::Store(_) if atys.len() == 2 => atys[1] = pointee.1,
                        _ => {}
                    }
                }
                let mut fast = fast_path(&module.types, &d.op, &atys, rty);
                let mut chain = ChainPlan::default();
                if matches!(d.op, Op::Plain(PlainOp::AccessChain)) {
                    if let Some(plan) = chain_plan(module, consts, &d.args, &atys) {
                        fast = Fast::Chain;
                        chain = plan;
                    }
                }
                facts.insts[n] = DInst {
                    args: d.args.iter().map(|a| Src::of(*a)).collect(),
                    atys,
                    rty,
                    result: d.result.map(|v| v.as_u32()),
                    fast,
                    chain,
                    var_slot: matches!(d.op, Op::Variable(_)).then(|| {
                        *var_slots += 1;
                        *var_slots - 1
                    }),
                };
            }
            let nblocks = f.blocks.len();
            facts.phis = vec![0; nblocks];
            facts.edges = (0..nblocks).map(|_| Vec::new()).collect();
            for (b, bd) in f.blocks.iter() {
                let n = b.as_u32() as usize;
                let phis: Vec<_> = bd
                    .insts
                    .iter()
                    .take_while(|i| matches!(f.insts[**i].op, Op::Phi(_)))
                    .collect();
                facts.phis[n] = phis.len();
                let mut edges: Vec<EdgePhis> = Vec::new();
                for &&i in &phis {
                    let d = &f.insts[i];
                    let Op::Phi(blocks) = &d.op else {
                        unreachable!("taken while phi")
                    };
                    let Some(result) = d.result else { continue };
                    for (k, from) in blocks.iter().enumerate() {
                        let Some(arg) = d.args.get(k) else { continue };
                        let e = match edges.iter_mut().position(|e| e.from == Some(*from)) {
                            Some(p) => &mut edges[p],
                            None => {
                                edges.push(EdgePhis {
                                    from: Some(*from),
                                    copies: Vec::new(),
                                    sequential: false,
                                });
                                edges.last_mut().expect("pushed")
                            }
                        };
                        // The first operand for a block wins, as a lookup by block would.
                        if !e.copies.iter().any(|(r, _)| *r == result.as_u32()) {
                            e.copies.push((result.as_u32(), Src::of(*arg)));
                        }
                    }
                }
                for e in &mut edges {
                    e.sequential = !e.copies.iter().any(|(_, src)| {
                        matches!(src, Src::Value(v) if e.copies.iter().any(|(r, _)| r == v))
                    });
                }
                // An edge that misses a phi has no complete copy list: the engine reports
                // the missing incoming value (see `phis.rs`).
                facts.edges[n] = edges;
            }
            if case_fallthrough {
                facts.fallthrough = switch_fallthrough(f);
            }
            facts
        })
        .collect();
    (facts, slots as usize)
}

/// Per reachable structured switch header of `f`: its case targets with the case target
/// each can fall into.
fn switch_fallthrough(f: &tangle_ir::Function) -> Vec<(Block, CaseFallthrough)> {
    use tangle_ir::analysis::{Cfg, ConstructTree, DomTree};
    let headers: Vec<Block> = f
        .layout
        .iter()
        .copied()
        .filter(|b| {
            matches!(f.blocks[*b].term, tangle_ir::Terminator::Switch { .. })
                && matches!(f.blocks[*b].merge, Some(tangle_ir::Merge::Selection { .. }))
        })
        .collect();
    if headers.is_empty() {
        return Vec::new();
    }
    let tree = ConstructTree::new(f);
    let dom = DomTree::new(f, &Cfg::new(f));
    headers
        .into_iter()
        .filter(|h| dom.is_reachable(*h))
        .map(|h| (h, tree.executable_case_fallthrough(f, &dom, h)))
        .collect()
}

/// The width in bits of an integer scalar type, or `None`.
fn int_width(types: &TypeTable, ty: Type) -> Option<u32> {
    match types.get(ty) {
        TypeData::Int { width, .. } if *width <= 64 => Some(u32::from(*width)),
        _ => None,
    }
}

/// The byte size of an integer or float scalar type, or `None`.
fn scalar_bytes(types: &TypeTable, ty: Type) -> Option<u8> {
    match types.get(ty) {
        TypeData::Int { width, .. } | TypeData::Float { width } if *width <= 64 => Some(*width / 8),
        _ => None,
    }
}

/// The fast path of an instruction (see [`Fast`]).
pub(crate) fn fast_path(types: &TypeTable, op: &Op, atys: &[Type], rty: Option<Type>) -> Fast {
    use PlainOp as P;
    match op {
        Op::Plain(p) => {
            let Some(rty) = rty else { return Fast::None };
            let int_bin = |b| match (int_width(types, rty), atys) {
                (Some(w), [a, c])
                    if int_width(types, *a) == Some(w) && int_width(types, *c) == Some(w) =>
                {
                    Fast::Int(b, tangle_lanes::value::mask(w))
                }
                _ => Fast::None,
            };
            // A division's operands have the result's width; a shift's amount any width.
            let partial = |p, same: bool| match (int_width(types, rty), atys) {
                (Some(w), [a, b])
                    if int_width(types, *a) == Some(w)
                        && int_width(types, *b).is_some_and(|v| v == w || !same) =>
                {
                    Fast::IntPartial(p, w)
                }
                _ => Fast::None,
            };
            let int_cmp = |c| match (types.get(rty), atys) {
                (TypeData::Bool, [a, b]) => match (int_width(types, *a), int_width(types, *b)) {
                    (Some(w), Some(v)) if w == v => Fast::Cmp(c, w),
                    _ => Fast::None,
                },
                _ => Fast::None,
            };
            let all_bool = |n: usize| {
                matches!(types.get(rty), TypeData::Bool)
                    && atys.len() == n
                    && atys.iter().all(|a| matches!(types.get(*a), TypeData::Bool))
            };
            match p {
                P::IAdd => int_bin(IntBin::Add),
                P::ISub => int_bin(IntBin::Sub),
                P::IMul => int_bin(IntBin::Mul),
                P::BitwiseAnd => int_bin(IntBin::And),
                P::BitwiseOr => int_bin(IntBin::Or),
                P::BitwiseXor => int_bin(IntBin::Xor),
                P::UDiv => partial(IntPartial::UDiv, true),
                P::UMod => partial(IntPartial::UMod, true),
                P::ShiftLeftLogical => partial(IntPartial::Shl, false),
                P::ShiftRightLogical => partial(IntPartial::Shr, false),
                P::ShiftRightArithmetic => partial(IntPartial::Sar, false),
                P::IEqual => int_cmp(IntCmp::Eq),
                P::INotEqual => int_cmp(IntCmp::Ne),
                P::UGreaterThan => int_cmp(IntCmp::UGt),
                P::UGreaterThanEqual => int_cmp(IntCmp::UGe),
                P::ULessThan => int_cmp(IntCmp::ULt),
                P::ULessThanEqual => int_cmp(IntCmp::ULe),
                P::SGreaterThan => int_cmp(IntCmp::SGt),
                P::SGreaterThanEqual => int_cmp(IntCmp::SGe),
                P::SLessThan => int_cmp(IntCmp::SLt),
                P::SLessThanEqual => int_cmp(IntCmp::SLe),
                P::LogicalAnd if all_bool(2) => Fast::Bool(BoolOp::And),
                P::LogicalOr if all_bool(2) => Fast::Bool(BoolOp::Or),
                P::LogicalEqual if all_bool(2) => Fast::Bool(BoolOp::Eq),
                P::LogicalNotEqual if all_bool(2) => Fast::Bool(BoolOp::Ne),
                P::LogicalNot if all_bool(1) => Fast::Not,
                P::Select
                    if atys.len() == 3
                        && matches!(types.get(atys[0]), TypeData::Bool)
                        && scalar_bytes(types, rty).is_some()
                        && atys[1] == rty
                        && atys[2] == rty =>
                {
                    Fast::Select
                }
                P::CopyObject if scalar_bytes(types, rty).is_some() => Fast::Copy,
                P::Bitcast
                    if atys.len() == 1
                        && scalar_bytes(types, rty).is_some()
                        && scalar_bytes(types, rty) == scalar_bytes(types, atys[0]) =>
                {
                    Fast::Copy
                }
                _ => Fast::None,
            }
        }
        Op::Load(_) => match rty.and_then(|t| scalar_bytes(types, t)) {
            Some(n) => Fast::LoadBits(n),
            None => Fast::None,
        },
        Op::Store(_) => match atys.get(1).and_then(|t| scalar_bytes(types, *t)) {
            Some(n) => Fast::StoreBits(n),
            None => match atys.get(1).map(|t| (*t, types.get(*t))) {
                Some((vty, TypeData::Vector { elem, count })) => match scalar_bytes(types, *elem) {
                    Some(bytes) => Fast::StoreVec {
                        bytes,
                        count: *count,
                        stride: tangle_lanes::value::array_stride(types, vty),
                    },
                    None => Fast::None,
                },
                _ => Fast::None,
            },
        },
        Op::Group {
            op,
            scope: spirv::Scope::Subgroup,
            group: None,
        } => match op {
            tangle_ir::GroupOp::Elect if rty.is_some() => Fast::Elect,
            tangle_ir::GroupOp::Ballot if rty.is_some() && atys.len() == 1 => Fast::Ballot,
            _ => group_int(types, *op, None, atys, rty),
        },
        Op::Group {
            op,
            scope: spirv::Scope::Subgroup,
            group: Some(g),
        } => group_int(types, *op, Some(*g), atys, rty),
        _ => Fast::None,
    }
}

/// [`Fast::GroupInt`] for an integer reduction (`tangle_lanes::group::int_identity`
/// knows it) that reduces or scans one scalar integer operand into its own type.
fn group_int(
    types: &TypeTable,
    op: tangle_ir::GroupOp,
    group: Option<tangle_ir::GroupOperation>,
    atys: &[Type],
    rty: Option<Type>,
) -> Fast {
    use tangle_ir::GroupOperation as G;
    let (Some(rty), [a]) = (rty, atys) else {
        return Fast::None;
    };
    match (int_width(types, rty), group) {
        (Some(width), None | Some(G::Reduce | G::InclusiveScan | G::ExclusiveScan))
            if *a == rty && tangle_lanes::group::int_identity(op, width).is_some() =>
        {
            Fast::GroupInt { op, width, group }
        }
        _ => Fast::None,
    }
}

/// An access chain's fast path as the engine runs it: the sum of its constant offsets and
/// its dynamic indices, each with its operand resolved. Wrapping addition is associative
/// and commutative, so adding the constants first gives the offset the steps in order
/// give; the indices are checked in their order as before (any failing one sends the lane
/// to the general path, which reports the first).
#[derive(Debug, Default)]
pub(crate) struct ChainPlan {
    /// The constant steps' byte offsets, summed (wrapping).
    pub(crate) konst: u64,
    /// The dynamic indices, in chain order.
    pub(crate) dyns: Dyns,
}

/// The dynamic indices of a [`ChainPlan`]: none or one (a record word's chain has one)
/// without a heap allocation, more in a boxed slice. Reads as a slice.
#[derive(Debug, Default)]
pub(crate) enum Dyns {
    /// No dynamic index.
    #[default]
    None,
    /// Exactly one.
    One(DynIndex),
    /// Two or more.
    Many(Box<[DynIndex]>),
}

impl Dyns {
    /// The indices, in chain order.
    #[inline]
    pub(crate) fn as_slice(&self) -> &[DynIndex] {
        match self {
            Dyns::None => &[],
            Dyns::One(d) => std::slice::from_ref(d),
            Dyns::Many(ds) => ds,
        }
    }

    /// Appends `d`.
    fn push(&mut self, d: DynIndex) {
        *self = match std::mem::take(self) {
            Dyns::None => Dyns::One(d),
            Dyns::One(first) => Dyns::Many(Box::new([first, d])),
            Dyns::Many(ds) => Dyns::Many(ds.iter().copied().chain([d]).collect()),
        };
    }
}

/// One dynamic index of a [`ChainPlan`]: operand `src`, an integer of `width` bits
/// (sign-extended), times `stride` bytes, below `bound` when the array or vector is fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DynIndex {
    pub(crate) src: Src,
    pub(crate) width: u32,
    pub(crate) stride: u64,
    pub(crate) bound: Option<u64>,
}

impl DynIndex {
    /// The byte offset this index adds for an operand slot: `None` (the general path) when
    /// it is not a defined integer, is negative, or is out of a fixed bound.
    #[inline(always)]
    pub(crate) fn offset(&self, s: &crate::slot::Slot) -> Option<u64> {
        let &crate::slot::Slot::Bits(b) = s else {
            return None;
        };
        let i = tangle_lanes::value::sext(b, self.width);
        if i < 0 || self.bound.is_some_and(|n| i as u64 >= n) {
            return None;
        }
        Some((i as u64).wrapping_mul(self.stride))
    }
}

/// The plan of an access chain whose struct member indices are constants; constant
/// array and vector indices are checked against their fixed bounds here (`None`, the
/// general path, for anything out of bounds or unusual: it reports the problem per lane).
/// Made in one pass: the constant offset between two dynamic indices is added to the
/// plan's sum where a list of steps had it.
fn chain_plan(
    module: &Module,
    consts: &[Val],
    args: &[Operand],
    atys: &[Type],
) -> Option<ChainPlan> {
    use tangle_lanes::value::{array_stride, member_offset, sext};
    let types = &module.types;
    let (_, mut cur) = types.pointer(*atys.first()?)?;
    let mut plan = ChainPlan::default();
    let mut off = 0u64;
    for (k, (a, ity)) in args.iter().zip(atys).enumerate().skip(1) {
        let width = types.bit_width(*ity);
        let constant = match a {
            Operand::Const(c) => match consts.get(c.as_u32() as usize) {
                Some(Val::Bits(bits)) => Some(sext(*bits, width)),
                _ => return None,
            },
            _ => None,
        };
        let (elem, stride, bound) = match types.get(cur) {
            TypeData::Struct { members, .. } => {
                let i = constant?;
                let m = members.get(usize::try_from(i).ok()?)?;
                off += member_offset(types, cur, i as usize);
                cur = m.ty;
                continue;
            }
            TypeData::Array { elem, len, .. } => {
                (*elem, array_stride(types, cur), Some(u64::from(*len)))
            }
            TypeData::Vector { elem, count } => {
                (*elem, array_stride(types, cur), Some(u64::from(*count)))
            }
            TypeData::RuntimeArray { elem, .. } => (*elem, array_stride(types, cur), None),
            TypeData::Matrix { .. } | TypeData::StridedVector { .. } => (
                types.element(cur, None)?,
                array_stride(types, cur),
                Some(u64::from(types.matrix_or_column_len(cur))),
            ),
            _ => return None,
        };
        match constant {
            Some(i) if i >= 0 && bound.is_none_or(|n| (i as u64) < n) => {
                off += i as u64 * stride;
            }
            Some(_) => return None,
            None => {
                plan.konst = plan.konst.wrapping_add(off);
                off = 0;
                plan.dyns.push(DynIndex {
                    src: Src::of(args[k]),
                    width,
                    stride,
                    bound,
                });
            }
        }
        cur = elem;
    }
    plan.konst = plan.konst.wrapping_add(off);
    Some(plan)
}

#[cfg(test)]
mod tests {
    use super::{DynIndex, Dyns, Src};

    #[test]
    fn dyns_read_back_what_was_pushed_in_order() {
        let index = |k: u32| DynIndex {
            src: Src::Value(k),
            width: 32,
            stride: u64::from(k) * 4,
            bound: (k % 2 == 0).then_some(u64::from(k) + 1),
        };
        for n in 0..6 {
            let mut dyns = Dyns::default();
            for k in 0..n {
                dyns.push(index(k));
            }
            let want: Vec<DynIndex> = (0..n).map(index).collect();
            assert_eq!(dyns.as_slice(), &want[..], "{n} indices");
        }
    }
}
