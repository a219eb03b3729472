//! Typed operands: registers of each file, immediates, addresses and their flags.

use std::ops::{Neg, Not};

/// A general register `R0`..`R254`, or `RZ` (255, reads as zero, writes are dropped).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(pub u8);

/// A uniform register `UR0`..`UR62`, or `URZ` (63).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UReg(pub u8);

/// A predicate `P0`..`P6`, or `PT` (7, always true).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pred(pub u8);

/// A uniform predicate `UP0`..`UP6`, or `UPT` (7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UPred(pub u8);

/// A convergence barrier register `B0`..`B15` (BSSY, BSYNC, BREAK, BMOV).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Barrier(pub u8);

/// The zero register.
pub const RZ: Reg = Reg(255);
/// The uniform zero register.
pub const URZ: UReg = UReg(63);
/// The true predicate.
pub const PT: Pred = Pred(7);
/// The true uniform predicate.
pub const UPT: UPred = UPred(7);

/// `Rn`.
pub fn r(n: u8) -> Reg {
    Reg(n)
}
/// `URn`.
pub fn ur(n: u8) -> UReg {
    UReg(n)
}
/// `Pn`.
pub fn p(n: u8) -> Pred {
    Pred(n)
}
/// `UPn`.
pub fn up(n: u8) -> UPred {
    UPred(n)
}
/// `Bn`.
pub fn b(n: u8) -> Barrier {
    Barrier(n)
}

impl Reg {
    /// Whether this is `RZ`.
    pub fn is_zero(self) -> bool {
        self == RZ
    }
}
impl UReg {
    /// Whether this is `URZ`.
    pub fn is_zero(self) -> bool {
        self == URZ
    }
}
impl Pred {
    /// Whether this is `PT`.
    pub fn is_true(self) -> bool {
        self == PT
    }
}
impl UPred {
    /// Whether this is `UPT`.
    pub fn is_true(self) -> bool {
        self == UPT
    }
}

/// A memory address: `[base+ureg+offset]` in its form's layout (global, shared, local, or a
/// uniform-register global address where `base` is `RZ`). For SM90 global accesses `ureg`
/// is the descriptor register (`desc[UR4]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Addr {
    /// The address register (a pair for 64-bit global addresses), `RZ` for none.
    pub base: Reg,
    /// The uniform register of the address (or descriptor), where the form has one.
    pub ureg: Option<UReg>,
    /// The memory descriptor register of an SM80-SM89 global or generic address printed
    /// without `desc[..]` (bit 101 clear): nvdisasm does not print it, so only this field
    /// tells `[R2.64]` with UR6 from `[R2.64]` with UR4. UR4 (ptxas's own choice, and what
    /// the assembler writes) by default, and the only value for any other address.
    pub desc: UReg,
    /// An SM80-SM90 global or generic address without a memory descriptor, printed
    /// `[R4+0x8]` without `.64` (LDG 0x381, STG 0x386, LD 0x980's other mode, ST 0x385):
    /// the only field that tells it from the descriptor form's `[R4.64+0x8]`.
    pub no_desc: bool,
    /// Signed byte offset.
    pub offset: i64,
    /// Shared/local memory: the base register is scaled by 4 (`[R0.X4]`); with `x8` too,
    /// by 16 (`.X16`).
    pub x4: bool,
    /// Shared/local memory: the base register is scaled by 8 (`[R0.X8]`).
    pub x8: bool,
    /// SM75 global addresses with a uniform register: the base register is 64-bit
    /// (`[R2.64+UR4]`) rather than 32-bit (`[R2.U32+UR4]`).
    pub wide: bool,
}

impl Addr {
    /// `[base+offset]`.
    pub fn new(base: Reg, offset: i64) -> Addr {
        Addr {
            base,
            ureg: None,
            desc: UReg(4),
            no_desc: false,
            offset,
            x4: false,
            x8: false,
            wide: false,
        }
    }
    /// Adds a uniform register (shared memory `[R+UR]`, SM90 `desc[UR]`, or `[UR]`).
    pub fn with_ureg(mut self, u: UReg) -> Addr {
        self.ureg = Some(u);
        self
    }
    /// The address without a memory descriptor ([`Addr::no_desc`]).
    pub fn without_desc(mut self) -> Addr {
        self.no_desc = true;
        self
    }
    /// Sets the unprinted descriptor register of an SM80-SM89 global address ([`Addr::desc`]).
    pub fn with_desc(mut self, u: UReg) -> Addr {
        self.desc = u;
        self
    }
}

