//! Memory layout of values: zero values, sizes, strides, member offsets, reads and writes.

use std::sync::Arc;

use tangle_ir::{Type, TypeData, TypeTable};

use super::{Poison, Val};

/// The all-zero value of `ty` (`OpConstantNull`).
pub fn zero(types: &TypeTable, ty: Type) -> Val {
    match types.get(ty) {
        TypeData::Bool => Val::Bool(false),
        TypeData::Int { .. } | TypeData::Float { .. } => Val::Bits(0),
        TypeData::Vector { elem, count } => {
            Val::Comp(vec![zero(types, *elem); usize::from(*count)])
        }
        TypeData::Array { elem, len, .. } => Val::Comp(vec![zero(types, *elem); *len as usize]),
        TypeData::Matrix { column, count, .. } => {
            Val::Comp(vec![zero(types, *column); usize::from(*count)])
        }
        TypeData::Struct { members, .. } => {
            Val::Comp(members.iter().map(|m| zero(types, m.ty)).collect())
        }
        TypeData::Pointer { .. } => Val::Ptr {
            mem: u32::MAX,
            off: 0,
        },
        _ => Val::Comp(Vec::new()),
    }
}

/// Where a matrix's components lie: component (column j, row i) is at byte
/// `j * col_step + i * row_step`.
#[derive(Clone, Copy, Debug)]
struct MatrixGeometry {
    elem: Type,
    columns: u64,
    rows: u64,
    col_step: u64,
    row_step: u64,
}

/// The geometry of matrix type `ty`: its layout's stride and majorness, or without one
/// (function, private and workgroup memory) columns packed at the column vector's
/// size rounded to its alignment.
fn matrix_geometry(types: &TypeTable, ty: Type) -> Option<MatrixGeometry> {
    let TypeData::Matrix {
        column,
        count,
        layout,
    } = types.get(ty)
    else {
        return None;
    };
    let TypeData::Vector { elem, count: rows } = types.get(*column) else {
        return None;
    };
    let (es, _) = size_align(types, *elem);
    let (col_step, row_step) = match layout {
        None => {
            let (s, a) = size_align(types, *column);
            (s.div_ceil(a) * a, es)
        }
        Some(l) if l.row_major => (es, u64::from(l.stride)),
        Some(l) => (u64::from(l.stride), es),
    };
    Some(MatrixGeometry {
        elem: *elem,
        columns: u64::from(*count),
        rows: u64::from(*rows),
        col_step,
        row_step,
    })
}

/// Size and alignment of `ty` in memory. Explicit layout (offsets, strides) wins; types
/// without it (workgroup, private and function variables) get a natural packed layout:
/// scalars by width (`bool` as 4 bytes), vectors packed, arrays at their element size
/// rounded to its alignment, struct members in order at their alignment.
pub fn size_align(types: &TypeTable, ty: Type) -> (u64, u64) {
    match types.get(ty) {
        TypeData::Bool => (4, 4),
        TypeData::Int { width, .. } | TypeData::Float { width } => {
            let b = u64::from(*width) / 8;
            (b, b)
        }
        TypeData::Vector { elem, count } => {
            let (s, a) = size_align(types, *elem);
            (s * u64::from(*count), a)
        }
        TypeData::Array { elem, len, .. } => {
            let (_, a) = size_align(types, *elem);
            (array_stride(types, ty) * u64::from(*len), a)
        }
        TypeData::RuntimeArray { elem, .. } => (0, size_align(types, *elem).1),
        TypeData::Matrix { .. } => match matrix_geometry(types, ty) {
            Some(g) => {
                let (es, a) = size_align(types, g.elem);
                let last = (g.columns - 1) * g.col_step + (g.rows - 1) * g.row_step + es;
                (last.max(g.columns * g.col_step).div_ceil(a) * a, a)
            }
            None => (0, 1),
        },
        TypeData::StridedVector { vector, stride } => match types.get(*vector) {
            TypeData::Vector { elem, count } => {
                let (es, a) = size_align(types, *elem);
                ((u64::from(*count) - 1) * u64::from(*stride) + es, a)
            }
            _ => (0, 1),
        },
        TypeData::Struct { members, .. } => {
            let mut end = 0;
            let mut al = 1;
            for (i, m) in members.iter().enumerate() {
                let (s, a) = size_align(types, m.ty);
                al = al.max(a);
                end = end.max(member_offset(types, ty, i) + s);
            }
            (end.div_ceil(al) * al, al)
        }
        TypeData::Pointer { .. } => (16, 8),
        _ => (0, 1),
    }
}

