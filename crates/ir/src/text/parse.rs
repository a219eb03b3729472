//! Reads the text form back into a module.

use std::str::FromStr;

use spirv::{
    BuiltIn, Capability, ExecutionModel, FunctionControl, LoopControl, MemoryModel,
    MemorySemantics, SelectionControl, StorageClass,
};

use super::lexer::{tokenize, Pos, Tok, Token};
use super::print::LOOP_CONTROL_NAMES;
use crate::entity::EntityRef;
use crate::glsl::GlslOp;
use crate::module::{
    Block, BlockData, Const, ConstData, ConstValue, EntryPoint, ExecMode, Func, Function, Global,
    GlobalData, GlobalDecorations, InstData, Merge, Module, Operand, Terminator, Value, ValueData,
    ValueDef,
};
use crate::ops::{
    scope_from_name, AtomicOp, GroupOp, GroupOperation, MemAccess, Op, PlainOp, ACCESS_NAMES,
    SEMANTICS_NAMES,
};
use crate::types::{Member, MemberFlag, Type, TypeData, TypeTable};

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

/// The entity index of a name like `v12` with the given prefix.
fn entity_index(name: &str, prefix: &str) -> Option<u32> {
    let digits = name.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return None;
    }
    digits.parse().ok()
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

    fn type_ref(&mut self) -> PResult<Type> {
        let (name, pos) = self.ident("a type")?;
        if let Some(n) = entity_index(&name, Type::PREFIX) {
            let ty = Type::from_u32(n);
            if !self.module.types.contains(ty) {
                return err(pos, format!("type {ty} is not defined"));
            }
            return Ok(ty);
        }
        if name == "ptr" {
            self.expect_punct('<')?;
            let (sc, scpos) = self.ident("a storage class")?;
            let storage = enum_named::<StorageClass>(&sc, scpos, "storage class")?;
            self.expect_punct(',')?;
            let pointee = self.type_ref()?;
            self.expect_punct('>')?;
            return Ok(self
                .module
                .types
                .intern(TypeData::Pointer { storage, pointee }));
        }
        match scalar_or_vector(&mut self.module.types, &name) {
            Some(ty) => Ok(ty),
            None => err(pos, format!("unknown type `{name}`")),
        }
    }

    fn type_decl(&mut self) -> PResult<()> {
        let (n, _) =
            self.declared_in_order(Type::PREFIX, "a type name", self.module.types.len())?;
        self.expect_punct('=')?;
        let def_pos = self.pos();
        let data = match self.peek().tok.clone() {
            Tok::Ident(w) if w == "array" || w == "rtarray" => {
                self.bump();
                self.expect_punct('<')?;
                let elem = self.type_ref()?;
                let len = if w == "array" {
                    self.expect_punct(',')?;
                    Some(self.u32_lit()?)
                } else {
                    None
                };
                self.expect_punct('>')?;
                let mut stride = None;
                for item in self.items()? {
                    match item.word() {
                        Some("stride") => stride = Some(item_u32(&item, 1)?),
                        _ => return err(item.pos, "expected `stride N`"),
                    }
                }
                match len {
                    Some(len) => TypeData::Array { elem, len, stride },
                    None => TypeData::RuntimeArray { elem, stride },
                }
            }
            Tok::Ident(w) if w == "struct" => {
                self.bump();
                let name = match self.peek().tok {
                    Tok::Str(_) => Some(self.string()?),
                    _ => None,
                };
                self.expect_punct('{')?;
                let mut members = Vec::new();
                if !self.eat_punct('}') {
                    loop {
                        let ty = self.type_ref()?;
                        let mut m = Member {
                            ty,
                            offset: None,
                            flags: Vec::new(),
                            name: None,
                        };
                        for item in self.items()? {
                            match item.word() {
                                Some("offset") => m.offset = Some(item_u32(&item, 1)?),
                                Some("name") => m.name = Some(item_string(&item)?),
                                Some(w) => match MemberFlag::from_name(w) {
                                    Some(f) => m.flags.push(f),
                                    None => {
                                        return err(
                                            item.pos,
                                            format!("unknown member attribute `{w}`"),
                                        )
                                    }
                                },
                                None => return err(item.pos, "expected a member attribute"),
                            }
                        }
                        members.push(m);
                        if self.eat_punct('}') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                let (mut block, mut buffer_block) = (false, false);
                for item in self.items()? {
                    match item.word() {
                        Some("block") => block = true,
                        Some("buffer_block") => buffer_block = true,
                        _ => return err(item.pos, "expected `block` or `buffer_block`"),
                    }
                }
                TypeData::Struct {
                    members,
                    block,
                    buffer_block,
                    name,
                }
            }
            Tok::Ident(w) if w == "fn" => {
                self.bump();
                let params = self.parenthesized(Self::type_ref)?;
                self.expect_arrow()?;
                let ret = self.type_ref()?;
                TypeData::Function { ret, params }
            }
            _ => {
                let before = self.module.types.len();
                let ty = self.type_ref()?;
                if ty.index() != before {
                    return err(def_pos, format!("type t{n} repeats {ty}"));
                }
                return Ok(());
            }
        };
        if let Some(existing) = self.module.types.find(&data) {
            return err(def_pos, format!("type t{n} repeats {existing}"));
        }
        self.module.types.intern(data);
        Ok(())
    }

    fn const_ref(&mut self) -> PResult<Const> {
        let (n, pos) = self.entity(Const::PREFIX, "a constant")?;
        let c = Const::from_u32(n);
        if !self.module.consts.contains(c) {
            return err(pos, format!("constant {c} is not defined"));
        }
        Ok(c)
    }

    fn const_list(&mut self) -> PResult<Vec<Const>> {
        self.parenthesized(Self::const_ref)
    }

    fn const_decl(&mut self, spec: bool) -> PResult<()> {
        let _ =
            self.declared_in_order(Const::PREFIX, "a constant name", self.module.consts.len())?;
        let ty = self.type_ref()?;
        self.expect_punct('=')?;
        let t = self.bump();
        let value = match &t.tok {
            Tok::Ident(w) if w == "true" => ConstValue::Bool(true),
            Tok::Ident(w) if w == "false" => ConstValue::Bool(false),
            Tok::Ident(w) if w == "null" => ConstValue::Null,
            Tok::Ident(w) if w == "undef" => ConstValue::Undef,
            Tok::Ident(w) if w == "composite" => ConstValue::Composite(self.const_list()?),
            Tok::Ident(w) => {
                let op = self.op_with_immediates(w, t.pos)?;
                ConstValue::SpecOp(op, self.const_list()?)
            }
            Tok::Number(text) => match parse_scalar(&self.module.types, ty, text) {
                Ok(bits) => ConstValue::Bits(bits),
                Err(m) => return err(t.pos, m),
            },
            other => return err(t.pos, format!("expected a constant value, found {other}")),
        };
        let mut data = ConstData {
            ty,
            value,
            spec,
            spec_id: None,
            builtin: None,
            name: None,
        };
        for item in self.items()? {
            match item.word() {
                Some("spec_id") => data.spec_id = Some(item_u32(&item, 1)?),
                Some("builtin") => data.builtin = Some(item_enum::<BuiltIn>(&item, "built-in")?),
                Some("name") => data.name = Some(item_string(&item)?),
                _ => {
                    return err(
                        item.pos,
                        "expected `spec_id N`, `builtin X` or `name \"..\"`",
                    )
                }
            }
        }
        self.module.consts.push(data);
        Ok(())
    }

    fn global_decl(&mut self) -> PResult<()> {
        let _ =
            self.declared_in_order(Global::PREFIX, "a global name", self.module.globals.len())?;
        let ty_pos = self.pos();
        let ty = self.type_ref()?;
        let Some((storage, _)) = self.module.types.pointer(ty) else {
            return err(ty_pos, "a global's type must be a pointer");
        };
        let init = if self.eat_punct('=') {
            Some(self.const_ref()?)
        } else {
            None
        };
        let mut decorations = GlobalDecorations::default();
        let mut name = None;
        for item in self.items()? {
            match item.word() {
                Some("builtin") => {
                    decorations.builtin = Some(item_enum::<BuiltIn>(&item, "built-in")?)
                }
                Some("set") => decorations.set = Some(item_u32(&item, 1)?),
                Some("binding") => decorations.binding = Some(item_u32(&item, 1)?),
                Some("name") => name = Some(item_string(&item)?),
                Some(w) => match MemberFlag::from_name(w) {
                    Some(f) => decorations.flags.push(f),
                    None => return err(item.pos, format!("unknown global attribute `{w}`")),
                },
                None => return err(item.pos, "expected a global attribute"),
            }
        }
        self.module.globals.push(GlobalData {
            ty,
            storage,
            init,
            decorations,
            name,
        });
        Ok(())
    }

    fn func_ref(&mut self) -> PResult<Func> {
        let (n, pos) = self.entity(Func::PREFIX, "a function")?;
        let f = Func::from_u32(n);
        self.func_refs.push((f, pos));
        Ok(f)
    }

    fn global_ref(&mut self) -> PResult<Global> {
        let (n, pos) = self.entity(Global::PREFIX, "a global")?;
        let g = Global::from_u32(n);
        if !self.module.globals.contains(g) {
            return err(pos, format!("global {g} is not defined"));
        }
        Ok(g)
    }

    fn entry_decl(&mut self) -> PResult<()> {
        let (m, mpos) = self.ident("an execution model")?;
        let model = enum_named::<ExecutionModel>(&m, mpos, "execution model")?;
        let name = self.string()?;
        let func = self.func_ref()?;
        let interface = self.parenthesized(Self::global_ref)?;
        let mut modes = Vec::new();
        for item in self.items()? {
            let mode = match item.word() {
                Some("local_size") => ExecMode::LocalSize([
                    item_u32(&item, 1)?,
                    item_u32(&item, 2)?,
                    item_u32(&item, 3)?,
                ]),
                Some("local_size_id") => {
                    let mut cs = [Const::from_u32(0); 3];
                    for (k, c) in cs.iter_mut().enumerate() {
                        let t = item.toks.get(k + 1).ok_or(ParseError {
                            pos: item.pos,
                            message: "`local_size_id` takes three constants".into(),
                        })?;
                        let id = match &t.tok {
                            Tok::Ident(s) => entity_index(s, Const::PREFIX),
                            _ => None,
                        };
                        match id.map(Const::from_u32) {
                            Some(x) if self.module.consts.contains(x) => *c = x,
                            _ => return err(t.pos, "expected a defined constant"),
                        }
                    }
                    ExecMode::LocalSizeId(cs)
                }
                Some("maximally_reconverges") => ExecMode::MaximallyReconverges,
                Some("subgroup_uniform_control_flow") => ExecMode::SubgroupUniformControlFlow,
                _ => return err(item.pos, "unknown execution mode"),
            };
            modes.push(mode);
        }
        self.module.entry_points.push(EntryPoint {
            model,
            name,
            func,
            interface,
            modes,
        });
        Ok(())
    }

    fn function(&mut self) -> PResult<()> {
        let _ = self.declared_in_order(Func::PREFIX, "a function name", self.module.funcs.len())?;
        let name = match self.peek().tok {
            Tok::Str(_) => Some(self.string()?),
            _ => None,
        };
        let mut body = Body::default();
        let void = self.module.types.void();
        let mut func = Function::new(name, void);
        let params = self.parenthesized(|p| {
            let (v, vpos) = p.entity(Value::PREFIX, "a parameter")?;
            p.expect_punct(':')?;
            Ok((Value::from_u32(v), vpos, p.type_ref()?))
        })?;
        for (value, vpos, ty) in params {
            let index = func.params.len() as u32;
            body.define_value(&mut func, value, vpos, ty, ValueDef::Param(index))?;
            func.params.push(value);
        }
        self.expect_arrow()?;
        func.ret = self.type_ref()?;
        for item in self.items()? {
            let word = item.word().unwrap_or("");
            match FunctionControl::from_name(&word.to_ascii_uppercase()) {
                Some(c) if !word.is_empty() => func.control |= c,
                _ => return err(item.pos, format!("unknown function control `{word}`")),
            }
        }
        self.expect_punct('{')?;
        let mut current: Option<Block> = None;
        loop {
            let t = self.peek().clone();
            match &t.tok {
                Tok::Punct('}') => {
                    self.bump();
                    if let Some(b) = current {
                        return err(t.pos, format!("block {b} has no terminator"));
                    }
                    break;
                }
                Tok::Ident(w)
                    if entity_index(w, Block::PREFIX).is_some()
                        && *self.peek_at(1) == Tok::Punct(':') =>
                {
                    if let Some(b) = current {
                        return err(t.pos, format!("block {b} has no terminator"));
                    }
                    let b = Block::from_u32(entity_index(w, Block::PREFIX).unwrap_or(0));
                    self.bump();
                    self.bump();
                    body.define_block(&mut func, b, t.pos)?;
                    current = Some(b);
                }
                Tok::Eof => return err(t.pos, "unexpected end of input in function body"),
                _ => {
                    let Some(b) = current else {
                        return err(t.pos, "expected a block label like `b0:`");
                    };
                    if self.statement(&mut func, &mut body, b)? {
                        current = None;
                    }
                }
            }
        }
        body.finish(&func)?;
        self.module.funcs.push(func);
        Ok(())
    }

    /// Parses one statement of block `b`; returns whether it was the terminator.
    fn statement(&mut self, func: &mut Function, body: &mut Body, b: Block) -> PResult<bool> {
        let t = self.bump();
        let Tok::Ident(word) = &t.tok else {
            return err(t.pos, format!("expected an instruction, found {}", t.tok));
        };
        // Results first: `vN = op ...`.
        if let Some(n) = entity_index(word, Value::PREFIX) {
            self.expect_punct('=')?;
            let (mn, mpos) = self.ident("an operation")?;
            let op = self.op_with_immediates(&mn, mpos)?;
            if !op.has_result() {
                return err(mpos, format!("`{mn}` has no result"));
            }
            let ty = self.type_ref()?;
            let args = self.operands(func, body, &op)?;
            let value = Value::from_u32(n);
            let inst = func.insts.push(InstData {
                op,
                args,
                result: Some(value),
            });
            body.define_value(func, value, t.pos, ty, ValueDef::Inst(inst))?;
            func.blocks[b].insts.push(inst);
            return Ok(false);
        }
        let term = match word.as_str() {
            "selection_merge" => {
                let merge = body.block_ref(self, func)?;
                let mut control = SelectionControl::NONE;
                for item in self.items()? {
                    match item.word() {
                        Some("flatten") => control |= SelectionControl::FLATTEN,
                        Some("dont_flatten") => control |= SelectionControl::DONT_FLATTEN,
                        _ => return err(item.pos, "unknown selection control"),
                    }
                }
                self.set_merge(func, b, t.pos, Merge::Selection { merge, control })?;
                return Ok(false);
            }
            "loop_merge" => {
                let merge = body.block_ref(self, func)?;
                self.expect_punct(',')?;
                let continue_target = body.block_ref(self, func)?;
                let mut control = LoopControl::NONE;
                let mut params = [0u32; 6];
                for item in self.items()? {
                    let param = crate::module::LOOP_PARAMS
                        .iter()
                        .position(|(_, n)| Some(*n) == item.word());
                    if let Some(k) = param {
                        control |= crate::module::LOOP_PARAMS[k].0;
                        params[k] = item_u32(&item, 1)?;
                        continue;
                    }
                    match LOOP_CONTROL_NAMES
                        .iter()
                        .find(|(_, n)| Some(*n) == item.word())
                    {
                        Some((bit, _)) => control |= *bit,
                        None => return err(item.pos, "unknown loop control"),
                    }
                }
                self.set_merge(
                    func,
                    b,
                    t.pos,
                    Merge::Loop {
                        merge,
                        continue_target,
                        control,
                        params,
                    },
                )?;
                return Ok(false);
            }
            "br" => Terminator::Branch(body.block_ref(self, func)?),
            "br_if" => {
                let cond = self.operand(func, body)?;
                self.expect_punct(',')?;
                let if_true = body.block_ref(self, func)?;
                self.expect_punct(',')?;
                let if_false = body.block_ref(self, func)?;
                Terminator::CondBranch {
                    cond,
                    if_true,
                    if_false,
                }
            }
            "switch" => {
                let sel_pos = self.pos();
                let selector = self.operand(func, body)?;
                self.expect_punct(',')?;
                let default = body.block_ref(self, func)?;
                let sel_ty = body.operand_type(&self.module, func, selector);
                let mut cases = Vec::new();
                for item in self.items()? {
                    let (Some(lit), Some(Tok::Punct(':')), Some(target), 3) = (
                        item.toks.first(),
                        item.toks.get(1).map(|t| &t.tok),
                        item.toks.get(2),
                        item.toks.len(),
                    ) else {
                        return err(item.pos, "expected `literal: bN`");
                    };
                    let Tok::Number(text) = &lit.tok else {
                        return err(lit.pos, "expected a case literal");
                    };
                    let Some(ty) = sel_ty else {
                        return err(
                            sel_pos,
                            "the selector's type must be known before its cases",
                        );
                    };
                    let bits =
                        parse_scalar(&self.module.types, ty, text).or_else(|m| err(lit.pos, m))?;
                    let tb = match &target.tok {
                        Tok::Ident(s) => entity_index(s, Block::PREFIX),
                        _ => None,
                    };
                    let Some(tb) = tb else {
                        return err(target.pos, "expected a block");
                    };
                    let tb = Block::from_u32(tb);
                    body.use_block(func, tb, target.pos);
                    cases.push((bits, tb));
                }
                Terminator::Switch {
                    selector,
                    default,
                    cases,
                }
            }
            "return" => {
                let value_follows = matches!(&self.peek().tok, Tok::Ident(s)
                    if (entity_index(s, Value::PREFIX).is_some()
                        || entity_index(s, Const::PREFIX).is_some()
                        || entity_index(s, Global::PREFIX).is_some())
                        && *self.peek_at(1) != Tok::Punct('='));
                if value_follows {
                    Terminator::ReturnValue(self.operand(func, body)?)
                } else {
                    Terminator::Return
                }
            }
            "unreachable" => Terminator::Unreachable,
            "kill" => Terminator::Kill,
            "terminate" => Terminator::TerminateInvocation,
            mn => {
                let op = self.op_with_immediates(mn, t.pos)?;
                if op.has_result() {
                    return err(t.pos, format!("`{mn}` needs a result: `vN = {mn} ...`"));
                }
                let args = self.operands(func, body, &op)?;
                func.insts.push(InstData {
                    op,
                    args,
                    result: None,
                });
                let inst = crate::module::Inst::new(func.insts.len() - 1);
                func.blocks[b].insts.push(inst);
                return Ok(false);
            }
        };
        func.blocks[b].term = term;
        Ok(true)
    }

    fn set_merge(&mut self, func: &mut Function, b: Block, pos: Pos, merge: Merge) -> PResult<()> {
        if func.blocks[b].merge.is_some() {
            return err(pos, format!("block {b} already has a merge annotation"));
        }
        if self.peek_is_statement_start() {
            func.blocks[b].merge = Some(merge);
            Ok(())
        } else {
            err(
                self.pos(),
                "expected the terminator after a merge annotation",
            )
        }
    }

    fn peek_is_statement_start(&self) -> bool {
        matches!(&self.peek().tok, Tok::Ident(s) if matches!(s.as_str(), "br" | "br_if" | "switch"))
    }

    /// Parses an operation mnemonic and its bracketed immediates.
    fn op_with_immediates(&mut self, mn: &str, pos: Pos) -> PResult<Op> {
        let items = self.items()?;
        let none = |items: &[Item]| -> PResult<()> {
            match items.first() {
                Some(i) => err(i.pos, format!("`{mn}` takes no immediates")),
                None => Ok(()),
            }
        };
        let u32_list = |items: &[Item]| -> PResult<Vec<u32>> {
            items.iter().map(|i| item_u32(i, 0)).collect()
        };
        if let Some(p) = PlainOp::from_name(mn) {
            none(&items)?;
            return Ok(Op::Plain(p));
        }
        if let Some(a) = AtomicOp::from_name(mn) {
            let want = if a == AtomicOp::CompareExchange { 3 } else { 2 };
            if items.len() != want {
                return err(
                    pos,
                    format!(
                        "`{mn}` takes [scope, semantics{}]",
                        if want == 3 { ", unequal semantics" } else { "" }
                    ),
                );
            }
            return Ok(Op::Atomic {
                op: a,
                scope: item_scope(&items[0])?,
                semantics: item_semantics(&items[1])?,
                unequal: if want == 3 {
                    item_semantics(&items[2])?
                } else {
                    MemorySemantics::RELAXED
                },
            });
        }
        if let Some(g) = GroupOp::from_name(mn) {
            let Some(first) = items.first() else {
                return err(
                    pos,
                    format!(
                        "`{mn}` takes [scope{}]",
                        if g.takes_group_operation() {
                            ", group operation"
                        } else {
                            ""
                        }
                    ),
                );
            };
            let scope = item_scope(first)?;
            let group = if g.takes_group_operation() {
                let Some(item) = items.get(1) else {
                    return err(pos, format!("`{mn}` needs a group operation"));
                };
                match item.word().and_then(GroupOperation::from_name) {
                    Some(go) => Some(go),
                    None => return err(item.pos, "unknown group operation"),
                }
            } else {
                None
            };
            let expected = 1 + usize::from(group.is_some());
            if items.len() != expected {
                return err(
                    items[expected.min(items.len() - 1)].pos,
                    "too many immediates",
                );
            }
            return Ok(Op::Group {
                op: g,
                scope,
                group,
            });
        }
        Ok(match mn {
            "composite_extract" => Op::CompositeExtract(u32_list(&items)?),
            "composite_insert" => Op::CompositeInsert(u32_list(&items)?),
            "vector_shuffle" => Op::VectorShuffle(u32_list(&items)?),
            "array_length" => match items.as_slice() {
                [i] => Op::ArrayLength(item_u32(i, 0)?),
                _ => return err(pos, "`array_length` takes [member]"),
            },
            "load" | "store" => {
                let mut a = MemAccess::default();
                for item in &items {
                    match item.word() {
                        Some("aligned") => a.aligned = Some(item_u32(item, 1)?),
                        Some(w) => match ACCESS_NAMES.iter().find(|(_, n)| *n == w) {
                            Some((bit, _)) => a.flags |= *bit,
                            None => return err(item.pos, format!("unknown memory access `{w}`")),
                        },
                        None => return err(item.pos, "expected a memory access flag"),
                    }
                }
                if mn == "load" {
                    Op::Load(a)
                } else {
                    Op::Store(a)
                }
            }
            "variable" => match items.as_slice() {
                [i] => Op::Variable(item_enum::<StorageClass>(i, "storage class")?),
                _ => return err(pos, "`variable` takes [StorageClass]"),
            },
            "call" => match items.as_slice() {
                [i] => {
                    let f = match i.word().and_then(|w| entity_index(w, Func::PREFIX)) {
                        Some(n) => Func::from_u32(n),
                        None => return err(i.pos, "expected a function"),
                    };
                    self.func_refs.push((f, i.pos));
                    Op::Call(f)
                }
                _ => return err(pos, "`call` takes [fN]"),
            },
            "glsl" => match items.as_slice() {
                [i] => match i.word().and_then(GlslOp::from_name) {
                    Some(g) => Op::Glsl(g),
                    None => return err(i.pos, "unknown GLSL.std.450 instruction"),
                },
                _ => return err(pos, "`glsl` takes [Name]"),
            },
            "phi" => {
                none(&items)?;
                Op::Phi(Vec::new())
            }
            "control_barrier" => match items.as_slice() {
                [e, m, s] => Op::ControlBarrier {
                    exec: item_scope(e)?,
                    memory: item_scope(m)?,
                    semantics: item_semantics(s)?,
                },
                _ => {
                    return err(
                        pos,
                        "`control_barrier` takes [exec scope, memory scope, semantics]",
                    )
                }
            },
            "memory_barrier" => match items.as_slice() {
                [m, s] => Op::MemoryBarrier {
                    memory: item_scope(m)?,
                    semantics: item_semantics(s)?,
                },
                _ => return err(pos, "`memory_barrier` takes [memory scope, semantics]"),
            },
            _ => return err(pos, format!("unknown operation `{mn}`")),
        })
    }

    fn operand(&mut self, func: &mut Function, body: &mut Body) -> PResult<Operand> {
        let (name, pos) = self.ident("an operand")?;
        if let Some(n) = entity_index(&name, Value::PREFIX) {
            let v = Value::from_u32(n);
            body.use_value(func, v, pos);
            return Ok(Operand::Value(v));
        }
        if let Some(n) = entity_index(&name, Const::PREFIX) {
            let c = Const::from_u32(n);
            if !self.module.consts.contains(c) {
                return err(pos, format!("constant {c} is not defined"));
            }
            return Ok(Operand::Const(c));
        }
        if let Some(n) = entity_index(&name, Global::PREFIX) {
            let g = Global::from_u32(n);
            if !self.module.globals.contains(g) {
                return err(pos, format!("global {g} is not defined"));
            }
            return Ok(Operand::Global(g));
        }
        err(
            pos,
            format!("expected an operand (vN, cN or gN), found `{name}`"),
        )
    }

    fn operand_follows(&self) -> bool {
        matches!(&self.peek().tok, Tok::Ident(s)
            if (entity_index(s, Value::PREFIX).is_some()
                || entity_index(s, Const::PREFIX).is_some()
                || entity_index(s, Global::PREFIX).is_some())
                && *self.peek_at(1) != Tok::Punct('=')
                && *self.peek_at(1) != Tok::Punct(':'))
    }

    /// The operand list of an instruction (phis take `[operand, block]` pairs).
    fn operands(&mut self, func: &mut Function, body: &mut Body, op: &Op) -> PResult<Vec<Operand>> {
        let mut args = Vec::new();
        if let Op::Phi(_) = op {
            let mut blocks = Vec::new();
            loop {
                self.expect_punct('[')?;
                args.push(self.operand(func, body)?);
                self.expect_punct(',')?;
                blocks.push(body.block_ref(self, func)?);
                self.expect_punct(']')?;
                if !self.eat_punct(',') {
                    break;
                }
            }
            body.pending_phi_blocks = Some(blocks);
            return Ok(args);
        }
        if !self.operand_follows() {
            return Ok(args);
        }
        loop {
            args.push(self.operand(func, body)?);
            if !self.eat_punct(',') {
                break;
            }
        }
        Ok(args)
    }
}

/// Definitions and uses of values and blocks within one function body.
#[derive(Default)]
struct Body {
    value_uses: Vec<(Value, Pos)>,
    block_uses: Vec<(Block, Pos)>,
    defined_blocks: std::collections::HashSet<Block>,
    pending_phi_blocks: Option<Vec<Block>>,
}

impl Body {
    fn placeholder() -> ValueData {
        ValueData {
            ty: Type::from_u32(0),
            def: ValueDef::Unused,
        }
    }

    fn define_value(
        &mut self,
        func: &mut Function,
        v: Value,
        pos: Pos,
        ty: Type,
        def: ValueDef,
    ) -> PResult<()> {
        func.values.ensure(v, Self::placeholder());
        if func.values[v].def != ValueDef::Unused {
            return err(pos, format!("value {v} is defined twice"));
        }
        func.values[v] = ValueData { ty, def };
        if let (ValueDef::Inst(i), Some(blocks)) = (def, self.pending_phi_blocks.take()) {
            func.insts[i].op = Op::Phi(blocks);
        }
        Ok(())
    }

    fn use_value(&mut self, func: &mut Function, v: Value, pos: Pos) {
        func.values.ensure(v, Self::placeholder());
        self.value_uses.push((v, pos));
    }

    fn define_block(&mut self, func: &mut Function, b: Block, pos: Pos) -> PResult<()> {
        func.blocks.ensure(b, BlockData::default());
        if !self.defined_blocks.insert(b) {
            return err(pos, format!("block {b} is defined twice"));
        }
        func.layout.push(b);
        Ok(())
    }

    fn use_block(&mut self, func: &mut Function, b: Block, pos: Pos) {
        func.blocks.ensure(b, BlockData::default());
        self.block_uses.push((b, pos));
    }

    fn block_ref(&mut self, p: &mut Parser, func: &mut Function) -> PResult<Block> {
        let (n, pos) = p.entity(Block::PREFIX, "a block")?;
        let b = Block::from_u32(n);
        self.use_block(func, b, pos);
        Ok(b)
    }

    fn operand_type(&self, module: &Module, func: &Function, op: Operand) -> Option<Type> {
        match op {
            Operand::Value(v) => {
                let d = func.values.get(v)?;
                (d.def != ValueDef::Unused).then_some(d.ty)
            }
            other => Some(module.operand_type(func, other)),
        }
    }

    fn finish(&self, func: &Function) -> PResult<()> {
        for (v, pos) in &self.value_uses {
            if func.values[*v].def == ValueDef::Unused {
                return err(*pos, format!("value {v} is never defined"));
            }
        }
        for (b, pos) in &self.block_uses {
            if !self.defined_blocks.contains(b) {
                return err(*pos, format!("block {b} is never defined"));
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

/// A scalar (`u32`, `f16`, `bool`, ...) or vector (`u32x4`) type by name.
fn scalar_or_vector(types: &mut TypeTable, name: &str) -> Option<Type> {
    let (scalar, count) = match name.rsplit_once('x') {
        Some((s, n)) if !s.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && !n.is_empty() => {
            (s, Some(n.parse::<u8>().ok()?))
        }
        _ => (name, None),
    };
    let data = match scalar {
        "void" if count.is_none() => TypeData::Void,
        "bool" => TypeData::Bool,
        _ => {
            let (kind, width) = scalar.split_at(1);
            let width: u8 = width.parse().ok()?;
            match kind {
                "i" | "u" if matches!(width, 8 | 16 | 32 | 64) => TypeData::Int {
                    width,
                    signed: kind == "i",
                },
                "f" if matches!(width, 16 | 32 | 64) => TypeData::Float { width },
                _ => return None,
            }
        }
    };
    let elem = types.intern(data);
    match count {
        None => Some(elem),
        Some(count) if (2..=16).contains(&count) => {
            Some(types.intern(TypeData::Vector { elem, count }))
        }
        Some(_) => None,
    }
}

/// Parses a scalar literal of type `ty` into its zero-extended bit pattern.
pub(crate) fn parse_scalar(types: &TypeTable, ty: Type, text: &str) -> Result<u64, String> {
    let scalar = types.scalar_of(ty);
    match types.get(scalar) {
        TypeData::Int { width, signed } => {
            let w = u32::from(*width);
            let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            let (neg, digits) = match text.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, text),
            };
            let magnitude = parse_uint(digits).ok_or_else(|| format!("bad integer `{text}`"))?;
            if neg {
                let limit = 1u128 << (w - 1);
                if !*signed || u128::from(magnitude) > limit {
                    return Err(format!(
                        "`{text}` does not fit in {}",
                        type_name(types, scalar)
                    ));
                }
                Ok((magnitude as i64).wrapping_neg() as u64 & mask)
            } else {
                let fits = if *signed && !digits.starts_with("0x") {
                    u128::from(magnitude) < (1u128 << (w - 1))
                } else {
                    magnitude & !mask == 0
                };
                if !fits {
                    return Err(format!(
                        "`{text}` does not fit in {}",
                        type_name(types, scalar)
                    ));
                }
                Ok(magnitude)
            }
        }
        TypeData::Float { width } => {
            if let Some(hex) = text.strip_prefix("0x") {
                let bits =
                    u64::from_str_radix(hex, 16).map_err(|_| format!("bad float bits `{text}`"))?;
                if *width < 64 && bits >> width != 0 {
                    return Err(format!("`{text}` has more than {width} bits"));
                }
                return Ok(bits);
            }
            match width {
                32 => text
                    .parse::<f32>()
                    .map(|f| u64::from(f.to_bits()))
                    .map_err(|_| format!("bad float `{text}`")),
                64 => text
                    .parse::<f64>()
                    .map(f64::to_bits)
                    .map_err(|_| format!("bad float `{text}`")),
                _ => Err(format!(
                    "f{width} literals are written as raw bits (`0x...`)"
                )),
            }
        }
        _ => Err(format!("{} has no numeric literals", type_name(types, ty))),
    }
}

fn type_name(types: &TypeTable, ty: Type) -> String {
    super::print::type_ref(types, ty)
}
