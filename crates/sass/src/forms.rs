//! The table of instruction forms, with the facts behind each one.
//!
//! Every form was checked with nvdisasm 13.5 (`nvdisasm -b SMxx` on words flipped bit by bit
//! from a ptxas-emitted sample) on the architectures it lists. Bits not named by a field are
//! constants of the form: the sample's value, the only one accepted.

use std::sync::OnceLock;

use crate::form::{Form, MemFmt, Opnd, OpndKind};
use crate::Arch;

use Arch::*;

const ALL: &[Arch] = &Arch::ALL;
const PRE90: &[Arch] = &[Sm75, Sm80, Sm86, Sm89];
const SM80UP: &[Arch] = &[Sm80, Sm86, Sm89, Sm90];
const SM80_89: &[Arch] = &[Sm80, Sm86, Sm89];

fn r(at: u8) -> Opnd {
    Opnd::new(OpndKind::Reg, at, 8)
}
fn ur(at: u8) -> Opnd {
    Opnd::new(OpndKind::UReg, at, 6)
}
fn p(at: u8) -> Opnd {
    Opnd::new(OpndKind::Pred, at, 3)
}
fn up(at: u8) -> Opnd {
    Opnd::new(OpndKind::UPred, at, 3)
}
fn bar(at: u8) -> Opnd {
    Opnd::new(OpndKind::Bar, at, 4)
}
fn uimm(at: u8, w: u8) -> Opnd {
    Opnd::new(OpndKind::UImm, at, w)
}
fn simm(at: u8, w: u8) -> Opnd {
    Opnd::new(OpndKind::SImm, at, w)
}
fn f32i(at: u8) -> Opnd {
    Opnd::new(OpndKind::F32, at, 32)
}
fn cb() -> Opnd {
    Opnd::new(OpndKind::CBank, 38, 16).pieces(&[(38, 16), (54, 5)])
}
fn target(pieces: &[(u8, u8)]) -> Opnd {
    Opnd::new(OpndKind::Target, 0, 0).pieces(pieces).scale(2)
}
fn global(ra: u8, e64: u8, off: (u8, u8)) -> Opnd {
    let mut o = Opnd::new(OpndKind::Mem(MemFmt::Global), ra, 8);
    o.e64 = Some(e64);
    o.offset = vec![off];
    o
}
fn global_desc(ra: u8, e64: u8, off: (u8, u8), ur_at: u8, desc: u8) -> Opnd {
    let mut o = global(ra, e64, off);
    o.ureg = Some((ur_at, 6));
    o.desc = Some(desc);
    o
}

/// Builds the table.
fn build() -> Vec<Form> {
    let mut v = Vec::new();
    control_flow(&mut v);
    moves(&mut v);
    v
}

fn control_flow(v: &mut Vec<Form>) {
    // NOP: no fields.
    v.push(Form::new("NOP", 0x918, ALL, 0x0000000000007918, 0x0000000000000000));
    // EXIT [Pp]: predicate 87-89, negate 90; hidden when PT.
    v.push(
        Form::new("EXIT", 0x94d, ALL, 0x000000000000794d, 0x0000000003800000)
            .o(p(87).not(90).hide(7)),
    );
    // BSYNC Bn: barrier 16-19; predicate 87-90 as EXIT.
    v.push(
        Form::new("BSYNC", 0x941, ALL, 0x0000000000007941, 0x0000000003800000)
            .o(p(87).not(90).hide(7))
            .o(bar(16)),
    );
    // BREAK Bn.
    v.push(
        Form::new("BREAK", 0x942, ALL, 0x0000000000007942, 0x0000000003800000)
            .o(p(87).not(90).hide(7))
            .o(bar(16)),
    );
    // BSSY Bn, target: barrier 16-19, target offset bits 34-63 (x4 bytes, signed).
    v.push(
        Form::new("BSSY", 0x945, ALL, 0x0000000000007945, 0x0000000003800000)
            .o(p(87).not(90).hide(7))
            .o(bar(16))
            .o(target(&[(34, 30)])),
    );
    // BRA [Pp,] target: before SM90 the offset is bits 34-81 (x4 bytes); SM90 adds bits 16-23
    // as offset bits 2-9. .U (32), .DIV (33).
    let bra_mods = [(0, ""), (1, ".U"), (2, ".DIV"), (3, ".CONV")];
    v.push(
        Form::new("BRA", 0x947, PRE90, 0x0000000000007947, 0x0000000000000000)
            .m(32, 2, &bra_mods)
            .o(p(87).not(90).hide(7))
            .o(target(&[(34, 48)])),
    );
    v.push(
        Form::new("BRA", 0x947, &[Sm90], 0x0000000000007947, 0x0000000000000000)
            .m(32, 2, &bra_mods)
            .o(p(87).not(90).hide(7))
            .o(target(&[(16, 8), (34, 48)])),
    );
    // WARPSYNC with an immediate mask (32-63).
    v.push(
        Form::new("WARPSYNC", 0x948, PRE90, 0x0000000000007948, 0x0000000003800000)
            .o(p(87).not(90).hide(7))
            .o(uimm(32, 32)),
    );
    // WARPSYNC with a register mask (32-39).
    v.push(
        Form::new("WARPSYNC", 0x348, ALL, 0x0000000000007348, 0x0000000003800000)
            .o(p(87).not(90).hide(7))
            .o(r(32)),
    );
    // BMOV.32.CLEAR RZ, Bn: destination 16-23, barrier 24-27.
    v.push(
        Form::new("BMOV", 0x355, ALL, 0x0000000000007355, 0x0000000000100000)
            .m(84, 1, &[(1, ".32.CLEAR")])
            .o(r(16))
            .o(bar(24)),
    );
}

