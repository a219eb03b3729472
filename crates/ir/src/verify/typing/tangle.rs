//! Typing of what has no SPIR-V counterpart: the tangle-only operations, checked against
//! their table entry, and convergence-control operands.

use super::Ctx;
use crate::module::Value;
use crate::ops::{ConvOperand, Op, TangleOp};
use crate::types::{Type, TypeData};

/// The convergence-control operand: present only where the operation allows or needs one,
/// and of token type.
pub(super) fn check_conv_operand(cx: &mut Ctx<'_>, op: &Op, conv: Option<Value>) {
    match (op.conv_operand(), conv) {
        (ConvOperand::Forbidden, Some(_)) => cx.fail(format!(
            "`{}` takes no convergence-control operand",
            op.mnemonic()
        )),
        (ConvOperand::Required, None) => cx.fail(format!(
            "`{}` needs a convergence-control operand",
            op.mnemonic()
        )),
        _ => {}
    }
    if let Some(token) = conv {
        let ty = cx.func.values[token].ty;
        if !matches!(cx.types().get(ty), TypeData::Token) {
            let name = cx.name(ty);
            cx.fail(format!(
                "the convergence-control operand {token} must be a token, not {name}"
            ));
        }
    }
}

/// A tangle-only operation against its table entry: operand and result kinds.
pub(super) fn check_tangle(cx: &mut Ctx<'_>, op: TangleOp, a: &[Type], r: Option<Type>) {
    for (k, (ty, want)) in a.iter().zip(op.operands()).enumerate() {
        if *cx.types().get(*ty) != want.type_data() {
            let name = cx.name(*ty);
            cx.fail(format!(
                "{}: operand {k} must be a {}, not {name}",
                op.name(),
                want.name()
            ));
        }
    }
    if let (Some(ty), Some(want)) = (r, op.result()) {
        if *cx.types().get(ty) != want.type_data() {
            let name = cx.name(ty);
            cx.fail(format!(
                "{}: the result must be a {}, not {name}",
                op.name(),
                want.name()
            ));
        }
    }
}
