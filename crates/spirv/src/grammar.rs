//! Lookup helpers over the SPIR-V grammar for the assembler.
//!
//! Most of it comes from rspirv 0.13 and `spirv` 0.4 (SPIR-V headers of SDK 1.4.341):
//! opcodes and their operand kinds (`INSTRUCTION_TABLE`), the extended instruction sets, the
//! parameters that follow an enumerant (`LocalSize 1 1 1`, `SpecId 3`, `Aligned 4`:
//! `Operand::additional_operands`), value-enumerant names with their aliases (the `spirv`
//! crate's `FromStr`) and the names of bitmask bits (rspirv's disassembler).
//!
//! What is written here is where spirv-as (SPIRV-Tools 2025.5) reads differently from those
//! crates: the aliases of opcodes (rspirv's table holds only the preferred names), older
//! spellings of bitmask bits and the zero value of each mask, `Dim`'s spelling (`2D`, not
//! `Dim2D`), which opcodes declare types, and the opcodes and enumerants newer than spirv-as,
//! which it refuses.

// FxHash: the assembler looks up every instruction name here; SipHash was ~1% of `tangle run`.
use rustc_hash::FxHashMap as HashMap;
use std::sync::OnceLock;

use rspirv::binary::Disassemble;
use rspirv::dr::Operand;
use rspirv::grammar::{ExtInstOp, InstructionTable};
pub use rspirv::grammar::{
    ExtendedInstruction, Instruction, LogicalOperand, OperandKind, OperandQuantifier,
};
use spirv as s;
use spirv::Op;

macro_rules! opcode_aliases {
    ($($alias:ident),* $(,)?) => {
        &[$((stringify!($alias), Op::$alias)),*]
    };
}

/// Other names of opcodes that spirv-as accepts: the `spirv` crate's aliases of `Op`.
/// rspirv's instruction table lists each opcode once, under its preferred name.
const OPCODE_ALIASES: &[(&str, Op)] = opcode_aliases!(
    SDotKHR,
    UDotKHR,
    SUDotKHR,
    SDotAccSatKHR,
    UDotAccSatKHR,
    SUDotAccSatKHR,
    TypeCooperativeVectorNV,
    GroupNonUniformPartitionNV,
    ReportIntersectionNV,
    TypeAccelerationStructureNV,
    RayQueryGetClusterIdNV,
    DemoteToHelperInvocationEXT,
    DecorateStringGOOGLE,
    MemberDecorateStringGOOGLE,
    ArbitraryFloatSinCosPiINTEL,
    ArbitraryFloatCastINTEL,
    ArbitraryFloatCastFromIntINTEL,
    ArbitraryFloatCastToIntINTEL,
    ArbitraryFloatAddINTEL,
    ArbitraryFloatSubINTEL,
    ArbitraryFloatMulINTEL,
    ArbitraryFloatDivINTEL,
    ArbitraryFloatGTINTEL,
    ArbitraryFloatGEINTEL,
    ArbitraryFloatLTINTEL,
    ArbitraryFloatLEINTEL,
    ArbitraryFloatEQINTEL,
    ArbitraryFloatRecipINTEL,
    ArbitraryFloatRSqrtINTEL,
    ArbitraryFloatCbrtINTEL,
    ArbitraryFloatHypotINTEL,
    ArbitraryFloatSqrtINTEL,
    FixedSqrtINTEL,
    FixedRecipINTEL,
    FixedRsqrtINTEL,
    FixedSinINTEL,
    FixedCosINTEL,
    FixedSinCosINTEL,
    FixedSinPiINTEL,
    FixedCosPiINTEL,
    FixedSinCosPiINTEL,
    FixedLogINTEL,
    FixedExpINTEL,
    PtrCastToCrossWorkgroupINTEL,
    CrossWorkgroupCastToPtrINTEL,
    ReadPipeBlockingINTEL,
    WritePipeBlockingINTEL,
    FPGARegINTEL,
    TaskSequenceCreateINTEL,
    TaskSequenceAsyncINTEL,
    TaskSequenceGetINTEL,
    TaskSequenceReleaseINTEL,
    TypeTaskSequenceINTEL,
);

