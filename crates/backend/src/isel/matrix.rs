//! Matrices: `OpTranspose`, `OpMatrixTimesScalar`, `OpVectorTimesMatrix`,
//! `OpMatrixTimesVector`, `OpMatrixTimesMatrix`, `OpOuterProduct`, and GLSL.std.450
//! `Determinant` and `MatrixInverse`.
//!
//! A matrix value is its columns' scalars in order (flattened as every composite is), so a
//! transpose only reorders scalars. The results are bit-equal to the reference
//! (`tangle-lanes`, `value/matrix.rs`) because the same correctly rounded operations run in
//! the same order: each product and each partial sum is rounded to the component width
//! (`FMUL` then `FADD`, never a fused `FFMA`; f16 through f32 and back, which rounds as
//! the reference's f64 computation does; f64 `DMUL`/`DADD`), a sum starting from its first
//! product. `Determinant` and `MatrixInverse` run in f64 from the exactly widened inputs:
//! cofactor expansion along the first row, each minor's determinant computed as the
//! reference's recursion computes it (a minor met twice is computed once: the same
//! operations on the same inputs give the same bits), each inverse entry the cofactor
//! divided by the determinant with the correctly rounded f64 division, then one rounding to
//! the width.

use std::collections::HashMap;

use tangle_ir::glsl::GlslOp;
use tangle_ir::{Func, Operand, PlainOp, Type, TypeData};
use tangle_sass::Op;

use super::ops::LUT_XOR;
use super::wide::Widths;
use super::{Frame, Isel, MVal, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, RegClass, VReg};

/// Whether `op` is a matrix operation [`Isel::matrix_op`] selects.
pub(crate) fn is_matrix_op(op: PlainOp) -> bool {
    use PlainOp as P;
    matches!(
        op,
        P::MatrixTimesScalar
            | P::VectorTimesMatrix
            | P::MatrixTimesVector
            | P::MatrixTimesMatrix
            | P::OuterProduct
            | P::Transpose
    )
}

/// A float matrix, vector or scalar operand: its width, the words per component (2 for
/// f64), and its components, each as its words; `rows` is the component count of a
/// column (of the vector, for a vector; 1 for a scalar).
struct Floats {
    bits: u32,
    rows: usize,
    comps: Vec<Vec<Sc>>,
}

impl Floats {
    /// Column `c` (components `rows * c ..`).
    fn column(&self, c: usize) -> &[Vec<Sc>] {
        &self.comps[c * self.rows..(c + 1) * self.rows]
    }

    /// The number of columns.
    fn columns(&self) -> usize {
        self.comps.len() / self.rows
    }

    /// Component `i` of column `c`.
    fn at(&self, c: usize, i: usize) -> &[Sc] {
        &self.comps[c * self.rows + i]
    }
}

