//! Memory of one lane's view: regions (buffers, push constants, variables) addressed by
//! pointers `Val::Ptr { mem, off }`; variables, access chains, loads, stores, atomics and
//! `array_length`. Every region is bytes with an undefined-byte shadow
//! ([`Region`]); buffers and push constants use the types' explicit layout, other storage
//! classes a natural packed one (see [`value::size_align`]).
//!
//! An engine owns the `Vec<Region>` (which regions exist is its business: per workgroup,
//! per lane, per call frame) and calls these functions per lane; failures come back as
//! [`MemFail`] for the engine to report with its position and lane.

use std::sync::Arc;

use spirv::StorageClass;
use tangle_ir::{AtomicOp, Global, Module, Type, TypeData, TypeTable};

use crate::descriptors::{is_descriptor_array, DescriptorTable, DESCRIPTOR_ARRAYS};
use crate::value::{self, Born, OpFail, OpResult, Poison, Region, Val};

/// Why a memory operation failed.
#[derive(Clone, Debug)]
pub enum MemFail {
    /// An index outside a fixed-size array or vector (the text says which).
    Index(String),
    /// An access outside region `mem`: `access` ("load", "store") at byte `off`.
    Bounds {
        /// What was done.
        access: &'static str,
        /// The region.
        mem: u32,
        /// The byte offset.
        off: u64,
    },
    /// An undefined value used where its value decides the access: `what` (e.g. "access
    /// chain index") and its poison.
    UndefinedUse {
        /// What it was used as.
        what: &'static str,
        /// Where it was born.
        poison: Arc<Poison>,
    },
    /// Something SPIR-V makes undefined behaviour, or the interpreter does not support.
    Op(OpFail),
}

type M<T> = Result<T, MemFail>;

/// `v`, or [`MemFail::UndefinedUse`] when some component of it is undefined.
#[inline]
pub fn defined<'v>(what: &'static str, v: &'v Val) -> M<&'v Val> {
    match v.poison() {
        None => Ok(v),
        Some(p) => Err(MemFail::UndefinedUse {
            what,
            poison: p.clone(),
        }),
    }
}

/// A region for a global variable of pointee type `pointee`: its initializer written, or
/// every byte undefined (born in `g`) without one.
pub fn global_region(types: &TypeTable, g: Global, pointee: Type, init: Option<&Val>) -> Region {
    variable_region(types, pointee, init, &global_poison(g))
}

/// The poison of the bytes of global `g`'s region before they are written (what
/// [`global_region`] uses; an engine that makes a region of `g` per lane can make it once).
pub fn global_poison(g: Global) -> Arc<Poison> {
    Arc::new(Poison {
        born: Born::Variable(g),
        why: "the variable has no initializer and was not written".into(),
    })
}

/// Whether `pointee` is a `Block` struct. A `Workgroup` variable of a block type is an
/// explicitly laid out workgroup block (`WorkgroupMemoryExplicitLayoutKHR`): every such
/// variable of an entry point aliases the same workgroup memory from offset 0.
pub fn is_block(types: &TypeTable, pointee: Type) -> bool {
    matches!(types.get(pointee), TypeData::Struct { block: true, .. })
}

/// The regions of `module`'s `Workgroup` globals for one workgroup, by global index
/// (`None` for the other storage classes); `consts` are the module's constants as values,
/// `push` adds a region and returns its id. Each ordinary variable gets its own region.
/// The `Block` variables (see [`is_block`]) share one region as large as the largest of
/// them: its bytes are undefined except where an initializer writes them, every
/// initializer written at offset 0 in declaration order (SPIR-V allows only null ones
/// there, so the order cannot matter).
pub fn workgroup_regions(
    module: &Module,
    consts: &[Val],
    push: &mut dyn FnMut(Region) -> u32,
) -> Vec<Option<u32>> {
    let types = &module.types;
    let mut shared = vec![None; module.globals.len()];
    let mut blocks = Vec::new();
    for (g, gd) in module.globals.iter() {
        if gd.storage != StorageClass::Workgroup {
            continue;
        }
        let Some((_, pointee)) = types.pointer(gd.ty) else {
            continue;
        };
        let init = gd.init.map(|c| &consts[c.as_u32() as usize]);
        if is_block(types, pointee) {
            blocks.push((g, pointee, init));
        } else {
            shared[g.as_u32() as usize] = Some(push(global_region(types, g, pointee, init)));
        }
    }
    let Some(&(first, _, _)) = blocks.first() else {
        return shared;
    };
    let size = blocks
        .iter()
        .map(|&(_, p, _)| value::size_align(types, p).0)
        .max()
        .unwrap_or(0);
    let poison = Arc::new(Poison {
        born: Born::Variable(first),
        why: "no workgroup block variable wrote these bytes of their shared memory".into(),
    });
    let mut region = Region::undefined(size as usize, &poison);
    for &(_, p, init) in &blocks {
        if let Some(v) = init {
            let _ = value::write(types, &mut region, 0, p, v);
        }
    }
    let id = push(region);
    for &(g, _, _) in &blocks {
        shared[g.as_u32() as usize] = Some(id);
    }
    shared
}

