//! Assembling: nvdisasm's instruction text back to a word, operand by operand.

use super::*;

fn parse_num(t: &str) -> Option<i64> {
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let v = i64::try_from(u64::from_str_radix(t.strip_prefix("0x")?, 16).ok()?).ok()?;
    Some(if neg { -v } else { v })
}

fn parse_reg(t: &str) -> Option<u64> {
    if t == "RZ" {
        return Some(255);
    }
    let n: u64 = t.strip_prefix('R')?.parse().ok()?;
    (n < 255 && !t[1..].starts_with('0') || t == "R0").then_some(n)
}

fn parse_ureg(t: &str) -> Option<u64> {
    if t == "URZ" {
        return Some(63);
    }
    let n: u64 = t.strip_prefix("UR")?.parse().ok()?;
    (n < 63).then_some(n)
}

fn parse_pred(t: &str, u: &str) -> Option<u64> {
    let t = t.strip_prefix(u)?;
    if t == "PT" {
        return Some(7);
    }
    let n: u64 = t.strip_prefix('P')?.parse().ok()?;
    (n < 7).then_some(n)
}

pub(crate) fn fits_signed(v: i64, width: u32) -> Option<u64> {
    let lo = -(1i128 << (width - 1));
    let hi = (1i128 << (width - 1)) - 1;
    ((v as i128) >= lo && (v as i128) <= hi).then_some(
        (v as u64)
            & if width >= 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            },
    )
}

pub(super) fn parse_opnd(op: &Opnd, t: &str, w: &mut Word, reuse: &mut u8, addr: u64) -> bool {
    parse_opnd_inner(op, t, w, reuse, addr).is_some()
}

