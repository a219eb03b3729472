//! The allocation written back as machine code on physical registers: every register operand
//! of the result is a virtual register of its own whose [`Assignment`] entry is the physical
//! register the allocator gave that operand (so emission needs no change), the allocator's
//! moves become SASS instructions (`docs/regalloc.md`, "The move each class needs"), and phis
//! are gone (their copies are moves at the ends of the predecessors).

use std::collections::HashMap;

use tangle_regalloc::{Allocation, Edit, Location, PhysReg, Position};
use tangle_sass::typed::{Operand as SOperand, Val, PT, RZ};
use tangle_sass::Op;

use super::input::{Input, Slot};
use crate::assign::Assignment;
use crate::error::CompileError;
use crate::mir::{MBlockData, MFunc, MInst, MOpnd, RegClass, RegRef, VReg};

/// `LOP3.LUT` / `PLOP3.LUT` table of `a ^ b`.
const LUT_XOR: i64 = 0x3c;
/// `PLOP3.LUT` table of `a` (a copy of the first source).
const LUT_A: i64 = 0xf0;

/// Builds physical machine code with fresh virtual registers, each pinned to a register.
struct Builder {
    out: MFunc,
    phys: Vec<u8>,
}

impl Builder {
    /// A virtual register standing for physical register `reg` (`width` words).
    fn pin(&mut self, reg: PhysReg, width: u8) -> Result<VReg, CompileError> {
        let class = match reg.class {
            tangle_regalloc::RegClass::Gpr => RegClass::R,
            tangle_regalloc::RegClass::Pred => RegClass::P,
            tangle_regalloc::RegClass::UGpr => RegClass::Ur,
            tangle_regalloc::RegClass::UPred => RegClass::Up,
            tangle_regalloc::RegClass::Barrier => RegClass::B,
        };
        let index = u8::try_from(reg.index)
            .map_err(|_| CompileError::Internal(format!("register {reg} out of range")))?;
        let v = self.out.vreg(class, width);
        self.phys.push(index);
        Ok(v)
    }
}

/// The SASS of one allocator edit; `spill_base` is the byte offset of slot 0 from R1.
fn edit_insts(b: &mut Builder, edit: &Edit, spill_base: u32) -> Result<Vec<MInst>, CompileError> {
    use tangle_regalloc::RegClass as C;
    let slot_addr = |s: u32| {
        MOpnd::Fixed(SOperand::mem(tangle_sass::typed::Addr::new(
            tangle_sass::typed::r(1),
            i64::from(spill_base + 4 * s),
        )))
    };
    let size_mod = |size: u8| match size {
        2 => Some(".64"),
        4 => Some(".128"),
        _ => None,
    };
    let mut out = Vec::new();
    match *edit {
        Edit::Move { from, to, size } => match (from, to) {
            (Location::Reg(f), Location::Slot(s)) if f.class == C::Gpr => {
                let src = b.pin(f, size)?;
                let mut i = MInst::new(Op::Stl);
                if let Some(m) = size_mod(size) {
                    i = i.m(m);
                }
                out.push(i.o(slot_addr(s)).u(src));
            }
            (Location::Slot(s), Location::Reg(t)) if t.class == C::Gpr => {
                let dst = b.pin(t, size)?;
                let mut i = MInst::new(Op::Ldl);
                if let Some(m) = size_mod(size) {
                    i = i.m(m);
                }
                out.push(i.d(dst).o(slot_addr(s)));
            }
            (Location::Reg(f), Location::Reg(t)) => {
                for w in 0..u16::from(size) {
                    let f = PhysReg {
                        class: f.class,
                        index: f.index + w,
                    };
                    let t = PhysReg {
                        class: t.class,
                        index: t.index + w,
                    };
                    let src = b.pin(f, 1)?;
                    let dst = b.pin(t, 1)?;
                    if (f.class, t.class) == (C::UPred, C::UGpr) {
                        // USEL has no immediate form: dst = 1, then dst = src ? dst : 0.
                        let one = b.pin(t, 1)?;
                        out.push(MInst::new(Op::Umov).d(one).imm(1));
                        out.push(
                            MInst::new(Op::Usel)
                                .d(dst)
                                .u(one)
                                .f(tangle_sass::typed::ur(63))
                                .u(src),
                        );
                        continue;
                    }
                    out.push(move_inst(f.class, t.class, dst, src)?);
                }
            }
            _ => {
                return Err(CompileError::Internal(format!(
                    "the allocator asked for a move the machine has not: {edit}"
                )))
            }
        },
        Edit::Swap { a, b: other } => {
            let x = b.pin(a, 1)?;
            let y = b.pin(other, 1)?;
            let xor = |d: VReg, s: VReg| -> Result<MInst, CompileError> {
                Ok(match a.class {
                    C::Gpr => lop3(Op::Lop3, d, d, s, RZ.into(), !SOperand::from(PT)),
                    C::UGpr => lop3(
                        Op::Ulop3,
                        d,
                        d,
                        s,
                        SOperand::from(tangle_sass::typed::ur(63)),
                        !SOperand::new(Val::UPred(tangle_sass::typed::up(7))),
                    ),
                    C::Pred => plop3(Op::Plop3, PT.into(), d, d, s, LUT_XOR),
                    C::UPred => plop3(
                        Op::Uplop3,
                        SOperand::new(Val::UPred(tangle_sass::typed::up(7))),
                        d,
                        d,
                        s,
                        LUT_XOR,
                    ),
                    C::Barrier => {
                        return Err(CompileError::Internal(
                            "the allocator asked for a swap of barrier registers".into(),
                        ))
                    }
                })
            };
            out.push(xor(x, y)?);
            out.push(xor(y, x)?);
            out.push(xor(x, y)?);
        }
    }
    Ok(out)
}