/// A region for a variable of pointee type `pointee`: `init` written, or every byte
/// undefined with `uninit` without one (SPIR-V gives variables no initial value).
pub fn variable_region(
    types: &TypeTable,
    pointee: Type,
    init: Option<&Val>,
    uninit: &Arc<Poison>,
) -> Region {
    let (size, _) = value::size_align(types, pointee);
    match init {
        Some(v) => {
            let mut r = Region::defined(vec![0; size as usize]);
            let _ = value::write(types, &mut r, 0, pointee, v);
            r
        }
        None => Region::undefined(size as usize, uninit),
    }
}

/// [`variable_region`] made in `spare`, a region no longer in use, whose allocation it
/// reuses (an engine that keeps the regions of earlier dispatches allocates none): the same
/// bytes and undefined marks whatever `spare` held.
pub fn variable_region_in(
    types: &TypeTable,
    pointee: Type,
    init: Option<&Val>,
    uninit: &Arc<Poison>,
    mut spare: Region,
) -> Region {
    let (size, _) = value::size_align(types, pointee);
    spare.bytes.clear();
    spare.bytes.resize(size as usize, 0);
    reset_variable(types, &mut spare, pointee, init, uninit);
    spare
}

/// Resets `region` (of a variable of pointee type `pointee`, being created anew) to `init`
/// or to undefined bytes, keeping its allocation: a call frame's variables reuse the
/// regions of the previous call.
pub fn reset_variable(
    types: &TypeTable,
    region: &mut Region,
    pointee: Type,
    init: Option<&Val>,
    uninit: &Arc<Poison>,
) {
    match init {
        Some(v) => {
            region.set_all_zero();
            let _ = value::write(types, region, 0, pointee, v);
        }
        None => region.set_all_undefined(uninit),
    }
}

/// `access_chain`: a pointer into `base`'s region (`base_ty` its pointer type), following
/// `indices` (`index_types[i]` the integer type of `indices[i]`). Indices into fixed
/// arrays and vectors are checked; base and indices must be defined. An index into a
/// descriptor array picks the element's region and offset from `descriptors`.
pub fn access_chain(
    types: &TypeTable,
    descriptors: &DescriptorTable,
    base: &Val,
    base_ty: Type,
    indices: &[Val],
    index_types: &[Type],
) -> M<Val> {
    let &Val::Ptr { mut mem, mut off } = defined("access chain base", base)? else {
        return Err(MemFail::Op(OpFail::Undefined(
            "access chain on a non-pointer".into(),
        )));
    };
    let (_, mut cur) = types.pointer(base_ty).ok_or_else(|| {
        MemFail::Op(OpFail::Unsupported(
            "access chain base of a non-pointer type".into(),
        ))
    })?;
    for (v, ity) in indices.iter().zip(index_types) {
        let i = defined("access chain index", v)?
            .scalar()
            .map_err(MemFail::Op)?;
        let i = value::sext(i, types.bit_width(*ity));
        match types.get(cur) {
            TypeData::Struct { members, .. } => {
                let m = members.get(i as usize).ok_or_else(|| {
                    MemFail::Index(format!("member {i} of a struct of {}", members.len()))
                })?;
                off += value::member_offset(types, cur, i as usize);
                cur = m.ty;
            }
            TypeData::Array { elem, .. }
            | TypeData::Vector { elem, .. }
            | TypeData::RuntimeArray { elem, .. } => {
                let bad = match types.get(cur) {
                    TypeData::Array { len, .. } if i < 0 || i as u64 >= u64::from(*len) => {
                        Some(format!("index {i} of an array of {len}"))
                    }
                    TypeData::Vector { count, .. } if i < 0 || i as u64 >= u64::from(*count) => {
                        Some(format!("component {i} of a vector of {count}"))
                    }
                    _ if i < 0 => Some(format!("negative index {i}")),
                    _ => None,
                };
                if let Some(what) = bad {
                    return Err(MemFail::Index(what));
                }
                if mem >= DESCRIPTOR_ARRAYS && is_descriptor_array(types, cur) {
                    (mem, off) = descriptors.element(mem, i as u64).ok_or_else(|| {
                        MemFail::Index(format!("descriptor array element {i}, which is not bound"))
                    })?;
                    cur = *elem;
                    continue;
                }
                off += i as u64 * value::array_stride(types, cur);
                cur = *elem;
            }
            TypeData::Matrix { .. } | TypeData::StridedVector { .. } => {
                let n = types.matrix_or_column_len(cur);
                if i < 0 || i as u64 >= u64::from(n) {
                    return Err(MemFail::Index(format!(
                        "index {i} of a matrix or matrix column of {n}"
                    )));
                }
                let elem = types.element(cur, None).ok_or_else(|| {
                    MemFail::Op(OpFail::Internal(
                        "a row-major matrix without its strided column type".into(),
                    ))
                })?;
                off += i as u64 * value::array_stride(types, cur);
                cur = elem;
            }
            _ => {
                return Err(MemFail::Op(OpFail::Unsupported(
                    "access chain into a scalar".into(),
                )))
            }
        }
    }
    Ok(Val::Ptr { mem, off })
}