/// The byte stride of an array type.
pub fn array_stride(types: &TypeTable, ty: Type) -> u64 {
    match types.get(ty) {
        TypeData::Array { elem, stride, .. } | TypeData::RuntimeArray { elem, stride } => {
            match stride {
                Some(s) => u64::from(*s),
                None => {
                    let (s, a) = size_align(types, *elem);
                    s.div_ceil(a) * a
                }
            }
        }
        TypeData::Vector { elem, .. } => size_align(types, *elem).0,
        TypeData::Matrix { .. } => matrix_geometry(types, ty).map_or(0, |g| g.col_step),
        TypeData::StridedVector { stride, .. } => u64::from(*stride),
        _ => 0,
    }
}

/// The byte offset of member `i` of a struct type.
pub fn member_offset(types: &TypeTable, ty: Type, i: usize) -> u64 {
    let TypeData::Struct { members, .. } = types.get(ty) else {
        return 0;
    };
    if let Some(o) = members[i].offset {
        return u64::from(o);
    }
    let mut off: u64 = 0;
    for (j, m) in members.iter().enumerate() {
        let (s, a) = size_align(types, m.ty);
        off = off.div_ceil(a) * a;
        if j == i {
            return off;
        }
        off += s;
    }
    off
}

/// A memory region: its bytes and, while some bytes are undefined, which and why.
#[derive(Clone, Debug, Default)]
pub struct Region {
    /// The bytes (undefined bytes hold zero).
    pub bytes: Vec<u8>,
    /// Which bytes are undefined: nothing to look at while every byte is defined (the
    /// common case, which then costs nothing per access).
    undef: Undef,
}

/// The undefined bytes of a [`Region`].
#[derive(Clone, Debug, Default)]
enum Undef {
    /// Every byte is defined.
    #[default]
    None,
    /// Every byte is undefined with this poison: a fresh function variable's region, made on
    /// every execution of the `variable`, without a mark per byte or an allocation. A write
    /// of the whole region makes it [`Undef::None`]; any other write spells the marks out.
    All(Arc<Poison>),
    /// Some bytes are undefined, per byte.
    Marks(Box<Shadow>),
}

/// Which bytes of a region are undefined: per byte 0 (defined) or 1 + an index into
/// `poisons` (a small palette: equal poisons share an entry, so marking costs no
/// reference counting per byte).
#[derive(Clone, Debug)]
struct Shadow {
    marks: Vec<u32>,
    poisons: Vec<Arc<Poison>>,
    /// How many bytes are undefined; the shadow is dropped when it reaches 0.
    count: usize,
}

impl Shadow {
    /// The palette mark of `p` (adding it when new).
    fn mark_of(&mut self, p: &Arc<Poison>) -> u32 {
        let i = match self
            .poisons
            .iter()
            .position(|q| Arc::ptr_eq(q, p) || **q == **p)
        {
            Some(i) => i,
            None => {
                self.poisons.push(p.clone());
                self.poisons.len() - 1
            }
        };
        i as u32 + 1
    }
}

impl Region {
    /// A region of defined bytes.
    pub fn defined(bytes: Vec<u8>) -> Region {
        Region {
            bytes,
            undef: Undef::None,
        }
    }

    /// A region of `size` undefined bytes (zero underneath).
    pub fn undefined(size: usize, p: &Arc<Poison>) -> Region {
        let mut r = Region::defined(vec![0; size]);
        r.set_all_undefined(p);
        r
    }

    /// `bytes`, undefined with `p` where `undefined[i]` (missing entries are defined).
    pub fn with_undefined(bytes: Vec<u8>, undefined: &[bool], p: &Arc<Poison>) -> Region {
        let mut r = Region::defined(bytes);
        for (i, u) in undefined.iter().enumerate().take(r.bytes.len()) {
            if *u {
                r.mark(i as u64, 1, Some(p));
            }
        }
        r
    }

    /// Makes every byte undefined with `p` (zero underneath).
    pub fn set_all_undefined(&mut self, p: &Arc<Poison>) {
        self.bytes.fill(0);
        let n = self.bytes.len();
        self.undef = if n == 0 {
            Undef::None
        } else {
            Undef::All(p.clone())
        };
    }

