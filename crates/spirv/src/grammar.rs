//! Lookup helpers over the SPIR-V grammar for the assembler.
//!
//! Opcodes and their operand kinds come from rspirv's `CoreInstructionTable`; value-enumerant
//! names are parsed by the `spirv` crate. What those tables lack is written here: the
//! parameters that follow an enumerant (`LocalSize 1 1 1`, `SpecId 3`, `Aligned 4`, ...),
//! spirv-dis's CamelCase spellings of bitmask bits (`DontUnroll`, `MakePointerAvailable`) and
//! a few enumerants newer than the `spirv` crate (`MaximallyReconvergesKHR`).

use std::collections::HashMap;
use std::sync::OnceLock;

use rspirv::grammar::{
    CoreInstructionTable, GlslStd450InstructionTable, OpenCLStd100InstructionTable,
};
pub use rspirv::grammar::{
    ExtendedInstruction, Instruction, LogicalOperand, OperandKind, OperandQuantifier,
};
use spirv as s;

/// The grammar entry of the core instruction named `name` (with its `Op` prefix).
pub fn instruction(name: &str) -> Option<&'static Instruction<'static>> {
    static BY_NAME: OnceLock<HashMap<String, &'static Instruction<'static>>> = OnceLock::new();
    BY_NAME
        .get_or_init(|| {
            CoreInstructionTable::iter()
                .map(|inst| (format!("Op{}", inst.opname), inst))
                .collect()
        })
        .get(name)
        .copied()
}

/// The extended instruction sets the assembler knows by import name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtInstSet {
    /// `GLSL.std.450`.
    GlslStd450,
    /// `OpenCL.std`.
    OpenClStd,
    /// `NonSemantic.Shader.DebugInfo.100` (glslang's `-gV`).
    ShaderDebugInfo100,
    /// Any other `NonSemantic.*` set: instructions by number, every operand an id.
    NonSemantic,
}

/// One instruction of an extended set: its number and operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtInst {
    /// The instruction number within its set.
    pub opcode: u32,
    /// Its operands (after the set and instruction words).
    pub operands: Vec<(OperandKind, OperandQuantifier)>,
}

/// How many trailing operands follow the fixed ids of a `NonSemantic.Shader.DebugInfo.100`
/// instruction.
#[derive(Clone, Copy)]
enum Tail {
    None,
    Optional,
    Many,
    Pairs,
}

/// `NonSemantic.Shader.DebugInfo.100`: name, number, fixed id operands, tail. Every operand
/// of this set is an id.
const SHADER_DEBUG_INFO_100: &[(&str, u32, u8, Tail)] = &[
    ("DebugInfoNone", 0, 0, Tail::None),
    ("DebugCompilationUnit", 1, 4, Tail::None),
    ("DebugTypeBasic", 2, 4, Tail::None),
    ("DebugTypePointer", 3, 3, Tail::None),
    ("DebugTypeQualifier", 4, 2, Tail::None),
    ("DebugTypeArray", 5, 1, Tail::Many),
    ("DebugTypeVector", 6, 2, Tail::None),
    ("DebugTypedef", 7, 6, Tail::None),
    ("DebugTypeFunction", 8, 2, Tail::Many),
    ("DebugTypeEnum", 9, 8, Tail::Pairs),
    ("DebugTypeComposite", 10, 9, Tail::Many),
    ("DebugTypeMember", 11, 8, Tail::Optional),
    ("DebugTypeInheritance", 12, 4, Tail::None),
    ("DebugTypePtrToMember", 13, 2, Tail::None),
    ("DebugTypeTemplate", 14, 1, Tail::Many),
    ("DebugTypeTemplateParameter", 15, 6, Tail::None),
    ("DebugTypeTemplateTemplateParameter", 16, 5, Tail::None),
    ("DebugTypeTemplateParameterPack", 17, 4, Tail::Many),
    ("DebugGlobalVariable", 18, 9, Tail::Optional),
    ("DebugFunctionDeclaration", 19, 8, Tail::None),
    ("DebugFunction", 20, 9, Tail::Optional),
    ("DebugLexicalBlock", 21, 4, Tail::Optional),
    ("DebugLexicalBlockDiscriminator", 22, 3, Tail::None),
    ("DebugScope", 23, 1, Tail::Optional),
    ("DebugNoScope", 24, 0, Tail::None),
    ("DebugInlinedAt", 25, 2, Tail::Optional),
    ("DebugLocalVariable", 26, 7, Tail::Optional),
    ("DebugInlinedVariable", 27, 2, Tail::None),
    ("DebugDeclare", 28, 3, Tail::Many),
    ("DebugValue", 29, 3, Tail::Many),
    ("DebugOperation", 30, 1, Tail::Many),
    ("DebugExpression", 31, 0, Tail::Many),
    ("DebugMacroDef", 32, 3, Tail::Optional),
    ("DebugMacroUndef", 33, 3, Tail::None),
    ("DebugImportedEntity", 34, 7, Tail::None),
    ("DebugSource", 35, 1, Tail::Optional),
    ("DebugFunctionDefinition", 101, 2, Tail::None),
    ("DebugSourceContinued", 102, 1, Tail::None),
    ("DebugLine", 103, 5, Tail::None),
    ("DebugNoLine", 104, 0, Tail::None),
    ("DebugBuildIdentifier", 105, 2, Tail::None),
    ("DebugStoragePath", 106, 1, Tail::None),
    ("DebugEntryPoint", 107, 4, Tail::None),
    ("DebugTypeMatrix", 108, 3, Tail::None),
];

