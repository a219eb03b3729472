//! Integer, logic, move, select and predicate operations, on the vector and the uniform
//! datapath alike (a uniform operation reads and writes the per-lane copies of the
//! uniform registers of the lanes that issue it).
//!
//! Semantics are written from the instruction set's definitions (funnel shifts, 3-input
//! lookup tables, carries), not from any other engine of tangle.

use tangle_sass::typed::{BoolOp, IntCmp, Val};
use tangle_sass::Op;

use crate::error::SimError;
use crate::kernel::Inst;
use crate::operands::{write, write_pred, Cx};
use crate::warp::{lanes, Warp};

/// A 3-input lookup table applied bitwise: bit `(a,b,c)` of `lut` gives the result bit.
pub fn lut3(lut: u32, a: u32, b: u32, c: u32) -> u32 {
    let mut r = 0;
    for idx in 0..8 {
        if lut >> idx & 1 == 1 {
            let fa = if idx & 4 != 0 { a } else { !a };
            let fb = if idx & 2 != 0 { b } else { !b };
            let fc = if idx & 1 != 0 { c } else { !c };
            r |= fa & fb & fc;
        }
    }
    r
}

fn combine(op: Option<BoolOp>, x: bool, p: bool) -> bool {
    match op {
        Some(BoolOp::Or) => x || p,
        Some(BoolOp::Xor) => x ^ p,
        _ => x && p,
    }
}

/// A 32-bit source with integer negation (`-x`, two's complement as a 33-bit value so that
/// `-0` carries) or complement (`~x`) applied.
fn int_src(cx: &Cx<'_>, w: &Warp, i: &Inst, k: usize, lane: usize) -> Result<u64, SimError> {
    let raw = cx.rd(w, i, k, lane)? as u64;
    let o = &i.m.operands[k];
    Ok(if o.neg {
        (!raw & 0xffff_ffff) + 1
    } else if o.not {
        !raw & 0xffff_ffff
    } else {
        raw
    })
}

