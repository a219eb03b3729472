//! Building typed instructions from an operation, modifiers and operands: the form is
//! chosen by the modifiers and the kinds of the operands given.

use crate::form::{Form, OpndKind};
use crate::op::Op;
use crate::{forms, Arch, Control, SassError};

use super::encode::{compatible, encode_fields, hidden_value};
use super::{Guard, MachInst, Modifier, Operand, Val};

/// A typed instruction under construction: `MachInst::build(Op::Iadd3)`, then modifiers
/// ([`Builder::m`], any order), operands ([`Builder::o`], in nvdisasm's order; operands
/// nvdisasm hides at their default, such as IADD3's PT carry-outs or P2R's `PR`, may be
/// left out), a guard and control bits, then [`Builder::finish`] for an architecture.
#[derive(Clone, Debug)]
pub struct Builder {
    op: Op,
    mods: Vec<&'static str>,
    operands: Vec<Operand>,
    guard: Guard,
    control: Control,
}

impl MachInst {
    /// Starts an instruction of operation `op`.
    pub fn build(op: Op) -> Builder {
        Builder {
            op,
            mods: Vec::new(),
            operands: Vec::new(),
            guard: Guard::ALWAYS,
            control: Control::default(),
        }
    }
}

/// Splits a suffix into its components: `.F32.FTZ` → `F32`, `FTZ`.
fn comps(s: &str) -> impl Iterator<Item = &str> {
    s.split('.').filter(|c| !c.is_empty())
}

impl Builder {
    /// Adds a modifier (a typed one such as `IntCmp::Lt`, or a suffix such as `".X"`).
    pub fn m(mut self, m: impl Modifier) -> Builder {
        self.mods.push(m.suffix());
        self
    }
    /// Adds the next operand.
    pub fn o(mut self, x: impl Into<Operand>) -> Builder {
        self.operands.push(x.into());
        self
    }
    /// Adds an integer immediate operand.
    pub fn imm(self, v: i64) -> Builder {
        self.o(Operand::imm(v))
    }
    /// Adds a branch-target operand (an absolute byte address).
    pub fn target(self, addr: i64) -> Builder {
        self.o(Operand::target(addr))
    }
    /// Sets the guard predicate.
    pub fn guard(mut self, g: Guard) -> Builder {
        self.guard = g;
        self
    }
    /// Sets the control bits (stall, yield, scoreboards, wait mask; reuse is per operand).
    pub fn control(mut self, c: Control) -> Builder {
        self.control = c;
        self
    }

    /// Chooses the form of `arch` that takes these modifiers and operands and checks every
    /// field. Among the forms that fit, the one that implies the fewest modifiers not given
    /// wins (so `LDG` without `.64` is the 32-bit load); ties go to table order.
    pub fn finish(self, arch: Arch) -> Result<MachInst, SassError> {
        let mut best: Option<((usize, bool), MachInst)> = None;
        let mut why = Vec::new();
        for form in forms::by_name(arch, self.op.mnemonic()) {
            match self.try_form(form, arch) {
                Ok((score, inst)) => {
                    if best.as_ref().is_none_or(|(s, _)| score < *s) {
                        best = Some((score, inst));
                    }
                }
                Err(e) => why.push(format!("{:#05x}: {e}", form.opcode)),
            }
        }
        best.map(|(_, i)| i).ok_or_else(|| SassError::BadInst {
            name: format!("{}{}", self.op, self.mods.concat()),
            arch: arch.to_string(),
            why: if why.is_empty() {
                format!("no form on {arch}")
            } else {
                format!("no form fits ({})", why.join("; "))
            },
        })
    }

