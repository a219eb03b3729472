//! Issuing one instruction of a group: control flow (branches, calls, returns, exits),
//! the convergence machinery (BSSY, BSYNC, BREAK, BMOV, WARPSYNC, YIELD, BAR) as
//! `../shared/barrier-semantics.md` §(a) defines it, special registers, and dispatch of
//! every other operation to its module.

use tangle_sass::typed::Val;
use tangle_sass::Op;
use tangle_sched::Event;

use crate::engine::BlockRun;
use crate::error::{FaultKind, SimError};
use crate::kernel::{Inst, Slot};
use crate::memory::Global;
use crate::operands::{write, Cx};
use crate::warp::{lanes, Group, Status, Warp};

/// The lanes of `mask` whose guard predicate is true.
pub fn guard_mask(w: &Warp, i: &Inst, mask: u32) -> u32 {
    let g = i.m.guard;
    if g.pred == 7 {
        return if g.negated { 0 } else { mask };
    }
    let file = if i.m.form.uniform_guard { &w.up } else { &w.p };
    let v = file[g.pred as usize];
    mask & if g.negated { !v } else { v }
}

/// The value of the source-predicate operand of a control instruction (bits 87-90; NAK
/// and ptxas leave it PT): `Some(true)` for PT, `Some(false)` for !PT, `None` for a real
/// predicate, whose meaning is unknown (§(d) 9).
fn source_pred(i: &Inst) -> Option<bool> {
    match i.m.operands.first().map(|o| (o.val, o.not)) {
        Some((Val::Pred(p), not)) if p.0 == 7 => Some(!not),
        Some((Val::Pred(_), _)) => None,
        _ => Some(true),
    }
}

/// Splits group `gi` into the parts `(lanes, pc)` (empty parts dropped): the part holding
/// the group's lowest lane keeps its identity. Returns `Split` when there are two or more
/// parts, else `fallback`.
fn regroup(
    run: &mut BlockRun<'_>,
    wi: usize,
    gi: usize,
    parts: &[(u32, u32)],
    fallback: Event,
) -> Event {
    let parts: Vec<(u32, u32)> = parts.iter().copied().filter(|p| p.0 != 0).collect();
    let step = run.step;
    let old = run.warps[wi].groups[gi];
    if parts.is_empty() {
        run.warps[wi].groups.remove(gi);
        return fallback;
    }
    let lowest = parts
        .iter()
        .position(|p| p.0 & (1 << old.mask.trailing_zeros()) != 0)
        .unwrap_or(0);
    run.warps[wi].groups[gi] = Group {
        id: old.id,
        mask: parts[lowest].0,
        pc: parts[lowest].1,
        last_issued: step,
    };
    for (n, &(m, pc)) in parts.iter().enumerate() {
        if n != lowest {
            let id = run.gid();
            run.warps[wi].add_group(id, m, pc, step);
        }
    }
    if parts.len() > 1 {
        Event::Split
    } else {
        fallback
    }
}

/// Per-lane targets grouped by address: `(lanes, target)`.
fn by_target(targets: &[(usize, u32)]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &(l, t) in targets {
        match out.iter_mut().find(|(_, pc)| *pc == t) {
            Some(e) => e.0 |= 1 << l,
            None => out.push((1 << l, t)),
        }
    }
    out
}

/// The value of special register `n` for `lane`.
fn sreg(
    run: &BlockRun<'_>,
    w: &Warp,
    n: u8,
    lane: usize,
    launch_dims: (&[u8], usize),
) -> Option<u64> {
    let (cb0, _) = launch_dims;
    let cb = |off: usize| u32::from_le_bytes(cb0[off..off + 4].try_into().expect("4")) as u64;
    let l = lane as u32;
    Some(match n {
        0x00 => l as u64,
        0x01 | 0x50 | 0x52 => run.step,
        0x51 | 0x53 => run.step >> 32,
        0x21..=0x23 => w.tid[lane][(n - 0x21) as usize] as u64,
        0x25..=0x27 => run.block[(n - 0x25) as usize] as u64,
        0x38 => 1u64 << l,
        0x39 => ((1u64 << l) - 1) & 0xffff_ffff,
        0x3a => ((1u64 << (l + 1)) - 1) & 0xffff_ffff,
        0x3b => !((1u64 << (l + 1)) - 1) & 0xffff_ffff,
        0x3c => !((1u64 << l) - 1) & 0xffff_ffff,
        // SR_NTID / SR_NCTAID are not S2R operands ptxas uses (it reads c[0x0][0x0..0x14]);
        // the packed forms are left out.
        0x28 => cb(0),
        // SR_LMEMHIOFF: the lowest valid stack address (`-G` builds trap when R1 drops
        // below it); the stack is the whole of local memory, so 0.
        0x37 => 0,
        // SR_SWINHI: the high word of the shared-memory window of generic addresses.
        0x2f => crate::memory::SHARED_WINDOW >> 32,
        // SR_CgaCtaId (SM90): the block's rank in its cluster; clusters of one block.
        0x88 if run.kernel.arch == tangle_sass::Arch::Sm90 => 0,
        0xff => 0,
        _ => return None,
    })
}

