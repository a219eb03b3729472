//! Typed instructions: an instruction as data (operation, guard, modifiers, operands with
//! their roles, control bits), decoded from a word field by field and encoded back the same
//! way, with no text in between.
//!
//! ```
//! use tangle_sass::typed::{r, b, MachInst, RZ};
//! use tangle_sass::{Arch, Op};
//! // IADD3 R1, R2, R3, RZ (the carry-outs, PT, are left out as nvdisasm leaves them out).
//! let add = MachInst::build(Op::Iadd3).o(r(1)).o(r(2)).o(r(3)).o(RZ).finish(Arch::Sm86).unwrap();
//! assert_eq!(add.text(Arch::Sm86, 0).unwrap(), "IADD3 R1, R2, R3, RZ");
//! // BSSY B0, 0x80: the barrier is written, nothing is read.
//! let bssy = MachInst::build(Op::Bssy).o(b(0)).target(0x80).finish(Arch::Sm90).unwrap();
//! assert_eq!(bssy.encode(Arch::Sm90, 0x10).unwrap().get(0, 12), 0x945);
//! ```

mod build;
mod encode;
mod modifiers;
mod operand;

use crate::form::{get_pieces, Form, MemFmt, OpndKind};
use crate::inst::{mem_offset, sext, target_addr};
use crate::op::Op;
use crate::roles::{width_of, Role};
use crate::{Arch, Control, SassError, Word};

pub use build::Builder;
pub use modifiers::{
    AtomOp, BoolOp, FloatCmp, IntCmp, MemSize, Modifier, MufuOp, Rounding, ShflMode, VoteMode,
};
pub use operand::{
    b, p, r, up, ur, Addr, Barrier, Operand, Pred, Reg, RpcHalf, Swizzle, UPred, UReg, Val,
};
pub use operand::{PT, RZ, UPT, URZ};

/// The guard predicate of an instruction: `@P0`, `@!P0` (`@UP0` on the uniform datapath).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Guard {
    /// Predicate number 0-6, 7 for `PT` (no guard).
    pub pred: u8,
    /// `@!`.
    pub negated: bool,
}

impl Guard {
    /// No guard (`@PT`).
    pub const ALWAYS: Guard = Guard {
        pred: 7,
        negated: false,
    };
    /// `@Pn`.
    pub fn p(p: Pred) -> Guard {
        Guard {
            pred: p.0,
            negated: false,
        }
    }
    /// `@UPn`.
    pub fn up(p: UPred) -> Guard {
        Guard {
            pred: p.0,
            negated: false,
        }
    }
    /// The guard negated.
    pub fn negate(mut self) -> Guard {
        self.negated = !self.negated;
        self
    }
}

/// One register-like location an instruction reads or writes, for dataflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Loc {
    /// `Rn` (never RZ).
    R(u8),
    /// `URn` (never URZ).
    Ur(u8),
    /// `Pn` (never PT).
    P(u8),
    /// `UPn` (never UPT).
    Up(u8),
    /// `Bn`.
    B(u8),
    /// One half of the return program counter (RPCMOV's implicit register).
    Rpc(RpcHalf),
}

/// A machine instruction as data. `operands` has one entry per operand of the form, the
/// ones nvdisasm hides included (IADD3's PT carry-outs); `roles` gives each one's role.
/// Reuse flags live on the operands, so `control.reuse` is always 0.
#[derive(Clone, Debug)]
pub struct MachInst {
    /// The form (operand layout and encoding) the instruction uses.
    pub form: &'static Form,
    /// The guard predicate.
    pub guard: Guard,
    /// One value per modifier of the form (the field's value; a computed modifier's value
    /// is derived from the operands and only checked).
    pub mods: Vec<u64>,
    /// The operands, in the form's order.
    pub operands: Vec<Operand>,
    /// Stall, yield, scoreboards and wait mask (reuse is on the operands).
    pub control: Control,
}

impl PartialEq for MachInst {
    /// Equal forms (the same table entry) and equal fields.
    fn eq(&self, other: &MachInst) -> bool {
        std::ptr::eq(self.form, other.form)
            && self.guard == other.guard
            && self.mods == other.mods
            && self.operands == other.operands
            && self.control == other.control
    }
}