/// Executes an integer, logic or move operation; `Ok(false)` if `i` is none of them.
pub fn exec(cx: &mut Cx<'_>, w: &mut Warp, i: &Inst, a: u32) -> Result<bool, SimError> {
    let s = &i.srcs;
    let d = &i.dsts;
    match i.op() {
        Op::Mov | Op::Umov => {
            for l in lanes(a) {
                let v = cx.rd(w, i, s[0], l)?;
                write(w, i, d[0], l, &[v]);
            }
        }
        Op::Iadd3 | Op::Uiadd3 => {
            let x = i.has("X");
            for l in lanes(a) {
                let va = int_src(cx, w, i, s[0], l)?;
                let vb = int_src(cx, w, i, s[1], l)?;
                let vc = int_src(cx, w, i, s[2], l)?;
                let cin = if x {
                    cx.pred(w, i, s[3], l) as u64 + cx.pred(w, i, s[4], l) as u64
                } else {
                    0
                };
                let ab = va + vb + cin;
                let abc = (ab & 0xffff_ffff) + vc;
                write(w, i, d[0], l, &[abc as u32]);
                write_pred(w, i, d[1], l, ab >> 32 != 0);
                write_pred(w, i, d[2], l, abc >> 32 != 0);
            }
        }
        Op::Viadd => {
            for l in lanes(a) {
                let v = (int_src(cx, w, i, s[0], l)? + int_src(cx, w, i, s[1], l)?) as u32;
                write(w, i, d[0], l, &[v]);
            }
        }
        Op::Lop3 | Op::Ulop3 => {
            let pand = i.has("PAND");
            for l in lanes(a) {
                let r = lut3(
                    cx.rd(w, i, s[3], l)?,
                    cx.rd(w, i, s[0], l)?,
                    cx.rd(w, i, s[1], l)?,
                    cx.rd(w, i, s[2], l)?,
                );
                let pin = cx.pred(w, i, s[4], l);
                write(w, i, d[1], l, &[r]);
                let nz = r != 0;
                write_pred(w, i, d[0], l, if pand { nz && pin } else { nz || pin });
            }
        }
        Op::Plop3 | Op::Uplop3 => {
            for l in lanes(a) {
                let pa = cx.pred(w, i, s[0], l) as u32;
                let pb = cx.pred(w, i, s[1], l) as u32;
                let pc = cx.pred(w, i, s[2], l) as u32;
                let l1 = cx.rd(w, i, s[3], l)?;
                let l2 = cx.rd(w, i, s[4], l)?;
                write_pred(w, i, d[0], l, lut3(l1, pa, pb, pc) & 1 == 1);
                write_pred(w, i, d[1], l, lut3(l2, pa, pb, pc) & 1 == 1);
            }
        }
        Op::Isetp | Op::Uisetp => isetp(cx, w, i, a)?,
        Op::Imad | Op::Uimad => imad(cx, w, i, a)?,
        Op::Lea | Op::Ulea => lea(cx, w, i, a)?,
        Op::Shf | Op::Ushf => shf(cx, w, i, a)?,
        Op::Sel | Op::Usel | Op::Fsel => {
            for l in lanes(a) {
                let p = cx.pred(w, i, s[2], l);
                let v = cx.rd(w, i, if p { s[0] } else { s[1] }, l)?;
                write(w, i, d[0], l, &[v]);
            }
        }
        Op::Sgxt => {
            // SGXT[.W][.U32] Rd, A, B (`szext`): the low B bits of A, sign- or zero-extended;
            // B wraps modulo 32 with .W and clamps to 32 otherwise; B = 0 gives 0.
            let unsigned = i.has("U32");
            for l in lanes(a) {
                let x = cx.rd(w, i, s[0], l)?;
                let b = cx.rd(w, i, s[1], l)?;
                let n = if i.has("W") { b & 31 } else { b.min(32) };
                let r = match n {
                    0 => 0,
                    32 => x,
                    _ if unsigned => x & ((1u32 << n) - 1),
                    _ => (((x << (32 - n)) as i32) >> (32 - n)) as u32,
                };
                write(w, i, d[0], l, &[r]);
            }
        }
        Op::Viaddmnmx => {
            // min (Pp true) or max of A + B (negation applied, 32-bit wrap) and C.
            let unsigned = i.has("U32");
            for l in lanes(a) {
                let x = (int_src(cx, w, i, s[0], l)? + int_src(cx, w, i, s[1], l)?) as u32;
                let y = cx.rd(w, i, s[2], l)?;
                let min = cx.pred(w, i, s[3], l);
                let r = match (unsigned, min) {
                    (true, true) => x.min(y),
                    (true, false) => x.max(y),
                    (false, true) => (x as i32).min(y as i32) as u32,
                    (false, false) => (x as i32).max(y as i32) as u32,
                };
                write(w, i, d[0], l, &[r]);
            }
        }
        Op::Imnmx | Op::Vimnmx => {
            let unsigned = i.has("U32");
            for l in lanes(a) {
                let x = cx.rd(w, i, s[0], l)?;
                let y = cx.rd(w, i, s[1], l)?;
                let min = cx.pred(w, i, s[2], l);
                let (lo, hi) = if unsigned {
                    (x.min(y), x.max(y))
                } else {
                    (
                        (x as i32).min(y as i32) as u32,
                        (x as i32).max(y as i32) as u32,
                    )
                };
                write(w, i, d[0], l, &[if min { lo } else { hi }]);
            }
        }
        Op::Popc | Op::Upopc => unary(cx, w, i, a, |x| x.count_ones())?,
        Op::Brev | Op::Ubrev => unary(cx, w, i, a, u32::reverse_bits)?,
        Op::Iabs => unary(cx, w, i, a, |x| (x as i32).unsigned_abs())?,
        Op::Flo | Op::Uflo => {
            let signed = !i.has("U32");
            let sh = i.has("SH");
            for l in lanes(a) {
                let mut x = cx.rd(w, i, *s.last().unwrap(), l)?;
                if signed && (x as i32) < 0 {
                    x = !x;
                }
                let r = if x == 0 {
                    u32::MAX
                } else if sh {
                    x.leading_zeros()
                } else {
                    31 - x.leading_zeros()
                };
                write(w, i, d[0], l, &[r]);
                if d.len() > 1 {
                    write_pred(w, i, d[1], l, false);
                }
            }
        }
        Op::Prmt | Op::Uprmt => {
            for l in lanes(a) {
                let x = cx.rd(w, i, s[0], l)?;
                let sel = cx.rd(w, i, s[1], l)?;
                let y = cx.rd(w, i, s[2], l)?;
                let bytes = ((y as u64) << 32 | x as u64).to_le_bytes();
                let mut r = 0u32;
                for n in 0..4 {
                    let q = sel >> (4 * n) & 0xf;
                    let mut byte = bytes[(q & 7) as usize] as u32;
                    if q & 8 != 0 {
                        byte = if byte & 0x80 != 0 { 0xff } else { 0 };
                    }
                    r |= byte << (8 * n);
                }
                write(w, i, d[0], l, &[r]);
            }
        }
        Op::R2ur => {
            for l in lanes(a) {
                let v = cx.rd(w, i, s[0], l)?;
                write(w, i, d[1], l, &[v]);
                write_pred(w, i, d[0], l, true);
            }
        }
        Op::P2r => {
            let byte = 8 * byte_select(i);
            for l in lanes(a) {
                let base = cx.rd(w, i, s[1], l)?;
                let mask = cx.rd(w, i, s[2], l)? & 0xff;
                let mut pr = 0u32;
                for n in 0..7 {
                    pr |= (w.p[n] >> l & 1) << n;
                }
                let v = (base & !(mask << byte)) | ((pr & mask) << byte);
                write(w, i, d[0], l, &[v]);
            }
        }
        Op::R2p => {
            let byte = 8 * byte_select(i);
            for l in lanes(a) {
                let v = cx.rd(w, i, s[1], l)?;
                let mask = cx.rd(w, i, s[2], l)?;
                for n in 0..7 {
                    if mask >> n & 1 == 1 {
                        let bit = v >> (byte + n) & 1;
                        w.p[n as usize] = (w.p[n as usize] & !(1 << l)) | (bit << l);
                    }
                }
            }
        }
        Op::Ldc | Op::Uldc => {
            let (size, signed) = mem_size(i);
            for l in lanes(a) {
                let (bank, offset) = match i.m.operands[s[0]].val {
                    Val::CBankIdx { bank, base, offset } => {
                        (bank, offset + crate::operands::reg(w, base.0, l) as i64)
                    }
                    Val::CBank { bank, offset } => (bank, offset as i64),
                    _ => return Err(cx.unsupported(i, "constant operand expected")),
                };
                let v = cx.cbank(l, bank, offset, size)?;
                let v = extend(v, size, signed);
                write(
                    w,
                    i,
                    d[0],
                    l,
                    &[v as u32, (v >> 32) as u32][..(size as usize).div_ceil(4).max(1)],
                );
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// P2R's / R2P's byte select (`.B1`..`.B3`), 0 for none.
fn byte_select(i: &Inst) -> u32 {
    ["B1", "B2", "B3"]
        .iter()
        .position(|b| i.has(b))
        .map_or(0, |p| p as u32 + 1)
}

/// The access size in bytes of a load's `.U8`..`.128` modifier and whether it sign-extends.
pub fn mem_size(i: &Inst) -> (u32, bool) {
    if i.has("U8") {
        (1, false)
    } else if i.has("S8") {
        (1, true)
    } else if i.has("U16") {
        (2, false)
    } else if i.has("S16") {
        (2, true)
    } else if i.has("64") {
        (8, false)
    } else if i.has("128") {
        (16, false)
    } else {
        (4, false)
    }
}

/// Zero- or sign-extends the low `size` bytes of `v` to 64 bits (sizes of 4 and more are
/// returned as they are).
pub fn extend(v: u64, size: u32, signed: bool) -> u64 {
    match (size, signed) {
        (1, true) => v as u8 as i8 as i64 as u64 & 0xffff_ffff,
        (2, true) => v as u16 as i16 as i64 as u64 & 0xffff_ffff,
        (1, false) => v & 0xff,
        (2, false) => v & 0xffff,
        _ => v,
    }
}

fn unary(
    cx: &Cx<'_>,
    w: &mut Warp,
    i: &Inst,
    a: u32,
    f: impl Fn(u32) -> u32,
) -> Result<(), SimError> {
    let k = *i.srcs.last().unwrap();
    for l in lanes(a) {
        let v = f(cx.rd(w, i, k, l)?);
        write(w, i, i.dsts[0], l, &[v]);
    }
    Ok(())
}

fn isetp(cx: &Cx<'_>, w: &mut Warp, i: &Inst, a: u32) -> Result<(), SimError> {
    let (s, d) = (&i.srcs, &i.dsts);
    let cmp = i.m.modifier::<IntCmp>();
    let unsigned = i.has("U32");
    let ex = i.has("EX");
    let bop = i.m.modifier::<BoolOp>();
    for l in lanes(a) {
        let x = cx.rd(w, i, s[0], l)?;
        let y = cx.rd(w, i, s[1], l)?;
        let (lt, eq) = if unsigned {
            (x < y, x == y)
        } else {
            ((x as i32) < (y as i32), x == y)
        };
        let gt = !lt && !eq;
        let low = if ex { cx.pred(w, i, s[3], l) } else { false };
        let r = match cmp {
            Some(IntCmp::F) => false,
            Some(IntCmp::T) => true,
            Some(IntCmp::Eq) => eq && (!ex || low),
            Some(IntCmp::Ne) => !eq || (ex && low),
            Some(IntCmp::Lt) => lt || (ex && eq && low),
            Some(IntCmp::Le) => lt || (eq && (!ex || low)),
            Some(IntCmp::Gt) => gt || (ex && eq && low),
            Some(IntCmp::Ge) => gt || (eq && (!ex || low)),
            None => return Err(cx.unsupported(i, "no comparison")),
        };
        let pc = cx.pred(w, i, s[2], l);
        write_pred(w, i, d[0], l, combine(bop, r, pc));
        write_pred(w, i, d[1], l, combine(bop, !r, pc));
    }
    Ok(())
}

fn imad(cx: &Cx<'_>, w: &mut Warp, i: &Inst, a: u32) -> Result<(), SimError> {
    let (s, d) = (&i.srcs, &i.dsts);
    let signed = !i.has("U32");
    let x = i.has("X");
    let wide = i.has("WIDE");
    let hi = i.has("HI");
    for l in lanes(a) {
        let va = cx.rd(w, i, s[0], l)?;
        let vb = cx.rd(w, i, s[1], l)?;
        let cin = if x { cx.pred(w, i, s[3], l) as u64 } else { 0 };
        let prod: u64 = if signed {
            (va as i32 as i64).wrapping_mul(vb as i32 as i64) as u64
        } else {
            va as u64 * vb as u64
        };
        let co = &i.m.operands[s[2]];
        if wide {
            let c = cx.rd64(w, i, s[2], l)?;
            let c = if co.neg {
                c.wrapping_neg()
            } else if co.not {
                !c
            } else {
                c
            };
            let (r1, o1) = prod.overflowing_add(c);
            let (r, o2) = r1.overflowing_add(cin);
            write(w, i, d[0], l, &[r as u32, (r >> 32) as u32]);
            write_pred(w, i, d[1], l, o1 || o2);
        } else if hi {
            // IMAD.HI adds the register pair C:C+1 to the 64-bit product and keeps the
            // high word (the Newton step of ptxas's division: q + umulhi(q, e) with
            // C = {RZ-like 0, q}).
            let c = cx.rd64(w, i, s[2], l)?;
            let c = if co.neg {
                c.wrapping_neg()
            } else if co.not {
                !c
            } else {
                c
            };
            let p128 = if signed {
                prod as i64 as i128
            } else {
                prod as i128
            };
            let c128 = if signed { c as i64 as i128 } else { c as i128 };
            let sum = p128 + c128 + cin as i128;
            write(w, i, d[0], l, &[(sum >> 32) as u32]);
            if d.len() > 1 {
                write_pred(w, i, d[1], l, (sum >> 64) & 1 != 0);
            }
        } else {
            let c = int_src(cx, w, i, s[2], l)?;
            let sum = (prod & 0xffff_ffff) + c + cin;
            write(w, i, d[0], l, &[sum as u32]);
            if d.len() > 1 {
                write_pred(w, i, d[1], l, sum >> 32 != 0);
            }
        }
    }
    Ok(())
}

fn lea(cx: &Cx<'_>, w: &mut Warp, i: &Inst, a: u32) -> Result<(), SimError> {
    let (s, d) = (&i.srcs, &i.dsts);
    let hi = i.has("HI");
    let sx = i.has("SX32");
    let x = i.has("X");
    for l in lanes(a) {
        let va = int_src(cx, w, i, s[0], l)? as u32;
        let vb = int_src(cx, w, i, s[1], l)?;
        let (shift_k, rest) = if hi && !sx { (s[3], 4) } else { (s[2], 3) };
        let sh = cx.rd(w, i, shift_k, l)? & 31;
        let cin = if x {
            cx.pred(w, i, s[rest], l) as u64
        } else {
            0
        };
        let shifted = if hi {
            let c = if sx {
                if (va as i32) < 0 {
                    u32::MAX
                } else {
                    0
                }
            } else {
                cx.rd(w, i, s[2], l)?
            };
            ((((c as u64) << 32 | va as u64) << sh) >> 32) as u32
        } else {
            va << sh
        };
        let sum = shifted as u64 + vb + cin;
        write(w, i, d[0], l, &[sum as u32]);
        write_pred(w, i, d[1], l, sum >> 32 != 0);
    }
    Ok(())
}

fn shf(cx: &Cx<'_>, w: &mut Warp, i: &Inst, a: u32) -> Result<(), SimError> {
    let (s, d) = (&i.srcs, &i.dsts);
    let right = i.has("R");
    let wrap = i.has("W");
    let wide = i.has("S64") || i.has("U64");
    let signed = i.has("S64") || i.has("S32");
    let high = i.has("HI");
    for l in lanes(a) {
        let lo = cx.rd(w, i, s[0], l)?;
        let n = cx.rd(w, i, s[1], l)?;
        let hi_word = cx.rd(w, i, s[2], l)?;
        let max = if wide { 64 } else { 32 };
        let n = if wrap { n & (max - 1) } else { n.min(max) };
        let v = (hi_word as u64) << 32 | lo as u64;
        let r = if right {
            if signed {
                ((v as i64) >> n.min(63)) as u64
            } else if n >= 64 {
                0
            } else {
                v >> n
            }
        } else if n >= 64 {
            0
        } else {
            v << n
        };
        write(
            w,
            i,
            d[0],
            l,
            &[if high { (r >> 32) as u32 } else { r as u32 }],
        );
    }
    Ok(())
}
