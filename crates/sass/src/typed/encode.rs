//! Encoding a typed instruction straight through its form's fields.

use crate::form::{set_pieces, MemFmt, Opnd, OpndKind};
use crate::inst::fits_signed;
use crate::{Arch, SassError, Word};

use super::{MachInst, Operand, Swizzle, Val};

impl MachInst {
    /// Encodes the instruction at byte address `addr` (branch targets are encoded relative
    /// to it). Every field is range-checked against its form: register numbers and pair
    /// alignment, modifier tables, immediate widths, flags the operand has no bit for,
    /// scoreboards the operation cannot take. A computed modifier (IMAD's `.MOV`) must have
    /// the value its operands give it.
    ///
    /// In debug builds the word is decoded again, and where the decoder accepts it (which
    /// includes its text assembling back to it) it must give back this instruction.
    pub fn encode(&self, arch: Arch, addr: u64) -> Result<Word, SassError> {
        let w = encode_fields(self, arch, addr, true).map_err(|why| self.error(arch, why))?;
        #[cfg(debug_assertions)]
        if let Ok(back) = crate::decode(arch, w, addr) {
            debug_assert!(
                std::ptr::eq(back.form, self.form)
                    && MachInst::from_word(back.form, w, addr) == *self,
                "{w} encoded from {self:?} decodes as {}",
                back.text()
            );
        }
        Ok(w)
    }

    pub(super) fn error(&self, arch: Arch, why: String) -> SassError {
        SassError::BadInst {
            name: format!("{}{}", self.form.name, self.suffix()),
            arch: arch.to_string(),
            why,
        }
    }
}

/// Encodes `inst`; `check_computed`: whether computed modifiers must already hold the value
/// the word gives them (the builder fills them in afterwards instead).
pub(super) fn encode_fields(
    inst: &MachInst,
    arch: Arch,
    addr: u64,
    check_computed: bool,
) -> Result<Word, String> {
    let form = inst.form;
    if !form.on(arch) {
        return Err(format!(
            "the form (opcode {:#05x}) is not on {arch}",
            form.opcode
        ));
    }
    if inst.mods.len() != form.mods.len() || inst.operands.len() != form.ops.len() {
        return Err(format!(
            "the form has {} modifiers and {} operands, the instruction {} and {}",
            form.mods.len(),
            form.ops.len(),
            inst.mods.len(),
            inst.operands.len()
        ));
    }
    let mut w = Word(form.sample.0 & form.const_mask());
    if inst.guard.pred > 7 {
        return Err(format!("guard predicate {} is not 0-7", inst.guard.pred));
    }
    w.set(12, 3, inst.guard.pred as u64);
    w.set_bit(15, inst.guard.negated);
    for (i, (m, &v)) in form.mods.iter().zip(&inst.mods).enumerate() {
        if m.computed.is_some() {
            continue;
        }
        if !m.values.iter().any(|(x, _)| *x == v) {
            return Err(format!("modifier {i}: value {v} is not in its table"));
        }
        set_pieces(&mut w, &m.pieces, v);
    }
    let mut reuse = 0u8;
    // The bits written by earlier operands: an operand printed twice from one field
    // (`BAR.SYNC R5, R5`) must not be given two values.
    let mut written = 0u128;
    for (i, (o, x)) in form.ops.iter().zip(&inst.operands).enumerate() {
        let before = w;
        operand(o, x, &mut w, &mut reuse, addr).map_err(|e| format!("operand {i}: {e}"))?;
        if (before.0 ^ w.0) & written != 0 {
            return Err(format!(
                "operand {i} shares its bits with an earlier operand and differs from it"
            ));
        }
        written |= o.bits();
    }
    if check_computed {
        for (i, (m, &v)) in form.mods.iter().zip(&inst.mods).enumerate() {
            if m.computed.is_some() && m.value(w) != v {
                return Err(format!(
                    "modifier {i} is {v}, but the operands make it {}",
                    m.value(w)
                ));
            }
        }
    }
    let mut ctl = inst.control;
    if ctl.reuse != 0 {
        return Err("reuse flags belong on the operands, not the control bits".into());
    }
    if !ctl.is_legal() {
        return Err(format!("control {ctl} is illegal (yield needs stall 1-11)"));
    }
    if !form.control_ok(ctl) {
        return Err(format!("{} takes no such scoreboard: {ctl}", form.name));
    }
    if reuse != 0 && !ctl.yield_bit {
        return Err("reuse flags need the yield bit (nvdisasm prints them only then)".into());
    }
    ctl.reuse = reuse;
    ctl.encode(&mut w);
    Ok(w)
}

fn set(w: &mut Word, o: &Opnd, v: u64) -> Result<(), String> {
    if set_pieces(w, &o.pieces, v) {
        Ok(())
    } else {
        Err(format!("{v:#x} does not fit in {} bits", o.width()))
    }
}

