//! The instruction encoder: reads words, follows each opcode's operand grammar and writes
//! the module.

use std::collections::VecDeque;

// FxHash: the maps are keyed by ids and short names of the user's own module (see
// `docs/interp-speed.md`): SipHash's flood resistance buys nothing and cost ~8% of `tangle run`.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use spirv::Op;

use super::error::{AsmError, AsmErrorKind as K};
use super::lexer::{tokenize, Token};
use super::literal::{
    context_free_float, encode_bfloat16, encode_float, encode_int, parse_int, IntError,
};
use super::AsmOptions;
use crate::grammar::{self, ExtInstSet, OperandKind as OK, OperandQuantifier as Q};

/// A scalar numeric type, as declared by `OpTypeInt` / `OpTypeFloat`.
#[derive(Clone, Copy, Debug)]
enum NumType {
    Int {
        width: u32,
        signed: bool,
    },
    Float {
        width: u32,
    },
    /// `OpTypeFloat` with the `BFloat16KHR` encoding (whatever its declared width).
    BFloat16,
    /// A float type with another `FPEncoding` (FP8): literals not supported.
    EncodedFloat,
}

/// An operand still to read.
#[derive(Clone, Copy, Debug)]
struct Slot {
    kind: Kind,
    quantifier: Q,
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Grammar(OK),
    /// The literal of an `OpSwitch` case, as wide as the selector's type.
    SwitchLiteral,
}

impl Slot {
    fn one(kind: OK) -> Self {
        Self::grammar(kind, Q::One)
    }

    fn grammar(kind: OK, quantifier: Q) -> Self {
        Self {
            kind: Kind::Grammar(kind),
            quantifier,
        }
    }
}

fn kind_name(kind: Kind) -> String {
    match kind {
        Kind::Grammar(k) => format!("{k:?}"),
        Kind::SwitchLiteral => "LiteralInteger (switch case)".to_owned(),
    }
}

pub(crate) struct Assembler<'a> {
    tokens: Vec<Token<'a>>,
    pos: usize,
    eof: (u32, u32),
    opts: AsmOptions,
    ids: HashMap<&'a str, u32>,
    /// Numeric ids kept as written (`--preserve-numeric-ids`).
    reserved: HashSet<u32>,
    next_id: u32,
    bound: u32,
    num_types: HashMap<u32, NumType>,
    type_ids: HashSet<u32>,
    value_types: HashMap<u32, u32>,
    ext_sets: HashMap<u32, ExtInstSet>,
    words: Vec<u32>,
    /// The operand queue of the instruction being read, kept between instructions so
    /// that each does not allocate its own.
    slots: VecDeque<Slot>,
    /// The id operands of the instruction being read ([`InstCtx::ids`]), kept between
    /// instructions for the same reason.
    inst_ids: Vec<(u32, Token<'a>)>,
}

type Result<T> = std::result::Result<T, AsmError>;

fn err_at(tok: &Token<'_>, kind: K) -> AsmError {
    AsmError {
        line: tok.line,
        column: tok.column,
        kind,
    }
}

/// `Op` followed by a capital letter: what spirv-as takes for the start of an opcode.
fn looks_like_opcode(word: &str) -> bool {
    let b = word.as_bytes();
    b.len() >= 3 && b[0] == b'O' && b[1] == b'p' && b[2].is_ascii_uppercase()
}

/// The number an id name stands for under `preserve_numeric_ids`: spirv-as reads it like an
/// integer literal, so `%010` is 8, `%0x10` is 16, and `%08` (bad octal) is a name.
fn numeric_id(name: &str) -> Option<u32> {
    if !is_id_name(name) {
        return None;
    }
    let int = parse_int(name)?;
    int.magnitude
        .filter(|m| !int.negative && *m <= u64::from(u32::MAX))
        .map(|m| m as u32)
}

/// Bytes an id name may hold: `[A-Za-z0-9_]`.
static ID_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    t
};

fn is_id_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| ID_BYTE[b as usize])
}

/// Encodes a quoted string literal as nul-terminated, zero-padded little-endian words.
fn string_words(tok: &Token<'_>) -> Result<Vec<u32>> {
    match plain_string(tok.text) {
        Some(bytes) => Ok(pack_string(bytes)),
        None => string_words_general(tok),
    }
}

/// The bytes of a quoted string written without escapes (no backslash, no quote but the
/// two around it), which stand for themselves; `None` for any other word.
fn plain_string(word: &str) -> Option<&[u8]> {
    let inner = word.strip_prefix('"')?.strip_suffix('"')?.as_bytes();
    (!inner.iter().any(|&b| b == b'"' || b == b'\\')).then_some(inner)
}

