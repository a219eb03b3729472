//! Matrix operations: `OpMatrixTimesScalar`, `OpVectorTimesMatrix`, `OpMatrixTimesVector`,
//! `OpMatrixTimesMatrix`, `OpOuterProduct`, `OpTranspose`, and GLSL.std.450 `Determinant`
//! and `MatrixInverse`.
//!
//! A matrix value is its columns in order (`Val::Comp` of column vectors). Products are
//! sums of products taken in index order, each multiplication and addition rounded to the
//! component width (as `dot` does), the sum starting from the first product. `Determinant`
//! and `MatrixInverse` are computed in `f64` from the exact inputs (cofactor expansion, the
//! adjugate over the determinant) and rounded once to the width; SPIR-V gives them no exact
//! precision, and the CTS checks them against tolerances. The inverse of a singular matrix
//! is undefined (GLSL: "undefined if m is singular").

use tangle_ir::glsl::GlslOp;
use tangle_ir::{PlainOp, Type, TypeData, TypeTable};

use super::float::{fbin, from_f, to_f};
use super::{unsupported, OpResult, Poison, Val};

/// Whether `op` is a matrix operation [`plain`] computes.
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

/// The component width of a float matrix, vector or scalar type.
fn float_width(types: &TypeTable, ty: Type) -> Option<u32> {
    match types.get(ty) {
        TypeData::Float { width } => Some(u32::from(*width)),
        TypeData::Vector { elem, .. } => float_width(types, *elem),
        TypeData::Matrix { column, .. } => float_width(types, *column),
        _ => None,
    }
}

/// The scalars of a vector value (a scalar is one).
fn comps(v: &Val) -> Result<Vec<u64>, super::OpFail> {
    match v {
        Val::Comp(c) => c.iter().map(Val::scalar).collect(),
        v => Ok(vec![v.scalar()?]),
    }
}

/// The columns of a matrix value, each as its scalars.
fn columns(v: &Val) -> Result<Vec<Vec<u64>>, super::OpFail> {
    match v {
        Val::Comp(c) => c.iter().map(comps).collect(),
        _ => unsupported("a matrix operand that is not a composite"),
    }
}

fn vector(c: Vec<u64>) -> Val {
    Val::Comp(c.into_iter().map(Val::Bits).collect())
}

fn matrix(cols: Vec<Vec<u64>>) -> Val {
    Val::Comp(cols.into_iter().map(vector).collect())
}

/// Σ a[k]·b[k] in index order, each step rounded to width `w`.
fn dot(a: &[u64], b: &[u64], w: u32) -> Result<u64, super::OpFail> {
    let mut acc: Option<u64> = None;
    for (x, y) in a.iter().zip(b) {
        let p = fbin(*x, *y, w, |a, b| a * b)?;
        acc = Some(match acc {
            None => p,
            Some(s) => fbin(s, p, w, |a, b| a + b)?,
        });
    }
    match acc {
        Some(s) => Ok(s),
        None => from_f(0.0, w),
    }
}

/// Row `i` of a matrix given as columns.
fn row(cols: &[Vec<u64>], i: usize) -> Vec<u64> {
    cols.iter().map(|c| c[i]).collect()
}

/// Evaluates matrix plain op `op` on defined operands (the caller makes the result
/// undefined as a whole when an operand has an undefined component).
pub(crate) fn plain(types: &TypeTable, op: PlainOp, rty: Type, args: &[Val]) -> OpResult {
    use PlainOp as P;
    let Some(w) = float_width(types, rty) else {
        return unsupported(format!("{} with a non-float result", op.name()));
    };
    Ok(match op {
        P::MatrixTimesScalar => {
            let s = args[1].scalar()?;
            let cols = columns(&args[0])?
                .into_iter()
                .map(|c| c.iter().map(|x| fbin(*x, s, w, |a, b| a * b)).collect())
                .collect::<Result<_, _>>()?;
            matrix(cols)
        }
        P::VectorTimesMatrix => {
            let v = comps(&args[0])?;
            let m = columns(&args[1])?;
            vector(m.iter().map(|c| dot(&v, c, w)).collect::<Result<_, _>>()?)
        }
        P::MatrixTimesVector => {
            let m = columns(&args[0])?;
            let v = comps(&args[1])?;
            vector(times_vector(&m, &v, w)?)
        }
        P::MatrixTimesMatrix => {
            let l = columns(&args[0])?;
            let r = columns(&args[1])?;
            let cols = r
                .iter()
                .map(|c| times_vector(&l, c, w))
                .collect::<Result<_, _>>()?;
            matrix(cols)
        }
        P::OuterProduct => {
            let a = comps(&args[0])?;
            let b = comps(&args[1])?;
            let cols = b
                .iter()
                .map(|y| a.iter().map(|x| fbin(*x, *y, w, |a, b| a * b)).collect())
                .collect::<Result<_, _>>()?;
            matrix(cols)
        }
        P::Transpose => {
            let m = columns(&args[0])?;
            let rows = m.first().map_or(0, Vec::len);
            matrix((0..rows).map(|i| row(&m, i)).collect())
        }
        other => return unsupported(format!("{} is not a matrix operation", other.name())),
    })
}

