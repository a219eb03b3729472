//! Operations: what an instruction does, with the immediates that are part of it.
//!
//! Operand values (SSA values, constants, globals) live in the instruction; everything that
//! SPIR-V requires to be a compile-time constant or literal (scopes, memory semantics,
//! composite indices, the callee) is an immediate of the [`Op`].

use spirv::{MemoryAccess, MemorySemantics, Scope, StorageClass};

use crate::list::SmallList;
use crate::module::{Block, Func};

/// How many value operands an operation takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// Exactly this many.
    Fixed(usize),
    /// At least this many.
    AtLeast(usize),
}

impl Arity {
    /// Whether `n` operands fit.
    pub fn accepts(self, n: usize) -> bool {
        match self {
            Arity::Fixed(k) => n == k,
            Arity::AtLeast(k) => n >= k,
        }
    }
}

macro_rules! op_table {
    ($(#[$attr:meta])* $name:ident { $($variant:ident = $text:literal, $spv:ident, $arity:expr;)* }) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $(
                #[doc = concat!("`Op", stringify!($spv), "`")]
                $variant,
            )*
        }

        impl $name {
            /// Every operation of this table.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The text-form mnemonic.
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text,)* }
            }

            /// The SPIR-V opcode.
            pub fn spirv(self) -> spirv::Op {
                match self { $($name::$variant => spirv::Op::$spv,)* }
            }

            /// The number of value operands.
            pub fn arity(self) -> Arity {
                match self { $($name::$variant => $arity,)* }
            }

            /// The operation with mnemonic `text`.
            pub fn from_name(text: &str) -> Option<Self> {
                match text { $($text => Some($name::$variant),)* _ => None }
            }

            /// The operation with SPIR-V opcode `op` (a `match`: the reader asks for every
            /// instruction it reads, and a search of `ALL` was ~560 instructions a call).
            pub fn from_spirv(op: spirv::Op) -> Option<Self> {
                match op { $(spirv::Op::$spv => Some($name::$variant),)* _ => None }
            }
        }
    };
}

use Arity::{AtLeast, Fixed};