impl Isel<'_> {
    /// The float operand `o` split into components, with its shape.
    fn floats(&mut self, o: Operand, func: Func, frame: &Frame) -> Result<Floats, CompileError> {
        let ty = self.module.operand_type(&self.module.funcs[func], o);
        let (scalar, rows) = self.float_shape(ty)?;
        let bits = match self.module.types.get(scalar) {
            TypeData::Float {
                width: w @ (16 | 32 | 64),
            } => u32::from(*w),
            _ => return Err(self.unsupported("a matrix operation on non-float values")),
        };
        let words = if bits == 64 { 2 } else { 1 };
        let s = self.scalars(o, frame)?;
        Ok(Floats {
            bits,
            rows,
            comps: s.chunks(words).map(<[Sc]>::to_vec).collect(),
        })
    }

    /// The scalar type and the column length of a matrix, vector or scalar type.
    fn float_shape(&self, ty: Type) -> Result<(Type, usize), CompileError> {
        let types = &self.module.types;
        match types.get(ty) {
            TypeData::Matrix { column, .. } => self.float_shape(*column),
            TypeData::Vector { elem, count } => Ok((*elem, usize::from(*count))),
            TypeData::Float { .. } => Ok((ty, 1)),
            _ => Err(self.unsupported("a matrix operation on non-float values")),
        }
    }

    /// `x op y` (`FMul` or `FAdd`) on components of width `bits`, rounded once to it.
    fn farith(
        &mut self,
        op: PlainOp,
        x: &[Sc],
        y: &[Sc],
        bits: u32,
    ) -> Result<Vec<Sc>, CompileError> {
        if bits == 32 {
            return Ok(vec![self.plain_scalar(op, &[x[0], y[0]])?]);
        }
        let half = bits == 16;
        let w = Widths {
            args: &[bits, bits],
            out: bits,
            out_int: false,
            float64: bits == 64,
            half_args: &[half, half],
            half_out: half,
        };
        self.plain_elem(op, &[x, y], &w)
    }

    /// Σ a[k]·b[k] in index order, each product and partial sum rounded to `bits`.
    fn fdot(&mut self, a: &[&[Sc]], b: &[&[Sc]], bits: u32) -> Result<Vec<Sc>, CompileError> {
        let mut acc: Option<Vec<Sc>> = None;
        for (x, y) in a.iter().zip(b) {
            let p = self.farith(PlainOp::FMul, x, y, bits)?;
            acc = Some(match acc {
                None => p,
                Some(s) => self.farith(PlainOp::FAdd, &s, &p, bits)?,
            });
        }
        acc.ok_or_else(|| self.unsupported("a matrix operation on empty operands"))
    }

    /// A matrix plain operation.
    pub(crate) fn matrix_op(
        &mut self,
        op: PlainOp,
        args: &[Operand],
        func: Func,
        frame: &Frame,
    ) -> Result<MVal, CompileError> {
        use PlainOp as P;
        let a = self.floats(args[0], func, frame)?;
        let bits = a.bits;
        let mut out: Vec<Sc> = Vec::new();
        match op {
            P::Transpose => {
                // Column i of the result is row i of the operand.
                for i in 0..a.rows {
                    for c in 0..a.columns() {
                        out.extend_from_slice(a.at(c, i));
                    }
                }
            }
            P::MatrixTimesScalar => {
                let s = self.floats(args[1], func, frame)?;
                for x in &a.comps {
                    out.extend(self.farith(P::FMul, x, &s.comps[0], bits)?);
                }
            }
            P::VectorTimesMatrix => {
                // Component j: the vector dotted with column j.
                let m = self.floats(args[1], func, frame)?;
                let v: Vec<&[Sc]> = a.comps.iter().map(Vec::as_slice).collect();
                for c in 0..m.columns() {
                    let col: Vec<&[Sc]> = m.column(c).iter().map(Vec::as_slice).collect();
                    out.extend(self.fdot(&v, &col, bits)?);
                }
            }
            P::MatrixTimesVector => {
                let v = self.floats(args[1], func, frame)?;
                out = self.times_vector(&a, &v.comps)?;
            }
            P::MatrixTimesMatrix => {
                // Column j: the left matrix times the right one's column j.
                let r = self.floats(args[1], func, frame)?;
                for c in 0..r.columns() {
                    let col = r.column(c).to_vec();
                    out.extend(self.times_vector(&a, &col)?);
                }
            }
            P::OuterProduct => {
                // Column j: the first vector times component j of the second.
                let b = self.floats(args[1], func, frame)?;
                for y in &b.comps {
                    for x in &a.comps {
                        out.extend(self.farith(P::FMul, x, y, bits)?);
                    }
                }
            }
            other => return Err(self.unsupported(format!("{} on a matrix", other.name()))),
        }
        Ok(MVal::Scalars(out))
    }

    /// M·v: component i is row i of M dotted with v.
    fn times_vector(&mut self, m: &Floats, v: &[Vec<Sc>]) -> Result<Vec<Sc>, CompileError> {
        let vs: Vec<&[Sc]> = v.iter().map(Vec::as_slice).collect();
        let mut out = Vec::new();
        for i in 0..m.rows {
            let row: Vec<&[Sc]> = (0..m.columns()).map(|c| m.at(c, i)).collect();
            out.extend(self.fdot(&row, &vs, m.bits)?);
        }
        Ok(out)
    }

    /// GLSL `Determinant` and `MatrixInverse` of a square float matrix.
    pub(crate) fn glsl_matrix(
        &mut self,
        g: GlslOp,
        args: &[Operand],
        func: Func,
        frame: &Frame,
    ) -> Result<MVal, CompileError> {
        let m = self.floats(args[0], func, frame)?;
        let n = m.rows;
        if m.columns() != n || !(2..=4).contains(&n) {
            return Err(self.unsupported(format!("glsl {} of a non-square matrix", g.name())));
        }
        // a[i][j]: row i, column j, as an exact f64 pair.
        let mut a = Vec::with_capacity(n);
        for i in 0..n {
            let mut row = Vec::with_capacity(n);
            for j in 0..n {
                row.push(self.widen64(m.at(j, i), m.bits)?);
            }
            a.push(row);
        }
        let mut minors = Minors {
            a,
            memo: HashMap::new(),
        };
        let all = (1u8 << n) - 1;
        let det = self.minor_det(&mut minors, all, all)?;
        match g {
            GlslOp::Determinant => Ok(MVal::Scalars(self.narrow64(det, m.bits)?)),
            GlslOp::MatrixInverse => {
                // Entry (row i, column j) is cofactor(j, i) / det. A singular matrix has an
                // undefined inverse: whatever the division gives.
                let mut out = Vec::new();
                for j in 0..n {
                    for i in 0..n {
                        let c = self.cofactor(&mut minors, all, all, j, i)?;
                        let q = self.ddiv(c, det)?;
                        out.extend(self.narrow64(q, m.bits)?);
                    }
                }
                Ok(MVal::Scalars(out))
            }
            other => Err(self.unsupported(format!("glsl {} on a matrix", other.name()))),
        }
    }

    /// The determinant of the submatrix of rows `rows` and columns `cols` (bit sets), as
    /// the reference computes it: 1×1 the entry; 2×2 `a00·a11 - a01·a10`; larger, the sum
    /// over the first row's entries times their cofactors, in column order.
    fn minor_det(&mut self, m: &mut Minors, rows: u8, cols: u8) -> Result<VReg, CompileError> {
        if let Some(&d) = m.memo.get(&(rows, cols)) {
            return Ok(d);
        }
        let r: Vec<usize> = bits_of(rows);
        let c: Vec<usize> = bits_of(cols);
        let d = match r.len() {
            1 => m.a[r[0]][c[0]],
            2 => {
                let p = self.dop(Op::Dmul, m.a[r[0]][c[0]], m.a[r[1]][c[1]], false);
                let q = self.dop(Op::Dmul, m.a[r[0]][c[1]], m.a[r[1]][c[0]], false);
                self.dop(Op::Dadd, p, q, true)
            }
            _ => {
                // Rust's f64 `sum` starts from -0.0, and -0.0 + x is x: the first term.
                let mut acc: Option<VReg> = None;
                for (k, _) in c.iter().enumerate() {
                    let cof = self.cofactor(m, rows, cols, 0, k)?;
                    let t = self.dop(Op::Dmul, m.a[r[0]][c[k]], cof, false);
                    acc = Some(match acc {
                        None => t,
                        Some(s) => self.dop(Op::Dadd, s, t, false),
                    });
                }
                acc.expect("a minor of at least three columns")
            }
        };
        m.memo.insert((rows, cols), d);
        Ok(d)
    }

    /// The cofactor of entry (i, j) (positions within the submatrix `rows` × `cols`): the
    /// determinant without that row and column, negated (sign bit flipped) where i + j is
    /// odd.
    fn cofactor(
        &mut self,
        m: &mut Minors,
        rows: u8,
        cols: u8,
        i: usize,
        j: usize,
    ) -> Result<VReg, CompileError> {
        let row = 1u8 << bits_of(rows)[i];
        let col = 1u8 << bits_of(cols)[j];
        let d = self.minor_det(m, rows & !row, cols & !col)?;
        if (i + j) % 2 == 0 {
            return Ok(d);
        }
        let [lo, hi] = self.unpack(d);
        let hi = self.sign_bit_op(hi, LUT_XOR)?;
        self.pack(lo, hi)
    }

    /// `DMUL`/`DADD` of two f64 pairs (`neg`: the second negated).
    fn dop(&mut self, op: Op, x: VReg, y: VReg, neg: bool) -> VReg {
        let d = self.mf.vreg(RegClass::R, 2);
        let y = if neg {
            crate::mir::MOpnd::neg(y)
        } else {
            crate::mir::MOpnd::use_(y)
        };
        self.emit(MInst::new(op).d(d).u(x).o(y));
        d
    }
}

/// The f64 entries of a square matrix and the determinants of the minors computed so far
/// (keyed by their row and column bit sets).
struct Minors {
    a: Vec<Vec<VReg>>,
    memo: HashMap<(u8, u8), VReg>,
}

/// The positions of the set bits of `set`, lowest first.
fn bits_of(set: u8) -> Vec<usize> {
    (0..8).filter(|b| set & (1 << b) != 0).collect()
}
