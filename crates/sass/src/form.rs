//! The form model: what every bit of an instruction word means.
//!
//! A [`Form`] is one operation in one operand layout (opcode bits 0-11, including the
//! operand-form selector in bits 9-11) on a set of architectures. It lists
//! * its modifiers ([`Mod`]): bit fields whose values print as mnemonic suffixes, each with the
//!   table of values it may take (a value not in the table is refused);
//! * its operands ([`Opnd`]): bit fields that print as registers, predicates, immediates,
//!   constant-bank addresses, memory addresses or branch targets, with optional negate /
//!   complement / absolute-value / reuse bits;
//! * a sample word as ptxas emits it. Every bit in 0..105 that is not the guard predicate
//!   (12-15) and not in a modifier or operand is a *constant* of the form: its value is the
//!   sample's, and a word with any other value there is not of this form.
//!
//! So a decoded instruction is its form plus field values, with no opaque leftovers.

use crate::latency::LatencyClass;
use crate::op::Op;
use crate::roles::Role;
use crate::word::mask;
use crate::{Arch, Word};

/// One bit range of a field: `(lowest bit, width)`.
pub type Piece = (u8, u8);

/// A modifier: a bit field printed as a mnemonic suffix.
///
/// A *computed* modifier owns no bits: its value is a function of the other fields. It
/// models nvdisasm's alternative names, such as `IMAD.MOV` for an IMAD whose A source is
/// RZ; the assembler accepts the name only where it is the one nvdisasm prints (checked
/// by decoding the result).
#[derive(Clone, Debug)]
pub struct Mod {
    /// Where the field lives (empty for a computed modifier).
    pub pieces: Vec<Piece>,
    /// The values it may take and the suffix each prints (`""` for the default).
    pub values: Vec<(u64, &'static str)>,
    /// For a computed modifier: its value for a word.
    pub computed: Option<fn(Word) -> u64>,
}

impl Mod {
    /// Whether the modifier owns bits but prints nothing for any value (DEPBAR's bit 87,
    /// which nvdisasm ignores): the text cannot give its value back, so the assembler
    /// writes the first value (ptxas's usual one) and the typed instruction keeps the
    /// word's ([`crate::same_but_unprinted`]).
    pub fn is_silent(&self) -> bool {
        !self.pieces.is_empty() && self.values.iter().all(|v| v.1.is_empty())
    }

