//! Constants and specialization: every module constant evaluated once, in order, with the
//! configured specialization values.

use std::collections::BTreeMap;
use std::sync::Arc;

use tangle_ir::{Const, ConstValue, Module, Type};

use crate::ops;
use crate::value::{self, Born, Poison, Val};

/// The value of every constant of `module` (indexed by constant number), with `spec`
/// overriding specialization constants by `SpecId` (bit patterns). An `OpUndef` constant
/// is undefined (born at the constant); a spec-constant op is evaluated with the per-lane
/// op semantics ([`ops::eval`]), so a division by zero there is undefined too.
pub fn evaluate(module: &Module, spec: &BTreeMap<u32, u64>) -> Result<Vec<Val>, String> {
    let mut done: Vec<Val> = Vec::with_capacity(module.consts.len());
    for (c, _) in module.consts.iter() {
        let v = evaluate_one(module, spec, &done, c)?;
        done.push(v);
    }
    Ok(done)
}

fn evaluate_one(
    module: &Module,
    spec: &BTreeMap<u32, u64>,
    done: &[Val],
    c: Const,
) -> Result<Val, String> {
    let d = &module.consts[c];
    let get = |c: &Const| done[c.as_u32() as usize].clone();
    let bad = |what: String| format!("constant {c}: {what}");
    // The configured value of a specialization constant, if any.
    let over = d.spec_id.filter(|_| d.spec).and_then(|id| spec.get(&id));
    Ok(match &d.value {
        ConstValue::Bool(b) => Val::Bool(over.map_or(*b, |v| *v != 0)),
        ConstValue::Bits(b) => match over {
            Some(v) => Val::Bits(*v & value::mask(module.types.bit_width(d.ty))),
            None => Val::Bits(*b),
        },
        ConstValue::Composite(cs) => Val::Comp(cs.iter().map(get).collect()),
        ConstValue::Null => value::zero(&module.types, d.ty),
        ConstValue::Undef => value::undef_like(
            &module.types,
            d.ty,
            &Arc::new(Poison {
                born: Born::Const(c),
                why: "OpUndef".into(),
            }),
        ),
        ConstValue::SpecOp(op, args) => {
            let vals: Vec<Val> = args.iter().map(get).collect();
            let tys: Vec<Type> = args.iter().map(|a| module.consts[*a].ty).collect();
            if !ops::is_value_op(op) {
                return Err(bad(format!("spec op {} unsupported", op.mnemonic())));
            }
            let mut v = ops::eval(&module.types, op, d.ty, &tys, &vals)
                .map_err(|e| bad(format!("{e:?}")))?;
            v.stamp_born(&Born::Const(c));
            v
        }
    })
}
