//! A direct decoder of SPIR-V instructions into rspirv's `dr::Instruction`s, for the
//! common case: each opcode found by index in the grammar (rspirv's parser searches its
//! table from the start, twice per instruction) and each instruction's operands put in one
//! vector sized from its word count (rspirv's parser allocates a vector per operand).
//!
//! It decodes only what it knows to decode exactly as rspirv's binary parser does: the
//! operand kinds of shaders (ids, literals, strings, the value and bit-mask enumerations
//! listed in [`operand`]) and the enumerants with parameters that shaders use (memory
//! access, loop control, execution modes and decorations in [`parameters`]). Anything else
//! (another operand kind, an unknown enumerant, a malformed instruction, a literal of an
//! unsupported width, `OpSpecConstantOp`) makes it give up with `None`, and the caller runs
//! rspirv's parser on the whole module, so rspirv still decides every error and every
//! instruction this decoder declines. `tests/binary_decoder.rs` holds the two equal on every
//! module of the repository and the conformance corpus and on mutated and random binaries.

use rspirv::dr::{Instruction, Operand as Dr};
use rspirv::grammar::{OperandKind as K, OperandQuantifier as Q};
use spirv::{Decoration, ExecutionMode, LoopControl, MemoryAccess, Op};

use crate::grammar;

/// How many words a literal of a tracked numeric type takes (rspirv's type tracker).
#[derive(Clone, Copy, PartialEq, Eq)]
enum LiteralWords {
    /// Not a tracked type: one word, as rspirv reads it.
    Untracked,
    One,
    Two,
    /// A width rspirv refuses (`TypeUnsupported`).
    Unsupported,
}

/// The largest id the decoder tracks types for; modules with larger ids go to rspirv.
const MAX_TRACKED_ID: u32 = 1 << 22;

/// Decodes the instructions starting at `starts` (their word counts already checked to be
/// non-zero and within `words`); `None` where rspirv's parser must decide.
pub(crate) fn decode(words: &[u32], starts: &[usize]) -> Option<Vec<Instruction>> {
    let mut literal_words: Vec<LiteralWords> = Vec::new();
    let mut out = Vec::with_capacity(starts.len());
    for &start in starts {
        let count = (words[start] >> 16) as usize;
        let inst = instruction(&words[start..start + count], &literal_words)?;
        track(&inst, &mut literal_words)?;
        out.push(inst);
    }
    Some(out)
}

/// rspirv's type tracker: the literal width of integer and float types, and of every value
/// of such a type.
fn track(inst: &Instruction, table: &mut Vec<LiteralWords>) -> Option<()> {
    let Some(id) = inst.result_id else {
        return Some(());
    };
    let op = inst.class.opcode;
    let width = if op.is_type() {
        match (op, inst.operands.as_slice()) {
            (Op::TypeInt, [Dr::LiteralBit32(bits), Dr::LiteralBit32(_), ..]) => match bits {
                8 | 16 | 32 => LiteralWords::One,
                64 => LiteralWords::Two,
                _ => LiteralWords::Unsupported,
            },
            (Op::TypeFloat, [Dr::LiteralBit32(bits), ..]) => match bits {
                16 | 32 => LiteralWords::One,
                64 => LiteralWords::Two,
                _ => LiteralWords::Unsupported,
            },
            _ => return Some(()),
        }
    } else {
        match inst.result_type.map(|t| lookup(table, t)) {
            None | Some(LiteralWords::Untracked) => return Some(()),
            Some(w) => w,
        }
    };
    if id > MAX_TRACKED_ID {
        return None;
    }
    let at = id as usize;
    if at >= table.len() {
        table.resize(at + 1, LiteralWords::Untracked);
    }
    table[at] = width;
    Some(())
}

fn lookup(table: &[LiteralWords], id: u32) -> LiteralWords {
    table
        .get(id as usize)
        .copied()
        .unwrap_or(LiteralWords::Untracked)
}

/// The words of one instruction being read.
struct Words<'a> {
    rest: &'a [u32],
}

impl Words<'_> {
    fn next(&mut self) -> Option<u32> {
        let (first, rest) = self.rest.split_first()?;
        self.rest = rest;
        Some(*first)
    }
}