    /// The modifier's value in `w`.
    pub fn value(&self, w: Word) -> u64 {
        match self.computed {
            Some(f) => f(w),
            None => get_pieces(w, &self.pieces),
        }
    }
}

/// How an operand's bits print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpndKind {
    /// General register, 8 bits: `R0`..`R254`, 255 = `RZ`.
    Reg,
    /// Uniform register, 8 bits: `UR0`..`UR62`, 63 = `URZ` (wider values are refused).
    UReg,
    /// Predicate, 3 bits: `P0`..`P6`, 7 = `PT`.
    Pred,
    /// Uniform predicate, 3 bits: `UP0`..`UP6`, 7 = `UPT`.
    UPred,
    /// Convergence barrier register, 4 bits: `B0`..`B15`.
    Bar,
    /// Unsigned integer immediate, printed `0x..`.
    UImm,
    /// Signed (two's complement) integer immediate, printed `0x..` or `-0x..`.
    SImm,
    /// 32-bit float immediate.
    F32,
    /// The high 32 bits of a 64-bit float immediate (the low bits are zero).
    F64Hi,
    /// A 16-bit float immediate (HFMA2's halves).
    F16,
    /// A bfloat16 immediate (`.BF16_V2` HFMA2's halves): printed as the f32 of its bits
    /// shifted up 16, but negative zero as `-0.0 ` ([`crate::floats::format_bf16`]).
    Bf16,
    /// Constant-bank address `c[0xB][0xOFF]`: bank in bits 54-58, byte offset in bits 38-53.
    CBank,
    /// Special register (S2R), 8 bits.
    SReg,
    /// Uniform special register (S2UR), 8 bits.
    SUReg,
    /// Branch target: signed byte offset from the next instruction, printed as the absolute
    /// address (the raw-words convention of nvdisasm); `scale` low bits are implied zero.
    Target,
    /// Memory operand; see [`MemFmt`].
    Mem(MemFmt),
    /// A set of scoreboards as a bit mask, printed as their numbers from the highest down
    /// in braces: `{5,4,0}` (DEPBAR's list, bits 32-37).
    SbList,
    /// Fixed text that owns no bits (P2R/R2P's predicate-register file `PR`).
    Fixed(&'static str),
    /// One 32-bit half of the return program counter, 1 bit: 0 `Rpc.LO`, 1 `Rpc.HI`
    /// (RPCMOV's implicit register; [`crate::typed::RpcHalf`]).
    RpcHalf,
}

/// Layouts of memory operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemFmt {
    /// `[Ra+off]`: SM75 global addresses (nvdisasm prints no `.64` there).
    Global,
    /// `[Ra.64+off]`: SM80-SM89 global addresses.
    Global64,
    /// `[Ra+off]`: SM80-SM90 global addresses without a memory descriptor (LDG 0x381, STG
    /// 0x386, generic LD 0x980 with bits 90-91 clear, ST 0x385: ptxas's `.mmio` and some
    /// generic accesses), printed as SM75's, without `.64`; [`crate::typed::Addr::no_desc`].
    GlobalPlain,
    /// `desc[URx][Ra.64+off]`: SM90 global addresses with their descriptor register.
    GlobalDesc,
    /// `[Ra.U32+URb+off]` / `[Ra.64+URb+off]`: an SM75 global address adding a register
    /// (32-bit, or 64-bit when the operand's `wide` bit is set) to a uniform register; with
    /// an RZ base `[URb+off]`.
    GlobalUr,
    /// `[URx+off]`: a global address in a uniform register (SM75 RED/ATOMG with bit 91);
    /// the register field is not used (a constant RZ of the form).
    UrAddr,
    /// `[Ra+URb+off]` shared memory address.
    Shared,
    /// `c[0xB][Ra+off]` (LDC with register index).
    CIndexed,
}

/// One operand.
#[derive(Clone, Debug)]
pub struct Opnd {
    /// How it prints.
    pub kind: OpndKind,
    /// Where its main field lives (for memory: the address register).
    pub pieces: Vec<Piece>,
    /// Implied low zero bits of immediates/offsets.
    pub scale: u8,
    /// Bit that prints `-` before it.
    pub neg: Option<u8>,
    /// Bit that prints `~` (integer) / `!` (predicate) before it.
    pub not: Option<u8>,
    /// Bit that prints `|..|` around it.
    pub abs: Option<u8>,
    /// Reuse slot (0-3) whose control bit prints `.reuse` after it.
    pub reuse: Option<u8>,
    /// Field value for which the operand is not printed at all (e.g. `PT` carry predicates).
    pub hide: Option<u64>,
    /// Text printed after the register (e.g. `.64`).
    pub suffix: &'static str,
    /// Whether RZ (URZ for a uniform register) is allowed (nvdisasm rejects ATOMG with an RZ
    /// address, and prints `???255` or `???63` for some texture operands).
    pub rz_ok: bool,
    /// Printed after the previous operand with a blank instead of `, ` (RET's target).
    pub blank_before: bool,
    /// Registers: how many consecutive registers the operand covers (1; 2 for 64-bit
    /// pairs; 4 for SM90's four-register float atomics, `.F32x4`), and the register
    /// number must be a multiple of it (nvdisasm rejects odd pairs in most forms; ptxas
    /// writes quads aligned to 4); RZ is always allowed.
    pub align: u8,
    /// Memory operands: uniform register field `(at, width)` (address or `desc`).
    pub ureg: Option<Piece>,
    /// [`MemFmt::Global64`] operands: the memory descriptor register field `(at, width)`
    /// that nvdisasm does not print (SM80-SM89 global and generic accesses with bit 101
    /// clear). Every value prints alike, so the decoder accepts any, the typed instruction
    /// keeps it ([`crate::typed::Addr::desc`]) and the assembler writes ptxas's UR4.
    pub desc: Option<Piece>,
    /// Memory operands: offset field.
    pub offset: Vec<Piece>,
    /// Shared-memory operands: the low bit `b` of the scale field `b..b+2` of the address
    /// register: 1 `.X4`, 2 `.X8`, 3 `.X16` (`[R0.X4]`, `STS.64 [R11.X8]`; probed with
    /// nvdisasm on every SM).
    pub x4: Option<u8>,
    /// [`MemFmt::GlobalUr`] operands: bit that makes the base register 64-bit (`.64`).
    pub wide: Option<u8>,
    /// Half-precision sources: the low bit of a 2-bit swizzle field printed after the
    /// operand (0 nothing, 1 `.F32`, 2 `.H0_H0`, 3 `.H1_H1`; [`crate::typed::Swizzle`]).
    pub swz: Option<u8>,
    /// Whether the swizzle field may hold `.F32` (SM90 prints `.INVALID1` in most forms).
    pub swz_f32: bool,
    /// Constant-bank operands printed with a blank between bank and offset
    /// (`c[0x3] [0x0]`), as nvdisasm writes them in the half-precision forms.
    pub cb_blank: bool,
}