fn check_reg(o: &Opnd, v: u64, zero: u64) -> Result<(), String> {
    if o.align > 1 && v != zero && v % o.align as u64 != 0 {
        return Err(format!("register {v} is not a multiple of {}", o.align));
    }
    if !o.rz_ok && v == zero {
        return Err("RZ (URZ) is not allowed here".into());
    }
    Ok(())
}

fn scaled(v: i64, scale: u8) -> Result<i64, String> {
    if v & ((1i64 << scale) - 1) != 0 {
        return Err(format!("{v:#x} is not a multiple of {}", 1 << scale));
    }
    Ok(v >> scale)
}

fn kind_name(k: OpndKind) -> &'static str {
    match k {
        OpndKind::Reg => "register",
        OpndKind::UReg => "uniform register",
        OpndKind::Pred => "predicate",
        OpndKind::UPred => "uniform predicate",
        OpndKind::Bar => "barrier register",
        OpndKind::UImm | OpndKind::SImm => "integer immediate",
        OpndKind::F32 => "32-bit float immediate",
        OpndKind::F64Hi => "64-bit float immediate",
        OpndKind::F16 => "16-bit float immediate",
        OpndKind::Bf16 => "bfloat16 immediate",
        OpndKind::SbList => "scoreboard list",
        OpndKind::CBank => "constant-bank address",
        OpndKind::SReg | OpndKind::SUReg => "special register",
        OpndKind::Target => "branch target",
        OpndKind::Mem(MemFmt::CIndexed) => "indexed constant-bank address",
        OpndKind::Mem(_) => "memory address",
        OpndKind::Fixed(_) => "fixed operand",
        OpndKind::RpcHalf => "return program counter half",
    }
}

/// Whether a value of `v`'s kind can stand in operand `o`.
pub(super) fn compatible(o: &Opnd, v: &Val) -> bool {
    matches!(
        (o.kind, v),
        (OpndKind::Reg, Val::Reg(_))
            | (OpndKind::UReg, Val::UReg(_))
            | (OpndKind::Pred, Val::Pred(_))
            | (OpndKind::UPred, Val::UPred(_))
            | (OpndKind::Bar, Val::Bar(_))
            | (
                OpndKind::UImm | OpndKind::SImm | OpndKind::SbList,
                Val::Imm(_)
            )
            | (OpndKind::F32, Val::F32(_))
            | (OpndKind::F64Hi, Val::F64(_))
            | (OpndKind::F16, Val::F16(_))
            | (OpndKind::Bf16, Val::Bf16(_))
            | (OpndKind::CBank, Val::CBank { .. })
            | (OpndKind::SReg | OpndKind::SUReg, Val::SReg(_))
            | (OpndKind::Target, Val::Target(_))
            | (OpndKind::RpcHalf, Val::Rpc(_))
            | (OpndKind::Mem(MemFmt::CIndexed), Val::CBankIdx { .. })
    ) || matches!((o.kind, v), (OpndKind::Mem(f), Val::Mem(_)) if f != MemFmt::CIndexed)
        || matches!((o.kind, v), (OpndKind::Fixed(a), Val::Fixed(b)) if a == *b)
}

fn flag(w: &mut Word, on: bool, bit: Option<u8>, what: &str) -> Result<(), String> {
    match (on, bit) {
        (false, _) => Ok(()),
        (true, Some(b)) => {
            w.set_bit(b as u32, true);
            Ok(())
        }
        (true, None) => Err(format!("the operand cannot be {what}")),
    }
}

