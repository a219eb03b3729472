//! Explicit layout of the blocks behind StorageBuffer, PushConstant and Uniform variables, by
//! Vulkan 1.1's relaxed block layout (what spirv-val checks for `--target-env vulkan1.1`):
//!
//! - every struct member has an `Offset` and every array an `ArrayStride`;
//! - a member's offset is a multiple of its base alignment (std430; std140 for Uniform, where
//!   arrays and structs align to 16), except that a vector needs only its component's
//!   alignment but may not straddle a 16-byte boundary (or, above 16 bytes, must start on one);
//! - members do not overlap (for Uniform, nothing sits in the padding after an array or
//!   struct);
//! - array strides are non-zero multiples of the element's base alignment and at least the
//!   element's size.
//!
//! - a matrix has a `MatrixStride` and a majorness; it lies as an array of its columns
//!   (column-major) or rows (row-major) with that stride, aligned like that array.
//!
//! Offsets of nested structs are checked as absolute offsets in the block, as are the
//! elements of arrays of structs (until their offsets repeat modulo 16).

use spirv::StorageClass;

use super::{Location, Rule, Sink};
use crate::module::Module;
use crate::types::{Type, TypeData};

/// Checks the block `ty` of a variable in `storage`.
pub(super) fn check(module: &Module, ty: Type, storage: StorageClass, what: &str, sink: &mut Sink) {
    let before = sink.errors.len();
    let block = match module.types.get(ty) {
        TypeData::Array { elem, .. } | TypeData::RuntimeArray { elem, .. } => *elem,
        _ => ty,
    };
    // An array of blocks is a descriptor array: its elements are separate buffers, so the
    // array itself has no layout (no ArrayStride); each block has its own.
    let descriptor_array = block != ty
        && matches!(
            module.types.get(block),
            TypeData::Struct { block: true, .. }
                | TypeData::Struct {
                    buffer_block: true,
                    ..
                }
        );
    check_present(
        module,
        if descriptor_array { block } else { ty },
        what,
        sink,
    );
    if sink.errors.len() != before {
        return;
    }
    // A `BufferBlock` behind a Uniform variable is a storage buffer: std430 rules.
    let buffer_block = matches!(
        module.types.get(block),
        TypeData::Struct {
            buffer_block: true,
            ..
        }
    );
    let cx = Cx {
        module,
        uniform: storage == StorageClass::Uniform && !buffer_block,
    };
    if let Err(message) = cx.check_struct(block, 0) {
        let rules = if cx.uniform {
            "uniform buffer"
        } else {
            "storage buffer"
        };
        sink.report(
            Rule::Layout,
            Location::default(),
            format!("{what}: {message} (relaxed {rules} layout rules)"),
        );
    }
}

/// Offsets and strides everywhere inside an interface block.
fn check_present(module: &Module, ty: Type, what: &str, sink: &mut Sink) {
    let at = Location::default();
    match module.types.get(ty) {
        TypeData::Array { elem, stride, .. } | TypeData::RuntimeArray { elem, stride } => {
            if stride.is_none() {
                sink.report(
                    Rule::Layout,
                    at,
                    format!("{what}: array {ty} needs an ArrayStride"),
                );
            }
            check_present(module, *elem, what, sink);
        }
        TypeData::Matrix { layout: None, .. } => sink.report(
            Rule::Layout,
            at,
            format!("{what}: matrix {ty} needs a MatrixStride and RowMajor or ColMajor"),
        ),
        TypeData::Struct { members, .. } => {
            for (i, m) in members.iter().enumerate() {
                if m.offset.is_none() {
                    sink.report(
                        Rule::Layout,
                        at,
                        format!("{what}: member {i} of {ty} needs an Offset"),
                    );
                }
                check_present(module, m.ty, what, sink);
            }
        }
        _ => {}
    }
}

struct Cx<'a> {
    module: &'a Module,
    /// std140 (Uniform) rather than std430 base alignments.
    uniform: bool,
}

fn round_up(x: u64, align: u64) -> u64 {
    x.div_ceil(align.max(1)) * align.max(1)
}