fn from_rspirv(inst: &ExtendedInstruction<'_>) -> ExtInst {
    ExtInst {
        opcode: inst.opcode,
        operands: inst
            .operands
            .iter()
            .map(|o| (o.kind, o.quantifier))
            .collect(),
    }
}

fn debug_info_100(entry: &(&str, u32, u8, Tail)) -> ExtInst {
    let &(_, opcode, fixed, tail) = entry;
    let mut operands = vec![(OperandKind::IdRef, OperandQuantifier::One); usize::from(fixed)];
    match tail {
        Tail::None => {}
        Tail::Optional => operands.push((OperandKind::IdRef, OperandQuantifier::ZeroOrOne)),
        Tail::Many => operands.push((OperandKind::IdRef, OperandQuantifier::ZeroOrMore)),
        // spirv-as reads the (value, name) pairs as plain ids: an odd count is accepted.
        Tail::Pairs => operands.push((OperandKind::IdRef, OperandQuantifier::ZeroOrMore)),
    }
    ExtInst { opcode, operands }
}

/// An instruction of a non-semantic set known only by number: any number of ids.
fn any_ids(opcode: u32) -> ExtInst {
    ExtInst {
        opcode,
        operands: vec![(OperandKind::IdRef, OperandQuantifier::ZeroOrMore)],
    }
}

impl ExtInstSet {
    /// The set imported under `name` by `OpExtInstImport`, if known.
    pub fn from_import_name(name: &str) -> Option<Self> {
        match name {
            "GLSL.std.450" => Some(Self::GlslStd450),
            "OpenCL.std" => Some(Self::OpenClStd),
            "NonSemantic.Shader.DebugInfo.100" => Some(Self::ShaderDebugInfo100),
            n if n.starts_with("NonSemantic.") => Some(Self::NonSemantic),
            _ => None,
        }
    }

    /// The instruction of this set written `word`: its name, or for `NonSemantic.*` sets
    /// also its number (as spirv-as allows).
    pub fn instruction(self, word: &str) -> Option<ExtInst> {
        let number = || {
            word.bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| word.parse::<u32>().ok())
                .flatten()
        };
        match self {
            Self::GlslStd450 => GlslStd450InstructionTable::iter()
                .find(|i| i.opname == word)
                .map(from_rspirv),
            Self::OpenClStd => OpenCLStd100InstructionTable::iter()
                .find(|i| i.opname == word)
                .map(from_rspirv),
            Self::ShaderDebugInfo100 => {
                let known = SHADER_DEBUG_INFO_100
                    .iter()
                    .find(|e| e.0 == word || Some(e.1) == number());
                known.map(debug_info_100).or_else(|| number().map(any_ids))
            }
            Self::NonSemantic => number().map(any_ids),
        }
    }
}

macro_rules! value_enums {
    ($kind:ident, $name:ident, $($k:ident),* $(,)?) => {
        match $kind {
            $( OperandKind::$k => Some($name.parse::<s::$k>().ok().map(|v| v as u32)), )*
            _ => None,
        }
    };
}

