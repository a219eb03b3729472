//! Built-in inputs: special registers (`S2R`), the launch dimensions in constant bank 0,
//! and the indices computed from them.

use spirv::BuiltIn;
use tangle_ir::Type;
use tangle_sass::typed::{Operand as SOperand, Val, RZ};
use tangle_sass::{sreg_number, Op};

use super::{Isel, MVal, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, VReg};

impl Isel<'_> {
    /// A special register read.
    pub(crate) fn s2r(&mut self, name: &str) -> Result<VReg, CompileError> {
        let n = sreg_number(name, self.opts.arch)
            .ok_or_else(|| CompileError::Internal(format!("no special register {name}")))?;
        let d = self.r();
        self.emit(MInst::new(Op::S2r).d(d).f(Val::SReg(n as u8)));
        Ok(d)
    }

    /// `c[0x0][off]` in a register.
    fn cb0(&mut self, off: u16) -> VReg {
        let d = self.r();
        self.emit(MInst::new(Op::Mov).d(d).f(SOperand::cbank(0, off)));
        d
    }

    /// The local invocation index: `tid.x + ntid.x * (tid.y + ntid.y * tid.z)`.
    pub(crate) fn local_index(&mut self) -> Result<VReg, CompileError> {
        let [x, y, z] = [
            self.s2r("SR_TID.X")?,
            self.s2r("SR_TID.Y")?,
            self.s2r("SR_TID.Z")?,
        ];
        let t = self.r();
        self.emit(
            MInst::new(Op::Imad)
                .d(t)
                .u(z)
                .f(SOperand::cbank(0, 0x4))
                .u(y),
        );
        let i = self.r();
        self.emit(
            MInst::new(Op::Imad)
                .d(i)
                .u(t)
                .f(SOperand::cbank(0, 0x0))
                .u(x),
        );
        Ok(i)
    }

    /// A load of built-in `b` (component offset `off` bytes), of type `ty`.
    pub(crate) fn builtin(&mut self, b: BuiltIn, off: u32, ty: Type) -> Result<MVal, CompileError> {
        let n = self.scalar_kinds(ty)?.len();
        let first = (off / 4) as usize;
        let axes = ["X", "Y", "Z"];
        let mut all = Vec::new();
        match b {
            BuiltIn::LocalInvocationId => {
                for a in axes {
                    all.push(Sc::R(self.s2r(&format!("SR_TID.{a}"))?));
                }
            }
            BuiltIn::WorkgroupId => {
                for a in axes {
                    all.push(Sc::R(self.s2r(&format!("SR_CTAID.{a}"))?));
                }
            }
            BuiltIn::NumWorkgroups => {
                for k in 0..3 {
                    all.push(Sc::R(self.cb0(0xc + 4 * k)));
                }
            }
            BuiltIn::WorkgroupSize => {
                all.extend(self.opts.workgroup_size.map(Sc::Imm));
            }
            BuiltIn::GlobalInvocationId => {
                for (k, a) in axes.iter().enumerate() {
                    let c = self.s2r(&format!("SR_CTAID.{a}"))?;
                    let t = self.s2r(&format!("SR_TID.{a}"))?;
                    let d = self.r();
                    self.emit(
                        MInst::new(Op::Imad)
                            .d(d)
                            .u(c)
                            .f(SOperand::cbank(0, 4 * k as u16))
                            .u(t),
                    );
                    all.push(Sc::R(d));
                }
            }
            BuiltIn::LocalInvocationIndex => all.push(Sc::R(self.local_index()?)),
            BuiltIn::SubgroupLocalInvocationId => all.push(Sc::R(self.s2r("SR_LANEID")?)),
            BuiltIn::SubgroupSize => all.push(Sc::Imm(32)),
            BuiltIn::SubgroupId => {
                let i = self.local_index()?;
                let d = self.r();
                let five = self.reg(Sc::Imm(5))?;
                self.emit(
                    MInst::new(Op::Shf)
                        .m(".R")
                        .m(".U32")
                        .m(".HI")
                        .d(d)
                        .f(RZ)
                        .u(five)
                        .u(i),
                );
                all.push(Sc::R(d));
            }
            BuiltIn::NumSubgroups => {
                let [x, y, z] = self.opts.workgroup_size;
                all.push(Sc::Imm((x * y * z).div_ceil(32)));
            }
            BuiltIn::SubgroupEqMask
            | BuiltIn::SubgroupGeMask
            | BuiltIn::SubgroupGtMask
            | BuiltIn::SubgroupLeMask
            | BuiltIn::SubgroupLtMask => {
                let name = match b {
                    BuiltIn::SubgroupEqMask => "SR_EQMASK",
                    BuiltIn::SubgroupGeMask => "SR_GEMASK",
                    BuiltIn::SubgroupGtMask => "SR_GTMASK",
                    BuiltIn::SubgroupLeMask => "SR_LEMASK",
                    _ => "SR_LTMASK",
                };
                all.push(Sc::R(self.s2r(name)?));
                all.extend([Sc::Imm(0); 3]);
            }
            other => return Err(self.unsupported(format!("built-in {other:?}"))),
        }
        all.get(first..first + n)
            .map(|s| MVal::Scalars(s.to_vec()))
            .ok_or_else(|| self.unsupported(format!("a load of built-in {b:?} of this type")))
    }
}