/// M·v: component i is row i of M dotted with v.
fn times_vector(m: &[Vec<u64>], v: &[u64], w: u32) -> Result<Vec<u64>, super::OpFail> {
    let rows = m.first().map_or(0, Vec::len);
    (0..rows).map(|i| dot(&row(m, i), v, w)).collect()
}

/// `Determinant` or `MatrixInverse` of a defined square matrix `arg` of type `aty`.
pub(crate) fn glsl(types: &TypeTable, op: GlslOp, aty: Type, arg: &Val) -> OpResult {
    let Some(w) = float_width(types, aty) else {
        return unsupported(format!("{} of a non-float matrix", op.name()));
    };
    let m: Vec<Vec<f64>> = columns(arg)?
        .iter()
        .map(|c| c.iter().map(|b| to_f(*b, w)).collect())
        .collect::<Result<_, _>>()?;
    let n = m.len();
    if m.iter().any(|c| c.len() != n) || !(2..=4).contains(&n) {
        return unsupported(format!("{} of a matrix that is not square", op.name()));
    }
    // Row-major copy: a[i][j] is row i, column j.
    let a: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| m[j][i]).collect()).collect();
    let det = determinant(&a);
    match op {
        GlslOp::Determinant => Ok(Val::Bits(from_f(det, w)?)),
        GlslOp::MatrixInverse => {
            if det == 0.0 || !det.is_finite() {
                return Ok(Poison::here("the inverse of a singular matrix"));
            }
            // inverse[i][j] = cofactor(j, i) / det; stored as columns: column j, row i.
            let cols = (0..n)
                .map(|j| {
                    (0..n)
                        .map(|i| from_f(cofactor(&a, j, i) / det, w))
                        .collect::<Result<Vec<u64>, _>>()
                })
                .collect::<Result<_, _>>()?;
            Ok(matrix(cols))
        }
        other => unsupported(format!("{} is not a matrix instruction", other.name())),
    }
}

/// The determinant of the square matrix `a` (rows), by cofactor expansion along row 0.
fn determinant(a: &[Vec<f64>]) -> f64 {
    match a.len() {
        0 => 1.0,
        1 => a[0][0],
        2 => a[0][0] * a[1][1] - a[0][1] * a[1][0],
        n => (0..n).map(|j| a[0][j] * cofactor(a, 0, j)).sum(),
    }
}