op_table!(
    /// Operations whose only inputs are value operands: arithmetic, bitwise, comparisons,
    /// conversions and composite construction.
    PlainOp {
        SNegate = "sneg", SNegate, Fixed(1);
        FNegate = "fneg", FNegate, Fixed(1);
        IAdd = "iadd", IAdd, Fixed(2);
        FAdd = "fadd", FAdd, Fixed(2);
        ISub = "isub", ISub, Fixed(2);
        FSub = "fsub", FSub, Fixed(2);
        IMul = "imul", IMul, Fixed(2);
        FMul = "fmul", FMul, Fixed(2);
        UDiv = "udiv", UDiv, Fixed(2);
        SDiv = "sdiv", SDiv, Fixed(2);
        FDiv = "fdiv", FDiv, Fixed(2);
        UMod = "umod", UMod, Fixed(2);
        SRem = "srem", SRem, Fixed(2);
        SMod = "smod", SMod, Fixed(2);
        FRem = "frem", FRem, Fixed(2);
        FMod = "fmod", FMod, Fixed(2);
        VectorTimesScalar = "vector_times_scalar", VectorTimesScalar, Fixed(2);
        MatrixTimesScalar = "matrix_times_scalar", MatrixTimesScalar, Fixed(2);
        VectorTimesMatrix = "vector_times_matrix", VectorTimesMatrix, Fixed(2);
        MatrixTimesVector = "matrix_times_vector", MatrixTimesVector, Fixed(2);
        MatrixTimesMatrix = "matrix_times_matrix", MatrixTimesMatrix, Fixed(2);
        OuterProduct = "outer_product", OuterProduct, Fixed(2);
        Transpose = "transpose", Transpose, Fixed(1);
        Dot = "dot", Dot, Fixed(2);
        IAddCarry = "iadd_carry", IAddCarry, Fixed(2);
        ISubBorrow = "isub_borrow", ISubBorrow, Fixed(2);
        UMulExtended = "umul_extended", UMulExtended, Fixed(2);
        SMulExtended = "smul_extended", SMulExtended, Fixed(2);
        ShiftRightLogical = "shr_logical", ShiftRightLogical, Fixed(2);
        ShiftRightArithmetic = "shr_arith", ShiftRightArithmetic, Fixed(2);
        ShiftLeftLogical = "shl", ShiftLeftLogical, Fixed(2);
        BitwiseOr = "or", BitwiseOr, Fixed(2);
        BitwiseXor = "xor", BitwiseXor, Fixed(2);
        BitwiseAnd = "and", BitwiseAnd, Fixed(2);
        Not = "not", Not, Fixed(1);
        BitFieldInsert = "bitfield_insert", BitFieldInsert, Fixed(4);
        BitFieldSExtract = "bitfield_sextract", BitFieldSExtract, Fixed(3);
        BitFieldUExtract = "bitfield_uextract", BitFieldUExtract, Fixed(3);
        BitReverse = "bit_reverse", BitReverse, Fixed(1);
        BitCount = "bit_count", BitCount, Fixed(1);
        Any = "any", Any, Fixed(1);
        All = "all", All, Fixed(1);
        IsNan = "is_nan", IsNan, Fixed(1);
        IsInf = "is_inf", IsInf, Fixed(1);
        LogicalEqual = "logical_eq", LogicalEqual, Fixed(2);
        LogicalNotEqual = "logical_ne", LogicalNotEqual, Fixed(2);
        LogicalOr = "logical_or", LogicalOr, Fixed(2);
        LogicalAnd = "logical_and", LogicalAnd, Fixed(2);
        LogicalNot = "logical_not", LogicalNot, Fixed(1);
        Select = "select", Select, Fixed(3);
        IEqual = "ieq", IEqual, Fixed(2);
        INotEqual = "ine", INotEqual, Fixed(2);
        UGreaterThan = "ugt", UGreaterThan, Fixed(2);
        SGreaterThan = "sgt", SGreaterThan, Fixed(2);
        UGreaterThanEqual = "uge", UGreaterThanEqual, Fixed(2);
        SGreaterThanEqual = "sge", SGreaterThanEqual, Fixed(2);
        ULessThan = "ult", ULessThan, Fixed(2);
        SLessThan = "slt", SLessThan, Fixed(2);
        ULessThanEqual = "ule", ULessThanEqual, Fixed(2);
        SLessThanEqual = "sle", SLessThanEqual, Fixed(2);
        FOrdEqual = "foeq", FOrdEqual, Fixed(2);
        FUnordEqual = "fueq", FUnordEqual, Fixed(2);
        FOrdNotEqual = "fone", FOrdNotEqual, Fixed(2);
        FUnordNotEqual = "fune", FUnordNotEqual, Fixed(2);
        FOrdLessThan = "folt", FOrdLessThan, Fixed(2);
        FUnordLessThan = "fult", FUnordLessThan, Fixed(2);
        FOrdGreaterThan = "fogt", FOrdGreaterThan, Fixed(2);
        FUnordGreaterThan = "fugt", FUnordGreaterThan, Fixed(2);
        FOrdLessThanEqual = "fole", FOrdLessThanEqual, Fixed(2);
        FUnordLessThanEqual = "fule", FUnordLessThanEqual, Fixed(2);
        FOrdGreaterThanEqual = "foge", FOrdGreaterThanEqual, Fixed(2);
        FUnordGreaterThanEqual = "fuge", FUnordGreaterThanEqual, Fixed(2);
        ConvertFToU = "f_to_u", ConvertFToU, Fixed(1);
        ConvertFToS = "f_to_s", ConvertFToS, Fixed(1);
        ConvertSToF = "s_to_f", ConvertSToF, Fixed(1);
        ConvertUToF = "u_to_f", ConvertUToF, Fixed(1);
        UConvert = "uconvert", UConvert, Fixed(1);
        SConvert = "sconvert", SConvert, Fixed(1);
        FConvert = "fconvert", FConvert, Fixed(1);
        Bitcast = "bitcast", Bitcast, Fixed(1);
        CompositeConstruct = "composite_construct", CompositeConstruct, AtLeast(1);
        VectorExtractDynamic = "vector_extract_dynamic", VectorExtractDynamic, Fixed(2);
        VectorInsertDynamic = "vector_insert_dynamic", VectorInsertDynamic, Fixed(3);
        CopyObject = "copy", CopyObject, Fixed(1);
        AccessChain = "access_chain", AccessChain, AtLeast(1);
        Undef = "undef", Undef, Fixed(0);
    }
);

