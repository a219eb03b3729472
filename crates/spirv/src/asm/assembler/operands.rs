//! Operands: reads one operand of an instruction by its grammar kind, and the literals
//! whose width depends on an earlier operand (switch selectors, constants).

use super::*;

impl<'a> Assembler<'a> {
    pub(super) fn literal_u32(&self, tok: &Token<'_>) -> Result<u32> {
        match encode_int(tok.text, 32, false) {
            Ok(w) => Ok(w[0]),
            Err(e) => Err(int_error(tok, e, 32, false)),
        }
    }

    pub(super) fn operand(
        &mut self,
        kind: Kind,
        tok: &Token<'a>,
        ctx: &mut InstCtx<'a>,
        expected: &mut VecDeque<Slot>,
    ) -> Result<()> {
        let kind = match kind {
            Kind::SwitchLiteral => {
                let (width, signed) = self.switch_selector_type(ctx, tok)?;
                let words = encode_int(tok.text, width, signed)
                    .map_err(|e| int_error(tok, e, width, signed))?;
                self.words.extend(words);
                return Ok(());
            }
            Kind::Grammar(k) => k,
        };
        match kind {
            OK::IdResultType => {
                let id = self.id(tok)?;
                ctx.result_type = Some(id);
                self.words.push(id);
            }
            OK::IdRef | OK::IdMemorySemantics | OK::IdScope => {
                let id = self.id(tok)?;
                // As in spirv-as, OpExtInst's set is checked as soon as it is read.
                if ctx.opcode == Op::ExtInst
                    && ctx.ids.is_empty()
                    && !self.ext_sets.contains_key(&id)
                {
                    return Err(err_at(tok, K::NotExtInstSet(tok.text[1..].to_owned())));
                }
                ctx.ids.push((id, *tok));
                self.words.push(id);
            }
            // Result ids are written from the `%id =` prefix before operands are read.
            OK::IdResult => {}
            OK::LiteralInteger => {
                let w = self.literal_u32(tok)?;
                self.words.push(w);
            }
            OK::LiteralString => {
                let mut w = string_words(tok)?;
                self.words.append(&mut w);
                if ctx.opcode == Op::ExtInstImport {
                    ctx.import_name = Some(*tok);
                }
            }
            OK::LiteralFloat => {
                let w =
                    encode_float(tok.text, 32).ok_or_else(|| bad_literal(tok, "a 32-bit float"))?;
                self.words.extend(w);
            }
            OK::LiteralContextDependentNumber => {
                let ty = ctx
                    .result_type
                    .and_then(|t| self.num_types.get(&t))
                    .copied();
                let words = match ty {
                    Some(NumType::Int { width, signed }) => encode_int(tok.text, width, signed)
                        .map_err(|e| int_error(tok, e, width, signed))?,
                    Some(NumType::Float { width }) => encode_float(tok.text, width)
                        .ok_or_else(|| bad_literal(tok, &format!("a {width}-bit float")))?,
                    Some(NumType::BFloat16) => vec![encode_bfloat16(tok.text)
                        .ok_or_else(|| bad_literal(tok, "a bfloat16 float"))?],
                    Some(NumType::EncodedFloat) => {
                        return Err(err_at(tok, K::UnsupportedFloatEncoding))
                    }
                    None => {
                        return Err(err_at(
                            tok,
                            K::ConstantTypeNotNumeric(ctx.op_name.to_owned()),
                        ))
                    }
                };
                self.words.extend(words);
            }
            OK::LiteralExtInstInteger => {
                let (set_id, set_tok) = *ctx
                    .ids
                    .last()
                    .ok_or_else(|| err_at(tok, K::NotExtInstSet(String::new())))?;
                let set = *self.ext_sets.get(&set_id).ok_or_else(|| {
                    err_at(&set_tok, K::NotExtInstSet(set_tok.text[1..].to_owned()))
                })?;
                let ext = set.instruction(tok.text).ok_or_else(|| {
                    err_at(
                        tok,
                        K::UnknownExtInst {
                            set: format!("{set:?}"),
                            name: tok.text.to_owned(),
                        },
                    )
                })?;
                self.words.push(ext.opcode);
                expected.clear();
                expected.extend(
                    ext.operands
                        .iter()
                        .map(|&(kind, quantifier)| Slot::grammar(kind, quantifier)),
                );
            }
            OK::LiteralSpecConstantOpInteger => {
                let inst = grammar::instruction(&format!("Op{}", tok.text)).ok_or_else(|| {
                    err_at(tok, K::UnknownSpecConstantOpcode(tok.text.to_owned()))
                })?;
                self.words.push(inst.opcode as u32);
                for o in inst.operands.iter().rev() {
                    if !matches!(o.kind, OK::IdResult | OK::IdResultType) {
                        expected.push_front(Slot::grammar(o.kind, o.quantifier));
                    }
                }
            }
            OK::PairLiteralIntegerIdRef => {
                self.operand(Kind::SwitchLiteral, tok, ctx, expected)?;
                expected.push_front(Slot::one(OK::IdRef));
            }
            OK::PairIdRefLiteralInteger => {
                self.operand(Kind::Grammar(OK::IdRef), tok, ctx, expected)?;
                expected.push_front(Slot::one(OK::LiteralInteger));
            }
            // OpPhi's (value, parent) pairs: spirv-as reads them as a plain list of ids and
            // accepts an odd count (the validator refuses it), so one id per repetition.
            OK::PairIdRefIdRef => {
                self.operand(Kind::Grammar(OK::IdRef), tok, ctx, expected)?;
            }
            k if grammar::is_bitmask(k) => {
                let mut mask = 0u32;
                for name in tok.text.split('|') {
                    let bit = grammar::bitmask_bit(k, name).ok_or_else(|| {
                        err_at(
                            tok,
                            K::UnknownEnumerant {
                                kind: format!("{k:?}"),
                                name: tok.text.to_owned(),
                            },
                        )
                    })?;
                    mask |= bit;
                }
                self.words.push(mask);
                for bit in (0..32).rev().map(|b| 1u32 << b).filter(|b| mask & b != 0) {
                    for &(p, q) in grammar::enumerant_parameters(k, bit).iter().rev() {
                        expected.push_front(Slot::grammar(p, q));
                    }
                }
            }
            k => match grammar::value_enumerant(k, tok.text) {
                Some(Some(v)) => {
                    self.words.push(v);
                    for &(p, q) in grammar::enumerant_parameters(k, v).iter().rev() {
                        expected.push_front(Slot::grammar(p, q));
                    }
                }
                _ => {
                    return Err(err_at(
                        tok,
                        K::UnknownEnumerant {
                            kind: format!("{k:?}"),
                            name: tok.text.to_owned(),
                        },
                    ))
                }
            },
        }
        Ok(())
    }