/// Enumerants of value (non-bitmask) kinds that the `spirv` crate does not know yet.
const EXTRA_ENUMERANTS: &[(OperandKind, &str, u32)] = &[
    (OperandKind::ExecutionMode, "MaximallyReconvergesKHR", 6023),
    (OperandKind::ExecutionMode, "QuadDerivativesKHR", 5088),
    (OperandKind::ExecutionMode, "RequireFullQuadsKHR", 5089),
    (OperandKind::Capability, "QuadControlKHR", 5087),
    (OperandKind::Capability, "ReplicatedCompositesEXT", 6024),
    (OperandKind::Capability, "ExpectAssumeKHR", 5629),
];

/// The value of an `FPEncoding` enumerant (`OpTypeFloat`'s optional operand, newer than the
/// grammar rspirv carries).
pub fn fp_encoding(name: &str) -> Option<u32> {
    match name {
        "BFloat16KHR" => Some(0),
        "Float8E4M3EXT" => Some(4214),
        "Float8E5M2EXT" => Some(4215),
        _ => None,
    }
}

/// Whether `kind` is a value enumeration (one name, one word).
pub fn is_value_enum(kind: OperandKind) -> bool {
    value_enumerant(kind, "").is_some()
}

/// Looks a value enumerant up: `None` when `kind` is not a value enumeration,
/// `Some(None)` when it is but has no enumerant `name`.
pub fn value_enumerant(kind: OperandKind, name: &str) -> Option<Option<u32>> {
    let found = value_enums!(
        kind,
        name,
        SourceLanguage,
        ExecutionModel,
        AddressingModel,
        MemoryModel,
        ExecutionMode,
        StorageClass,
        Dim,
        SamplerAddressingMode,
        SamplerFilterMode,
        ImageFormat,
        ImageChannelOrder,
        ImageChannelDataType,
        FPRoundingMode,
        FPDenormMode,
        QuantizationModes,
        FPOperationMode,
        OverflowModes,
        LinkageType,
        AccessQualifier,
        HostAccessQualifier,
        FunctionParameterAttribute,
        Decoration,
        BuiltIn,
        Scope,
        GroupOperation,
        KernelEnqueueFlags,
        Capability,
        RayQueryIntersection,
        RayQueryCommittedIntersectionType,
        RayQueryCandidateIntersectionType,
        PackedVectorFormat,
        CooperativeMatrixLayout,
        CooperativeMatrixUse,
        InitializationModeQualifier,
        LoadCacheControl,
        StoreCacheControl,
    )?;
    Some(found.or_else(|| {
        EXTRA_ENUMERANTS
            .iter()
            .find(|(k, n, _)| *k == kind && *n == name)
            .map(|&(_, _, v)| v)
    }))
}