/// `bytes`, a nul and zero padding, as little-endian words.
fn pack_string(bytes: &[u8]) -> Vec<u32> {
    let mut words = Vec::with_capacity(bytes.len() / 4 + 1);
    let mut chunks = bytes.chunks_exact(4);
    words.extend(
        chunks
            .by_ref()
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
    // The last word holds what is left (0 to 3 bytes) and the nul.
    let mut last = [0u8; 4];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    words.push(u32::from_le_bytes(last));
    words
}

/// [`string_words`] for any string, as it was written before its fast path: escapes read a
/// character at a time, then a nul and padding.
fn string_words_general(tok: &Token<'_>) -> Result<Vec<u32>> {
    let bad = || err_at(tok, K::BadString(tok.text.to_owned()));
    let inner = tok.text.strip_prefix('"').ok_or_else(bad)?;
    let mut bytes = Vec::with_capacity(inner.len() + 4);
    let mut chars = inner.char_indices();
    let mut closed = false;
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, e)) => {
                    let mut buf = [0u8; 4];
                    bytes.extend_from_slice(e.encode_utf8(&mut buf).as_bytes());
                }
                None => return Err(bad()),
            },
            '"' => {
                if i + 1 != inner.len() {
                    return Err(bad());
                }
                closed = true;
            }
            _ => {
                let mut buf = [0u8; 4];
                bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    if !closed {
        return Err(bad());
    }
    bytes.push(0);
    while bytes.len() % 4 != 0 {
        bytes.push(0);
    }
    Ok(bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// The text of a quoted string literal, for `OpExtInstImport`.
fn string_value(tok: &Token<'_>) -> Result<String> {
    let words = string_words(tok)?;
    let bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|b| *b != 0)
        .collect();
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

impl<'a> Assembler<'a> {
    pub(crate) fn new(text: &'a str, opts: AsmOptions) -> Self {
        let (tokens, eof) = tokenize(text);
        let mut reserved = HashSet::default();
        if opts.preserve_numeric_ids {
            for t in &tokens {
                if let Some(n) = t.text.strip_prefix('%').and_then(numeric_id) {
                    reserved.insert(n);
                }
            }
        }
        // Sized once from the text: a module has about one id for every four words
        // (`%a = OpIAdd %t %b %c`) and as many words of output as of text; growing the maps
        // a rehash at a time was a visible part of assembling.
        let ids = HashMap::with_capacity_and_hasher(tokens.len() / 4, Default::default());
        let values = HashMap::with_capacity_and_hasher(tokens.len() / 8, Default::default());
        let words = Vec::with_capacity(tokens.len() + 5);
        Self {
            tokens,
            pos: 0,
            eof,
            opts,
            ids,
            reserved,
            next_id: 1,
            bound: 1,
            num_types: HashMap::default(),
            type_ids: HashSet::default(),
            value_types: values,
            ext_sets: HashMap::default(),
            words,
            slots: VecDeque::new(),
            inst_ids: Vec::new(),
        }
    }

    pub(crate) fn run(mut self, text_is_empty: bool) -> Result<Vec<u32>> {
        if text_is_empty {
            return Err(AsmError {
                line: 1,
                column: 1,
                kind: K::EmptyInput,
            });
        }
        while self.pos < self.tokens.len() {
            self.instruction()?;
        }
        let mut module = vec![
            spirv::MAGIC_NUMBER,
            self.opts.target_env.version_word(),
            self.opts.generator,
            self.bound,
            0,
        ];
        module.append(&mut self.words);
        Ok(module)
    }

    fn peek(&self) -> Option<Token<'a>> {
        self.tokens.get(self.pos).copied()
    }

    /// Takes the next word; `(`, `)` and `,` (which the lexer stops at) are refused here.
    fn next(&mut self) -> Result<Option<Token<'a>>> {
        let t = self.peek();
        if let Some(t) = t {
            if matches!(t.text, "(" | ")" | ",") {
                return Err(err_at(&t, K::ReservedPunctuation(t.text.to_owned())));
            }
            self.pos += 1;
        }
        Ok(t)
    }

    fn eof_error(&self, kind: K) -> AsmError {
        AsmError {
            line: self.eof.0,
            column: self.eof.1,
            kind,
        }
    }

    /// Whether the next word begins an instruction, by spirv-as's rule: it starts with `Op`
    /// and a capital letter, or it is a `%word` followed by `=` and such an opcode word. Also
    /// true at the end of the text.
    fn at_instruction_start(&self) -> bool {
        let word = |i: usize| self.tokens.get(self.pos + i).map(|t| t.text);
        match word(0) {
            None => true,
            Some(w) if looks_like_opcode(w) => true,
            Some(w) => {
                w.starts_with('%') && word(1) == Some("=") && word(2).is_some_and(looks_like_opcode)
            }
        }
    }

    /// The id for `%name` (token text with `%`), assigning one on first sight.
    fn id(&mut self, tok: &Token<'a>) -> Result<u32> {
        let Some(name) = tok.text.strip_prefix('%') else {
            return Err(err_at(tok, K::ExpectedId(tok.text.to_owned())));
        };
        // Names are checked on first sight only: a name in the map passed the check when it
        // was put there, and one that fails it is never put there.
        if let Some(&id) = self.ids.get(name) {
            return Ok(id);
        }
        if !is_id_name(name) {
            return Err(err_at(tok, K::InvalidId(name.to_owned())));
        }
        let numeric = if self.opts.preserve_numeric_ids {
            numeric_id(name)
        } else {
            None
        };
        let id = match numeric {
            Some(n) => n,
            // Without preserved numeric ids every id is numbered here, in order, so none
            // can be taken already: no set of taken ids to keep.
            None if !self.opts.preserve_numeric_ids => {
                let id = self.next_id;
                self.next_id = self.next_id.wrapping_add(1);
                id
            }
            None => {
                while self.reserved.contains(&self.next_id) {
                    self.next_id = self.next_id.wrapping_add(1);
                }
                let id = self.next_id;
                self.next_id = self.next_id.wrapping_add(1);
                self.reserved.insert(id);
                id
            }
        };
        self.ids.insert(name, id);
        self.bound = self.bound.max(id.wrapping_add(1)).max(self.next_id);
        Ok(id)
    }

    fn immediate(&self, tok: &Token<'_>) -> Result<u32> {
        let bad = || err_at(tok, K::BadImmediate(tok.text.to_owned()));
        let int = parse_int(&tok.text[1..]).ok_or_else(bad)?;
        match int.magnitude {
            Some(m) if !int.negative && m <= u64::from(u32::MAX) => Ok(m as u32),
            _ => Err(bad()),
        }
    }

    /// After an immediate word, operands are read without the grammar: ids, 32-bit numbers,
    /// strings and more immediates, up to the next instruction.
    fn context_free_operands(&mut self) -> Result<()> {
        while !self.at_instruction_start() {
            let Some(tok) = self.next()? else { break };

            let first = tok.text.as_bytes()[0];
            if first == b'!' {
                let w = self.immediate(&tok)?;
                self.words.push(w);
            } else if first == b'%' {
                let id = self.id(&tok)?;
                self.words.push(id);
            } else if first == b'"' {
                let mut w = string_words(&tok)?;
                self.words.append(&mut w);
            } else {
                let w = encode_int(tok.text, 32, true)
                    .or_else(|_| encode_int(tok.text, 32, false))
                    .ok()
                    // Floats here need a `.` and are read like C's strtof.
                    .or_else(|| context_free_float(tok.text).map(|w| vec![w]))
                    .ok_or_else(|| err_at(&tok, K::BadContextFreeOperand(tok.text.to_owned())))?;
                self.words.extend(w);
            }
        }
        Ok(())
    }

    fn instruction(&mut self) -> Result<()> {
        let Some(first) = self.next()? else {
            return Ok(());
        };
        if first.text.starts_with('!') {
            let w = self.immediate(&first)?;
            self.words.push(w);
            return self.context_free_operands();
        }
        let (result, op_tok) = if first.text.starts_with('%') {
            match self.next()? {
                Some(eq) if eq.text == "=" => {}
                Some(other) => {
                    return Err(err_at(
                        &other,
                        K::ExpectedEquals(format!("`{}`", other.text)),
                    ))
                }
                None => {
                    return Err(self.eof_error(K::ExpectedEquals("the end of the input".into())))
                }
            }
            match self.next()? {
                Some(op) if op.text.starts_with("Op") => (Some(first), op),
                Some(other) => {
                    return Err(err_at(
                        &other,
                        K::ExpectedOpcode(format!("`{}`", other.text)),
                    ))
                }
                None => {
                    return Err(self.eof_error(K::ExpectedOpcode("the end of the input".into())))
                }
            }
        } else if first.text.starts_with("Op") {
            (None, first)
        } else {
            return Err(err_at(
                &first,
                K::ExpectedInstruction(first.text.to_owned()),
            ));
        };
        let inst = grammar::instruction(op_tok.text)
            .ok_or_else(|| err_at(&op_tok, K::UnknownOpcode(op_tok.text.to_owned())))?;
        let has_result = inst.operands.iter().any(|o| o.kind == OK::IdResult);
        match (&result, has_result) {
            (None, true) => {
                return Err(err_at(&op_tok, K::MissingResultId(op_tok.text.to_owned())))
            }
            (Some(r), false) => {
                return Err(err_at(
                    &op_tok,
                    K::UnexpectedResultId {
                        opcode: op_tok.text.to_owned(),
                        id: r.text[1..].to_owned(),
                    },
                ))
            }
            _ => {}
        }
        let opcode = inst.opcode;
        let start = self.words.len();
        self.words.push(opcode as u32);
        let mut ids = std::mem::take(&mut self.inst_ids);
        ids.clear();
        let mut ctx = InstCtx {
            opcode,
            op_name: op_tok.text,
            result,
            result_id: None,
            result_type: None,
            ids,
            import_name: None,
        };
        // The queue is given back after the operands (an error ends the assembly anyway).
        let mut expected = std::mem::take(&mut self.slots);
        expected.clear();
        expected.extend(
            inst.operands
                .iter()
                .map(|o| Slot::grammar(o.kind, o.quantifier)),
        );
        // Where spirv-as's cursor stops: after the last word read, or at the next word when it
        // looked ahead for an optional operand. Errors found after the operands point there.
        let mut stop = op_tok.end;
        while let Some(slot) = expected.pop_front() {
            if let Kind::Grammar(OK::IdResult) = slot.kind {
                let r = ctx.result.expect("checked above: the opcode has a result");
                let id = self.id(&r)?;
                ctx.result_id = Some(id);
                self.words.push(id);
                continue;
            }
            if self.at_instruction_start() {
                if slot.quantifier != Q::One {
                    // spirv-as looked ahead to the next word here (see `stop`).
                    stop = self.peek().map_or(self.eof, |t| (t.line, t.column));
                    continue;
                }
                let kind = K::MissingOperand {
                    opcode: op_tok.text.to_owned(),
                    expected: kind_name(slot.kind),
                    found: if self.peek().is_some() {
                        "the next instruction"
                    } else {
                        "the end of the input"
                    }
                    .to_owned(),
                };
                return Err(match self.peek() {
                    Some(t) => err_at(&t, kind),
                    None => self.eof_error(kind),
                });
            }
            let Some(tok) = self.next()? else { break };
            stop = tok.end;
            if slot.quantifier != Q::One && !self.optional_literal_present(slot.kind, &tok, &ctx)? {
                // As in spirv-as: a word that is no literal of an optional literal operand
                // means the operand is absent, and the word begins the next instruction.
                self.pos -= 1;
                stop = (tok.line, tok.column);
                break;
            }
            if tok.text.starts_with('!') {
                let w = self.immediate(&tok)?;
                self.words.push(w);
                // The grammar is left behind, but a result id not yet written still follows
                // the immediate (an immediate result type), as in spirv-as.
                if ctx.result_id.is_none() {
                    if let Some(r) = ctx.result {
                        let id = self.id(&r)?;
                        ctx.result_id = Some(id);
                        self.words.push(id);
                    }
                }
                self.context_free_operands()?;
                stop = self.peek().map_or(self.eof, |t| (t.line, t.column));
                break;
            }
            if slot.quantifier == Q::ZeroOrMore {
                expected.push_front(slot);
            }
            // spirv-as reads a required MemoryAccess operand (that of
            // OpCooperativeMatrixLoadTensorNV and OpCooperativeMatrixStoreTensorNV) as a
            // single name: `|` is not split there.
            if matches!(slot.kind, Kind::Grammar(OK::MemoryAccess))
                && slot.quantifier == Q::One
                && tok.text.contains('|')
            {
                return Err(err_at(
                    &tok,
                    K::UnknownEnumerant {
                        kind: "MemoryAccess".into(),
                        name: tok.text.to_owned(),
                    },
                ));
            }
            self.operand(slot.kind, &tok, &mut ctx, &mut expected)?;
        }
        let count = self.words.len() - start;
        if count > 0xFFFF {
            return Err(err_at(&op_tok, K::InstructionTooLong(count)));
        }
        self.words[start] |= (count as u32) << 16;
        self.slots = expected;
        let recorded = self.record(&ctx, start, stop);
        self.inst_ids = ctx.ids;
        recorded
    }

    /// Remembers what later instructions need: numeric types, value types, import sets.
    fn record(&mut self, ctx: &InstCtx<'a>, start: usize, stop: (u32, u32)) -> Result<()> {
        let Some(result) = ctx.result_id else {
            return Ok(());
        };
        let operands = &self.words[start + 1..];
        if grammar::declares_type(ctx.opcode) {
            if !self.type_ids.insert(result) {
                let name = ctx
                    .result
                    .map(|r| r.text[1..].to_owned())
                    .unwrap_or_default();
                return Err(AsmError {
                    line: stop.0,
                    column: stop.1,
                    kind: K::TypeRedefined(name),
                });
            }
            match ctx.opcode {
                Op::TypeInt if operands.len() >= 3 => {
                    self.num_types.insert(
                        result,
                        NumType::Int {
                            width: operands[1],
                            signed: operands[2] != 0,
                        },
                    );
                }
                Op::TypeFloat if operands.len() == 2 => {
                    self.num_types
                        .insert(result, NumType::Float { width: operands[1] });
                }
                Op::TypeFloat if operands.len() == 3 => {
                    let ty = match spirv::FPEncoding::from_u32(operands[2]) {
                        Some(spirv::FPEncoding::BFloat16KHR) => NumType::BFloat16,
                        Some(_) => NumType::EncodedFloat,
                        // Only reachable through an immediate (`OpTypeFloat 32 !7`).
                        None => {
                            return Err(AsmError {
                                line: stop.0,
                                column: stop.1,
                                kind: K::UnknownEnumerant {
                                    kind: "FPEncoding".into(),
                                    name: operands[2].to_string(),
                                },
                            })
                        }
                    };
                    self.num_types.insert(result, ty);
                }
                _ => {}
            }
        }
        if let Some(ty) = ctx.result_type {
            self.value_types.insert(result, ty);
        }
        if ctx.opcode == Op::ExtInstImport {
            if let Some(tok) = ctx.import_name {
                let name = string_value(&tok)?;
                let set = ExtInstSet::from_import_name(&name)
                    .ok_or_else(|| err_at(&tok, K::UnknownExtInstSet(name.clone())))?;
                if self.ext_sets.insert(result, set).is_some() {
                    let name = ctx
                        .result
                        .map(|r| r.text[1..].to_owned())
                        .unwrap_or_default();
                    return Err(err_at(&tok, K::ImportRedefined(name)));
                }
            }
        }
        Ok(())
    }
}