impl Cx<'_> {
    fn get(&self, ty: Type) -> &TypeData {
        self.module.types.get(ty)
    }

    /// A laid-out matrix's (vector of its columns or rows, how many, their stride): the array
    /// it lies as.
    fn matrix_vectors(&self, ty: Type) -> Option<(u64, u64, u64, u64)> {
        let TypeData::Matrix {
            column,
            count,
            layout: Some(l),
        } = self.get(ty)
        else {
            return None;
        };
        let TypeData::Vector { elem, count: rows } = self.get(*column) else {
            return None;
        };
        let (n, vectors) = if l.row_major {
            (u64::from(*count), u64::from(*rows))
        } else {
            (u64::from(*rows), u64::from(*count))
        };
        let scalar = self.size(*elem);
        let align = scalar * if n == 3 { 4 } else { n };
        Some((align, scalar * n, vectors, u64::from(l.stride)))
    }

    fn base_alignment(&self, ty: Type) -> u64 {
        let round = |a: u64| if self.uniform { round_up(a, 16) } else { a };
        if let Some((align, ..)) = self.matrix_vectors(ty) {
            return round(align);
        }
        match self.get(ty) {
            TypeData::Int { width, .. } | TypeData::Float { width } => u64::from(*width) / 8,
            TypeData::Vector { elem, count } => {
                self.base_alignment(*elem) * if *count == 3 { 4 } else { u64::from(*count) }
            }
            TypeData::Array { elem, .. } | TypeData::RuntimeArray { elem, .. } => {
                round(self.base_alignment(*elem))
            }
            TypeData::Struct { members, .. } => round(
                members
                    .iter()
                    .map(|m| self.base_alignment(m.ty))
                    .fold(1, u64::max),
            ),
            _ => 1,
        }
    }

    fn scalar_alignment(&self, ty: Type) -> u64 {
        match self.get(ty) {
            TypeData::Int { width, .. } | TypeData::Float { width } => u64::from(*width) / 8,
            TypeData::Matrix { column: elem, .. }
            | TypeData::Vector { elem, .. }
            | TypeData::Array { elem, .. }
            | TypeData::RuntimeArray { elem, .. } => self.scalar_alignment(*elem),
            TypeData::Struct { members, .. } => members
                .iter()
                .map(|m| self.scalar_alignment(m.ty))
                .fold(1, u64::max),
            _ => 1,
        }
    }

    /// The bytes `ty` covers, without trailing padding.
    fn size(&self, ty: Type) -> u64 {
        if let Some((_, vector, n, stride)) = self.matrix_vectors(ty) {
            return (n - 1) * stride + vector;
        }
        match self.get(ty) {
            TypeData::Int { width, .. } | TypeData::Float { width } => u64::from(*width) / 8,
            TypeData::Vector { elem, count } => self.size(*elem) * u64::from(*count),
            TypeData::Array { elem, len, stride } => {
                u64::from(len.saturating_sub(1)) * u64::from(stride.unwrap_or(0)) + self.size(*elem)
            }
            TypeData::Struct { members, .. } => members
                .last()
                .map_or(0, |m| u64::from(m.offset.unwrap_or(0)) + self.size(m.ty)),
            _ => 0,
        }
    }

    /// The members of struct `st`, placed at `base`.
    fn check_struct(&self, st: Type, base: u64) -> Result<(), String> {
        let TypeData::Struct { members, .. } = self.get(st) else {
            return Ok(());
        };
        let mut order: Vec<(usize, u64)> = members
            .iter()
            .enumerate()
            .map(|(i, m)| (i, base + u64::from(m.offset.unwrap_or(0))))
            .collect();
        order.sort_by_key(|&(_, o)| o);
        let mut next = 0u64;
        for (i, offset) in order {
            let ty = members[i].ty;
            let at = format!("member {i} of {st} at offset {offset}");
            let align = self.base_alignment(ty).max(1);
            let size = self.size(ty);
            if let TypeData::Vector { elem, .. } = self.get(ty) {
                let scalar = self.scalar_alignment(*elem).max(1);
                if offset % scalar != 0 {
                    return Err(format!(
                        "{at} is not aligned to its component size {scalar}"
                    ));
                }
            } else if offset % align != 0 {
                return Err(format!("{at} is not aligned to {align}"));
            }
            if offset < next {
                return Err(format!(
                    "{at} overlaps the previous member, which ends at {next}"
                ));
            }
            if matches!(self.get(ty), TypeData::Vector { .. }) {
                let straddles = if size <= 16 {
                    offset / 16 != (offset + size.max(1) - 1) / 16
                } else {
                    offset % 16 != 0
                };
                if straddles {
                    return Err(format!("{at} is a vector improperly straddling 16 bytes"));
                }
            }
            self.check_struct(ty, offset)?;
            self.check_arrays(ty, offset, align, &at)?;
            self.check_matrix(ty, &at)?;
            next = offset + size;
            if self.uniform
                && matches!(
                    self.get(ty),
                    TypeData::Array { .. } | TypeData::Struct { .. }
                )
            {
                next = round_up(next, align);
            }
        }
        Ok(())
    }

    /// The stride of a laid-out matrix (or of the matrices of an array of them): a multiple
    /// of its vectors' alignment, at least their size.
    fn check_matrix(&self, mut ty: Type, at: &str) -> Result<(), String> {
        while let TypeData::Array { elem, .. } | TypeData::RuntimeArray { elem, .. } = self.get(ty)
        {
            ty = *elem;
        }
        let Some((align, size, _, stride)) = self.matrix_vectors(ty) else {
            return Ok(());
        };
        let align = if self.uniform {
            round_up(align, 16)
        } else {
            align
        };
        if stride % align != 0 || stride < size {
            return Err(format!(
                "{at} is a matrix with stride {stride}, which must be a multiple of {align} and at least {size}"
            ));
        }
        Ok(())
    }

    /// The strides of array `ty` (and of arrays nested in it) at `offset`, and the structs
    /// in its elements.
    fn check_arrays(
        &self,
        mut ty: Type,
        offset: u64,
        mut align: u64,
        at: &str,
    ) -> Result<(), String> {
        while let TypeData::Array { elem, stride, .. } | TypeData::RuntimeArray { elem, stride } =
            self.get(ty)
        {
            let stride = u64::from(stride.unwrap_or(0));
            if stride == 0 {
                return Err(format!("{at} contains an array with stride 0"));
            }
            if stride % align != 0 {
                return Err(format!(
                    "{at} contains an array with stride {stride} not satisfying alignment {align}"
                ));
            }
            if matches!(self.get(*elem), TypeData::Struct { .. }) {
                let count = match self.get(ty) {
                    TypeData::Array { len, .. } => u64::from(*len).max(1),
                    _ => 1,
                };
                let mut seen = [false; 16];
                for k in 0..count {
                    let o = offset + k * stride;
                    if std::mem::replace(&mut seen[(o % 16) as usize], true) {
                        break;
                    }
                    self.check_struct(*elem, o)?;
                }
            }
            let size = self.size(*elem);
            if size > stride {
                return Err(format!(
                    "{at} contains an array with stride {stride} but elements of {size} bytes"
                ));
            }
            ty = *elem;
            align = self.base_alignment(ty).max(1);
        }
        Ok(())
    }
}