/// Decodes `w` at `addr` into a typed instruction: [`crate::decode`] (which checks that the
/// word is explained by a form and prints unambiguously) and then the fields of that form.
pub fn decode_typed(arch: Arch, w: Word, addr: u64) -> Result<MachInst, SassError> {
    let inst = crate::decode(arch, w, addr)?;
    Ok(MachInst::from_word(inst.form, w, addr))
}

/// The bits of a global memory access that the forms keep constant but ptxas varies, and
/// that change no register an instruction reads or writes: the memory order and scope
/// (bits 77-80, `.STRONG.SYS` of `volatile` accesses) where a form lists only some of
/// them. (The SM80-SM89 descriptor register, once relaxed here too, is a field of the
/// forms now: [`crate::typed::Addr::desc`].) The simulator applies the same rule to its
/// own decoding (`docs/sim.md`).
pub fn relaxed_memory_bits(opcode: u64) -> u128 {
    match opcode {
        0x381 | 0x981 | 0x386 | 0x986 | 0x98e | 0x9a8 | 0x3a9 => 0xf << 77,
        _ => 0,
    }
}

/// [`decode_typed`], and for a global memory access it refuses whose only difference from
/// a known form lies in [`relaxed_memory_bits`], the instruction of that form with those
/// bits taken from the form (so its registers and effects are right, its descriptor and
/// order are the form's). For readers that need an instruction's registers, not its text:
/// the cubin writer's register count.
pub fn decode_typed_relaxed(arch: Arch, w: Word, addr: u64) -> Result<MachInst, SassError> {
    let err = match decode_typed(arch, w, addr) {
        Ok(m) => return Ok(m),
        Err(e) => e,
    };
    let opcode = w.get(0, 12);
    let relaxed = relaxed_memory_bits(opcode);
    if relaxed == 0 {
        return Err(err);
    }
    crate::forms::all()
        .iter()
        .filter(|f| f.opcode as u64 == opcode && f.arches & arch.bit() != 0)
        .find_map(|f| {
            let patch = relaxed & f.const_mask();
            decode_typed(arch, Word((w.0 & !patch) | (f.sample.0 & patch)), addr).ok()
        })
        .ok_or(err)
}

impl MachInst {
    /// Reads the fields of `form` from `w` (which must match the form; see
    /// [`decode_typed`]). `addr` turns branch offsets into addresses.
    pub fn from_word(form: &'static Form, w: Word, addr: u64) -> MachInst {
        let ctl = Control::decode(w);
        let mods = form.mods.iter().map(|m| m.value(w)).collect();
        let operands = form
            .ops
            .iter()
            .map(|o| {
                let v = get_pieces(w, &o.pieces);
                let val = match o.kind {
                    OpndKind::Reg => Val::Reg(Reg(v as u8)),
                    OpndKind::UReg => Val::UReg(UReg(v as u8)),
                    OpndKind::Pred => Val::Pred(Pred(v as u8)),
                    OpndKind::UPred => Val::UPred(UPred(v as u8)),
                    OpndKind::Bar => Val::Bar(Barrier(v as u8)),
                    OpndKind::UImm => Val::Imm((v << o.scale) as i64),
                    OpndKind::SImm => Val::Imm(sext(v, o.width()) << o.scale),
                    OpndKind::F32 => Val::F32((v << o.scale) as u32),
                    OpndKind::F64Hi => Val::F64(v << 32),
                    OpndKind::F16 => Val::F16(v as u16),
                    OpndKind::Bf16 => Val::Bf16(v as u16),
                    OpndKind::SbList => Val::Imm(v as i64),
                    OpndKind::CBank => Val::CBank {
                        bank: w.get(54, 5) as u8,
                        offset: w.get(38, 16) as u16,
                    },
                    OpndKind::SReg | OpndKind::SUReg => Val::SReg(v as u8),
                    OpndKind::Target => Val::Target(target_addr(o, w, addr)),
                    OpndKind::Mem(MemFmt::CIndexed) => Val::CBankIdx {
                        bank: o.ureg.map_or(0, |u| w.get(u.0 as u32, u.1 as u32)) as u8,
                        base: Reg(v as u8),
                        offset: mem_offset(o, w),
                    },
                    OpndKind::Mem(fmt) => Val::Mem(Addr {
                        base: if fmt == MemFmt::UrAddr {
                            RZ
                        } else {
                            Reg(v as u8)
                        },
                        ureg: o.ureg.map(|u| UReg(w.get(u.0 as u32, u.1 as u32) as u8)),
                        desc: UReg(o.desc.map_or(crate::inst::CANONICAL_DESC, |d| {
                            w.get(d.0 as u32, d.1 as u32)
                        }) as u8),
                        no_desc: fmt == MemFmt::GlobalPlain,
                        offset: mem_offset(o, w),
                        x4: o.x4.is_some_and(|b| w.bit(b as u32)),
                        x8: o.x4.is_some_and(|b| w.bit(b as u32 + 1)),
                        wide: o.wide.is_some_and(|b| w.bit(b as u32)),
                    }),
                    OpndKind::Fixed(t) => Val::Fixed(t),
                    OpndKind::RpcHalf => Val::Rpc(RpcHalf::from_field(v)),
                };
                Operand {
                    val,
                    neg: o.neg.is_some_and(|b| w.bit(b as u32)),
                    not: o.not.is_some_and(|b| w.bit(b as u32)),
                    abs: o.abs.is_some_and(|b| w.bit(b as u32)),
                    reuse: o.reuse.is_some_and(|s| ctl.reuse >> s & 1 == 1),
                    swz: o
                        .swz
                        .map_or(Swizzle::H1H0, |b| Swizzle::from_field(w.get(b as u32, 2))),
                }
            })
            .collect();
        MachInst {
            form,
            guard: Guard {
                pred: w.get(12, 3) as u8,
                negated: w.bit(15),
            },
            mods,
            operands,
            control: Control { reuse: 0, ..ctl },
        }
    }