    /// The score of a form that fits (lower is better): the modifiers it implies that were
    /// not asked for, then whether it prints the wanted components in another order than
    /// given (F2F.F16.F64 and F2F.F64.F16 are different forms with the same components).
    fn try_form(
        &self,
        form: &'static Form,
        arch: Arch,
    ) -> Result<((usize, bool), MachInst), String> {
        let wanted: Vec<&str> = self.mods.iter().flat_map(|m| comps(m)).collect();
        let given = self.mods.concat();
        let mut used = vec![false; wanted.len()];
        let mut implied = 0;
        let mut mods = Vec::with_capacity(form.mods.len());
        for (i, m) in form.mods.iter().enumerate() {
            if m.computed.is_some() {
                mods.push(0);
                continue;
            }
            // The value whose components are all wanted, the ones no earlier modifier took
            // first (IDP's `.4A.S8.U8` names U8 and S8 for two fields), then the most
            // specific; between values with the same components (F2F's `.F16.F32` and
            // `.F32.F16`) the one given in that order.
            let unused = |t: &str| {
                let mut taken = used.clone();
                comps(t).all(|c| {
                    let k = (0..wanted.len()).find(|&k| wanted[k] == c && !taken[k]);
                    k.map(|k| taken[k] = true).is_some()
                })
            };
            let pick = m
                .values
                .iter()
                .filter(|(_, t)| !t.is_empty() && comps(t).all(|c| wanted.contains(&c)))
                .max_by_key(|(_, t)| (unused(t), comps(t).count(), given.contains(t)));
            let v = match pick {
                Some(&(v, t)) => {
                    for c in comps(t) {
                        // The first unused copy of the component, else every copy (as
                        // before: a component two fields print is taken by both).
                        match (0..wanted.len()).find(|&k| wanted[k] == c && !used[k]) {
                            Some(k) => used[k] = true,
                            None => {
                                for (k, w) in wanted.iter().enumerate() {
                                    if *w == c {
                                        used[k] = true;
                                    }
                                }
                            }
                        }
                    }
                    v
                }
                None => match m.values.iter().find(|(_, t)| t.is_empty()) {
                    Some(&(v, _)) => v,
                    None if m.values.len() == 1 => {
                        implied += 1;
                        m.values[0].0
                    }
                    // A field with no silent value (SM75's global memory scope, `.SYS`
                    // from ptxas): the value of the form's sample, ptxas's own choice.
                    None => {
                        let v = crate::form::get_pieces(form.sample, &m.pieces);
                        if !m.values.iter().any(|&(x, _)| x == v) {
                            return Err(format!("modifier {i} needs one of its values"));
                        }
                        implied += 1;
                        v
                    }
                },
            };
            mods.push(v);
        }
        // Text printed after an operand (R2P's `.B1`) is chosen like a modifier.
        for o in &form.ops {
            for c in comps(o.suffix) {
                let mut found = false;
                for (k, w) in wanted.iter().enumerate() {
                    if *w == c {
                        used[k] = true;
                        found = true;
                    }
                }
                if !found {
                    return Err(format!("it needs .{c}"));
                }
            }
        }
        let operands = fill(form, &self.operands)
            .ok_or_else(|| "the operands do not fit its layout".to_string())?;
        let mut inst = MachInst {
            form,
            guard: self.guard,
            mods,
            operands,
            control: self.control,
        };
        let w = encode_fields(&inst, arch, 0, false)?;
        // Computed modifiers (IMAD's .MOV/.IADD/.SHL) follow from the operands; a wanted
        // component no other modifier took must be printed by one of them.
        for (m, v) in form.mods.iter().zip(inst.mods.iter_mut()) {
            if m.computed.is_some() {
                *v = m.value(w);
            }
        }
        let printed = MachInst::from_word(form, w, 0);
        let suffix = printed.suffix();
        for (k, c) in wanted.iter().enumerate() {
            if !used[k] && !comps(&suffix).any(|s| s == *c) {
                return Err(format!("it does not print .{c}"));
            }
        }
        let mut printed_comps = comps(&suffix);
        let in_order = wanted.iter().all(|c| printed_comps.any(|p| p == *c));
        Ok(((implied, !in_order), printed))
    }
}

/// Matches the given operands to the form's, filling in hidden and fixed ones.
fn fill(form: &Form, given: &[Operand]) -> Option<Vec<Operand>> {
    fn go(form: &Form, i: usize, given: &[Operand], out: &mut Vec<Operand>) -> bool {
        let Some(o) = form.ops.get(i) else {
            return given.is_empty();
        };
        if let Some(x) = given.first() {
            if compatible(o, &x.val) {
                out.push(*x);
                if go(form, i + 1, &given[1..], out) {
                    return true;
                }
                out.pop();
            }
        }
        let default = match o.kind {
            OpndKind::Fixed(t) => Some(Val::Fixed(t)),
            _ => hidden_value(o),
        };
        if let Some(v) = default {
            out.push(Operand::new(v));
            if go(form, i + 1, given, out) {
                return true;
            }
            out.pop();
        }
        false
    }
    let mut out = Vec::with_capacity(form.ops.len());
    go(form, 0, given, &mut out).then_some(out)
}
