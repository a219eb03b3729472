//! Assembly errors: where (1-based line and column, counted in bytes) and what.

/// An error in SPIR-V assembly text, with the position of the offending word.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {kind}")]
pub struct AsmError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in bytes.
    pub column: u32,
    /// What went wrong.
    pub kind: AsmErrorKind,
}

/// What went wrong; each message names what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AsmErrorKind {
    /// An instruction must begin with an opcode, `%id =` or `!<integer>`.
    #[error("expected an opcode or `%result =` at the start of an instruction, found `{0}`")]
    ExpectedInstruction(String),
    /// `%id` at the start of an instruction was not followed by `=`.
    #[error("expected `=` after the result id, found {0}")]
    ExpectedEquals(String),
    /// After `%id =` came something that is not an opcode name.
    #[error("expected an opcode name after `=`, found {0}")]
    ExpectedOpcode(String),
    /// An `Op...` word that names no instruction.
    #[error("unknown opcode `{0}`")]
    UnknownOpcode(String),
    /// The opcode produces a result but no `%id =` was written.
    #[error("`{0}` produces a result: expected `%id = {0} ...`")]
    MissingResultId(String),
    /// `%id =` was written before an opcode that has no result.
    #[error("`{opcode}` has no result id, so `%{id}` cannot be set")]
    UnexpectedResultId {
        /// The opcode.
        opcode: String,
        /// The id written before it.
        id: String,
    },
    /// A required operand is missing.
    #[error("expected {expected} operand of `{opcode}`, found {found}")]
    MissingOperand {
        /// The instruction.
        opcode: String,
        /// The operand kind that was expected.
        expected: String,
        /// `the end of the input` or `the next instruction`.
        found: String,
    },
    /// An id operand not written as `%name`.
    #[error("expected an id (`%name`), found `{0}`")]
    ExpectedId(String),
    /// `%` followed by characters other than letters, digits and `_`.
    #[error("invalid id `{0}`: expected `%` and letters, digits or `_`")]
    InvalidId(String),
    /// An enumerant name unknown for its operand kind.
    #[error("unknown {kind} enumerant `{name}`")]
    UnknownEnumerant {
        /// The operand kind.
        kind: String,
        /// The word found.
        name: String,
    },
    /// A literal that does not parse as what its operand needs.
    #[error("invalid literal `{found}`: expected {expected}")]
    BadLiteral {
        /// What the operand needs, e.g. `a 32-bit unsigned integer`.
        expected: String,
        /// The word found.
        found: String,
    },
    /// An integer that parses but does not fit its type.
    #[error("integer `{found}` does not fit in {expected}")]
    IntegerOutOfRange {
        /// The type, e.g. `a 16-bit signed integer`.
        expected: String,
        /// The word found.
        found: String,
    },
    /// A quoted string without its closing quote or with text after it.
    #[error("invalid string literal {0:?}: expected a `\"`-quoted string")]
    BadString(String),
    /// `!` not followed by a 32-bit unsigned integer.
    #[error("invalid immediate `{0}`: expected `!` and a 32-bit unsigned integer")]
    BadImmediate(String),
    /// After an immediate word, only ids, numbers, strings and immediates may follow.
    #[error("expected an id, number, string or `!<integer>` after an immediate word, found `{0}`")]
    BadContextFreeOperand(String),
    /// The result type of `OpConstant`/`OpSpecConstant` is not a scalar int or float type.
    #[error("the result type of `{0}` must be a scalar integer or floating-point type")]
    ConstantTypeNotNumeric(String),
    /// A constant of an FP8 float type (`Float8E4M3EXT`, `Float8E5M2EXT`): not supported yet.
    #[error("constants of FP8 types (Float8E4M3EXT, Float8E5M2EXT) are not supported")]
    UnsupportedFloatEncoding,
    /// `OpSwitch`'s selector is not a value of a scalar integer type.
    #[error("the selector of `OpSwitch` must be a value of a scalar integer type")]
    SwitchSelectorNotInteger,
    /// `OpExtInstImport` of a set this assembler does not know.
    #[error("unknown extended instruction set `{0}`: expected GLSL.std.450, OpenCL.std or NonSemantic.*")]
    UnknownExtInstSet(String),
    /// The set operand of `OpExtInst` is not the result of an `OpExtInstImport`.
    #[error("`%{0}` is not the result of an `OpExtInstImport`")]
    NotExtInstSet(String),
    /// An instruction name not in the imported set.
    #[error("unknown instruction `{name}` of extended instruction set `{set}`")]
    UnknownExtInst {
        /// The import name.
        set: String,
        /// The word found.
        name: String,
    },
    /// An `OpSpecConstantOp` opcode name (written without `Op`) that is unknown.
    #[error("unknown opcode `{0}` for OpSpecConstantOp: expected a name such as `IAdd`")]
    UnknownSpecConstantOpcode(String),
    /// An `OpExtInstImport` result id defined twice.
    #[error("`%{0}` already names an imported instruction set")]
    ImportRedefined(String),
    /// A type id defined twice.
    #[error("`%{0}` already names a type")]
    TypeRedefined(String),
    /// `(`, `)` or `,` outside a string: spirv-as ends words there and refuses the character.
    #[error("unexpected `{0}`: expected white space before the next word (`(`, `)` and `,` are only allowed in strings)")]
    ReservedPunctuation(String),
    /// The text is empty (spirv-as refuses it too; whitespace or comments alone are fine).
    #[error("empty input: expected SPIR-V assembly text")]
    EmptyInput,
    /// An instruction longer than 65535 words.
    #[error("instruction of {0} words: at most 65535 fit in the word count")]
    InstructionTooLong(usize),
}
