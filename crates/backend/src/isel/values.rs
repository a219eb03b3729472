//! IR values as machine values: the register classes a type flattens into, operands
//! looked up in a frame or built from constants, and scalars put in general or predicate
//! registers as an instruction needs them.

use tangle_ir::{Func, Operand, Type, TypeData};
use tangle_lanes::value::Val;
use tangle_sass::typed::Operand as SOperand;
use tangle_sass::typed::{PT, RZ};
use tangle_sass::Op;

use super::{Frame, Isel, MVal, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd, RegClass, VReg};

impl Isel<'_> {
    /// The register classes of the scalars of a value of type `ty`.
    pub(crate) fn scalar_kinds(&self, ty: Type) -> Result<Vec<RegClass>, CompileError> {
        let types = &self.module.types;
        Ok(match types.get(ty) {
            TypeData::Bool => vec![RegClass::P],
            TypeData::Int { width: 32, .. } | TypeData::Float { width: 32 } => vec![RegClass::R],
            // Integers of 8 and 16 bits and f16 live zero-extended in a 32-bit register.
            TypeData::Int { width: 8 | 16, .. } | TypeData::Float { width: 16 } => {
                vec![RegClass::R]
            }
            // A 64-bit integer or float is its low and its high word.
            TypeData::Int { width: 64, .. } | TypeData::Float { width: 64 } => {
                vec![RegClass::R, RegClass::R]
            }
            TypeData::Int { width, .. } => {
                return Err(self.unsupported(format!("{width}-bit integers")))
            }
            TypeData::Float { width } => return Err(self.unsupported(format!("f{width}"))),
            // A matrix is its columns in order.
            TypeData::Vector { elem, count }
            | TypeData::Matrix {
                column: elem,
                count,
                ..
            } => {
                let e = self.scalar_kinds(*elem)?;
                e.iter()
                    .cycle()
                    .take(e.len() * *count as usize)
                    .copied()
                    .collect()
            }
            TypeData::Array { elem, len, .. } => {
                let e = self.scalar_kinds(*elem)?;
                e.iter()
                    .cycle()
                    .take(e.len() * *len as usize)
                    .copied()
                    .collect()
            }
            TypeData::Struct { members, .. } => {
                let mut out = Vec::new();
                for m in members {
                    out.extend(self.scalar_kinds(m.ty)?);
                }
                out
            }
            // A strided column (a pointee only) is its vector.
            TypeData::StridedVector { vector, .. } => self.scalar_kinds(*vector)?,
            other => return Err(self.unsupported(format!("values of type {other:?}"))),
        })
    }

    /// The bit width of an operand's scalars (its vector's element; 1 for booleans).
    pub(crate) fn operand_bits(&self, func: Func, o: Operand) -> u32 {
        let ty = self.module.operand_type(&self.module.funcs[func], o);
        self.module.types.bit_width(ty)
    }

    /// The machine value of an operand.
    pub(crate) fn val(&mut self, o: Operand, frame: &Frame) -> Result<MVal, CompileError> {
        match o {
            Operand::Value(v) => frame.values.get(&v).cloned().ok_or_else(|| {
                CompileError::Internal(format!("{}: {v} used before it was selected", self.at))
            }),
            Operand::Const(c) => {
                let ty = self.module.consts[c].ty;
                let val = self.opts.consts[c.as_u32() as usize].clone();
                self.const_val(ty, &val).map(MVal::Scalars)
            }
            Operand::Global(g) => self.global_ptr(g).map(MVal::Ptr),
        }
    }

    /// The scalars of a constant: each 64-bit scalar as its low and high words, an
    /// undefined value (of any shape) as zeros.
    pub(crate) fn const_val(&self, ty: Type, v: &Val) -> Result<Vec<Sc>, CompileError> {
        let kinds = self.scalar_kinds(ty)?;
        let mut flat = Vec::with_capacity(kinds.len());
        self.const_walk(ty, v, &mut flat)?;
        if flat.len() != kinds.len() {
            // An undefined composite: one undefined value for every scalar.
            flat = vec![None; kinds.len()];
        }
        Ok(kinds
            .iter()
            .zip(flat)
            .map(|(k, b)| match k {
                RegClass::P => Sc::Bool(b.unwrap_or(0) != 0),
                _ => Sc::Imm(b.unwrap_or(0)),
            })
            .collect())
    }

    /// The 32-bit words (or booleans) of constant `v` of type `ty`, `None` where undefined.
    fn const_walk(
        &self,
        ty: Type,
        v: &Val,
        out: &mut Vec<Option<u32>>,
    ) -> Result<(), CompileError> {
        let types = &self.module.types;
        match (types.get(ty).clone(), v) {
            (
                TypeData::Vector { elem, .. }
                | TypeData::Array { elem, .. }
                | TypeData::Matrix { column: elem, .. },
                Val::Comp(cs),
            ) => {
                for c in cs {
                    self.const_walk(elem, c, out)?;
                }
            }
            (TypeData::Struct { members, .. }, Val::Comp(cs)) => {
                for (m, c) in members.iter().zip(cs) {
                    self.const_walk(m.ty, c, out)?;
                }
            }
            (TypeData::Int { width: 64, .. } | TypeData::Float { width: 64 }, Val::Bits(b)) => {
                out.push(Some(*b as u32));
                out.push(Some((*b >> 32) as u32));
            }
            (_, Val::Bool(b)) => out.push(Some(*b as u32)),
            (_, Val::Bits(b)) => out.push(Some(*b as u32)),
            _ => {
                let n = self.scalar_kinds(ty)?.len();
                out.extend(std::iter::repeat_n(None, n));
            }
        }
        Ok(())
    }

    /// The scalars of an operand that must be a plain value.
    pub(crate) fn scalars(&mut self, o: Operand, frame: &Frame) -> Result<Vec<Sc>, CompileError> {
        match self.val(o, frame)? {
            MVal::Scalars(s) => Ok(s),
            _ => Err(self.unsupported("a pointer or barrier where a value was expected")),
        }
    }

    /// The one scalar of an operand.
    pub(crate) fn scalar(&mut self, o: Operand, frame: &Frame) -> Result<Sc, CompileError> {
        let s = self.scalars(o, frame)?;
        match s.as_slice() {
            [x] => Ok(*x),
            _ => Err(self.unsupported("a composite where a scalar was expected")),
        }
    }

    /// A general register holding `sc`.
    pub(crate) fn reg(&mut self, sc: Sc) -> Result<VReg, CompileError> {
        match sc {
            Sc::R(v) => Ok(v),
            Sc::Imm(k) => {
                let v = self.mf.vreg(RegClass::R, 1);
                self.emit(MInst::new(Op::Mov).d(v).imm(k as i64));
                Ok(v)
            }
            Sc::P(_) | Sc::Bool(_) => {
                Err(self.unsupported("a boolean where a number was expected"))
            }
        }
    }

    /// A predicate register holding `sc`.
    pub(crate) fn pred(&mut self, sc: Sc) -> Result<VReg, CompileError> {
        match sc {
            Sc::P(v) => Ok(v),
            Sc::Bool(b) => {
                let v = self.mf.vreg(RegClass::P, 1);
                // P = (0 == 0) AND PT, or its complement.
                self.emit(
                    MInst::new(Op::Isetp)
                        .m(if b { ".EQ" } else { ".NE" })
                        .m(".U32")
                        .m(".AND")
                        .d(v)
                        .f(PT)
                        .f(RZ)
                        .f(RZ)
                        .f(PT),
                );
                Ok(v)
            }
            _ => Err(self.unsupported("a number where a boolean was expected")),
        }
    }

    /// A predicate operand for `sc` (a register, or `PT` / `!PT` for constants).
    pub(crate) fn pred_opnd(&mut self, sc: Sc) -> Result<MOpnd, CompileError> {
        match sc {
            Sc::Bool(true) => Ok(MOpnd::Fixed(PT.into())),
            Sc::Bool(false) => Ok(MOpnd::Fixed(!SOperand::from(PT))),
            _ => Ok(MOpnd::use_(self.pred(sc)?)),
        }
    }
}

/// Flattened position of the element `indices` select in a value of type `ty`: the first
/// scalar, the number of scalars and the element's type.
pub(crate) fn sub_range(
    s: &Isel<'_>,
    mut ty: Type,
    indices: &[u32],
) -> Result<(usize, usize, Type), CompileError> {
    let mut start = 0;
    for &i in indices {
        let types = &s.module.types;
        match types.get(ty).clone() {
            TypeData::Struct { members, .. } => {
                for m in &members[..i as usize] {
                    start += s.scalar_kinds(m.ty)?.len();
                }
                ty = members[i as usize].ty;
            }
            TypeData::Vector { elem, .. }
            | TypeData::Array { elem, .. }
            | TypeData::Matrix { column: elem, .. } => {
                start += i as usize * s.scalar_kinds(elem)?.len();
                ty = elem;
            }
            _ => return Err(s.unsupported("composite index into a scalar")),
        }
    }
    Ok((start, s.scalar_kinds(ty)?.len(), ty))
}
