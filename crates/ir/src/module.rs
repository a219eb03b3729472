//! Modules, functions, blocks, instructions and values.

use spirv::{
    BuiltIn, Capability, ExecutionModel, FunctionControl, LoopControl, MemoryModel,
    SelectionControl, StorageClass,
};

use crate::entity::{entity, EntityVec};
use crate::list::SmallList;
use crate::operands::Operands;
use crate::ops::Op;
use crate::types::{MemberFlag, Type, TypeTable};

entity!(
    /// An SSA value of a function: a parameter or an instruction's result.
    Value,
    "v"
);
entity!(
    /// A basic block of a function.
    Block,
    "b"
);
entity!(
    /// An instruction of a function (not printed: the text names results, not instructions).
    Inst,
    "i"
);
entity!(
    /// A function of the module.
    Func,
    "f"
);
entity!(
    /// A module-level constant or specialization constant.
    Const,
    "c"
);
entity!(
    /// A module-level variable (`OpVariable` outside functions).
    Global,
    "g"
);

/// Anything an instruction can take as an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// An SSA value of the current function.
    Value(Value),
    /// A module-level constant.
    Const(Const),
    /// A module-level variable (its pointer).
    Global(Global),
}

impl std::fmt::Display for Operand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Operand::Value(v) => v.fmt(f),
            Operand::Const(c) => c.fmt(f),
            Operand::Global(g) => g.fmt(f),
        }
    }
}

impl From<Value> for Operand {
    fn from(v: Value) -> Self {
        Operand::Value(v)
    }
}

impl From<Const> for Operand {
    fn from(c: Const) -> Self {
        Operand::Const(c)
    }
}

impl From<Global> for Operand {
    fn from(g: Global) -> Self {
        Operand::Global(g)
    }
}

/// The value of a constant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConstValue {
    /// A boolean.
    Bool(bool),
    /// An integer or float scalar: its bit pattern, zero-extended to 64 bits.
    Bits(u64),
    /// A vector, array or struct made of other constants.
    Composite(Vec<Const>),
    /// All zeros (`OpConstantNull`).
    Null,
    /// An undefined value (`OpUndef` at module level).
    Undef,
    /// `OpSpecConstantOp`: an operation evaluated at specialization time.
    SpecOp(Op, Vec<Const>),
}

/// A module-level constant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstData {
    /// Its type.
    pub ty: Type,
    /// Its (default) value.
    pub value: ConstValue,
    /// Whether it is a specialization constant.
    pub spec: bool,
    /// Its `SpecId` decoration.
    pub spec_id: Option<u32>,
    /// Its `BuiltIn` decoration (`WorkgroupSize`).
    pub builtin: Option<BuiltIn>,
    /// Its debug name.
    pub name: Option<String>,
}

/// Decorations of a module-level variable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobalDecorations {
    /// `BuiltIn`.
    pub builtin: Option<BuiltIn>,
    /// `DescriptorSet`.
    pub set: Option<u32>,
    /// `Binding`.
    pub binding: Option<u32>,
    /// Access and aliasing flags.
    pub flags: Vec<MemberFlag>,
}

/// A module-level variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalData {
    /// Its pointer type.
    pub ty: Type,
    /// Its storage class (also in the pointer type).
    pub storage: StorageClass,
    /// Its initializer.
    pub init: Option<Const>,
    /// Its decorations.
    pub decorations: GlobalDecorations,
    /// Its debug name.
    pub name: Option<String>,
}

/// An execution mode of an entry point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecMode {
    /// `LocalSize x y z`.
    LocalSize([u32; 3]),
    /// `LocalSizeId x y z`, each a (specialization) constant.
    LocalSizeId([Const; 3]),
    /// `MaximallyReconvergesKHR`.
    MaximallyReconverges,
    /// `SubgroupUniformControlFlowKHR`.
    SubgroupUniformControlFlow,
    /// A float-controls mode (`SPV_KHR_float_controls`) for floats of the width it names:
    /// only those the interpreter's arithmetic already obeys (docs/interp.md).
    FloatControl(FloatControl, u32),
}

/// The float-controls execution modes tangle accepts: what its float arithmetic does anyway
/// (IEEE operations computed exactly and rounded once to nearest even, subnormals kept,
/// signed zeros, infinities and NaNs preserved). `DenormFlushToZero` and `RoundingModeRTZ`
/// ask for something else and are refused by the reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatControl {
    /// `DenormPreserve`: subnormal operands and results are kept.
    DenormPreserve,
    /// `SignedZeroInfNanPreserve`: no optimization may assume away signed zeros, infinities
    /// or NaNs.
    SignedZeroInfNanPreserve,
    /// `RoundingModeRTE`: round to nearest, ties to even.
    RoundingModeRte,
}