    /// Makes this region a copy of `src` (bytes and undefined marks), keeping its own
    /// allocation where it is large enough: a region made per lane from one template.
    pub fn copy_from(&mut self, src: &Region) {
        self.bytes.clone_from(&src.bytes);
        self.undef = src.undef.clone();
    }

    /// Makes every byte defined and zero.
    pub fn set_all_zero(&mut self) {
        self.bytes.fill(0);
        self.undef = Undef::None;
    }

    /// Its size in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether it has no bytes.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Per byte, whether it is undefined; `None` when every byte is defined.
    pub fn undefined_mask(&self) -> Option<Vec<bool>> {
        match &self.undef {
            Undef::None => None,
            Undef::All(_) => Some(vec![true; self.bytes.len()]),
            Undef::Marks(s) => Some(s.marks.iter().map(|m| *m != 0).collect()),
        }
    }

    /// Marks `n` bytes at `off` undefined with `p`, or defined for `None`. Inline only
    /// for the common case (defined bytes written to a region without undefined ones).
    #[inline(always)]
    fn mark(&mut self, off: u64, n: u64, p: Option<&Arc<Poison>>) {
        if p.is_none() && matches!(self.undef, Undef::None) {
            return;
        }
        self.mark_slow(off, n, p);
    }

    /// [`Region::mark`] where a shadow is involved.
    #[inline(never)]
    fn mark_slow(&mut self, off: u64, n: u64, p: Option<&Arc<Poison>>) {
        let (off, n) = (off as usize, n as usize);
        let len = self.bytes.len();
        match (&self.undef, p) {
            (Undef::None, None) => return,
            (Undef::All(q), Some(p)) if Arc::ptr_eq(q, p) || **q == **p => return,
            (Undef::All(_), None) if off == 0 && n == len => {
                self.undef = Undef::None;
                return;
            }
            _ => {}
        }
        let s = match &mut self.undef {
            Undef::Marks(s) => s,
            other => {
                let shadow = match std::mem::take(other) {
                    Undef::All(q) => Shadow {
                        marks: vec![1; len],
                        poisons: vec![q],
                        count: len,
                    },
                    _ => Shadow {
                        marks: vec![0; len],
                        poisons: Vec::new(),
                        count: 0,
                    },
                };
                *other = Undef::Marks(Box::new(shadow));
                let Undef::Marks(s) = other else {
                    unreachable!("just made")
                };
                s
            }
        };
        let new = match p {
            Some(p) => s.mark_of(p),
            None => 0,
        };
        for m in &mut s.marks[off..off + n] {
            match (*m != 0, new != 0) {
                (false, true) => s.count += 1,
                (true, false) => s.count -= 1,
                _ => {}
            }
            *m = new;
        }
        if s.count == 0 {
            self.undef = Undef::None;
        }
    }

    /// The `n` (at most 8) bytes at `off` as a little-endian scalar when they are in
    /// bounds and all defined; `None` otherwise. An engine's fast path for scalar loads
    /// (anything else goes through [`read`]).
    #[inline]
    pub fn defined_bits(&self, off: u64, n: usize) -> Option<u64> {
        let b = read_bits(&self.bytes, off, n as u64)?;
        match self.poison_in(off, n as u64) {
            None => Some(b),
            Some(_) => None,
        }
    }

    /// Writes the low `n` (at most 8) bytes of the defined scalar `bits` at `off`, making
    /// them defined; `false` (nothing written) when they are out of bounds. An engine's
    /// fast path for scalar stores (the same as [`write`] of a defined scalar).
    #[inline]
    pub fn store_defined_bits(&mut self, off: u64, n: usize, bits: u64) -> bool {
        write_bits(self, off, n as u64, Ok(bits)).is_some()
    }

    /// Writes the `N` bytes `src` at `off`, making them defined with one mark for the whole
    /// run; `false` (nothing written) when they are out of bounds. An engine's fast path for
    /// packed vectors of defined scalars: written a component at a time, a vector filling
    /// a fresh (undefined) region spelled out a mark per byte first, with an allocation.
    /// (`N` is a constant so the copy is a fixed-size move, not a `memcpy` call.)
    #[inline]
    pub fn store_defined_array<const N: usize>(&mut self, off: u64, src: &[u8; N]) -> bool {
        let Some(end) = off.checked_add(N as u64) else {
            return false;
        };
        let Some(dst) = self.bytes.get_mut(off as usize..end as usize) else {
            return false;
        };
        dst.copy_from_slice(src);
        self.mark(off, N as u64, None);
        true
    }

