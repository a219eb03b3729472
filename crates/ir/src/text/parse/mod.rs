//! Reads the text form back into a module.
//!
//! One file per concern: this file holds the token cursor and the module's top level;
//! `types` the type references and declarations, `decls` constants, globals and entry
//! points, `function` function bodies and block ends, `body` the per-function bookkeeping of
//! definitions and uses, `instruction` operations, immediates and operands.

mod body;
mod decls;
mod function;
mod instruction;
mod types;

use std::str::FromStr;

use spirv::{Capability, MemoryModel, MemorySemantics};

use super::lexer::{tokenize, Pos, Tok, Token};
use crate::entity::EntityRef;
use crate::module::{Func, Module};
use crate::ops::{scope_from_name, SEMANTICS_NAMES};

/// A text-form syntax error with its position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{pos}: {message}")]
pub struct ParseError {
    /// Where the problem is.
    pub pos: Pos,
    /// What is wrong.
    pub message: String,
}

type PResult<T> = Result<T, ParseError>;

fn err<T>(pos: Pos, message: impl Into<String>) -> PResult<T> {
    Err(ParseError {
        pos,
        message: message.into(),
    })
}

/// Parses a module from its text form.
pub fn parse(text: &str) -> Result<Module, ParseError> {
    let toks = tokenize(text).map_err(|(pos, message)| ParseError { pos, message })?;
    let mut p = Parser {
        toks,
        i: 0,
        module: Module {
            capabilities: Vec::new(),
            ..Module::default()
        },
        func_refs: Vec::new(),
    };
    p.module()?;
    Ok(p.module)
}

/// One item of a bracketed attribute or immediate list: its tokens.
struct Item {
    pos: Pos,
    toks: Vec<Token>,
}

impl Item {
    fn word(&self) -> Option<&str> {
        match self.toks.first().map(|t| &t.tok) {
            Some(Tok::Ident(s)) => Some(s),
            _ => None,
        }
    }
}

struct Parser {
    toks: Vec<Token>,
    i: usize,
    module: Module,
    /// Functions named before they are defined, with where they were named.
    func_refs: Vec<(Func, Pos)>,
}

/// The largest entity index the text form accepts, plus one. A function's values and blocks
/// live in dense tables indexed by their number, so a name like `v4294967294` would make the
/// parser allocate tables of billions of entries (an abort, not an error); 2^22 leaves room
/// for functions far larger than any pass makes (the 100k-instruction lowering benchmark
/// numbers below 2^20) while bounding a table at a few hundred MiB.
pub const TEXT_INDEX_LIMIT: u32 = 1 << 22;

/// The entity index of a name like `v12` with the given prefix (`None` for other names and
/// for indices at or above [`TEXT_INDEX_LIMIT`]).
fn entity_index(name: &str, prefix: &str) -> Option<u32> {
    entity_digits(name, prefix)?
        .parse()
        .ok()
        .filter(|&n| n < TEXT_INDEX_LIMIT)
}

/// The digits of a name like `v12` with the given prefix, whatever their value.
fn entity_digits<'a>(name: &'a str, prefix: &str) -> Option<&'a str> {
    let digits = name.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return None;
    }
    Some(digits)
}

/// The error for a name that has an entity's form but too large an index, if `name` is one.
fn index_over_limit(name: &str, prefix: &str, pos: Pos) -> PResult<()> {
    if entity_digits(name, prefix).is_some() && entity_index(name, prefix).is_none() {
        return err(
            pos,
            format!("`{name}`: entity indices in the text form must be below {TEXT_INDEX_LIMIT}"),
        );
    }
    Ok(())
}

