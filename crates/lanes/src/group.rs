//! Subgroup operations over one tangle.

use tangle_ir::{GroupOp, GroupOperation, Type, TypeTable};

use crate::value::{fbin, from_f, mask, scalar, sext, undef_like, OpFail, Poison, Scalar, Val};
use crate::Mask;
use crate::{lanes_below, lanes_of};

type R<T> = Result<T, OpFail>;

fn undefined<T>(what: impl Into<String>) -> R<T> {
    Err(OpFail::Undefined(what.into()))
}

/// The ballot value (`u32x4`) of a lane mask.
pub fn ballot_val(m: Mask) -> Val {
    Val::Comp(
        (0..4)
            .map(|i| Val::Bits(((m >> (32 * i)) as u64) & 0xffff_ffff))
            .collect(),
    )
}

/// The lane mask of a ballot value (`u32x4` of defined words); an internal error for
/// anything else.
pub fn ballot_mask(v: &Val) -> R<Mask> {
    match v {
        Val::Comp(c) if c.len() == 4 => c.iter().enumerate().try_fold(0, |m, (i, w)| {
            Ok(m | (Mask::from(w.scalar()? as u32) << (32 * i)))
        }),
        other => Err(OpFail::Internal(format!(
            "a ballot must be a u32x4, found {other:?}"
        ))),
    }
}

fn map_comp(a: &Val, b: &Val, f: &mut dyn FnMut(&Val, &Val) -> R<Val>) -> R<Val> {
    match (a, b) {
        (Val::Comp(x), Val::Comp(y)) => Ok(Val::Comp(
            x.iter()
                .zip(y)
                .map(|(p, q)| map_comp(p, q, f))
                .collect::<R<_>>()?,
        )),
        _ => f(a, b),
    }
}

/// The identity of integer reduction `op` at width `w` bits, or `None` when `op` is not
/// an integer reduction. [`execute`] and the engines' fast paths share this definition.
#[inline]
pub fn int_identity(op: GroupOp, w: u32) -> Option<u64> {
    use GroupOp as G;
    Some(match op {
        G::IAdd | G::BitwiseOr | G::BitwiseXor | G::UMax => 0,
        G::IMul => 1,
        G::BitwiseAnd | G::UMin => mask(w),
        G::SMin => mask(w) >> 1,
        G::SMax => 1u64 << (w - 1),
        _ => return None,
    })
}

/// Integer reduction `op` of two defined `w`-bit integers, or `None` when `op` is not an
/// integer reduction. [`execute`] and the engines' fast paths share this definition.
#[inline]
pub fn int_combine(op: GroupOp, w: u32, x: u64, y: u64) -> Option<u64> {
    use GroupOp as G;
    Some(match op {
        G::IAdd => x.wrapping_add(y) & mask(w),
        G::IMul => x.wrapping_mul(y) & mask(w),
        G::UMin => x.min(y),
        G::UMax => x.max(y),
        G::SMin => {
            if sext(x, w) <= sext(y, w) {
                x
            } else {
                y
            }
        }
        G::SMax => {
            if sext(x, w) >= sext(y, w) {
                x
            } else {
                y
            }
        }
        G::BitwiseAnd => x & y,
        G::BitwiseOr => x | y,
        G::BitwiseXor => x ^ y,
        _ => return None,
    })
}

fn identity(op: GroupOp, s: Scalar, like: &Val) -> R<Val> {
    use GroupOp as G;
    let one = |v: Val| -> Val {
        match like {
            Val::Comp(c) => Val::Comp(vec![v; c.len()]),
            _ => v,
        }
    };
    let w = s.width();
    if let Some(v) = int_identity(op, w) {
        return Ok(one(Val::Bits(v)));
    }
    Ok(one(match op {
        G::FAdd => Val::Bits(from_f(0.0, w)?),
        G::FMul => Val::Bits(from_f(1.0, w)?),
        G::FMin => Val::Bits(from_f(f64::INFINITY, w)?),
        G::FMax => Val::Bits(from_f(f64::NEG_INFINITY, w)?),
        G::LogicalAnd => Val::Bool(true),
        G::LogicalOr | G::LogicalXor => Val::Bool(false),
        _ => {
            return Err(OpFail::Unsupported(format!(
                "{} has no identity",
                op.name()
            )))
        }
    }))
}