    /// The poison of the first undefined byte among `n` bytes at `off`.
    #[inline]
    fn poison_in(&self, off: u64, n: u64) -> Option<&Arc<Poison>> {
        let s = match &self.undef {
            Undef::None => return None,
            Undef::All(q) => {
                let in_bounds = off
                    .checked_add(n)
                    .is_some_and(|e| e <= self.bytes.len() as u64);
                return (n > 0 && in_bounds).then_some(q);
            }
            Undef::Marks(s) => s,
        };
        let m = s
            .marks
            .get(off as usize..(off + n) as usize)?
            .iter()
            .find(|m| **m != 0)?;
        Some(&s.poisons[*m as usize - 1])
    }

    /// Reads `n` bytes at `off` as a little-endian scalar, or its poison when one of the
    /// bytes is undefined.
    #[inline]
    fn scalar(&self, off: u64, n: u64) -> Option<Result<u64, Arc<Poison>>> {
        let b = read_bits(&self.bytes, off, n)?;
        Some(match self.poison_in(off, n) {
            Some(p) => Err(p.clone()),
            None => Ok(b),
        })
    }
}

/// Reads a value of type `ty` at `off`; `None` when it does not fit. A scalar with an
/// undefined byte reads as undefined.
#[inline]
pub fn read(types: &TypeTable, mem: &Region, off: u64, ty: Type) -> Option<Val> {
    Some(match types.get(ty) {
        TypeData::Bool => match mem.scalar(off, 4)? {
            Ok(b) => Val::Bool(b != 0),
            Err(p) => Val::Undef(p),
        },
        TypeData::Int { width, .. } | TypeData::Float { width } => {
            match mem.scalar(off, u64::from(*width) / 8)? {
                Ok(b) => Val::Bits(b),
                Err(p) => Val::Undef(p),
            }
        }
        TypeData::Vector { elem, count } => read_seq(types, mem, off, ty, *elem, (*count).into())?,
        TypeData::Array { elem, len, .. } => read_seq(types, mem, off, ty, *elem, *len)?,
        TypeData::StridedVector { vector, .. } => match types.get(*vector) {
            TypeData::Vector { elem, count } => {
                read_seq(types, mem, off, ty, *elem, (*count).into())?
            }
            _ => return None,
        },
        TypeData::Matrix { .. } => {
            let g = matrix_geometry(types, ty)?;
            let mut cols = Vec::with_capacity(g.columns as usize);
            for j in 0..g.columns {
                let mut col = Vec::with_capacity(g.rows as usize);
                for i in 0..g.rows {
                    col.push(read(
                        types,
                        mem,
                        off + j * g.col_step + i * g.row_step,
                        g.elem,
                    )?);
                }
                cols.push(Val::Comp(col));
            }
            Val::Comp(cols)
        }
        TypeData::Struct { members, .. } => {
            let mut v = Vec::new();
            for (i, m) in members.iter().enumerate() {
                v.push(read(types, mem, off + member_offset(types, ty, i), m.ty)?);
            }
            Val::Comp(v)
        }
        TypeData::Pointer { .. } => match (mem.scalar(off, 8)?, mem.scalar(off + 8, 8)?) {
            (Ok(m), Ok(o)) => Val::Ptr {
                mem: m as u32,
                off: o,
            },
            (Err(p), _) | (_, Err(p)) => Val::Undef(p),
        },
        _ => return None,
    })
}

/// Reads the `n` elements of vector or array type `ty` at `off`.
fn read_seq(
    types: &TypeTable,
    mem: &Region,
    off: u64,
    ty: Type,
    elem: Type,
    n: u32,
) -> Option<Val> {
    let st = array_stride(types, ty);
    (0..u64::from(n))
        .map(|i| read(types, mem, off + i * st, elem))
        .collect::<Option<_>>()
        .map(Val::Comp)
}

