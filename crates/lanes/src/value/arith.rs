//! Plain ops: integer and float arithmetic, bit operations, `dot` and extended arithmetic.
//! The rest (comparisons, conversions, logical and composite ops) is in `convert`.

use tangle_ir::{PlainOp, Type, TypeTable};

use super::float::{fbin, from_f};
use super::{
    convert, first_poison, lift, mask, op_widths, sext, undef_like, unsupported, with_refs,
    OpResult, Poison, Val,
};

/// A fresh poison (born at the executing instruction) for values built whole.
fn poisoned(why: &str) -> std::sync::Arc<Poison> {
    match Poison::here(why) {
        Val::Undef(p) => p,
        _ => unreachable!("Poison::here makes an undefined value"),
    }
}

/// Whether `op` computes each result component from the same component of its operands
/// (so an undefined operand component makes only that result component undefined), or only
/// moves values around. Every other op with an undefined operand component gives a fully
/// undefined result: conservative for ops like `dot` or a reshaping `bitcast`.
fn poison_per_component(op: PlainOp) -> bool {
    use PlainOp as P;
    matches!(
        op,
        P::IAdd
            | P::ISub
            | P::IMul
            | P::SNegate
            | P::UDiv
            | P::UMod
            | P::SDiv
            | P::SRem
            | P::SMod
            | P::FAdd
            | P::FSub
            | P::FMul
            | P::FDiv
            | P::FRem
            | P::FMod
            | P::FNegate
            | P::ShiftLeftLogical
            | P::ShiftRightLogical
            | P::ShiftRightArithmetic
            | P::BitwiseAnd
            | P::BitwiseOr
            | P::BitwiseXor
            | P::Not
            | P::BitCount
            | P::BitReverse
            | P::BitFieldUExtract
            | P::BitFieldSExtract
            | P::BitFieldInsert
            | P::LogicalAnd
            | P::LogicalOr
            | P::LogicalEqual
            | P::LogicalNotEqual
            | P::LogicalNot
            | P::IEqual
            | P::INotEqual
            | P::UGreaterThan
            | P::UGreaterThanEqual
            | P::ULessThan
            | P::ULessThanEqual
            | P::SGreaterThan
            | P::SGreaterThanEqual
            | P::SLessThan
            | P::SLessThanEqual
            | P::FOrdEqual
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
            | P::FUnordGreaterThanEqual
            | P::IsNan
            | P::IsInf
            | P::UConvert
            | P::SConvert
            | P::FConvert
            | P::ConvertSToF
            | P::ConvertUToF
            | P::ConvertFToS
            | P::ConvertFToU
            // Moves: undefined components travel unchanged.
            | P::CopyObject
            | P::CompositeConstruct
            // Handled in place (the condition or index decides).
            | P::Select
            | P::VectorExtractDynamic
            | P::VectorInsertDynamic
    )
}

/// Evaluates a plain operation for one invocation.
///
/// `rty` is the result type, `atys` the operand types.
pub fn plain(types: &TypeTable, op: PlainOp, rty: Type, atys: &[Type], args: &[Val]) -> OpResult {
    use PlainOp as P;
    if op == P::Undef {
        return Ok(undef_like(types, rty, &poisoned("OpUndef")));
    }
    if let Some(p) = first_poison(args) {
        if !poison_per_component(op) {
            return Ok(undef_like(types, rty, p));
        }
    }
    with_refs(args, |refs| plain_refs(types, op, rty, atys, args, refs))
}