op_table!(
    /// Atomic memory operations (`OpAtomic*`). Operands: the pointer, then the values.
    AtomicOp {
        Load = "atomic_load", AtomicLoad, Fixed(1);
        Store = "atomic_store", AtomicStore, Fixed(2);
        Exchange = "atomic_exchange", AtomicExchange, Fixed(2);
        CompareExchange = "atomic_compare_exchange", AtomicCompareExchange, Fixed(3);
        IIncrement = "atomic_iincrement", AtomicIIncrement, Fixed(1);
        IDecrement = "atomic_idecrement", AtomicIDecrement, Fixed(1);
        IAdd = "atomic_iadd", AtomicIAdd, Fixed(2);
        ISub = "atomic_isub", AtomicISub, Fixed(2);
        SMin = "atomic_smin", AtomicSMin, Fixed(2);
        UMin = "atomic_umin", AtomicUMin, Fixed(2);
        SMax = "atomic_smax", AtomicSMax, Fixed(2);
        UMax = "atomic_umax", AtomicUMax, Fixed(2);
        And = "atomic_and", AtomicAnd, Fixed(2);
        Or = "atomic_or", AtomicOr, Fixed(2);
        Xor = "atomic_xor", AtomicXor, Fixed(2);
    }
);

op_table!(
    /// Subgroup (non-uniform group) operations (`OpGroupNonUniform*`), without their scope
    /// and group-operation immediates.
    GroupOp {
        Elect = "group_elect", GroupNonUniformElect, Fixed(0);
        All = "group_all", GroupNonUniformAll, Fixed(1);
        Any = "group_any", GroupNonUniformAny, Fixed(1);
        AllEqual = "group_all_equal", GroupNonUniformAllEqual, Fixed(1);
        Broadcast = "group_broadcast", GroupNonUniformBroadcast, Fixed(2);
        BroadcastFirst = "group_broadcast_first", GroupNonUniformBroadcastFirst, Fixed(1);
        Ballot = "group_ballot", GroupNonUniformBallot, Fixed(1);
        InverseBallot = "group_inverse_ballot", GroupNonUniformInverseBallot, Fixed(1);
        BallotBitExtract = "group_ballot_bit_extract", GroupNonUniformBallotBitExtract, Fixed(2);
        BallotBitCount = "group_ballot_bit_count", GroupNonUniformBallotBitCount, Fixed(1);
        BallotFindLsb = "group_ballot_find_lsb", GroupNonUniformBallotFindLSB, Fixed(1);
        BallotFindMsb = "group_ballot_find_msb", GroupNonUniformBallotFindMSB, Fixed(1);
        Shuffle = "group_shuffle", GroupNonUniformShuffle, Fixed(2);
        ShuffleXor = "group_shuffle_xor", GroupNonUniformShuffleXor, Fixed(2);
        ShuffleUp = "group_shuffle_up", GroupNonUniformShuffleUp, Fixed(2);
        ShuffleDown = "group_shuffle_down", GroupNonUniformShuffleDown, Fixed(2);
        IAdd = "group_iadd", GroupNonUniformIAdd, AtLeast(1);
        FAdd = "group_fadd", GroupNonUniformFAdd, AtLeast(1);
        IMul = "group_imul", GroupNonUniformIMul, AtLeast(1);
        FMul = "group_fmul", GroupNonUniformFMul, AtLeast(1);
        SMin = "group_smin", GroupNonUniformSMin, AtLeast(1);
        UMin = "group_umin", GroupNonUniformUMin, AtLeast(1);
        FMin = "group_fmin", GroupNonUniformFMin, AtLeast(1);
        SMax = "group_smax", GroupNonUniformSMax, AtLeast(1);
        UMax = "group_umax", GroupNonUniformUMax, AtLeast(1);
        FMax = "group_fmax", GroupNonUniformFMax, AtLeast(1);
        BitwiseAnd = "group_and", GroupNonUniformBitwiseAnd, AtLeast(1);
        BitwiseOr = "group_or", GroupNonUniformBitwiseOr, AtLeast(1);
        BitwiseXor = "group_xor", GroupNonUniformBitwiseXor, AtLeast(1);
        LogicalAnd = "group_logical_and", GroupNonUniformLogicalAnd, AtLeast(1);
        LogicalOr = "group_logical_or", GroupNonUniformLogicalOr, AtLeast(1);
        LogicalXor = "group_logical_xor", GroupNonUniformLogicalXor, AtLeast(1);
        QuadBroadcast = "group_quad_broadcast", GroupNonUniformQuadBroadcast, Fixed(2);
        QuadSwap = "group_quad_swap", GroupNonUniformQuadSwap, Fixed(2);
    }
);