impl Opnd {
    /// An operand of `kind` in one piece.
    pub fn new(kind: OpndKind, at: u8, width: u8) -> Opnd {
        Opnd {
            kind,
            pieces: vec![(at, width)],
            scale: 0,
            neg: None,
            not: None,
            abs: None,
            reuse: None,
            hide: None,
            suffix: "",
            align: 1,
            blank_before: false,
            rz_ok: true,
            ureg: None,
            desc: None,
            offset: Vec::new(),
            x4: None,
            wide: None,
            swz: None,
            swz_f32: true,
            cb_blank: false,
        }
    }
    /// Adds a negate bit.
    pub fn neg(mut self, b: u8) -> Opnd {
        self.neg = Some(b);
        self
    }
    /// Adds a complement bit.
    pub fn not(mut self, b: u8) -> Opnd {
        self.not = Some(b);
        self
    }
    /// Adds an absolute-value bit.
    pub fn abs(mut self, b: u8) -> Opnd {
        self.abs = Some(b);
        self
    }
    /// Adds a reuse slot.
    pub fn reuse(mut self, slot: u8) -> Opnd {
        self.reuse = Some(slot);
        self
    }
    /// Hides the operand when its field has value `v`.
    pub fn hide(mut self, v: u64) -> Opnd {
        self.hide = Some(v);
        self
    }
    /// A 64-bit register pair (even register number).
    pub fn pair(mut self) -> Opnd {
        self.align = 2;
        self
    }
    /// Four consecutive registers, the first a multiple of 4 (`.F32x4` data).
    pub fn quad(mut self) -> Opnd {
        self.align = 4;
        self
    }
    /// Text after the register.
    pub fn suffix(mut self, s: &'static str) -> Opnd {
        self.suffix = s;
        self
    }
    /// Replaces the pieces.
    pub fn pieces(mut self, p: &[Piece]) -> Opnd {
        self.pieces = p.to_vec();
        self
    }
    /// Adds a 2-bit half-precision swizzle field at `b` (`.H0_H0`, ...).
    pub fn swz(mut self, b: u8) -> Opnd {
        self.swz = Some(b);
        self
    }
    /// The swizzle field may not hold `.F32`.
    pub fn no_f32(mut self) -> Opnd {
        self.swz_f32 = false;
        self
    }
    /// Prints a constant-bank address with a blank: `c[0x3] [0x0]`.
    pub fn cb_blank(mut self) -> Opnd {
        self.cb_blank = true;
        self
    }
    /// Implied low zero bits.
    pub fn scale(mut self, s: u8) -> Opnd {
        self.scale = s;
        self
    }
    /// Text that owns no bits, printed as is (`PR`).
    pub fn fixed(text: &'static str) -> Opnd {
        Opnd {
            pieces: Vec::new(),
            ..Opnd::new(OpndKind::Fixed(text), 0, 0)
        }
    }
    /// Total width of the main field.
    pub fn width(&self) -> u32 {
        self.pieces.iter().map(|p| p.1 as u32).sum()
    }