fn parse_opnd_inner(op: &Opnd, t: &str, w: &mut Word, reuse: &mut u8, addr: u64) -> Option<()> {
    let mut t = t;
    let is_pred = matches!(op.kind, OpndKind::Pred | OpndKind::UPred);
    let mut flag = |b: Option<u8>, c: char, t: &mut &str| -> Option<()> {
        if let Some(r) = t.strip_prefix(c) {
            w.set_bit(b? as u32, true);
            *t = r;
        }
        Some(())
    };
    // Immediates carry their own sign.
    let numeric = matches!(
        op.kind,
        OpndKind::UImm
            | OpndKind::SImm
            | OpndKind::F32
            | OpndKind::F64Hi
            | OpndKind::F16
            | OpndKind::Bf16
            | OpndKind::Target
    );
    if !numeric || op.neg.is_some() {
        flag(op.neg, '-', &mut t)?;
    }
    flag(op.not, if is_pred { '!' } else { '~' }, &mut t)?;
    // A half-precision swizzle is the last text (`|R4|.reuse.H0_H0`), or the last inside
    // a constant's bars (`|c[0x2] [0x0].H0_H0|`, stripped below); none is field 0.
    let swz_of = |t: &str| crate::typed::Swizzle::split(t, op.swz_f32);
    let mut swz_seen = false;
    if let (Some(b), Some((len, v))) = (op.swz, swz_of(t)) {
        w.set(b as u32, 2, v);
        t = &t[..len];
        swz_seen = true;
    }
    // Text after the register follows the reuse flag (`R8.reuse.B1`) and stands inside
    // the bars of an absolute value (`-|R0.H1|`, MUFU's half select).
    let inside = !op.suffix.is_empty() && op.abs.is_some() && t.ends_with('|');
    if !inside {
        t = t.strip_suffix(op.suffix)?;
    }
    if let Some(r) = t.strip_suffix(".reuse") {
        *reuse |= 1 << op.reuse?;
        t = r;
    }
    if let Some(b) = op.abs {
        if let Some(r) = t.strip_prefix('|').and_then(|r| r.strip_suffix('|')) {
            w.set_bit(b as u32, true);
            t = r;
        }
    }
    if inside {
        t = t.strip_suffix(op.suffix)?;
        if let Some(r) = t.strip_suffix(".reuse") {
            *reuse |= 1 << op.reuse?;
            t = r;
        }
    }
    if let (Some(b), false, Some((len, v))) = (op.swz, swz_seen, swz_of(t)) {
        w.set(b as u32, 2, v);
        t = &t[..len];
    }
    let width = op.width();
    let v: u64 = match op.kind {
        OpndKind::Reg => parse_reg(t)?,
        OpndKind::UReg => parse_ureg(t)?,
        OpndKind::Pred => parse_pred(t, "")?,
        OpndKind::UPred => parse_pred(t, "U")?,
        OpndKind::Bar => {
            let n: u64 = t.strip_prefix('B')?.parse().ok()?;
            (n < 16).then_some(n)?
        }
        OpndKind::UImm => {
            let n = parse_num(t)?;
            if n < 0 || n & ((1 << op.scale) - 1) != 0 {
                return None;
            }
            (n as u64) >> op.scale
        }
        OpndKind::SImm => {
            let n = parse_num(t)?;
            if n & ((1 << op.scale) - 1) != 0 {
                return None;
            }
            fits_signed(n >> op.scale, width)?
        }
        OpndKind::Target => {
            let n = parse_num(t)?;
            let off = n.wrapping_sub(addr as i64 + 16);
            if off & ((1 << op.scale) - 1) != 0 {
                return None;
            }
            fits_signed(off >> op.scale, width)?
        }
        OpndKind::F32 => {
            let bits = match special_bits(t, 32, 23) {
                Some(b) => b as u32,
                None => t.parse::<f32>().ok()?.to_bits(),
            };
            // Only text that prints back identically is accepted: no silent rounding.
            if format_f32(bits)?.trim() != t.trim() {
                return None;
            }
            if bits as u64 & ((1 << op.scale) - 1) != 0 {
                return None;
            }
            (bits as u64) >> op.scale
        }
        OpndKind::F16 => parse_f16(t.trim())? as u64,
        OpndKind::Bf16 => parse_bf16(t.trim())? as u64,
        OpndKind::SbList => {
            let inner = t.trim().strip_prefix('{')?.strip_suffix('}')?;
            let mut mask = 0u64;
            for n in inner.split(',') {
                let n: u32 = n.trim().parse().ok()?;
                mask |= 1u64.checked_shl(n)?;
            }
            // Only the order nvdisasm prints (highest first, no repeats) is accepted.
            (format_sb_list(mask) == t.trim()).then_some(mask)?
        }
        OpndKind::F64Hi => {
            // A special value's canonical word, cut to the high word the field holds
            // (`+QNAN` is 0x7fffffff00000000: every payload bit the field has, set).
            let bits = match special_bits(t, 64, 52) {
                Some(b) => b & !0xffff_ffff,
                None => t.trim().parse::<f64>().ok()?.to_bits(),
            };
            if bits & 0xffff_ffff != 0 || format_f64(bits)?.trim() != t.trim() {
                return None;
            }
            bits >> 32
        }
        OpndKind::CBank => {
            // `c[0x3] [0x0]` in the half-precision forms; the printed check refuses the
            // other spelling.
            let joined = t.replacen("] [", "][", 1);
            let (bank, off) = parse_cbank(&joined)?;
            w.set(38, 16, fits_signed(parse_num(off)?, 16)?);
            w.set(54, 5, bank);
            return Some(());
        }
        // The name of any SM: the assembler's decode check refuses a name the SM does not
        // print (`SR_CgaCtaId` before SM90).
        OpndKind::SReg | OpndKind::SUReg => {
            crate::sregs::sreg_number(t, Arch::Sm90).or_else(|| {
                Arch::ALL
                    .iter()
                    .find_map(|&a| crate::sregs::sreg_number(t, a))
            })?
        }
        OpndKind::Mem(fmt) => return parse_mem(fmt, op, t, w),
        OpndKind::Fixed(text) => return (t == text).then_some(()),
        OpndKind::RpcHalf => crate::typed::RpcHalf::from_name(t.trim())? as u64,
    };
    set_pieces(w, &op.pieces, v).then_some(())
}