impl GroupOp {
    /// Whether the operation takes a group operation (reduce / scan / clustered).
    pub fn takes_group_operation(self) -> bool {
        use GroupOp::*;
        matches!(
            self,
            BallotBitCount
                | IAdd
                | FAdd
                | IMul
                | FMul
                | SMin
                | UMin
                | FMin
                | SMax
                | UMax
                | FMax
                | BitwiseAnd
                | BitwiseOr
                | BitwiseXor
                | LogicalAnd
                | LogicalOr
                | LogicalXor
        )
    }
}

/// Which function forms may contain an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Forms {
    /// Structured and lowered functions.
    Both,
    /// Lowered functions only (the warp-barrier operations).
    LoweredOnly,
}

/// Whether an operation takes a convergence-control operand (a token).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConvOperand {
    /// Never (`conv_entry` and `conv_anchor` define a token from nothing; non-convergent
    /// operations have no use for one).
    Forbidden,
    /// Optionally (every convergent operation).
    Optional,
    /// Always (`conv_loop`: its operand is the token it is relative to).
    Required,
}

/// The kind of value an operand or result of a tangle-only operation has; the verifier
/// checks operand and result types against it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// `bool`.
    Bool,
    /// The convergence-control `token` type.
    Token,
    /// The warp-barrier type `barrier`.
    Barrier,
}

impl ValueKind {
    /// The type data a value of this kind has.
    pub fn type_data(self) -> crate::types::TypeData {
        match self {
            ValueKind::Bool => crate::types::TypeData::Bool,
            ValueKind::Token => crate::types::TypeData::Token,
            ValueKind::Barrier => crate::types::TypeData::Barrier,
        }
    }

    /// The text spelling of the type.
    pub fn name(self) -> &'static str {
        match self {
            ValueKind::Bool => "bool",
            ValueKind::Token => "token",
            ValueKind::Barrier => "barrier",
        }
    }
}

macro_rules! tangle_op_table {
    ($(#[$attr:meta])* $name:ident {
        $($(#[$vattr:meta])* $variant:ident = $text:literal,
            forms $forms:ident, conv $conv:ident, convergent $convergent:literal,
            ($($operand:ident),*) -> $result:expr;)*
    }) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vattr])* $variant,)*
        }

        impl $name {
            /// Every operation of this table.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The text-form mnemonic.
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text,)* }
            }

            /// The operation with mnemonic `text`.
            pub fn from_name(text: &str) -> Option<Self> {
                match text { $($text => Some($name::$variant),)* _ => None }
            }

            /// The function forms that may contain it.
            pub fn forms(self) -> Forms {
                match self { $($name::$variant => Forms::$forms,)* }
            }

            /// Whether it takes a convergence-control operand.
            pub fn conv_operand(self) -> ConvOperand {
                match self { $($name::$variant => ConvOperand::$conv,)* }
            }

            /// Whether its effect depends on which invocations execute it together.
            pub fn is_convergent(self) -> bool {
                match self { $($name::$variant => $convergent,)* }
            }

            /// The kinds of its value operands, in order.
            pub fn operands(self) -> &'static [ValueKind] {
                match self { $($name::$variant => &[$(ValueKind::$operand),*],)* }
            }

            /// The kind of its result, if it has one.
            pub fn result(self) -> Option<ValueKind> {
                use ValueKind::*;
                match self { $($name::$variant => $result,)* }
            }
        }
    };
}