fn operand(o: &Opnd, x: &Operand, w: &mut Word, reuse: &mut u8, addr: u64) -> Result<(), String> {
    if !compatible(o, &x.val) {
        return Err(format!("expected a {}, got {:?}", kind_name(o.kind), x.val));
    }
    flag(w, x.neg, o.neg, "negated")?;
    flag(w, x.not, o.not, "complemented")?;
    flag(w, x.abs, o.abs, "absolute")?;
    match (o.swz, x.swz) {
        (Some(_), Swizzle::F32) if !o.swz_f32 => {
            return Err("the operand cannot be .F32 on this form".into())
        }
        (Some(b), s) => w.set(b as u32, 2, s as u64),
        (None, Swizzle::H1H0) => {}
        (None, s) => return Err(format!("the operand takes no swizzle {}", s.text())),
    }
    if x.reuse {
        *reuse |= 1 << o.reuse.ok_or("the operand has no reuse slot")?;
    }
    match x.val {
        Val::Reg(r) => {
            check_reg(o, r.0 as u64, 255)?;
            set(w, o, r.0 as u64)
        }
        Val::UReg(u) => {
            check_reg(o, u.0 as u64, 63)?;
            if u.0 > 63 {
                return Err(format!("UR{} is not a uniform register", u.0));
            }
            set(w, o, u.0 as u64)
        }
        Val::Pred(super::Pred(p)) | Val::UPred(super::UPred(p)) => {
            if p > 7 {
                return Err(format!("predicate {p} is not 0-7"));
            }
            set(w, o, p as u64)
        }
        Val::Bar(b) => set(w, o, b.0 as u64),
        Val::Imm(v) => {
            let v = scaled(v, o.scale)?;
            let field = if o.kind == OpndKind::SImm {
                fits_signed(v, o.width()).ok_or(format!("{v:#x} is out of range"))?
            } else {
                u64::try_from(v).map_err(|_| format!("{v} is negative"))?
            };
            set(w, o, field)
        }
        Val::F32(bits) => set(w, o, scaled(bits as i64, o.scale)? as u64),
        Val::F64(bits) => {
            if bits & 0xffff_ffff != 0 {
                return Err("the low 32 bits of a 64-bit float immediate must be 0".into());
            }
            set(w, o, bits >> 32)
        }
        Val::F16(bits) => set(w, o, bits as u64),
        Val::Bf16(bits) => set(w, o, bits as u64),
        Val::CBank { bank, offset } => {
            if bank >= 32 {
                return Err(format!("constant bank {bank} is not 0-31"));
            }
            w.set(38, 16, offset as u64);
            w.set(54, 5, bank as u64);
            Ok(())
        }
        Val::SReg(s) => set(w, o, s as u64),
        Val::Rpc(h) => set(w, o, h as u64),
        Val::Target(t) => {
            let off = scaled(t.wrapping_sub(addr as i64 + 16), o.scale)?;
            let f = fits_signed(off, o.width()).ok_or(format!("target {t:#x} is out of reach"))?;
            set(w, o, f)
        }
        Val::CBankIdx { bank, base, offset } => {
            let u = o.ureg.ok_or("no bank field")?;
            if bank >= 32 {
                return Err(format!("constant bank {bank} is not 0-31"));
            }
            w.set(u.0 as u32, u.1 as u32, bank as u64);
            set(w, o, base.0 as u64)?;
            offset_field(o, w, offset)
        }
        Val::Mem(a) => {
            let OpndKind::Mem(fmt) = o.kind else {
                unreachable!("compatible() checked the kind")
            };
            if fmt == MemFmt::UrAddr {
                if !a.base.is_zero() {
                    return Err("a uniform-register address has no base register".into());
                }
            } else {
                check_reg(o, a.base.0 as u64, 255)?;
                set(w, o, a.base.0 as u64)?;
            }
            match (o.ureg, a.ureg) {
                (Some(u), Some(r)) if r.0 <= 63 => w.set(u.0 as u32, u.1 as u32, r.0 as u64),
                (Some(_), _) => return Err("the address needs a uniform register".into()),
                (None, Some(_)) => return Err("the address has no uniform register".into()),
                (None, None) => {}
            }
            match o.desc {
                Some(d) if a.desc.0 <= 63 => w.set(d.0 as u32, d.1 as u32, a.desc.0 as u64),
                Some(_) => return Err(format!("descriptor UR{} is not UR0-URZ", a.desc.0)),
                None if a.desc.0 as u64 != crate::inst::CANONICAL_DESC => {
                    return Err("the address has no unprinted descriptor (only UR4)".into())
                }
                None => {}
            }
            if a.no_desc != (fmt == MemFmt::GlobalPlain) {
                return Err(if a.no_desc {
                    "the address has a memory descriptor (give it without `without_desc`)"
                } else {
                    "the address has no memory descriptor (give it `without_desc`)"
                }
                .into());
            }
            flag(w, a.x4, o.x4, "scaled by 4")?;
            flag(w, a.x8, o.x4.map(|b| b + 1), "scaled by 8")?;
            flag(w, a.wide, o.wide, "a 64-bit base")?;
            offset_field(o, w, a.offset)
        }
        Val::Fixed(_) => Ok(()),
    }
}

fn offset_field(o: &Opnd, w: &mut Word, offset: i64) -> Result<(), String> {
    let width: u32 = o.offset.iter().map(|p| p.1 as u32).sum();
    if width == 0 {
        return if offset == 0 {
            Ok(())
        } else {
            Err("the address takes no offset".into())
        };
    }
    let f = fits_signed(offset, width).ok_or(format!("offset {offset:#x} is out of range"))?;
    set_pieces(w, &o.offset, f);
    Ok(())
}

/// The value a hidden operand has when it is left out (`PT` for a carry-out).
pub(super) fn hidden_value(o: &Opnd) -> Option<Val> {
    let h = o.hide?;
    Some(match o.kind {
        OpndKind::Reg => Val::Reg(super::Reg(h as u8)),
        OpndKind::UReg => Val::UReg(super::UReg(h as u8)),
        OpndKind::Pred => Val::Pred(super::Pred(h as u8)),
        OpndKind::UPred => Val::UPred(super::UPred(h as u8)),
        OpndKind::UImm | OpndKind::SImm => Val::Imm((h << o.scale) as i64),
        _ => return None,
    })
}