impl FloatControl {
    /// Every accepted mode.
    pub const ALL: [FloatControl; 3] = [
        FloatControl::DenormPreserve,
        FloatControl::SignedZeroInfNanPreserve,
        FloatControl::RoundingModeRte,
    ];

    /// The SPIR-V execution mode.
    pub fn spirv(self) -> spirv::ExecutionMode {
        match self {
            FloatControl::DenormPreserve => spirv::ExecutionMode::DenormPreserve,
            FloatControl::SignedZeroInfNanPreserve => {
                spirv::ExecutionMode::SignedZeroInfNanPreserve
            }
            FloatControl::RoundingModeRte => spirv::ExecutionMode::RoundingModeRTE,
        }
    }

    /// The text-form name.
    pub fn name(self) -> &'static str {
        match self {
            FloatControl::DenormPreserve => "denorm_preserve",
            FloatControl::SignedZeroInfNanPreserve => "signed_zero_inf_nan_preserve",
            FloatControl::RoundingModeRte => "rounding_mode_rte",
        }
    }

    /// The capability the mode needs (of the same name).
    pub fn capability(self) -> spirv::Capability {
        match self {
            FloatControl::DenormPreserve => spirv::Capability::DenormPreserve,
            FloatControl::SignedZeroInfNanPreserve => spirv::Capability::SignedZeroInfNanPreserve,
            FloatControl::RoundingModeRte => spirv::Capability::RoundingModeRTE,
        }
    }
}

/// An entry point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPoint {
    /// The execution model (`GLCompute`).
    pub model: ExecutionModel,
    /// Its name.
    pub name: String,
    /// The function it runs.
    pub func: Func,
    /// The interface variables.
    pub interface: Vec<Global>,
    /// Its execution modes.
    pub modes: Vec<ExecMode>,
}

impl EntryPoint {
    /// Whether the entry point asks for maximal reconvergence.
    pub fn maximally_reconverges(&self) -> bool {
        self.modes.contains(&ExecMode::MaximallyReconverges)
    }
}

/// A structured-control-flow merge annotation of a header block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Merge {
    /// `OpSelectionMerge`.
    Selection {
        /// The merge block.
        merge: Block,
        /// Selection control hints.
        control: SelectionControl,
    },
    /// `OpLoopMerge`.
    Loop {
        /// The merge block.
        merge: Block,
        /// The continue target.
        continue_target: Block,
        /// Loop control hints.
        control: LoopControl,
        /// The literal parameters of the controls that take one, by position in
        /// [`LOOP_PARAMS`]; meaningful where `control` has the bit.
        params: [u32; 6],
    },
}

/// The loop controls that take a literal parameter, in SPIR-V's bit order, with their
/// text spellings.
pub const LOOP_PARAMS: [(LoopControl, &str); 6] = [
    (LoopControl::DEPENDENCY_LENGTH, "dependency_length"),
    (LoopControl::MIN_ITERATIONS, "min_iterations"),
    (LoopControl::MAX_ITERATIONS, "max_iterations"),
    (LoopControl::ITERATION_MULTIPLE, "iteration_multiple"),
    (LoopControl::PEEL_COUNT, "peel_count"),
    (LoopControl::PARTIAL_COUNT, "partial_count"),
];

impl Merge {
    /// The merge block.
    pub fn merge_block(&self) -> Block {
        match *self {
            Merge::Selection { merge, .. } | Merge::Loop { merge, .. } => merge,
        }
    }
}

/// How a block ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Terminator {
    /// `OpBranch`.
    Branch(Block),
    /// `OpBranchConditional`.
    CondBranch {
        /// The condition.
        cond: Operand,
        /// Where invocations with a true condition go.
        if_true: Block,
        /// Where the others go.
        if_false: Block,
    },
    /// `OpSwitch` (case literals are zero-extended bit patterns of the selector's width).
    Switch {
        /// The integer selector.
        selector: Operand,
        /// The default target.
        default: Block,
        /// The (literal, target) pairs.
        cases: Vec<(u64, Block)>,
    },
    /// `OpReturn`.
    Return,
    /// `OpReturnValue`.
    ReturnValue(Operand),
    /// `OpUnreachable`.
    Unreachable,
    /// `OpKill`.
    Kill,
    /// `OpTerminateInvocation`.
    TerminateInvocation,
}