/// One instruction (its words, the first holding count and opcode), as rspirv's
/// `Parser::parse_operands` reads it.
fn instruction(inst: &[u32], table: &[LiteralWords]) -> Option<Instruction> {
    let class = grammar::core_instruction(inst[0] & 0xffff)?;
    if class.opcode == Op::SpecConstantOp {
        return None;
    }
    let mut words = Words { rest: &inst[1..] };
    let mut result_type = None;
    let mut result_id = None;
    let mut operands = Vec::with_capacity(inst.len());
    let mut index = 0;
    while let Some(logical) = class.operands.get(index) {
        if words.rest.is_empty() {
            match logical.quantifier {
                Q::One => return None,
                Q::ZeroOrOne | Q::ZeroOrMore => break,
            }
        }
        match logical.kind {
            K::IdResultType => result_type = Some(words.next()?),
            K::IdResult => result_id = Some(words.next()?),
            K::LiteralContextDependentNumber => {
                let ty = result_type?;
                operands.push(literal(&mut words, lookup(table, ty))?);
            }
            K::PairLiteralIntegerIdRef => {
                let Some(Dr::IdRef(selector)) = operands.first() else {
                    return None;
                };
                let width = lookup(table, *selector);
                operands.push(literal(&mut words, width)?);
                operands.push(Dr::IdRef(words.next()?));
            }
            kind => operand(kind, &mut words, &mut operands)?,
        }
        if logical.quantifier != Q::ZeroOrMore {
            index += 1;
        }
    }
    if !words.rest.is_empty() {
        return None;
    }
    Some(Instruction {
        class,
        result_type,
        result_id,
        operands,
    })
}

/// A literal number of the tracked width (rspirv's `parse_literal`).
fn literal(words: &mut Words<'_>, width: LiteralWords) -> Option<Dr> {
    match width {
        LiteralWords::Untracked | LiteralWords::One => Some(Dr::LiteralBit32(words.next()?)),
        LiteralWords::Two => {
            let low = u64::from(words.next()?);
            let high = u64::from(words.next()?);
            Some(Dr::LiteralBit64((high << 32) | low))
        }
        LiteralWords::Unsupported => None,
    }
}

/// A literal string: UTF-8 up to its first zero byte, padded to whole words.
fn string(words: &mut Words<'_>) -> Option<String> {
    let mut bytes = Vec::new();
    for (k, word) in words.rest.iter().enumerate() {
        for b in word.to_le_bytes() {
            if b == 0 {
                words.rest = &words.rest[k + 1..];
                return String::from_utf8(bytes).ok();
            }
            bytes.push(b);
        }
    }
    None
}

macro_rules! value_enum {
    ($words:expr, $out:expr, $ty:ident) => {
        $out.push(Dr::$ty(spirv::$ty::from_u32($words.next()?)?))
    };
}

macro_rules! bit_mask {
    ($words:expr, $out:expr, $ty:ident) => {
        $out.push(Dr::$ty(spirv::$ty::from_bits($words.next()?)?))
    };
}

/// One operand of `kind` (with an enumerant's parameters), as rspirv's `parse_operand`
/// reads it; `None` for the kinds this decoder leaves to rspirv.
fn operand(kind: K, words: &mut Words<'_>, out: &mut Vec<Dr>) -> Option<()> {
    match kind {
        K::IdRef => out.push(Dr::IdRef(words.next()?)),
        K::IdScope => out.push(Dr::IdScope(words.next()?)),
        K::IdMemorySemantics => out.push(Dr::IdMemorySemantics(words.next()?)),
        K::LiteralInteger | K::LiteralFloat => out.push(Dr::LiteralBit32(words.next()?)),
        K::LiteralExtInstInteger => out.push(Dr::LiteralExtInstInteger(words.next()?)),
        K::LiteralString => out.push(Dr::LiteralString(string(words)?)),
        K::PairIdRefLiteralInteger => {
            out.push(Dr::IdRef(words.next()?));
            out.push(Dr::LiteralBit32(words.next()?));
        }
        K::PairIdRefIdRef => {
            out.push(Dr::IdRef(words.next()?));
            out.push(Dr::IdRef(words.next()?));
        }
        K::SourceLanguage => value_enum!(words, out, SourceLanguage),
        K::ExecutionModel => value_enum!(words, out, ExecutionModel),
        K::AddressingModel => value_enum!(words, out, AddressingModel),
        K::MemoryModel => value_enum!(words, out, MemoryModel),
        K::StorageClass => value_enum!(words, out, StorageClass),
        K::Dim => value_enum!(words, out, Dim),
        K::ImageFormat => value_enum!(words, out, ImageFormat),
        K::AccessQualifier => value_enum!(words, out, AccessQualifier),
        K::BuiltIn => value_enum!(words, out, BuiltIn),
        K::Scope => value_enum!(words, out, Scope),
        K::GroupOperation => value_enum!(words, out, GroupOperation),
        K::Capability => value_enum!(words, out, Capability),
        K::FPRoundingMode => value_enum!(words, out, FPRoundingMode),
        K::SelectionControl => bit_mask!(words, out, SelectionControl),
        K::FunctionControl => bit_mask!(words, out, FunctionControl),
        K::MemorySemantics => bit_mask!(words, out, MemorySemantics),
        K::FPFastMathMode => bit_mask!(words, out, FPFastMathMode),
        K::MemoryAccess | K::LoopControl | K::ExecutionMode | K::Decoration => {
            parameters(kind, words, out)?
        }
        _ => return None,
    }
    Some(())
}