fn parse_cbank(t: &str) -> Option<(u64, &str)> {
    let r = t.strip_prefix("c[")?;
    let (bank, r) = r.split_once("][")?;
    let inner = r.strip_suffix(']')?;
    let bank = parse_num(bank)?;
    if !(0..32).contains(&bank) {
        return None;
    }
    Some((bank as u64, inner))
}

fn parse_mem(fmt: MemFmt, op: &Opnd, t: &str, w: &mut Word) -> Option<()> {
    let off_width: u32 = op.offset.iter().map(|p| p.1 as u32).sum();
    let inner: &str = match fmt {
        MemFmt::CIndexed => {
            let (bank, i) = parse_cbank(t)?;
            w.set(54, 5, bank);
            i
        }
        MemFmt::GlobalDesc => {
            let r = t.strip_prefix("desc[")?;
            let (u, r) = r.split_once(']')?;
            let ur = op.ureg?;
            w.set(ur.0 as u32, ur.1 as u32, parse_ureg(u)?);
            r.strip_prefix('[')?.strip_suffix(']')?
        }
        _ => t.strip_prefix('[')?.strip_suffix(']')?,
    };
    let mut ra = 255u64;
    let mut ur = 63u64;
    let mut off = 0i64;
    let mut seen_off = false;
    for part in inner.split('+') {
        if let Some(n) = parse_num(part) {
            off = n;
            seen_off = true;
        } else if let Some(u) = parse_ureg(part) {
            if !matches!(fmt, MemFmt::Shared | MemFmt::UrAddr | MemFmt::GlobalUr) {
                return None;
            }
            ur = u;
        } else {
            let wide = matches!(fmt, MemFmt::Global64 | MemFmt::GlobalDesc);
            let mut r = if wide {
                part.strip_suffix(".64")?
            } else if fmt == MemFmt::GlobalUr {
                match (part.strip_suffix(".64"), op.wide) {
                    (Some(x), Some(b)) => {
                        w.set_bit(b as u32, true);
                        x
                    }
                    _ => part.strip_suffix(".U32")?,
                }
            } else {
                part
            };
            if let Some(b) = op.x4 {
                for (v, sfx) in [(1, ".X4"), (2, ".X8"), (3, ".X16")] {
                    if let Some(x) = r.strip_suffix(sfx) {
                        w.set(b as u32, 2, v);
                        r = x;
                        break;
                    }
                }
            }
            ra = parse_reg(r)?;
        }
    }
    let _ = seen_off;
    if fmt == MemFmt::UrAddr {
        if ra != 255 {
            return None;
        }
        let u = op.ureg?;
        w.set(u.0 as u32, u.1 as u32, ur);
    } else {
        set_pieces(w, &op.pieces, ra).then_some(())?;
    }
    if let (MemFmt::GlobalUr, 255, Some(b)) = (fmt, ra, op.wide) {
        w.set_bit(b as u32, true);
    }
    if let Some(d) = op.desc {
        // The descriptor register nvdisasm does not print: ptxas's UR4.
        w.set(d.0 as u32, d.1 as u32, CANONICAL_DESC);
    }
    if fmt == MemFmt::Shared || fmt == MemFmt::GlobalUr {
        if let Some(u) = op.ureg {
            w.set(u.0 as u32, u.1 as u32, ur);
        } else if ur != 63 {
            return None;
        }
    }
    if off != 0 || !op.offset.is_empty() {
        set_pieces(w, &op.offset, fits_signed(off, off_width.max(1))?).then_some(())?;
    }
    Some(())
}

/// Encodes text already split by the parser; see [`crate::assemble_line`].
pub fn encode(arch: Arch, text: &str, control: Control, addr: u64) -> Result<Word, SassError> {
    crate::text::encode_text(arch, text, control, addr, 1)
}
