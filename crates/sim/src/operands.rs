//! Reading and writing an instruction's operands for one lane, and the execution context
//! (memories, constant banks, position) every operation runs in.

use tangle_sass::typed::Val;

use crate::error::{FaultKind, SimError, Site};
use crate::kernel::{Inst, Kernel};
use crate::memory::{const_read, Global};
use crate::warp::Warp;

/// What an operation can reach besides its warp.
pub struct Cx<'a> {
    /// The kernel.
    pub kernel: &'a Kernel,
    /// Constant bank 0 of the launch.
    pub cb0: &'a [u8],
    /// Global memory.
    pub global: &'a mut Global,
    /// The block's shared memory.
    pub shared: &'a mut Vec<u8>,
    /// The block index.
    pub block: [u32; 3],
    /// The warp index in the block of the issuing group.
    pub warp: u32,
    /// The address of the instruction being executed.
    pub pc: u32,
}

impl Cx<'_> {
    /// The position of the current instruction, blaming `lane` if given.
    pub fn site(&self, lane: Option<usize>) -> Site {
        Site {
            block: self.block,
            warp: self.warp,
            lane: lane.map(|l| l as u32),
            pc: self.pc,
        }
    }

    /// A fault at the current instruction.
    pub fn fault(&self, lane: usize, kind: FaultKind) -> SimError {
        SimError::Fault {
            site: self.site(Some(lane)),
            kind,
        }
    }

    /// The current instruction is not supported, for the reason `why`.
    pub fn unsupported(&self, i: &Inst, why: impl Into<String>) -> SimError {
        SimError::Unsupported {
            site: self.site(None),
            text: i
                .m
                .text(self.kernel.arch, self.pc as u64)
                .unwrap_or_else(|_| i.op().to_string()),
            why: why.into(),
        }
    }

    /// Reads `size` bytes (at most 8) of constant bank `bank` at `offset`.
    pub fn cbank(&self, lane: usize, bank: u8, offset: i64, size: u32) -> Result<u64, SimError> {
        let data: &[u8] = if bank == 0 {
            self.cb0
        } else {
            match self.kernel.banks.iter().find(|(b, _)| *b == bank) {
                Some((_, d)) => d,
                None => &[],
            }
        };
        const_read(bank, data, offset, size).map_err(|k| self.fault(lane, k))
    }

    /// The raw 32 bits of source operand `k` (an index into the operands) for `lane`,
    /// with no flag applied.
    pub fn rd(&self, w: &Warp, i: &Inst, k: usize, lane: usize) -> Result<u32, SimError> {
        Ok(match i.m.operands[k].val {
            Val::Reg(r) => reg(w, r.0, lane),
            Val::UReg(u) => ureg(w, u.0, lane),
            Val::Imm(v) => v as u32,
            Val::F32(b) => b,
            Val::F64(b) => (b >> 32) as u32,
            Val::F16(b) => b as u32,
            Val::CBank { bank, offset } => self.cbank(lane, bank, offset as i64, 4)? as u32,
            Val::Pred(_) | Val::UPred(_) => self.pred(w, i, k, lane) as u32,
            _ => return Err(self.unsupported(i, format!("operand {k} cannot be read as a value"))),
        })
    }

    /// The 64 bits of source operand `k` (a register pair, a 64-bit constant, a 64-bit
    /// float immediate) for `lane`, no flag applied.
    pub fn rd64(&self, w: &Warp, i: &Inst, k: usize, lane: usize) -> Result<u64, SimError> {
        Ok(match i.m.operands[k].val {
            Val::Reg(r) => reg64(w, r.0, lane),
            Val::UReg(u) => {
                ureg(w, u.0, lane) as u64 | (ureg(w, u.0.wrapping_add(1), lane) as u64) << 32
            }
            Val::Imm(v) => v as u64,
            Val::F64(b) => b,
            Val::CBank { bank, offset } => self.cbank(lane, bank, offset as i64, 8)?,
            _ => self.rd(w, i, k, lane)? as u64,
        })
    }

    /// Predicate operand `k` (general or uniform) for `lane`, its `!` applied.
    pub fn pred(&self, w: &Warp, i: &Inst, k: usize, lane: usize) -> bool {
        let o = &i.m.operands[k];
        let v = match o.val {
            Val::Pred(p) => w.p[p.0 as usize & 7] >> lane & 1 == 1,
            Val::UPred(p) => w.up[p.0 as usize & 7] >> lane & 1 == 1,
            _ => false,
        };
        v ^ o.not
    }
}

/// `Rn` of `lane` (RZ reads zero).
pub fn reg(w: &Warp, r: u8, lane: usize) -> u32 {
    if r == 255 {
        0
    } else {
        w.r[r as usize * 32 + lane]
    }
}

/// `Rn:Rn+1` of `lane`.
pub fn reg64(w: &Warp, r: u8, lane: usize) -> u64 {
    if r == 255 {
        0
    } else {
        reg(w, r, lane) as u64 | (reg(w, r.saturating_add(1), lane) as u64) << 32
    }
}

/// `URn` of `lane` (URZ reads zero).
pub fn ureg(w: &Warp, u: u8, lane: usize) -> u32 {
    if u >= 63 {
        0
    } else {
        w.ur[u as usize * 32 + lane]
    }
}

/// Writes destination operand `k` (a register or uniform register) of `lane`; `n`
/// consecutive 32-bit words from `vals`.
pub fn write(w: &mut Warp, i: &Inst, k: usize, lane: usize, vals: &[u32]) {
    match i.m.operands[k].val {
        Val::Reg(r) if r.0 != 255 => {
            for (j, &v) in vals.iter().enumerate() {
                if (r.0 as usize + j) < 255 {
                    w.r[(r.0 as usize + j) * 32 + lane] = v;
                }
            }
        }
        Val::UReg(u) if u.0 < 63 => {
            for (j, &v) in vals.iter().enumerate() {
                if (u.0 as usize + j) < 63 {
                    w.ur[(u.0 as usize + j) * 32 + lane] = v;
                }
            }
        }
        _ => {}
    }
}

/// Writes predicate destination operand `k` (general or uniform; PT drops it) of `lane`.
pub fn write_pred(w: &mut Warp, i: &Inst, k: usize, lane: usize, v: bool) {
    let (file, n) = match i.m.operands[k].val {
        Val::Pred(p) => (&mut w.p, p.0),
        Val::UPred(p) => (&mut w.up, p.0),
        _ => return,
    };
    if n < 7 {
        if v {
            file[n as usize] |= 1 << lane;
        } else {
            file[n as usize] &= !(1 << lane);
        }
    }
}
