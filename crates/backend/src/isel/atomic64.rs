//! 64-bit atomic operations on buffers: `ATOMG.E.<op>.64` (`.S64` for the signed min and
//! max, `.CAS.64` with pairs for the comparator and the value), as ptxas selects them on
//! every SM; the SASS layer encodes each form as nvdisasm decodes it (`docs/backend.md`).
//! Atomic loads and stores of 64 bits are an add of 0 and an exchange, so neither tears.
//! 64-bit atomics on shared memory are refused: ptxas has `ATOMS.CAS.64`/`.EXCH.64` but
//! builds the others as `ATOMS.CAST.SPIN` loops.

use tangle_ir::{AtomicOp, Operand};
use tangle_sass::typed::PT;
use tangle_sass::Op;

use super::memory::{Mem, Ptr};
use super::{Frame, Isel, MVal, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd, RegClass};

impl Isel<'_> {
    /// A read-modify-write atomic on a 64-bit buffer value; the old value as two words.
    pub(crate) fn atomic64(
        &mut self,
        op: AtomicOp,
        p: &Ptr,
        args: &[Operand],
        frame: &Frame,
    ) -> Result<Option<MVal>, CompileError> {
        if !matches!(p.mem, Mem::Buffer(_) | Mem::Global(_)) {
            return Err(
                self.unsupported(format!("{} on a 64-bit value in shared memory", op.name()))
            );
        }
        let a = self.global_addr(p.mem, p.dyn_off);
        let mem = MOpnd::Mem {
            base: Some(a),
            offset: p.off as i64,
        };
        let d = self.mf.vreg(RegClass::R, 2);
        let base = MInst::new(Op::Atomg).m(".E");
        let value = |s: &mut Self, k: usize| -> Result<[Sc; 2], CompileError> {
            let v = s.scalars(args[k], frame)?;
            match v.as_slice() {
                [lo, hi] => Ok([*lo, *hi]),
                _ => Err(s.unsupported("a 64-bit atomic operand that is not two words")),
            }
        };
        let (name, width, operand): (&'static str, &'static str, [Sc; 2]) = match op {
            AtomicOp::IAdd => (".ADD", ".64", value(self, 1)?),
            AtomicOp::ISub => {
                let v = value(self, 1)?;
                (".ADD", ".64", self.add64([Sc::Imm(0); 2], v, true)?)
            }
            AtomicOp::IIncrement => (".ADD", ".64", [Sc::Imm(1), Sc::Imm(0)]),
            AtomicOp::IDecrement => (".ADD", ".64", [Sc::Imm(u32::MAX); 2]),
            AtomicOp::SMin => (".MIN", ".S64", value(self, 1)?),
            AtomicOp::UMin => (".MIN", ".64", value(self, 1)?),
            AtomicOp::SMax => (".MAX", ".S64", value(self, 1)?),
            AtomicOp::UMax => (".MAX", ".64", value(self, 1)?),
            AtomicOp::And => (".AND", ".64", value(self, 1)?),
            AtomicOp::Or => (".OR", ".64", value(self, 1)?),
            AtomicOp::Xor => (".XOR", ".64", value(self, 1)?),
            AtomicOp::Exchange => (".EXCH", ".64", value(self, 1)?),
            AtomicOp::CompareExchange => {
                // Operands: pointer, value, comparator.
                let v = value(self, 1)?;
                let c = value(self, 2)?;
                let v = self.pack(v[0], v[1])?;
                let c = self.pack(c[0], c[1])?;
                self.emit(
                    base.m(".CAS")
                        .m(".64")
                        .m(".STRONG.GPU")
                        .f(PT)
                        .d(d)
                        .o(mem)
                        .u(c)
                        .u(v),
                );
                return Ok(Some(MVal::Scalars(self.unpack(d).to_vec())));
            }
            // Two words loaded or stored one by one could tear: an atomic load is an add
            // of 0 and a store an exchange whose old value is dropped.
            AtomicOp::Load => (".ADD", ".64", [Sc::Imm(0); 2]),
            AtomicOp::Store => (".EXCH", ".64", value(self, 1)?),
        };
        let v = self.pack(operand[0], operand[1])?;
        self.emit(
            base.m(name)
                .m(width)
                .m(".STRONG.GPU")
                .f(PT)
                .d(d)
                .o(mem)
                .u(v),
        );
        if op == AtomicOp::Store {
            return Ok(None);
        }
        Ok(Some(MVal::Scalars(self.unpack(d).to_vec())))
    }
}
