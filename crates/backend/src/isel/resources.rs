//! Resources that are more than one buffer per variable or one slot per variable:
//! descriptor arrays (`array<Block, N>` in `StorageBuffer`/`Uniform` storage, one kernel
//! parameter per element) and explicitly laid out workgroup memory
//! (`WorkgroupMemoryExplicitLayoutKHR`: every `Workgroup` variable of `Block` type aliases
//! one region of shared memory from its start).

use tangle_ir::{Type, TypeData};
use tangle_sass::typed::RZ;
use tangle_sass::Op;

use super::memory::{Mem, Ptr};
use super::{Isel, Sc};
use crate::error::CompileError;
use crate::mir::{MInst, MOpnd, RegClass};

impl Isel<'_> {
    /// The memory of a buffer variable whose (element 0's) pointer parameter is at `cb`
    /// and whose pointee is `ty`: a descriptor array, or a single buffer.
    pub(crate) fn buffer_mem(&self, cb: u32, ty: Type) -> Result<Mem, CompileError> {
        let types = &self.module.types;
        if !tangle_lanes::descriptors::is_descriptor_array(types, ty) {
            return Ok(Mem::Buffer(cb));
        }
        match types.get(ty) {
            TypeData::Array { .. } => Ok(Mem::Buffers(cb)),
            _ => Err(self.unsupported("a runtime-sized descriptor array")),
        }
    }

    /// Element `idx` of the descriptor array of type `ty` whose element 0's pointer is at
    /// `cb`: a constant index names its parameter; a dynamic one loads the pointer from
    /// constant bank 0 at `cb + 8 * idx` (`LDC.64` with a register address; an index past
    /// the array reads another parameter, which Vulkan leaves undefined).
    pub(crate) fn descriptor_element(
        &mut self,
        cb: u32,
        ty: Type,
        idx: Sc,
    ) -> Result<Ptr, CompileError> {
        let TypeData::Array { elem, len, .. } = *self.module.types.get(ty) else {
            return Err(CompileError::Internal(
                "a descriptor array that is not an array".into(),
            ));
        };
        let mem = match idx {
            Sc::Imm(k) if k < len => Mem::Buffer(cb + 8 * k),
            Sc::Imm(k) => {
                return Err(self.unsupported(format!(
                    "element {k} of a descriptor array of {len} (out of bounds)"
                )))
            }
            Sc::R(i) => {
                let eight = self.reg(Sc::Imm(8))?;
                let at = self.r();
                self.emit(MInst::new(Op::Imad).d(at).u(i).u(eight).f(RZ));
                let base = self.mf.vreg(RegClass::R, 2);
                self.emit(MInst::new(Op::Ldc).m(".64").d(base).o(MOpnd::Mem {
                    base: Some(at),
                    offset: cb as i64,
                }));
                Mem::Global(base)
            }
            _ => return Err(self.unsupported("a boolean index into a descriptor array")),
        };
        Ok(Ptr {
            mem,
            off: 0,
            dyn_off: None,
            ty: elem,
        })
    }

    /// A `Workgroup` variable of `Block` type `ty`: the region every such variable aliases,
    /// as large as the largest block and placed (16-byte aligned) at the first one's use.
    /// Each block's initializer (in module order, as the reference writes them) is stored
    /// by every invocation at the entry, before the entry's `BAR.SYNC`; a block at a larger
    /// offset writes only its own bytes.
    pub(crate) fn workgroup_block(&mut self, ty: Type) -> Result<Ptr, CompileError> {
        let at = |base: u32, ty: Type| Ptr {
            mem: Mem::SharedBlock,
            off: base,
            dyn_off: None,
            ty,
        };
        if let Some(base) = self.block_base {
            return Ok(at(base, ty));
        }
        let types = &self.module.types;
        let mut blocks = Vec::new();
        for (_, d) in self.module.globals.iter() {
            if d.storage != spirv::StorageClass::Workgroup {
                continue;
            }
            let Some((_, pointee)) = types.pointer(d.ty) else {
                continue;
            };
            if tangle_lanes::memory::is_block(types, pointee) {
                blocks.push((pointee, d.init));
            }
        }
        let size = blocks
            .iter()
            .map(|&(p, _)| tangle_lanes::value::size_align(types, p).0)
            .max()
            .unwrap_or(0);
        let size = u32::try_from(size)
            .ok()
            .filter(|s| *s <= 0xc000)
            .ok_or_else(|| self.unsupported(format!("{size} bytes of workgroup blocks")))?;
        let base = self.shared_bytes.div_ceil(16) * 16;
        self.shared_bytes = base + size;
        self.block_base = Some(base);
        for (pointee, init) in blocks {
            let Some(init) = init else { continue };
            let v = self.opts.consts[init.as_u32() as usize].clone();
            let scs = self.const_val(pointee, &v)?;
            let saved = self.cur;
            self.cur = self.entry;
            let r = self.store(&at(base, pointee), &scs);
            self.cur = saved;
            r?;
            self.shared_init = true;
        }
        Ok(at(base, ty))
    }
}