impl Parser {
    fn peek(&self) -> &Token {
        &self.toks[self.i]
    }

    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.i + k).min(self.toks.len() - 1)].tok
    }

    fn pos(&self) -> Pos {
        self.peek().pos
    }

    fn bump(&mut self) -> Token {
        let t = self.toks[self.i].clone();
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if self.peek().tok == Tok::Punct(c) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, c: char) -> PResult<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            err(
                self.pos(),
                format!("expected `{c}`, found {}", self.peek().tok),
            )
        }
    }

    fn ident(&mut self, what: &str) -> PResult<(String, Pos)> {
        let t = self.bump();
        match t.tok {
            Tok::Ident(s) => Ok((s, t.pos)),
            other => err(t.pos, format!("expected {what}, found {other}")),
        }
    }

    fn string(&mut self) -> PResult<String> {
        let t = self.bump();
        match t.tok {
            Tok::Str(s) => Ok(s),
            other => err(t.pos, format!("expected a string, found {other}")),
        }
    }

    fn u32_lit(&mut self) -> PResult<u32> {
        let t = self.bump();
        number_u32(&t)
    }

    fn entity(&mut self, prefix: &str, what: &str) -> PResult<(u32, Pos)> {
        let (name, pos) = self.ident(what)?;
        index_over_limit(&name, prefix, pos)?;
        match entity_index(&name, prefix) {
            Some(n) => Ok((n, pos)),
            None => err(
                pos,
                format!("expected {what} (`{prefix}N`), found `{name}`"),
            ),
        }
    }

    /// The index of the entity declared next, which must be `expected` (module-level
    /// entities are declared densely, in index order, since their index is their identity).
    fn declared_in_order(
        &mut self,
        prefix: &str,
        what: &str,
        expected: usize,
    ) -> PResult<(u32, Pos)> {
        let (n, pos) = self.entity(prefix, what)?;
        if n as usize != expected {
            return err(
                pos,
                format!("declarations must be in index order: expected {prefix}{expected}, found {prefix}{n}"),
            );
        }
        Ok((n, pos))
    }

    /// `( item, item, ... )`, possibly empty.
    fn parenthesized<T>(
        &mut self,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        self.expect_punct('(')?;
        let mut items = Vec::new();
        if self.eat_punct(')') {
            return Ok(items);
        }
        loop {
            items.push(item(self)?);
            if self.eat_punct(')') {
                return Ok(items);
            }
            self.expect_punct(',')?;
        }
    }

    fn expect_arrow(&mut self) -> PResult<()> {
        if self.peek().tok != Tok::Arrow {
            return err(
                self.pos(),
                format!("expected `->`, found {}", self.peek().tok),
            );
        }
        self.bump();
        Ok(())
    }

    /// A bracketed list of items, or nothing when the next token is not `[`.
    fn items(&mut self) -> PResult<Vec<Item>> {
        if self.peek().tok != Tok::Punct('[') {
            return Ok(Vec::new());
        }
        let open = self.bump().pos;
        let mut items = Vec::new();
        let mut cur = Item {
            pos: self.pos(),
            toks: Vec::new(),
        };
        let mut depth = 0;
        loop {
            let t = self.bump();
            match t.tok {
                Tok::Eof => return err(open, "unclosed `[`"),
                Tok::Punct('[') | Tok::Punct('(') => depth += 1,
                Tok::Punct(']') if depth == 0 => {
                    if !cur.toks.is_empty() {
                        items.push(cur);
                    } else if !items.is_empty() {
                        return err(t.pos, "empty item before `]`");
                    }
                    return Ok(items);
                }
                Tok::Punct(']') | Tok::Punct(')') => depth -= 1,
                Tok::Punct(',') if depth == 0 => {
                    if cur.toks.is_empty() {
                        return err(t.pos, "empty item before `,`");
                    }
                    items.push(cur);
                    cur = Item {
                        pos: self.pos(),
                        toks: Vec::new(),
                    };
                    continue;
                }
                _ => {}
            }
            if cur.toks.is_empty() {
                cur.pos = t.pos;
            }
            cur.toks.push(t);
        }
    }

    fn module(&mut self) -> PResult<()> {
        loop {
            let (kw, pos) = match &self.peek().tok {
                Tok::Eof => break,
                Tok::Ident(s) => (s.clone(), self.pos()),
                other => return err(self.pos(), format!("expected a declaration, found {other}")),
            };
            self.bump();
            match kw.as_str() {
                "spirv" => {
                    let t = self.bump();
                    let Tok::Number(v) = &t.tok else {
                        return err(t.pos, "expected a version like `1.3`");
                    };
                    let parsed = v
                        .split_once('.')
                        .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)));
                    match parsed {
                        Some(ver) => self.module.version = ver,
                        None => return err(t.pos, format!("bad SPIR-V version `{v}`")),
                    }
                }
                "memory_model" => {
                    let (name, pos) = self.ident("a memory model")?;
                    self.module.memory_model =
                        enum_named::<MemoryModel>(&name, pos, "memory model")?;
                }
                "capability" => {
                    let (name, pos) = self.ident("a capability")?;
                    let cap = enum_named::<Capability>(&name, pos, "capability")?;
                    self.module.capabilities.push(cap);
                }
                "extension" => {
                    let s = self.string()?;
                    self.module.extensions.push(s);
                }
                "type" => self.type_decl()?,
                "const" => self.const_decl(false)?,
                "spec_const" => self.const_decl(true)?,
                "global" => self.global_decl()?,
                "entry" => self.entry_decl()?,
                "fn" => self.function()?,
                other => return err(pos, format!("unknown declaration `{other}`")),
            }
        }
        let nfuncs = self.module.funcs.len();
        for (f, pos) in &self.func_refs {
            if f.index() >= nfuncs {
                return err(*pos, format!("function {f} is never defined"));
            }
        }
        Ok(())
    }
}