tangle_op_table!(
    /// Operations with no SPIR-V opcode: convergence-control tokens (in the spirit of LLVM's
    /// `llvm.experimental.convergence.*`) and NVIDIA's warp convergence barriers. One entry
    /// gives an operation its text, its typing (operand and result kinds) and where the
    /// verifier allows it; the SPIR-V writer refuses every one of them.
    TangleOp {
        /// `v = conv_entry token`: the invocations that entered the function together.
        ConvEntry = "conv_entry", forms Both, conv Forbidden, convergent true, () -> Some(Token);
        /// `v = conv_anchor token`: an implementation-chosen set of the invocations that
        /// reach it together.
        ConvAnchor = "conv_anchor", forms Both, conv Forbidden, convergent true, () -> Some(Token);
        /// `v = conv_loop token conv(t)`: the invocations that reach it together in the same
        /// iteration, relative to the token `t` (a loop *heart* when `t` comes from outside
        /// the cycle).
        ConvLoop = "conv_loop", forms Both, conv Required, convergent true, () -> Some(Token);
        /// `b = bar_set barrier`: opens a convergence barrier (`BSSY`) whose participants
        /// are the invocations executing it.
        BarSet = "bar_set", forms LoweredOnly, conv Optional, convergent true, () -> Some(Barrier);
        /// `bar_sync b`: waits until every participant of `b` that has not left it (by
        /// `bar_break` or `exit`) arrives, then they go on together (`BSYNC`).
        BarSync = "bar_sync", forms LoweredOnly, conv Optional, convergent true, (Barrier) -> None;
        /// `bar_break b, c`: the invocations executing it whose condition `c` is true leave
        /// barrier `b` (`BREAK`); the others stay participants.
        BarBreak = "bar_break", forms LoweredOnly, conv Optional, convergent true, (Barrier, Bool) -> None;
        /// `exit c`: the invocations whose condition `c` is true end (`EXIT`); they no longer
        /// count as participants of any barrier. The others go on.
        Exit = "exit", forms LoweredOnly, conv Forbidden, convergent false, (Bool) -> None;
    }
);

/// The group operation of a reduction or scan (`GroupOperation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GroupOperation {
    /// A reduction over the tangle.
    Reduce,
    /// An inclusive scan in invocation order.
    InclusiveScan,
    /// An exclusive scan in invocation order.
    ExclusiveScan,
    /// A reduction over clusters of consecutive invocations; the cluster size is the
    /// instruction's second operand.
    ClusteredReduce,
}

impl GroupOperation {
    /// Every group operation.
    pub const ALL: [GroupOperation; 4] = [
        GroupOperation::Reduce,
        GroupOperation::InclusiveScan,
        GroupOperation::ExclusiveScan,
        GroupOperation::ClusteredReduce,
    ];

    /// The text-form spelling.
    pub fn name(self) -> &'static str {
        match self {
            GroupOperation::Reduce => "reduce",
            GroupOperation::InclusiveScan => "inclusive_scan",
            GroupOperation::ExclusiveScan => "exclusive_scan",
            GroupOperation::ClusteredReduce => "clustered_reduce",
        }
    }

    /// The SPIR-V enumerant.
    pub fn spirv(self) -> spirv::GroupOperation {
        match self {
            GroupOperation::Reduce => spirv::GroupOperation::Reduce,
            GroupOperation::InclusiveScan => spirv::GroupOperation::InclusiveScan,
            GroupOperation::ExclusiveScan => spirv::GroupOperation::ExclusiveScan,
            GroupOperation::ClusteredReduce => spirv::GroupOperation::ClusteredReduce,
        }
    }

    /// The group operation of a SPIR-V enumerant, if supported.
    pub fn from_spirv(op: spirv::GroupOperation) -> Option<Self> {
        Self::ALL.into_iter().find(|g| g.spirv() == op)
    }

    /// The group operation with text spelling `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|g| g.name() == name)
    }
}

/// Memory-access operands of a load or store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemAccess {
    /// The access flags other than the alignment's presence.
    pub flags: MemoryAccess,
    /// The `Aligned` literal, if present.
    pub aligned: Option<u32>,
}

impl Default for MemAccess {
    fn default() -> Self {
        MemAccess {
            flags: MemoryAccess::NONE,
            aligned: None,
        }
    }
}

/// The literal indices or selectors of a composite access or shuffle: up to three inside
/// the instruction ([`SmallList`]), so an [`Op`] is 16 bytes.
pub type Literals = SmallList<u32, 3>;

/// A phi's predecessor blocks, operand `i` flowing in from block `i`: up to three inside the
/// instruction ([`SmallList`]).
pub type PhiBlocks = SmallList<Block, 3>;