/// `LOP3.LUT d, a, b, Z, 0x3c, !T` (or its uniform form): `d = a ^ b`.
fn lop3(op: Op, d: VReg, a: VReg, bb: VReg, zero: SOperand, not_true: SOperand) -> MInst {
    MInst::new(op)
        .m(".LUT")
        .d(d)
        .u(a)
        .u(bb)
        .f(zero)
        .imm(LUT_XOR)
        .f(not_true)
}

/// `PLOP3.LUT d, T, a, b, T, lut, 0x0` (or `UPLOP3`).
fn plop3(op: Op, t: SOperand, d: VReg, a: VReg, bb: VReg, lut: i64) -> MInst {
    MInst::new(op)
        .m(".LUT")
        .d(d)
        .f(t)
        .u(a)
        .u(bb)
        .f(t)
        .imm(lut)
        .imm(0)
}

/// One word moved between registers of classes `from` and `to`.
fn move_inst(
    from: tangle_regalloc::RegClass,
    to: tangle_regalloc::RegClass,
    dst: VReg,
    src: VReg,
) -> Result<MInst, CompileError> {
    use tangle_regalloc::RegClass as C;
    let upt = SOperand::new(Val::UPred(tangle_sass::typed::up(7)));
    let urz = SOperand::from(tangle_sass::typed::ur(63));
    Ok(match (from, to) {
        (C::Gpr, C::Gpr) | (C::UGpr, C::Gpr) => MInst::new(Op::Mov).d(dst).u(src),
        (C::UGpr, C::UGpr) => MInst::new(Op::Umov).d(dst).u(src),
        (C::Pred, C::Pred) => MInst::new(Op::Plop3)
            .m(".LUT")
            .d(dst)
            .f(PT)
            .u(src)
            .f(PT)
            .f(PT)
            .imm(LUT_A)
            .imm(0),
        (C::UPred, C::UPred) => MInst::new(Op::Uplop3)
            .m(".LUT")
            .d(dst)
            .f(upt)
            .u(src)
            .f(upt)
            .f(upt)
            .imm(LUT_A)
            .imm(0),
        // dst = src ? 1 : 0.
        (C::Pred, C::Gpr) => MInst::new(Op::Sel).d(dst).f(RZ).imm(1).o(MOpnd::not(src)),
        (C::Gpr, C::Pred) => MInst::new(Op::Isetp)
            .m(".NE")
            .m(".U32")
            .m(".AND")
            .d(dst)
            .f(PT)
            .u(src)
            .f(RZ)
            .f(PT),
        (C::UGpr, C::UPred) => MInst::new(Op::Uisetp)
            .m(".NE")
            .m(".U32")
            .m(".AND")
            .d(dst)
            .f(upt)
            .u(src)
            .f(urz)
            .f(upt),
        (C::Gpr, C::UGpr) => MInst::new(Op::R2ur).d(dst).u(src),
        // The barrier register is written again before anything reads it (the allocator's
        // rule, held by its checker), so clearing it is safe.
        (C::Barrier, C::Gpr) => MInst::new(Op::Bmov).m(".32").m(".CLEAR").d(dst).u(src),
        (C::Gpr, C::Barrier) => MInst::new(Op::Bmov).m(".32").d(dst).u(src),
        _ => {
            return Err(CompileError::Internal(format!(
                "the allocator asked for a move from {from} to {to}"
            )))
        }
    })
}

