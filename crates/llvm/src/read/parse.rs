//! LLVM IR text to a syntax tree: the module's items and, for each function, its blocks and
//! instructions with operands still named. Anything outside the subset is an error at its
//! position; metadata, linkage, parameter attributes and alignment are skipped.

use super::lexer::{Pos, Tok, Token};
use super::ReadError;

pub use super::ast::*;

pub(super) struct Parser {
    toks: Vec<Token>,
    at: usize,
}

type R<T> = Result<T, ReadError>;

impl Parser {
    pub(super) fn new(toks: Vec<Token>) -> Self {
        Parser { toks, at: 0 }
    }

    fn peek(&self) -> &Tok {
        &self.toks[self.at].tok
    }

    fn peek_at(&self, n: usize) -> &Tok {
        &self.toks[(self.at + n).min(self.toks.len() - 1)].tok
    }

    fn pos(&self) -> Pos {
        self.toks[self.at].pos
    }

    fn bump(&mut self) -> Token {
        let t = self.toks[self.at].clone();
        if self.at + 1 < self.toks.len() {
            self.at += 1;
        }
        t
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Word(x) if x == w)
    }

    fn eat_word(&mut self, w: &str) -> bool {
        let yes = self.is_word(w);
        if yes {
            self.bump();
        }
        yes
    }

    fn eat_punct(&mut self, c: char) -> bool {
        let yes = *self.peek() == Tok::Punct(c);
        if yes {
            self.bump();
        }
        yes
    }

    fn expect_punct(&mut self, c: char) -> R<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("`{c}`")))
        }
    }

    fn expect_word(&mut self, w: &str) -> R<()> {
        if self.eat_word(w) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("`{w}`")))
        }
    }

    fn unexpected(&self, want: &str) -> ReadError {
        ReadError::at(
            self.pos(),
            format!("expected {want}, found {}", describe(self.peek())),
        )
    }

    fn local(&mut self) -> R<String> {
        match self.bump() {
            Token {
                tok: Tok::Local(n), ..
            } => Ok(n),
            t => Err(ReadError::at(
                t.pos,
                format!("expected a `%` name, found {}", describe(&t.tok)),
            )),
        }
    }

    /// Skips the rest of the line the previous token is on.
    fn skip_line(&mut self) {
        let line = self.toks[self.at.saturating_sub(1)].pos.line;
        while self.peek() != &Tok::Eof && self.pos().line == line {
            self.bump();
        }
    }

    pub(super) fn module(&mut self) -> R<ModuleAst> {
        let mut m = ModuleAst::default();
        loop {
            let pos = self.pos();
            match self.peek().clone() {
                Tok::Eof => return Ok(m),
                Tok::Word(w) if w == "source_filename" || w == "target" => {
                    self.bump();
                    self.skip_line();
                }
                Tok::Meta(_) => {
                    self.bump();
                    self.skip_line();
                }
                Tok::Word(w) if w == "attributes" => {
                    self.bump();
                    let Tok::AttrGroup(n) = self.bump().tok else {
                        return Err(ReadError::at(pos, "expected `#N` after `attributes`"));
                    };
                    self.expect_punct('=')?;
                    self.expect_punct('{')?;
                    let mut words = Vec::new();
                    while !self.eat_punct('}') {
                        match self.bump().tok {
                            Tok::Word(w) => words.push(w),
                            Tok::Eof => {
                                return Err(ReadError::at(pos, "unterminated attribute group"))
                            }
                            _ => {}
                        }
                    }
                    m.groups.insert(n, words);
                }
                Tok::Word(w) if w == "declare" || w == "define" => {
                    self.bump();
                    m.funcs.push(self.function(w == "define")?);
                }
                Tok::Global(name) => {
                    self.bump();
                    self.expect_punct('=')?;
                    m.globals.push(self.global(name, pos)?);
                }
                Tok::Local(_) => {
                    return Err(ReadError::at(
                        pos,
                        "named types are outside tangle's LLVM IR subset",
                    ))
                }
                other => {
                    return Err(ReadError::at(
                        pos,
                        format!("expected a declaration, found {}", describe(&other)),
                    ))
                }
            }
        }
    }

    fn global(&mut self, name: String, pos: Pos) -> R<GlobalAst> {
        let mut external = false;
        while !self.is_word("global") && !self.is_word("constant") {
            match self.bump().tok {
                Tok::Word(w) if w == "external" => external = true,
                Tok::Word(_) => {}
                other => {
                    return Err(ReadError::at(
                        pos,
                        format!("expected `global`, found {}", describe(&other)),
                    ))
                }
            }
        }
        self.bump();
        let ty = self.ty()?;
        let init = if external {
            None
        } else {
            let vpos = self.pos();
            Some(Operand {
                val: self.value(&ty)?,
                ty: ty.clone(),
                pos: vpos,
            })
        };
        self.skip_attachments();
        Ok(GlobalAst {
            name,
            ty,
            init,
            pos,
        })
    }

    fn starts_type(&self) -> bool {
        match self.peek() {
            Tok::Word(w) => {
                matches!(
                    w.as_str(),
                    "void" | "half" | "float" | "double" | "ptr" | "token" | "label"
                ) || (w.starts_with('i')
                    && w.len() > 1
                    && w[1..].chars().all(|c| c.is_ascii_digit()))
            }
            Tok::Punct('<') | Tok::Punct('[') | Tok::Punct('{') => true,
            _ => false,
        }
    }

    pub(super) fn ty(&mut self) -> R<LlType> {
        let pos = self.pos();
        let t = self.bump();
        let ty = match &t.tok {
            Tok::Word(w) => match w.as_str() {
                "void" => LlType::Void,
                "half" => LlType::Float(16),
                "float" => LlType::Float(32),
                "double" => LlType::Float(64),
                "ptr" => LlType::Ptr,
                "token" => LlType::Token,
                "label" => LlType::Label,
                w if w.starts_with('i') => {
                    let n: u32 = w[1..]
                        .parse()
                        .map_err(|_| ReadError::at(pos, format!("unknown type `{w}`")))?;
                    LlType::Int(n)
                }
                w => return Err(ReadError::at(pos, format!("unknown type `{w}`"))),
            },
            Tok::Punct('<') => {
                let Tok::Int(n) = self.bump().tok else {
                    return Err(ReadError::at(pos, "expected a vector length"));
                };
                self.expect_word("x")?;
                let elem = self.ty()?;
                self.expect_punct('>')?;
                LlType::Vector(n as u32, Box::new(elem))
            }
            other => {
                return Err(ReadError::at(
                    pos,
                    format!(
                        "expected a type of tangle's LLVM IR subset, found {}",
                        describe(other)
                    ),
                ))
            }
        };
        if *self.peek() == Tok::Punct('*') {
            return Err(ReadError::at(
                self.pos(),
                "typed pointers are outside the subset: use `ptr`",
            ));
        }
        if self.is_word("addrspace") {
            self.bump();
            self.expect_punct('(')?;
            self.bump();
            self.expect_punct(')')?;
        }
        Ok(ty)
    }

    fn value(&mut self, ty: &LlType) -> R<LlValue> {
        let t = self.bump();
        Ok(match t.tok {
            Tok::Local(n) => LlValue::Local(n),
            Tok::Global(n) => LlValue::Global(n),
            Tok::Int(i) => LlValue::Int(i),
            Tok::Float(f) => LlValue::Float(f),
            Tok::Word(w) => match w.as_str() {
                "true" => LlValue::Bool(true),
                "false" => LlValue::Bool(false),
                "undef" => LlValue::Undef,
                "poison" => LlValue::Poison,
                "null" | "zeroinitializer" | "none" => LlValue::Zero,
                _ => {
                    return Err(ReadError::at(
                        t.pos,
                        format!("expected a value, found `{w}`"),
                    ))
                }
            },
            Tok::Punct('<') if matches!(ty, LlType::Vector(..)) => {
                let mut items = Vec::new();
                loop {
                    items.push(self.typed()?);
                    if !self.eat_punct(',') {
                        break;
                    }
                }
                self.expect_punct('>')?;
                LlValue::Vector(items)
            }
            other => {
                return Err(ReadError::at(
                    t.pos,
                    format!("expected a value, found {}", describe(&other)),
                ))
            }
        })
    }

    /// Skips parameter or return attributes: words (with a parenthesized argument, as in
    /// `align(4)` or `dereferenceable(8)`) and `align N`.
    fn skip_value_attrs(&mut self) {
        loop {
            match self.peek() {
                Tok::Word(w)
                    if !self.starts_type()
                        && !matches!(
                            w.as_str(),
                            "x" | "true"
                                | "false"
                                | "undef"
                                | "poison"
                                | "null"
                                | "zeroinitializer"
                                | "none"
                        ) =>
                {
                    let w = w.clone();
                    self.bump();
                    if *self.peek() == Tok::Punct('(') {
                        while !self.eat_punct(')') && self.peek() != &Tok::Eof {
                            self.bump();
                        }
                    }
                    if matches!(w.as_str(), "align" | "dereferenceable")
                        && matches!(self.peek(), Tok::Int(_))
                    {
                        self.bump();
                    }
                }
                _ => return,
            }
        }
    }

    pub(super) fn typed(&mut self) -> R<Operand> {
        let ty = self.ty()?;
        self.skip_value_attrs();
        let pos = self.pos();
        Ok(Operand {
            val: self.value(&ty)?,
            ty,
            pos,
        })
    }

    /// `, align 4`, `, !dbg !7` and the like at the end of an instruction.
    fn skip_attachments(&mut self) {
        while *self.peek() == Tok::Punct(',')
            && matches!(self.peek_at(1), Tok::Meta(_) | Tok::Word(_))
        {
            if let Tok::Word(w) = self.peek_at(1) {
                if w != "align" {
                    return;
                }
            }
            self.bump();
            self.bump();
            if matches!(self.peek(), Tok::Int(_) | Tok::Meta(_)) {
                self.bump();
            }
        }
    }

    fn function(&mut self, define: bool) -> R<FuncAst> {
        // Linkage, visibility, calling convention and return attributes come first.
        while !self.starts_type() {
            match self.bump().tok {
                Tok::Word(_) => {}
                other => {
                    return Err(ReadError::at(
                        self.pos(),
                        format!("expected a return type, found {}", describe(&other)),
                    ))
                }
            }
        }
        let ret = self.ty()?;
        let pos = self.pos();
        let name = match self.bump().tok {
            Tok::Global(n) => n,
            other => {
                return Err(ReadError::at(
                    pos,
                    format!(
                        "expected the function's `@` name, found {}",
                        describe(&other)
                    ),
                ))
            }
        };
        self.expect_punct('(')?;
        let mut params = Vec::new();
        if !self.eat_punct(')') {
            loop {
                let ppos = self.pos();
                let ty = self.ty()?;
                self.skip_value_attrs();
                let pname = match self.peek().clone() {
                    Tok::Local(n) => {
                        self.bump();
                        Some(n)
                    }
                    _ => None,
                };
                params.push((ty, pname, ppos));
                if self.eat_punct(')') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        let mut attrs = Vec::new();
        let mut groups = Vec::new();
        let line = self.toks[self.at - 1].pos.line;
        loop {
            if !define && self.pos().line != line {
                break;
            }
            match self.peek().clone() {
                Tok::Punct('{') if define => break,
                Tok::Word(w) => {
                    self.bump();
                    attrs.push(w);
                    if *self.peek() == Tok::Punct('(') {
                        while !self.eat_punct(')') && self.peek() != &Tok::Eof {
                            self.bump();
                        }
                    }
                }
                Tok::AttrGroup(n) => {
                    self.bump();
                    groups.push(n);
                }
                Tok::Int(_) | Tok::Str(_) if self.pos().line == line => {
                    self.bump();
                }
                Tok::Meta(_) if define => {
                    self.bump();
                    self.bump();
                }
                _ if !define => break,
                other => {
                    return Err(ReadError::at(
                        self.pos(),
                        format!("expected `{{`, found {}", describe(&other)),
                    ))
                }
            }
            if !define && self.pos().line != line {
                break;
            }
        }
        let body = if define {
            self.expect_punct('{')?;
            Some(self.body()?)
        } else {
            None
        };
        Ok(FuncAst {
            name,
            pos,
            ret,
            params,
            attrs,
            groups,
            body,
        })
    }

    fn body(&mut self) -> R<Vec<BlockAst>> {
        let mut blocks: Vec<BlockAst> = Vec::new();
        let mut current: Option<(String, Vec<InstAst>)> = None;
        loop {
            let pos = self.pos();
            match self.peek().clone() {
                Tok::Punct('}') => {
                    self.bump();
                    if current.is_some() {
                        return Err(ReadError::at(pos, "the last block has no terminator"));
                    }
                    if blocks.is_empty() {
                        return Err(ReadError::at(pos, "a function body needs a block"));
                    }
                    return Ok(blocks);
                }
                Tok::Eof => {
                    return Err(ReadError::at(
                        pos,
                        "unexpected end of text in a function body",
                    ))
                }
                Tok::Label(name) => {
                    self.bump();
                    if current.is_some() {
                        return Err(ReadError::at(
                            pos,
                            "the block before this label has no terminator",
                        ));
                    }
                    current = Some((name, Vec::new()));
                }
                _ => {
                    let (name, mut insts) = current.take().unwrap_or_else(|| {
                        // The entry block may go without a label.
                        let name = if blocks.is_empty() {
                            "0".to_string()
                        } else {
                            String::new()
                        };
                        (name, Vec::new())
                    });
                    if name.is_empty() {
                        return Err(ReadError::at(pos, "expected a block label"));
                    }
                    if let Some(term) = self.terminator()? {
                        blocks.push(BlockAst {
                            name,
                            insts,
                            term: (term, pos),
                        });
                    } else {
                        insts.push(self.instruction()?);
                        current = Some((name, insts));
                    }
                }
            }
        }
    }

    fn label_ref(&mut self) -> R<String> {
        self.expect_word("label")?;
        self.local()
    }

    fn terminator(&mut self) -> R<Option<TermAst>> {
        let Tok::Word(w) = self.peek().clone() else {
            return Ok(None);
        };
        let term = match w.as_str() {
            "br" => {
                self.bump();
                if self.is_word("label") {
                    TermAst::Br(self.label_ref()?)
                } else {
                    let c = self.typed()?;
                    self.expect_punct(',')?;
                    let t = self.label_ref()?;
                    self.expect_punct(',')?;
                    TermAst::CondBr(c, t, self.label_ref()?)
                }
            }
            "switch" => {
                self.bump();
                let sel = self.typed()?;
                self.expect_punct(',')?;
                let default = self.label_ref()?;
                self.expect_punct('[')?;
                let mut cases = Vec::new();
                while !self.eat_punct(']') {
                    let lit = self.typed()?;
                    let LlValue::Int(n) = lit.val else {
                        return Err(ReadError::at(lit.pos, "a switch case is an integer"));
                    };
                    self.expect_punct(',')?;
                    cases.push((n, self.label_ref()?));
                }
                TermAst::Switch(sel, default, cases)
            }
            "ret" => {
                self.bump();
                if self.eat_word("void") {
                    TermAst::Ret(None)
                } else {
                    TermAst::Ret(Some(self.typed()?))
                }
            }
            "unreachable" => {
                self.bump();
                TermAst::Unreachable
            }
            _ => return Ok(None),
        };
        self.skip_attachments();
        Ok(Some(term))
    }

    fn instruction(&mut self) -> R<InstAst> {
        let pos = self.pos();
        let result = if let Tok::Local(n) = self.peek().clone() {
            self.bump();
            self.expect_punct('=')?;
            Some(n)
        } else {
            None
        };
        let opos = self.pos();
        let Tok::Word(op) = self.bump().tok else {
            return Err(ReadError::at(opos, "expected an instruction"));
        };
        let second = |p: &mut Parser, first: &Operand| -> R<Operand> {
            p.expect_punct(',')?;
            let pos = p.pos();
            Ok(Operand {
                val: p.value(&first.ty)?,
                ty: first.ty.clone(),
                pos,
            })
        };
        let skip_flags = |p: &mut Parser| {
            while matches!(p.peek(), Tok::Word(w) if matches!(w.as_str(), "nuw" | "nsw" | "exact" | "disjoint" | "nneg" | "fast" | "nnan" | "ninf" | "nsz" | "arcp" | "contract" | "afn" | "reassoc" | "tail" | "musttail" | "notail" | "samesign"))
            {
                p.bump();
            }
        };
        let kind = match op.as_str() {
            "add" | "sub" | "mul" | "udiv" | "sdiv" | "urem" | "srem" | "fadd" | "fsub"
            | "fmul" | "fdiv" | "frem" | "shl" | "lshr" | "ashr" | "and" | "or" | "xor" => {
                skip_flags(self);
                let a = self.typed()?;
                let b = second(self, &a)?;
                InstKind::Binary(op, a, b)
            }
            "icmp" | "fcmp" => {
                skip_flags(self);
                let Tok::Word(pred) = self.bump().tok else {
                    return Err(ReadError::at(opos, "expected a comparison predicate"));
                };
                let a = self.typed()?;
                let b = second(self, &a)?;
                InstKind::Cmp(op == "fcmp", pred, a, b)
            }
            "select" => {
                skip_flags(self);
                let c = self.typed()?;
                self.expect_punct(',')?;
                let a = self.typed()?;
                self.expect_punct(',')?;
                InstKind::Select(c, a, self.typed()?)
            }
            "zext" | "sext" | "trunc" | "fptoui" | "fptosi" | "uitofp" | "sitofp" | "fpext"
            | "fptrunc" | "bitcast" => {
                skip_flags(self);
                let a = self.typed()?;
                self.expect_word("to")?;
                InstKind::Cast(op, a, self.ty()?)
            }
            "phi" => {
                skip_flags(self);
                let ty = self.ty()?;
                let mut incoming = Vec::new();
                loop {
                    self.expect_punct('[')?;
                    let vpos = self.pos();
                    let val = self.value(&ty)?;
                    self.expect_punct(',')?;
                    let b = self.local()?;
                    self.expect_punct(']')?;
                    incoming.push((
                        Operand {
                            ty: ty.clone(),
                            val,
                            pos: vpos,
                        },
                        b,
                    ));
                    if !(*self.peek() == Tok::Punct(',') && *self.peek_at(1) == Tok::Punct('[')) {
                        break;
                    }
                    self.bump();
                }
                InstKind::Phi(ty, incoming)
            }
            "alloca" => InstKind::Alloca(self.ty()?),
            "load" => {
                let ty = self.ty()?;
                self.expect_punct(',')?;
                InstKind::Load(ty, self.typed()?)
            }
            "store" => {
                let v = self.typed()?;
                self.expect_punct(',')?;
                InstKind::Store(v, self.typed()?)
            }
            "call" | "tail" | "musttail" | "notail" => {
                if op != "call" {
                    self.expect_word("call")?;
                }
                skip_flags(self);
                self.skip_value_attrs();
                let ret = self.ty()?;
                let cpos = self.pos();
                let callee = match self.bump().tok {
                    Tok::Global(n) => n,
                    other => {
                        return Err(ReadError::at(
                            cpos,
                            format!(
                                "only direct calls are in the subset, found {}",
                                describe(&other)
                            ),
                        ))
                    }
                };
                self.expect_punct('(')?;
                let mut args = Vec::new();
                if !self.eat_punct(')') {
                    loop {
                        args.push(self.typed()?);
                        if self.eat_punct(')') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                // Call-site attributes, on the line of the call.
                let line = self.toks[self.at - 1].pos.line;
                while self.pos().line == line
                    && (matches!(self.peek(), Tok::AttrGroup(_))
                        || (matches!(self.peek(), Tok::Word(_)) && !self.starts_type()))
                {
                    self.bump();
                }
                let mut bundles = Vec::new();
                if self.eat_punct('[') {
                    loop {
                        let bpos = self.pos();
                        let Tok::Str(tag) = self.bump().tok else {
                            return Err(ReadError::at(bpos, "expected an operand bundle's tag"));
                        };
                        self.expect_punct('(')?;
                        let mut ops = Vec::new();
                        if !self.eat_punct(')') {
                            loop {
                                ops.push(self.typed()?);
                                if self.eat_punct(')') {
                                    break;
                                }
                                self.expect_punct(',')?;
                            }
                        }
                        bundles.push((tag, ops, bpos));
                        if self.eat_punct(']') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                InstKind::Call {
                    ret,
                    callee,
                    args,
                    bundles,
                }
            }
            other => {
                return Err(ReadError::at(
                    opos,
                    format!("`{other}` is outside tangle's LLVM IR subset"),
                ))
            }
        };
        self.skip_attachments();
        Ok(InstAst { result, kind, pos })
    }
}

/// A token as a message shows it.
fn describe(t: &Tok) -> String {
    match t {
        Tok::Local(n) => format!("`%{n}`"),
        Tok::Global(n) => format!("`@{n}`"),
        Tok::AttrGroup(n) => format!("`#{n}`"),
        Tok::Meta(n) => format!("`!{n}`"),
        Tok::Label(n) => format!("label `{n}:`"),
        Tok::Word(w) => format!("`{w}`"),
        Tok::Int(i) => format!("`{i}`"),
        Tok::Float(f) => format!("`{f}`"),
        Tok::Str(s) => format!("\"{s}\""),
        Tok::Punct(c) => format!("`{c}`"),
        Tok::Eof => "the end of the text".to_string(),
    }
}
