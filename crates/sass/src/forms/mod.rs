//! The table of instruction forms, with the facts behind each one.
//!
//! Every form was checked with nvdisasm 13.5 (`nvdisasm -b SMxx` on words flipped bit by bit
//! from a ptxas-emitted sample) on the architectures it lists. Bits not named by a field are
//! constants of the form: the sample's value, the only one accepted.
//!
//! One file per instruction family: `control`, `moves`, `integer`, `uniform`, `float`,
//! `half`, `memory` and `warp`, and `gaps` (forms of ordinary code the simulator's sweep found);
//! this file has the operand helpers they share, the order in which the families' forms
//! enter the table, and the lookup tables.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::form::{Form, MemFmt, Opnd, OpndKind};
use crate::{Arch, Word};

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
fn mem(fmt: MemFmt, desc_at: u8) -> Opnd {
    let mut o = Opnd::new(OpndKind::Mem(fmt), 24, 8);
    o.offset = vec![(40, 24)];
    match fmt {
        MemFmt::GlobalDesc => o.ureg = Some((desc_at, 6)),
        // The same field, not printed (`docs/sass.md`, "Unprinted descriptors").
        MemFmt::Global64 => o.desc = Some((desc_at, 6)),
        _ => {}
    }
    o
}

fn shared(ur_at: Option<u8>) -> Opnd {
    let mut o = Opnd::new(OpndKind::Mem(MemFmt::Shared), 24, 8);
    o.offset = vec![(40, 24)];
    o.ureg = ur_at.map(|a| (a, 6));
    o
}

/// A shared-memory address whose register may be scaled by 4 (bit 78: `[R0.X4]`).
fn shared_x4(ur_at: Option<u8>) -> Opnd {
    Opnd {
        x4: Some(78),
        ..shared(ur_at)
    }
}

mod async_copy;
mod atomics_more;
mod control;
mod convert_fp8;
mod coverage;
mod cuda_corpus;
mod float;
mod gaps;
mod generated;
mod half;
mod half_bf16;
mod integer;
mod memory;
mod moves;
mod rpcmov;
mod sm90_async;
mod sm90_bulk;
mod surface;
mod tensor;
mod tensor_more;
mod texture;
mod uniform;
mod uniform_branch;
mod uniform_preds;
mod variants;
mod warp;

/// Builds the table. The order is the decode priority among forms with the same opcode
/// and the encode order among forms with the same name.
fn build() -> Vec<Form> {
    let mut v = Vec::new();
    control::control_flow(&mut v);
    moves::moves(&mut v);
    integer::integer(&mut v);
    memory::memory(&mut v);
    integer::more_integer(&mut v);
    float::float(&mut v);
    warp::warp(&mut v);
    control::calls(&mut v);
    integer::viadd(&mut v);
    warp::warp2(&mut v);
    integer::lea(&mut v);
    uniform::ulea(&mut v);
    float::conversions(&mut v);
    integer::iabs_prmt(&mut v);
    warp::membar(&mut v);
    moves::uniform_moves(&mut v);
    memory::atomics(&mut v);
    float::double(&mut v);
    memory::atoms(&mut v);
    memory::sm75_atomics(&mut v);
    atomics_more::sm90_float_red(&mut v);
    float::dfma(&mut v);
    float::more_conversions(&mut v);
    uniform::uiadd3_uflo(&mut v);
    integer::vimnmx(&mut v);
    float::hfma2_mma(&mut v);
    control::yield_op(&mut v);
    moves::p2r_r2p(&mut v);
    memory::local(&mut v);
    uniform::uniform_alu(&mut v);
    variants::float_variants(&mut v);
    variants::integer_variants(&mut v);
    uniform::uniform_more(&mut v);
    warp::depbar(&mut v);
    float::double_imm(&mut v);
    integer::sgxt_bmsk(&mut v);
    float::float_conversions(&mut v);
    memory::generic(&mut v);
    gaps::sim_gaps(&mut v);
    half::half(&mut v);
    half_bf16::hfma2_bf16(&mut v);
    generated::generated(&mut v);
    generated::plop3_sign(&mut v);
    generated::bar_variants(&mut v);
    generated::r2ur_or(&mut v);
    generated::i2f_imm(&mut v);
    generated::f2fp(&mut v);
    convert_fp8::f2fp_fp8(&mut v);
    generated::cctl(&mut v);
    generated::ldsm(&mut v);
    surface::surfaces(&mut v);
    coverage::coverage(&mut v);
    coverage::coverage_sync(&mut v);
    tensor::tensor(&mut v);
    async_copy::async_copy(&mut v);
    cuda_corpus::cuda_corpus(&mut v);
    texture::textures(&mut v);
    sm90_async::syncs(&mut v);
    sm90_bulk::bulk(&mut v);
    sm90_bulk::remote_and_syncs(&mut v);
    sm90_bulk::warpgroup_depbar(&mut v);
    tensor_more::qmma(&mut v);
    atomics_more::atomics_more(&mut v);
    atomics_more::sm75_uniform_address(&mut v);
    atomics_more::sm90_float_atomics(&mut v);
    atomics_more::sm75_generic_ur_atomics(&mut v);
    atomics_more::plain_address_atomics(&mut v);
    uniform_branch::uniform_branch(&mut v);
    uniform_preds::uniform_preds(&mut v);
    rpcmov::rpcmov(&mut v);
    v
}

