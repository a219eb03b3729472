//! Plain ops: comparisons, conversions, bitcasts, logical and composite operations.

use tangle_ir::{PlainOp, Type, TypeData, TypeTable};

use super::float::{from_f, to_f};
use super::{
    lift, mask, op_widths, scalar, sext, undef_like, unsupported, OpFail, OpResult, Poison, Scalar,
    Val,
};

/// The plain ops that `arith::plain` does not handle.
pub(super) fn plain(
    types: &TypeTable,
    op: PlainOp,
    rty: Type,
    atys: &[Type],
    args: &[Val],
    refs: &[&Val],
) -> OpResult {
    use PlainOp as P;
    let (rw, aw) = op_widths(types, op, rty, atys)?;
    let m = mask(rw);
    match op {
        P::CopyObject => Ok(args[0].clone()),
        P::LogicalAnd => lift(refs, &mut |v| Ok(Val::Bool(v[0].truth() && v[1].truth()))),
        P::LogicalOr => lift(refs, &mut |v| Ok(Val::Bool(v[0].truth() || v[1].truth()))),
        P::LogicalEqual => lift(refs, &mut |v| Ok(Val::Bool(v[0].truth() == v[1].truth()))),
        P::LogicalNotEqual => lift(refs, &mut |v| Ok(Val::Bool(v[0].truth() != v[1].truth()))),
        P::LogicalNot => lift(refs, &mut |v| Ok(Val::Bool(!v[0].truth()))),
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
            // Component-wise for a vector condition; an undefined condition (component)
            // makes the result (component) undefined, an undefined unchosen operand does not.
            let pick = |c: &Val, a: &Val, b: &Val| match c {
                Val::Undef(p) => undef_like(types, types.scalar_of(rty), p),
                c if c.truth() => a.clone(),
                _ => b.clone(),
            };
            match (&args[0], &args[1], &args[2]) {
                (Val::Comp(c), Val::Comp(a), Val::Comp(b)) => Ok(Val::Comp(
                    c.iter()
                        .zip(a.iter().zip(b))
                        .map(|(c, (a, b))| pick(c, a, b))
                        .collect(),
                )),
                (Val::Undef(p), _, _) => Ok(undef_like(types, rty, p)),
                (c, a, b) => Ok(pick(c, a, b)),
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
        | P::SLessThanEqual => lift(refs, &mut |v| {
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
        | P::FUnordGreaterThanEqual => lift(refs, &mut |v| {
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
        P::IsNan => lift(refs, &mut |v| {
            Ok(Val::Bool(to_f(v[0].bits(), aw)?.is_nan()))
        }),
        P::IsInf => lift(refs, &mut |v| {
            Ok(Val::Bool(to_f(v[0].bits(), aw)?.is_infinite()))
        }),
        P::UConvert => lift(refs, &mut |v| Ok(Val::Bits(v[0].bits() & m))),
        P::SConvert => lift(refs, &mut |v| {
            Ok(Val::Bits(sext(v[0].bits(), aw) as u64 & m))
        }),
        P::FConvert => lift(refs, &mut |v| {
            Ok(Val::Bits(from_f(to_f(v[0].bits(), aw)?, rw)?))
        }),
        P::ConvertSToF => lift(refs, &mut |v| {
            Ok(Val::Bits(int_to_float(sext(v[0].bits(), aw) as i128, rw)?))
        }),
        P::ConvertUToF => lift(refs, &mut |v| {
            Ok(Val::Bits(int_to_float(i128::from(v[0].bits()), rw)?))
        }),
        P::ConvertFToS => lift(refs, &mut |v| {
            let x = to_f(v[0].bits(), aw)?.trunc();
            let (lo, hi) = (-(2f64.powi(rw as i32 - 1)), 2f64.powi(rw as i32 - 1));
            if x.is_nan() || x < lo || x >= hi {
                return Ok(Poison::here("float to signed conversion out of range"));
            }
            Ok(Val::Bits(x as i64 as u64 & m))
        }),
        P::ConvertFToU => lift(refs, &mut |v| {
            let x = to_f(v[0].bits(), aw)?.trunc();
            if x.is_nan() || x < 0.0 || x >= 2f64.powi(rw as i32) {
                return Ok(Poison::here("float to unsigned conversion out of range"));
            }
            Ok(Val::Bits(x as u64 & m))
        }),
        P::Bitcast => bitcast(types, rty, atys[0], &args[0]),
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
            if let Val::Undef(p) = &args[1] {
                return Ok(undef_like(types, rty, p));
            }
            c.get(args[1].bits() as usize)
                .cloned()
                .ok_or_else(|| OpFail::Undefined("vector index out of range".into()))
        }
        P::VectorInsertDynamic => {
            let Val::Comp(mut c) = args[0].clone() else {
                return unsupported("insert into a non-vector");
            };
            if let Val::Undef(p) = &args[2] {
                return Ok(undef_like(types, rty, p));
            }
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

/// An integer converted to a float of width `w`, rounded once. (Through f64 a 64-bit
/// integer would be rounded twice for f32; for f16 every integer that f64 rounds is beyond
/// the f16 range, so f64 is exact enough there.)
fn int_to_float(x: i128, w: u32) -> Result<u64, OpFail> {
    match w {
        32 => Ok(u64::from((x as f32).to_bits())),
        _ => from_f(x as f64, w),
    }
}

/// `bitcast`. With equal component counts every component keeps its bits. Otherwise (e.g.
/// `f16x2` ↔ `u32`, `packFloat2x16`) the operand's components are one bit string, the
/// lowest-numbered component in the lowest-order bits, cut into the result's components.
fn bitcast(types: &TypeTable, rty: Type, aty: Type, v: &Val) -> OpResult {
    let shape = |ty: Type| -> Option<(u32, u32)> {
        let n = match types.get(ty) {
            TypeData::Vector { count, .. } => u32::from(*count),
            _ => 1,
        };
        match scalar(types, ty)? {
            Scalar::Int(w) | Scalar::Float(w) => Some((w, n)),
            Scalar::Bool => None,
        }
    };
    let comps = |v: &Val| match v {
        Val::Comp(c) => c.iter().map(Val::bits).collect(),
        x => vec![x.bits()],
    };
    let make = |c: Vec<u64>, n: u32| {
        if n == 1 && !matches!(types.get(rty), TypeData::Vector { .. }) {
            Val::Bits(c[0])
        } else {
            Val::Comp(c.into_iter().map(Val::Bits).collect())
        }
    };
    match (shape(aty), shape(rty)) {
        (Some((aw, an)), Some((rw, rn))) if an == rn && aw == rw => Ok(v.clone()),
        (Some((aw, an)), Some((rw, rn))) if aw * an == rw * rn => {
            let src = comps(v);
            if an > rn {
                // Several operand components per result component.
                let k = (an / rn) as usize;
                let out = src
                    .chunks(k)
                    .map(|ch| {
                        ch.iter()
                            .enumerate()
                            .fold(0, |acc, (i, x)| acc | (x & mask(aw)) << (i as u32 * aw))
                    })
                    .collect();
                Ok(make(out, rn))
            } else {
                // Several result components per operand component.
                let k = rn / an;
                let out = src
                    .iter()
                    .flat_map(|x| (0..k).map(move |i| (x >> (i * rw)) & mask(rw)))
                    .collect();
                Ok(make(out, rn))
            }
        }
        (Some(_), Some(_)) => unsupported("bitcast between types of different sizes"),
        // Pointers and anything else without numeric components: unchanged, as before.
        _ if matches!(v, Val::Comp(_)) == matches!(types.get(rty), TypeData::Vector { .. }) => {
            Ok(v.clone())
        }
        _ => unsupported("bitcast between a vector and a scalar"),
    }
}

/// The part of composite `v` at index path `idx`; `None` when an index is out of range or
/// goes into a scalar.
pub fn composite_extract(v: &Val, idx: &[u32]) -> Option<Val> {
    let mut cur = v;
    for i in idx {
        cur = match cur {
            Val::Comp(c) => c.get(*i as usize)?,
            _ => return None,
        };
    }
    Some(cur.clone())
}

/// `root` with the part at index path `idx` replaced by `part`; `None` as for
/// [`composite_extract`].
pub fn composite_insert(root: &Val, idx: &[u32], part: Val) -> Option<Val> {
    let mut root = root.clone();
    let mut cur = &mut root;
    for i in idx {
        cur = match cur {
            Val::Comp(c) => c.get_mut(*i as usize)?,
            _ => return None,
        };
    }
    *cur = part;
    Some(root)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::plain;

    #[test]
    fn bitcast_between_component_counts() {
        let mut t = TypeTable::new();
        let u = t.u32();
        let h = t.intern(TypeData::Float { width: 16 });
        let h2 = t.intern(TypeData::Vector { elem: h, count: 2 });
        let u2 = t.intern(TypeData::Vector { elem: u, count: 2 });
        let h4 = t.intern(TypeData::Vector { elem: h, count: 4 });
        let halves = Val::Comp(vec![Val::Bits(0x3c00), Val::Bits(0x1000)]);
        // packFloat2x16: component 0 in the low bits.
        let packed = plain(
            &t,
            PlainOp::Bitcast,
            u,
            &[h2],
            std::slice::from_ref(&halves),
        )
        .unwrap();
        assert_eq!(packed, Val::Bits(0x1000_3c00));
        assert_eq!(
            plain(&t, PlainOp::Bitcast, h2, &[u], &[packed]).unwrap(),
            halves
        );
        let words = Val::Comp(vec![Val::Bits(0x4000_3c00), Val::Bits(0xc000_bc00)]);
        let quarters = plain(
            &t,
            PlainOp::Bitcast,
            h4,
            &[u2],
            std::slice::from_ref(&words),
        )
        .unwrap();
        assert_eq!(
            quarters,
            Val::Comp([0x3c00, 0x4000, 0xbc00, 0xc000].map(Val::Bits).to_vec())
        );
        assert_eq!(
            plain(&t, PlainOp::Bitcast, u2, &[h4], &[quarters]).unwrap(),
            words
        );
        assert!(matches!(
            plain(&t, PlainOp::Bitcast, u2, &[h2], &[halves]),
            Err(OpFail::Unsupported(_))
        ));
    }

    #[test]
    fn int_to_f32_rounds_once() {
        let mut t = TypeTable::new();
        let f = t.intern(TypeData::Float { width: 32 });
        let u64t = t.intern(TypeData::Int {
            width: 64,
            signed: false,
        });
        let i64t = t.intern(TypeData::Int {
            width: 64,
            signed: true,
        });
        // 2^60 + 2^36 + 1: just above the tie between 2^60 and 2^60 + 2^37 (f32 spacing
        // at 2^60), so 2^60 + 2^37. Through f64 the +1 is lost first, and the tie goes to
        // even: 2^60.
        let x = (1u64 << 60) + (1 << 36) + 1;
        let want = Val::Bits(u64::from((((1u64 << 60) + (1 << 37)) as f32).to_bits()));
        assert_eq!(
            plain(&t, PlainOp::ConvertUToF, f, &[u64t], &[Val::Bits(x)]).unwrap(),
            want
        );
        let neg = Val::Bits(x.wrapping_neg());
        let Val::Bits(w) = want else { unreachable!() };
        assert_eq!(
            plain(&t, PlainOp::ConvertSToF, f, &[i64t], &[neg]).unwrap(),
            Val::Bits(w | 0x8000_0000)
        );
    }
}
