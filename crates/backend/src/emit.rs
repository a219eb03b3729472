//! Emission: the assigned machine form laid out as one code section of typed SASS
//! instructions, with branch targets resolved, the per-SM set-up code (the global memory
//! descriptor, the local-memory stack pointer, SM75's barrier clears before `BSSY`) and the
//! conservative control codes of [`crate::control`].

use std::collections::HashMap;

use tangle_sass::typed::{b, p, r, ur, Addr, Operand, RZ};
use tangle_sass::{Arch, MachInst, Op, Word};

use crate::assign::Assignment;
use crate::error::CompileError;
use crate::isel::global_descriptor as memory_descriptor;
use crate::mir::{MBlock, MFunc, MInst, MOpnd, RegClass, RegRef, VReg};

/// One instruction of the laid-out code before its targets are known.
#[derive(Clone, Debug)]
struct Line {
    inst: MInst,
    /// For a `BSYNC`: the barrier it closes (for the `BSSY` targets).
    sync_of: Option<VReg>,
}

/// The emitted kernel.
#[derive(Clone, Debug)]
pub struct Code {
    /// The instructions, from address 0.
    pub insts: Vec<MachInst>,
    /// Their words.
    pub words: Vec<Word>,
}

/// Lays out `mf` (phis eliminated) with `asg` for `arch`; `frame_bytes` of local memory.
pub fn emit(
    mf: &MFunc,
    asg: &Assignment,
    arch: Arch,
    frame_bytes: u32,
) -> Result<Code, CompileError> {
    // Set-up code.
    let mut lines: Vec<Line> = Vec::new();
    let plain = |i: MInst| Line {
        inst: i,
        sync_of: None,
    };
    if frame_bytes > 0 {
        lines.push(plain(
            MInst::new(Op::Mov).f(r(1)).f(Operand::cbank(0, 0x28)),
        ));
        lines.push(plain(
            MInst::new(Op::Iadd3)
                .f(r(1))
                .f(r(1))
                .imm(-(frame_bytes.div_ceil(8) as i64 * 8))
                .f(RZ),
        ));
    }
    if let Some(desc) = memory_descriptor(arch) {
        lines.push(plain(
            MInst::new(Op::Uldc)
                .m(".64")
                .f(ur(4))
                .f(Operand::cbank(0, desc)),
        ));
    }
    // Blocks in layout order; a final unconditional branch to the next block is dropped.
    let mut starts: HashMap<MBlock, usize> = HashMap::new();
    let n = mf.blocks.len();
    for (bi, blk) in mf.blocks.iter().enumerate() {
        starts.insert(MBlock(bi as u32), lines.len());
        for i in &blk.insts {
            if arch == Arch::Sm75 && i.op == Op::Bssy {
                // ptxas clears a barrier before every BSSY on SM75 (barrier-semantics §c 6).
                let bar = i.defs().next().expect("BSSY defines its barrier");
                lines.push(plain(
                    MInst::new(Op::Bmov)
                        .m(".32")
                        .m(".CLEAR")
                        .f(RZ)
                        .o(MOpnd::use_(bar)),
                ));
            }
            if i.is_pack() {
                // A pair construction: one MOV per component.
                let MOpnd::Def(pair) = i.opnds[0] else {
                    unreachable!("is_pack checked the operands")
                };
                for (k, src) in i.opnds[1..].iter().enumerate() {
                    let part = RegRef {
                        vreg: pair.vreg,
                        sub: Some(k as u8),
                    };
                    lines.push(plain(MInst::new(Op::Mov).o(MOpnd::Def(part)).o(*src)));
                }
                continue;
            }
            let sync_of = (i.op == Op::Bsync)
                .then(|| i.uses().next().map(|u| u.vreg))
                .flatten();
            lines.push(Line {
                inst: i.clone(),
                sync_of,
            });
        }
        for (k, i) in blk.term.iter().enumerate() {
            let last = k + 1 == blk.term.len();
            let to_next = i.op == Op::Bra
                && i.guard.is_none()
                && i.opnds == [MOpnd::Target(MBlock(bi as u32 + 1))]
                && bi + 1 < n;
            if last && to_next {
                continue;
            }
            lines.push(plain(i.clone()));
        }
    }
    let addr = |k: usize| 16 * k as i64;
    let mut sync_addr: HashMap<VReg, i64> = HashMap::new();
    for (k, l) in lines.iter().enumerate() {
        if let Some(v) = l.sync_of {
            sync_addr.entry(v).or_insert(addr(k + 1));
        }
    }
    let mut insts = Vec::with_capacity(lines.len());
    for (k, l) in lines.iter().enumerate() {
        let phys = |rr: RegRef| asg.phys[rr.vreg.0 as usize] + rr.sub.unwrap_or(0);
        let mut builder = MachInst::build(l.inst.op);
        for m in &l.inst.mods {
            builder = builder.m(*m);
        }
        if let Some((pv, neg)) = l.inst.guard {
            let g = tangle_sass::typed::Guard::p(p(asg.phys[pv.0 as usize]));
            builder = builder.guard(if neg { g.negate() } else { g });
        }
        for o in &l.inst.opnds {
            let op: Operand = match *o {
                MOpnd::Def(rr) => reg_operand(mf, rr, phys(rr)),
                MOpnd::Use { r: rr, neg, not } => {
                    let mut x = reg_operand(mf, rr, phys(rr));
                    x.neg = neg;
                    x.not = not;
                    x
                }
                MOpnd::Fixed(x) => x,
                MOpnd::Mem { base, offset } if l.inst.op == Op::Ldc => {
                    // A constant-bank address in a register (a dynamic push-constant index).
                    let base = base.map_or(RZ, |v| r(asg.phys[v.0 as usize]));
                    Operand::new(tangle_sass::typed::Val::CBankIdx {
                        bank: 0,
                        base,
                        offset,
                    })
                }
                MOpnd::Mem { base, offset } => {
                    let base = base.map_or(RZ, |v| r(asg.phys[v.0 as usize]));
                    let mut a = Addr::new(base, offset);
                    // SM90 names the descriptor, except in a compare-and-swap (ptxas prints
                    // `ATOMG.E.CAS... [R26+0x8]`, and only that form encodes).
                    let cas = l.inst.mods.contains(&".CAS");
                    if arch == Arch::Sm90
                        && matches!(l.inst.op, Op::Ldg | Op::Stg | Op::Atomg)
                        && !cas
                    {
                        a = a.with_ureg(ur(4));
                    }
                    Operand::mem(a)
                }
                MOpnd::Target(t) => Operand::target(addr(starts[&t])),
                MOpnd::SyncOf(v) => Operand::target(*sync_addr.get(&v).unwrap_or(&addr(k + 1))),
            };
            builder = builder.o(op);
        }
        let inst = builder.finish(arch).map_err(|e| {
            CompileError::Internal(format!(
                "instruction {} ({}): {e}",
                k,
                mf.inst_text(&l.inst)
            ))
        })?;
        insts.push(inst);
    }
    crate::control::assign(arch, &mut insts)?;
    let mut words = Vec::with_capacity(insts.len());
    for (k, i) in insts.iter().enumerate() {
        words.push(
            i.encode(arch, addr(k) as u64)
                .map_err(|e| CompileError::Internal(format!("encoding instruction {k}: {e}")))?,
        );
    }
    Ok(Code { insts, words })
}

/// The physical operand of a register reference.
fn reg_operand(mf: &MFunc, rr: RegRef, n: u8) -> Operand {
    match mf.info(rr.vreg).class {
        RegClass::R => r(n).into(),
        RegClass::P => p(n).into(),
        RegClass::Ur => ur(n).into(),
        RegClass::Up => tangle_sass::typed::up(n).into(),
        RegClass::B => b(n).into(),
    }
}

/// The SASS text of the code, one `/*addr*/ text ;` line per instruction, as nvdisasm
/// prints raw words.
pub fn text(code: &Code, arch: Arch, control: bool) -> Result<String, CompileError> {
    let mut s = String::new();
    for (k, i) in code.insts.iter().enumerate() {
        let a = 16 * k as u64;
        let t = i
            .text(arch, a)
            .map_err(|e| CompileError::Internal(format!("printing instruction {k}: {e}")))?;
        if control {
            s.push_str(&format!("/*{a:04x}*/ {} {t} ;\n", i.control));
        } else {
            s.push_str(&format!("/*{a:04x}*/ {t} ;\n"));
        }
    }
    Ok(s)
}
