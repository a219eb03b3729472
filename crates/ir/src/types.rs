//! The type table: every type of a module, interned, with the layout decorations that make
//! two otherwise equal types different (array strides, member offsets, `Block`).

use crate::hash::FxHashMap;

use spirv::StorageClass;

use crate::entity::{entity, EntityVec};

entity!(
    /// A type of the module's type table.
    Type,
    "t"
);

/// Decorations a struct member may carry besides its offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemberFlag {
    /// `NonWritable`.
    NonWritable,
    /// `NonReadable`.
    NonReadable,
    /// `Coherent`.
    Coherent,
    /// `Volatile`.
    Volatile,
    /// `Restrict`.
    Restrict,
    /// `RelaxedPrecision`.
    RelaxedPrecision,
    /// `Aliased` (on variables: their memory may be reached through other variables, as
    /// explicitly laid out workgroup blocks are).
    Aliased,
}

impl MemberFlag {
    /// Every flag, in text order.
    pub const ALL: [MemberFlag; 7] = [
        MemberFlag::NonWritable,
        MemberFlag::NonReadable,
        MemberFlag::Coherent,
        MemberFlag::Volatile,
        MemberFlag::Restrict,
        MemberFlag::RelaxedPrecision,
        MemberFlag::Aliased,
    ];

    /// The text-form spelling.
    pub fn name(self) -> &'static str {
        match self {
            MemberFlag::NonWritable => "non_writable",
            MemberFlag::NonReadable => "non_readable",
            MemberFlag::Coherent => "coherent",
            MemberFlag::Volatile => "volatile",
            MemberFlag::Restrict => "restrict",
            MemberFlag::RelaxedPrecision => "relaxed_precision",
            MemberFlag::Aliased => "aliased",
        }
    }

    /// The flag with text-form spelling `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// One member of a struct type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Member {
    /// The member's type.
    pub ty: Type,
    /// Its byte offset (`Offset` decoration), required in externally visible blocks.
    pub offset: Option<u32>,
    /// Its other decorations, in [`MemberFlag::ALL`] order, without repeats.
    pub flags: Vec<MemberFlag>,
    /// Its debug name (`OpMemberName`).
    pub name: Option<String>,
}

/// How a matrix lies in explicitly laid out memory: a struct member's `MatrixStride` and
/// `RowMajor` / `ColMajor` decorations, carried by the matrix type itself so that a pointer
/// to the member (or to an array of such matrices) knows where its elements are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatrixLayout {
    /// Bytes between columns (column-major) or rows (row-major).
    pub stride: u32,
    /// `RowMajor`: the components of a row are consecutive, rows `stride` bytes apart.
    pub row_major: bool,
}

/// What a type is.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeData {
    /// No value.
    Void,
    /// A boolean (no defined bit pattern in memory).
    Bool,
    /// An integer of `width` bits (8, 16, 32 or 64).
    Int {
        /// Bits.
        width: u8,
        /// Two's-complement signed (`i`) or unsigned (`u`); affects only the spelling and
        /// the default interpretation of literals, as in SPIR-V.
        signed: bool,
    },
    /// An IEEE float of `width` bits (16, 32 or 64).
    Float {
        /// Bits.
        width: u8,
    },
    /// A vector of 2, 3 or 4 scalars.
    Vector {
        /// The scalar type.
        elem: Type,
        /// The number of components.
        count: u8,
    },
    /// A matrix of `count` (2–4) columns of the float vector type `column`. Values are the
    /// columns in order. `layout` is set where the matrix lies in explicitly laid out memory
    /// (a `MatrixStride` struct member); a loaded or stored value has the plain type (layout
    /// `None`) and the memory instructions accept the two as one value type
    /// ([`TypeTable::same_value_type`]).
    Matrix {
        /// The column type (a float vector).
        column: Type,
        /// The number of columns.
        count: u8,
        /// The layout in memory, where the type is a laid-out member.
        layout: Option<MatrixLayout>,
    },
    /// A column of a row-major matrix in memory: the components of the vector type `vector`,
    /// `stride` bytes apart. Only a pointer's pointee (an access chain into a row-major
    /// matrix reaches one); loads give, and stores take, `vector`.
    StridedVector {
        /// The vector type of the loaded value.
        vector: Type,
        /// Bytes between consecutive components.
        stride: u32,
    },
    /// An array of fixed length.
    Array {
        /// The element type.
        elem: Type,
        /// The number of elements.
        len: u32,
        /// `ArrayStride`, when decorated.
        stride: Option<u32>,
    },
    /// An array whose length is known only at run time (the last member of a buffer block).
    RuntimeArray {
        /// The element type.
        elem: Type,
        /// `ArrayStride`, when decorated.
        stride: Option<u32>,
    },
    /// A struct.
    Struct {
        /// Its members, in order.
        members: Vec<Member>,
        /// Decorated `Block` (an interface block of a buffer or push-constant variable).
        block: bool,
        /// Decorated `BufferBlock`: SPIR-V 1.0–1.3's storage buffer block, behind a `Uniform`
        /// variable (glslang still emits it for Vulkan 1.0). Such a variable is a storage
        /// buffer: std430 layout rules, bound as a storage descriptor.
        buffer_block: bool,
        /// Its debug name (`OpName`).
        name: Option<String>,
    },
    /// A pointer into a storage class.
    Pointer {
        /// Where it points.
        storage: StorageClass,
        /// What it points to.
        pointee: Type,
    },
    /// A function signature.
    Function {
        /// The return type.
        ret: Type,
        /// The parameter types.
        params: Vec<Type>,
    },
    /// A convergence-control token (LLVM's `token`): names a set of invocations that
    /// execute convergent operations together. Produced by `conv_entry`, `conv_anchor` and
    /// `conv_loop`; has no SPIR-V type and no value in memory.
    Token,
    /// A warp convergence barrier (NVIDIA's `B0`..`B15`): produced by `bar_set`, named by
    /// `bar_sync` and `bar_break`. Only lowered functions hold values of this type.
    Barrier,
}