/// [`plain`] with `refs` referring to `args`.
fn plain_refs(
    types: &TypeTable,
    op: PlainOp,
    rty: Type,
    atys: &[Type],
    args: &[Val],
    refs: &[&Val],
) -> OpResult {
    use PlainOp as P;
    if super::matrix::is_matrix_op(op) {
        return super::matrix::plain(types, op, rty, args);
    }
    let (rw, aw) = op_widths(types, op, rty, atys)?;
    let m = mask(rw);
    match op {
        P::IAdd | P::ISub | P::IMul => {
            let f = match op {
                P::IAdd => u64::wrapping_add,
                P::ISub => u64::wrapping_sub,
                _ => u64::wrapping_mul,
            };
            lift(refs, &mut |v| {
                Ok(Val::Bits(f(v[0].bits(), v[1].bits()) & m))
            })
        }
        P::SNegate => lift(refs, &mut |v| Ok(Val::Bits(v[0].bits().wrapping_neg() & m))),
        P::UDiv | P::UMod => lift(refs, &mut |v| {
            let (a, b) = (v[0].bits(), v[1].bits());
            if b == 0 {
                return Ok(Poison::here("integer division by zero"));
            }
            Ok(Val::Bits(if op == P::UDiv { a / b } else { a % b }))
        }),
        P::SDiv | P::SRem | P::SMod => lift(refs, &mut |v| {
            let (a, b) = (sext(v[0].bits(), rw), sext(v[1].bits(), rw));
            if b == 0 {
                return Ok(Poison::here("integer division by zero"));
            }
            if b == -1 && a == sext(1u64 << (rw - 1), rw) {
                return Ok(Poison::here("signed division overflow (INT_MIN / -1)"));
            }
            let r = match op {
                P::SDiv => a / b,
                P::SRem => a % b,
                _ => {
                    let r = a % b;
                    if r != 0 && ((r < 0) != (b < 0)) {
                        r + b
                    } else {
                        r
                    }
                }
            };
            Ok(Val::Bits(r as u64 & m))
        }),
        P::FAdd | P::FSub | P::FMul | P::FDiv | P::FRem | P::FMod => {
            let f: fn(f64, f64) -> f64 = match op {
                P::FAdd => |a, b| a + b,
                P::FSub => |a, b| a - b,
                P::FMul => |a, b| a * b,
                P::FDiv => |a, b| a / b,
                P::FRem => |a, b| a % b,
                _ => |a, b| {
                    let r = a % b;
                    if r != 0.0 && ((r < 0.0) != (b < 0.0)) {
                        r + b
                    } else {
                        r
                    }
                },
            };
            lift(refs, &mut |v| {
                Ok(Val::Bits(fbin(v[0].bits(), v[1].bits(), rw, f)?))
            })
        }
        P::FNegate => lift(refs, &mut |v| {
            Ok(Val::Bits(v[0].bits() ^ (1u64 << (rw - 1))))
        }),
        P::VectorTimesScalar => {
            let s = args[1].bits();
            lift(&[&args[0]], &mut |v| {
                Ok(Val::Bits(fbin(v[0].bits(), s, rw, |a, b| a * b)?))
            })
        }
        P::ShiftLeftLogical | P::ShiftRightLogical | P::ShiftRightArithmetic => {
            lift(refs, &mut |v| {
                let sh = v[1].bits();
                if sh >= u64::from(rw) {
                    return Ok(Poison::here("shift by at least the bit width"));
                }
                let a = v[0].bits();
                Ok(Val::Bits(
                    match op {
                        P::ShiftLeftLogical => a << sh,
                        P::ShiftRightLogical => a >> sh,
                        _ => (sext(a, rw) >> sh) as u64,
                    } & m,
                ))
            })
        }
        P::BitwiseAnd => lift(refs, &mut |v| Ok(Val::Bits(v[0].bits() & v[1].bits()))),
        P::BitwiseOr => lift(refs, &mut |v| Ok(Val::Bits(v[0].bits() | v[1].bits()))),
        P::BitwiseXor => lift(refs, &mut |v| Ok(Val::Bits(v[0].bits() ^ v[1].bits()))),
        P::Not => lift(refs, &mut |v| Ok(Val::Bits(!v[0].bits() & m))),
        P::BitCount => lift(refs, &mut |v| {
            Ok(Val::Bits(u64::from((v[0].bits() & mask(aw)).count_ones())))
        }),
        P::BitReverse => lift(refs, &mut |v| {
            Ok(Val::Bits(v[0].bits().reverse_bits() >> (64 - rw)))
        }),
        P::BitFieldUExtract | P::BitFieldSExtract => lift(refs, &mut |v| {
            let (base, off, cnt) = (v[0].bits(), v[1].bits(), v[2].bits());
            if off + cnt > u64::from(rw) {
                return Ok(Poison::here("bit field outside the operand"));
            }
            if cnt == 0 {
                return Ok(Val::Bits(0));
            }
            let f = (base >> off) & mask(cnt as u32);
            Ok(Val::Bits(if op == P::BitFieldSExtract {
                sext(f, cnt as u32) as u64 & m
            } else {
                f
            }))
        }),
        P::BitFieldInsert => lift(refs, &mut |v| {
            let (base, ins, off, cnt) = (v[0].bits(), v[1].bits(), v[2].bits(), v[3].bits());
            if off + cnt > u64::from(rw) {
                return Ok(Poison::here("bit field outside the operand"));
            }
            let fm = mask(cnt as u32) << off;
            Ok(Val::Bits(((base & !fm) | ((ins << off) & fm)) & m))
        }),
        P::Dot => {
            let (Val::Comp(a), Val::Comp(b)) = (&args[0], &args[1]) else {
                return unsupported("dot of non-vectors");
            };
            // Accumulated in order, each step rounded to the result width.
            let mut acc = from_f(0.0, rw)?;
            for (x, y) in a.iter().zip(b) {
                let p = fbin(x.bits(), y.bits(), rw, |a, b| a * b)?;
                acc = fbin(acc, p, rw, |a, b| a + b)?;
            }
            Ok(Val::Bits(acc))
        }
        P::IAddCarry | P::ISubBorrow | P::UMulExtended | P::SMulExtended => lift(refs, &mut |v| {
            let (a, b) = (v[0].bits(), v[1].bits());
            let w = aw;
            let (lo, hi) = match op {
                P::IAddCarry => {
                    let s = u128::from(a) + u128::from(b);
                    (s as u64 & mask(w), u64::from((s >> w) != 0))
                }
                P::ISubBorrow => (a.wrapping_sub(b) & mask(w), u64::from(b > a)),
                P::UMulExtended => {
                    let p = u128::from(a) * u128::from(b);
                    (p as u64 & mask(w), (p >> w) as u64 & mask(w))
                }
                _ => {
                    let p = i128::from(sext(a, w)) * i128::from(sext(b, w));
                    (p as u64 & mask(w), (p >> w) as u64 & mask(w))
                }
            };
            Ok(Val::Comp(vec![Val::Bits(lo), Val::Bits(hi)]))
        })
        .map(|v| {
            if matches!(args[0], Val::Comp(_)) {
                transpose_pair(v)
            } else {
                v
            }
        }),
        _ => convert::plain(types, op, rty, atys, args, refs),
    }
}

