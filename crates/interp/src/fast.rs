//! The per-lane fast paths of plain value instructions (`decode.rs` picks them): one loop
//! per kind, so each lane's step is its operands' reads, the operation and the write, with
//! no match on the kind per lane.
//!
//! A lane takes a fast path only when its operands are defined scalars of the kind the
//! path expects; every other lane (an undefined or unset operand, a composite) is left in
//! the returned mask for the general path through `tangle_lanes`, which is the only code
//! that knows undefined values and errors. So a fast path can only skip work, never change
//! a result (`tests` below compares each with `tangle_lanes::ops::eval` on generated lanes).

use tangle_ir::{GroupOp, GroupOperation};
use tangle_lanes::group::{int_combine, int_identity};

use crate::decode::{BoolOp, Fast, IntBin, IntCmp, IntPartial};
use crate::slot::Slot;
use crate::state::{lanes_of, Lane, Lookup};
use crate::value::sext;
use crate::Mask;

/// The operands of a plain fast path, resolved once per tangle-instruction (a missing
/// operand reads as unset).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Operands<'c> {
    pub(crate) a: Lookup<'c>,
    pub(crate) b: Lookup<'c>,
    pub(crate) c: Lookup<'c>,
}

/// Runs plain fast path `fast` for the lanes of `mask`, writing each result at
/// `vals[out + lane]`; returns the lanes left for the general path (`mask` itself for a
/// kind that is not a plain fast path).
pub(crate) fn plain(
    fast: Fast,
    mask: Mask,
    vals: &mut [Slot],
    lanes: &[Lane],
    ops: Operands<'_>,
    out: usize,
) -> Mask {
    let Operands { a, b, c } = ops;
    let run = LaneLoop {
        mask,
        lanes,
        out,
        a,
        b,
    };
    match fast {
        Fast::Int(op, m) => match op {
            IntBin::Add => run.bits2(vals, |x, y| Slot::Bits(x.wrapping_add(y) & m)),
            IntBin::Sub => run.bits2(vals, |x, y| Slot::Bits(x.wrapping_sub(y) & m)),
            IntBin::Mul => run.bits2(vals, |x, y| Slot::Bits(x.wrapping_mul(y) & m)),
            IntBin::And => run.bits2(vals, |x, y| Slot::Bits(x & y & m)),
            IntBin::Or => run.bits2(vals, |x, y| Slot::Bits((x | y) & m)),
            IntBin::Xor => run.bits2(vals, |x, y| Slot::Bits((x ^ y) & m)),
        },
        Fast::IntPartial(op, w) => {
            let m = crate::value::mask(w);
            let sh = u64::from(w);
            match op {
                IntPartial::UDiv => run.bits2_where(vals, |x, y| (y != 0).then(|| x / y)),
                IntPartial::UMod => run.bits2_where(vals, |x, y| (y != 0).then(|| x % y)),
                IntPartial::Shl => run.bits2_where(vals, |x, y| (y < sh).then(|| (x << y) & m)),
                IntPartial::Shr => run.bits2_where(vals, |x, y| (y < sh).then(|| x >> y)),
                IntPartial::Sar => {
                    run.bits2_where(vals, |x, y| (y < sh).then(|| (sext(x, w) >> y) as u64 & m))
                }
            }
        }
        Fast::Cmp(op, w) => match op {
            IntCmp::Eq => run.bits2(vals, |x, y| Slot::Bool(x == y)),
            IntCmp::Ne => run.bits2(vals, |x, y| Slot::Bool(x != y)),
            IntCmp::UGt => run.bits2(vals, |x, y| Slot::Bool(x > y)),
            IntCmp::UGe => run.bits2(vals, |x, y| Slot::Bool(x >= y)),
            IntCmp::ULt => run.bits2(vals, |x, y| Slot::Bool(x < y)),
            IntCmp::ULe => run.bits2(vals, |x, y| Slot::Bool(x <= y)),
            IntCmp::SGt => run.bits2(vals, |x, y| Slot::Bool(sext(x, w) > sext(y, w))),
            IntCmp::SGe => run.bits2(vals, |x, y| Slot::Bool(sext(x, w) >= sext(y, w))),
            IntCmp::SLt => run.bits2(vals, |x, y| Slot::Bool(sext(x, w) < sext(y, w))),
            IntCmp::SLe => run.bits2(vals, |x, y| Slot::Bool(sext(x, w) <= sext(y, w))),
        },
        Fast::Bool(op) => match op {
            BoolOp::And => run.bools2(vals, |x, y| x && y),
            BoolOp::Or => run.bools2(vals, |x, y| x || y),
            BoolOp::Eq => run.bools2(vals, |x, y| x == y),
            BoolOp::Ne => run.bools2(vals, |x, y| x != y),
        },
        Fast::Not => run.each(vals, |a, _| match a {
            Scalar::Bool(x) => Some(Slot::Bool(!x)),
            _ => None,
        }),
        Fast::Copy => run.each(vals, |a, _| match a {
            Scalar::Bits(x) => Some(Slot::Bits(x)),
            _ => None,
        }),
        Fast::Select => run.select(vals, c),
        _ => mask,
    }
}