impl TypeData {
    /// Whether this type is printed inline (scalars, vectors, pointers) rather than by name.
    pub fn is_inline(&self) -> bool {
        matches!(
            self,
            TypeData::Void
                | TypeData::Bool
                | TypeData::Int { .. }
                | TypeData::Float { .. }
                | TypeData::Vector { .. }
                | TypeData::Pointer { .. }
                | TypeData::Token
                | TypeData::Barrier
        )
    }

    /// Whether this type exists only in tangle (no SPIR-V type): tokens and barriers.
    pub fn is_tangle_only(&self) -> bool {
        matches!(self, TypeData::Token | TypeData::Barrier)
    }
}

/// The interned types of a module.
#[derive(Clone, Debug, Default)]
pub struct TypeTable {
    types: EntityVec<Type, TypeData>,
    lookup: FxHashMap<TypeData, Type>,
}

impl TypeTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The type equal to `data`, added if it is new.
    pub fn intern(&mut self, data: TypeData) -> Type {
        if let Some(&ty) = self.lookup.get(&data) {
            return ty;
        }
        let ty = self.types.push(data.clone());
        self.lookup.insert(data, ty);
        ty
    }

    /// The existing type equal to `data`.
    pub fn find(&self, data: &TypeData) -> Option<Type> {
        self.lookup.get(data).copied()
    }

    /// What `ty` is.
    pub fn get(&self, ty: Type) -> &TypeData {
        &self.types[ty]
    }

    /// Whether `ty` is a type of this table.
    pub fn contains(&self, ty: Type) -> bool {
        self.types.contains(ty)
    }

    /// Every type, in index order.
    pub fn iter(&self) -> impl Iterator<Item = (Type, &TypeData)> {
        self.types.iter()
    }

    /// The number of types.
    pub fn len(&self) -> usize {
        self.types.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    /// `void`.
    pub fn void(&mut self) -> Type {
        self.intern(TypeData::Void)
    }

    /// `bool`.
    pub fn bool(&mut self) -> Type {
        self.intern(TypeData::Bool)
    }

    /// The convergence-control token type.
    pub fn token(&mut self) -> Type {
        self.intern(TypeData::Token)
    }

    /// The warp-barrier type.
    pub fn barrier(&mut self) -> Type {
        self.intern(TypeData::Barrier)
    }

    /// A 32-bit unsigned integer.
    pub fn u32(&mut self) -> Type {
        self.intern(TypeData::Int {
            width: 32,
            signed: false,
        })
    }

    /// The scalar type of `ty`: itself for a scalar, the element type for a vector.
    pub fn scalar_of(&self, ty: Type) -> Type {
        match self.get(ty) {
            TypeData::Vector { elem, .. } => *elem,
            _ => ty,
        }
    }

    /// The number of components: the vector's count, 1 for anything else.
    pub fn component_count(&self, ty: Type) -> u32 {
        match self.get(ty) {
            TypeData::Vector { count, .. } => u32::from(*count),
            _ => 1,
        }
    }

    /// Whether `ty` is an integer scalar or vector of integers.
    pub fn is_int(&self, ty: Type) -> bool {
        matches!(self.get(self.scalar_of(ty)), TypeData::Int { .. })
    }

    /// Whether `ty` is a float scalar or vector of floats.
    pub fn is_float(&self, ty: Type) -> bool {
        matches!(self.get(self.scalar_of(ty)), TypeData::Float { .. })
    }

    /// Whether `ty` is `bool` or a vector of `bool`.
    pub fn is_bool(&self, ty: Type) -> bool {
        matches!(self.get(self.scalar_of(ty)), TypeData::Bool)
    }

    /// The bit width of a scalar (or of a vector's components); 0 for other types.
    pub fn bit_width(&self, ty: Type) -> u32 {
        match self.get(self.scalar_of(ty)) {
            TypeData::Int { width, .. } | TypeData::Float { width } => u32::from(*width),
            TypeData::Bool => 1,
            _ => 0,
        }
    }

    /// The pointee and storage class of a pointer type.
    pub fn pointer(&self, ty: Type) -> Option<(StorageClass, Type)> {
        match self.get(ty) {
            TypeData::Pointer { storage, pointee } => Some((*storage, *pointee)),
            _ => None,
        }
    }

    /// The column type a matrix of type `ty` has in memory: the plain column vector, or for
    /// a row-major laid-out matrix the strided vector of its column (which
    /// [`TypeTable::matrix`] interns with the matrix).
    pub fn matrix_column_in_memory(&self, ty: Type) -> Option<Type> {
        match self.get(ty) {
            TypeData::Matrix {
                column,
                layout:
                    Some(MatrixLayout {
                        stride,
                        row_major: true,
                    }),
                ..
            } => self.find(&TypeData::StridedVector {
                vector: *column,
                stride: *stride,
            }),
            TypeData::Matrix { column, .. } => Some(*column),
            _ => None,
        }
    }

    /// The columns of a matrix type, or the components of a strided column; 0 for anything
    /// else.
    pub fn matrix_or_column_len(&self, ty: Type) -> u32 {
        match self.get(ty) {
            TypeData::Matrix { count, .. } => u32::from(*count),
            TypeData::StridedVector { vector, .. } => self.component_count(*vector),
            _ => 0,
        }
    }

    /// The matrix type of `count` columns of `column` with `layout`, interning the strided
    /// column vector a row-major layout's access chains reach.
    pub fn matrix(&mut self, column: Type, count: u8, layout: Option<MatrixLayout>) -> Type {
        if let Some(MatrixLayout {
            stride,
            row_major: true,
        }) = layout
        {
            self.intern(TypeData::StridedVector {
                vector: column,
                stride,
            });
        }
        self.intern(TypeData::Matrix {
            column,
            count,
            layout,
        })
    }

    /// Whether a value of type `value` can be loaded from or stored to memory of type
    /// `memory`: the same type, or the same but for matrix layouts (a laid-out matrix holds a
    /// plain matrix value; a strided column holds its vector), at any depth of arrays.
    pub fn same_value_type(&self, memory: Type, value: Type) -> bool {
        if memory == value {
            return true;
        }
        match (self.get(memory), self.get(value)) {
            (
                TypeData::Matrix {
                    column: c1,
                    count: n1,
                    ..
                },
                TypeData::Matrix {
                    column: c2,
                    count: n2,
                    layout: None,
                },
            ) => c1 == c2 && n1 == n2,
            (TypeData::StridedVector { vector, .. }, _) => *vector == value,
            (
                TypeData::Array {
                    elem: e1,
                    len: l1,
                    stride: s1,
                },
                TypeData::Array {
                    elem: e2,
                    len: l2,
                    stride: s2,
                },
            ) => l1 == l2 && s1 == s2 && self.same_value_type(*e1, *e2),
            _ => false,
        }
    }

    /// The type that indexing `ty` with `index` gives (a struct needs the index).
    pub fn element(&self, ty: Type, index: Option<u32>) -> Option<Type> {
        match self.get(ty) {
            TypeData::Matrix { count, .. } => match index {
                Some(i) if i >= u32::from(*count) => None,
                _ => self.matrix_column_in_memory(ty),
            },
            TypeData::StridedVector { vector, .. } => match (self.get(*vector), index) {
                (TypeData::Vector { count, .. }, Some(i)) if i >= u32::from(*count) => None,
                (TypeData::Vector { elem, .. }, _) => Some(*elem),
                _ => None,
            },
            TypeData::Vector { elem, count } => match index {
                Some(i) if i >= u32::from(*count) => None,
                _ => Some(*elem),
            },
            TypeData::Array { elem, len, .. } => match index {
                Some(i) if i >= *len => None,
                _ => Some(*elem),
            },
            TypeData::RuntimeArray { elem, .. } => Some(*elem),
            TypeData::Struct { members, .. } => {
                index.and_then(|i| members.get(i as usize)).map(|m| m.ty)
            }
            _ => None,
        }
    }
}