/// spirv-dis's spelling of every bit of each bitmask kind (and of the zero value).
fn bitmask_table(kind: OperandKind) -> Option<&'static [(&'static str, u32)]> {
    use OperandKind as K;
    Some(match kind {
        K::ImageOperands => {
            const T: &[(&str, u32)] = &[
                ("None", 0),
                ("Bias", s::ImageOperands::BIAS.bits()),
                ("Lod", s::ImageOperands::LOD.bits()),
                ("Grad", s::ImageOperands::GRAD.bits()),
                ("ConstOffset", s::ImageOperands::CONST_OFFSET.bits()),
                ("Offset", s::ImageOperands::OFFSET.bits()),
                ("ConstOffsets", s::ImageOperands::CONST_OFFSETS.bits()),
                ("Sample", s::ImageOperands::SAMPLE.bits()),
                ("MinLod", s::ImageOperands::MIN_LOD.bits()),
                (
                    "MakeTexelAvailable",
                    s::ImageOperands::MAKE_TEXEL_AVAILABLE.bits(),
                ),
                (
                    "MakeTexelAvailableKHR",
                    s::ImageOperands::MAKE_TEXEL_AVAILABLE.bits(),
                ),
                (
                    "MakeTexelVisible",
                    s::ImageOperands::MAKE_TEXEL_VISIBLE.bits(),
                ),
                (
                    "MakeTexelVisibleKHR",
                    s::ImageOperands::MAKE_TEXEL_VISIBLE.bits(),
                ),
                (
                    "NonPrivateTexel",
                    s::ImageOperands::NON_PRIVATE_TEXEL.bits(),
                ),
                (
                    "NonPrivateTexelKHR",
                    s::ImageOperands::NON_PRIVATE_TEXEL.bits(),
                ),
                ("VolatileTexel", s::ImageOperands::VOLATILE_TEXEL.bits()),
                ("VolatileTexelKHR", s::ImageOperands::VOLATILE_TEXEL.bits()),
                ("SignExtend", s::ImageOperands::SIGN_EXTEND.bits()),
                ("ZeroExtend", s::ImageOperands::ZERO_EXTEND.bits()),
                ("Nontemporal", s::ImageOperands::NONTEMPORAL.bits()),
                ("Offsets", s::ImageOperands::OFFSETS.bits()),
            ];
            T
        }
        K::FPFastMathMode => {
            const T: &[(&str, u32)] = &[
                ("None", 0),
                ("NotNaN", s::FPFastMathMode::NOT_NAN.bits()),
                ("NotInf", s::FPFastMathMode::NOT_INF.bits()),
                ("NSZ", s::FPFastMathMode::NSZ.bits()),
                ("AllowRecip", s::FPFastMathMode::ALLOW_RECIP.bits()),
                ("Fast", s::FPFastMathMode::FAST.bits()),
                (
                    "AllowContract",
                    s::FPFastMathMode::ALLOW_CONTRACT_FAST_INTEL.bits(),
                ),
                (
                    "AllowContractFastINTEL",
                    s::FPFastMathMode::ALLOW_CONTRACT_FAST_INTEL.bits(),
                ),
                (
                    "AllowReassoc",
                    s::FPFastMathMode::ALLOW_REASSOC_INTEL.bits(),
                ),
                (
                    "AllowReassocINTEL",
                    s::FPFastMathMode::ALLOW_REASSOC_INTEL.bits(),
                ),
                ("AllowTransform", 0x40000),
            ];
            T
        }
        K::SelectionControl => {
            const T: &[(&str, u32)] = &[
                ("None", 0),
                ("Flatten", s::SelectionControl::FLATTEN.bits()),
                ("DontFlatten", s::SelectionControl::DONT_FLATTEN.bits()),
            ];
            T
        }
        K::LoopControl => {
            const T: &[(&str, u32)] = &[
                ("None", 0),
                ("Unroll", s::LoopControl::UNROLL.bits()),
                ("DontUnroll", s::LoopControl::DONT_UNROLL.bits()),
                (
                    "DependencyInfinite",
                    s::LoopControl::DEPENDENCY_INFINITE.bits(),
                ),
                ("DependencyLength", s::LoopControl::DEPENDENCY_LENGTH.bits()),
                ("MinIterations", s::LoopControl::MIN_ITERATIONS.bits()),
                ("MaxIterations", s::LoopControl::MAX_ITERATIONS.bits()),
                (
                    "IterationMultiple",
                    s::LoopControl::ITERATION_MULTIPLE.bits(),
                ),
                ("PeelCount", s::LoopControl::PEEL_COUNT.bits()),
                ("PartialCount", s::LoopControl::PARTIAL_COUNT.bits()),
                (
                    "InitiationIntervalINTEL",
                    s::LoopControl::INITIATION_INTERVAL_INTEL.bits(),
                ),
                (
                    "MaxConcurrencyINTEL",
                    s::LoopControl::MAX_CONCURRENCY_INTEL.bits(),
                ),
                (
                    "DependencyArrayINTEL",
                    s::LoopControl::DEPENDENCY_ARRAY_INTEL.bits(),
                ),
                (
                    "PipelineEnableINTEL",
                    s::LoopControl::PIPELINE_ENABLE_INTEL.bits(),
                ),
                (
                    "LoopCoalesceINTEL",
                    s::LoopControl::LOOP_COALESCE_INTEL.bits(),
                ),
                (
                    "MaxInterleavingINTEL",
                    s::LoopControl::MAX_INTERLEAVING_INTEL.bits(),
                ),
                (
                    "SpeculatedIterationsINTEL",
                    s::LoopControl::SPECULATED_ITERATIONS_INTEL.bits(),
                ),
                ("NoFusionINTEL", s::LoopControl::NO_FUSION_INTEL.bits()),
                ("LoopCountINTEL", s::LoopControl::LOOP_COUNT_INTEL.bits()),
                (
                    "MaxReinvocationDelayINTEL",
                    s::LoopControl::MAX_REINVOCATION_DELAY_INTEL.bits(),
                ),
            ];
            T
        }
        K::FunctionControl => {
            const T: &[(&str, u32)] = &[
                ("None", 0),
                ("Inline", s::FunctionControl::INLINE.bits()),
                ("DontInline", s::FunctionControl::DONT_INLINE.bits()),
                ("Pure", s::FunctionControl::PURE.bits()),
                ("Const", s::FunctionControl::CONST.bits()),
                ("OptNoneINTEL", s::FunctionControl::OPT_NONE_INTEL.bits()),
                ("OptNoneEXT", s::FunctionControl::OPT_NONE_INTEL.bits()),
            ];
            T
        }
        K::MemorySemantics => {
            const T: &[(&str, u32)] = &[
                ("None", 0),
                ("Relaxed", 0),
                ("Acquire", s::MemorySemantics::ACQUIRE.bits()),
                ("Release", s::MemorySemantics::RELEASE.bits()),
                ("AcquireRelease", s::MemorySemantics::ACQUIRE_RELEASE.bits()),
                (
                    "SequentiallyConsistent",
                    s::MemorySemantics::SEQUENTIALLY_CONSISTENT.bits(),
                ),
                ("UniformMemory", s::MemorySemantics::UNIFORM_MEMORY.bits()),
                ("SubgroupMemory", s::MemorySemantics::SUBGROUP_MEMORY.bits()),
                (
                    "WorkgroupMemory",
                    s::MemorySemantics::WORKGROUP_MEMORY.bits(),
                ),
                (
                    "CrossWorkgroupMemory",
                    s::MemorySemantics::CROSS_WORKGROUP_MEMORY.bits(),
                ),
                (
                    "AtomicCounterMemory",
                    s::MemorySemantics::ATOMIC_COUNTER_MEMORY.bits(),
                ),
                ("ImageMemory", s::MemorySemantics::IMAGE_MEMORY.bits()),
                ("OutputMemory", s::MemorySemantics::OUTPUT_MEMORY.bits()),
                ("OutputMemoryKHR", s::MemorySemantics::OUTPUT_MEMORY.bits()),
                ("MakeAvailable", s::MemorySemantics::MAKE_AVAILABLE.bits()),
                (
                    "MakeAvailableKHR",
                    s::MemorySemantics::MAKE_AVAILABLE.bits(),
                ),
                ("MakeVisible", s::MemorySemantics::MAKE_VISIBLE.bits()),
                ("MakeVisibleKHR", s::MemorySemantics::MAKE_VISIBLE.bits()),
                ("Volatile", s::MemorySemantics::VOLATILE.bits()),
            ];
            T
        }
        K::MemoryAccess => {
            const T: &[(&str, u32)] = &[
                ("None", 0),
                ("Volatile", s::MemoryAccess::VOLATILE.bits()),
                ("Aligned", s::MemoryAccess::ALIGNED.bits()),
                ("Nontemporal", s::MemoryAccess::NONTEMPORAL.bits()),
                (
                    "MakePointerAvailable",
                    s::MemoryAccess::MAKE_POINTER_AVAILABLE.bits(),
                ),
                (
                    "MakePointerAvailableKHR",
                    s::MemoryAccess::MAKE_POINTER_AVAILABLE.bits(),
                ),
                (
                    "MakePointerVisible",
                    s::MemoryAccess::MAKE_POINTER_VISIBLE.bits(),
                ),
                (
                    "MakePointerVisibleKHR",
                    s::MemoryAccess::MAKE_POINTER_VISIBLE.bits(),
                ),
                (
                    "NonPrivatePointer",
                    s::MemoryAccess::NON_PRIVATE_POINTER.bits(),
                ),
                (
                    "NonPrivatePointerKHR",
                    s::MemoryAccess::NON_PRIVATE_POINTER.bits(),
                ),
                (
                    "AliasScopeINTELMask",
                    s::MemoryAccess::ALIAS_SCOPE_INTEL_MASK.bits(),
                ),
                (
                    "NoAliasINTELMask",
                    s::MemoryAccess::NO_ALIAS_INTEL_MASK.bits(),
                ),
            ];
            T
        }
        K::KernelProfilingInfo => {
            const T: &[(&str, u32)] = &[
                ("None", 0),
                ("CmdExecTime", s::KernelProfilingInfo::CMD_EXEC_TIME.bits()),
            ];
            T
        }
        K::RayFlags => {
            const T: &[(&str, u32)] = &[
                ("NoneKHR", 0),
                ("OpaqueKHR", s::RayFlags::OPAQUE_KHR.bits()),
                ("NoOpaqueKHR", s::RayFlags::NO_OPAQUE_KHR.bits()),
                (
                    "TerminateOnFirstHitKHR",
                    s::RayFlags::TERMINATE_ON_FIRST_HIT_KHR.bits(),
                ),
                (
                    "SkipClosestHitShaderKHR",
                    s::RayFlags::SKIP_CLOSEST_HIT_SHADER_KHR.bits(),
                ),
                (
                    "CullBackFacingTrianglesKHR",
                    s::RayFlags::CULL_BACK_FACING_TRIANGLES_KHR.bits(),
                ),
                (
                    "CullFrontFacingTrianglesKHR",
                    s::RayFlags::CULL_FRONT_FACING_TRIANGLES_KHR.bits(),
                ),
                ("CullOpaqueKHR", s::RayFlags::CULL_OPAQUE_KHR.bits()),
                ("CullNoOpaqueKHR", s::RayFlags::CULL_NO_OPAQUE_KHR.bits()),
                ("SkipTrianglesKHR", s::RayFlags::SKIP_TRIANGLES_KHR.bits()),
                ("SkipAABBsKHR", s::RayFlags::SKIP_AAB_BS_KHR.bits()),
                (
                    "ForceOpacityMicromap2StateEXT",
                    s::RayFlags::FORCE_OPACITY_MICROMAP2_STATE_EXT.bits(),
                ),
            ];
            T
        }
        K::FragmentShadingRate => {
            const T: &[(&str, u32)] = &[
                (
                    "Vertical2Pixels",
                    s::FragmentShadingRate::VERTICAL2_PIXELS.bits(),
                ),
                (
                    "Vertical4Pixels",
                    s::FragmentShadingRate::VERTICAL4_PIXELS.bits(),
                ),
                (
                    "Horizontal2Pixels",
                    s::FragmentShadingRate::HORIZONTAL2_PIXELS.bits(),
                ),
                (
                    "Horizontal4Pixels",
                    s::FragmentShadingRate::HORIZONTAL4_PIXELS.bits(),
                ),
            ];
            T
        }
        K::CooperativeMatrixOperands => {
            const T: &[(&str, u32)] = &[
                ("NoneKHR", 0),
                (
                    "MatrixASignedComponentsKHR",
                    s::CooperativeMatrixOperands::MATRIX_A_SIGNED_COMPONENTS_KHR.bits(),
                ),
                (
                    "MatrixBSignedComponentsKHR",
                    s::CooperativeMatrixOperands::MATRIX_B_SIGNED_COMPONENTS_KHR.bits(),
                ),
                (
                    "MatrixCSignedComponentsKHR",
                    s::CooperativeMatrixOperands::MATRIX_C_SIGNED_COMPONENTS_KHR.bits(),
                ),
                (
                    "MatrixResultSignedComponentsKHR",
                    s::CooperativeMatrixOperands::MATRIX_RESULT_SIGNED_COMPONENTS_KHR.bits(),
                ),
                (
                    "SaturatingAccumulationKHR",
                    s::CooperativeMatrixOperands::SATURATING_ACCUMULATION_KHR.bits(),
                ),
            ];
            T
        }
        _ => return None,
    })
}

