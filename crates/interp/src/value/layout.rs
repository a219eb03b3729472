//! Memory layout of values: zero values, sizes, strides, member offsets, reads and writes.

use tangle_ir::{Type, TypeData, TypeTable};

use super::Val;

/// The all-zero value of `ty` (also what `undef` reads as: a documented choice).
pub fn zero(types: &TypeTable, ty: Type) -> Val {
    match types.get(ty) {
        TypeData::Bool => Val::Bool(false),
        TypeData::Int { .. } | TypeData::Float { .. } => Val::Bits(0),
        TypeData::Vector { elem, count } => {
            Val::Comp(vec![zero(types, *elem); usize::from(*count)])
        }
        TypeData::Array { elem, len, .. } => Val::Comp(vec![zero(types, *elem); *len as usize]),
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

/// Reads a value of type `ty` at `off`; `None` when it does not fit in `mem`.
pub fn read(types: &TypeTable, mem: &[u8], off: u64, ty: Type) -> Option<Val> {
    Some(match types.get(ty) {
        TypeData::Bool => Val::Bool(read_bits(mem, off, 4)? != 0),
        TypeData::Int { width, .. } | TypeData::Float { width } => {
            Val::Bits(read_bits(mem, off, u64::from(*width) / 8)?)
        }
        TypeData::Vector { elem, count } => read_seq(types, mem, off, ty, *elem, (*count).into())?,
        TypeData::Array { elem, len, .. } => read_seq(types, mem, off, ty, *elem, *len)?,
        TypeData::Struct { members, .. } => {
            let mut v = Vec::new();
            for (i, m) in members.iter().enumerate() {
                v.push(read(types, mem, off + member_offset(types, ty, i), m.ty)?);
            }
            Val::Comp(v)
        }
        TypeData::Pointer { .. } => {
            let mem_id = read_bits(mem, off, 8)?;
            Val::Ptr {
                mem: mem_id as u32,
                off: read_bits(mem, off + 8, 8)?,
            }
        }
        _ => return None,
    })
}

/// Reads the `n` elements of vector or array type `ty` at `off`.
fn read_seq(types: &TypeTable, mem: &[u8], off: u64, ty: Type, elem: Type, n: u32) -> Option<Val> {
    let st = array_stride(types, ty);
    (0..u64::from(n))
        .map(|i| read(types, mem, off + i * st, elem))
        .collect::<Option<_>>()
        .map(Val::Comp)
}

fn read_bits(mem: &[u8], off: u64, n: u64) -> Option<u64> {
    let end = off.checked_add(n)?;
    let bytes = mem.get(off as usize..end as usize)?;
    let mut b = [0u8; 8];
    b[..n as usize].copy_from_slice(bytes);
    Some(u64::from_le_bytes(b))
}

fn write_bits(mem: &mut [u8], off: u64, n: u64, v: u64) -> Option<()> {
    let end = off.checked_add(n)?;
    let dst = mem.get_mut(off as usize..end as usize)?;
    dst.copy_from_slice(&v.to_le_bytes()[..n as usize]);
    Some(())
}

/// Writes `val` of type `ty` at `off`; `None` when it does not fit.
pub fn write(types: &TypeTable, mem: &mut [u8], off: u64, ty: Type, val: &Val) -> Option<()> {
    match (types.get(ty), val) {
        (TypeData::Bool, v) => write_bits(mem, off, 4, u64::from(v.truth())),
        (TypeData::Int { width, .. } | TypeData::Float { width }, v) => {
            write_bits(mem, off, u64::from(*width) / 8, v.bits())
        }
        (TypeData::Vector { elem, .. } | TypeData::Array { elem, .. }, Val::Comp(c)) => {
            let st = array_stride(types, ty);
            for (i, v) in c.iter().enumerate() {
                write(types, mem, off + i as u64 * st, *elem, v)?;
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
            write_bits(mem, off, 8, u64::from(*id))?;
            write_bits(mem, off + 8, 8, *o)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut mem = vec![0u8; 20];
        write(&t, &mut mem, 0, s, &v).unwrap();
        assert_eq!(&mem[16..20], &4u32.to_le_bytes());
        assert_eq!(read(&t, &mem, 0, s).unwrap(), v);
        assert!(read(&t, &mem, 4, s).is_none());
    }
}