/// The cofactor of entry (i, j): the signed determinant of `a` without row i and column j.
fn cofactor(a: &[Vec<f64>], i: usize, j: usize) -> f64 {
    let minor: Vec<Vec<f64>> = a
        .iter()
        .enumerate()
        .filter(|(r, _)| *r != i)
        .map(|(_, row)| {
            row.iter()
                .enumerate()
                .filter(|(c, _)| *c != j)
                .map(|(_, x)| *x)
                .collect()
        })
        .collect();
    let d = determinant(&minor);
    if (i + j) % 2 == 0 {
        d
    } else {
        -d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32]) -> Vec<u64> {
        v.iter().map(|x| u64::from(x.to_bits())).collect()
    }

    fn back(v: &Val) -> Vec<Vec<f32>> {
        match v {
            Val::Comp(c) => c
                .iter()
                .map(|col| match col {
                    Val::Comp(x) => x.iter().map(|b| f32::from_bits(b.bits() as u32)).collect(),
                    b => vec![f32::from_bits(b.bits() as u32)],
                })
                .collect(),
            _ => panic!("not a composite: {v:?}"),
        }
    }

    fn types() -> (TypeTable, Type, Type, Type, Type) {
        let mut t = TypeTable::new();
        let f = t.intern(TypeData::Float { width: 32 });
        let v2 = t.intern(TypeData::Vector { elem: f, count: 2 });
        let v3 = t.intern(TypeData::Vector { elem: f, count: 3 });
        let m2x3 = t.matrix(v3, 2, None); // 2 columns of vec3: mat2x3
        let m3x2 = t.matrix(v2, 3, None);
        (t, v2, v3, m2x3, m3x2)
    }

    /// Hand-computed: M = [[1,2,3],[4,5,6]] as columns (mat2x3), v = (7, 8).
    #[test]
    fn products_match_hand_computed_values() {
        let (t, v2, v3, m2x3, m3x2) = types();
        let m = matrix(vec![f32s(&[1.0, 2.0, 3.0]), f32s(&[4.0, 5.0, 6.0])]);
        let v = vector(f32s(&[7.0, 8.0]));
        // M·v = 7·(1,2,3) + 8·(4,5,6) = (39, 54, 69).
        let r = plain(&t, PlainOp::MatrixTimesVector, v3, &[m.clone(), v]).unwrap();
        assert_eq!(back(&r), vec![vec![39.0], vec![54.0], vec![69.0]]);
        // u·M with u = (1, 0, -1): (1-3, 4-6) = (-2, -2).
        let u = vector(f32s(&[1.0, 0.0, -1.0]));
        let r = plain(&t, PlainOp::VectorTimesMatrix, v2, &[u, m.clone()]).unwrap();
        assert_eq!(back(&r), vec![vec![-2.0], vec![-2.0]]);
        // Transpose: mat3x2 with columns (1,4), (2,5), (3,6).
        let r = plain(&t, PlainOp::Transpose, m3x2, std::slice::from_ref(&m)).unwrap();
        assert_eq!(
            back(&r),
            vec![vec![1.0, 4.0], vec![2.0, 5.0], vec![3.0, 6.0]]
        );
        // M times a scalar 0.5.
        let half = Val::Bits(u64::from(0.5f32.to_bits()));
        let r = plain(&t, PlainOp::MatrixTimesScalar, m2x3, &[m.clone(), half]).unwrap();
        assert_eq!(back(&r), vec![vec![0.5, 1.0, 1.5], vec![2.0, 2.5, 3.0]]);
        // Outer product (1,2,3) ⊗ (1,10): columns (1,2,3) and (10,20,30).
        let a = vector(f32s(&[1.0, 2.0, 3.0]));
        let b = vector(f32s(&[1.0, 10.0]));
        let r = plain(&t, PlainOp::OuterProduct, m2x3, &[a, b]).unwrap();
        assert_eq!(back(&r), vec![vec![1.0, 2.0, 3.0], vec![10.0, 20.0, 30.0]]);
    }

    /// A 3-row, 2-column matrix times its transpose (2 rows, 3 columns) gives 3x3, by hand.
    #[test]
    fn matrix_product_matches_hand_computed_values() {
        let mut t = TypeTable::new();
        let f = t.intern(TypeData::Float { width: 32 });
        let v3 = t.intern(TypeData::Vector { elem: f, count: 3 });
        let m3 = t.matrix(v3, 3, None);
        // L has columns (1,2,3), (4,5,6) [3 rows, 2 cols]; R = Lᵀ has columns (1,4), (2,5),
        // (3,6) [2 rows, 3 cols]. L·R is 3x3: entry (i, j) = Σk L[i][k] R[k][j].
        let l = matrix(vec![f32s(&[1.0, 2.0, 3.0]), f32s(&[4.0, 5.0, 6.0])]);
        let r = matrix(vec![
            f32s(&[1.0, 4.0]),
            f32s(&[2.0, 5.0]),
            f32s(&[3.0, 6.0]),
        ]);
        let p = plain(&t, PlainOp::MatrixTimesMatrix, m3, &[l, r]).unwrap();
        // Column 0: 1·(1,2,3) + 4·(4,5,6) = (17, 22, 27); column 1: 2·.. + 5·.. = (22, 29,
        // 36); column 2: 3·.. + 6·.. = (27, 36, 45).
        assert_eq!(
            back(&p),
            vec![
                vec![17.0, 22.0, 27.0],
                vec![22.0, 29.0, 36.0],
                vec![27.0, 36.0, 45.0]
            ]
        );
    }

    /// The CTS's first 3x3 matrix (columns (1,5,3), (2,4,7), (4,6,2)): determinant 74 by
    /// hand, and the inverse times the matrix is the identity.
    #[test]
    fn determinant_and_inverse() {
        let mut t = TypeTable::new();
        let f = t.intern(TypeData::Float { width: 64 });
        let v3 = t.intern(TypeData::Vector { elem: f, count: 3 });
        let m3 = t.matrix(v3, 3, None);
        let col = |v: [f64; 3]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
        let m = matrix(vec![
            col([1., 5., 3.]),
            col([2., 4., 7.]),
            col([4., 6., 2.]),
        ]);
        // Rows (1,2,4), (5,4,6), (3,7,2): 1(8-42) - 2(10-18) + 4(35-12) = -34 + 16 + 92 = 74.
        let d = glsl(&t, GlslOp::Determinant, m3, &m).unwrap();
        assert_eq!(f64::from_bits(d.bits()), 74.0);
        let inv = glsl(&t, GlslOp::MatrixInverse, m3, &m).unwrap();
        let id = plain(&t, PlainOp::MatrixTimesMatrix, m3, &[m, inv]).unwrap();
        let Val::Comp(cols) = id else { panic!() };
        for (j, c) in cols.iter().enumerate() {
            let Val::Comp(c) = c else { panic!() };
            for (i, x) in c.iter().enumerate() {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((f64::from_bits(x.bits()) - want).abs() < 1e-15, "{i},{j}");
            }
        }
        // A singular matrix has no inverse: undefined.
        let s = matrix(vec![
            col([1., 2., 3.]),
            col([2., 4., 6.]),
            col([0., 1., 0.]),
        ]);
        assert!(glsl(&t, GlslOp::MatrixInverse, m3, &s)
            .unwrap()
            .is_poisoned());
    }
}
