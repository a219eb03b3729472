//! Loads, stores, reductions and atomics on global, shared and local memory.
//!
//! Lanes of a group access memory one after the other in lane order, which is one of the
//! orders hardware may produce for a warp-wide access (atomics are serialised either way).

use tangle_sass::form::MemFmt;
use tangle_sass::typed::{AtomOp, Val};
use tangle_sass::{Op, OpndKind};

use crate::alu::{extend, mem_size};
use crate::error::{FaultKind, SimError};
use crate::kernel::Inst;
use crate::memory::{flat_read, flat_write, LOCAL_BYTES, LOCAL_WINDOW, SHARED_WINDOW};
use crate::operands::{reg, reg64, ureg, write, write_pred, Cx};
use crate::warp::{lanes, Warp};

/// The memory space of an access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Space {
    Global,
    Shared,
    Local,
    /// A generic address (LD, ST, ATOM): shared or local when it lies in their windows
    /// ([`SHARED_WINDOW`], [`LOCAL_WINDOW`]), global otherwise.
    Generic,
}

/// The space and address a generic address names.
fn resolve(sp: Space, addr: u64) -> (Space, u64) {
    if sp != Space::Generic {
        return (sp, addr);
    }
    match addr >> 32 {
        h if h == SHARED_WINDOW >> 32 => (Space::Shared, addr & 0xffff_ffff),
        h if h == LOCAL_WINDOW >> 32 => (Space::Local, addr & 0xffff_ffff),
        _ => (Space::Global, addr),
    }
}

/// The address of memory operand `k` for `lane`.
fn address(cx: &Cx<'_>, w: &Warp, i: &Inst, k: usize, lane: usize) -> Result<u64, SimError> {
    let Val::Mem(a) = i.m.operands[k].val else {
        return Err(cx.unsupported(i, "memory operand expected"));
    };
    let OpndKind::Mem(fmt) = i.m.form.ops[k].kind else {
        return Err(cx.unsupported(i, "memory operand expected"));
    };
    let ur64 = |u: u8| ureg(w, u, lane) as u64 | (ureg(w, u.wrapping_add(1), lane) as u64) << 32;
    let base = match fmt {
        MemFmt::Global | MemFmt::GlobalPlain => {
            if i.has("E") {
                reg64(w, a.base.0, lane)
            } else {
                reg(w, a.base.0, lane) as u64
            }
        }
        MemFmt::Global64 | MemFmt::GlobalDesc => reg64(w, a.base.0, lane),
        MemFmt::GlobalUr => {
            let r = if a.wide {
                reg64(w, a.base.0, lane)
            } else {
                reg(w, a.base.0, lane) as u64
            };
            r.wrapping_add(a.ureg.map_or(0, |u| ur64(u.0)))
        }
        MemFmt::UrAddr => a.ureg.map_or(0, |u| ur64(u.0)),
        MemFmt::Shared => {
            // `.X4`, `.X8`, `.X16` scale the base register.
            let scale = match (a.x4, a.x8) {
                (false, false) => 1,
                (true, false) => 4,
                (false, true) => 8,
                (true, true) => 16,
            };
            let r = reg(w, a.base.0, lane) as u64 * scale;
            r + a.ureg.map_or(0, |u| ureg(w, u.0, lane) as u64)
        }
        MemFmt::CIndexed => return Err(cx.unsupported(i, "constant address in a memory access")),
    };
    Ok(base.wrapping_add(a.offset as u64)
        & if fmt == MemFmt::Shared {
            0xffff_ffff
        } else {
            u64::MAX
        })
}

fn read(
    cx: &mut Cx<'_>,
    w: &mut Warp,
    sp: Space,
    lane: usize,
    addr: u64,
    size: u32,
) -> Result<[u8; 16], SimError> {
    let (sp, addr) = resolve(sp, addr);
    let r = match sp {
        Space::Global => cx.global.read(addr, size),
        Space::Shared => {
            let limit = cx.shared.len() as u32;
            flat_read(cx.shared, addr, size, || FaultKind::SharedOutOfBounds {
                addr,
                size,
                limit,
            })
        }
        Space::Local => {
            if addr.saturating_add(size as u64) > LOCAL_BYTES as u64 {
                Err(FaultKind::LocalOutOfBounds { addr, size })
            } else {
                let m = w.local_mem(lane, addr.saturating_add(size as u64));
                flat_read(m, addr, size, || FaultKind::LocalOutOfBounds { addr, size })
            }
        }
        Space::Generic => unreachable!("resolved above"),
    };
    r.map_err(|k| cx.fault(lane, k))
}