fn enum_named<T: FromStr>(name: &str, pos: Pos, what: &str) -> PResult<T> {
    T::from_str(name).or_else(|_| err(pos, format!("unknown {what} `{name}`")))
}

fn number_u32(t: &Token) -> PResult<u32> {
    match &t.tok {
        Tok::Number(s) => parse_uint(s)
            .and_then(|v| u32::try_from(v).ok())
            .map_or_else(
                || {
                    err(
                        t.pos,
                        format!("expected a 32-bit unsigned number, found `{s}`"),
                    )
                },
                Ok,
            ),
        other => err(t.pos, format!("expected a number, found {other}")),
    }
}

fn parse_uint(s: &str) -> Option<u64> {
    if let Some(hex) = s.strip_prefix("0x") {
        u64::from_str_radix(hex, 16).ok()
    } else {
        s.parse().ok()
    }
}

/// The number at token `k` of an item whose words before it are its keyword.
fn item_u32(item: &Item, k: usize) -> PResult<u32> {
    match item.toks.get(k) {
        Some(t) => number_u32(t),
        None => err(item.pos, "expected a number"),
    }
}

fn item_string(item: &Item) -> PResult<String> {
    match item.toks.get(1).map(|t| &t.tok) {
        Some(Tok::Str(s)) if item.toks.len() == 2 => Ok(s.clone()),
        _ => err(item.pos, "expected `name \"...\"`"),
    }
}

fn item_enum<T: FromStr>(item: &Item, what: &str) -> PResult<T> {
    let pos = item.toks.get(1).map_or(item.pos, |t| t.pos);
    match item.toks.get(1).map(|t| &t.tok) {
        Some(Tok::Ident(s)) if item.toks.len() == 2 => enum_named(s, pos, what),
        Some(Tok::Ident(_)) | None if item.toks.len() == 1 => {
            // A bare word: the item itself is the enumerant (e.g. `[Function]`).
            match item.word() {
                Some(w) => enum_named(w, item.pos, what),
                None => err(pos, format!("expected a {what}")),
            }
        }
        _ => err(pos, format!("expected a {what}")),
    }
}

fn item_scope(item: &Item) -> PResult<spirv::Scope> {
    match (item.word().and_then(scope_from_name), item.toks.len()) {
        (Some(s), 1) => Ok(s),
        _ => err(
            item.pos,
            "expected a scope (subgroup, workgroup, device, ...)",
        ),
    }
}

fn item_semantics(item: &Item) -> PResult<MemorySemantics> {
    let mut sem = MemorySemantics::RELAXED;
    let mut expect_name = true;
    for t in &item.toks {
        match (&t.tok, expect_name) {
            (Tok::Ident(w), true) => {
                if w == "relaxed" && item.toks.len() == 1 {
                    return Ok(sem);
                }
                match SEMANTICS_NAMES.iter().find(|(_, n)| n == w) {
                    Some((bit, _)) => sem |= *bit,
                    None => return err(t.pos, format!("unknown memory semantics `{w}`")),
                }
            }
            (Tok::Punct('|'), false) => {}
            _ => {
                return err(
                    t.pos,
                    "expected memory semantics like `acquire_release|workgroup_memory`",
                )
            }
        }
        expect_name = !expect_name;
    }
    if expect_name {
        return err(item.pos, "memory semantics end with `|`");
    }
    Ok(sem)
}