impl Terminator {
    /// The blocks control may go to next, in operand order (repeats kept).
    pub fn successors(&self) -> Vec<Block> {
        match self {
            Terminator::Branch(b) => vec![*b],
            Terminator::CondBranch {
                if_true, if_false, ..
            } => vec![*if_true, *if_false],
            Terminator::Switch { default, cases, .. } => {
                let mut v = vec![*default];
                v.extend(cases.iter().map(|(_, b)| *b));
                v
            }
            _ => Vec::new(),
        }
    }

    /// The value operand of the terminator, if it has one (none has more): what
    /// [`Terminator::operands`] gives, without allocating.
    pub fn operand(&self) -> Option<Operand> {
        match self {
            Terminator::CondBranch { cond, .. } => Some(*cond),
            Terminator::Switch { selector, .. } => Some(*selector),
            Terminator::ReturnValue(v) => Some(*v),
            _ => None,
        }
    }

    /// The value operands of the terminator.
    pub fn operands(&self) -> Vec<Operand> {
        match self {
            Terminator::CondBranch { cond, .. } => vec![*cond],
            Terminator::Switch { selector, .. } => vec![*selector],
            Terminator::ReturnValue(v) => vec![*v],
            _ => Vec::new(),
        }
    }
}

/// A block's instructions in order: up to five inside the block record ([`SmallList`]),
/// a longer list behind one pointer.
pub type InstList = SmallList<Inst, 5>;

/// A basic block: instructions, an optional merge annotation, and a terminator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockData {
    /// Its instructions in order (phis first).
    pub insts: InstList,
    /// Its merge annotation, if it is a structured header.
    pub merge: Option<Merge>,
    /// How it ends.
    pub term: Terminator,
}

impl Default for BlockData {
    fn default() -> Self {
        BlockData {
            insts: InstList::new(),
            merge: None,
            term: Terminator::Unreachable,
        }
    }
}

/// Where a value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueDef {
    /// The function's parameter with this index.
    Param(u32),
    /// The result of this instruction.
    Inst(Inst),
    /// Not defined (a number left free, e.g. by a pass that removed its definition).
    Unused,
}

/// An SSA value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueData {
    /// Its type.
    pub ty: Type,
    /// Its definition.
    pub def: ValueDef,
}

/// One instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstData {
    /// What it does.
    pub op: Op,
    /// Its value operands (inline when short: [`Operands`]).
    pub args: Operands,
    /// Its result, if the operation has one.
    pub result: Option<Value>,
    /// Its convergence-control operand: a value of token type that says which invocations
    /// execute this convergent operation together (LLVM's `convergencectrl` bundle). Only
    /// operations whose [`Op::conv_operand`] allows one may carry it.
    pub conv: Option<Value>,
}

impl InstData {
    /// An instruction without a convergence-control operand.
    pub fn new(op: Op, args: impl Into<Operands>, result: Option<Value>) -> Self {
        InstData {
            op,
            args: args.into(),
            result,
            conv: None,
        }
    }
}

/// Which rules a function's control flow follows.
///
/// A *structured* function is what SPIR-V can express: merge annotations on headers,
/// constructs, and the maximal-reconvergence rules. A *lowered* function is what the
/// reconvergence lowering produces: plain `br`/`br_if`/`switch` with no merge annotations,
/// where the warp-barrier operations (`bar_set`, `bar_sync`, ...) may appear.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Form {
    /// SPIR-V's structured control flow (the default; what the front end produces).
    #[default]
    Structured,
    /// Unstructured control flow with tangle-only warp-barrier operations.
    Lowered,
}

impl Form {
    /// The text-form spelling (`structured` / `lowered`).
    pub fn name(self) -> &'static str {
        match self {
            Form::Structured => "structured",
            Form::Lowered => "lowered",
        }
    }

    /// The form spelled `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "structured" => Some(Form::Structured),
            "lowered" => Some(Form::Lowered),
            _ => None,
        }
    }
}