/// Opcode names in rspirv's grammar that spirv-as 2025.5 does not know (it refuses them).
/// `TypeVectorIdEXT` and `GroupNonUniformPartitionEXT` are still known there by their older
/// names, `OpTypeCooperativeVectorNV` and `OpGroupNonUniformPartitionNV`.
const NEWER_OPCODES: &[&str] = &[
    "TypeBufferEXT",
    "BufferPointerEXT",
    "UntypedImageTexelPointerEXT",
    "MemberDecorateIdEXT",
    "ConstantSizeOfEXT",
    "TypeVectorIdEXT",
    "GroupNonUniformPartitionEXT",
];

/// Value enumerants the `spirv` crate knows and spirv-as 2025.5 does not (it refuses them).
const NEWER_ENUMERANTS: &[(OperandKind, &str)] = &[
    (OperandKind::Decoration, "ArrayStrideIdEXT"),
    (OperandKind::Decoration, "OffsetIdEXT"),
    (OperandKind::Decoration, "MemberOffsetNV"),
    (OperandKind::Decoration, "BankNV"),
    (OperandKind::BuiltIn, "SamplerHeapEXT"),
    (OperandKind::BuiltIn, "ResourceHeapEXT"),
    (OperandKind::GroupOperation, "PartitionedReduceEXT"),
    (OperandKind::GroupOperation, "PartitionedInclusiveScanEXT"),
    (OperandKind::GroupOperation, "PartitionedExclusiveScanEXT"),
    (OperandKind::Capability, "DescriptorHeapEXT"),
    (OperandKind::Capability, "GroupNonUniformPartitionedEXT"),
    (OperandKind::Capability, "PushConstantBanksNV"),
    (OperandKind::Capability, "LongVectorEXT"),
];

/// The grammar entry of the core instruction named `name` (with its `Op` prefix).
pub fn instruction(name: &str) -> Option<&'static Instruction<'static>> {
    static BY_NAME: OnceLock<HashMap<String, &'static Instruction<'static>>> = OnceLock::new();
    BY_NAME
        .get_or_init(|| {
            let table = &rspirv::grammar::INSTRUCTION_TABLE;
            let mut by_name: HashMap<_, _> = table
                .iter()
                .filter(|inst| !NEWER_OPCODES.contains(&inst.opname))
                .map(|inst| (format!("Op{}", inst.opname), inst))
                .collect();
            for &(alias, op) in OPCODE_ALIASES {
                by_name.insert(format!("Op{alias}"), table.get(op));
            }
            by_name
        })
        .get(name)
        .copied()
}

/// The grammar entry of the core instruction with opcode number `opcode`, found by index
/// (the binary reader looks up every instruction here; rspirv's `lookup_opcode` searches
/// its table from the start). The first entry with that number, as rspirv's lookup finds.
pub fn core_instruction(opcode: u32) -> Option<&'static Instruction<'static>> {
    static BY_OPCODE: OnceLock<Vec<Option<&'static Instruction<'static>>>> = OnceLock::new();
    BY_OPCODE
        .get_or_init(|| {
            let table = &rspirv::grammar::INSTRUCTION_TABLE;
            let len = table
                .iter()
                .map(|i| i.opcode as usize + 1)
                .max()
                .unwrap_or(0);
            let mut by_opcode = vec![None; len];
            for inst in table.iter() {
                by_opcode[inst.opcode as usize].get_or_insert(inst);
            }
            by_opcode
        })
        .get(opcode as usize)
        .copied()
        .flatten()
}