/// Physical machine code for `mf` under `alloc`: the function and its assignment.
pub fn build(
    mf: &MFunc,
    input: &Input,
    alloc: &Allocation,
    pinned: &HashMap<VReg, u16>,
    spill_base: u32,
) -> Result<(MFunc, Assignment), CompileError> {
    let mut b = Builder {
        out: MFunc {
            name: mf.name.clone(),
            ..MFunc::default()
        },
        phys: Vec::new(),
    };
    // Each barrier's BSSY names the first BSYNC of that barrier (in layout order) through
    // one shared virtual register, as emission pairs them.
    let mut sync_reg: HashMap<VReg, VReg> = HashMap::new();
    let mut first_sync: HashMap<VReg, (usize, usize)> = HashMap::new();
    for (bi, blk) in mf.blocks.iter().enumerate() {
        for (k, i) in blk.insts.iter().enumerate() {
            if i.op == Op::Bsync {
                if let Some(u) = i.uses().next() {
                    first_sync.entry(u.vreg).or_insert((bi, k));
                }
            }
        }
    }
    let mut edits = alloc.edits.iter().peekable();
    for (bi, blk) in mf.blocks.iter().enumerate() {
        let block = tangle_regalloc::BlockId(bi as u32);
        let mut data = MBlockData::default();
        let ninsts = blk.insts.len();
        let count = ninsts + blk.term.len();
        for (k, inst) in blk.insts.iter().chain(&blk.term).enumerate() {
            let mut moves = Vec::new();
            let here = Position::Before {
                block,
                inst: k as u32,
            };
            while let Some((pos, e)) = edits.next_if(|(p, _)| *p <= here) {
                if *pos != here {
                    return Err(CompileError::Internal(format!(
                        "an edit at {pos:?} out of order"
                    )));
                }
                moves.extend(edit_insts(&mut b, e, spill_base)?);
            }
            if k + 1 == count {
                let end = Position::End { block };
                // End edits go before the branch; they come after every Before edit.
                let mut tail = Vec::new();
                while let Some((_, e)) = edits.next_if(|(p, _)| *p == end) {
                    tail.extend(edit_insts(&mut b, e, spill_base)?);
                }
                moves.extend(tail);
            }
            let regs = &alloc.insts[bi][k];
            let map = &input.ops[bi][k];
            let mut new = inst.clone();
            for (slot, reg) in map.uses.iter().zip(&regs.uses) {
                set_reg(&mut b, mf, &mut new, *slot, *reg)?;
            }
            for (slot, reg) in map.defs.iter().zip(&regs.defs) {
                set_reg(&mut b, mf, &mut new, *slot, *reg)?;
            }
            // Barriers with registers of their own.
            for (j, o) in inst.opnds.iter().enumerate() {
                if let MOpnd::Def(r) | MOpnd::Use { r, .. } = o {
                    if let Some(&index) = pinned.get(&r.vreg) {
                        let reg = PhysReg {
                            class: tangle_regalloc::RegClass::Barrier,
                            index,
                        };
                        let v = b.pin(reg, 1)?;
                        if let MOpnd::Def(nr) | MOpnd::Use { r: nr, .. } = &mut new.opnds[j] {
                            nr.vreg = v;
                        }
                    }
                }
            }
            // BSSY/BSYNC pairing through one shared register per barrier.
            for (j, o) in inst.opnds.iter().enumerate() {
                if let MOpnd::SyncOf(v) = *o {
                    let r = match sync_reg.get(&v) {
                        Some(r) => *r,
                        None => {
                            let r = b.out.vreg(RegClass::B, 1);
                            b.phys.push(0);
                            sync_reg.insert(v, r);
                            r
                        }
                    };
                    new.opnds[j] = MOpnd::SyncOf(r);
                }
            }
            if inst.op == Op::Bsync {
                if let Some(u) = inst.uses().next() {
                    if first_sync.get(&u.vreg) == Some(&(bi, k)) {
                        let r = *sync_reg.entry(u.vreg).or_insert_with(|| {
                            let r = b.out.vreg(RegClass::B, 1);
                            b.phys.push(0);
                            r
                        });
                        if let Some(MOpnd::Use { r: rr, .. }) = new
                            .opnds
                            .iter_mut()
                            .find(|o| matches!(o, MOpnd::Use { .. }))
                        {
                            b.phys[r.0 as usize] = b.phys[rr.vreg.0 as usize];
                            rr.vreg = r;
                        }
                    }
                }
            }
            // Moves before the first terminator end the body; before a later one (a guarded
            // branch or exit came first) they stay among the terminators.
            if k <= ninsts {
                data.insts.extend(moves);
            } else {
                data.term.extend(moves);
            }
            if k < ninsts {
                data.insts.push(new);
            } else {
                data.term.push(new);
            }
        }
        b.out.blocks.push(data);
    }
    if let Some((pos, e)) = edits.next() {
        return Err(CompileError::Internal(format!(
            "an edit past the code: {pos:?} {e}"
        )));
    }
    let gprs = alloc.regs_used.of(tangle_regalloc::RegClass::Gpr).max(2);
    let barriers = pinned
        .values()
        .map(|&i| u32::from(i) + 1)
        .chain([alloc.regs_used.of(tangle_regalloc::RegClass::Barrier)])
        .max()
        .unwrap_or(0);
    Ok((
        b.out,
        Assignment {
            phys: b.phys,
            gprs,
            barriers,
        },
    ))
}

