//! What a shader needs bound before it can run: the descriptors and push constants its
//! code uses.

use std::collections::BTreeSet;

use spirv::StorageClass;
use tangle_amber::DescriptorKind;
use tangle_ir::{Global, GlobalData, Module, Operand, TypeData};

/// A buffer descriptor the shader's code uses.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Descriptor {
    /// `DescriptorSet`.
    pub set: u32,
    /// `Binding`.
    pub binding: u32,
    /// A storage buffer (`StorageBuffer`, or `Uniform` with a `BufferBlock` struct) or a
    /// uniform buffer.
    pub kind: DescriptorKind,
    /// The variable's debug name, when the module has one.
    pub name: Option<String>,
}

/// The globals some instruction of some function uses.
fn used_globals(module: &Module) -> BTreeSet<Global> {
    module
        .funcs
        .iter()
        .flat_map(|(_, f)| f.insts.iter())
        .flat_map(|(_, inst)| inst.args.iter())
        .filter_map(|a| match a {
            Operand::Global(g) => Some(*g),
            _ => None,
        })
        .collect()
}

/// The storage and uniform buffers the module's code uses, by (set, binding).
pub fn used_descriptors(module: &Module) -> Vec<Descriptor> {
    let used = used_globals(module);
    let mut v: Vec<Descriptor> = module
        .globals
        .iter()
        .filter(|(g, _)| used.contains(g))
        .filter_map(|(_, d)| {
            Some(Descriptor {
                set: d.decorations.set?,
                binding: d.decorations.binding?,
                kind: descriptor_kind(module, d)?,
                name: d.name.clone().filter(|n| !n.is_empty()),
            })
        })
        .collect();
    v.sort();
    v
}

/// The kind of buffer descriptor a global variable is: `StorageBuffer` variables and
/// `Uniform` variables whose block is decorated `BufferBlock` are storage buffers, other
/// `Uniform` variables uniform buffers; `None` for everything else.
pub fn descriptor_kind(module: &Module, global: &GlobalData) -> Option<DescriptorKind> {
    match global.storage {
        StorageClass::StorageBuffer => Some(DescriptorKind::Storage),
        StorageClass::Uniform => {
            let mut ty = global.ty;
            if let TypeData::Pointer { pointee, .. } = module.types.get(ty) {
                ty = *pointee;
            }
            if let TypeData::Array { elem, .. } | TypeData::RuntimeArray { elem, .. } =
                module.types.get(ty)
            {
                ty = *elem;
            }
            let buffer_block = matches!(
                module.types.get(ty),
                TypeData::Struct {
                    buffer_block: true,
                    ..
                }
            );
            Some(if buffer_block {
                DescriptorKind::Storage
            } else {
                DescriptorKind::Uniform
            })
        }
        _ => None,
    }
}

/// Whether the module's code reads push constants.
pub fn uses_push_constants(module: &Module) -> bool {
    let used = used_globals(module);
    module
        .globals
        .iter()
        .any(|(g, d)| d.storage == StorageClass::PushConstant && used.contains(&g))
}

impl std::fmt::Display for Descriptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.kind {
            DescriptorKind::Uniform => "uniform buffer",
            DescriptorKind::Storage => "storage buffer",
        };
        write!(f, "{kind} ")?;
        if let Some(n) = &self.name {
            write!(f, "`{n}` ")?;
        }
        write!(f, "at set {} binding {}", self.set, self.binding)
    }
}