/// A function.
#[derive(Clone, Debug)]
pub struct Function {
    /// Its debug name.
    pub name: Option<String>,
    /// The return type.
    pub ret: Type,
    /// Function control hints.
    pub control: FunctionControl,
    /// Its parameters.
    pub params: Vec<Value>,
    /// Every value.
    pub values: EntityVec<Value, ValueData>,
    /// Every instruction.
    pub insts: EntityVec<Inst, InstData>,
    /// Every block (also those not in the layout).
    pub blocks: EntityVec<Block, BlockData>,
    /// The blocks of the function body in order; the first is the entry block.
    pub layout: Vec<Block>,
    /// Which control-flow rules it follows.
    pub form: Form,
    /// Whether the function is *convergent* (LLVM's `convergent` attribute): callers must
    /// not change which invocations call it together, and only a convergent function may
    /// hold `conv_entry`. SPIR-V functions are all convergent (the default); a function
    /// read from LLVM IR without the attribute is not, and a call of a non-convergent
    /// function without a convergence-control operand is not a convergent operation.
    pub convergent: bool,
}

impl Function {
    /// An empty function returning `ret`.
    pub fn new(name: Option<String>, ret: Type) -> Self {
        Function {
            name,
            ret,
            control: FunctionControl::NONE,
            params: Vec::new(),
            values: EntityVec::new(),
            insts: EntityVec::new(),
            blocks: EntityVec::new(),
            layout: Vec::new(),
            form: Form::Structured,
            convergent: true,
        }
    }

    /// The entry block.
    pub fn entry(&self) -> Option<Block> {
        self.layout.first().copied()
    }

    /// Adds a parameter of type `ty`.
    pub fn add_param(&mut self, ty: Type) -> Value {
        let index = self.params.len() as u32;
        let v = self.values.push(ValueData {
            ty,
            def: ValueDef::Param(index),
        });
        self.params.push(v);
        v
    }

    /// Adds an empty block at the end of the layout.
    pub fn add_block(&mut self) -> Block {
        let b = self.blocks.push(BlockData::default());
        self.layout.push(b);
        b
    }

    /// Appends an instruction to `block`; gives it a result of type `ty` when the operation
    /// has one.
    pub fn append(
        &mut self,
        block: Block,
        op: Op,
        args: impl Into<Operands>,
        ty: Option<Type>,
    ) -> Option<Value> {
        let inst = self.insts.push(InstData::new(op, args, None));
        let result = ty.map(|ty| {
            self.values.push(ValueData {
                ty,
                def: ValueDef::Inst(inst),
            })
        });
        self.insts[inst].result = result;
        self.blocks[block].insts.push(inst);
        result
    }

    /// The type of a value.
    pub fn value_type(&self, v: Value) -> Type {
        self.values[v].ty
    }
}

/// A SPIR-V module in tangle's IR.
#[derive(Clone, Debug)]
pub struct Module {
    /// The SPIR-V version (major, minor) the module was written for.
    pub version: (u8, u8),
    /// Declared capabilities.
    pub capabilities: Vec<Capability>,
    /// Declared extensions.
    pub extensions: Vec<String>,
    /// The memory model.
    pub memory_model: MemoryModel,
    /// Every type.
    pub types: TypeTable,
    /// Every constant and specialization constant.
    pub consts: EntityVec<Const, ConstData>,
    /// Every module-level variable.
    pub globals: EntityVec<Global, GlobalData>,
    /// Every function.
    pub funcs: EntityVec<Func, Function>,
    /// The entry points.
    pub entry_points: Vec<EntryPoint>,
}

impl Default for Module {
    fn default() -> Self {
        Module {
            version: (1, 3),
            capabilities: vec![Capability::Shader],
            extensions: Vec::new(),
            memory_model: MemoryModel::GLSL450,
            types: TypeTable::new(),
            consts: EntityVec::new(),
            globals: EntityVec::new(),
            funcs: EntityVec::new(),
            entry_points: Vec::new(),
        }
    }
}

impl Module {
    /// The type of an operand of function `func`.
    pub fn operand_type(&self, func: &Function, operand: Operand) -> Type {
        match operand {
            Operand::Value(v) => func.values[v].ty,
            Operand::Const(c) => self.consts[c].ty,
            Operand::Global(g) => self.globals[g].ty,
        }
    }

    /// The return type and parameter types of `func`.
    pub fn func_signature(&self, func: &Function) -> (Type, Vec<Type>) {
        (
            func.ret,
            func.params.iter().map(|p| func.values[*p].ty).collect(),
        )
    }

    /// Whether any entry point that can reach `func` asks for maximal reconvergence.
    pub fn maximal_reconvergence_applies(&self, func: Func) -> bool {
        self.entry_points
            .iter()
            .filter(|e| e.maximally_reconverges())
            .any(|e| crate::cfg::call_graph_reaches(self, e.func, func))
    }
}
