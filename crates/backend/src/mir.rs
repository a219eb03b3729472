//! The virtual-register machine form: blocks of typed SASS operations whose register
//! operands are virtual registers of a class (general, predicate, uniform, uniform
//! predicate, convergence barrier), with phis at block entries. Instruction selection
//! produces it; register assignment turns it into [`tangle_sass::MachInst`]s.
//!
//! Every register operand says whether the instruction defines or reads it, so liveness and
//! the verifier need no knowledge of the SASS operand roles. A general register may be a
//! tuple of 2 or 4 consecutive registers (64- and 128-bit values); a use may name one
//! component of a tuple (`v7.1`, the high word of a pair).

use std::fmt;

use tangle_sass::typed::Operand;
use tangle_sass::Op;

/// A register file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegClass {
    /// General registers `R0`..`R254` (tuples aligned to their width).
    R,
    /// Predicates `P0`..`P6`.
    P,
    /// Uniform registers `UR0`..`UR62`.
    Ur,
    /// Uniform predicates `UP0`..`UP6`.
    Up,
    /// Convergence barriers `B0`..`B15`.
    B,
}

impl RegClass {
    /// The prefix of a virtual register of this class in the text form.
    pub fn prefix(self) -> &'static str {
        match self {
            RegClass::R => "%r",
            RegClass::P => "%p",
            RegClass::Ur => "%ur",
            RegClass::Up => "%up",
            RegClass::B => "%b",
        }
    }
}

/// A virtual register (an index into [`MFunc::vregs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg(pub u32);

/// What a virtual register is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VRegInfo {
    /// Its register file.
    pub class: RegClass,
    /// Consecutive registers it spans: 1, or 2 / 4 for 64- and 128-bit general values.
    pub width: u8,
}

/// A machine block (an index into [`MFunc::blocks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MBlock(pub u32);

impl fmt::Display for MBlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".B{}", self.0)
    }
}

/// A register operand: a virtual register, or one component of a tuple.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegRef {
    /// The register.
    pub vreg: VReg,
    /// The component (`None`: the whole register or tuple).
    pub sub: Option<u8>,
}

impl From<VReg> for RegRef {
    fn from(vreg: VReg) -> RegRef {
        RegRef { vreg, sub: None }
    }
}

/// An operand of a machine instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MOpnd {
    /// A register the instruction writes.
    Def(RegRef),
    /// A register the instruction reads, with the negate (`-`) and complement (`!`, `~`)
    /// flags of the SASS operand.
    Use {
        /// The register.
        r: RegRef,
        /// `-R`.
        neg: bool,
        /// `!P` / `~R`.
        not: bool,
    },
    /// A physical operand with no virtual register: `RZ`, `PT`, an immediate, a constant
    /// bank address, a special register, fixed text.
    Fixed(Operand),
    /// A memory address `[base + offset]`; `base` `None` is `RZ` (an absolute address).
    Mem {
        /// The address register (a pair for global memory).
        base: Option<VReg>,
        /// Signed byte offset.
        offset: i64,
    },
    /// A branch target (a block of the function).
    Target(MBlock),
    /// The target of a `BSSY`: the instruction after the `BSYNC` of this barrier.
    SyncOf(VReg),
}

impl MOpnd {
    /// A plain use of `r`.
    pub fn use_(r: impl Into<RegRef>) -> MOpnd {
        MOpnd::Use {
            r: r.into(),
            neg: false,
            not: false,
        }
    }
    /// A complemented use of `r` (`!P`, `~R`).
    pub fn not(r: impl Into<RegRef>) -> MOpnd {
        MOpnd::Use {
            r: r.into(),
            neg: false,
            not: true,
        }
    }
    /// A negated use of `r` (`-R`).
    pub fn neg(r: impl Into<RegRef>) -> MOpnd {
        MOpnd::Use {
            r: r.into(),
            neg: true,
            not: false,
        }
    }
    /// A definition of `r`.
    pub fn def(r: VReg) -> MOpnd {
        MOpnd::Def(r.into())
    }
}