fn moves(v: &mut Vec<Form>) {
    // S2R Rd, SR: destination 16-23, special register 72-79.
    v.push(
        Form::new("S2R", 0x919, ALL, 0x0000000000007919, 0x0000000000000000)
            .o(r(16))
            .o(Opnd::new(OpndKind::SReg, 72, 8)),
    );
    // MOV Rd, Rb / imm32 / c[][] / URb; lane mask 72-75 is 0xf (constant).
    v.push(
        Form::new("MOV", 0x202, ALL, 0x0000000000007202, 0x0000000000000f00)
            .o(r(16))
            .o(r(32).reuse(1)),
    );
    v.push(Form::new("MOV", 0x802, ALL, 0x0000000000007802, 0x0000000000000f00).o(r(16)).o(uimm(32, 32)));
    v.push(Form::new("MOV", 0xa02, ALL, 0x0000000000007a02, 0x0000000000000f00).o(r(16)).o(cb()));
    v.push(Form::new("MOV", 0xc02, ALL, 0x0000000000007c02, 0x0000000000000f00).o(r(16)).o(ur(32)));
    // LDC Rd, c[bank][Ra+off]: size 72-74 (.64 = 5), index register 24-31, offset 38-53,
    // bank 54-58.
    let mut ldc_src = Opnd::new(OpndKind::Mem(MemFmt::CIndexed), 24, 8);
    ldc_src.offset = vec![(38, 16)];
    ldc_src.ureg = Some((54, 5));
    v.push(
        Form::new("LDC", 0xb82, ALL, 0x0000000000007b82, 0x0000000000000800)
            .m(73, 3, &[(4, ""), (5, ".64")])
            .o(r(16))
            .o(ldc_src),
    );
    // ULDC URd, c[bank][off] (.64 at 73).
    v.push(
        Form::new("ULDC", 0xab9, ALL, 0x0000000000007ab9, 0x0000000000000800)
            .m(73, 3, &[(4, ""), (5, ".64")])
            .o(ur(16))
            .o(cb()),
    );
}

/// Every form, in decode priority order.
pub fn all() -> &'static [Form] {
    static FORMS: OnceLock<Vec<Form>> = OnceLock::new();
    FORMS.get_or_init(build)
}

/// The forms of `arch` with opcode bits `opcode`.
pub fn for_opcode(arch: Arch, opcode: u16) -> impl Iterator<Item = &'static Form> {
    all().iter().filter(move |f| f.opcode == opcode && f.on(arch))
}

/// The forms of `arch` whose base mnemonic is `name`.
pub fn by_name(arch: Arch, name: &str) -> impl Iterator<Item = &'static Form> + '_ {
    all().iter().filter(move |f| f.name == name && f.on(arch))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::form::{pieces_mask, GUARD_BITS};

    #[test]
    fn fields_do_not_overlap_and_samples_decode() {
        for f in all() {
            let mut seen: u128 = GUARD_BITS;
            let mut check = |m: u128, what: &str| {
                assert_eq!(seen & m, 0, "{} {:#x}: {what} overlaps", f.name, f.opcode);
                seen |= m;
            };
            for m in &f.mods {
                check(pieces_mask(&m.pieces), "modifier");
            }
            for o in &f.ops {
                check(o.bits(), "operand");
            }
            assert_eq!(f.sample.get(0, 12) as u16, f.opcode, "{}", f.name);
        }
    }
}
