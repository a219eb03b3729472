//! spirv-dis's friendly names for ids (its default; `--raw-id` turns them off), as probed
//! from SPIRV-Tools 2025.5: `OpName`s, sanitised; a built-in variable's GLSL name;
//! numeric types by their C-like names (`uint`, `v4float`, `mat3v4float`), pointers, arrays
//! and structs by their parts (`_ptr_StorageBuffer_uint`, `_arr_float_uint_64`,
//! `_struct_23`); constants by type and value (`uint_64`, `float_n0`, `true`). A name
//! already taken gets `_0`, `_1`, …; the first name an id gets is kept, in module order.
//! Everything else (labels, functions without a name, composite and spec constants, image
//! and function types) keeps its number.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{self, Operand};
use spirv::{BuiltIn, Decoration, Op};

/// Names by id, and the names taken.
#[derive(Default)]
pub struct Names {
    by_id: HashMap<u32, String>,
    taken: HashSet<String>,
}

impl Names {
    /// The friendly names of a module's ids; `literal` is called on every instruction in
    /// order and prints a constant's value as the disassembler does (the name is made from
    /// that text).
    pub fn of(
        instructions: &[dr::Instruction],
        mut literal: impl FnMut(&dr::Instruction) -> Option<String>,
    ) -> Names {
        let mut names = Names::default();
        for inst in instructions {
            let value = literal(inst);
            names.learn(inst, value);
        }
        names
    }

    /// The name of `id`, if it has one.
    pub fn get(&self, id: u32) -> Option<&str> {
        self.by_id.get(&id).map(String::as_str)
    }

    fn name_of(&self, id: u32) -> String {
        self.by_id
            .get(&id)
            .cloned()
            .unwrap_or_else(|| id.to_string())
    }

    fn save(&mut self, id: u32, suggested: &str) {
        if self.by_id.contains_key(&id) {
            return;
        }
        let base = sanitize(suggested);
        let mut name = base.clone();
        let mut n = 0;
        while self.taken.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.taken.insert(name.clone());
        self.by_id.insert(id, name);
    }

    fn learn(&mut self, inst: &dr::Instruction, literal: Option<String>) {
        let ops = inst.operands.as_slice();
        let id = inst.result_id;
        let ref_name = |names: &Names, i: usize| match ops.get(i) {
            Some(Operand::IdRef(r)) => names.name_of(*r),
            _ => String::new(),
        };
        let suggested = match (inst.class.opcode, ops) {
            (Op::Name, [Operand::IdRef(target), Operand::LiteralString(name)]) => {
                self.save(*target, name);
                return;
            }
            (
                Op::Decorate,
                [Operand::IdRef(target), Operand::Decoration(Decoration::BuiltIn), Operand::BuiltIn(b)],
            ) => {
                if let Some(name) = builtin_name(*b) {
                    self.save(*target, name);
                }
                return;
            }
            (Op::TypeVoid, _) => "void".to_string(),
            (Op::TypeBool, _) => "bool".to_string(),
            (Op::TypeEvent, _) => "Event".to_string(),
            (Op::TypeInt, [Operand::LiteralBit32(w), Operand::LiteralBit32(s)]) => {
                let unsigned = if *s == 0 { "u" } else { "" };
                match w {
                    8 => format!("{unsigned}char"),
                    16 => format!("{unsigned}short"),
                    32 => format!("{unsigned}int"),
                    64 => format!("{unsigned}long"),
                    w => format!("{}{w}", if *s == 0 { "u" } else { "i" }),
                }
            }
            (Op::TypeFloat, [Operand::LiteralBit32(w), ..]) => match w {
                16 => "half".to_string(),
                32 => "float".to_string(),
                64 => "double".to_string(),
                w => format!("fp{w}"),
            },
            (Op::TypeVector, [Operand::IdRef(_), Operand::LiteralBit32(n)]) => {
                format!("v{n}{}", ref_name(self, 0))
            }
            (Op::TypeMatrix, [Operand::IdRef(_), Operand::LiteralBit32(n)]) => {
                format!("mat{n}{}", ref_name(self, 0))
            }
            (Op::TypeArray, [Operand::IdRef(_), Operand::IdRef(_)]) => {
                format!("_arr_{}_{}", ref_name(self, 0), ref_name(self, 1))
            }
            (Op::TypeRuntimeArray, [Operand::IdRef(_)]) => {
                format!("_runtimearr_{}", ref_name(self, 0))
            }
            (Op::TypePointer, [Operand::StorageClass(sc), Operand::IdRef(_)]) => {
                format!("_ptr_{sc:?}_{}", ref_name(self, 1))
            }
            (Op::TypeStruct, _) => match id {
                Some(id) => format!("_struct_{id}"),
                None => return,
            },
            (Op::ConstantTrue, _) => "true".to_string(),
            (Op::ConstantFalse, _) => "false".to_string(),
            (Op::Constant, _) => {
                let (Some(ty), Some(value)) = (inst.result_type, literal) else {
                    return;
                };
                let value: String = value
                    .chars()
                    .map(|c| if c == '-' { 'n' } else { c })
                    .collect();
                format!("{}_{value}", self.name_of(ty))
            }
            _ => return,
        };
        if let Some(id) = id {
            self.save(id, &suggested);
        }
    }
}