fn store(
    cx: &mut Cx<'_>,
    w: &mut Warp,
    sp: Space,
    lane: usize,
    addr: u64,
    size: u32,
    data: &[u8; 16],
) -> Result<(), SimError> {
    let (sp, addr) = resolve(sp, addr);
    let r = match sp {
        Space::Global => cx.global.write(addr, size, data),
        Space::Shared => {
            let limit = cx.shared.len() as u32;
            flat_write(cx.shared, addr, size, data, || {
                FaultKind::SharedOutOfBounds { addr, size, limit }
            })
        }
        Space::Local => {
            if addr.saturating_add(size as u64) > LOCAL_BYTES as u64 {
                Err(FaultKind::LocalOutOfBounds { addr, size })
            } else {
                let m = w.local_mem(lane, addr + size as u64);
                flat_write(m, addr, size, data, || FaultKind::LocalOutOfBounds {
                    addr,
                    size,
                })
            }
        }
        Space::Generic => unreachable!("resolved above"),
    };
    r.map_err(|k| cx.fault(lane, k))
}

/// The data register(s) of a store: operand `k`, `n` 32-bit words.
fn data_regs(w: &Warp, i: &Inst, k: usize, lane: usize, n: u32) -> [u8; 16] {
    let mut out = [0u8; 16];
    if let Val::Reg(r) = i.m.operands[k].val {
        for j in 0..n.div_ceil(4) as usize {
            let v = if r.0 == 255 {
                0
            } else {
                reg(w, r.0.saturating_add(j as u8), lane)
            };
            out[4 * j..4 * j + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
    out
}

fn words(b: &[u8; 16], n: u32) -> Vec<u32> {
    (0..n.div_ceil(4).max(1) as usize)
        .map(|j| u32::from_le_bytes(b[4 * j..4 * j + 4].try_into().expect("4 bytes")))
        .collect()
}

/// Executes a memory operation; `Ok(false)` if `i` is none.
pub fn exec(cx: &mut Cx<'_>, w: &mut Warp, i: &Inst, a: u32) -> Result<bool, SimError> {
    let s = &i.srcs;
    let d = &i.dsts;
    let (sp, kind) = match i.op() {
        Op::Ldg => (Space::Global, 'l'),
        Op::Lds => (Space::Shared, 'l'),
        Op::Ldl => (Space::Local, 'l'),
        Op::Stg => (Space::Global, 's'),
        Op::Sts => (Space::Shared, 's'),
        Op::Stl => (Space::Local, 's'),
        Op::Atomg => (Space::Global, 'a'),
        Op::Atoms => (Space::Shared, 'a'),
        Op::Red | Op::Redg => (Space::Global, 'r'),
        Op::Ld => (Space::Generic, 'l'),
        Op::St => (Space::Generic, 's'),
        Op::Atom => (Space::Generic, 'a'),
        _ => return Ok(false),
    };
    match kind {
        'l' => {
            let (size, signed) = mem_size(i);
            for l in lanes(a) {
                let addr = address(cx, w, i, s[0], l)?;
                let mut b = read(cx, w, sp, l, addr, size)?;
                if size < 4 {
                    let v = extend(
                        u64::from_le_bytes(b[..8].try_into().expect("8")),
                        size,
                        signed,
                    );
                    b[..8].copy_from_slice(&v.to_le_bytes());
                }
                write(w, i, d[0], l, &words(&b, size));
            }
        }
        's' => {
            let (size, _) = mem_size(i);
            for l in lanes(a) {
                let addr = address(cx, w, i, s[0], l)?;
                let data = data_regs(w, i, s[1], l, size);
                store(cx, w, sp, l, addr, size, &data)?;
            }
        }
        _ => atomic(cx, w, i, a, sp, kind == 'r')?,
    }
    Ok(true)
}

/// The atomic types of packed halves and float vectors (one to four registers).
const PACKED_FLOAT_TYPES: [&str; 8] = [
    "F16x2", "F16x4", "F16x8", "BF16x2", "BF16x4", "BF16x8", "F32x2", "F32x4",
];

fn atomic(
    cx: &mut Cx<'_>,
    w: &mut Warp,
    i: &Inst,
    a: u32,
    sp: Space,
    red: bool,
) -> Result<(), SimError> {
    let s = &i.srcs;
    let d = &i.dsts;
    // ATOMS.CAST.SPIN (ptxas's shared float and 64-bit atomic loops): a compare-and-store
    // whose result is 1 when it stored, 0 otherwise (the loop retries on 0).
    let cast = i.has("CAST");
    let cas = i.has("CAS") || cast;
    let op = i.m.modifier::<AtomOp>();
    // Packed and vector float types (SM90's `.F32x2`, `.F32x4`, `.BF16x2`, ...): the
    // arithmetic below is on one 32- or 64-bit value, so they are refused rather than run
    // as an integer addition.
    if PACKED_FLOAT_TYPES.iter().any(|t| i.has(t)) {
        return Err(cx.unsupported(
            i,
            "half-precision and vector float atomics are not modelled",
        ));
    }
    if i.has("POPC") && i.has("INC") {
        // ATOMS.POPC.INC.32: the warp-aggregated `atomicAdd(&shared, 1)`, one increment per
        // active lane (in lane order, like the other atomics). What it returns per lane is
        // not known, so only RZ as a destination is modelled.
        if !matches!(i.m.operands[d[0]].val, Val::Reg(r) if r.0 == 255) {
            return Err(cx.unsupported(i, "ATOMS.POPC.INC with a destination is not modelled"));
        }
        for l in lanes(a) {
            let addr = address(cx, w, i, s[0], l)?;
            let old = read(cx, w, sp, l, addr, 4)?;
            let new = u32::from_le_bytes(old[..4].try_into().expect("4")).wrapping_add(1);
            let mut nb = [0u8; 16];
            nb[..4].copy_from_slice(&new.to_le_bytes());
            store(cx, w, sp, l, addr, 4, &nb)?;
        }
        return Ok(());
    }
    let wide = i.has("64") || i.has("S64") || i.has("F64");
    let size = if wide { 8 } else { 4 };
    for l in lanes(a) {
        let addr = address(cx, w, i, s[0], l)?;
        let b = if wide {
            cx.rd64(w, i, s[1], l)?
        } else {
            cx.rd(w, i, s[1], l)? as u64
        };
        let old_b = read(cx, w, sp, l, addr, size)?;
        let old = u64::from_le_bytes(old_b[..8].try_into().expect("8"))
            & if wide { u64::MAX } else { 0xffff_ffff };
        let stored = cas && old == b;
        let new = if cas {
            let c = if wide {
                cx.rd64(w, i, s[2], l)?
            } else {
                cx.rd(w, i, s[2], l)? as u64
            };
            if old == b {
                c
            } else {
                old
            }
        } else {
            let signed = i.has("S32") || i.has("S64");
            let sx = |v: u64| {
                if wide {
                    v as i64
                } else {
                    v as u32 as i32 as i64
                }
            };
            match op {
                Some(AtomOp::Add) if i.has("F32") => {
                    (f32::from_bits(old as u32) + f32::from_bits(b as u32)).to_bits() as u64
                }
                Some(AtomOp::Add) if i.has("F64") => {
                    (f64::from_bits(old) + f64::from_bits(b)).to_bits()
                }
                Some(AtomOp::Min) if i.has("F32") || i.has("F64") => {
                    return Err(cx.unsupported(i, "float min/max atomics are not modelled"))
                }
                Some(AtomOp::Max) if i.has("F32") || i.has("F64") => {
                    return Err(cx.unsupported(i, "float min/max atomics are not modelled"))
                }
                Some(AtomOp::Add) => old.wrapping_add(b),
                Some(AtomOp::Min) if signed => sx(old).min(sx(b)) as u64,
                Some(AtomOp::Max) if signed => sx(old).max(sx(b)) as u64,
                Some(AtomOp::Min) => old.min(b),
                Some(AtomOp::Max) => old.max(b),
                Some(AtomOp::Inc) => {
                    if old >= b {
                        0
                    } else {
                        old + 1
                    }
                }
                Some(AtomOp::Dec) => {
                    if old == 0 || old > b {
                        b
                    } else {
                        old - 1
                    }
                }
                Some(AtomOp::And) => old & b,
                Some(AtomOp::Or) => old | b,
                Some(AtomOp::Xor) => old ^ b,
                Some(AtomOp::Exch) => b,
                None => return Err(cx.unsupported(i, "atomic without an operation")),
            }
        };
        let new = if wide { new } else { new & 0xffff_ffff };
        let mut nb = [0u8; 16];
        nb[..8].copy_from_slice(&new.to_le_bytes());
        store(cx, w, sp, l, addr, size, &nb)?;
        let old = if cast { stored as u64 } else { old };
        if !red {
            let rd = *d.last().expect("an atomic has a destination");
            write(
                w,
                i,
                rd,
                l,
                &[old as u32, (old >> 32) as u32][..size as usize / 4],
            );
            if d.len() > 1 {
                write_pred(w, i, d[0], l, true);
            }
        }
    }
    Ok(())
}