/// The second source (`B`) of a three-source ALU op by operand-form selector (bits 9-11):
/// 0x2 register 32-39, 0x8 immediate 32-63, 0xa constant bank, 0xc uniform register 32-37.
fn alu_b(sel: u16, imm: Opnd) -> Opnd {
    match sel {
        0x2 => r(32).reuse(1),
        0x8 => imm,
        0xa => cb(),
        _ => ur(32),
    }
}

/// The float-multiply denormal mode of FFMA and HFMA2: `.FTZ` (bit 80) and `.FMZ` (bit 76)
/// are one field; with both bits set nvdisasm prints `.INVALID3` (found by the random-field
/// test), so that value is refused.
const FTZ_FMZ_PIECES: &[(u8, u8)] = &[(80, 1), (76, 1)];
/// The values of [`FTZ_FMZ_PIECES`].
const FTZ_FMZ: &[(u64, &str)] = &[(0, ""), (1, ".FTZ"), (2, ".FMZ")];

/// Operands A, B, C of a three-source op for operand-form selector `sel` (bits 9-11):
/// 0x2 B=R32 C=R64; 0x4 B=R64 C=imm32; 0x6 B=R64 C=c[][]; 0x8 B=imm32 C=R64;
/// 0xa B=c[][] C=R64; 0xc B=UR32 C=R64; 0xe B=R64 C=UR32. C in bits 64-71 may be negated
/// (bit 75); reuse slots are 0, 1, 2 for A, B, C where they are registers in 24/32/64.
fn abc(sel: u16, imm: Opnd, neg_c: bool) -> [Opnd; 3] {
    let a = r(24).reuse(0);
    let rc = if neg_c {
        r(64).neg(75).reuse(2)
    } else {
        r(64).reuse(2)
    };
    match sel {
        0x2 => [a, r(32).reuse(1), rc],
        0x4 => [a, r(64).reuse(1), imm],
        0x6 => [a, r(64).reuse(1), cb()],
        0x8 => [a, imm, rc],
        0xa => [a, cb(), rc],
        0xc => [a, ur(32), rc],
        _ => [a, r(64).reuse(1), ur(32)],
    }
}

/// A form from a ptxas sample word `(lo, hi)`; the opcode is taken from the sample.
/// MUFU's functions (74-77) on an F32 register or constant operand.
const MUFU_FUNCS: &[(u64, &str)] = &[
    (0, ".COS"),
    (1, ".SIN"),
    (2, ".EX2"),
    (3, ".LG2"),
    (4, ".RCP"),
    (5, ".RSQ"),
    (6, ".RCP64H"),
    (7, ".RSQ64H"),
    (8, ".SQRT"),
    (9, ".TANH"),
];

/// MUFU's functions with a half-precision operand or an f32 immediate: as [`MUFU_FUNCS`]
/// without RCP64H/RSQ64H (6 and 7 print `.INVALIDn`).
const MUFU_FUNCS_NO_64H: &[(u64, &str)] = &[
    (0, ".COS"),
    (1, ".SIN"),
    (2, ".EX2"),
    (3, ".LG2"),
    (4, ".RCP"),
    (5, ".RSQ"),
    (8, ".SQRT"),
    (9, ".TANH"),
];

