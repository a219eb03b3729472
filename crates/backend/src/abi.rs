//! The kernel's parameters: how a Vulkan compute shader's resources become CUDA-style
//! kernel parameters in constant bank 0, as ptxas lays them out (`docs/sim.md`): every
//! storage buffer binding a 64-bit pointer (a descriptor array one per element, in element
//! order), in (set, binding) order, then the sizes of the buffers that end in a runtime
//! array, then the push-constant bytes as 32-bit words. The first parameter is at 0x160
//! (SM75-SM89) or 0x210 (SM90).

use spirv::StorageClass;
use tangle_ir::{Global, Module};
use tangle_sass::Arch;

/// One kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// The device address of the buffer bound at (set, binding), element `element` of a
    /// descriptor array (0 for a single buffer): 8 bytes.
    Buffer {
        /// Descriptor set.
        set: u32,
        /// Binding.
        binding: u32,
        /// The element of a descriptor array; 0 for a single buffer.
        element: u32,
    },
    /// The size in bytes of the buffer bound at (set, binding) (element `element` of a
    /// descriptor array), for `array_length` of a runtime array: 4 bytes.
    BufferBytes {
        /// Descriptor set.
        set: u32,
        /// Binding.
        binding: u32,
        /// The element of a descriptor array; 0 for a single buffer.
        element: u32,
    },
    /// Four bytes of the push constants, from this byte offset.
    PushWord(u32),
}

impl Param {
    /// Its size in bytes.
    pub fn size(self) -> u32 {
        match self {
            Param::Buffer { .. } => 8,
            Param::PushWord(_) | Param::BufferBytes { .. } => 4,
        }
    }
}

/// The parameter layout of a kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Abi {
    /// The parameters in order, each at [`Abi::offset`].
    pub params: Vec<Param>,
    /// Byte offset of each parameter from the first.
    pub offsets: Vec<u32>,
    /// Where the first parameter is in constant bank 0.
    pub base: u32,
}

/// Where ptxas 13.5 puts the first kernel parameter in constant bank 0.
pub fn param_base(arch: Arch) -> u32 {
    match arch {
        Arch::Sm90 => 0x210,
        _ => 0x160,
    }
}

impl Abi {
    /// The layout for `module`'s storage buffers and `push_bytes` bytes of push constants.
    pub fn new(module: &Module, arch: Arch, push_bytes: u32) -> Abi {
        // (set, binding, elements, ends in a runtime array) of each buffer variable.
        let mut bindings: Vec<(u32, u32, u32, bool)> = module
            .globals
            .iter()
            .filter(|(g, _)| is_storage_buffer(module, *g))
            .filter_map(|(g, d)| {
                let (block, elements) = descriptor_elements(module, g);
                Some((
                    d.decorations.set?,
                    d.decorations.binding?,
                    elements,
                    ends_in_runtime_array(module, block),
                ))
            })
            .collect();
        bindings.sort();
        bindings.dedup();
        let mut params: Vec<Param> = Vec::new();
        for &(set, binding, elements, _) in &bindings {
            for element in 0..elements {
                params.push(Param::Buffer {
                    set,
                    binding,
                    element,
                });
            }
        }
        for &(set, binding, elements, sized) in &bindings {
            for element in 0..elements {
                if sized {
                    params.push(Param::BufferBytes {
                        set,
                        binding,
                        element,
                    });
                }
            }
        }
        for w in 0..push_bytes.div_ceil(4) {
            params.push(Param::PushWord(4 * w));
        }
        let mut offsets = Vec::new();
        let mut off = 0u32;
        for p in &params {
            let align = p.size();
            off = off.div_ceil(align) * align;
            offsets.push(off);
            off += p.size();
        }
        Abi {
            params,
            offsets,
            base: param_base(arch),
        }
    }

    /// The constant-bank-0 offset of the pointer of buffer (set, binding) (of its element
    /// 0 when it is a descriptor array: the others follow 8 bytes apart).
    pub fn buffer_offset(&self, set: u32, binding: u32) -> Option<u32> {
        self.params
            .iter()
            .position(|p| {
                *p == Param::Buffer {
                    set,
                    binding,
                    element: 0,
                }
            })
            .map(|i| self.base + self.offsets[i])
    }

    /// The constant-bank-0 offset of the size of the buffer whose pointer is at constant
    /// offset `pointer` (see [`Abi::buffer_offset`]).
    pub fn size_offset(&self, pointer: u32) -> Option<u32> {
        let i = (0..self.params.len()).find(|&i| self.base + self.offsets[i] == pointer)?;
        let Param::Buffer {
            set,
            binding,
            element,
        } = self.params[i]
        else {
            return None;
        };
        self.params
            .iter()
            .position(|p| {
                *p == Param::BufferBytes {
                    set,
                    binding,
                    element,
                }
            })
            .map(|k| self.base + self.offsets[k])
    }

    /// The constant-bank-0 offset of push-constant byte `byte` (a multiple of 4), if the
    /// layout has it.
    pub fn push_offset(&self, byte: u32) -> Option<u32> {
        self.params
            .iter()
            .position(|p| *p == Param::PushWord(byte))
            .map(|i| self.base + self.offsets[i])
    }

    /// The sizes of the parameters in order (what `tangle_sim::Kernel::from_words` takes).
    pub fn sizes(&self) -> Vec<u32> {
        self.params.iter().map(|p| p.size()).collect()
    }
}

/// Whether `g` is a buffer bound through a descriptor: a storage buffer (`StorageBuffer`,
/// or `Uniform` with a `BufferBlock` struct) or a uniform buffer (`Uniform`).
pub fn is_storage_buffer(module: &Module, g: Global) -> bool {
    matches!(
        module.globals[g].storage,
        StorageClass::StorageBuffer | StorageClass::Uniform
    )
}

/// The block type of buffer variable `g` and how many buffers it binds: the element type
/// and length of a descriptor array (`array<Block, N>`), else its pointee and 1.
pub fn descriptor_elements(module: &Module, g: Global) -> (Option<tangle_ir::Type>, u32) {
    let types = &module.types;
    let Some((_, pointee)) = types.pointer(module.globals[g].ty) else {
        return (None, 1);
    };
    match types.get(pointee) {
        tangle_ir::TypeData::Array { elem, len, .. }
            if tangle_lanes::descriptors::is_descriptor_array(types, pointee) =>
        {
            (Some(*elem), *len)
        }
        _ => (Some(pointee), 1),
    }
}

/// Whether `block` (a buffer's block type) ends in a runtime array (so `array_length`
/// needs its size).
fn ends_in_runtime_array(module: &Module, block: Option<tangle_ir::Type>) -> bool {
    let Some(block) = block else {
        return false;
    };
    match module.types.get(block) {
        tangle_ir::TypeData::Struct { members, .. } => members.last().is_some_and(|m| {
            matches!(
                module.types.get(m.ty),
                tangle_ir::TypeData::RuntimeArray { .. }
            )
        }),
        _ => false,
    }
}
