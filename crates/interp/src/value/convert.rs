//! Plain ops: comparisons, conversions, bitcasts, logical and composite operations.

use tangle_ir::{PlainOp, Type, TypeData, TypeTable};

use super::float::{from_f, to_f};
use super::layout::zero;
use super::{lift, mask, op_widths, sext, unsupported, OpFail, OpResult, Val};

/// The plain ops that `arith::plain` does not handle.
pub(super) fn plain(
    types: &TypeTable,
    op: PlainOp,
    rty: Type,
    atys: &[Type],
    args: &[Val],
) -> OpResult {
    use PlainOp as P;
    let refs: Vec<&Val> = args.iter().collect();
    let (rw, aw) = op_widths(types, rty, atys);
    let m = mask(rw);
    match op {
        P::CopyObject => Ok(args[0].clone()),
        P::Undef => Ok(zero(types, rty)),
        P::LogicalAnd => lift(&refs, &mut |v| Ok(Val::Bool(v[0].truth() && v[1].truth()))),
        P::LogicalOr => lift(&refs, &mut |v| Ok(Val::Bool(v[0].truth() || v[1].truth()))),
        P::LogicalEqual => lift(&refs, &mut |v| Ok(Val::Bool(v[0].truth() == v[1].truth()))),
        P::LogicalNotEqual => lift(&refs, &mut |v| Ok(Val::Bool(v[0].truth() != v[1].truth()))),
        P::LogicalNot => lift(&refs, &mut |v| Ok(Val::Bool(!v[0].truth()))),
        P::Any | P::All => {
            let comps = match &args[0] {
                Val::Comp(c) => c.clone(),
                v => vec![v.clone()],
            };
            Ok(Val::Bool(if op == P::Any {
                comps.iter().any(Val::truth)
            } else {
                comps.iter().all(Val::truth)
            }))
        }
        P::Select => {
            if let (Val::Comp(c), Val::Comp(_), Val::Comp(_)) = (&args[0], &args[1], &args[2]) {
                let _ = c;
                lift(&refs, &mut |v| {
                    Ok(if v[0].truth() {
                        v[1].clone()
                    } else {
                        v[2].clone()
                    })
                })
            } else if args[0].truth() {
                Ok(args[1].clone())
            } else {
                Ok(args[2].clone())
            }
        }
        P::IEqual
        | P::INotEqual
        | P::UGreaterThan
        | P::UGreaterThanEqual
        | P::ULessThan
        | P::ULessThanEqual
        | P::SGreaterThan
        | P::SGreaterThanEqual
        | P::SLessThan
        | P::SLessThanEqual => lift(&refs, &mut |v| {
            let (a, b) = (v[0].bits(), v[1].bits());
            let (sa, sb) = (sext(a, aw), sext(b, aw));
            Ok(Val::Bool(match op {
                P::IEqual => a == b,
                P::INotEqual => a != b,
                P::UGreaterThan => a > b,
                P::UGreaterThanEqual => a >= b,
                P::ULessThan => a < b,
                P::ULessThanEqual => a <= b,
                P::SGreaterThan => sa > sb,
                P::SGreaterThanEqual => sa >= sb,
                P::SLessThan => sa < sb,
                _ => sa <= sb,
            }))
        }),
        P::FOrdEqual
        | P::FUnordEqual
        | P::FOrdNotEqual
        | P::FUnordNotEqual
        | P::FOrdLessThan
        | P::FUnordLessThan
        | P::FOrdGreaterThan
        | P::FUnordGreaterThan
        | P::FOrdLessThanEqual
        | P::FUnordLessThanEqual
        | P::FOrdGreaterThanEqual
        | P::FUnordGreaterThanEqual => lift(&refs, &mut |v| {
            let (a, b) = (to_f(v[0].bits(), aw)?, to_f(v[1].bits(), aw)?);
            let unord = a.is_nan() || b.is_nan();
            let ordered = matches!(
                op,
                P::FOrdEqual
                    | P::FOrdNotEqual
                    | P::FOrdLessThan
                    | P::FOrdGreaterThan
                    | P::FOrdLessThanEqual
                    | P::FOrdGreaterThanEqual
            );
            if unord {
                return Ok(Val::Bool(!ordered));
            }
            Ok(Val::Bool(match op {
                P::FOrdEqual | P::FUnordEqual => a == b,
                P::FOrdNotEqual | P::FUnordNotEqual => a != b,
                P::FOrdLessThan | P::FUnordLessThan => a < b,
                P::FOrdGreaterThan | P::FUnordGreaterThan => a > b,
                P::FOrdLessThanEqual | P::FUnordLessThanEqual => a <= b,
                _ => a >= b,
            }))
        }),
        P::IsNan => lift(&refs, &mut |v| {
            Ok(Val::Bool(to_f(v[0].bits(), aw)?.is_nan()))
        }),
        P::IsInf => lift(&refs, &mut |v| {
            Ok(Val::Bool(to_f(v[0].bits(), aw)?.is_infinite()))
        }),
        P::UConvert => lift(&refs, &mut |v| Ok(Val::Bits(v[0].bits() & m))),
        P::SConvert => lift(&refs, &mut |v| {
            Ok(Val::Bits(sext(v[0].bits(), aw) as u64 & m))
        }),
        P::FConvert => lift(&refs, &mut |v| {
            Ok(Val::Bits(from_f(to_f(v[0].bits(), aw)?, rw)?))
        }),
        P::ConvertSToF => lift(&refs, &mut |v| {
            Ok(Val::Bits(from_f(sext(v[0].bits(), aw) as f64, rw)?))
        }),
        P::ConvertUToF => lift(&refs, &mut |v| {
            Ok(Val::Bits(from_f(v[0].bits() as f64, rw)?))
        }),
        P::ConvertFToS => lift(&refs, &mut |v| {
            let x = to_f(v[0].bits(), aw)?.trunc();
            let (lo, hi) = (-(2f64.powi(rw as i32 - 1)), 2f64.powi(rw as i32 - 1));
            if x.is_nan() || x < lo || x >= hi {
                return Err(OpFail::Undefined(
                    "float to signed conversion out of range".into(),
                ));
            }
            Ok(Val::Bits(x as i64 as u64 & m))
        }),
        P::ConvertFToU => lift(&refs, &mut |v| {
            let x = to_f(v[0].bits(), aw)?.trunc();
            if x.is_nan() || x < 0.0 || x >= 2f64.powi(rw as i32) {
                return Err(OpFail::Undefined(
                    "float to unsigned conversion out of range".into(),
                ));
            }
            Ok(Val::Bits(x as u64 & m))
        }),
        P::Bitcast => {
            if matches!(args[0], Val::Comp(_)) != matches!(types.get(rty), TypeData::Vector { .. })
            {
                return unsupported("bitcast between a vector and a scalar");
            }
            Ok(args[0].clone())
        }
        P::CompositeConstruct => {
            if let TypeData::Vector { .. } = types.get(rty) {
                let mut out = Vec::new();
                for a in args {
                    match a {
                        Val::Comp(c) => out.extend(c.iter().cloned()),
                        v => out.push(v.clone()),
                    }
                }
                Ok(Val::Comp(out))
            } else {
                Ok(Val::Comp(args.to_vec()))
            }
        }
        P::VectorExtractDynamic => {
            let Val::Comp(c) = &args[0] else {
                return unsupported("extract from a non-vector");
            };
            c.get(args[1].bits() as usize)
                .cloned()
                .ok_or_else(|| OpFail::Undefined("vector index out of range".into()))
        }
        P::VectorInsertDynamic => {
            let Val::Comp(mut c) = args[0].clone() else {
                return unsupported("insert into a non-vector");
            };
            let i = args[2].bits() as usize;
            if i >= c.len() {
                return Err(OpFail::Undefined("vector index out of range".into()));
            }
            c[i] = args[1].clone();
            Ok(Val::Comp(c))
        }
        P::AccessChain => unsupported("access_chain outside the memory model"),
        #[allow(unreachable_patterns)]
        other => unsupported(format!("plain op {}", other.name())),
    }
}
