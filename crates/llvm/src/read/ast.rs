//! The syntax tree of the LLVM IR subset: module items, blocks, instructions, with operands
//! still named (the builder resolves them).

use std::collections::HashMap;

use super::lexer::Pos;

/// An LLVM type of the subset.
#[derive(Clone, Debug, PartialEq)]
pub enum LlType {
    /// `void`.
    Void,
    /// `iN`.
    Int(u32),
    /// `half`, `float`, `double` (by width).
    Float(u32),
    /// `ptr`.
    Ptr,
    /// `token`.
    Token,
    /// `label`.
    Label,
    /// `<N x T>`.
    Vector(u32, Box<LlType>),
}

/// A value as written.
#[derive(Clone, Debug, PartialEq)]
pub enum LlValue {
    /// `%name`.
    Local(String),
    /// `@name`.
    Global(String),
    /// An integer.
    Int(i128),
    /// A float.
    Float(f64),
    /// `true` / `false`.
    Bool(bool),
    /// `undef`.
    Undef,
    /// `poison`.
    Poison,
    /// `null` / `zeroinitializer`.
    Zero,
    /// `<T a, T b, ...>`.
    Vector(Vec<Operand>),
}

/// A typed operand.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    /// Its type.
    pub ty: LlType,
    /// Its value.
    pub val: LlValue,
    /// Where the value is written.
    pub pos: Pos,
}

/// An instruction's operation.
#[derive(Clone, Debug)]
pub enum InstKind {
    /// `add`, `fdiv`, `and`, ... (flags dropped).
    Binary(String, Operand, Operand),
    /// `icmp` (false) or `fcmp` (true), the predicate, the operands.
    Cmp(bool, String, Operand, Operand),
    /// `select`.
    Select(Operand, Operand, Operand),
    /// A cast, its operand and target type.
    Cast(String, Operand, LlType),
    /// `phi T [v, %b], ...`.
    Phi(LlType, Vec<(Operand, String)>),
    /// `alloca T`.
    Alloca(LlType),
    /// `load T, ptr p`.
    Load(LlType, Operand),
    /// `store v, ptr p`.
    Store(Operand, Operand),
    /// `call T @f(args) [bundles]`.
    Call {
        /// The return type.
        ret: LlType,
        /// The callee's name.
        callee: String,
        /// The arguments.
        args: Vec<Operand>,
        /// The operand bundles: tag, operands, position.
        bundles: Vec<(String, Vec<Operand>, Pos)>,
    },
}

/// One instruction.
#[derive(Clone, Debug)]
pub struct InstAst {
    /// The result's name.
    pub result: Option<String>,
    /// What it does.
    pub kind: InstKind,
    /// Where it starts.
    pub pos: Pos,
}

/// A block's terminator.
#[derive(Clone, Debug)]
pub enum TermAst {
    /// `br label %b`.
    Br(String),
    /// `br i1 %c, label %t, label %f`.
    CondBr(Operand, String, String),
    /// `switch T %v, label %d [ T n, label %b ... ]`.
    Switch(Operand, String, Vec<(i128, String)>),
    /// `ret void` / `ret T v`.
    Ret(Option<Operand>),
    /// `unreachable`.
    Unreachable,
}

/// A block.
#[derive(Clone, Debug)]
pub struct BlockAst {
    /// Its label (the entry block's may be implicit).
    pub name: String,
    /// Its instructions.
    pub insts: Vec<InstAst>,
    /// Its terminator and where it stands.
    pub term: (TermAst, Pos),
}

/// A function definition or declaration.
#[derive(Clone, Debug)]
pub struct FuncAst {
    /// Its name.
    pub name: String,
    /// Where it is named.
    pub pos: Pos,
    /// The return type.
    pub ret: LlType,
    /// Parameters: type and name (declarations may leave names out).
    pub params: Vec<(LlType, Option<String>, Pos)>,
    /// Function attributes written inline.
    pub attrs: Vec<String>,
    /// Attribute groups referenced.
    pub groups: Vec<u32>,
    /// The body (`None` for a declaration).
    pub body: Option<Vec<BlockAst>>,
}

/// A global variable.
#[derive(Clone, Debug)]
pub struct GlobalAst {
    /// Its name.
    pub name: String,
    /// Its value type.
    pub ty: LlType,
    /// Its initializer (`None` for `external`).
    pub init: Option<Operand>,
    /// Where it is named.
    pub pos: Pos,
}

/// A parsed module.
#[derive(Clone, Debug, Default)]
pub struct ModuleAst {
    /// Functions in order.
    pub funcs: Vec<FuncAst>,
    /// Globals in order.
    pub globals: Vec<GlobalAst>,
    /// `attributes #N = { ... }`: the words inside.
    pub groups: HashMap<u32, Vec<String>>,
}
