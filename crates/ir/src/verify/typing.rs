//! Operand and result types of every instruction and terminator, and the capabilities the
//! operations need.

use spirv::{Capability, StorageClass};

use super::{Location, Point, Rule, Sink};
use crate::module::{ConstValue, Func, Function, Module, Operand, Terminator};
use crate::ops::{AtomicOp, Op, PlainOp};
use crate::types::{Type, TypeData, TypeTable};

mod extended;
mod tangle;

/// The shape of a numeric type: (kind, width, component count).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Int,
    Float,
    Bool,
    Other,
}

fn kind(types: &TypeTable, ty: Type) -> Kind {
    match types.get(types.scalar_of(ty)) {
        TypeData::Int { .. } => Kind::Int,
        TypeData::Float { .. } => Kind::Float,
        TypeData::Bool => Kind::Bool,
        _ => Kind::Other,
    }
}

fn is_vector(types: &TypeTable, ty: Type) -> bool {
    matches!(types.get(ty), TypeData::Vector { .. })
}

fn is_scalar(types: &TypeTable, ty: Type) -> bool {
    matches!(
        types.get(ty),
        TypeData::Int { .. } | TypeData::Float { .. } | TypeData::Bool
    )
}

/// Same kind, width and component count (integers may differ in signedness).
fn same_shape(types: &TypeTable, a: Type, b: Type) -> bool {
    a == b
        || (kind(types, a) == kind(types, b)
            && kind(types, a) != Kind::Other
            && types.bit_width(a) == types.bit_width(b)
            && types.component_count(a) == types.component_count(b)
            && is_vector(types, a) == is_vector(types, b))
}

/// An unsigned integer scalar or a vector of them.
fn unsigned(types: &TypeTable, ty: Type) -> bool {
    matches!(
        types.get(types.scalar_of(ty)),
        TypeData::Int { signed: false, .. }
    )
}

fn int_scalar(types: &TypeTable, ty: Type) -> bool {
    matches!(types.get(ty), TypeData::Int { .. })
}

/// A plain matrix type's (columns, rows, component type).
fn matrix_dims(types: &TypeTable, ty: Type) -> Option<(u32, u32, Type)> {
    match types.get(ty) {
        TypeData::Matrix {
            column,
            count,
            layout: None,
        } => match types.get(*column) {
            TypeData::Vector { elem, count: rows } => {
                Some((u32::from(*count), u32::from(*rows), *elem))
            }
            _ => None,
        },
        _ => None,
    }
}

/// A float vector type's (components, component type).
fn float_vector(types: &TypeTable, ty: Type) -> Option<(u32, Type)> {
    match types.get(ty) {
        TypeData::Vector { elem, count } if matches!(types.get(*elem), TypeData::Float { .. }) => {
            Some((u32::from(*count), *elem))
        }
        _ => None,
    }
}

/// Walks `indices` (literal) into composite `ty`.
fn walk(types: &TypeTable, mut ty: Type, indices: &[u32]) -> Option<Type> {
    for &i in indices {
        if matches!(types.get(ty), TypeData::RuntimeArray { .. }) {
            return None;
        }
        ty = types.element(ty, Some(i))?;
    }
    Some(ty)
}

struct Ctx<'a> {
    module: &'a Module,
    func: &'a Function,
    sink: &'a mut Sink,
    loc: Location,
}