/// Turns a vector of (lo, hi) pairs into a pair of vectors (extended-arithmetic results are
/// structs of two scalars or two vectors).
fn transpose_pair(v: Val) -> Val {
    let Val::Comp(items) = v else { return v };
    let mut lo = Vec::new();
    let mut hi = Vec::new();
    for i in items {
        if let Val::Comp(p) = i {
            lo.push(p[0].clone());
            hi.push(p[1].clone());
        }
    }
    Val::Comp(vec![Val::Comp(lo), Val::Comp(hi)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use tangle_ir::TypeData;

    fn table() -> (TypeTable, Type, Type, Type) {
        let mut t = TypeTable::new();
        let u = t.u32();
        let i = t.intern(TypeData::Int {
            width: 32,
            signed: true,
        });
        let f = t.intern(TypeData::Float { width: 32 });
        (t, u, i, f)
    }

    fn f(x: f32) -> Val {
        Val::Bits(u64::from(x.to_bits()))
    }

    #[test]
    fn integer_ops_wrap_and_sign() {
        let (t, u, i, _) = table();
        let m1 = Val::Bits(0xffff_ffff);
        assert_eq!(
            plain(&t, PlainOp::IAdd, u, &[u, u], &[m1.clone(), Val::Bits(2)]).unwrap(),
            Val::Bits(1)
        );
        assert_eq!(
            plain(
                &t,
                PlainOp::SDiv,
                i,
                &[i, i],
                &[Val::Bits(0xffff_fff9), Val::Bits(2)]
            )
            .unwrap(),
            Val::Bits(0xffff_fffd)
        );
        // smod takes the divisor's sign, srem the dividend's.
        assert_eq!(
            plain(
                &t,
                PlainOp::SMod,
                i,
                &[i, i],
                &[Val::Bits(0xffff_fff9), Val::Bits(3)]
            )
            .unwrap(),
            Val::Bits(2)
        );
        assert_eq!(
            plain(
                &t,
                PlainOp::SRem,
                i,
                &[i, i],
                &[Val::Bits(0xffff_fff9), Val::Bits(3)]
            )
            .unwrap(),
            Val::Bits(0xffff_ffff)
        );
        // Division by zero: an undefined value, not an error.
        let q = plain(&t, PlainOp::UDiv, u, &[u, u], &[m1.clone(), Val::Bits(0)]).unwrap();
        assert_eq!(q.poison().unwrap().why, "integer division by zero");
        // It propagates through a later op, and a defined op stays defined.
        let sum = plain(&t, PlainOp::IAdd, u, &[u, u], &[q, Val::Bits(1)]).unwrap();
        assert!(sum.is_poisoned());
        assert_eq!(
            plain(
                &t,
                PlainOp::ShiftRightArithmetic,
                i,
                &[i, u],
                &[m1, Val::Bits(4)]
            )
            .unwrap(),
            Val::Bits(0xffff_ffff)
        );
        assert_eq!(
            plain(
                &t,
                PlainOp::BitFieldSExtract,
                i,
                &[i, u, u],
                &[Val::Bits(0x80), Val::Bits(4), Val::Bits(4)]
            )
            .unwrap(),
            Val::Bits(0xffff_fff8)
        );
    }

    #[test]
    fn f32_arithmetic_is_ieee_single() {
        let (t, _, _, fl) = table();
        let r = plain(&t, PlainOp::FAdd, fl, &[fl, fl], &[f(0.1), f(0.2)]).unwrap();
        assert_eq!(r, f(0.1f32 + 0.2f32));
        let r = plain(&t, PlainOp::FDiv, fl, &[fl, fl], &[f(1.0), f(3.0)]).unwrap();
        assert_eq!(r, f(1.0f32 / 3.0f32));
        let r = plain(&t, PlainOp::FMod, fl, &[fl, fl], &[f(-1.0), f(3.0)]).unwrap();
        assert_eq!(r, f(2.0));
        let nan = f(f32::NAN);
        assert_eq!(
            plain(
                &t,
                PlainOp::FUnordEqual,
                t.find(&TypeData::Bool).unwrap_or(fl),
                &[fl, fl],
                &[nan.clone(), f(1.0)]
            )
            .unwrap(),
            Val::Bool(true)
        );
        assert_eq!(
            plain(&t, PlainOp::FOrdNotEqual, fl, &[fl, fl], &[nan, f(1.0)]).unwrap(),
            Val::Bool(false)
        );
    }
}