struct InstCtx<'a> {
    opcode: Op,
    op_name: &'a str,
    result: Option<Token<'a>>,
    result_id: Option<u32>,
    result_type: Option<u32>,
    /// Id operands read so far, in order.
    ids: Vec<(u32, Token<'a>)>,
    import_name: Option<Token<'a>>,
}

mod operands;

#[cfg(test)]
mod tests {
    use super::*;

    /// Strings without escapes, read through the fast path, encode as the general reading
    /// encodes them: every length up to 13 bytes (each padding case), multi-byte characters,
    /// and words the fast path declines (escapes, inner quotes, no closing quote).
    #[test]
    fn plain_strings_encode_as_the_general_reading_does() {
        let tok = |text| Token {
            text,
            line: 1,
            column: 1,
            end: (1, 1),
        };
        let mut words = Vec::new();
        for len in 0..14 {
            words.push(format!("\"{}\"", "abcdefghijklmn".get(..len).unwrap()));
            words.push(format!("\"{}\u{e9}\"", "x".repeat(len)));
        }
        let mut fast = 0;
        for w in words.iter().map(String::as_str).chain([
            "\"a\\\"b\"",
            "\"a\\nb\"",
            "\"a\"b\"",
            "\"abc",
            "\"",
            "abc",
            "\"x y;z\"",
        ]) {
            fast += usize::from(plain_string(w).is_some());
            assert_eq!(string_words(&tok(w)), string_words_general(&tok(w)), "{w}");
        }
        assert_eq!(fast, 29, "the fast path took every plain string");
    }

    /// The id-name table holds exactly the bytes `[A-Za-z0-9_]`.
    #[test]
    fn id_byte_table_is_the_id_name_rule() {
        for b in 0..=255u8 {
            let rule = b.is_ascii_alphanumeric() || b == b'_';
            assert_eq!(ID_BYTE[b as usize], rule, "byte {b:#04x}");
        }
    }
}