/// Whether `kind` is a bitmask (names joined with `|`).
pub fn is_bitmask(kind: OperandKind) -> bool {
    bitmask_table(kind).is_some()
}

/// The value of the bitmask bit (or zero name such as `None`) spelled `name`.
pub fn bitmask_bit(kind: OperandKind, name: &str) -> Option<u32> {
    bitmask_table(kind)?
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, v)| v)
}

use OperandKind::{IdRef, IdScope, LiteralInteger as Lit, LiteralString as Str};

/// The operands that follow enumerant `value` of `kind` (for a bitmask, `value` is one bit).
pub fn enumerant_parameters(kind: OperandKind, value: u32) -> &'static [OperandKind] {
    match kind {
        OperandKind::ExecutionMode => execution_mode_parameters(value),
        OperandKind::Decoration => decoration_parameters(value),
        OperandKind::LoopControl => {
            // DependencyLength..PartialCount and the INTEL bits other than NoFusionINTEL.
            if value & (0x1F8 | 0x7F_0000 | 0x300_0000) != 0 {
                &[Lit]
            } else {
                &[]
            }
        }
        OperandKind::MemoryAccess => match value {
            v if v == s::MemoryAccess::ALIGNED.bits() => &[Lit],
            v if v == s::MemoryAccess::MAKE_POINTER_AVAILABLE.bits()
                || v == s::MemoryAccess::MAKE_POINTER_VISIBLE.bits() =>
            {
                &[IdScope]
            }
            v if v == s::MemoryAccess::ALIAS_SCOPE_INTEL_MASK.bits()
                || v == s::MemoryAccess::NO_ALIAS_INTEL_MASK.bits() =>
            {
                &[IdRef]
            }
            _ => &[],
        },
        OperandKind::ImageOperands => match value {
            v if v == s::ImageOperands::GRAD.bits() => &[IdRef, IdRef],
            v if v == s::ImageOperands::MAKE_TEXEL_AVAILABLE.bits()
                || v == s::ImageOperands::MAKE_TEXEL_VISIBLE.bits() =>
            {
                &[IdScope]
            }
            v if v & 0x100FF != 0 => &[IdRef],
            _ => &[],
        },
        _ => &[],
    }
}