/// [`Fast::GroupInt`]: integer reduction or scan `op` of `width`-bit scalars over the
/// lanes of `mask`, each lane's result written at `vals[out + lane]`, when every lane's
/// operand `x` is a defined integer; otherwise nothing is written and `false` returned
/// (the general path through `tangle_lanes::group::execute` then runs the instruction).
/// The arithmetic is `tangle_lanes::group::int_combine`, the general path's own.
#[allow(clippy::too_many_arguments)]
pub(crate) fn group_int(
    op: GroupOp,
    width: u32,
    group: Option<GroupOperation>,
    mask: Mask,
    vals: &mut [Slot],
    lanes: &[Lane],
    x: Lookup<'_>,
    out: usize,
) -> bool {
    let Some(id) = int_identity(op, width) else {
        return false;
    };
    let combine = |acc: u64, v: u64| int_combine(op, width, acc, v).unwrap_or(acc);
    let mut total = id;
    for lane in lanes_of(mask) {
        match *x.get(vals, lanes, lane) {
            Slot::Bits(v) => total = combine(total, v),
            _ => return false,
        }
    }
    match group {
        None | Some(GroupOperation::Reduce) => {
            for lane in lanes_of(mask) {
                vals[out + lane] = Slot::Bits(total);
            }
        }
        Some(scan @ (GroupOperation::InclusiveScan | GroupOperation::ExclusiveScan)) => {
            let mut acc = id;
            for lane in lanes_of(mask) {
                let Slot::Bits(v) = *x.get(vals, lanes, lane) else {
                    return false; // not reached: every operand was checked above
                };
                let next = combine(acc, v);
                let r = if scan == GroupOperation::InclusiveScan {
                    next
                } else {
                    acc
                };
                vals[out + lane] = Slot::Bits(r);
                acc = next;
            }
        }
        Some(GroupOperation::ClusteredReduce) => return false,
    }
    true
}

/// One plain fast path's loop over the lanes of a tangle.
#[derive(Clone, Copy)]
struct LaneLoop<'s, 'c> {
    mask: Mask,
    lanes: &'s [Lane],
    out: usize,
    a: Lookup<'c>,
    b: Lookup<'c>,
}