/// A machine instruction on virtual registers.
#[derive(Clone, Debug, PartialEq)]
pub struct MInst {
    /// The SASS operation.
    pub op: Op,
    /// Its modifiers as suffixes (`".U32"`, `".AND"`), given to the typed builder.
    pub mods: Vec<&'static str>,
    /// Its operands in nvdisasm's order (hidden ones may be left out).
    pub opnds: Vec<MOpnd>,
    /// Its guard: a predicate register and whether it is negated.
    pub guard: Option<(VReg, bool)>,
    /// For a guarded branch: selection knows its predicate holds the same value in every
    /// lane that runs it (a constant, or an IR branch in a kernel the uniformity analysis
    /// finds never diverging), so taking it does not split the warp. The machine form
    /// alone cannot see that of a per-lane predicate (`regalloc::divergence`).
    pub uniform: bool,
}

impl MInst {
    /// `op` with no modifiers, operands or guard.
    pub fn new(op: Op) -> MInst {
        MInst {
            op,
            mods: Vec::new(),
            opnds: Vec::new(),
            guard: None,
            uniform: false,
        }
    }
    /// Marks a guarded branch as one that never splits the warp ([`MInst::uniform`]).
    pub fn uniform(mut self, uniform: bool) -> MInst {
        self.uniform = uniform;
        self
    }
    /// Adds a modifier.
    pub fn m(mut self, m: &'static str) -> MInst {
        self.mods.push(m);
        self
    }
    /// Adds an operand.
    pub fn o(mut self, o: MOpnd) -> MInst {
        self.opnds.push(o);
        self
    }
    /// Adds a definition.
    pub fn d(self, r: VReg) -> MInst {
        self.o(MOpnd::def(r))
    }
    /// Adds a use.
    pub fn u(self, r: impl Into<RegRef>) -> MInst {
        self.o(MOpnd::use_(r))
    }
    /// Adds a fixed operand.
    pub fn f(self, x: impl Into<Operand>) -> MInst {
        self.o(MOpnd::Fixed(x.into()))
    }
    /// Adds an integer immediate.
    pub fn imm(self, v: i64) -> MInst {
        self.f(Operand::imm(v))
    }
    /// Sets the guard.
    pub fn guard(mut self, p: VReg, negated: bool) -> MInst {
        self.guard = Some((p, negated));
        self
    }

    /// The registers it defines.
    pub fn defs(&self) -> impl Iterator<Item = RegRef> + '_ {
        self.opnds.iter().filter_map(|o| match o {
            MOpnd::Def(r) => Some(*r),
            _ => None,
        })
    }

    /// The registers it reads, the guard included.
    pub fn uses(&self) -> impl Iterator<Item = RegRef> + '_ {
        self.opnds
            .iter()
            .filter_map(|o| match o {
                MOpnd::Use { r, .. } => Some(*r),
                MOpnd::Mem { base: Some(b), .. } => Some(RegRef::from(*b)),
                _ => None,
            })
            .chain(self.guard.map(|(p, _)| RegRef::from(p)))
    }

    /// Whether it is a pair construction: `MOV %rN:2, lo, hi`, a pseudo-instruction that
    /// puts two 32-bit values into an aligned pair (for the instructions that read 64-bit
    /// operands: `DADD`, `I2F.S64`, ...). Emission writes it as two `MOV`s, one per
    /// component, so the pair may not share a register with either source (the register
    /// assignment treats it as an early clobber).
    pub fn is_pack(&self) -> bool {
        self.op == Op::Mov
            && self.opnds.len() == 3
            && matches!(self.opnds[0], MOpnd::Def(RegRef { sub: None, .. }))
            && matches!(self.opnds[1], MOpnd::Use { .. })
            && matches!(self.opnds[2], MOpnd::Use { .. })
    }

    /// Whether it ends a block's straight-line code (a branch or an exit).
    pub fn is_branch(&self) -> bool {
        matches!(self.op, Op::Bra | Op::Exit)
    }
}