fn execution_mode_parameters(value: u32) -> &'static [OperandKind] {
    use s::ExecutionMode as M;
    const ONE: &[OperandKind] = &[Lit];
    const THREE: &[OperandKind] = &[Lit, Lit, Lit];
    const THREE_IDS: &[OperandKind] = &[IdRef, IdRef, IdRef];
    let Some(mode) = M::from_u32(value) else {
        return &[];
    };
    match mode {
        M::LocalSize | M::LocalSizeHint | M::MaxWorkgroupSizeINTEL => THREE,
        M::LocalSizeId
        | M::LocalSizeHintId
        | M::StaticNumWorkgroupsAMDX
        | M::MaxNumWorkgroupsAMDX => THREE_IDS,
        M::SubgroupsPerWorkgroupId | M::MaxNodeRecursionAMDX | M::ShaderIndexAMDX => &[IdRef],
        M::Invocations
        | M::OutputVertices
        | M::VecTypeHint
        | M::SubgroupSize
        | M::SubgroupsPerWorkgroup
        | M::DenormPreserve
        | M::DenormFlushToZero
        | M::SignedZeroInfNanPreserve
        | M::RoundingModeRTE
        | M::RoundingModeRTZ
        | M::OutputPrimitivesNV
        | M::SharedLocalMemorySizeINTEL
        | M::RoundingModeRTPINTEL
        | M::RoundingModeRTNINTEL
        | M::FloatingPointModeALTINTEL
        | M::FloatingPointModeIEEEINTEL
        | M::MaxWorkDimINTEL
        | M::NumSIMDWorkitemsINTEL
        | M::SchedulerTargetFmaxMhzINTEL
        | M::StreamingInterfaceINTEL
        | M::RegisterMapInterfaceINTEL
        | M::NamedBarrierCountINTEL => ONE,
        _ => &[],
    }
}