/// Whether `op` declares a type, as spirv-as counts them: its result id may not be defined
/// again. The `spirv` crate's list, but for `OpTypeBufferSurfaceINTEL` (not counted by
/// spirv-as) and `OpTypeTaskSequenceINTEL` (counted, missing from the crate's list).
pub fn declares_type(op: Op) -> bool {
    (op.is_type() && op != Op::TypeBufferSurfaceINTEL) || op == Op::TypeTaskSequenceALTERA
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

impl ExtInst {
    fn from_grammar(inst: &ExtendedInstruction<'_>, ids_only: bool) -> Self {
        Self {
            opcode: inst.opcode.into(),
            operands: inst
                .operands
                .iter()
                .map(|o| {
                    // Every operand of a non-semantic set is an id. spirv-as also reads
                    // DebugTypeEnum's (value, name) pairs as plain ids: an odd count is
                    // accepted.
                    let kind = if ids_only { OperandKind::IdRef } else { o.kind };
                    (kind, o.quantifier)
                })
                .collect(),
        }
    }

    /// An instruction of a non-semantic set known only by number: any number of ids.
    fn any_ids(opcode: u32) -> Self {
        Self {
            opcode,
            operands: vec![(OperandKind::IdRef, OperandQuantifier::ZeroOrMore)],
        }
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

    fn table(self) -> Option<&'static InstructionTable<ExtInstOp>> {
        use rspirv::grammar as g;
        match self {
            Self::GlslStd450 => Some(&g::GLSL_STD_450_INSTRUCTION_TABLE),
            Self::OpenClStd => Some(&g::OPENCL_STD_100_INSTRUCTION_TABLE),
            Self::ShaderDebugInfo100 => {
                Some(&g::NONSEMANTIC_SHADER_DEBUGINFO_100_INSTRUCTION_TABLE)
            }
            Self::NonSemantic => None,
        }
    }

    /// The name of instruction `opcode` of this set, where the grammar knows it (numbers of
    /// `NonSemantic.*` sets other than the shader debug info are printed as numbers).
    pub fn name_of(self, opcode: u32) -> Option<&'static str> {
        if self == Self::NonSemantic {
            return None;
        }
        self.table()?.lookup_opcode(opcode).map(|i| i.opname)
    }

    /// The instruction of this set written `word`: its name, or for `NonSemantic.*` sets
    /// also its number (as spirv-as allows).
    pub fn instruction(self, word: &str) -> Option<ExtInst> {
        let ids_only = matches!(self, Self::ShaderDebugInfo100 | Self::NonSemantic);
        let by_name = self
            .table()
            .and_then(|t| t.iter().find(|i| i.opname == word))
            .map(|i| ExtInst::from_grammar(i, ids_only));
        if by_name.is_some() || !ids_only {
            return by_name;
        }
        let number = word
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| word.parse::<u32>().ok())
            .flatten()?;
        Some(
            self.table()
                .and_then(|t| t.lookup_opcode(number))
                .map_or_else(
                    || ExtInst::any_ids(number),
                    |i| ExtInst::from_grammar(i, true),
                ),
        )
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

/// Whether `kind` is a value enumeration (one name, one word).
pub fn is_value_enum(kind: OperandKind) -> bool {
    value_enumerant(kind, "").is_some()
}

/// Looks a value enumerant up: `None` when `kind` is not a value enumeration,
/// `Some(None)` when it is but has no enumerant `name`.
pub fn value_enumerant(kind: OperandKind, name: &str) -> Option<Option<u32>> {
    // The `spirv` crate prefixes `Dim`'s names (`Dim2D`); spirv-as reads the grammar's `2D`.
    let name = match kind {
        OperandKind::Dim => match name {
            "1D" | "2D" | "3D" | "Cube" | "Rect" | "Buffer" | "SubpassData"
            | "TileImageDataEXT" => format!("Dim{name}"),
            _ => String::new(),
        },
        _ => name.to_owned(),
    };
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
        TensorClampMode,
        InitializationModeQualifier,
        LoadCacheControl,
        StoreCacheControl,
        NamedMaximumNumberOfRegisters,
        FPEncoding,
        CooperativeVectorMatrixLayout,
        ComponentType,
    )?;
    Some(found.filter(|_| !NEWER_ENUMERANTS.contains(&(kind, name.as_str()))))
}