/// What an instruction does.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// A plain operation on values.
    Plain(PlainOp),
    /// `OpCompositeExtract` with its literal indices.
    CompositeExtract(Literals),
    /// `OpCompositeInsert` (operands: object, composite) with its literal indices.
    CompositeInsert(Literals),
    /// `OpVectorShuffle` (operands: two vectors) with its component selectors.
    VectorShuffle(Literals),
    /// `OpArrayLength` of the given struct member (operand: pointer to the struct).
    ArrayLength(u32),
    /// `OpLoad` (operand: pointer).
    Load(MemAccess),
    /// `OpStore` (operands: pointer, value).
    Store(MemAccess),
    /// A function-local `OpVariable` (operand: optional initializer).
    Variable(StorageClass),
    /// An atomic operation.
    Atomic {
        /// Which one.
        op: AtomicOp,
        /// The memory scope.
        scope: Scope,
        /// The memory semantics (the "equal" semantics of a compare-exchange).
        semantics: MemorySemantics,
        /// The "unequal" semantics of a compare-exchange; relaxed for the others.
        unequal: MemorySemantics,
    },
    /// `OpFunctionCall` of a function of the module (operands: the arguments).
    Call(Func),
    /// `OpPhi`: operand `i` flows in from block `i`.
    Phi(PhiBlocks),
    /// An instruction of the `GLSL.std.450` extended set.
    Glsl(crate::glsl::GlslOp),
    /// A subgroup operation.
    Group {
        /// Which one.
        op: GroupOp,
        /// The execution scope (`Subgroup` in Vulkan compute shaders).
        scope: Scope,
        /// The group operation of reductions and scans.
        group: Option<GroupOperation>,
    },
    /// `OpControlBarrier`.
    ControlBarrier {
        /// The execution scope.
        exec: Scope,
        /// The memory scope.
        memory: Scope,
        /// The memory semantics.
        semantics: MemorySemantics,
    },
    /// `OpMemoryBarrier`.
    MemoryBarrier {
        /// The memory scope.
        memory: Scope,
        /// The memory semantics.
        semantics: MemorySemantics,
    },
    /// An operation without a SPIR-V opcode (tokens, warp barriers).
    Tangle(TangleOp),
}

impl Op {
    /// The text-form mnemonic.
    pub fn mnemonic(&self) -> &'static str {
        match self {
            Op::Plain(p) => p.name(),
            Op::CompositeExtract(_) => "composite_extract",
            Op::CompositeInsert(_) => "composite_insert",
            Op::VectorShuffle(_) => "vector_shuffle",
            Op::ArrayLength(_) => "array_length",
            Op::Load(_) => "load",
            Op::Store(_) => "store",
            Op::Variable(_) => "variable",
            Op::Atomic { op, .. } => op.name(),
            Op::Call(_) => "call",
            Op::Phi(_) => "phi",
            Op::Glsl(_) => "glsl",
            Op::Group { op, .. } => op.name(),
            Op::ControlBarrier { .. } => "control_barrier",
            Op::MemoryBarrier { .. } => "memory_barrier",
            Op::Tangle(t) => t.name(),
        }
    }

    /// The number of value operands the operation takes.
    pub fn arity(&self) -> Arity {
        match self {
            Op::Plain(p) => p.arity(),
            Op::CompositeExtract(_) => Fixed(1),
            Op::CompositeInsert(_) | Op::VectorShuffle(_) => Fixed(2),
            Op::ArrayLength(_) | Op::Load(_) => Fixed(1),
            Op::Store(_) => Fixed(2),
            Op::Variable(_) => AtLeast(0),
            Op::Atomic { op, .. } => op.arity(),
            Op::Call(_) => AtLeast(0),
            Op::Phi(blocks) => Fixed(blocks.len()),
            Op::Glsl(g) => Fixed(g.arity()),
            Op::Group { op, group, .. } => match group {
                Some(GroupOperation::ClusteredReduce) => Fixed(2),
                Some(_) => Fixed(1),
                None => op.arity(),
            },
            Op::ControlBarrier { .. } | Op::MemoryBarrier { .. } => Fixed(0),
            Op::Tangle(t) => Fixed(t.operands().len()),
        }
    }

    /// Whether the operation produces a result value.
    pub fn has_result(&self) -> bool {
        if let Op::Tangle(t) = self {
            return t.result().is_some();
        }
        !matches!(
            self,
            Op::Store(_)
                | Op::ControlBarrier { .. }
                | Op::MemoryBarrier { .. }
                | Op::Atomic {
                    op: AtomicOp::Store,
                    ..
                }
        )
    }

    /// Whether the operation's result depends on which invocations execute it together
    /// (subgroup operations, and calls, which may contain them).
    pub fn is_convergent(&self) -> bool {
        match self {
            Op::Tangle(t) => t.is_convergent(),
            _ => matches!(
                self,
                Op::Group { .. } | Op::Call(_) | Op::ControlBarrier { .. }
            ),
        }
    }

    /// Whether the operation may carry a convergence-control operand: every convergent
    /// operation, except the token operations that define a token from nothing.
    pub fn conv_operand(&self) -> ConvOperand {
        match self {
            Op::Tangle(t) => t.conv_operand(),
            _ if self.is_convergent() => ConvOperand::Optional,
            _ => ConvOperand::Forbidden,
        }
    }

    /// Whether the operation has no SPIR-V opcode.
    pub fn is_tangle_only(&self) -> bool {
        matches!(self, Op::Tangle(_))
    }

    /// The forms of function that may contain the operation.
    pub fn forms(&self) -> Forms {
        match self {
            Op::Tangle(t) => t.forms(),
            _ => Forms::Both,
        }
    }
}