    /// The operation.
    pub fn op(&self) -> Op {
        self.form.op
    }

    /// How each operand is used, in operand order.
    pub fn roles(&self) -> &'static [Role] {
        &self.form.roles
    }

    /// The modifier suffixes as nvdisasm prints them after the mnemonic (`.WIDE.U32`).
    pub fn suffix(&self) -> String {
        let mut s = String::new();
        for (m, v) in self.form.mods.iter().zip(&self.mods) {
            if let Some((_, t)) = m.values.iter().find(|(x, _)| x == v) {
                s.push_str(t);
            }
        }
        s
    }

    /// The components of the modifiers (`WIDE`, `U32`), with those printed after an
    /// operand (R2P's byte select, `R8.B1`), which the builder takes as modifiers too.
    pub fn components(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        for (m, v) in self.form.mods.iter().zip(&self.mods) {
            if let Some((_, t)) = m.values.iter().find(|(x, _)| x == v) {
                out.extend(t.split('.').filter(|c| !c.is_empty()));
            }
        }
        for o in &self.form.ops {
            out.extend(o.suffix.split('.').filter(|c| !c.is_empty()));
        }
        out
    }

    /// Whether the modifier component `name` (`"X"`, `"WIDE"`, `"U32"`; no dot) is printed.
    pub fn has_mod(&self, name: &str) -> bool {
        self.components().contains(&name)
    }

    /// The value of the typed modifier `M` if the instruction prints one of its values
    /// (`inst.modifier::<IntCmp>()` is `Some(IntCmp::Lt)` for `ISETP.LT.AND`).
    pub fn modifier<M: Modifier>(&self) -> Option<M> {
        let comps = self.components();
        M::ALL.iter().copied().find(|m| {
            let t = m.suffix();
            !t.is_empty()
                && t.split('.')
                    .filter(|c| !c.is_empty())
                    .all(|c| comps.contains(&c))
        })
    }

    /// The branch target address (BRA, BSSY, CALL, RET), if the form has one.
    pub fn target(&self) -> Option<i64> {
        self.operands.iter().find_map(Operand::as_target)
    }

    /// The registers (of every file) the instruction writes, each register of a pair or
    /// quad listed; `RZ`, `URZ`, `PT` and `UPT` are not locations.
    pub fn defs(&self) -> Vec<Loc> {
        let mut out = Vec::new();
        for (i, role) in self.form.roles.iter().enumerate() {
            if role.defines() {
                self.locs(i, &mut out);
            }
        }
        if matches!(self.op(), Op::R2p | Op::Ur2up) {
            // R2P PR, Ra, mask: writes the predicates the mask selects (UR2UP: the
            // uniform ones, the mask 0xff when nvdisasm hides it).
            out.extend(self.mask_predicates());
        }
        out
    }

    /// The registers the instruction reads, the guard predicate included.
    pub fn uses(&self) -> Vec<Loc> {
        let mut out = Vec::new();
        if self.guard.pred != 7 {
            out.push(if self.form.uniform_guard {
                Loc::Up(self.guard.pred)
            } else {
                Loc::P(self.guard.pred)
            });
        }
        for (i, role) in self.form.roles.iter().enumerate() {
            if role.uses() {
                self.locs(i, &mut out);
            }
        }
        for (o, x) in self.form.ops.iter().zip(&self.operands) {
            if let (Some(_), Val::Mem(a)) = (o.desc, x.val) {
                // SM80-SM89 global accesses read their memory descriptor (a pair), which
                // nvdisasm does not print: UR4:UR5 in ptxas's code, others in CUB's.
                if a.desc.0 < 63 {
                    out.extend([Loc::Ur(a.desc.0), Loc::Ur(a.desc.0 + 1)]);
                }
            }
        }
        if matches!(self.op(), Op::P2r | Op::Up2ur) {
            // P2R Rd, PR, Ra, mask: reads the predicates the mask selects (UP2UR: the
            // uniform ones).
            out.extend(self.mask_predicates());
        }
        out
    }

    /// The predicates (P0-P6, or UP0-UP6 for the uniform moves) that the mask of P2R,
    /// R2P, UP2UR or UR2UP (its last immediate) selects.
    fn mask_predicates(&self) -> Vec<Loc> {
        let mask = self.operands.iter().rev().find_map(Operand::as_imm);
        let uniform = matches!(self.op(), Op::Up2ur | Op::Ur2up);
        (0..7)
            .filter(|i| mask.is_some_and(|m| m >> i & 1 == 1))
            .map(|i| if uniform { Loc::Up(i) } else { Loc::P(i) })
            .collect()
    }

    /// Appends the locations of operand `i`.
    fn locs(&self, i: usize, out: &mut Vec<Loc>) {
        let n = if crate::roles::is_texture(self.op()) {
            // The component mask is the last operand.
            let mask = self.operands.last().and_then(Operand::as_imm).unwrap_or(0) as u64;
            crate::roles::texture_width(self.form, self.op(), i, &self.suffix(), mask)
        } else {
            width_of(self.form, self.op(), i, &self.suffix())
        };
        let regs = |base: u8, n: u8, out: &mut Vec<Loc>| {
            if base != 255 {
                out.extend((0..n).map(|k| Loc::R(base.saturating_add(k))));
            }
        };
        let uregs = |base: u8, n: u8, out: &mut Vec<Loc>| {
            if base != 63 {
                out.extend((0..n).map(|k| Loc::Ur(base.saturating_add(k))));
            }
        };
        match self.operands[i].val {
            Val::Reg(r) => regs(r.0, n, out),
            Val::UReg(u) => uregs(u.0, n, out),
            Val::Pred(p) if p.0 != 7 => out.push(Loc::P(p.0)),
            Val::UPred(p) if p.0 != 7 => out.push(Loc::Up(p.0)),
            Val::Bar(b) => out.push(Loc::B(b.0)),
            Val::Rpc(h) => out.push(Loc::Rpc(h)),
            Val::CBankIdx { base, .. } => regs(base.0, 1, out),
            Val::Mem(a) => {
                let global_ur = self.form.ops[i].kind == OpndKind::Mem(MemFmt::GlobalUr);
                regs(a.base.0, if global_ur && !a.wide { 1 } else { n }, out);
                if let Some(u) = a.ureg {
                    // Global: a 64-bit descriptor or address; shared: a 32-bit offset.
                    let shared = matches!(self.form.ops[i].kind, OpndKind::Mem(MemFmt::Shared));
                    let n = crate::roles::bulk_ureg_width(self.op(), i, &self.suffix())
                        .unwrap_or(if shared { 1 } else { 2 });
                    uregs(u.0, n, out);
                }
            }
            _ => {}
        }
    }

    /// The text nvdisasm prints for the instruction at `addr` (via the word).
    pub fn text(&self, arch: Arch, addr: u64) -> Result<String, SassError> {
        let w = self.encode(arch, addr)?;
        Ok(crate::decode(arch, w, addr)?.text())
    }
}