/// Every byte that is not an ASCII letter, digit or `_` becomes `_`; nothing becomes `_`.
fn sanitize(name: &str) -> String {
    if name.is_empty() {
        return "_".to_string();
    }
    name.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b == b'_' {
                b as char
            } else {
                '_'
            }
        })
        .collect()
}

/// The name spirv-dis gives a variable decorated with built-in `b` and no `OpName`, for the
/// built-ins probed (others keep their numbers).
fn builtin_name(b: BuiltIn) -> Option<&'static str> {
    use BuiltIn as B;
    Some(match b {
        B::Position => "gl_Position",
        B::PointSize => "gl_PointSize",
        B::ClipDistance => "gl_ClipDistance",
        B::CullDistance => "gl_CullDistance",
        B::VertexId => "gl_VertexID",
        B::InstanceId => "gl_InstanceID",
        B::PrimitiveId => "gl_PrimitiveID",
        B::InvocationId => "gl_InvocationID",
        B::Layer => "gl_Layer",
        B::ViewportIndex => "gl_ViewportIndex",
        B::TessLevelOuter => "gl_TessLevelOuter",
        B::TessLevelInner => "gl_TessLevelInner",
        B::TessCoord => "gl_TessCoord",
        B::PatchVertices => "gl_PatchVertices",
        B::FragCoord => "gl_FragCoord",
        B::PointCoord => "gl_PointCoord",
        B::FrontFacing => "gl_FrontFacing",
        B::SampleId => "gl_SampleID",
        B::SamplePosition => "gl_SamplePosition",
        B::SampleMask => "gl_SampleMask",
        B::FragDepth => "gl_FragDepth",
        B::HelperInvocation => "gl_HelperInvocation",
        B::NumWorkgroups => "gl_NumWorkGroups",
        B::WorkgroupSize => "gl_WorkGroupSize",
        B::WorkgroupId => "gl_WorkGroupID",
        B::LocalInvocationId => "gl_LocalInvocationID",
        B::GlobalInvocationId => "gl_GlobalInvocationID",
        B::LocalInvocationIndex => "gl_LocalInvocationIndex",
        B::VertexIndex => "gl_VertexIndex",
        B::InstanceIndex => "gl_InstanceIndex",
        B::BaseInstance => "gl_BaseInstance",
        B::WorkDim => "WorkDim",
        B::GlobalSize => "GlobalSize",
        B::EnqueuedWorkgroupSize => "EnqueuedWorkgroupSize",
        B::GlobalOffset => "GlobalOffset",
        B::GlobalLinearId => "GlobalLinearId",
        B::SubgroupSize => "SubgroupSize",
        B::SubgroupMaxSize => "SubgroupMaxSize",
        B::NumSubgroups => "NumSubgroups",
        B::NumEnqueuedSubgroups => "NumEnqueuedSubgroups",
        B::SubgroupId => "SubgroupId",
        B::SubgroupLocalInvocationId => "SubgroupLocalInvocationId",
        B::SubgroupEqMask => "SubgroupEqMaskKHR",
        B::SubgroupGeMask => "SubgroupGeMaskKHR",
        B::SubgroupGtMask => "SubgroupGtMaskKHR",
        B::SubgroupLeMask => "SubgroupLeMaskKHR",
        B::SubgroupLtMask => "SubgroupLtMaskKHR",
        _ => return None,
    })
}
