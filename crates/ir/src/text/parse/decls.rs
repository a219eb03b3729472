//! Constants, globals and entry points.

use spirv::{BuiltIn, ExecutionModel};

use super::types::parse_scalar;
use super::{
    entity_index, enum_named, err, item_enum, item_string, item_u32, PResult, ParseError, Parser,
};
use crate::module::{
    Const, ConstData, ConstValue, EntryPoint, ExecMode, Func, Global, GlobalData, GlobalDecorations,
};
use crate::text::lexer::Tok;
use crate::types::MemberFlag;

impl Parser {
    pub(super) fn const_ref(&mut self) -> PResult<Const> {
        let (n, pos) = self.entity(Const::PREFIX, "a constant")?;
        let c = Const::from_u32(n);
        if !self.module.consts.contains(c) {
            return err(pos, format!("constant {c} is not defined"));
        }
        Ok(c)
    }

    pub(super) fn const_list(&mut self) -> PResult<Vec<Const>> {
        self.parenthesized(Self::const_ref)
    }

    pub(super) fn const_decl(&mut self, spec: bool) -> PResult<()> {
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

    pub(super) fn global_decl(&mut self) -> PResult<()> {
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

    pub(super) fn func_ref(&mut self) -> PResult<Func> {
        let (n, pos) = self.entity(Func::PREFIX, "a function")?;
        let f = Func::from_u32(n);
        self.func_refs.push((f, pos));
        Ok(f)
    }

    pub(super) fn global_ref(&mut self) -> PResult<Global> {
        let (n, pos) = self.entity(Global::PREFIX, "a global")?;
        let g = Global::from_u32(n);
        if !self.module.globals.contains(g) {
            return err(pos, format!("global {g} is not defined"));
        }
        Ok(g)
    }

    pub(super) fn entry_decl(&mut self) -> PResult<()> {
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
                Some(w)
                    if crate::module::FloatControl::ALL
                        .iter()
                        .any(|f| f.name() == w) =>
                {
                    let f = crate::module::FloatControl::ALL
                        .into_iter()
                        .find(|f| f.name() == w)
                        .expect("found above");
                    ExecMode::FloatControl(f, item_u32(&item, 1)?)
                }
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
}