/// The value of an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Val {
    /// A general register.
    Reg(Reg),
    /// A uniform register.
    UReg(UReg),
    /// A predicate.
    Pred(Pred),
    /// A uniform predicate.
    UPred(UPred),
    /// A convergence barrier register.
    Bar(Barrier),
    /// An integer immediate (signed or unsigned as the form says; its value, not its field).
    Imm(i64),
    /// A 32-bit float immediate, as bits.
    F32(u32),
    /// A 64-bit float immediate, as bits (the form keeps only the high 32).
    F64(u64),
    /// A 16-bit float immediate, as bits.
    F16(u16),
    /// A bfloat16 immediate, as bits.
    Bf16(u16),
    /// A constant-bank address `c[bank][offset]`.
    CBank {
        /// Bank 0-31.
        bank: u8,
        /// Byte offset.
        offset: u16,
    },
    /// An indexed constant-bank address `c[bank][base+offset]` (LDC).
    CBankIdx {
        /// Bank 0-31.
        bank: u8,
        /// Index register.
        base: Reg,
        /// Signed byte offset.
        offset: i64,
    },
    /// A special register number (S2R, CS2R, S2UR).
    SReg(u8),
    /// A branch target: an absolute byte address.
    Target(i64),
    /// A memory address.
    Mem(Addr),
    /// Fixed text with no bits (`PR`; `SB0`..`SB5`, which select DEPBAR's form).
    Fixed(&'static str),
    /// A half of the return program counter (RPCMOV).
    Rpc(RpcHalf),
}

/// One 32-bit half of the return program counter, RPCMOV's implicit register (field values
/// of [`crate::form::OpndKind::RpcHalf`]). CALL and RET do not name it (not established).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RpcHalf {
    /// The low half, `Rpc.LO` (field value 0).
    Lo = 0,
    /// The high half, `Rpc.HI` (field value 1).
    Hi = 1,
}

impl RpcHalf {
    /// The half of a field value (only the low bit counts).
    pub fn from_field(v: u64) -> RpcHalf {
        if v & 1 == 0 {
            RpcHalf::Lo
        } else {
            RpcHalf::Hi
        }
    }
    /// The half as nvdisasm prints it.
    pub fn name(self) -> &'static str {
        match self {
            RpcHalf::Lo => "Rpc.LO",
            RpcHalf::Hi => "Rpc.HI",
        }
    }
    /// The half printed as `t`.
    pub fn from_name(t: &str) -> Option<RpcHalf> {
        [RpcHalf::Lo, RpcHalf::Hi]
            .into_iter()
            .find(|h| h.name() == t)
    }
}

/// Which halves of a 32-bit register a half-precision source reads (the text after the
/// operand: `R4.H0_H0`). Field values 0-3 of [`crate::form::Opnd::swz`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Swizzle {
    /// Both halves in place (low half to lane 0, high half to lane 1); prints nothing.
    #[default]
    H1H0 = 0,
    /// The whole register as one 32-bit float, converted to both lanes (`.F32`).
    F32 = 1,
    /// The low half in both lanes (`.H0_H0`).
    H0H0 = 2,
    /// The high half in both lanes (`.H1_H1`).
    H1H1 = 3,
}

impl Swizzle {
    /// Every swizzle, by field value.
    pub const ALL: [Swizzle; 4] = [Swizzle::H1H0, Swizzle::F32, Swizzle::H0H0, Swizzle::H1H1];
    /// The swizzle of a field value (only the low two bits count).
    pub fn from_field(v: u64) -> Swizzle {
        Swizzle::ALL[(v & 3) as usize]
    }
    /// The swizzle `t` ends with, if any (`.F32` only when `f32_ok`): the length of the
    /// text before it and its field value.
    pub fn split(t: &str, f32_ok: bool) -> Option<(usize, u64)> {
        Swizzle::ALL
            .iter()
            .skip(1)
            .filter(|z| f32_ok || **z != Swizzle::F32)
            .find_map(|z| t.strip_suffix(z.text()).map(|r| (r.len(), *z as u64)))
    }
    /// The text nvdisasm prints after the operand.
    pub fn text(self) -> &'static str {
        match self {
            Swizzle::H1H0 => "",
            Swizzle::F32 => ".F32",
            Swizzle::H0H0 => ".H0_H0",
            Swizzle::H1H1 => ".H1_H1",
        }
    }
}

/// One operand: a value and the flags printed around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    /// The value.
    pub val: Val,
    /// Arithmetic negation (`-R2`).
    pub neg: bool,
    /// Complement / logical not (`~R2`, `!P0`).
    pub not: bool,
    /// Absolute value (`|R2|`).
    pub abs: bool,
    /// The operand-reuse cache flag (`.reuse`), a control bit of the word.
    pub reuse: bool,
    /// The halves a half-precision source reads (`.H0_H0`); [`Swizzle::H1H0`] elsewhere.
    pub swz: Swizzle,
}