/// The text of physical machine code `mf` under `asg`: the machine form's text with every
/// virtual register written as its physical register (`R4`, `P0`, `UR6`, `B1`; a tuple by
/// its first register, one word of it by that word's register).
pub fn physical_text(mf: &MFunc, asg: &Assignment) -> String {
    let text = mf.to_string();
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 1..];
        let letters = tail.chars().take_while(|c| c.is_ascii_lowercase()).count();
        let digits = tail[letters..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let index: Option<usize> = tail[letters..letters + digits].parse().ok();
        let Some(v) = index.filter(|&v| v < asg.phys.len() && v < mf.vregs.len()) else {
            out.push('%');
            rest = tail;
            continue;
        };
        let mut end = letters + digits;
        let mut reg = u32::from(asg.phys[v]);
        // `:2` (a whole tuple) is dropped; `.1` (one word) picks that word's register.
        let suffix = &tail[end..];
        if let Some(w) = suffix.strip_prefix(':') {
            end += 1 + w.chars().take_while(|c| c.is_ascii_digit()).count();
        } else if let Some(w) = suffix.strip_prefix('.') {
            let n = w.chars().take_while(|c| c.is_ascii_digit()).count();
            if n > 0 {
                reg += w[..n].parse::<u32>().unwrap_or(0);
                end += 1 + n;
            }
        }
        let prefix = match mf.vregs[v].class {
            RegClass::R => "R",
            RegClass::P => "P",
            RegClass::Ur => "UR",
            RegClass::Up => "UP",
            RegClass::B => "B",
        };
        out.push_str(&format!("{prefix}{reg}"));
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// Gives the operand at `slot` of `inst` its physical register.
fn set_reg(
    b: &mut Builder,
    mf: &MFunc,
    inst: &mut MInst,
    slot: Slot,
    reg: PhysReg,
) -> Result<(), CompileError> {
    let check = |v: VReg| -> Result<(), CompileError> {
        if super::input::class_of(mf.info(v).class) != reg.class {
            return Err(CompileError::Internal(format!(
                "{} was given {reg}, a register of another file",
                mf.reg_text(v.into())
            )));
        }
        Ok(())
    };
    match slot {
        Slot::Guard => {
            if let Some((p, neg)) = inst.guard {
                check(p)?;
                inst.guard = Some((b.pin(reg, 1)?, neg));
            }
        }
        Slot::Opnd(j) => match inst.opnds[j] {
            MOpnd::Def(r) => {
                check(r.vreg)?;
                let v = b.pin(reg, mf.info(r.vreg).width)?;
                inst.opnds[j] = MOpnd::Def(RegRef {
                    vreg: v,
                    sub: r.sub,
                });
            }
            MOpnd::Use { r, neg, not } => {
                check(r.vreg)?;
                let v = b.pin(reg, mf.info(r.vreg).width)?;
                inst.opnds[j] = MOpnd::Use {
                    r: RegRef {
                        vreg: v,
                        sub: r.sub,
                    },
                    neg,
                    not,
                };
            }
            MOpnd::Mem {
                base: Some(base),
                offset,
            } => {
                check(base)?;
                let v = b.pin(reg, mf.info(base).width)?;
                inst.opnds[j] = MOpnd::Mem {
                    base: Some(v),
                    offset,
                };
            }
            _ => {
                return Err(CompileError::Internal(format!(
                    "operand {j} of {} holds no register",
                    mf.inst_text(inst)
                )))
            }
        },
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tangle_regalloc::RegClass as C;
    use tangle_sass::Arch;

    /// Every edit the allocator may ask for becomes instructions the SASS layer builds and
    /// encodes on every SM.
    #[test]
    fn every_edit_kind_builds_on_every_sm() {
        let reg = |class, index| Location::Reg(PhysReg { class, index });
        let edits = [
            Edit::Move {
                from: reg(C::Gpr, 2),
                to: reg(C::Gpr, 4),
                size: 2,
            },
            Edit::Move {
                from: reg(C::UGpr, 8),
                to: reg(C::UGpr, 9),
                size: 1,
            },
            Edit::Move {
                from: reg(C::Pred, 0),
                to: reg(C::Pred, 3),
                size: 1,
            },
            Edit::Move {
                from: reg(C::UPred, 0),
                to: reg(C::UPred, 2),
                size: 1,
            },
            Edit::Move {
                from: reg(C::Pred, 1),
                to: reg(C::Gpr, 7),
                size: 1,
            },
            Edit::Move {
                from: reg(C::Gpr, 7),
                to: reg(C::Pred, 1),
                size: 1,
            },
            Edit::Move {
                from: reg(C::UPred, 1),
                to: reg(C::UGpr, 7),
                size: 1,
            },
            Edit::Move {
                from: reg(C::UGpr, 7),
                to: reg(C::UPred, 1),
                size: 1,
            },
            Edit::Move {
                from: reg(C::UGpr, 7),
                to: reg(C::Gpr, 3),
                size: 1,
            },
            Edit::Move {
                from: reg(C::Gpr, 3),
                to: reg(C::UGpr, 7),
                size: 1,
            },
            Edit::Move {
                from: reg(C::Barrier, 2),
                to: reg(C::Gpr, 3),
                size: 1,
            },
            Edit::Move {
                from: reg(C::Gpr, 3),
                to: reg(C::Barrier, 2),
                size: 1,
            },
            Edit::Move {
                from: reg(C::Gpr, 4),
                to: Location::Slot(2),
                size: 2,
            },
            Edit::Move {
                from: Location::Slot(4),
                to: reg(C::Gpr, 8),
                size: 4,
            },
            Edit::Move {
                from: reg(C::Gpr, 3),
                to: Location::Slot(1),
                size: 1,
            },
            Edit::Swap {
                a: PhysReg {
                    class: C::Gpr,
                    index: 3,
                },
                b: PhysReg {
                    class: C::Gpr,
                    index: 5,
                },
            },
            Edit::Swap {
                a: PhysReg {
                    class: C::UGpr,
                    index: 3,
                },
                b: PhysReg {
                    class: C::UGpr,
                    index: 5,
                },
            },
            Edit::Swap {
                a: PhysReg {
                    class: C::Pred,
                    index: 0,
                },
                b: PhysReg {
                    class: C::Pred,
                    index: 1,
                },
            },
            Edit::Swap {
                a: PhysReg {
                    class: C::UPred,
                    index: 0,
                },
                b: PhysReg {
                    class: C::UPred,
                    index: 1,
                },
            },
        ];
        for arch in [Arch::Sm75, Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90] {
            let mut b = Builder {
                out: MFunc::default(),
                phys: Vec::new(),
            };
            let mut blk = MBlockData::default();
            for e in &edits {
                blk.insts
                    .extend(edit_insts(&mut b, e, 16).expect("an edit the machine has"));
            }
            blk.term.push(MInst::new(Op::Exit));
            b.out.blocks.push(blk);
            let asg = Assignment {
                phys: b.phys.clone(),
                gprs: 16,
                barriers: 3,
            };
            let code =
                crate::emit::emit(&b.out, &asg, arch, 64).unwrap_or_else(|e| panic!("{arch}: {e}"));
            let text = crate::emit::text(&code, arch, false).expect("text");
            for want in [
                "MOV R5, R3",
                "BMOV.32.CLEAR R3, B2",
                "BMOV.32 B2, R3",
                "STL.64 [R1+0x18], R4",
                "LDL.128 R8, [R1+0x20]",
                "R2UR UR7, R3",
                "SEL R7, RZ, 0x1, !P1",
            ] {
                assert!(text.contains(want), "{arch}: no `{want}` in\n{text}");
            }
        }
    }
}