/// A phi: `dst` takes `srcs[i].1` when control arrives from `srcs[i].0`.
#[derive(Clone, Debug, PartialEq)]
pub struct MPhi {
    /// The register defined.
    pub dst: VReg,
    /// Per predecessor block, the register it brings.
    pub srcs: Vec<(MBlock, VReg)>,
}

/// A machine block: phis, then straight-line instructions, then the branches that end it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MBlockData {
    /// Phis at entry.
    pub phis: Vec<MPhi>,
    /// The body.
    pub insts: Vec<MInst>,
    /// The terminating instructions (guarded and unguarded `BRA`, `EXIT`); control reaching
    /// the end of them falls into nothing (an unguarded `BRA` or `EXIT` comes last).
    pub term: Vec<MInst>,
}

impl MBlockData {
    /// The blocks its branches go to, in order, without repeats.
    pub fn succs(&self) -> Vec<MBlock> {
        let mut out = Vec::new();
        for i in &self.term {
            for o in &i.opnds {
                if let MOpnd::Target(b) = o {
                    if !out.contains(b) {
                        out.push(*b);
                    }
                }
            }
        }
        out
    }
}

/// A kernel in the machine form.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MFunc {
    /// The kernel's name.
    pub name: String,
    /// Every virtual register.
    pub vregs: Vec<VRegInfo>,
    /// Every block; the layout order is the index order, the first is the entry.
    pub blocks: Vec<MBlockData>,
}

impl MFunc {
    /// A new virtual register.
    pub fn vreg(&mut self, class: RegClass, width: u8) -> VReg {
        self.vregs.push(VRegInfo { class, width });
        VReg(self.vregs.len() as u32 - 1)
    }
    /// A new empty block at the end of the layout.
    pub fn block(&mut self) -> MBlock {
        self.blocks.push(MBlockData::default());
        MBlock(self.blocks.len() as u32 - 1)
    }
    /// The information of `v`.
    pub fn info(&self, v: VReg) -> VRegInfo {
        self.vregs[v.0 as usize]
    }
    /// The predecessors of every block, in layout order (a branch to a block that does not
    /// exist, which the verifier reports, is left out).
    pub fn preds(&self) -> Vec<Vec<MBlock>> {
        let mut preds = vec![Vec::new(); self.blocks.len()];
        for (i, b) in self.blocks.iter().enumerate() {
            for s in b.succs() {
                if let Some(p) = preds.get_mut(s.0 as usize) {
                    p.push(MBlock(i as u32));
                }
            }
        }
        preds
    }
    /// The text of a register reference.
    pub fn reg_text(&self, r: RegRef) -> String {
        let info = self.info(r.vreg);
        let mut s = format!("{}{}", info.class.prefix(), r.vreg.0);
        if info.width > 1 && r.sub.is_none() {
            s.push_str(&format!(":{}", info.width));
        }
        if let Some(k) = r.sub {
            s.push_str(&format!(".{k}"));
        }
        s
    }
}

impl fmt::Display for MFunc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "kernel {} {{", self.name)?;
        for (bi, b) in self.blocks.iter().enumerate() {
            writeln!(f, "{}:", MBlock(bi as u32))?;
            for phi in &b.phis {
                let srcs: Vec<String> = phi
                    .srcs
                    .iter()
                    .map(|(blk, v)| format!("[{blk}: {}]", self.reg_text((*v).into())))
                    .collect();
                writeln!(
                    f,
                    "    {} = phi {}",
                    self.reg_text(phi.dst.into()),
                    srcs.join(", ")
                )?;
            }
            for i in b.insts.iter().chain(&b.term) {
                writeln!(f, "    {}", self.inst_text(i))?;
            }
        }
        writeln!(f, "}}")
    }
}

