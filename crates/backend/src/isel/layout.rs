//! Where values lie in memory: access chains (constant and dynamic byte offsets through
//! structs, arrays, vectors and matrices) and the byte position of every scalar of a value,
//! by the explicit layout of buffers, push constants and workgroup blocks (`Offset`,
//! `ArrayStride`, `MatrixStride`, `RowMajor`) or by tangle's own elsewhere.

use tangle_ir::{MatrixLayout, Operand, Type, TypeData};
use tangle_sass::typed::RZ;
use tangle_sass::Op;

use super::memory::{Mem, Ptr};
use super::{Frame, Isel, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd, RegClass};

/// One scalar of a value in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Leaf {
    /// Byte offset from the value's start.
    pub(crate) off: u32,
    /// Its register file.
    pub(crate) class: RegClass,
    /// Bytes: 1, 2 or 4.
    pub(crate) size: u32,
}

impl Isel<'_> {
    /// Whether a memory has explicit layout (offsets and strides from decorations) rather
    /// than tangle's own (every scalar 4 bytes, in order).
    pub(crate) fn explicit(mem: Mem) -> bool {
        matches!(
            mem,
            Mem::Buffer(_) | Mem::Buffers(_) | Mem::Global(_) | Mem::Push | Mem::SharedBlock
        )
    }

    /// `OpAccessChain`.
    pub(crate) fn access_chain(
        &mut self,
        args: &[Operand],
        _rty: Type,
        frame: &Frame,
    ) -> Result<Ptr, CompileError> {
        let mut p = self.ptr(args[0], frame)?;
        for a in &args[1..] {
            let idx = self.scalar(*a, frame)?;
            if let Mem::Buffers(cb) = p.mem {
                // A descriptor array's index picks the buffer.
                p = self.descriptor_element(cb, p.ty, idx)?;
                continue;
            }
            let types = &self.module.types;
            let (stride, next) = match types.get(p.ty).clone() {
                TypeData::Struct { members, .. } => {
                    let Sc::Imm(k) = idx else {
                        return Err(self.unsupported("a dynamic struct index"));
                    };
                    let off = if Self::explicit(p.mem) {
                        members[k as usize].offset.unwrap_or(0)
                    } else {
                        let mut n = 0;
                        for m in &members[..k as usize] {
                            n += self.scalar_kinds(m.ty)?.len() as u32;
                        }
                        4 * n
                    };
                    p.off += off;
                    p.ty = members[k as usize].ty;
                    continue;
                }
                TypeData::Array { elem, stride, .. } | TypeData::RuntimeArray { elem, stride } => {
                    let s = match (Self::explicit(p.mem), stride) {
                        (true, Some(s)) => s,
                        _ => 4 * self.scalar_kinds(elem)?.len() as u32,
                    };
                    (s, elem)
                }
                TypeData::Vector { elem, .. } => {
                    let s = if Self::explicit(p.mem) {
                        self.elem_bytes(elem)
                    } else {
                        4 * self.scalar_kinds(elem)?.len() as u32
                    };
                    (s, elem)
                }
                TypeData::Matrix { column, layout, .. } => {
                    self.matrix_step(p.mem, p.ty, column, layout)?
                }
                TypeData::StridedVector { vector, stride } => {
                    let elem = types.scalar_of(vector);
                    if Self::explicit(p.mem) {
                        (stride, elem)
                    } else {
                        (4 * self.scalar_kinds(elem)?.len() as u32, elem)
                    }
                }
                _ => return Err(self.unsupported("an access chain into a scalar")),
            };
            p.ty = next;
            match idx {
                Sc::Imm(k) => p.off = p.off.wrapping_add(k.wrapping_mul(stride)),
                Sc::R(i) => {
                    if matches!(p.mem, Mem::Builtin(_)) {
                        return Err(self.unsupported("a dynamic index into a built-in"));
                    }
                    let d = self.r();
                    let s = self.reg(Sc::Imm(stride))?;
                    let c = match p.dyn_off {
                        Some(x) => MOpnd::use_(x),
                        None => MOpnd::Fixed(RZ.into()),
                    };
                    self.emit(MInst::new(Op::Imad).d(d).u(i).u(s).o(c));
                    p.dyn_off = Some(d);
                }
                _ => return Err(self.unsupported("a boolean index")),
            }
        }
        Ok(p)
    }

    /// The scalars of a value of type `ty` in memory `mem`, with their byte offsets and
    /// sizes: in buffers and push constants by the explicit layout (an 8- or 16-bit scalar
    /// takes its bytes, a 64-bit one two 4-byte words, low first); elsewhere by tangle's own
    /// (every scalar a 4-byte word, in order).
    pub(crate) fn leaves(&self, mem: Mem, ty: Type) -> Result<Vec<Leaf>, CompileError> {
        if !Self::explicit(mem) {
            return Ok(self
                .scalar_kinds(ty)?
                .into_iter()
                .enumerate()
                .map(|(i, class)| Leaf {
                    off: 4 * i as u32,
                    class,
                    size: 4,
                })
                .collect());
        }
        let types = &self.module.types;
        let mut out = Vec::new();
        match types.get(ty).clone() {
            TypeData::Struct { members, .. } => {
                for m in &members {
                    for l in self.leaves(mem, m.ty)? {
                        out.push(Leaf {
                            off: l.off + m.offset.unwrap_or(0),
                            ..l
                        });
                    }
                }
            }
            TypeData::Array { elem, len, stride } => {
                let s = stride.ok_or_else(|| self.unsupported("an array without stride"))?;
                let inner = self.leaves(mem, elem)?;
                for i in 0..len {
                    out.extend(inner.iter().map(|l| Leaf {
                        off: l.off + i * s,
                        ..*l
                    }));
                }
            }
            TypeData::Vector { elem, count } => {
                let inner = self.leaves(mem, elem)?;
                let size = self.elem_bytes(elem);
                for c in 0..count as u32 {
                    out.extend(inner.iter().map(|l| Leaf {
                        off: l.off + c * size,
                        ..*l
                    }));
                }
            }
            TypeData::Matrix {
                column,
                count,
                layout,
            } => {
                let Some(MatrixLayout { stride, row_major }) = layout else {
                    return Err(
                        self.unsupported("a matrix without MatrixStride in laid-out memory")
                    );
                };
                let (elem, rows) = self.column_shape(column)?;
                let inner = self.leaves(mem, elem)?;
                let size = self.elem_bytes(elem);
                for c in 0..u32::from(count) {
                    for i in 0..rows {
                        // Row-major: rows `stride` apart, a row's components consecutive.
                        let at = if row_major {
                            i * stride + c * size
                        } else {
                            c * stride + i * size
                        };
                        out.extend(inner.iter().map(|l| Leaf {
                            off: l.off + at,
                            ..*l
                        }));
                    }
                }
            }
            TypeData::StridedVector { vector, stride } => {
                let (elem, count) = self.column_shape(vector)?;
                let inner = self.leaves(mem, elem)?;
                for i in 0..count {
                    out.extend(inner.iter().map(|l| Leaf {
                        off: l.off + i * stride,
                        ..*l
                    }));
                }
            }
            TypeData::Bool => return Err(self.unsupported("a boolean in a buffer")),
            TypeData::Int { width: 8 | 16, .. } | TypeData::Float { width: 16 } => {
                out.push(Leaf {
                    off: 0,
                    class: RegClass::R,
                    size: types.bit_width(ty) / 8,
                });
            }
            _ => out.extend(
                self.scalar_kinds(ty)?
                    .into_iter()
                    .enumerate()
                    .map(|(i, class)| Leaf {
                        off: 4 * i as u32,
                        class,
                        size: 4,
                    }),
            ),
        }
        Ok(out)
    }

    /// One access-chain step into a matrix of type `ty` in memory `mem`: the byte stride
    /// between its columns and the column's type. In laid-out memory a column-major
    /// column is `MatrixStride` bytes from the next; a row-major one starts one scalar
    /// after the previous and is a strided vector (its components `MatrixStride` apart).
    pub(crate) fn matrix_step(
        &self,
        mem: Mem,
        ty: Type,
        column: Type,
        layout: Option<MatrixLayout>,
    ) -> Result<(u32, Type), CompileError> {
        if !Self::explicit(mem) {
            return Ok((4 * self.scalar_kinds(column)?.len() as u32, column));
        }
        match layout {
            Some(MatrixLayout {
                stride,
                row_major: false,
            }) => Ok((stride, column)),
            Some(MatrixLayout {
                row_major: true, ..
            }) => {
                let (elem, _) = self.column_shape(column)?;
                let strided = self
                    .module
                    .types
                    .matrix_column_in_memory(ty)
                    .ok_or_else(|| {
                        CompileError::Internal(
                            "a row-major matrix without its strided column".into(),
                        )
                    })?;
                Ok((self.elem_bytes(elem), strided))
            }
            None => Err(self.unsupported("a matrix without MatrixStride in laid-out memory")),
        }
    }

    /// The scalar type and the component count of a matrix column (a vector).
    pub(crate) fn column_shape(&self, column: Type) -> Result<(Type, u32), CompileError> {
        match self.module.types.get(column) {
            TypeData::Vector { elem, count } => Ok((*elem, u32::from(*count))),
            _ => Err(self.unsupported("a matrix column that is not a vector")),
        }
    }

    /// The bytes a scalar of type `ty` takes in a buffer (4 for anything else).
    pub(crate) fn elem_bytes(&self, ty: Type) -> u32 {
        match self.module.types.get(ty) {
            TypeData::Int { width, .. } | TypeData::Float { width } => u32::from(*width) / 8,
            _ => 4,
        }
    }
}