/// Spellings of mask values that spirv-as accepts and rspirv's disassembler does not print:
/// the zero value of each mask (spirv-as takes no zero name for `FragmentShadingRate` and
/// `CooperativeMatrixReduce`) and older names of bits.
const EXTRA_MASK_NAMES: &[(OperandKind, &str, u32)] = {
    use OperandKind as K;
    &[
        (K::ImageOperands, "None", 0),
        (K::ImageOperands, "MakeTexelAvailableKHR", 0x100),
        (K::ImageOperands, "MakeTexelVisibleKHR", 0x200),
        (K::ImageOperands, "NonPrivateTexelKHR", 0x400),
        (K::ImageOperands, "VolatileTexelKHR", 0x800),
        (K::FPFastMathMode, "None", 0),
        (K::FPFastMathMode, "AllowContractFastINTEL", 0x1_0000),
        (K::FPFastMathMode, "AllowReassocINTEL", 0x2_0000),
        (K::SelectionControl, "None", 0),
        (K::LoopControl, "None", 0),
        (K::LoopControl, "InitiationIntervalINTEL", 0x1_0000),
        (K::LoopControl, "MaxConcurrencyINTEL", 0x2_0000),
        (K::LoopControl, "DependencyArrayINTEL", 0x4_0000),
        (K::LoopControl, "PipelineEnableINTEL", 0x8_0000),
        (K::LoopControl, "LoopCoalesceINTEL", 0x10_0000),
        (K::LoopControl, "MaxInterleavingINTEL", 0x20_0000),
        (K::LoopControl, "SpeculatedIterationsINTEL", 0x40_0000),
        (K::LoopControl, "NoFusionINTEL", 0x80_0000),
        (K::LoopControl, "LoopCountINTEL", 0x100_0000),
        (K::LoopControl, "MaxReinvocationDelayINTEL", 0x200_0000),
        (K::FunctionControl, "None", 0),
        (K::FunctionControl, "OptNoneINTEL", 0x1_0000),
        (K::MemorySemantics, "None", 0),
        (K::MemorySemantics, "Relaxed", 0),
        (K::MemorySemantics, "OutputMemoryKHR", 0x1000),
        (K::MemorySemantics, "MakeAvailableKHR", 0x2000),
        (K::MemorySemantics, "MakeVisibleKHR", 0x4000),
        (K::MemoryAccess, "None", 0),
        (K::MemoryAccess, "MakePointerAvailableKHR", 0x8),
        (K::MemoryAccess, "MakePointerVisibleKHR", 0x10),
        (K::MemoryAccess, "NonPrivatePointerKHR", 0x20),
        (K::KernelProfilingInfo, "None", 0),
        (K::RayFlags, "NoneKHR", 0),
        (K::RawAccessChainOperands, "None", 0),
        (K::CooperativeMatrixOperands, "NoneKHR", 0),
        (K::TensorAddressingOperands, "None", 0),
        (K::MatrixMultiplyAccumulateOperands, "None", 0),
        (K::TensorOperands, "NoneARM", 0),
    ]
};

/// The names of each single bit of a bitmask kind, as rspirv's disassembler prints them.
fn disassembled_bits(kind: OperandKind) -> Option<Vec<(String, u32)>> {
    fn bits<T: Disassemble>(from_bits: impl Fn(u32) -> T) -> Vec<(String, u32)> {
        (0..32)
            .map(|b| 1u32 << b)
            .map(|bit| (from_bits(bit).disassemble(), bit))
            .filter(|(name, _)| !name.is_empty())
            .collect()
    }
    use OperandKind as K;
    Some(match kind {
        K::ImageOperands => bits(s::ImageOperands::from_bits_retain),
        K::FPFastMathMode => bits(s::FPFastMathMode::from_bits_retain),
        K::SelectionControl => bits(s::SelectionControl::from_bits_retain),
        K::LoopControl => bits(s::LoopControl::from_bits_retain),
        K::FunctionControl => bits(s::FunctionControl::from_bits_retain),
        K::MemorySemantics => bits(s::MemorySemantics::from_bits_retain),
        K::MemoryAccess => bits(s::MemoryAccess::from_bits_retain),
        K::KernelProfilingInfo => bits(s::KernelProfilingInfo::from_bits_retain),
        K::RayFlags => bits(s::RayFlags::from_bits_retain),
        K::FragmentShadingRate => bits(s::FragmentShadingRate::from_bits_retain),
        K::RawAccessChainOperands => bits(s::RawAccessChainOperands::from_bits_retain),
        K::CooperativeMatrixOperands => bits(s::CooperativeMatrixOperands::from_bits_retain),
        K::CooperativeMatrixReduce => bits(s::CooperativeMatrixReduce::from_bits_retain),
        K::TensorAddressingOperands => bits(s::TensorAddressingOperands::from_bits_retain),
        K::MatrixMultiplyAccumulateOperands => {
            bits(s::MatrixMultiplyAccumulateOperands::from_bits_retain)
        }
        K::TensorOperands => bits(s::TensorOperands::from_bits_retain),
        _ => return None,
    })
}

