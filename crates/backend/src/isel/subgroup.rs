//! Subgroup operations. The lanes that issue an instruction together are its tangle (the
//! lowering's barriers see to that), so a warp-wide SASS operation over the active lanes is
//! the subgroup operation: ballot is `VOTE.ANY R, PT, P`, any/all `VOTE.ANY/ALL P, P`,
//! shuffles `SHFL`. Everything stays on the vector datapath: a uniform register written in
//! divergent code would be clobbered by the warp's other groups.

use tangle_ir::{GroupOp, GroupOperation, Operand, Type};
use tangle_sass::typed::{Operand as SOperand, PT, RZ};
use tangle_sass::Op;

use super::{Frame, Isel, MVal, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd, VReg};

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
        if group.is_some() {
            return Err(self.unsupported(format!(
                "{} with a group operation (reductions and scans)",
                op.name()
            )));
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
                self.emit(
                    MInst::new(Op::Lop3)
                        .m(".LUT")
                        .d(below)
                        .u(active)
                        .u(lt)
                        .f(RZ)
                        .imm(0xc0)
                        .f(!SOperand::from(PT)),
                );
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
            other => Err(self.unsupported(other.name())),
        }
    }

    /// Applies a shuffle to every scalar of a value (booleans through 0/1 registers).
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

    /// `SHFL.IDX PT, d, x, lane, 0x1f`.
    fn shfl_idx(&mut self, x: VReg, lane: VReg) -> VReg {
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
        self.emit(
            MInst::new(Op::Lop3)
                .m(".LUT")
                .d(low)
                .u(active)
                .u(neg)
                .f(RZ)
                .imm(0xc0)
                .f(!SOperand::from(PT)),
        );
        let d = self.r();
        self.emit(MInst::new(Op::Flo).m(".U32").d(d).u(low));
        Ok(d)
    }
}
