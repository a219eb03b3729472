//! Splits a binary module into instructions with their positions: the header and word
//! counts checked here, the operands read by the direct decoder (`decode.rs`) or, where it
//! declines, by rspirv's parser.

use rspirv::binary::{Consumer, ParseAction};
use rspirv::dr;

use super::{Position, ReadError, ReadErrorKind};

/// One instruction with where it starts.
pub(crate) struct Located {
    pub(crate) inst: dr::Instruction,
    pub(crate) pos: Position,
}

/// A parsed binary: header fields and instructions in order.
pub(crate) struct RawModule {
    pub(crate) version: (u8, u8),
    /// The header's id bound: every id is below it.
    pub(crate) bound: u32,
    pub(crate) insts: Vec<Located>,
}

struct Collect {
    header: Option<dr::ModuleHeader>,
    insts: Vec<dr::Instruction>,
}

impl Consumer for Collect {
    fn initialize(&mut self) -> ParseAction {
        ParseAction::Continue
    }
    fn finalize(&mut self) -> ParseAction {
        ParseAction::Continue
    }
    fn consume_header(&mut self, header: dr::ModuleHeader) -> ParseAction {
        self.header = Some(header);
        ParseAction::Continue
    }
    fn consume_instruction(&mut self, inst: dr::Instruction) -> ParseAction {
        self.insts.push(inst);
        ParseAction::Continue
    }
}

/// The number of header words.
const HEADER_WORDS: usize = 5;

/// A module's words split into instructions, before any operand is read.
struct Split {
    words: Vec<u32>,
    version: (u8, u8),
    /// Where each instruction starts (its word count checked).
    starts: Vec<usize>,
}

/// Parses `bytes` (little-endian words) into instructions: with the direct decoder
/// (`decode.rs`), or with rspirv's parser where that declines.
pub(crate) fn parse(bytes: &[u8]) -> Result<RawModule, ReadError> {
    let split = split(bytes)?;
    let insts = match super::decode::decode(&split.words, &split.starts) {
        Some(insts) => insts,
        None => parse_with_rspirv(&split)?,
    };
    Ok(located(split, insts))
}

fn located(split: Split, insts: Vec<dr::Instruction>) -> RawModule {
    let insts = insts
        .into_iter()
        .zip(split.starts)
        .enumerate()
        .map(|(index, (inst, word))| Located {
            inst,
            pos: Position {
                word,
                index: Some(index),
            },
        })
        .collect();
    RawModule {
        version: split.version,
        bound: split.words[3],
        insts,
    }
}

/// What the direct decoder made of a module, against rspirv's parser (see
/// [`compare_decoders`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecoderOutcome {
    /// The decoder read the module, to the same instructions as rspirv's parser.
    Decoded,
    /// The decoder declined; rspirv's parser decides.
    Declined,
    /// Refused before either reads an operand (header, word counts, refused opcodes).
    Refused,
}

/// Runs the direct decoder and rspirv's parser on `bytes`. A module the decoder reads must
/// be one rspirv's parser reads, to the same instructions; `Err` describes the first
/// difference.
pub(crate) fn compare_decoders(bytes: &[u8]) -> Result<DecoderOutcome, String> {
    let Ok(split) = split(bytes) else {
        return Ok(DecoderOutcome::Refused);
    };
    let Some(direct) = super::decode::decode(&split.words, &split.starts) else {
        return Ok(DecoderOutcome::Declined);
    };
    let theirs = parse_with_rspirv(&split)
        .map_err(|e| format!("decoded, but rspirv's parser refuses it: {e}"))?;
    if direct.len() != theirs.len() {
        return Err(format!(
            "{} instructions decoded, {} parsed",
            direct.len(),
            theirs.len()
        ));
    }
    for (k, (a, b)) in direct.iter().zip(&theirs).enumerate() {
        let same = std::ptr::eq(a.class, b.class)
            && a.result_type == b.result_type
            && a.result_id == b.result_id
            && a.operands == b.operands;
        if !same {
            return Err(format!(
                "instruction {k} at word {}: decoded Op{} {:?} {:?} {:?}, parsed Op{} {:?} {:?} {:?}",
                split.starts[k],
                a.class.opname,
                a.result_type,
                a.result_id,
                a.operands,
                b.class.opname,
                b.result_type,
                b.result_id,
                b.operands
            ));
        }
    }
    Ok(DecoderOutcome::Decoded)
}