#[inline]
fn read_bits(mem: &[u8], off: u64, n: u64) -> Option<u64> {
    let end = off.checked_add(n)?;
    let bytes = mem.get(off as usize..end as usize)?;
    // The common widths as fixed-size reads (a copy of a run-time length is a `memcpy`
    // call per access).
    Some(match *bytes {
        [a, b, c, d] => u64::from(u32::from_le_bytes([a, b, c, d])),
        [a, b, c, d, e, f, g, h] => u64::from_le_bytes([a, b, c, d, e, f, g, h]),
        _ => {
            let mut b = [0u8; 8];
            b[..n as usize].copy_from_slice(bytes);
            u64::from_le_bytes(b)
        }
    })
}

/// Writes a scalar's `n` bytes, or marks them undefined (zero underneath) for poison.
#[inline]
fn write_bits(mem: &mut Region, off: u64, n: u64, v: Result<u64, &Arc<Poison>>) -> Option<()> {
    let end = off.checked_add(n)?;
    let dst = mem.bytes.get_mut(off as usize..end as usize)?;
    match v {
        Ok(v) => {
            // The common widths as fixed-size writes (see `read_bits`).
            match dst.len() {
                4 => dst.copy_from_slice(&(v as u32).to_le_bytes()),
                8 => dst.copy_from_slice(&v.to_le_bytes()),
                _ => dst.copy_from_slice(&v.to_le_bytes()[..n as usize]),
            }
            mem.mark(off, n, None);
        }
        Err(p) => {
            dst.fill(0);
            mem.mark(off, n, Some(p));
        }
    }
    Some(())
}