/// The text spelling of a scope.
pub fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::CrossDevice => "cross_device",
        Scope::Device => "device",
        Scope::Workgroup => "workgroup",
        Scope::Subgroup => "subgroup",
        Scope::Invocation => "invocation",
        Scope::QueueFamily => "queue_family",
        Scope::ShaderCallKHR => "shader_call",
    }
}

/// The scope with text spelling `name`.
pub fn scope_from_name(name: &str) -> Option<Scope> {
    (0..=6)
        .filter_map(Scope::from_u32)
        .find(|s| scope_name(*s) == name)
}

/// Memory-semantics bits with their text spellings, in text order.
pub const SEMANTICS_NAMES: [(MemorySemantics, &str); 14] = [
    (MemorySemantics::ACQUIRE, "acquire"),
    (MemorySemantics::RELEASE, "release"),
    (MemorySemantics::ACQUIRE_RELEASE, "acquire_release"),
    (MemorySemantics::SEQUENTIALLY_CONSISTENT, "seq_cst"),
    (MemorySemantics::UNIFORM_MEMORY, "uniform_memory"),
    (MemorySemantics::SUBGROUP_MEMORY, "subgroup_memory"),
    (MemorySemantics::WORKGROUP_MEMORY, "workgroup_memory"),
    (
        MemorySemantics::CROSS_WORKGROUP_MEMORY,
        "cross_workgroup_memory",
    ),
    (
        MemorySemantics::ATOMIC_COUNTER_MEMORY,
        "atomic_counter_memory",
    ),
    (MemorySemantics::IMAGE_MEMORY, "image_memory"),
    (MemorySemantics::OUTPUT_MEMORY, "output_memory"),
    (MemorySemantics::MAKE_AVAILABLE, "make_available"),
    (MemorySemantics::MAKE_VISIBLE, "make_visible"),
    (MemorySemantics::VOLATILE, "volatile"),
];

/// Memory-access bits (other than `Aligned`) with their text spellings.
pub const ACCESS_NAMES: [(MemoryAccess, &str); 5] = [
    (MemoryAccess::VOLATILE, "volatile"),
    (MemoryAccess::NONTEMPORAL, "nontemporal"),
    (
        MemoryAccess::MAKE_POINTER_AVAILABLE,
        "make_pointer_available",
    ),
    (MemoryAccess::MAKE_POINTER_VISIBLE, "make_pointer_visible"),
    (MemoryAccess::NON_PRIVATE_POINTER, "non_private_pointer"),
];

#[cfg(test)]
mod tests {
    use super::{AtomicOp, GroupOp, PlainOp};

    /// `from_spirv` is a `match`; it must find what a search of each table finds, for every
    /// opcode SPIR-V defines.
    #[test]
    fn from_spirv_finds_what_a_search_of_the_table_finds() {
        let mut known = 0;
        for n in 0..=u16::MAX as u32 {
            let Some(op) = spirv::Op::from_u32(n) else {
                continue;
            };
            known += 1;
            let plain = PlainOp::ALL.iter().copied().find(|o| o.spirv() == op);
            assert_eq!(PlainOp::from_spirv(op), plain, "{op:?}");
            let atomic = AtomicOp::ALL.iter().copied().find(|o| o.spirv() == op);
            assert_eq!(AtomicOp::from_spirv(op), atomic, "{op:?}");
            let group = GroupOp::ALL.iter().copied().find(|o| o.spirv() == op);
            assert_eq!(GroupOp::from_spirv(op), group, "{op:?}");
        }
        assert!(known > 500, "only {known} opcodes");
        assert!(PlainOp::ALL.len() >= 80, "{}", PlainOp::ALL.len());
    }
}