/// Issues the instruction at group `gi`'s pc.
pub fn step(
    run: &mut BlockRun<'_>,
    wi: usize,
    gi: usize,
    cb0: &[u8],
    global: &mut Global,
) -> Result<Event, SimError> {
    let kernel = run.kernel;
    let Group { mask, pc, .. } = run.warps[wi].groups[gi];
    let site = |lane: Option<usize>| crate::error::Site {
        block: run.block,
        warp: wi as u32,
        lane: lane.map(|l| l as u32),
        pc,
    };
    let i: &Inst = match kernel.code.get(pc as usize / 16) {
        Some(Slot::Inst(i)) => i,
        Some(Slot::Refused(reason)) => {
            return Err(SimError::Refused {
                site: site(None),
                reason: reason.clone(),
            })
        }
        None => {
            return Err(SimError::Fault {
                site: site(None),
                kind: FaultKind::RanOffTheEnd,
            })
        }
    };
    let a = guard_mask(&run.warps[wi], i, mask);
    if run.opts.hazards {
        let found = run.warps[wi].hz.issue(kernel.arch, i, pc, mask, a);
        run.hazards_total += found.len();
        for what in found {
            if run.hazards.len() < crate::engine::MAX_HAZARDS {
                run.hazards.push(crate::engine::Hazard {
                    site: site(None),
                    what,
                });
            }
        }
    }
    let next = pc + 16;
    let code_end = kernel.code.len() as u32 * 16;
    let bad_target = |t: u64| SimError::Fault {
        site: site(None),
        kind: FaultKind::BadTarget { target: t },
    };
    let check_target = |t: u64| -> Result<u32, SimError> {
        if t % 16 != 0 || t >= code_end as u64 {
            Err(bad_target(t))
        } else {
            Ok(t as u32)
        }
    };
    let sp = source_pred(i);
    let op = i.op();
    let is_control = matches!(
        op,
        Op::Bra
            | Op::Brx
            | Op::Call
            | Op::Ret
            | Op::Exit
            | Op::Bssy
            | Op::Bsync
            | Op::Break
            | Op::Warpsync
    );
    // `@Pg BRA Pp, t`: taken by the lanes where both hold. Inferred from ptxas's switch
    // lowering (a divergent `switch (lane & 3)` on sm_86: `@P0 BRA P1, case` with P0 the
    // selector's test and P1 its range check, and the fall-through path recomputing P0
    // before `@!P0 EXIT`); the `ptxas` fuzz campaign's strict comparison holds it. Other
    // control instructions keep refusing a real source predicate (§(d) 9).
    let a = match (op, i.m.operands.first().map(|o| (o.val, o.not))) {
        (Op::Bra, Some((Val::Pred(p), not))) if p.0 != 7 && !i.m.form.uniform_guard => {
            let v = run.warps[wi].p[p.0 as usize];
            a & if not { !v } else { v }
        }
        _ => a,
    };
    let sp = if op == Op::Bra && sp.is_none() && !i.m.form.uniform_guard {
        Some(true)
    } else {
        sp
    };
    if is_control && sp.is_none() {
        return Err(unsupported(
            run,
            wi,
            pc,
            i,
            "a source predicate other than PT (§(d) 9)",
        ));
    }
    let a = if is_control && sp == Some(false) {
        0
    } else {
        a
    };
    match op {
        Op::Nop
        | Op::Membar
        | Op::Errbar
        | Op::Cctl
        | Op::Cgaerrbar
        | Op::Depbar
        | Op::Endcollective => {
            run.warps[wi].groups[gi].pc = next;
            Ok(Event::Instruction)
        }
        Op::Bra => {
            let t = check_target(i.m.target().unwrap_or(-1) as u64)?;
            if t == pc && a == mask && i.m.guard.pred == 7 {
                return Err(SimError::Fault {
                    site: site(None),
                    kind: FaultKind::RanOffTheEnd,
                });
            }
            let taken = if i.has("DIV") || i.has("CONV") {
                let w = &run.warps[wi];
                let m = match i.m.operands.get(1).map(|o| (o.val, o.not)) {
                    Some((Val::UReg(u), not)) => {
                        let v = crate::operands::ureg(w, u.0, mask.trailing_zeros() as usize);
                        if not {
                            !v
                        } else {
                            v
                        }
                    }
                    _ => !0,
                };
                let diverged = m & !w.exited() & !mask != 0;
                if diverged == i.has("DIV") {
                    a
                } else {
                    0
                }
            } else {
                a
            };
            let fallback = if taken == mask {
                Event::BlockEnd
            } else {
                Event::Instruction
            };
            Ok(regroup(
                run,
                wi,
                gi,
                &[(taken, t), (mask & !taken, next)],
                fallback,
            ))
        }
        Op::Call if i.m.operands.iter().any(|o| o.as_reg().is_some()) => {
            // An indirect call (`CALL.REL.NOINC Ra`): each lane's register holds its
            // callee's offset from the start of the code, as RET's return register does;
            // lanes calling different functions split.
            let w = &run.warps[wi];
            let r =
                i.m.operands
                    .iter()
                    .find_map(|o| o.as_reg())
                    .expect("a register");
            let mut targets = Vec::new();
            for l in lanes(a) {
                targets.push((l, check_target(crate::operands::reg(w, r.0, l) as u64)?));
            }
            let mut parts = by_target(&targets);
            parts.push((mask & !a, next));
            Ok(regroup(run, wi, gi, &parts, Event::BlockEnd))
        }
        Op::Call => {
            // CALL.REL's target, or CALL.ABS's absolute address (relocated at load).
            let t = i.m.target().or_else(|| {
                i.has("ABS")
                    .then(|| i.m.operands.iter().find_map(|o| o.as_imm()))
                    .flatten()
            });
            let t = check_target(t.unwrap_or(-1) as u64)?;
            Ok(regroup(
                run,
                wi,
                gi,
                &[(a, t), (mask & !a, next)],
                Event::BlockEnd,
            ))
        }
        Op::Brx | Op::Ret => {
            let w = &run.warps[wi];
            let mut targets = Vec::new();
            for l in lanes(a) {
                let r = i.m.operands[1]
                    .as_reg()
                    .map_or(0, |r| crate::operands::reg(w, r.0, l));
                let t = if op == Op::Brx {
                    let off = i.m.operands[2].as_imm().unwrap_or(0);
                    (r as i64 + next as i64 + off) as u64
                } else {
                    r as u64
                };
                targets.push((l, check_target(t)?));
            }
            let mut parts = by_target(&targets);
            parts.push((mask & !a, next));
            Ok(regroup(run, wi, gi, &parts, Event::BlockEnd))
        }
        Op::Exit => {
            let w = &mut run.warps[wi];
            for l in lanes(a) {
                w.lanes[l].status = Status::Exited;
            }
            w.yielded &= !a;
            regroup(run, wi, gi, &[(mask & !a, next)], Event::Exited);
            Ok(if a != 0 {
                Event::Exited
            } else {
                Event::Instruction
            })
        }
        Op::Nanosleep => {
            // `__nanosleep`: the group steps aside like a YIELD (the scheduler runs the
            // others first), without the yield flag that barriers' yield-release reads.
            run.warps[wi].groups[gi].pc = next;
            Ok(Event::Yield)
        }
        Op::Yield => {
            run.warps[wi].yielded |= a;
            run.warps[wi].groups[gi].pc = next;
            Ok(Event::Yield)
        }
        Op::Bssy => {
            let k = bar_of(i, 1);
            let w = &mut run.warps[wi];
            for l in lanes(mask) {
                w.bset(l, k, a);
            }
            w.brk[k as usize] &= !mask;
            w.groups[gi].pc = next;
            Ok(Event::Instruction)
        }
        Op::Break => {
            let k = bar_of(i, 1);
            let w = &mut run.warps[wi];
            for l in lanes(mask) {
                let v = w.bget(l, k) & !a;
                w.bset(l, k, v);
            }
            w.brk[k as usize] |= a;
            w.groups[gi].pc = next;
            Ok(Event::Instruction)
        }
        Op::Bmov => {
            let w = &mut run.warps[wi];
            if let Some(b) = i.m.operands[0].as_bar() {
                // BMOV.32 Bk, Rs
                let r = i.m.operands[1].as_reg().map_or(255, |r| r.0);
                for l in lanes(a) {
                    let v = crate::operands::reg(w, r, l);
                    w.bset(l, b.0, v);
                }
                w.brk[b.0 as usize] &= !a;
            } else {
                let k = bar_of(i, 1);
                let clear = i.has("CLEAR");
                for l in lanes(a) {
                    let v = w.bget(l, k);
                    write(w, i, 0, l, &[v]);
                }
                if clear {
                    for l in lanes(a) {
                        w.bset(l, k, 0);
                    }
                    w.brk[k as usize] &= !a;
                }
            }
            w.groups[gi].pc = next;
            Ok(Event::Instruction)
        }
        Op::Bsync => {
            let k = bar_of(i, 1);
            Ok(crate::converge::bsync(run, wi, gi, k, a))
        }
        Op::Warpsync => {
            let w = &run.warps[wi];
            let mut waits = Vec::new();
            for l in lanes(a) {
                let m = match i.m.operands.get(1).map(|o| o.val) {
                    None => !0,
                    Some(Val::Imm(v)) => v as u32,
                    Some(Val::CBank { bank, offset }) => {
                        let cb = |off: i64| crate::memory::const_read(bank, cb0, off, 4);
                        if bank != 0 {
                            return Err(unsupported(
                                run,
                                wi,
                                pc,
                                i,
                                "a mask in a constant bank other than 0",
                            ));
                        }
                        cb(offset as i64).map_err(|k| SimError::Fault {
                            site: site(Some(l)),
                            kind: k,
                        })? as u32
                    }
                    Some(Val::Reg(r)) => crate::operands::reg(w, r.0, l),
                    _ => return Err(unsupported(run, wi, pc, i, "an unknown mask operand")),
                };
                waits.push((l, m));
            }
            let collective = if i.has("COLLECTIVE") {
                Some(check_target(i.m.target().unwrap_or(-1) as u64)?)
            } else {
                None
            };
            crate::converge::warpsync(run, wi, gi, &waits, collective, cb0, global)
        }
        Op::Bar => {
            run.bar_waiters += a.count_ones();
            let w = &mut run.warps[wi];
            for l in lanes(a) {
                w.lanes[l] = crate::warp::Lane {
                    status: Status::WaitBar,
                    pc,
                };
            }
            regroup(run, wi, gi, &[(mask & !a, next)], Event::Blocked);
            Ok(if a != 0 {
                Event::Blocked
            } else {
                Event::Instruction
            })
        }
        Op::S2r | Op::Cs2r | Op::S2ur => {
            let n = match i.m.operands[1].val {
                Val::SReg(n) => n,
                _ => {
                    return Err(unsupported(
                        run,
                        wi,
                        pc,
                        i,
                        "special register operand expected",
                    ))
                }
            };
            let wide = op == Op::Cs2r;
            let mut vals = Vec::new();
            for l in lanes(a) {
                let v = sreg(run, &run.warps[wi], n, l, (cb0, 0)).ok_or_else(|| {
                    unsupported(
                        run,
                        wi,
                        pc,
                        i,
                        format!("special register {:#x} is not modelled", n),
                    )
                })?;
                vals.push((l, v));
            }
            let w = &mut run.warps[wi];
            for (l, v) in vals {
                if wide {
                    write(w, i, 0, l, &[v as u32, (v >> 32) as u32]);
                } else {
                    write(w, i, 0, l, &[v as u32]);
                }
            }
            w.groups[gi].pc = next;
            Ok(Event::Instruction)
        }
        _ => {
            let block = run.block;
            let BlockRun { warps, shared, .. } = run;
            let w = &mut warps[wi];
            let mut cx = Cx {
                kernel,
                cb0,
                global,
                shared,
                block,
                warp: wi as u32,
                pc,
            };
            let done = if crate::warpops::is_warp_op(op) {
                crate::warpops::exec(&mut cx, w, &[(i, a)])?;
                true
            } else {
                crate::alu::exec(&mut cx, w, i, a)?
                    || crate::float::exec(&mut cx, w, i, a)?
                    || crate::half::exec(&mut cx, w, i, a)?
                    || crate::memops::exec(&mut cx, w, i, a)?
            };
            if !done {
                return Err(cx.unsupported(i, "the operation is not modelled"));
            }
            w.groups[gi].pc = next;
            Ok(Event::Instruction)
        }
    }
}

/// The barrier register of operand `k`.
fn bar_of(i: &Inst, k: usize) -> u8 {
    i.m.operands
        .get(k)
        .and_then(|o| o.as_bar())
        .map_or(0, |b| b.0)
        & 15
}

fn unsupported(
    run: &BlockRun<'_>,
    wi: usize,
    pc: u32,
    i: &Inst,
    why: impl Into<String>,
) -> SimError {
    SimError::Unsupported {
        site: crate::error::Site {
            block: run.block,
            warp: wi as u32,
            lane: None,
            pc,
        },
        text: i
            .m
            .text(run.kernel.arch, pc as u64)
            .unwrap_or_else(|_| i.op().to_string()),
        why: why.into(),
    }
}

/// Re-exported for the convergence module: splits or shrinks a group.
pub(crate) fn regroup_parts(
    run: &mut BlockRun<'_>,
    wi: usize,
    gi: usize,
    parts: &[(u32, u32)],
    fallback: Event,
) -> Event {
    regroup(run, wi, gi, parts, fallback)
}