    /// Whether `tok` fills an optional literal operand (a literal integer or string, or an
    /// `OpSwitch` case literal). spirv-as takes any other word (`1.5`, `abc`, `%x`, a value
    /// too wide for the type) as the operand's absence, and the word then begins the next
    /// instruction; a `-` sign on an unsigned literal, or a `!` immediate, still fills it.
    pub(super) fn optional_literal_present(
        &self,
        kind: Kind,
        tok: &Token<'_>,
        ctx: &InstCtx<'a>,
    ) -> Result<bool> {
        let word = tok.text;
        if word.starts_with('!') {
            return Ok(true);
        }
        Ok(match kind {
            Kind::Grammar(OK::LiteralInteger) => {
                word.starts_with('-') || encode_int(word, 32, false).is_ok()
            }
            Kind::Grammar(OK::LiteralString) => string_words(tok).is_ok(),
            Kind::Grammar(OK::PairLiteralIntegerIdRef) | Kind::SwitchLiteral => {
                let (width, signed) = self.switch_selector_type(ctx, tok)?;
                (!signed && word.starts_with('-')) || encode_int(word, width, signed).is_ok()
            }
            _ => true,
        })
    }

    pub(super) fn switch_selector_type(
        &self,
        ctx: &InstCtx<'a>,
        tok: &Token<'_>,
    ) -> Result<(u32, bool)> {
        let selector = ctx.ids.first().map(|(id, _)| *id);
        match selector
            .and_then(|s| self.value_types.get(&s))
            .and_then(|t| self.num_types.get(t))
        {
            Some(NumType::Int { width, signed }) => Ok((*width, *signed)),
            _ => Err(err_at(tok, K::SwitchSelectorNotInteger)),
        }
    }
}

pub(super) fn bad_literal(tok: &Token<'_>, expected: &str) -> AsmError {
    err_at(
        tok,
        K::BadLiteral {
            expected: expected.to_owned(),
            found: tok.text.to_owned(),
        },
    )
}

pub(super) fn int_error(tok: &Token<'_>, e: IntError, width: u32, signed: bool) -> AsmError {
    let ty = format!(
        "a {width}-bit {} integer",
        if signed { "signed" } else { "unsigned" }
    );
    match e {
        IntError::Syntax => bad_literal(tok, &ty),
        IntError::NegativeUnsigned | IntError::OutOfRange => err_at(
            tok,
            K::IntegerOutOfRange {
                expected: ty,
                found: tok.text.to_owned(),
            },
        ),
    }
}