impl LaneLoop<'_, '_> {
    /// For every lane: `f` of its two operands (a missing one reads as unset), or `None`
    /// to leave the lane to the general path; returns the lanes left.
    #[inline(always)]
    fn each<F>(self, vals: &mut [Slot], f: F) -> Mask
    where
        F: Fn(Scalar, Scalar) -> Option<Slot>,
    {
        // One loop per kind of operand pair, so a lane reads a lane array by index or a
        // constant read once, with no match on where the operand lives.
        match (self.a, self.b) {
            (Lookup::Lanes(i), Lookup::Lanes(j)) => self.each_read(
                vals,
                f,
                move |v: &[Slot], l: usize| Scalar::of(&v[i + l]),
                move |v: &[Slot], l: usize| Scalar::of(&v[j + l]),
            ),
            (Lookup::Lanes(i), Lookup::Const(c)) => {
                let y = Scalar::of(c);
                self.each_read(
                    vals,
                    f,
                    move |v: &[Slot], l: usize| Scalar::of(&v[i + l]),
                    move |_: &[Slot], _: usize| y,
                )
            }
            (Lookup::Const(c), Lookup::Lanes(j)) => {
                let x = Scalar::of(c);
                self.each_read(
                    vals,
                    f,
                    move |_: &[Slot], _: usize| x,
                    move |v: &[Slot], l: usize| Scalar::of(&v[j + l]),
                )
            }
            (a, b) => {
                let lanes = self.lanes;
                self.each_read(
                    vals,
                    f,
                    move |v: &[Slot], l: usize| Scalar::of(a.get(v, lanes, l)),
                    move |v: &[Slot], l: usize| Scalar::of(b.get(v, lanes, l)),
                )
            }
        }
    }

    /// [`LaneLoop::each`] with the operands read by `read_a` and `read_b`.
    #[inline(always)]
    fn each_read<F, A, B>(self, vals: &mut [Slot], f: F, read_a: A, read_b: B) -> Mask
    where
        F: Fn(Scalar, Scalar) -> Option<Slot>,
        A: Fn(&[Slot], usize) -> Scalar,
        B: Fn(&[Slot], usize) -> Scalar,
    {
        let mut slow: Mask = 0;
        for lane in lanes_of(self.mask) {
            let x = read_a(vals, lane);
            let y = read_b(vals, lane);
            match f(x, y) {
                Some(v) => vals[self.out + lane] = v,
                None => slow |= 1 << lane,
            }
        }
        slow
    }

    /// An integer operation of two defined integer scalars.
    #[inline(always)]
    fn bits2(self, vals: &mut [Slot], f: impl Fn(u64, u64) -> Slot) -> Mask {
        self.each(vals, |a, b| match (a, b) {
            (Scalar::Bits(x), Scalar::Bits(y)) => Some(f(x, y)),
            _ => None,
        })
    }

    /// An integer operation of two defined integer scalars that `f` computes where it is
    /// defined (`None` leaves the lane to the general path, which makes the undefined value).
    #[inline(always)]
    fn bits2_where(self, vals: &mut [Slot], f: impl Fn(u64, u64) -> Option<u64>) -> Mask {
        self.each(vals, |a, b| match (a, b) {
            (Scalar::Bits(x), Scalar::Bits(y)) => f(x, y).map(Slot::Bits),
            _ => None,
        })
    }

    /// A boolean operation of two defined booleans.
    #[inline(always)]
    fn bools2(self, vals: &mut [Slot], f: impl Fn(bool, bool) -> bool) -> Mask {
        self.each(vals, |a, b| match (a, b) {
            (Scalar::Bool(x), Scalar::Bool(y)) => Some(Slot::Bool(f(x, y))),
            _ => None,
        })
    }

    /// `select` (condition `a`, sides `b` and `c`) of a defined boolean condition: the
    /// picked side must be a defined scalar and the other set (the general path reads
    /// both operands, and an unset one is its error to report).
    #[inline(always)]
    fn select(self, vals: &mut [Slot], c: Lookup<'_>) -> Mask {
        let mut slow: Mask = 0;
        for lane in lanes_of(self.mask) {
            let (pick, other) = match self.a.get(vals, self.lanes, lane) {
                Slot::Bool(true) => (self.b, c),
                Slot::Bool(false) => (c, self.b),
                _ => {
                    slow |= 1 << lane;
                    continue;
                }
            };
            let other_set = !matches!(other.get(vals, self.lanes, lane), Slot::Unset);
            match *pick.get(vals, self.lanes, lane) {
                Slot::Bits(v) if other_set => vals[self.out + lane] = Slot::Bits(v),
                _ => slow |= 1 << lane,
            }
        }
        slow
    }
}

/// A lane's operand as the plain fast paths see it: a defined boolean, a defined integer
/// (or float bits), or anything else, which they leave to the general path. It is `Copy`,
/// so reading and discarding one drops nothing (a `Slot` operand cost a call of its drop
/// glue per lane, since it may hold a box).
#[derive(Clone, Copy)]
enum Scalar {
    Bool(bool),
    Bits(u64),
    Other,
}