    /// Every bit this operand owns.
    pub fn bits(&self) -> u128 {
        let mut m = pieces_mask(&self.pieces) | pieces_mask(&self.offset);
        for b in [self.neg, self.not, self.abs, self.x4, self.wide]
            .into_iter()
            .flatten()
        {
            m |= 1u128 << b;
        }
        for b in [self.x4, self.swz].into_iter().flatten() {
            m |= 1u128 << (b + 1);
        }
        if let Some(b) = self.swz {
            m |= 1u128 << b;
        }
        for p in [self.ureg, self.desc].into_iter().flatten() {
            m |= mask(p.0 as u32, p.1 as u32);
        }
        m
    }
}

/// The mask of a list of pieces.
pub fn pieces_mask(p: &[Piece]) -> u128 {
    p.iter()
        .fold(0, |m, &(at, w)| m | mask(at as u32, w as u32))
}

/// Reads a field made of pieces, lowest piece first.
pub fn get_pieces(w: Word, p: &[Piece]) -> u64 {
    let mut v = 0u64;
    let mut shift = 0;
    for &(at, width) in p {
        v |= w.get(at as u32, width as u32) << shift;
        shift += width as u32;
    }
    v
}

/// Writes a field made of pieces; returns false when `v` does not fit.
pub fn set_pieces(w: &mut Word, p: &[Piece], v: u64) -> bool {
    let mut rest = v;
    for &(at, width) in p {
        let m = if width >= 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        w.set(at as u32, width as u32, rest & m);
        rest = if width >= 64 { 0 } else { rest >> width };
    }
    rest == 0
}

/// One instruction form.
#[derive(Clone, Debug)]
pub struct Form {
    /// Base mnemonic, e.g. `IADD3`.
    pub name: &'static str,
    /// Architectures the form is checked on (a mask of [`Arch::bit`]).
    pub arches: u8,
    /// Bits 0-11.
    pub opcode: u16,
    /// A word of this form as ptxas emits it; gives the constant bits.
    pub sample: Word,
    /// Modifiers, in print order.
    pub mods: Vec<Mod>,
    /// Operands, in print order.
    pub ops: Vec<Opnd>,
    /// Whether the control code may name a write scoreboard (nvdisasm rejects one on
    /// EXIT, BRA, BSSY, ... : "Unrecognized operation for functional unit").
    pub write_sb: bool,
    /// Whether the control code may name a read scoreboard.
    pub read_sb: bool,
    /// Whether the control code may wait on scoreboards (nvdisasm rejects any wait mask
    /// on `WARPGROUP.DEPBAR`, which waits on the warpgroup's own `gsb0` instead).
    pub wait_ok: bool,
    /// Whether the guard is a uniform predicate (`@!UP0`): operations of the uniform
    /// datapath (mnemonics starting with `U`, and S2UR) print bits 12-15 as `UPn`; R2UR,
    /// VOTEU and REDUX, which write uniform registers from the vector pipe, keep `Pn`.
    /// Probed with nvdisasm on every SM.
    pub uniform_guard: bool,
    /// [`Form::const_mask`], filled in once the table is built (0 until then).
    pub cached_mask: u128,
    /// The operation (the enum of [`Form::name`]).
    pub op: Op,
    /// How the instruction uses each operand, in operand order (filled in with the table;
    /// see [`crate::roles`]).
    pub roles: Vec<Role>,
    /// The latency class ([`LatencyClass::of`] the operation).
    pub latency: LatencyClass,
}

/// Bits 0..105 that belong to the operation (not the control code).
pub const OP_BITS: u128 = (1u128 << 105) - 1;
/// The guard predicate: bits 12-14 predicate, bit 15 negate.
pub const GUARD_BITS: u128 = 0xf000;

