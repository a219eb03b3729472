//! Subgroup operations. The lanes that issue an instruction together are its tangle (the
//! lowering's barriers see to that), so a warp-wide SASS operation over the active lanes is
//! the subgroup operation: ballot is `VOTE.ANY R, PT, P`, any/all `VOTE.ANY/ALL P, P`,
//! shuffles `SHFL`. Everything stays on the vector datapath: a uniform register written in
//! divergent code would be clobbered by the warp's other groups.

use tangle_ir::{GroupOp, GroupOperation, Operand, Type};
use tangle_sass::typed::{Operand as SOperand, PT, RZ};
use tangle_sass::Op;

use super::ops::{lop3r, LUT_AND, LUT_OR, LUT_XOR};
use super::{Frame, Isel, MVal, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd, RegClass, VReg};

impl Isel<'_> {
    /// A subgroup operation.
    pub(crate) fn group(
        &mut self,
        op: GroupOp,
        group: Option<GroupOperation>,
        args: &[Operand],
        _rty: Option<Type>,
        frame: &Frame,
    ) -> Result<MVal, CompileError> {
        use GroupOp as G;
        if let Some(g) = group {
            if op == G::BallotBitCount {
                return self.ballot_bit_count(g, args, frame);
            }
            return self.reduce(op, g, args, frame);
        }
        let one = |s: Sc| Ok(MVal::Scalars(vec![s]));
        match op {
            G::Ballot => {
                let c = self.scalar(args[0], frame)?;
                let c = self.pred_opnd(c)?;
                let d = self.r();
                self.emit(MInst::new(Op::Vote).m(".ANY").d(d).f(PT).o(c));
                Ok(MVal::Scalars(vec![
                    Sc::R(d),
                    Sc::Imm(0),
                    Sc::Imm(0),
                    Sc::Imm(0),
                ]))
            }
            G::Elect => {
                // The lowest active lane: no active lane below this one.
                let active = self.activemask();
                let lt = self.s2r("SR_LTMASK")?;
                let below = self.r();
                self.emit(lop3r(below, active, lt, LUT_AND));
                let p = self.p();
                self.emit(
                    MInst::new(Op::Isetp)
                        .m(".EQ")
                        .m(".U32")
                        .m(".AND")
                        .d(p)
                        .f(PT)
                        .u(below)
                        .f(RZ)
                        .f(PT),
                );
                one(Sc::P(p))
            }
            G::Any | G::All => {
                let c = self.scalar(args[0], frame)?;
                let c = self.pred_opnd(c)?;
                let p = self.p();
                let m = if op == G::Any { ".ANY" } else { ".ALL" };
                self.emit(
                    MInst::new(Op::Vote)
                        .m(m)
                        .o(MOpnd::Fixed(RZ.into()))
                        .d(p)
                        .o(c),
                );
                one(Sc::P(p))
            }
            G::AllEqual => {
                let v = self.scalars(args[0], frame)?;
                let first = self.first_lane()?;
                let mut acc = Sc::Bool(true);
                for s in v {
                    let x = match s {
                        Sc::P(_) | Sc::Bool(_) => {
                            let x = self.r();
                            let one = self.reg(Sc::Imm(1))?;
                            let c = self.pred_opnd(s)?;
                            self.emit(MInst::new(Op::Sel).d(x).u(one).f(RZ).o(c));
                            x
                        }
                        _ => self.reg(s)?,
                    };
                    let b = self.shfl_idx(x, first);
                    let eq = self.p();
                    let before = self.pred_opnd(acc)?;
                    self.emit(
                        MInst::new(Op::Isetp)
                            .m(".EQ")
                            .m(".U32")
                            .m(".AND")
                            .d(eq)
                            .f(PT)
                            .u(x)
                            .u(b)
                            .o(before),
                    );
                    acc = Sc::P(eq);
                }
                let c = self.pred_opnd(acc)?;
                let p = self.p();
                self.emit(
                    MInst::new(Op::Vote)
                        .m(".ALL")
                        .o(MOpnd::Fixed(RZ.into()))
                        .d(p)
                        .o(c),
                );
                one(Sc::P(p))
            }
            G::BroadcastFirst => {
                let first = self.first_lane()?;
                self.shuffle_each(args[0], frame, |s, x| s.shfl_idx(x, first))
            }
            G::Broadcast | G::Shuffle => {
                let id = self.scalar(args[1], frame)?;
                let id = self.reg(id)?;
                self.shuffle_each(args[0], frame, |s, x| s.shfl_idx(x, id))
            }
            G::ShuffleXor | G::ShuffleUp | G::ShuffleDown => {
                let k = self.scalar(args[1], frame)?;
                let k = self.reg(k)?;
                let (mode, clamp) = match op {
                    G::ShuffleXor => (".BFLY", 0x1f),
                    G::ShuffleUp => (".UP", 0),
                    _ => (".DOWN", 0x1f),
                };
                self.shuffle_each(args[0], frame, |s, x| {
                    let d = s.r();
                    s.emit(MInst::new(Op::Shfl).m(mode).f(PT).d(d).u(x).u(k).imm(clamp));
                    d
                })
            }
            G::BallotBitExtract | G::InverseBallot => {
                let v = self.scalars(args[0], frame)?;
                let x = self.reg(v[0])?;
                let lane = if op == G::InverseBallot {
                    self.s2r("SR_LANEID")?
                } else {
                    let l = self.scalar(args[1], frame)?;
                    self.reg(l)?
                };
                let sh = self.r();
                self.emit(
                    MInst::new(Op::Shf)
                        .m(".R")
                        .m(".U32")
                        .m(".HI")
                        .d(sh)
                        .f(RZ)
                        .u(lane)
                        .u(x),
                );
                let one_reg = self.reg(Sc::Imm(1))?;
                let bit = self.r();
                self.emit(lop3r(bit, sh, one_reg, LUT_AND));
                let p = self.p();
                self.emit(
                    MInst::new(Op::Isetp)
                        .m(".NE")
                        .m(".U32")
                        .m(".AND")
                        .d(p)
                        .f(PT)
                        .u(bit)
                        .f(RZ)
                        .f(PT),
                );
                one(Sc::P(p))
            }
            G::BallotFindLsb | G::BallotFindMsb => {
                let v = self.scalars(args[0], frame)?;
                let x = self.reg(v[0])?;
                let src = if op == G::BallotFindLsb {
                    let neg = self.r();
                    self.emit(MInst::new(Op::Iadd3).d(neg).f(RZ).o(MOpnd::neg(x)).f(RZ));
                    let low = self.r();
                    self.emit(lop3r(low, x, neg, LUT_AND));
                    low
                } else {
                    x
                };
                let d = self.r();
                self.emit(MInst::new(Op::Flo).m(".U32").d(d).u(src));
                one(Sc::R(d))
            }
            other => Err(self.unsupported(other.name())),
        }
    }

    /// `subgroupBallotBitCount` and its scans: the population count of the ballot's first
    /// word, masked by the lanes at or below (inclusive) or below (exclusive) this one.
    fn ballot_bit_count(
        &mut self,
        g: GroupOperation,
        args: &[Operand],
        frame: &Frame,
    ) -> Result<MVal, CompileError> {
        let v = self.scalars(args[0], frame)?;
        let x = self.reg(v[0])?;
        let src = match g {
            GroupOperation::Reduce => x,
            GroupOperation::InclusiveScan | GroupOperation::ExclusiveScan => {
                let m = self.s2r(if g == GroupOperation::InclusiveScan {
                    "SR_LEMASK"
                } else {
                    "SR_LTMASK"
                })?;
                let t = self.r();
                self.emit(lop3r(t, x, m, LUT_AND));
                t
            }
            GroupOperation::ClusteredReduce => {
                return Err(self.unsupported("group_ballot_bit_count clustered"))
            }
        };
        let d = self.r();
        self.emit(MInst::new(Op::Popc).d(d).u(src));
        Ok(MVal::Scalars(vec![Sc::R(d)]))
    }

    /// Reductions and scans over the active lanes, unrolled over the 32 lanes of the warp
    /// in lane order (as the reference folds them, from the operation's identity): lane
    /// `j`'s value, fetched with `SHFL.IDX`, joins the accumulator when `j` is active (and,
    /// for scans, below or at this lane; for clusters, in this lane's cluster).
    fn reduce(
        &mut self,
        op: GroupOp,
        g: GroupOperation,
        args: &[Operand],
        frame: &Frame,
    ) -> Result<MVal, CompileError> {
        use GroupOp as G;
        let bits = self.operand_bits(frame.func, args[0]);
        if bits != 32 && bits != 1 {
            return Err(self.unsupported(format!("{} on {bits}-bit values", op.name())));
        }
        let x = self.scalar(args[0], frame)?;
        if let Some(r) = self.redux(op, g, x)? {
            return Ok(MVal::Scalars(vec![Sc::R(r)]));
        }
        let logical = matches!(op, G::LogicalAnd | G::LogicalOr | G::LogicalXor);
        let identity: u32 = match op {
            G::IAdd | G::BitwiseOr | G::BitwiseXor | G::UMax | G::LogicalOr | G::LogicalXor => 0,
            G::IMul | G::LogicalAnd => 1,
            G::BitwiseAnd | G::UMin => u32::MAX,
            G::SMin => i32::MAX as u32,
            G::SMax => i32::MIN as u32,
            G::FAdd => 0,
            G::FMul => 1.0f32.to_bits(),
            G::FMin => f32::INFINITY.to_bits(),
            G::FMax => f32::NEG_INFINITY.to_bits(),
            other => return Err(self.unsupported(other.name())),
        };
        let x = if logical {
            let r = self.r();
            let one = self.reg(Sc::Imm(1))?;
            let c = self.pred_opnd(x)?;
            self.emit(MInst::new(Op::Sel).d(r).u(one).f(RZ).o(c));
            r
        } else {
            self.reg(x)?
        };
        let active = self.activemask();
        let lane = self.s2r("SR_LANEID")?;
        // Clusters: the lanes whose number agrees with this one's above the cluster bits.
        let cluster = match g {
            GroupOperation::ClusteredReduce => {
                let Sc::Imm(cs) = self.scalar(args[1], frame)? else {
                    return Err(self.unsupported("a cluster size that is not a constant"));
                };
                if cs == 0 || !cs.is_power_of_two() || cs > 32 {
                    return Err(self.unsupported(format!("cluster size {cs}")));
                }
                let m = self.reg(Sc::Imm(!(cs - 1)))?;
                let base = self.r();
                self.emit(lop3r(base, lane, m, LUT_AND));
                Some((!(cs - 1), base))
            }
            _ => None,
        };
        let mut acc = self.reg(Sc::Imm(identity))?;
        for j in 0..32u32 {
            let jr = self.reg(Sc::Imm(j))?;
            let v = self.shfl_idx(x, jr);
            let bit = self.reg(Sc::Imm(1 << j))?;
            let t = self.r();
            self.emit(lop3r(t, active, bit, LUT_AND));
            let p = self.p();
            self.emit(
                MInst::new(Op::Isetp)
                    .m(".NE")
                    .m(".U32")
                    .m(".AND")
                    .d(p)
                    .f(PT)
                    .u(t)
                    .f(RZ)
                    .f(PT),
            );
            let take = match (g, cluster) {
                (GroupOperation::InclusiveScan | GroupOperation::ExclusiveScan, _) => {
                    let cmp = if g == GroupOperation::InclusiveScan {
                        ".GE"
                    } else {
                        ".GT"
                    };
                    let q = self.p();
                    self.emit(
                        MInst::new(Op::Isetp)
                            .m(cmp)
                            .m(".U32")
                            .m(".AND")
                            .d(q)
                            .f(PT)
                            .u(lane)
                            .u(jr)
                            .u(p),
                    );
                    q
                }
                (_, Some((mask, base))) => {
                    let jb = self.reg(Sc::Imm(j & mask))?;
                    let q = self.p();
                    self.emit(
                        MInst::new(Op::Isetp)
                            .m(".EQ")
                            .m(".U32")
                            .m(".AND")
                            .d(q)
                            .f(PT)
                            .u(base)
                            .u(jb)
                            .u(p),
                    );
                    q
                }
                _ => p,
            };
            let next = self.r();
            let i = match op {
                G::IAdd => MInst::new(Op::Iadd3).d(next).u(acc).u(v).f(RZ),
                G::IMul => MInst::new(Op::Imad).d(next).u(acc).u(v).f(RZ),
                G::SMin | G::SMax | G::UMin | G::UMax => {
                    let i = MInst::new(Op::Imnmx);
                    let i = if matches!(op, G::UMin | G::UMax) {
                        i.m(".U32")
                    } else {
                        i
                    };
                    let min = matches!(op, G::SMin | G::UMin);
                    i.d(next).u(acc).u(v).f(if min {
                        SOperand::from(PT)
                    } else {
                        !SOperand::from(PT)
                    })
                }
                G::BitwiseAnd | G::LogicalAnd => lop3r(next, acc, v, LUT_AND),
                G::BitwiseOr | G::LogicalOr => lop3r(next, acc, v, LUT_OR),
                G::BitwiseXor | G::LogicalXor => lop3r(next, acc, v, LUT_XOR),
                G::FAdd => MInst::new(Op::Fadd).d(next).u(acc).u(v),
                G::FMul => MInst::new(Op::Fmul).d(next).u(acc).u(v),
                _ => {
                    let min = op == G::FMin;
                    MInst::new(Op::Fmnmx).d(next).u(acc).u(v).f(if min {
                        SOperand::from(PT)
                    } else {
                        !SOperand::from(PT)
                    })
                }
            };
            self.emit(i);
            let chosen = self.r();
            self.emit(MInst::new(Op::Sel).d(chosen).u(next).u(acc).u(take));
            acc = chosen;
        }
        if logical {
            let p = self.p();
            self.emit(
                MInst::new(Op::Isetp)
                    .m(".NE")
                    .m(".U32")
                    .m(".AND")
                    .d(p)
                    .f(PT)
                    .u(acc)
                    .f(RZ)
                    .f(PT),
            );
            return Ok(MVal::Scalars(vec![Sc::P(p)]));
        }
        Ok(MVal::Scalars(vec![Sc::R(acc)]))
    }

    /// Applies a shuffle to every scalar of a value (booleans through 0/1 registers).
    /// A whole-group 32-bit integer reduction as `REDUX` (SM80+), where ptxas uses it: the
    /// result lands in a uniform register and is copied to a general one at once. Only in
    /// a kernel that never branches divergently (`converged`): a uniform register is one
    /// per warp, and another group running the same code in between would overwrite it.
    fn redux(
        &mut self,
        op: GroupOp,
        g: GroupOperation,
        x: Sc,
    ) -> Result<Option<VReg>, CompileError> {
        use GroupOp as G;
        if !self.opts.converged
            || self.opts.arch < tangle_sass::Arch::Sm80
            || g != GroupOperation::Reduce
        {
            return Ok(None);
        }
        let (kind, signed) = match op {
            G::IAdd => (".SUM", false),
            G::UMin => (".MIN", false),
            G::SMin => (".MIN", true),
            G::UMax => (".MAX", false),
            G::SMax => (".MAX", true),
            G::BitwiseAnd => ("", false),
            G::BitwiseOr => (".OR", false),
            G::BitwiseXor => (".XOR", false),
            _ => return Ok(None),
        };
        let x = self.reg(x)?;
        let u = self.mf.vreg(RegClass::Ur, 1);
        let i = MInst::new(Op::Redux);
        let i = if kind.is_empty() { i } else { i.m(kind) };
        let i = if signed { i.m(".S32") } else { i };
        self.emit(i.d(u).u(x));
        let d = self.r();
        self.emit(MInst::new(Op::Mov).d(d).u(u));
        Ok(Some(d))
    }

    fn shuffle_each(
        &mut self,
        v: Operand,
        frame: &Frame,
        mut shuffle: impl FnMut(&mut Self, VReg) -> VReg,
    ) -> Result<MVal, CompileError> {
        let v = self.scalars(v, frame)?;
        let mut out = Vec::new();
        for s in v {
            match s {
                Sc::P(_) | Sc::Bool(_) => {
                    let x = self.r();
                    let one = self.reg(Sc::Imm(1))?;
                    let c = self.pred_opnd(s)?;
                    self.emit(MInst::new(Op::Sel).d(x).u(one).f(RZ).o(c));
                    let y = shuffle(self, x);
                    let p = self.p();
                    self.emit(
                        MInst::new(Op::Isetp)
                            .m(".NE")
                            .m(".U32")
                            .m(".AND")
                            .d(p)
                            .f(PT)
                            .u(y)
                            .f(RZ)
                            .f(PT),
                    );
                    out.push(Sc::P(p));
                }
                _ => {
                    let x = self.reg(s)?;
                    out.push(Sc::R(shuffle(self, x)));
                }
            }
        }
        Ok(MVal::Scalars(out))
    }
}