/// Writes `val` of type `ty` at `off`; `None` when it does not fit. Undefined components
/// mark their bytes undefined.
#[inline]
pub fn write(types: &TypeTable, mem: &mut Region, off: u64, ty: Type, val: &Val) -> Option<()> {
    let scalar = |v: &Val, f: &dyn Fn(&Val) -> u64| match v {
        Val::Undef(p) => Err(p.clone()),
        v => Ok(f(v)),
    };
    match (types.get(ty), val) {
        (TypeData::Bool, v) => {
            let b = scalar(v, &|v| u64::from(v.truth()));
            write_bits(mem, off, 4, b.as_ref().map(|b| *b))
        }
        (TypeData::Int { width, .. } | TypeData::Float { width }, v) => {
            let b = scalar(v, &Val::bits);
            write_bits(mem, off, u64::from(*width) / 8, b.as_ref().map(|b| *b))
        }
        (TypeData::Vector { elem, .. } | TypeData::Array { elem, .. }, Val::Comp(c)) => {
            let st = array_stride(types, ty);
            for (i, v) in c.iter().enumerate() {
                write(types, mem, off + i as u64 * st, *elem, v)?;
            }
            Some(())
        }
        (TypeData::StridedVector { vector, .. }, Val::Comp(c)) => {
            let TypeData::Vector { elem, .. } = types.get(*vector) else {
                return None;
            };
            let st = array_stride(types, ty);
            for (i, v) in c.iter().enumerate() {
                write(types, mem, off + i as u64 * st, *elem, v)?;
            }
            Some(())
        }
        (TypeData::Matrix { .. }, Val::Comp(cols)) => {
            let g = matrix_geometry(types, ty)?;
            for (j, col) in cols.iter().enumerate() {
                let Val::Comp(col) = col else {
                    // An undefined column (a whole-value poison) marks its bytes.
                    for i in 0..g.rows {
                        let at = off + j as u64 * g.col_step + i * g.row_step;
                        write(types, mem, at, g.elem, col)?;
                    }
                    continue;
                };
                for (i, v) in col.iter().enumerate() {
                    write(
                        types,
                        mem,
                        off + j as u64 * g.col_step + i as u64 * g.row_step,
                        g.elem,
                        v,
                    )?;
                }
            }
            Some(())
        }
        (TypeData::Struct { members, .. }, Val::Comp(c)) => {
            for (i, (m, v)) in members.iter().zip(c).enumerate() {
                write(types, mem, off + member_offset(types, ty, i), m.ty, v)?;
            }
            Some(())
        }
        (TypeData::Pointer { .. }, Val::Ptr { mem: id, off: o }) => {
            write_bits(mem, off, 8, Ok(u64::from(*id)))?;
            write_bits(mem, off + 8, 8, Ok(*o))
        }
        (TypeData::Pointer { .. }, Val::Undef(p)) => {
            write_bits(mem, off, 8, Err(p))?;
            write_bits(mem, off + 8, 8, Err(p))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Born;

    #[test]
    fn explicit_layout_round_trips() {
        let mut t = TypeTable::new();
        let u = t.u32();
        let v3 = t.intern(TypeData::Vector { elem: u, count: 3 });
        let s = t.intern(TypeData::Struct {
            members: vec![
                tangle_ir::Member {
                    ty: v3,
                    offset: Some(0),
                    flags: vec![],
                    name: None,
                },
                tangle_ir::Member {
                    ty: u,
                    offset: Some(16),
                    flags: vec![],
                    name: None,
                },
            ],
            block: true,
            buffer_block: false,
            name: None,
        });
        let v = Val::Comp(vec![
            Val::Comp(vec![Val::Bits(1), Val::Bits(2), Val::Bits(3)]),
            Val::Bits(4),
        ]);
        let mut mem = Region::defined(vec![0u8; 20]);
        write(&t, &mut mem, 0, s, &v).unwrap();
        assert_eq!(&mem.bytes[16..20], &4u32.to_le_bytes());
        assert_eq!(read(&t, &mem, 0, s).unwrap(), v);
        assert!(read(&t, &mem, 4, s).is_none());
    }

    /// The region's undefined bytes against a per-byte model (each byte its poison or
    /// defined), under random whole-region resets and partial writes of defined and
    /// undefined bytes: every representation (nothing undefined, all undefined with one
    /// poison, per-byte marks) must answer as the model does.
    #[test]
    fn undefined_bytes_follow_a_per_byte_model() {
        let poisons: Vec<Arc<Poison>> = (0..3)
            .map(|i| {
                Arc::new(Poison {
                    born: Born::Input,
                    why: format!("poison {i}"),
                })
            })
            .collect();
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        for len in [1usize, 4, 12] {
            let mut region = Region::defined(vec![0; len]);
            let mut model: Vec<Option<usize>> = vec![None; len];
            for _ in 0..3000 {
                match next(7) {
                    6 if len >= 4 => {
                        // A run of four defined bytes with one mark
                        // (`store_defined_array`), and one past the end that writes nothing.
                        let off = next((len - 3) as u64) as usize;
                        assert!(region.store_defined_array(off as u64, &[9, 8, 7, 6]));
                        assert_eq!(region.bytes[off..off + 4], [9, 8, 7, 6]);
                        model[off..off + 4].iter_mut().for_each(|m| *m = None);
                        assert!(!region.store_defined_array(len as u64 - 3, &[1, 2, 3, 4]));
                    }
                    6 => {}
                    0 => {
                        let p = next(3) as usize;
                        region.set_all_undefined(&poisons[p]);
                        model.iter_mut().for_each(|m| *m = Some(p));
                    }
                    1 => {
                        region.set_all_zero();
                        model.iter_mut().for_each(|m| *m = None);
                    }
                    k => {
                        // A write of 1..=8 bytes, sometimes the whole region.
                        let n = if k == 2 {
                            len
                        } else {
                            1 + next(len.min(8) as u64) as usize
                        };
                        let off = next((len - n + 1) as u64) as usize;
                        let p = next(4) as usize;
                        let v = if p == 3 {
                            Ok(0x0102_0304_0506_0708)
                        } else {
                            Err(&poisons[p])
                        };
                        let n = n.min(8);
                        write_bits(&mut region, off as u64, n as u64, v).unwrap();
                        for m in &mut model[off..off + n] {
                            *m = (p != 3).then_some(p);
                        }
                    }
                }
                let mask: Vec<bool> = model.iter().map(Option::is_some).collect();
                let expect_mask = mask.iter().any(|u| *u).then_some(mask);
                assert_eq!(region.undefined_mask(), expect_mask);
                for off in 0..len {
                    for n in 1..=(len - off).min(8) {
                        let first = model[off..off + n].iter().flatten().next();
                        let got = region.poison_in(off as u64, n as u64);
                        assert_eq!(
                            got.map(|p| p.why.clone()),
                            first.map(|i| poisons[*i].why.clone())
                        );
                        assert_eq!(
                            region.defined_bits(off as u64, n).is_some(),
                            first.is_none()
                        );
                    }
                }
            }
        }
    }
}