impl Form {
    /// A form with no fields yet.
    pub fn new(name: &'static str, opcode: u16, arches: &[Arch], lo: u64, hi: u64) -> Form {
        Form {
            name,
            arches: arches.iter().fold(0, |m, a| m | a.bit()),
            opcode,
            sample: Word::from_halves(lo, hi),
            mods: Vec::new(),
            ops: Vec::new(),
            write_sb: true,
            read_sb: true,
            wait_ok: true,
            uniform_guard: name.starts_with('U') || name == "S2UR",
            cached_mask: 0,
            op: Op::from_mnemonic(name)
                .unwrap_or_else(|| panic!("form table: `{name}` is not in the Op enum")),
            roles: Vec::new(),
            latency: Op::from_mnemonic(name).map_or(LatencyClass::Nop, LatencyClass::of),
        }
    }

    /// The control code may set no scoreboard (control-flow ops).
    pub fn no_sb(mut self) -> Form {
        self.write_sb = false;
        self.read_sb = false;
        self
    }

    /// The control code may set a read scoreboard but no write scoreboard (stores).
    pub fn no_write_sb(mut self) -> Form {
        self.write_sb = false;
        self
    }

    /// The control code may set a write scoreboard but no read scoreboard.
    pub fn no_read_sb(mut self) -> Form {
        self.read_sb = false;
        self
    }

    /// The control code may wait on no scoreboard (an empty wait mask).
    pub fn no_wait(mut self) -> Form {
        self.wait_ok = false;
        self
    }

    /// Whether the scoreboards and the wait mask of `c` are allowed on this form.
    pub fn control_ok(&self, c: crate::Control) -> bool {
        (self.write_sb || c.write_sb.is_none())
            && (self.read_sb || c.read_sb.is_none())
            && (self.wait_ok || c.wait == 0)
    }

    /// Adds a modifier.
    pub fn m(mut self, at: u8, width: u8, values: &[(u64, &'static str)]) -> Form {
        self.mods.push(Mod {
            pieces: vec![(at, width)],
            values: values.to_vec(),
            computed: None,
        });
        self
    }

    /// Adds a modifier whose field is made of several pieces, lowest piece first.
    pub fn m_pieces(mut self, pieces: &[Piece], values: &[(u64, &'static str)]) -> Form {
        self.mods.push(Mod {
            pieces: pieces.to_vec(),
            values: values.to_vec(),
            computed: None,
        });
        self
    }

    /// Adds a computed modifier (an alternative name chosen from other fields).
    pub fn alias(mut self, f: fn(Word) -> u64, values: &[(u64, &'static str)]) -> Form {
        self.mods.push(Mod {
            pieces: Vec::new(),
            values: values.to_vec(),
            computed: Some(f),
        });
        self
    }

    /// Adds an operand.
    pub fn o(mut self, op: Opnd) -> Form {
        self.ops.push(op);
        self
    }

    /// Whether the form applies to `arch`.
    pub fn on(&self, arch: Arch) -> bool {
        self.arches & arch.bit() != 0
    }

    /// Every bit owned by a modifier or operand.
    pub fn field_bits(&self) -> u128 {
        let mut m = 0;
        for md in &self.mods {
            m |= pieces_mask(&md.pieces);
        }
        for op in &self.ops {
            m |= op.bits();
        }
        m
    }

    /// The bits whose value is fixed for the form (everything in 0..105 that is neither guard
    /// nor field).
    pub fn const_mask(&self) -> u128 {
        if self.cached_mask != 0 {
            return self.cached_mask;
        }
        OP_BITS & !GUARD_BITS & !self.field_bits()
    }

    /// Whether `w` has this form's constant bits.
    pub fn matches(&self, w: Word) -> bool {
        let m = self.const_mask();
        (w.0 & m) == (self.sample.0 & m)
    }

    /// Reuse slots used by operands.
    pub fn reuse_slots(&self) -> u8 {
        self.ops
            .iter()
            .filter_map(|o| o.reuse)
            .fold(0, |m, s| m | 1 << s)
    }
}