/// Every spelling spirv-as accepts for the bits (and zero value) of each bitmask kind.
fn bitmask_names() -> &'static HashMap<OperandKind, Vec<(String, u32)>> {
    static NAMES: OnceLock<HashMap<OperandKind, Vec<(String, u32)>>> = OnceLock::new();
    NAMES.get_or_init(|| {
        use OperandKind as K;
        let mut names: HashMap<OperandKind, Vec<(String, u32)>> = [
            K::ImageOperands,
            K::FPFastMathMode,
            K::SelectionControl,
            K::LoopControl,
            K::FunctionControl,
            K::MemorySemantics,
            K::MemoryAccess,
            K::KernelProfilingInfo,
            K::RayFlags,
            K::FragmentShadingRate,
            K::RawAccessChainOperands,
            K::CooperativeMatrixOperands,
            K::CooperativeMatrixReduce,
            K::TensorAddressingOperands,
            K::MatrixMultiplyAccumulateOperands,
            K::TensorOperands,
        ]
        .into_iter()
        .filter_map(|k| Some((k, disassembled_bits(k)?)))
        .collect();
        for &(kind, name, value) in EXTRA_MASK_NAMES {
            names
                .get_mut(&kind)
                .expect("extra names are of bitmask kinds")
                .push((name.to_owned(), value));
        }
        names
    })
}

/// Whether `kind` is a bitmask (names joined with `|`).
pub fn is_bitmask(kind: OperandKind) -> bool {
    bitmask_names().contains_key(&kind)
}

/// The value of the bitmask bit (or zero name such as `None`) spelled `name`.
pub fn bitmask_bit(kind: OperandKind, name: &str) -> Option<u32> {
    bitmask_names()
        .get(&kind)?
        .iter()
        .find(|(n, _)| n == name)
        .map(|&(_, v)| v)
}