/// NANOSLEEP's two forms per SM family with the duration operand `duration` (an immediate
/// in 0x95d, a register in 0x35d; `sample_lo` is the sample's low word): `.RAND` 86,
/// `.WARP` 85, SM90's `.SYNCS` 84 (ignored before SM90). nvdisasm rejects any scoreboard.
fn nanosleep(v: &mut Vec<Form>, sample_lo: u64, duration: Opnd) {
    for (arches, syncs) in [(PRE90, false), (&[Sm90][..], true)] {
        let f = fs("NANOSLEEP", arches, sample_lo, 0x0000000003800000)
            .no_sb()
            .m(86, 1, &[(0, ""), (1, ".RAND")])
            .m(85, 1, &[(0, ""), (1, ".WARP")]);
        let f = if syncs {
            f.m(84, 1, &[(0, ""), (1, ".SYNCS")])
        } else {
            f
        };
        v.push(f.o(duration.clone()));
    }
}

fn fs(name: &'static str, arches: &[Arch], lo: u64, hi: u64) -> Form {
    Form::new(name, (lo & 0xfff) as u16, arches, lo, hi)
}

pub(crate) use texture::coordinates as texture_coordinates;

/// Every form, in decode priority order.
pub fn all() -> &'static [Form] {
    &table().forms
}

struct Table {
    forms: Vec<Form>,
    by_opcode: HashMap<u16, Vec<usize>>,
    by_name: HashMap<&'static str, Vec<usize>>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut forms = build();
        for f in &mut forms {
            f.cached_mask = f.const_mask();
            f.roles = crate::roles::roles_of(f, f.op);
        }
        let mut by_opcode: HashMap<u16, Vec<usize>> = HashMap::new();
        let mut by_name: HashMap<&'static str, Vec<usize>> = HashMap::new();
        for (i, f) in forms.iter().enumerate() {
            by_opcode.entry(f.opcode).or_default().push(i);
            by_name.entry(f.name).or_default().push(i);
        }
        Table {
            forms,
            by_opcode,
            by_name,
        }
    })
}

/// The forms of `arch` with opcode bits `opcode`, in table order.
pub fn for_opcode(arch: Arch, opcode: u16) -> impl Iterator<Item = &'static Form> {
    let t = table();
    t.by_opcode
        .get(&opcode)
        .into_iter()
        .flatten()
        .map(|&i| &t.forms[i])
        .filter(move |f| f.on(arch))
}

/// The forms of `arch` whose base mnemonic is `name`, in table order.
pub fn by_name(arch: Arch, name: &str) -> impl Iterator<Item = &'static Form> + '_ {
    let t = table();
    t.by_name
        .get(name)
        .into_iter()
        .flatten()
        .map(|&i| &t.forms[i])
        .filter(move |f| f.on(arch))
}

/// Float comparisons (FSETP, HSETP2, ...): the 4-bit compare field's modifiers.
pub(crate) const FCMP: [(u64, &str); 16] = [
    (0, ".F"),
    (1, ".LT"),
    (2, ".EQ"),
    (3, ".LE"),
    (4, ".GT"),
    (5, ".NE"),
    (6, ".GE"),
    (7, ".NUM"),
    (8, ".NAN"),
    (9, ".LTU"),
    (10, ".EQU"),
    (11, ".LEU"),
    (12, ".GTU"),
    (13, ".NEU"),
    (14, ".GEU"),
    (15, ".T"),
];
/// The boolean combiner of a compare with its source predicate (`.AND`/`.OR`/`.XOR`).
pub(crate) const LOGIC: [(u64, &str); 3] = [(0, ".AND"), (1, ".OR"), (2, ".XOR")];

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
            for (i, o) in f.ops.iter().enumerate() {
                // An operand printed twice from one field (`BAR.SYNC R5, R5`) is the one
                // overlap allowed: the same kind on the same bits (the encoder refuses two
                // values for it).
                let repeated = f.ops[..i]
                    .iter()
                    .any(|e| e.kind == o.kind && e.bits() == o.bits());
                if !repeated {
                    check(o.bits(), "operand");
                }
            }
            assert_eq!(f.sample.get(0, 12) as u16, f.opcode, "{}", f.name);
        }
    }
}