fn combine(op: GroupOp, s: Scalar, a: &Val, b: &Val) -> R<Val> {
    use GroupOp as G;
    let w = s.width();
    map_comp(a, b, &mut |a, b| {
        if let Some(p) = a.poison().or(b.poison()) {
            return Ok(Val::Undef(p.clone()));
        }
        let (x, y) = (a.bits(), b.bits());
        if let Some(r) = int_combine(op, w, x, y) {
            return Ok(Val::Bits(r));
        }
        Ok(match op {
            G::FAdd => Val::Bits(fbin(x, y, w, |p, q| p + q)?),
            G::FMul => Val::Bits(fbin(x, y, w, |p, q| p * q)?),
            G::FMin => Val::Bits(fbin(x, y, w, f64::min)?),
            G::FMax => Val::Bits(fbin(x, y, w, f64::max)?),
            G::LogicalAnd => Val::Bool(a.truth() && b.truth()),
            G::LogicalOr => Val::Bool(a.truth() || b.truth()),
            G::LogicalXor => Val::Bool(a.truth() != b.truth()),
            _ => {
                return Err(OpFail::Unsupported(format!(
                    "{} is not a reduction",
                    op.name()
                )))
            }
        })
    })
}

/// Executes a subgroup operation for the tangle `tangle` (lanes are subgroup invocation
/// ids) in a subgroup of `size` invocations. `args[l]` are lane `l`'s operands (empty for
/// lanes outside the tangle). Returns each tangle lane's result, in lane order.
#[allow(clippy::too_many_arguments)]
pub fn execute(
    types: &TypeTable,
    op: GroupOp,
    group: Option<GroupOperation>,
    rty: Type,
    arg_ty: Option<Type>,
    tangle: Mask,
    size: u32,
    args: &[Vec<Val>],
) -> R<Vec<Val>> {
    use GroupOp as G;
    let first = tangle.trailing_zeros() as usize;
    let size_mask = lanes_below(size);
    let ls: Vec<usize> = lanes_of(tangle).collect();
    // A lane reading a lane that is inactive or outside the subgroup gets an undefined
    // value; so does one whose lane index is itself undefined.
    let src = |l: usize, s: i64| -> R<Val> {
        if s < 0 || s >= i64::from(size) || tangle >> s & 1 == 0 {
            return Ok(Poison::here(format!(
                "lane {l} reads lane {s}, which is not an active lane of the subgroup"
            )));
        }
        Ok(args[s as usize][0].clone())
    };
    let index = |l: usize, f: &dyn Fn(u64) -> i64| -> R<Val> {
        match &args[l][1] {
            Val::Undef(p) => Ok(undef_like(types, rty, p)),
            i => src(l, f(i.scalar()?)),
        }
    };
    // The first undefined operand among the tangle's lanes (for ops that combine them all).
    let any_poison = |k: usize| {
        ls.iter()
            .find_map(|&l| args[l].get(k).and_then(Val::poison))
    };
    // Ops reading a ballot (and an index) per lane: undefined when either is.
    let ballot_poison = |l: usize| args[l].iter().find_map(Val::poison);
    let per_lane =
        |f: &dyn Fn(usize) -> R<Val>| -> R<Vec<Val>> { ls.iter().map(|&l| f(l)).collect() };
    match op {
        G::Elect => per_lane(&|l| Ok(Val::Bool(l == first))),
        G::All | G::Any | G::AllEqual | G::Ballot if any_poison(0).is_some() => {
            let p = any_poison(0).expect("poison").clone();
            per_lane(&|_| Ok(undef_like(types, rty, &p)))
        }
        G::All => {
            let r = ls.iter().all(|&l| args[l][0].truth());
            per_lane(&|_| Ok(Val::Bool(r)))
        }
        G::Any => {
            let r = ls.iter().any(|&l| args[l][0].truth());
            per_lane(&|_| Ok(Val::Bool(r)))
        }
        G::AllEqual => {
            let r = ls.iter().all(|&l| args[l][0] == args[first][0]);
            per_lane(&|_| Ok(Val::Bool(r)))
        }
        G::Ballot => {
            let m = ls
                .iter()
                .filter(|&&l| args[l][0].truth())
                .fold(0, |m, &l| m | 1 << l);
            per_lane(&|_| Ok(ballot_val(m)))
        }
        G::BroadcastFirst => per_lane(&|_| Ok(args[first][0].clone())),
        G::Broadcast | G::Shuffle => per_lane(&|l| index(l, &|i| i as i64)),
        G::ShuffleXor => per_lane(&|l| index(l, &|i| (l as u64 ^ i) as i64)),
        G::ShuffleUp => per_lane(&|l| index(l, &|i| l as i64 - i as i64)),
        G::ShuffleDown => per_lane(&|l| index(l, &|i| l as i64 + i as i64)),
        G::QuadBroadcast => per_lane(&|l| {
            index(l, &|i| {
                if i < 4 {
                    ((l & !3) as u64 + i) as i64
                } else {
                    -1
                }
            })
        }),
        G::QuadSwap => per_lane(&|l| {
            let x = match args[l][1].bits() {
                0 => 1,
                1 => 2,
                2 => 3,
                d => return undefined(format!("quad swap direction {d}")),
            };
            src(l, (l ^ x) as i64)
        }),
        G::InverseBallot => per_lane(&|l| {
            if let Some(p) = ballot_poison(l) {
                return Ok(undef_like(types, rty, p));
            }
            Ok(Val::Bool(ballot_mask(&args[l][0])? >> l & 1 == 1))
        }),
        G::BallotBitExtract => per_lane(&|l| {
            if let Some(p) = ballot_poison(l) {
                return Ok(undef_like(types, rty, p));
            }
            let i = args[l][1].bits();
            Ok(Val::Bool(
                i < 128 && ballot_mask(&args[l][0])? >> i & 1 == 1,
            ))
        }),
        G::BallotBitCount => per_lane(&|l| {
            if let Some(p) = ballot_poison(l) {
                return Ok(undef_like(types, rty, p));
            }
            let m = ballot_mask(&args[l][0])? & size_mask;
            let below: Mask = (1 << l) - 1;
            let m = match group {
                Some(GroupOperation::InclusiveScan) => m & (below | 1 << l),
                Some(GroupOperation::ExclusiveScan) => m & below,
                _ => m,
            };
            Ok(Val::Bits(u64::from(m.count_ones())))
        }),
        G::BallotFindLsb | G::BallotFindMsb => per_lane(&|l| {
            if let Some(p) = ballot_poison(l) {
                return Ok(undef_like(types, rty, p));
            }
            let m = ballot_mask(&args[l][0])? & size_mask;
            if m == 0 {
                return Ok(Poison::here("find lsb/msb of an empty ballot"));
            }
            Ok(Val::Bits(if op == G::BallotFindLsb {
                u64::from(m.trailing_zeros())
            } else {
                u64::from(127 - m.leading_zeros())
            }))
        }),
        _ => {
            let s = scalar(types, arg_ty.unwrap_or(rty))
                .ok_or_else(|| OpFail::Unsupported("reduction of a non-scalar".into()))?;
            let v0 = &args[first][0];
            let id = identity(op, s, v0)?;
            match group {
                Some(GroupOperation::Reduce) | None => {
                    let mut acc = id;
                    for &l in &ls {
                        acc = combine(op, s, &acc, &args[l][0])?;
                    }
                    per_lane(&|_| Ok(acc.clone()))
                }
                Some(GroupOperation::InclusiveScan) | Some(GroupOperation::ExclusiveScan) => {
                    let mut acc = id;
                    let mut out = Vec::new();
                    for &l in &ls {
                        let next = combine(op, s, &acc, &args[l][0])?;
                        if group == Some(GroupOperation::InclusiveScan) {
                            out.push(next.clone());
                        } else {
                            out.push(acc.clone());
                        }
                        acc = next;
                    }
                    Ok(out)
                }
                Some(GroupOperation::ClusteredReduce) => {
                    let cs = args[first][1].bits() as usize;
                    if cs == 0 || !cs.is_power_of_two() {
                        return undefined(format!("cluster size {cs}"));
                    }
                    per_lane(&|l| {
                        let mut acc = id.clone();
                        for &k in &ls {
                            if k / cs == l / cs {
                                acc = combine(op, s, &acc, &args[k][0])?;
                            }
                        }
                        Ok(acc)
                    })
                }
            }
        }
    }
}