fn decoration_parameters(value: u32) -> &'static [OperandKind] {
    use s::Decoration as D;
    let Some(decoration) = D::from_u32(value) else {
        return &[];
    };
    match decoration {
        D::SpecId
        | D::ArrayStride
        | D::MatrixStride
        | D::Stream
        | D::Location
        | D::Component
        | D::Index
        | D::Binding
        | D::DescriptorSet
        | D::Offset
        | D::XfbBuffer
        | D::XfbStride
        | D::InputAttachmentIndex
        | D::Alignment
        | D::MaxByteOffset
        | D::SecondaryViewportRelativeNV
        | D::SIMTCallINTEL
        | D::FuncParamIOKindINTEL
        | D::GlobalVariableOffsetINTEL
        | D::NumbanksINTEL
        | D::BankwidthINTEL
        | D::MaxPrivateCopiesINTEL
        | D::MaxReplicatesINTEL
        | D::BankBitsINTEL
        | D::ForcePow2DepthINTEL
        | D::CacheSizeINTEL
        | D::PrefetchINTEL
        | D::InitiationIntervalINTEL
        | D::MaxConcurrencyINTEL
        | D::PipelineEnableINTEL
        | D::BufferLocationINTEL
        | D::IOPipeStorageINTEL
        | D::ImplementInRegisterMapINTEL
        | D::FPMaxErrorDecorationINTEL
        | D::LatencyControlLabelINTEL
        | D::MMHostInterfaceAddressWidthINTEL
        | D::MMHostInterfaceDataWidthINTEL
        | D::MMHostInterfaceLatencyINTEL
        | D::MMHostInterfaceMaxBurstINTEL
        | D::MMHostInterfaceWaitRequestINTEL => &[Lit],
        D::BuiltIn => &[OperandKind::BuiltIn],
        D::UniformId => &[IdScope],
        D::FuncParamAttr => &[OperandKind::FunctionParameterAttribute],
        D::FPRoundingMode => &[OperandKind::FPRoundingMode],
        D::FPFastMathMode => &[OperandKind::FPFastMathMode],
        D::LinkageAttributes => &[Str, OperandKind::LinkageType],
        D::AlignmentId
        | D::MaxByteOffsetId
        | D::CounterBuffer
        | D::NodeSharesPayloadLimitsWithAMDX
        | D::NodeMaxPayloadsAMDX
        | D::AliasScopeINTEL
        | D::NoAliasINTEL => &[IdRef],
        D::UserSemantic
        | D::UserTypeGOOGLE
        | D::PayloadNodeNameAMDX
        | D::ClobberINTEL
        | D::MemoryINTEL => &[Str],
        D::MergeINTEL => &[Str, Str],
        D::MathOpDSPModeINTEL => &[Lit, Lit],
        D::LatencyControlConstraintINTEL => &[Lit, Lit, Lit],
        D::FunctionRoundingModeINTEL => &[Lit, OperandKind::FPRoundingMode],
        D::FunctionDenormModeINTEL => &[Lit, OperandKind::FPDenormMode],
        D::FunctionFloatingPointModeINTEL => &[Lit, OperandKind::FPOperationMode],
        D::InitModeINTEL => &[OperandKind::InitializationModeQualifier],
        D::HostAccessINTEL => &[OperandKind::HostAccessQualifier, Str],
        D::MMHostInterfaceReadWriteModeINTEL => &[OperandKind::AccessQualifier],
        D::CacheControlLoadINTEL => &[Lit, OperandKind::LoadCacheControl],
        D::CacheControlStoreINTEL => &[Lit, OperandKind::StoreCacheControl],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcodes_enumerants_and_bits_are_found() {
        assert_eq!(instruction("OpLoopMerge").unwrap().opcode as u32, 246);
        assert!(instruction("LoopMerge").is_none());
        assert_eq!(
            value_enumerant(OperandKind::Capability, "Shader"),
            Some(Some(1))
        );
        assert_eq!(
            value_enumerant(OperandKind::ExecutionMode, "MaximallyReconvergesKHR"),
            Some(Some(6023))
        );
        assert_eq!(value_enumerant(OperandKind::Capability, "Nope"), Some(None));
        assert_eq!(value_enumerant(OperandKind::LoopControl, "Unroll"), None);
        assert_eq!(bitmask_bit(OperandKind::LoopControl, "DontUnroll"), Some(2));
        assert_eq!(
            enumerant_parameters(OperandKind::ExecutionMode, 17).len(),
            3
        );
        assert_eq!(enumerant_parameters(OperandKind::Decoration, 1), &[Lit]);
        assert_eq!(enumerant_parameters(OperandKind::LoopControl, 8), &[Lit]);
        assert_eq!(
            enumerant_parameters(OperandKind::LoopControl, 0x80_0000),
            &[]
        );
        assert_eq!(enumerant_parameters(OperandKind::LoopControl, 2), &[]);
        assert_eq!(
            enumerant_parameters(OperandKind::ImageOperands, 4),
            &[IdRef, IdRef]
        );
        assert_eq!(enumerant_parameters(OperandKind::ImageOperands, 0x400), &[]);
        assert!(ExtInstSet::GlslStd450.instruction("FAbs").is_some());
    }
}
