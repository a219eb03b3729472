//! Variable pointers: pointers chosen at run time by `OpSelect` or by phis.
//!
//! A pointer is otherwise a compile-time memory with a byte offset (`Ptr`). One chosen at
//! run time keeps a run-time form that both sides share: a buffer pointer (storage
//! buffer, uniform) becomes its 64-bit address, a pointer into the frame or shared memory
//! its byte offset in that memory. A null pointer (`OpConstantNull`) is address 0 /
//! offset 0; loading through it is undefined, so any value will do.

use spirv::StorageClass;
use tangle_ir::{Operand, Type, TypeData};
use tangle_sass::typed::RZ;
use tangle_sass::Op;

use super::memory::{Mem, Ptr};
use super::{Frame, Isel, MVal, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, RegClass, VReg};

/// The run-time form of a pointer chosen at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PtrForm {
    /// A 64-bit global address (low word, high word): buffers.
    Address,
    /// A 32-bit byte offset into this memory: the frame or shared memory.
    Offset(Mem),
}

impl PtrForm {
    /// How many 32-bit words the form takes.
    pub(crate) fn words(self) -> usize {
        match self {
            PtrForm::Address => 2,
            PtrForm::Offset(_) => 1,
        }
    }
}

impl Isel<'_> {
    /// The run-time form of pointers of type `ptr_ty` and their pointee type, or an
    /// "unsupported" error for memories whose pointers cannot be chosen at run time.
    pub(crate) fn ptr_form(&self, ptr_ty: Type) -> Result<(PtrForm, Type), CompileError> {
        let Some((storage, pointee)) = self.module.types.pointer(ptr_ty) else {
            return Err(CompileError::Internal(
                "a pointer form of a non-pointer".into(),
            ));
        };
        let form = match storage {
            StorageClass::StorageBuffer | StorageClass::Uniform => PtrForm::Address,
            StorageClass::Function | StorageClass::Private => PtrForm::Offset(Mem::Local),
            // Workgroup variables are either all explicitly laid out blocks or none
            // (SPV_KHR_workgroup_memory_explicit_layout).
            StorageClass::Workgroup if self.has_workgroup_blocks() => {
                PtrForm::Offset(Mem::SharedBlock)
            }
            StorageClass::Workgroup => PtrForm::Offset(Mem::Shared),
            other => {
                return Err(self.unsupported(format!("a {other:?} pointer chosen at run time")))
            }
        };
        Ok((form, pointee))
    }

    /// Whether a `Workgroup` variable of the module is an explicitly laid out block.
    fn has_workgroup_blocks(&self) -> bool {
        let types = &self.module.types;
        self.module.globals.iter().any(|(_, d)| {
            d.storage == StorageClass::Workgroup
                && types
                    .pointer(d.ty)
                    .is_some_and(|(_, t)| tangle_lanes::memory::is_block(types, t))
        })
    }

    /// The pointer a run-time form's words stand for.
    pub(crate) fn ptr_of_words(&mut self, form: PtrForm, ty: Type, words: &[VReg]) -> Ptr {
        match form {
            PtrForm::Address => Ptr {
                mem: Mem::Global(self.pair(words[0], words[1])),
                off: 0,
                dyn_off: None,
                ty,
            },
            PtrForm::Offset(mem) => Ptr {
                mem,
                off: 0,
                dyn_off: Some(words[0]),
                ty,
            },
        }
    }

    /// The run-time words of pointer operand `o` in form `form`, computed in the current
    /// block (a null pointer constant gives zeros).
    pub(crate) fn ptr_words(
        &mut self,
        o: Operand,
        form: PtrForm,
        frame: &Frame,
    ) -> Result<Vec<Sc>, CompileError> {
        let p = match self.val(o, frame) {
            Ok(MVal::Ptr(p)) => p,
            // A constant of pointer type is OpConstantNull (or undefined): zeros.
            _ if matches!(o, Operand::Const(_)) => return Ok(vec![Sc::Imm(0); form.words()]),
            Ok(_) => return Err(self.unsupported("a value where a pointer was expected")),
            Err(e) => return Err(e),
        };
        // The byte offset within the memory: the constant and the dynamic part.
        let offset = match p.dyn_off {
            None => Sc::Imm(p.off),
            Some(d) if p.off == 0 => Sc::R(d),
            Some(d) => {
                let t = self.r();
                self.emit(MInst::new(Op::Iadd3).d(t).u(d).imm(p.off as i64).f(RZ));
                Sc::R(t)
            }
        };
        match (form, p.mem) {
            (PtrForm::Address, Mem::Buffer(_) | Mem::Global(_)) => {
                let base = self.global_addr(p.mem, None);
                let a = match offset {
                    Sc::Imm(0) => base,
                    _ => {
                        let t = self.reg(offset)?;
                        let a = self.mf.vreg(RegClass::R, 2);
                        self.emit(
                            MInst::new(Op::Imad)
                                .m(".WIDE")
                                .m(".U32")
                                .d(a)
                                .u(t)
                                .imm(1)
                                .u(base),
                        );
                        a
                    }
                };
                Ok(vec![Sc::R(self.word(a, 0)), Sc::R(self.word(a, 1))])
            }
            (PtrForm::Offset(mem), m) if m == mem => Ok(vec![offset]),
            (_, m) => Err(self.unsupported(format!(
                "a pointer into {m:?} chosen at run time among others"
            ))),
        }
    }

    /// `OpSelect` of two pointers of type `rty`: each side's run-time words, `SEL` word by
    /// word.
    pub(crate) fn select_ptr(
        &mut self,
        args: &[Operand],
        rty: Type,
        frame: &Frame,
    ) -> Result<MVal, CompileError> {
        let (form, ty) = self.ptr_form(rty)?;
        let c = self.scalar(args[0], frame)?;
        let x = self.ptr_words(args[1], form, frame)?;
        let y = self.ptr_words(args[2], form, frame)?;
        let c = self.pred_opnd(c)?;
        let mut words = Vec::new();
        for (a, b) in x.into_iter().zip(y) {
            let a = self.reg(a)?;
            let b = self.reg(b)?;
            let d = self.r();
            self.emit(MInst::new(Op::Sel).d(d).u(a).u(b).o(c));
            words.push(d);
        }
        Ok(MVal::Ptr(self.ptr_of_words(form, ty, &words)))
    }

    /// Whether `ty` is a pointer type (whose phis and selects take [`PtrForm`]s).
    pub(crate) fn is_pointer(&self, ty: Type) -> bool {
        matches!(self.module.types.get(ty), TypeData::Pointer { .. })
    }

    /// The destination registers of a phi of type `ty`, the value it stands for and, for
    /// a pointer phi, the run-time form its incoming pointers take.
    pub(crate) fn phi_value(
        &mut self,
        ty: Type,
    ) -> Result<(Vec<VReg>, MVal, Option<PtrForm>), CompileError> {
        if self.is_pointer(ty) {
            let (form, pointee) = self.ptr_form(ty)?;
            let dsts: Vec<VReg> = (0..form.words()).map(|_| self.r()).collect();
            let p = self.ptr_of_words(form, pointee, &dsts);
            return Ok((dsts, MVal::Ptr(p), Some(form)));
        }
        let mut dsts = Vec::new();
        let mut scs = Vec::new();
        for k in self.scalar_kinds(ty)? {
            let v = self.mf.vreg(k, 1);
            dsts.push(v);
            scs.push(if k == RegClass::P { Sc::P(v) } else { Sc::R(v) });
        }
        Ok((dsts, MVal::Scalars(scs), None))
    }
}