/// The enumerants with parameters, for the values shaders use; the parameters in the
/// order rspirv's parser reads them (its generated `parse_*_arguments`).
fn parameters(kind: K, words: &mut Words<'_>, out: &mut Vec<Dr>) -> Option<()> {
    /// How many literal words follow each enumerant this decoder knows (in `ids`, ids).
    enum Params {
        None,
        Literals(usize),
        Ids(usize),
        BuiltIn,
    }
    let word = words.next()?;
    let params = match kind {
        K::MemoryAccess => {
            let m = MemoryAccess::from_bits(word)?;
            let known = MemoryAccess::VOLATILE
                | MemoryAccess::ALIGNED
                | MemoryAccess::NONTEMPORAL
                | MemoryAccess::MAKE_POINTER_AVAILABLE
                | MemoryAccess::MAKE_POINTER_VISIBLE
                | MemoryAccess::NON_PRIVATE_POINTER;
            if !known.contains(m) {
                return None;
            }
            out.push(Dr::MemoryAccess(m));
            if m.contains(MemoryAccess::ALIGNED) {
                out.push(Dr::LiteralBit32(words.next()?));
            }
            for scoped in [
                MemoryAccess::MAKE_POINTER_AVAILABLE,
                MemoryAccess::MAKE_POINTER_VISIBLE,
            ] {
                if m.contains(scoped) {
                    out.push(Dr::IdScope(words.next()?));
                }
            }
            return Some(());
        }
        K::LoopControl => {
            let c = LoopControl::from_bits(word)?;
            // The bits after the first six parameterless and parametered ones are
            // vendors' (their parameters are left to rspirv).
            let with_literal = [
                LoopControl::DEPENDENCY_LENGTH,
                LoopControl::MIN_ITERATIONS,
                LoopControl::MAX_ITERATIONS,
                LoopControl::ITERATION_MULTIPLE,
                LoopControl::PEEL_COUNT,
                LoopControl::PARTIAL_COUNT,
            ];
            let known = with_literal.iter().fold(
                LoopControl::UNROLL | LoopControl::DONT_UNROLL | LoopControl::DEPENDENCY_INFINITE,
                |all, bit| all | *bit,
            );
            if !known.contains(c) {
                return None;
            }
            out.push(Dr::LoopControl(c));
            for bit in with_literal {
                if c.contains(bit) {
                    out.push(Dr::LiteralBit32(words.next()?));
                }
            }
            return Some(());
        }
        K::ExecutionMode => {
            use ExecutionMode as E;
            let mode = E::from_u32(word)?;
            out.push(Dr::ExecutionMode(mode));
            match mode {
                E::LocalSize | E::LocalSizeHint => Params::Literals(3),
                E::LocalSizeId | E::LocalSizeHintId => Params::Ids(3),
                E::SubgroupSize
                | E::DenormPreserve
                | E::DenormFlushToZero
                | E::SignedZeroInfNanPreserve
                | E::RoundingModeRTE
                | E::RoundingModeRTZ => Params::Literals(1),
                E::OriginUpperLeft
                | E::OriginLowerLeft
                | E::EarlyFragmentTests
                | E::DepthReplacing
                | E::SubgroupUniformControlFlowKHR
                | E::MaximallyReconvergesKHR
                | E::DerivativeGroupQuadsKHR
                | E::DerivativeGroupLinearKHR => Params::None,
                _ => return None,
            }
        }
        K::Decoration => {
            use Decoration as D;
            let decoration = D::from_u32(word)?;
            out.push(Dr::Decoration(decoration));
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
                | D::MaxByteOffset => Params::Literals(1),
                D::BuiltIn => Params::BuiltIn,
                D::RelaxedPrecision
                | D::Block
                | D::BufferBlock
                | D::RowMajor
                | D::ColMajor
                | D::GLSLShared
                | D::GLSLPacked
                | D::CPacked
                | D::NoPerspective
                | D::Flat
                | D::Patch
                | D::Centroid
                | D::Sample
                | D::Invariant
                | D::Restrict
                | D::Aliased
                | D::Volatile
                | D::Constant
                | D::Coherent
                | D::NonWritable
                | D::NonReadable
                | D::Uniform
                | D::SaturatedConversion
                | D::NoContraction
                | D::NoSignedWrap
                | D::NoUnsignedWrap
                | D::NonUniform
                | D::RestrictPointer
                | D::AliasedPointer => Params::None,
                _ => return None,
            }
        }
        _ => return None,
    };
    match params {
        Params::None => {}
        Params::Literals(n) => {
            for _ in 0..n {
                out.push(Dr::LiteralBit32(words.next()?));
            }
        }
        Params::Ids(n) => {
            for _ in 0..n {
                out.push(Dr::IdRef(words.next()?));
            }
        }
        Params::BuiltIn => value_enum!(words, out, BuiltIn),
    }
    Some(())
}