/// The (region, offset) a defined pointer names.
#[inline]
fn target(what: &'static str, p: &Val) -> M<(u32, u64)> {
    match defined(what, p)? {
        Val::Ptr { mem, off } => Ok((*mem, *off)),
        _ => Err(MemFail::Op(OpFail::Undefined(format!(
            "{what} is not a pointer"
        )))),
    }
}

/// `load` of a value of type `ty` through `p` (undefined bytes read as undefined).
#[inline]
pub fn load(types: &TypeTable, mems: &[Region], p: &Val, ty: Type) -> M<Val> {
    let (mem, off) = target("load pointer", p)?;
    mems.get(mem as usize)
        .and_then(|r| value::read(types, r, off, ty))
        .ok_or(MemFail::Bounds {
            access: "load",
            mem,
            off,
        })
}

/// `store` of `v` (type `ty`) through `p`; undefined components mark their bytes.
#[inline]
pub fn store(types: &TypeTable, mems: &mut [Region], p: &Val, ty: Type, v: &Val) -> M<()> {
    let (mem, off) = target("store pointer", p)?;
    mems.get_mut(mem as usize)
        .and_then(|r| value::write(types, r, off, ty, v))
        .ok_or(MemFail::Bounds {
            access: "store",
            mem,
            off,
        })
}

/// An atomic operation through `p` on a scalar of type `ty` with `operands` (the value;
/// for compare-exchange the value then the comparator). Returns the old value. Operands
/// must be defined; an undefined memory value stays undefined under read-modify-write
/// (`store`/`exchange` store their operand), and compare-exchange must compare a defined
/// one.
pub fn atomic(
    types: &TypeTable,
    mems: &mut [Region],
    op: AtomicOp,
    p: &Val,
    ty: Type,
    operands: &[Val],
) -> M<Val> {
    use AtomicOp as A;
    defined("atomic pointer", p)?;
    let old = load(types, mems, p, ty)?;
    for v in operands {
        defined("atomic operand", v)?;
    }
    if op == A::CompareExchange {
        defined("atomic compare-exchange's memory value", &old)?;
    }
    let w = types.bit_width(ty);
    let mk = value::mask(w);
    let scalar = |v: &Val| v.scalar().map_err(MemFail::Op);
    let x = match operands.first() {
        Some(v) => scalar(v)?,
        None => 0,
    };
    // An undefined memory value only matters to compare-exchange (checked above).
    let o = if old.is_poisoned() { 0 } else { scalar(&old)? };
    let s = |v: u64| value::sext(v, w);
    let new = match op {
        A::Load => None,
        A::Store | A::Exchange => Some(x),
        A::CompareExchange => (o == scalar(&operands[1])?).then_some(x),
        A::IIncrement => Some(o.wrapping_add(1) & mk),
        A::IDecrement => Some(o.wrapping_sub(1) & mk),
        A::IAdd => Some(o.wrapping_add(x) & mk),
        A::ISub => Some(o.wrapping_sub(x) & mk),
        A::SMin => Some(if s(o) <= s(x) { o } else { x }),
        A::SMax => Some(if s(o) >= s(x) { o } else { x }),
        A::UMin => Some(o.min(x)),
        A::UMax => Some(o.max(x)),
        A::And => Some(o & x),
        A::Or => Some(o | x),
        A::Xor => Some(o ^ x),
    };
    let new = match (&old, new) {
        (_, None) => None,
        (_, Some(n)) if matches!(op, A::Store | A::Exchange | A::CompareExchange) => {
            Some(Val::Bits(n))
        }
        (Val::Undef(p), Some(_)) => Some(Val::Undef(p.clone())),
        (_, Some(n)) => Some(Val::Bits(n)),
    };
    if let Some(n) = new {
        store(types, mems, p, ty, &n)?;
    }
    Ok(old)
}