impl MFunc {
    /// One instruction as text: SASS spelling with virtual registers.
    pub fn inst_text(&self, i: &MInst) -> String {
        let mut s = String::new();
        if let Some((p, neg)) = i.guard {
            s.push_str(&format!(
                "@{}{} ",
                if neg { "!" } else { "" },
                self.reg_text(p.into())
            ));
        }
        s.push_str(i.op.mnemonic());
        for m in &i.mods {
            s.push_str(m);
        }
        let ops: Vec<String> = i.opnds.iter().map(|o| self.opnd_text(o)).collect();
        if !ops.is_empty() {
            s.push(' ');
            s.push_str(&ops.join(", "));
        }
        s
    }

    fn opnd_text(&self, o: &MOpnd) -> String {
        match o {
            MOpnd::Def(r) => self.reg_text(*r),
            MOpnd::Use { r, neg, not } => {
                let pre = match (neg, not) {
                    (true, _) => "-",
                    (_, true) if self.info(r.vreg).class == RegClass::P => "!",
                    (_, true) => "~",
                    _ => "",
                };
                format!("{pre}{}", self.reg_text(*r))
            }
            MOpnd::Fixed(x) => fixed_text(x),
            MOpnd::Mem { base, offset } => {
                let b = base.map_or("RZ".to_string(), |b| self.reg_text(b.into()));
                if *offset == 0 {
                    format!("[{b}]")
                } else {
                    format!("[{b}+{offset:#x}]")
                }
            }
            MOpnd::Target(b) => format!("`({b})"),
            MOpnd::SyncOf(b) => format!("`(after bsync {})", self.reg_text((*b).into())),
        }
    }
}

/// The text of a physical operand (for the virtual-register printer).
fn fixed_text(x: &Operand) -> String {
    use tangle_sass::typed::Val;
    let v = match x.val {
        Val::Reg(r) if r.0 == 255 => "RZ".to_string(),
        Val::Reg(r) => format!("R{}", r.0),
        Val::UReg(r) if r.0 == 63 => "URZ".to_string(),
        Val::UReg(r) => format!("UR{}", r.0),
        Val::Pred(p) if p.0 == 7 => "PT".to_string(),
        Val::Pred(p) => format!("P{}", p.0),
        Val::UPred(p) if p.0 == 7 => "UPT".to_string(),
        Val::UPred(p) => format!("UP{}", p.0),
        Val::Bar(b) => format!("B{}", b.0),
        Val::Imm(i) if i < 0 => format!("-{:#x}", -i),
        Val::Imm(i) => format!("{i:#x}"),
        Val::F32(b) => format!("{}", f32::from_bits(b)),
        Val::F64(b) => format!("{}", f64::from_bits(b)),
        Val::F16(b) => format!("f16:{b:#x}"),
        Val::Bf16(b) => format!("bf16:{b:#x}"),
        Val::CBank { bank, offset } => format!("c[{bank:#x}][{offset:#x}]"),
        Val::CBankIdx { bank, base, offset } if base.0 == 255 => {
            format!("c[{bank:#x}][{offset:#x}]")
        }
        Val::CBankIdx { bank, base, offset } => format!("c[{bank:#x}][R{}+{offset:#x}]", base.0),
        Val::SReg(n) => tangle_sass::sreg_name(n as u64, tangle_sass::Arch::Sm86)
            .unwrap_or_else(|| format!("SR{n}")),
        Val::Target(t) => format!("{t:#x}"),
        Val::Mem(a) if a.offset == 0 => format!("[R{}]", a.base.0),
        Val::Mem(a) => format!("[R{}+{:#x}]", a.base.0, a.offset),
        Val::Fixed(t) => t.to_string(),
        Val::Rpc(h) => h.name().to_string(),
    };
    let mut s = String::new();
    if x.neg {
        s.push('-');
    }
    if x.not {
        s.push(if matches!(x.val, Val::Pred(_) | Val::UPred(_)) {
            '!'
        } else {
            '~'
        });
    }
    s.push_str(&v);
    s
}