impl Operand {
    /// An operand with no flags.
    pub fn new(val: Val) -> Operand {
        Operand {
            val,
            neg: false,
            not: false,
            abs: false,
            reuse: false,
            swz: Swizzle::H1H0,
        }
    }
    /// An integer immediate.
    pub fn imm(v: i64) -> Operand {
        Operand::new(Val::Imm(v))
    }
    /// A 32-bit float immediate.
    pub fn f32(v: f32) -> Operand {
        Operand::new(Val::F32(v.to_bits()))
    }
    /// A branch target at absolute byte address `addr`.
    pub fn target(addr: i64) -> Operand {
        Operand::new(Val::Target(addr))
    }
    /// `c[bank][offset]`.
    pub fn cbank(bank: u8, offset: u16) -> Operand {
        Operand::new(Val::CBank { bank, offset })
    }
    /// Fixed operand text (DEPBAR's `SB1`).
    pub fn fixed(text: &'static str) -> Operand {
        Operand::new(Val::Fixed(text))
    }
    /// A memory address.
    pub fn mem(a: Addr) -> Operand {
        Operand::new(Val::Mem(a))
    }
    /// The same operand with `.reuse`.
    pub fn reuse(mut self) -> Operand {
        self.reuse = true;
        self
    }
    /// The same operand with a half-precision swizzle (`R4.H0_H0`).
    pub fn swz(mut self, s: Swizzle) -> Operand {
        self.swz = s;
        self
    }
    /// The same operand with `|..|`.
    pub fn abs(mut self) -> Operand {
        self.abs = true;
        self
    }
    /// The general register, if that is what the operand is.
    pub fn as_reg(&self) -> Option<Reg> {
        match self.val {
            Val::Reg(r) => Some(r),
            _ => None,
        }
    }
    /// The uniform register, if that is what the operand is.
    pub fn as_ureg(&self) -> Option<UReg> {
        match self.val {
            Val::UReg(r) => Some(r),
            _ => None,
        }
    }
    /// The predicate, if that is what the operand is.
    pub fn as_pred(&self) -> Option<Pred> {
        match self.val {
            Val::Pred(p) => Some(p),
            _ => None,
        }
    }
    /// The uniform predicate, if that is what the operand is.
    pub fn as_upred(&self) -> Option<UPred> {
        match self.val {
            Val::UPred(p) => Some(p),
            _ => None,
        }
    }
    /// The barrier register, if that is what the operand is.
    pub fn as_bar(&self) -> Option<Barrier> {
        match self.val {
            Val::Bar(b) => Some(b),
            _ => None,
        }
    }
    /// The integer immediate, if that is what the operand is.
    pub fn as_imm(&self) -> Option<i64> {
        match self.val {
            Val::Imm(v) => Some(v),
            _ => None,
        }
    }
    /// The memory address, if that is what the operand is.
    pub fn as_mem(&self) -> Option<Addr> {
        match self.val {
            Val::Mem(a) => Some(a),
            _ => None,
        }
    }
    /// The branch target address, if that is what the operand is.
    pub fn as_target(&self) -> Option<i64> {
        match self.val {
            Val::Target(a) => Some(a),
            _ => None,
        }
    }
}

macro_rules! into_operand {
    ($($t:ident => $v:ident),*) => {$(
        impl From<$t> for Operand {
            fn from(x: $t) -> Operand {
                Operand::new(Val::$v(x))
            }
        }
        impl Neg for $t {
            type Output = Operand;
            /// The operand negated (`-R2`).
            fn neg(self) -> Operand {
                -Operand::from(self)
            }
        }
        impl Not for $t {
            type Output = Operand;
            /// The operand complemented (`~R2`, `!P0`).
            fn not(self) -> Operand {
                !Operand::from(self)
            }
        }
    )*};
}
into_operand!(Reg => Reg, UReg => UReg, Pred => Pred, UPred => UPred, Barrier => Bar, Addr => Mem);

impl From<i64> for Operand {
    fn from(v: i64) -> Operand {
        Operand::imm(v)
    }
}

impl From<Val> for Operand {
    fn from(v: Val) -> Operand {
        Operand::new(v)
    }
}

impl Neg for Operand {
    type Output = Operand;
    fn neg(mut self) -> Operand {
        self.neg = true;
        self
    }
}

impl Not for Operand {
    type Output = Operand;
    fn not(mut self) -> Operand {
        self.not = true;
        self
    }
}