impl Ctx<'_> {
    fn types(&self) -> &TypeTable {
        &self.module.types
    }

    fn ty(&self, o: Operand) -> Type {
        self.module.operand_type(self.func, o)
    }

    fn fail(&mut self, msg: impl Into<String>) {
        self.sink.report(Rule::Type, self.loc, msg);
    }

    fn need(&mut self, ok: bool, msg: &str) {
        if !ok {
            self.fail(msg.to_string());
        }
    }

    /// Reports unless the module declares at least one of `caps`.
    fn need_cap(&mut self, caps: &[Capability], what: &str) {
        if !caps.iter().any(|c| super::declares(self.module, *c)) {
            let names: Vec<String> = caps.iter().map(|c| format!("{c:?}")).collect();
            self.sink.report(
                Rule::Module,
                self.loc,
                format!("{what} needs capability {}", names.join(" or ")),
            );
        }
    }

    fn name(&self, ty: Type) -> String {
        crate::text::type_ref(self.types(), ty)
    }

    /// The constant integer value of an operand, if it is a non-specialization constant.
    fn const_int(&self, o: Operand) -> Option<u64> {
        match o {
            Operand::Const(c) => {
                let d = &self.module.consts[c];
                match (&d.value, d.spec) {
                    (ConstValue::Bits(b), false) if int_scalar(self.types(), d.ty) => Some(*b),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

pub(super) fn check(module: &Module, f: Func, func: &Function, sink: &mut Sink) {
    // Tokens and barriers do not cross calls: no parameter or return value holds one.
    let signature = func.params.iter().map(|p| func.values[*p].ty);
    if let Some(ty) = signature
        .chain([func.ret])
        .find(|t| module.types.get(*t).is_tangle_only())
    {
        sink.report(
            Rule::Type,
            Location {
                func: Some(f),
                ..Location::default()
            },
            format!(
                "a parameter or return value cannot be a {}",
                crate::text::type_ref(&module.types, ty)
            ),
        );
    }
    for &b in &func.layout {
        let block = &func.blocks[b];
        for (k, &i) in block.insts.iter().enumerate() {
            let inst = &func.insts[i];
            let mut cx = Ctx {
                module,
                func,
                sink,
                loc: Location {
                    func: Some(f),
                    block: Some(b),
                    point: Some(Point::Inst(k)),
                    value: inst.result,
                },
            };
            if !inst.op.arity().accepts(inst.args.len()) {
                let n = inst.args.len();
                cx.fail(format!(
                    "`{}` does not take {n} operands",
                    inst.op.mnemonic()
                ));
                continue;
            }
            if inst.op.has_result() != inst.result.is_some() {
                cx.fail(format!(
                    "`{}` {} a result",
                    inst.op.mnemonic(),
                    if inst.op.has_result() {
                        "needs"
                    } else {
                        "has no"
                    }
                ));
                continue;
            }
            let result = inst.result.map(|r| func.values[r].ty);
            let args: Vec<Type> = inst.args.iter().map(|a| cx.ty(*a)).collect();
            tangle::check_conv_operand(&mut cx, &inst.op, inst.conv);
            if let Op::Tangle(t) = &inst.op {
                tangle::check_tangle(&mut cx, *t, &args, result);
                continue;
            }
            // Tokens and barriers flow only between the operations made for them.
            if let Some(t) = args
                .iter()
                .chain(result.as_ref())
                .find(|t| module.types.get(**t).is_tangle_only())
            {
                let name = cx.name(*t);
                cx.fail(format!(
                    "`{}` cannot take or give a {name}",
                    inst.op.mnemonic()
                ));
                continue;
            }
            check_inst(&mut cx, &inst.op, &inst.args, &args, result);
        }
        let mut cx = Ctx {
            module,
            func,
            sink,
            loc: Location {
                func: Some(f),
                block: Some(b),
                point: Some(Point::Terminator),
                value: None,
            },
        };
        let void = matches!(module.types.get(func.ret), TypeData::Void);
        match &block.term {
            Terminator::CondBranch { cond, .. } => {
                let t = cx.ty(*cond);
                let ok = matches!(cx.types().get(t), TypeData::Bool);
                cx.need(ok, "a branch condition must be a bool scalar");
            }
            Terminator::Switch { selector, .. } => {
                let t = cx.ty(*selector);
                let ok = int_scalar(cx.types(), t);
                cx.need(ok, "a switch selector must be an integer scalar");
            }
            Terminator::Return => cx.need(
                void,
                "`return` without a value in a function that returns one",
            ),
            Terminator::ReturnValue(v) => {
                let t = cx.ty(*v);
                cx.need(
                    !void && t == func.ret,
                    "the returned value does not have the function's return type",
                );
            }
            _ => {}
        }
    }
}

fn check_inst(cx: &mut Ctx<'_>, op: &Op, ops: &[Operand], a: &[Type], r: Option<Type>) {
    let types = &cx.module.types;
    let r = r.unwrap_or_else(|| types.find(&TypeData::Void).unwrap_or(Type::from_u32(0)));
    match op {
        Op::Plain(p) => check_plain(cx, *p, ops, a, r),
        Op::CompositeExtract(ix) => {
            let t = walk(types, a[0], ix);
            cx.need(
                !ix.is_empty() && t == Some(r),
                "composite_extract: indices do not lead to the result type",
            );
        }
        Op::CompositeInsert(ix) => {
            let t = walk(types, r, ix);
            cx.need(
                a[1] == r && t == Some(a[0]),
                "composite_insert: the object does not fit the composite at these indices",
            );
        }
        Op::VectorShuffle(sel) => {
            let (n0, n1) = (types.component_count(a[0]), types.component_count(a[1]));
            let ok = is_vector(types, a[0])
                && is_vector(types, a[1])
                && types.scalar_of(a[0]) == types.scalar_of(a[1])
                && is_vector(types, r)
                && types.scalar_of(r) == types.scalar_of(a[0])
                && types.component_count(r) as usize == sel.len()
                && sel.iter().all(|&c| c == u32::MAX || c < n0 + n1);
            cx.need(
                ok,
                "vector_shuffle: operand, result and selector types disagree",
            );
        }
        Op::ArrayLength(m) => {
            let ok = match types.pointer(a[0]).map(|(_, p)| types.get(p)) {
                Some(TypeData::Struct { members, .. }) => {
                    *m as usize + 1 == members.len()
                        && matches!(
                            types.get(members[*m as usize].ty),
                            TypeData::RuntimeArray { .. }
                        )
                }
                _ => false,
            };
            cx.need(ok && matches!(types.get(r), TypeData::Int { width: 32, signed: false }),
                "array_length: needs a pointer to a struct whose last member is a runtime array, and gives u32");
        }
        Op::Load(access) | Op::Store(access)
            if access.aligned.is_some_and(|n| !n.is_power_of_two()) =>
        {
            cx.fail(format!(
                "{}: the Aligned operand {} is not a power of two",
                op.mnemonic(),
                access.aligned.unwrap_or(0)
            ));
        }
        Op::Load(_) => match types.pointer(a[0]) {
            Some((_, p)) => cx.need(
                types.same_value_type(p, r),
                "load: the result type differs from the pointee type",
            ),
            None => cx.fail("load: the operand is not a pointer"),
        },
        Op::Store(_) => match types.pointer(a[0]) {
            Some((sc, p)) => {
                cx.need(
                    types.same_value_type(p, a[1]),
                    "store: the value's type differs from the pointee type",
                );
                cx.need(
                    sc != StorageClass::Input && sc != StorageClass::UniformConstant,
                    "store: cannot write to this storage class",
                );
            }
            None => cx.fail("store: the first operand is not a pointer"),
        },
        Op::Variable(sc) => {
            cx.need(
                *sc == StorageClass::Function,
                "variable: only Function variables live inside functions",
            );
            match types.pointer(r) {
                Some((psc, p)) => {
                    cx.need(psc == *sc, "variable: the pointer's storage class differs");
                    if let Some(init) = a.first() {
                        cx.need(*init == p, "variable: the initializer has the wrong type");
                    }
                }
                None => cx.fail("variable: the result must be a pointer"),
            }
        }
        Op::Atomic { op, .. } => match types.pointer(a[0]) {
            Some((_, p)) => {
                if types.bit_width(p) == 64 {
                    cx.need_cap(&[Capability::Int64Atomics], "a 64-bit atomic");
                }
                cx.need(
                    int_scalar(types, p),
                    "atomics: the pointee must be an integer scalar",
                );
                if *op != AtomicOp::Store {
                    cx.need(
                        r == p,
                        "atomics: the result type differs from the pointee type",
                    );
                }
                cx.need(
                    a[1..].iter().all(|t| *t == p),
                    "atomics: value operands must have the pointee type",
                );
            }
            None => cx.fail("atomics: the first operand is not a pointer"),
        },
        Op::Call(callee) => {
            let callee = &cx.module.funcs[*callee];
            let (ret, params) = cx.module.func_signature(callee);
            cx.need(
                ret == r,
                "call: the result type differs from the callee's return type",
            );
            cx.need(
                params == a,
                "call: the arguments do not match the callee's parameters",
            );
        }
        Op::Phi(_) => cx.need(
            a.iter().all(|t| *t == r),
            "phi: every operand must have the result type",
        ),
        Op::Glsl(g) => extended::check_glsl(cx, *g, a, r),
        Op::Group { op, scope, group } => extended::check_group(cx, *op, *scope, *group, ops, a, r),
        Op::ControlBarrier { .. } | Op::MemoryBarrier { .. } => {}
        Op::Tangle(t) => tangle::check_tangle(cx, *t, a, Some(r).filter(|_| op.has_result())),
    }
}

fn check_plain(cx: &mut Ctx<'_>, p: PlainOp, ops: &[Operand], a: &[Type], r: Type) {
    use PlainOp::*;
    let types = &cx.module.types;
    let name = p.name();
    let msg = |what: &str| format!("{name}: {what}");
    let ok = match p {
        SNegate | Not | BitReverse => kind(types, r) == Kind::Int && same_shape(types, a[0], r),
        FNegate => kind(types, r) == Kind::Float && a[0] == r,
        // Unsigned division takes and gives the (unsigned) result type itself.
        UDiv | UMod => unsigned(types, r) && a[0] == r && a[1] == r,
        IAdd | ISub | IMul | SDiv | SRem | SMod | BitwiseAnd | BitwiseOr | BitwiseXor => {
            kind(types, r) == Kind::Int && same_shape(types, a[0], r) && same_shape(types, a[1], r)
        }
        ShiftLeftLogical | ShiftRightLogical | ShiftRightArithmetic => {
            kind(types, r) == Kind::Int
                && same_shape(types, a[0], r)
                && kind(types, a[1]) == Kind::Int
                && types.component_count(a[1]) == types.component_count(r)
        }
        FAdd | FSub | FMul | FDiv | FRem | FMod => {
            kind(types, r) == Kind::Float && a[0] == r && a[1] == r
        }
        VectorTimesScalar => {
            kind(types, r) == Kind::Float
                && is_vector(types, r)
                && a[0] == r
                && a[1] == types.scalar_of(r)
        }
        MatrixTimesScalar => matrix_dims(types, r).is_some_and(|(_, _, e)| a[1] == e) && a[0] == r,
        // Vector (rows of M) times M gives a vector of M's columns.
        VectorTimesMatrix => match (matrix_dims(types, a[1]), float_vector(types, a[0])) {
            (Some((cols, rows, e)), Some((n, ve))) => {
                n == rows && ve == e && float_vector(types, r) == Some((cols, e))
            }
            _ => false,
        },
        // M times a vector of M's columns gives a column.
        MatrixTimesVector => match (matrix_dims(types, a[0]), float_vector(types, a[1])) {
            (Some((cols, rows, e)), Some((n, ve))) => {
                n == cols && ve == e && float_vector(types, r) == Some((rows, e))
            }
            _ => false,
        },
        MatrixTimesMatrix => match (
            matrix_dims(types, a[0]),
            matrix_dims(types, a[1]),
            matrix_dims(types, r),
        ) {
            (Some((lc, lr, le)), Some((rc, rr, re)), Some((oc, or, oe))) => {
                lc == rr && oc == rc && or == lr && le == re && oe == le
            }
            _ => false,
        },
        // A column vector times a row vector: as many columns as the second has components.
        OuterProduct => match (
            float_vector(types, a[0]),
            float_vector(types, a[1]),
            matrix_dims(types, r),
        ) {
            (Some((n0, e0)), Some((n1, e1)), Some((cols, rows, e))) => {
                rows == n0 && cols == n1 && e0 == e && e1 == e
            }
            _ => false,
        },
        Transpose => match (matrix_dims(types, a[0]), matrix_dims(types, r)) {
            (Some((c, rw, e)), Some((rc, rr, re))) => c == rr && rw == rc && e == re,
            _ => false,
        },
        Dot => {
            kind(types, r) == Kind::Float
                && is_scalar(types, r)
                && a[0] == a[1]
                && is_vector(types, a[0])
                && types.scalar_of(a[0]) == r
        }
        IAddCarry | ISubBorrow | UMulExtended | SMulExtended => match types.get(r) {
            TypeData::Struct { members, .. } => {
                members.len() == 2
                    && members.iter().all(|m| m.ty == members[0].ty)
                    && kind(types, members[0].ty) == Kind::Int
                    && (!matches!(p, IAddCarry | ISubBorrow | UMulExtended)
                        || unsigned(types, members[0].ty))
                    && a[0] == members[0].ty
                    && a[1] == members[0].ty
            }
            _ => false,
        },
        BitFieldInsert => {
            kind(types, r) == Kind::Int
                && same_shape(types, a[0], r)
                && same_shape(types, a[1], r)
                && int_scalar(types, a[2])
                && int_scalar(types, a[3])
        }
        BitFieldSExtract | BitFieldUExtract => {
            kind(types, r) == Kind::Int
                && same_shape(types, a[0], r)
                && int_scalar(types, a[1])
                && int_scalar(types, a[2])
        }
        BitCount => {
            kind(types, r) == Kind::Int
                && kind(types, a[0]) == Kind::Int
                && types.component_count(a[0]) == types.component_count(r)
        }
        Any | All => {
            matches!(types.get(r), TypeData::Bool)
                && kind(types, a[0]) == Kind::Bool
                && is_vector(types, a[0])
        }
        IsNan | IsInf => {
            kind(types, r) == Kind::Bool
                && kind(types, a[0]) == Kind::Float
                && types.component_count(a[0]) == types.component_count(r)
        }
        LogicalEqual | LogicalNotEqual | LogicalOr | LogicalAnd => {
            kind(types, r) == Kind::Bool && a[0] == r && a[1] == r
        }
        LogicalNot => kind(types, r) == Kind::Bool && a[0] == r,
        Select => {
            let cond_ok = kind(types, a[0]) == Kind::Bool
                && (is_scalar(types, a[0])
                    || types.component_count(a[0]) == types.component_count(r));
            cond_ok && a[1] == r && a[2] == r
        }
        IEqual | INotEqual | UGreaterThan | SGreaterThan | UGreaterThanEqual
        | SGreaterThanEqual | ULessThan | SLessThan | ULessThanEqual | SLessThanEqual => {
            kind(types, r) == Kind::Bool
                && kind(types, a[0]) == Kind::Int
                && same_shape(types, a[0], a[1])
                && types.component_count(a[0]) == types.component_count(r)
        }
        FOrdEqual
        | FUnordEqual
        | FOrdNotEqual
        | FUnordNotEqual
        | FOrdLessThan
        | FUnordLessThan
        | FOrdGreaterThan
        | FUnordGreaterThan
        | FOrdLessThanEqual
        | FUnordLessThanEqual
        | FOrdGreaterThanEqual
        | FUnordGreaterThanEqual => {
            kind(types, r) == Kind::Bool
                && kind(types, a[0]) == Kind::Float
                && a[0] == a[1]
                && types.component_count(a[0]) == types.component_count(r)
        }
        ConvertFToU => convert(types, a[0], r, Kind::Float, Kind::Int) && unsigned(types, r),
        ConvertFToS => convert(types, a[0], r, Kind::Float, Kind::Int),
        ConvertSToF | ConvertUToF => convert(types, a[0], r, Kind::Int, Kind::Float),
        // Width conversions change the width; UConvert gives an unsigned type.
        UConvert | SConvert => {
            convert(types, a[0], r, Kind::Int, Kind::Int)
                && types.bit_width(a[0]) != types.bit_width(r)
                && (p == SConvert || unsigned(types, r))
        }
        FConvert => {
            convert(types, a[0], r, Kind::Float, Kind::Float)
                && types.bit_width(a[0]) != types.bit_width(r)
        }
        Bitcast => {
            let bits =
                |t: Type| u64::from(types.bit_width(t)) * u64::from(types.component_count(t));
            kind(types, a[0]) != Kind::Other
                && kind(types, a[0]) != Kind::Bool
                && kind(types, r) != Kind::Other
                && kind(types, r) != Kind::Bool
                && bits(a[0]) == bits(r)
        }
        CompositeConstruct => match types.get(r) {
            TypeData::Vector { elem, count } => {
                let mut n = 0;
                let mut ok = true;
                for t in a {
                    if types.scalar_of(*t) != *elem {
                        ok = false;
                    }
                    n += types.component_count(*t);
                }
                ok && n == u32::from(*count) && a.len() > 1
            }
            TypeData::Array { elem, len, .. } => {
                a.len() == *len as usize && a.iter().all(|t| t == elem)
            }
            TypeData::Matrix {
                column,
                count,
                layout: None,
            } => a.len() == usize::from(*count) && a.iter().all(|t| t == column),
            TypeData::Struct { members, .. } => {
                a.len() == members.len() && a.iter().zip(members).all(|(t, m)| *t == m.ty)
            }
            _ => false,
        },
        VectorExtractDynamic => {
            is_vector(types, a[0]) && types.scalar_of(a[0]) == r && int_scalar(types, a[1])
        }
        VectorInsertDynamic => {
            is_vector(types, r)
                && a[0] == r
                && a[1] == types.scalar_of(r)
                && int_scalar(types, a[2])
        }
        CopyObject => a[0] == r,
        AccessChain => {
            let walked = access_chain(cx, ops, a);
            let types = &cx.module.types;
            match (walked, types.pointer(r)) {
                (Some((sc, t)), Some((rsc, rt))) => sc == rsc && t == rt,
                _ => false,
            }
        }
        Undef => true,
    };
    if !ok {
        let shown: Vec<String> = a.iter().map(|t| cx.name(*t)).collect();
        let text = msg(&format!(
            "operands ({}) do not fit result {}",
            shown.join(", "),
            cx.name(r)
        ));
        cx.fail(text);
    }
}

fn convert(types: &TypeTable, from: Type, to: Type, fk: Kind, tk: Kind) -> bool {
    kind(types, from) == fk
        && kind(types, to) == tk
        && types.component_count(from) == types.component_count(to)
        && is_vector(types, from) == is_vector(types, to)
}

/// The storage class and type an access chain reaches, if its indices are valid.
fn access_chain(cx: &Ctx<'_>, ops: &[Operand], a: &[Type]) -> Option<(StorageClass, Type)> {
    let types = cx.types();
    let (sc, mut t) = types.pointer(a[0])?;
    for (o, ot) in ops[1..].iter().zip(&a[1..]) {
        if !int_scalar(types, *ot) {
            return None;
        }
        t = match types.get(t) {
            TypeData::Struct { .. } => {
                let i = cx.const_int(*o)?;
                types.element(t, Some(u32::try_from(i).ok()?))?
            }
            // A constant index past the end of an array or vector is valid SPIR-V (as
            // spirv-val agrees); executing it is undefined, which the interpreter reports.
            _ => types.element(t, None)?,
        };
    }
    Some((sc, t))
}