impl Isel<'_> {
    /// `SHFL.IDX PT, d, x, lane, 0x1f`.
    pub(crate) fn shfl_idx(&mut self, x: VReg, lane: VReg) -> VReg {
        let d = self.r();
        self.emit(
            MInst::new(Op::Shfl)
                .m(".IDX")
                .f(PT)
                .d(d)
                .u(x)
                .u(lane)
                .imm(0x1f),
        );
        d
    }

    /// The active lanes (`VOTE.ANY R, PT, PT`).
    fn activemask(&mut self) -> VReg {
        let d = self.r();
        self.emit(MInst::new(Op::Vote).m(".ANY").d(d).f(PT).f(PT));
        d
    }

    /// The lowest active lane's number: the highest set bit of `active & -active`.
    fn first_lane(&mut self) -> Result<VReg, CompileError> {
        let active = self.activemask();
        let neg = self.r();
        self.emit(
            MInst::new(Op::Iadd3)
                .d(neg)
                .f(RZ)
                .o(MOpnd::neg(active))
                .f(RZ),
        );
        let low = self.r();
        self.emit(lop3r(low, active, neg, LUT_AND));
        let d = self.r();
        self.emit(MInst::new(Op::Flo).m(".U32").d(d).u(low));
        Ok(d)
    }
}