impl Scalar {
    #[inline(always)]
    fn of(s: &Slot) -> Scalar {
        match *s {
            Slot::Bool(b) => Scalar::Bool(b),
            Slot::Bits(b) => Scalar::Bits(b),
            _ => Scalar::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tangle_ir::{Op, PlainOp, Type, TypeData, TypeTable};

    use super::*;
    use crate::decode::fast_path;
    use crate::slot::Store;
    use crate::value::{Born, Poison, Val};

    /// A xorshift generator: the same lanes on every run.
    struct Gen(u64);

    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        /// An integer of `w` bits, often an edge value (0, 1, all ones, the sign bit).
        fn int(&mut self, w: u32) -> u64 {
            let m = crate::value::mask(w);
            match self.next() % 6 {
                0 => 0,
                1 => 1,
                2 => m,
                3 => 1 << (w - 1),
                4 => self.next() % 4,
                _ => self.next() & m,
            }
        }
    }

    /// One lane's operand of type `ty`: mostly a defined scalar, sometimes undefined, unset
    /// or (for the fast path's type checks) a value of another kind.
    fn operand(
        g: &mut Gen,
        store: &mut Store,
        types: &TypeTable,
        ty: Type,
        poison: &Arc<Poison>,
    ) -> Slot {
        match g.next() % 10 {
            0 => store.slot_of(Val::Undef(poison.clone())),
            1 if g.next() % 4 == 0 => Slot::Unset,
            _ => match types.get(ty) {
                TypeData::Bool => Slot::Bool(g.next() % 2 == 0),
                _ => Slot::Bits(g.int(types.bit_width(ty))),
            },
        }
    }

    /// Runs the fast path `decode` picks for `op` on generated lanes and checks every lane
    /// against the general path (`tangle_lanes::ops::eval`): a lane the fast path takes has
    /// the general path's result, a lane it leaves has an operand that is not a defined
    /// scalar, and a lane outside the tangle keeps its old value.
    fn agrees_with_general(types: &TypeTable, op: PlainOp, atys: &[Type], rty: Type) {
        let op = Op::Plain(op);
        let fast = fast_path(types, &op, atys, Some(rty));
        assert_ne!(fast, Fast::None, "{op:?} {atys:?} has a fast path");
        let poison = Arc::new(Poison {
            born: Born::Input,
            why: "generated".into(),
        });
        let width = 32usize;
        let mut g = Gen(0x9e37_79b9_7f4a_7c15 ^ (atys.len() as u64) ^ ((rty.as_u32() as u64) << 8));
        let lanes: Vec<Lane> = Vec::new();
        let mut store = Store::default();
        for round in 0..200 {
            // Values 0..3 are the operands, value 3 the result (some results boxed before).
            let mut vals = crate::state::unset_slots(4 * width);
            for (k, ty) in atys.iter().enumerate() {
                for lane in 0..width {
                    vals[k * width + lane] = operand(&mut g, &mut store, types, *ty, &poison);
                }
            }
            for lane in 0..width {
                if g.next() % 3 == 0 {
                    vals[3 * width + lane] = store.slot_of(Val::Undef(poison.clone()));
                }
            }
            // An operand is a constant (lane 0's value) in some rounds.
            let consts: Vec<Slot> = (0..3).map(|k| vals[k * width]).collect();
            let lookup = |k: usize| match atys.get(k) {
                None => Lookup::Const(&crate::state::UNSET),
                Some(_) if (round + k) % 3 == 2 => Lookup::Const(&consts[k]),
                Some(_) => Lookup::Lanes(k * width),
            };
            let mask = (g.next() as Mask) | ((g.next() as Mask) << 64);
            let mask = mask & crate::state::lanes_below(width as u32);
            let before = vals.clone();
            let ops = Operands {
                a: lookup(0),
                b: lookup(1),
                c: lookup(2),
            };
            let slow = plain(fast, mask, &mut vals, &lanes, ops, 3 * width);
            assert_eq!(slow & !mask, 0, "only lanes of the tangle are left");
            for lane in 0..width {
                let got = &vals[3 * width + lane];
                let ran = mask & (1 << lane) != 0 && slow & (1 << lane) == 0;
                if !ran {
                    assert_eq!(got, &before[3 * width + lane], "lane {lane} untouched");
                    continue;
                }
                let args: Vec<Val> = (0..atys.len())
                    .map(|k| {
                        let s = ops_get(&[ops.a, ops.b, ops.c][k], &before, &lanes, lane);
                        store
                            .get(s, &[])
                            .expect("a lane the fast path ran has set operands")
                    })
                    .collect();
                let want = tangle_lanes::ops::eval(types, &op, rty, atys, &args)
                    .expect("the general path computes it");
                assert_eq!(
                    store.get(got, &[]),
                    Some(want),
                    "{op:?} lane {lane} of {args:?}: fast and general paths differ"
                );
            }
            // Every lane whose operands are all defined scalars runs fast, except a select's
            // whose picked side is not one (checked against the general path above) and a
            // division's or shift's whose result the general path makes undefined.
            for lane in lanes_of(slow) {
                let args: Vec<Option<Val>> = (0..atys.len())
                    .map(|k| {
                        let s = ops_get(&[ops.a, ops.b, ops.c][k], &before, &lanes, lane);
                        matches!(s, Slot::Bits(_) | Slot::Bool(_))
                            .then(|| store.get(s, &[]))
                            .flatten()
                    })
                    .collect();
                if let Some(args) = args.into_iter().collect::<Option<Vec<Val>>>() {
                    let general = tangle_lanes::ops::eval(types, &op, rty, atys, &args);
                    assert!(
                        matches!(fast, Fast::IntPartial(..))
                            && matches!(general, Ok(Val::Undef(_))),
                        "{op:?}: lane {lane} with defined operands {args:?} left slow"
                    );
                }
            }
        }
    }

    fn ops_get<'s>(l: &Lookup<'s>, vals: &'s [Slot], lanes: &'s [Lane], lane: usize) -> &'s Slot {
        l.get(vals, lanes, lane)
    }

    #[test]
    fn every_plain_fast_path_agrees_with_the_general_path() {
        use PlainOp as P;
        let mut types = TypeTable::new();
        let b = types.bool();
        let ints: Vec<Type> = [(8, false), (16, true), (32, false), (32, true), (64, true)]
            .into_iter()
            .map(|(width, signed)| types.intern(TypeData::Int { width, signed }))
            .collect();
        let f32 = types.intern(TypeData::Float { width: 32 });
        for &i in &ints {
            for op in [
                P::IAdd,
                P::ISub,
                P::IMul,
                P::BitwiseAnd,
                P::BitwiseOr,
                P::BitwiseXor,
            ] {
                agrees_with_general(&types, op, &[i, i], i);
            }
            for op in [
                P::IEqual,
                P::INotEqual,
                P::UGreaterThan,
                P::UGreaterThanEqual,
                P::ULessThan,
                P::ULessThanEqual,
                P::SGreaterThan,
                P::SGreaterThanEqual,
                P::SLessThan,
                P::SLessThanEqual,
            ] {
                agrees_with_general(&types, op, &[i, i], b);
            }
            agrees_with_general(&types, P::Select, &[b, i, i], i);
            for op in [
                P::UDiv,
                P::UMod,
                P::ShiftLeftLogical,
                P::ShiftRightLogical,
                P::ShiftRightArithmetic,
            ] {
                agrees_with_general(&types, op, &[i, i], i);
            }
            for op in [
                P::ShiftLeftLogical,
                P::ShiftRightLogical,
                P::ShiftRightArithmetic,
            ] {
                agrees_with_general(&types, op, &[i, ints[0]], i);
            }
            agrees_with_general(&types, P::CopyObject, &[i], i);
        }
        agrees_with_general(&types, P::Bitcast, &[ints[3]], ints[2]);
        agrees_with_general(&types, P::Bitcast, &[f32], ints[2]);
        agrees_with_general(&types, P::Select, &[b, f32, f32], f32);
        for op in [
            P::LogicalAnd,
            P::LogicalOr,
            P::LogicalEqual,
            P::LogicalNotEqual,
        ] {
            agrees_with_general(&types, op, &[b, b], b);
        }
        agrees_with_general(&types, P::LogicalNot, &[b], b);
    }

    /// [`group_int`] against `tangle_lanes::group::execute` on generated lanes: with every
    /// operand defined it runs and gives each lane the general path's result; with any
    /// lane of the tangle undefined (or not an integer) it writes nothing and declines.
    #[test]
    fn group_int_agrees_with_the_general_path() {
        use tangle_ir::GroupOp as G;
        let mut types = TypeTable::new();
        let poison = Arc::new(Poison {
            born: Born::Input,
            why: "generated".into(),
        });
        let width = 32usize;
        let lanes: Vec<Lane> = Vec::new();
        let mut store = Store::default();
        let mut g = Gen(0x2545_f491_4f6c_dd1d);
        for w in [8u32, 16, 32, 64] {
            let ty = types.intern(TypeData::Int {
                width: w as u8,
                signed: w % 16 == 0,
            });
            let ops = [
                G::IAdd,
                G::IMul,
                G::UMin,
                G::UMax,
                G::SMin,
                G::SMax,
                G::BitwiseAnd,
                G::BitwiseOr,
                G::BitwiseXor,
            ];
            let groups = [
                None,
                Some(GroupOperation::Reduce),
                Some(GroupOperation::InclusiveScan),
                Some(GroupOperation::ExclusiveScan),
            ];
            for op in ops {
                for group in groups {
                    let fast = fast_path(
                        &types,
                        &Op::Group {
                            op,
                            scope: spirv::Scope::Subgroup,
                            group,
                        },
                        &[ty],
                        Some(ty),
                    );
                    assert_eq!(
                        fast,
                        Fast::GroupInt {
                            op,
                            width: w,
                            group
                        },
                        "{op:?}"
                    );
                    for round in 0..60 {
                        let mut vals = crate::state::unset_slots(2 * width);
                        for lane in 0..width {
                            vals[lane] = Slot::Bits(g.int(w));
                            if g.next() % 3 == 0 {
                                vals[width + lane] = store.slot_of(Val::Undef(poison.clone()));
                            }
                        }
                        let mask = (g.next() as Mask | 1) & crate::state::lanes_below(32);
                        if round % 4 == 3 {
                            // One lane of the tangle (or not) undefined, or a pointer.
                            let lane = (g.next() % 32) as usize;
                            vals[lane] = match g.next() % 2 {
                                0 => store.slot_of(Val::Undef(poison.clone())),
                                _ => Slot::Ptr { mem: 1, off: 4 },
                            };
                        }
                        let before = vals.clone();
                        let x = Lookup::Lanes(0);
                        let ran = group_int(op, w, group, mask, &mut vals, &lanes, x, width);
                        let defined = lanes_of(mask).all(|l| matches!(before[l], Slot::Bits(_)));
                        assert_eq!(ran, defined, "{op:?} {group:?}: runs iff all defined");
                        if !ran {
                            assert_eq!(vals, before, "declined without writing");
                            continue;
                        }
                        let args: Vec<Vec<Val>> = (0..width)
                            .map(|l| match mask >> l & 1 {
                                1 => vec![store.get(&before[l], &[]).expect("set")],
                                _ => Vec::new(),
                            })
                            .collect();
                        let want = tangle_lanes::group::execute(
                            &types,
                            op,
                            group,
                            ty,
                            Some(ty),
                            mask,
                            32,
                            &args,
                        )
                        .expect("the general path computes it");
                        for (l, want) in lanes_of(mask).zip(want) {
                            assert_eq!(
                                store.get(&vals[width + l], &[]),
                                Some(want),
                                "{op:?} {group:?} w{w}"
                            );
                        }
                        for l in 0..width {
                            if mask >> l & 1 == 0 {
                                assert_eq!(
                                    vals[width + l],
                                    before[width + l],
                                    "lane {l} untouched"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