/// The operands that follow enumerant `value` of `kind` (for a bitmask, `value` is one bit),
/// from the grammar.
pub fn enumerant_parameters(
    kind: OperandKind,
    value: u32,
) -> Vec<(OperandKind, OperandQuantifier)> {
    use OperandKind as K;
    let operand = match kind {
        K::ExecutionMode => s::ExecutionMode::from_u32(value).map(Operand::ExecutionMode),
        K::Decoration => s::Decoration::from_u32(value).map(Operand::Decoration),
        K::ImageOperands => Some(Operand::ImageOperands(s::ImageOperands::from_bits_retain(
            value,
        ))),
        K::LoopControl => Some(Operand::LoopControl(s::LoopControl::from_bits_retain(
            value,
        ))),
        K::MemoryAccess => Some(Operand::MemoryAccess(s::MemoryAccess::from_bits_retain(
            value,
        ))),
        K::TensorAddressingOperands => Some(Operand::TensorAddressingOperands(
            s::TensorAddressingOperands::from_bits_retain(value),
        )),
        K::TensorOperands => Some(Operand::TensorOperands(
            s::TensorOperands::from_bits_retain(value),
        )),
        _ => None,
    };
    operand.map_or_else(Vec::new, |o| {
        o.additional_operands()
            .into_iter()
            .map(|p| (p.kind, p.quantifier))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use OperandKind::{IdRef, LiteralInteger as Lit};
    use OperandQuantifier::{One, ZeroOrMore};

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
            enumerant_parameters(OperandKind::ExecutionMode, 17),
            [(Lit, One); 3]
        );
        assert_eq!(
            enumerant_parameters(OperandKind::Decoration, 1),
            [(Lit, One)]
        );
        assert_eq!(
            enumerant_parameters(OperandKind::LoopControl, 8),
            [(Lit, One)]
        );
        assert_eq!(
            enumerant_parameters(OperandKind::LoopControl, 0x80_0000),
            []
        );
        assert_eq!(enumerant_parameters(OperandKind::LoopControl, 2), []);
        assert_eq!(
            enumerant_parameters(OperandKind::ImageOperands, 4),
            [(IdRef, One), (IdRef, One)]
        );
        assert_eq!(enumerant_parameters(OperandKind::ImageOperands, 0x400), []);
        // BankBitsINTEL takes any number of literals.
        assert_eq!(
            enumerant_parameters(OperandKind::Decoration, 5835),
            [(Lit, ZeroOrMore)]
        );
        assert!(ExtInstSet::GlslStd450.instruction("FAbs").is_some());
    }

    #[test]
    fn aliases_and_spirv_as_spellings() {
        for &(alias, op) in OPCODE_ALIASES {
            assert_eq!(instruction(&format!("Op{alias}")).unwrap().opcode, op);
        }
        assert_eq!(
            instruction("OpDecorateStringGOOGLE").unwrap().opcode,
            Op::DecorateString
        );
        assert!(instruction("OpTypeVectorIdEXT").is_none());
        assert!(instruction("OpTypeCooperativeVectorNV").is_some());
        assert_eq!(value_enumerant(OperandKind::Dim, "2D"), Some(Some(1)));
        assert_eq!(value_enumerant(OperandKind::Dim, "Dim2D"), Some(None));
        assert_eq!(
            value_enumerant(OperandKind::Capability, "LongVectorEXT"),
            Some(None)
        );
        assert_eq!(
            value_enumerant(OperandKind::FPEncoding, "BFloat16KHR"),
            Some(Some(0))
        );
        assert_eq!(
            bitmask_bit(OperandKind::LoopControl, "InitiationIntervalINTEL"),
            bitmask_bit(OperandKind::LoopControl, "InitiationIntervalALTERA")
        );
        assert_eq!(
            bitmask_bit(OperandKind::CooperativeMatrixReduce, "2x2"),
            Some(4)
        );
        assert_eq!(bitmask_bit(OperandKind::RayFlags, "None"), None);
        assert_eq!(bitmask_bit(OperandKind::RayFlags, "NoneKHR"), Some(0));
        assert!(declares_type(Op::TypeTaskSequenceINTEL));
        assert!(!declares_type(Op::TypeBufferSurfaceINTEL));
        assert!(!declares_type(Op::Constant));
    }

    #[test]
    fn debug_info_instructions_by_name_and_number() {
        let set = ExtInstSet::ShaderDebugInfo100;
        let by_name = set.instruction("DebugTypeEnum").unwrap();
        assert_eq!(by_name.opcode, 9);
        assert_eq!(by_name.operands.len(), 9);
        assert!(by_name.operands.iter().all(|(k, _)| *k == IdRef));
        assert_eq!(by_name.operands[8].1, ZeroOrMore);
        assert_eq!(set.instruction("9"), Some(by_name));
        assert_eq!(set.instruction("108").unwrap().operands.len(), 3);
        assert_eq!(set.instruction("77"), Some(ExtInst::any_ids(77)));
        assert_eq!(
            ExtInstSet::NonSemantic.instruction("1"),
            Some(ExtInst::any_ids(1))
        );
        assert!(ExtInstSet::NonSemantic.instruction("DebugPrintf").is_none());
        assert!(ExtInstSet::GlslStd450.instruction("1").is_none());
    }
}