/// Checks the header and splits the words into instructions by their word counts.
fn split(bytes: &[u8]) -> Result<Split, ReadError> {
    let at_start = |kind| ReadError {
        kind,
        pos: Some(Position {
            word: 0,
            index: None,
        }),
    };
    if bytes.len() % 4 != 0 {
        return Err(ReadError {
            kind: ReadErrorKind::Truncated(format!(
                "{} bytes is not a whole number of 32-bit words",
                bytes.len()
            )),
            pos: Some(Position {
                word: bytes.len() / 4,
                index: None,
            }),
        });
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if words.len() < HEADER_WORDS {
        return Err(at_start(ReadErrorKind::Truncated(
            "the module is shorter than its 5-word header".into(),
        )));
    }
    if words[0] != spirv::MAGIC_NUMBER {
        let why = if words[0] == spirv::MAGIC_NUMBER.swap_bytes() {
            "big-endian modules are not supported".to_string()
        } else {
            format!("bad magic number {:#010x}", words[0])
        };
        return Err(at_start(ReadErrorKind::BadHeader(why)));
    }
    let version = words[1];
    let (major, minor) = ((version >> 16) as u8, (version >> 8) as u8);
    if version & 0xff00_00ff != 0 || major != 1 || minor > 6 {
        return Err(ReadError {
            kind: ReadErrorKind::BadHeader(format!(
                "unsupported SPIR-V version word {version:#010x} (1.0 to 1.6 are supported)"
            )),
            pos: Some(Position {
                word: 1,
                index: None,
            }),
        });
    }
    // Instruction start offsets, from the word counts. A zero or overlong count is reported
    // here with its position; rspirv's parser reports operand-level problems.
    let mut starts = Vec::new();
    let mut w = HEADER_WORDS;
    while w < words.len() {
        let count = (words[w] >> 16) as usize;
        let index = Some(starts.len());
        if count == 0 {
            return Err(ReadError {
                kind: ReadErrorKind::Malformed("instruction word count is zero".into()),
                pos: Some(Position { word: w, index }),
            });
        }
        if w + count > words.len() {
            return Err(ReadError {
                kind: ReadErrorKind::Truncated(format!(
                    "instruction needs {count} words but only {} remain",
                    words.len() - w
                )),
                pos: Some(Position { word: w, index }),
            });
        }
        if let Some(kind) = refuse_before_parsing(&words[w..w + count]) {
            return Err(ReadError {
                kind,
                pos: Some(Position { word: w, index }),
            });
        }
        starts.push(w);
        w += count;
    }
    Ok(Split {
        words,
        version: (major, minor),
        starts,
    })
}

/// rspirv's parser on a split module; its error at the first instruction it did not return.
fn parse_with_rspirv(split: &Split) -> Result<Vec<dr::Instruction>, ReadError> {
    let mut collect = Collect {
        header: None,
        insts: Vec::new(),
    };
    if let Err(state) = rspirv::binary::parse_words(&split.words, &mut collect) {
        // The failing instruction is the first one the consumer did not receive.
        let index = collect.insts.len();
        let pos = Position {
            word: split
                .starts
                .get(index)
                .copied()
                .unwrap_or(split.words.len()),
            index: Some(index),
        };
        return Err(ReadError {
            kind: kind_of(state),
            pos: Some(pos),
        });
    }
    Ok(collect.insts)
}

/// The opcodes SPIR-V allows inside `OpSpecConstantOp` in shaders.
const SPEC_CONSTANT_OPS: &[spirv::Op] = {
    use spirv::Op::*;
    &[
        SConvert,
        UConvert,
        FConvert,
        SNegate,
        Not,
        IAdd,
        ISub,
        IMul,
        UDiv,
        SDiv,
        UMod,
        SRem,
        SMod,
        ShiftRightLogical,
        ShiftRightArithmetic,
        ShiftLeftLogical,
        BitwiseOr,
        BitwiseXor,
        BitwiseAnd,
        VectorShuffle,
        CompositeExtract,
        CompositeInsert,
        LogicalOr,
        LogicalAnd,
        LogicalNot,
        LogicalEqual,
        LogicalNotEqual,
        Select,
        IEqual,
        INotEqual,
        ULessThan,
        SLessThan,
        UGreaterThan,
        SGreaterThan,
        ULessThanEqual,
        SLessThanEqual,
        UGreaterThanEqual,
        SGreaterThanEqual,
        QuantizeToF16,
    ]
};

/// Instructions refused before rspirv's parser sees them, because that parser panics on
/// them (found by fuzzing): an `OpSpecConstantOp` around an opcode SPIR-V does not allow
/// there, and extended instruction sets other than `GLSL.std.450` (rspirv cannot parse
/// the operands of some, e.g. `DebugInfo`; tangle reads only `GLSL.std.450` anyway).
fn refuse_before_parsing(inst: &[u32]) -> Option<ReadErrorKind> {
    let opcode = inst[0] & 0xffff;
    if opcode == spirv::Op::SpecConstantOp as u32 {
        let inner = *inst.get(3)?;
        let allowed = SPEC_CONSTANT_OPS.iter().any(|op| *op as u32 == inner);
        return (!allowed).then(|| {
            ReadErrorKind::Malformed(format!("OpSpecConstantOp cannot apply opcode {inner}"))
        });
    }
    if opcode == spirv::Op::ExtInstImport as u32 {
        let name: Vec<u8> = inst
            .get(2..)?
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .take_while(|b| *b != 0)
            .collect();
        if name != b"GLSL.std.450" {
            let shown = String::from_utf8_lossy(&name).into_owned();
            return Some(ReadErrorKind::Unsupported(format!(
                "extended instruction set {shown:?}"
            )));
        }
    }
    None
}

fn kind_of(state: rspirv::binary::ParseState) -> ReadErrorKind {
    use rspirv::binary::ParseState as S;
    match state {
        S::OpcodeUnknown(_, _, op) => ReadErrorKind::UnknownOpcode(op),
        S::OperandExpected(..) => {
            ReadErrorKind::Malformed("the instruction has too few operands".into())
        }
        S::OperandExceeded(..) => {
            ReadErrorKind::Malformed("the instruction has too many operands".into())
        }
        S::WordCountZero(..) => ReadErrorKind::Malformed("instruction word count is zero".into()),
        S::TypeUnsupported(..) => {
            ReadErrorKind::Malformed("a literal's type is unknown or not numeric".into())
        }
        S::SpecConstantOpIntegerIncorrect(..) => {
            ReadErrorKind::Malformed("bad OpSpecConstantOp opcode".into())
        }
        S::OperandError(e) => ReadErrorKind::Malformed(format!("bad operand: {e}")),
        other => ReadErrorKind::Malformed(other.to_string()),
    }
}