/// `array_length` of member `member` (a runtime array) of the struct `p` points to
/// (`pty` its pointer type): how many whole elements the region holds after the member's
/// offset.
pub fn array_length(
    types: &TypeTable,
    mems: &[Region],
    p: &Val,
    pty: Type,
    member: u32,
) -> OpResult {
    let Val::Ptr { mem, off } = p else {
        return Err(OpFail::Undefined("array_length of a non-pointer".into()));
    };
    let (_, sty) = types
        .pointer(pty)
        .ok_or_else(|| OpFail::Unsupported("array_length of a non-pointer type".into()))?;
    let TypeData::Struct { members, .. } = types.get(sty) else {
        return Err(OpFail::Unsupported("array_length of a non-struct".into()));
    };
    let m = members
        .get(member as usize)
        .ok_or_else(|| OpFail::Unsupported(format!("array_length of member {member}")))?;
    let mo = value::member_offset(types, sty, member as usize);
    let st = value::array_stride(types, m.ty).max(1);
    let size = mems.get(*mem as usize).map_or(0, Region::len) as u64;
    Ok(Val::Bits(size.saturating_sub(off + mo) / st))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Born;
    use tangle_ir::TypeData;

    /// A region made in a spare one (of another size, with defined, undefined and partly
    /// undefined bytes) reads back as the fresh [`variable_region`] does, byte and mark.
    #[test]
    fn a_region_made_in_a_spare_one_is_the_fresh_region() {
        let mut types = TypeTable::new();
        let u32t = types.intern(TypeData::Int {
            width: 32,
            signed: false,
        });
        let f32t = types.intern(TypeData::Float { width: 32 });
        let vec4 = types.intern(TypeData::Vector {
            elem: f32t,
            count: 4,
        });
        let uninit = Arc::new(Poison {
            born: Born::Input,
            why: "fresh variable".into(),
        });
        let old = Arc::new(Poison {
            born: Born::Input,
            why: "an earlier dispatch".into(),
        });
        let cases: [(Type, Option<Val>); 4] = [
            (u32t, None),
            (u32t, Some(Val::Bits(0xdead_beef))),
            (vec4, None),
            (
                vec4,
                Some(Val::Comp(vec![
                    Val::Bits(1),
                    Val::Undef(old.clone()),
                    Val::Bits(3),
                    Val::Bits(0x3f80_0000),
                ])),
            ),
        ];
        let spares = || {
            [
                Region::default(),
                Region::defined(vec![0xff; 3]),
                Region::undefined(64, &old),
                Region::with_undefined(vec![7; 20], &[true, false, true], &old),
            ]
        };
        let ptr = Val::Ptr { mem: 0, off: 0 };
        for (ty, init) in &cases {
            let fresh = variable_region(&types, *ty, init.as_ref(), &uninit);
            for spare in spares() {
                let made = variable_region_in(&types, *ty, init.as_ref(), &uninit, spare);
                assert_eq!(made.bytes, fresh.bytes, "{ty:?} {init:?}");
                assert_eq!(made.undefined_mask(), fresh.undefined_mask());
                let read = |r: &Region| load(&types, std::slice::from_ref(r), &ptr, *ty).ok();
                assert_eq!(read(&made), read(&fresh), "{ty:?} {init:?}");
                // A copy of the fresh region made over a spare one is the same region.
                for mut spare in spares() {
                    spare.copy_from(&fresh);
                    assert_eq!(spare.bytes, fresh.bytes);
                    assert_eq!(spare.undefined_mask(), fresh.undefined_mask());
                    assert_eq!(read(&spare), read(&fresh), "copy of {ty:?} {init:?}");
                }
            }
        }
    }
}
