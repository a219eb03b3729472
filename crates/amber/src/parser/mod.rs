//! The AmberScript parser for the compute subset.

use std::sync::Arc;

use crate::error::{AmberError, ErrorKind, Pos};
use crate::lexer::{Lexer, Tok, TokKind};
use crate::model::*;

mod buffer;
mod commands;
mod pipeline;
mod shader;

type Result<T> = std::result::Result<T, AmberError>;

/// Parses a whole script.
pub fn parse(text: &str) -> Result<Script> {
    if !text.starts_with("#!amber") {
        return Err(AmberError::new(Pos::new(1, 1), ErrorKind::MissingHeader));
    }
    let mut p = Parser {
        lx: Lexer::new(text),
        script: Script::default(),
        value_count_hint: 0,
        last_expect_buffer: None,
    };
    loop {
        let t = p.lx.next_skip_eol();
        if t.kind == TokKind::Eof {
            break;
        }
        if let Some(cmd) = p.command(t)? {
            p.script.commands.push(cmd);
        }
    }
    Ok(p.script)
}

fn err<T>(pos: Pos, kind: ErrorKind) -> Result<T> {
    Err(AmberError::new(pos, kind))
}

fn unsupported<T>(t: Tok<'_>, why: &str) -> Result<T> {
    err(t.pos, ErrorKind::Unsupported(format!("`{}` {why}", t.text)))
}

fn expected<T>(t: Tok<'_>, what: &str) -> Result<T> {
    err(
        t.pos,
        ErrorKind::Expected {
            expected: what.to_string(),
            found: t.describe(),
        },
    )
}

fn bad_number<T>(t: Tok<'_>, what: &str) -> Result<T> {
    if t.kind != TokKind::Word {
        return expected(t, what);
    }
    err(
        t.pos,
        ErrorKind::BadNumber {
            what: what.to_string(),
            text: t.text.to_string(),
        },
    )
}

struct Parser<'a> {
    lx: Lexer<'a>,
    script: Script,
    /// How many values the last `EXPECT` value list held: the next list's capacity.
    value_count_hint: usize,
    /// The buffer name of the last `EXPECT` with a value list, shared with the next one
    /// that names the same buffer (most do) instead of copied.
    last_expect_buffer: Option<Arc<str>>,
}

impl<'a> Parser<'a> {
    fn word(&mut self, what: &str) -> Result<Tok<'a>> {
        let t = self.lx.next();
        if t.kind != TokKind::Word {
            return expected(t, what);
        }
        Ok(t)
    }

    fn keyword(&mut self, kw: &str) -> Result<Tok<'a>> {
        let t = self.lx.next();
        if !t.is(kw) {
            return expected(t, &format!("`{kw}`"));
        }
        Ok(t)
    }

    fn end_of_statement(&mut self) -> Result<()> {
        let t = self.lx.next();
        if !t.is_end_of_statement() {
            return expected(t, "end of line");
        }
        Ok(())
    }

    fn u32(&mut self, what: &str) -> Result<u32> {
        let t = self.lx.next();
        match Literal::parse(t.text) {
            Some(Literal::Int(v)) if (0..=u32::MAX as i128).contains(&v) => Ok(v as u32),
            Some(Literal::Hex(v)) if v <= u32::MAX as u64 => Ok(v as u32),
            _ => bad_number(t, what),
        }
    }

    fn on_off(&mut self, what: &str) -> Result<bool> {
        let t = self.lx.next();
        match t.text {
            "on" if t.kind == TokKind::Word => Ok(true),
            "off" if t.kind == TokKind::Word => Ok(false),
            _ => expected(t, &format!("`on` or `off` for {what}")),
        }
    }

    fn value(&mut self, scalar: Scalar, what: &str) -> Result<u64> {
        let t = self.lx.next();
        self.value_of(t, scalar, what)
    }

    fn expected_value_of(&self, t: Tok<'_>, scalar: Scalar) -> Result<u64> {
        match Literal::parse(t.text).and_then(|l| scalar.encode_expected(l)) {
            Some(b) => Ok(b),
            None => bad_number(t, &format!("{} expected value", scalar.name())),
        }
    }

    fn value_of(&self, t: Tok<'_>, scalar: Scalar, what: &str) -> Result<u64> {
        match Literal::parse(t.text).and_then(|l| scalar.encode(l)) {
            Some(b) => Ok(b),
            None => bad_number(t, &format!("{} {what}", scalar.name())),
        }
    }

    fn buffer_format(&self, t: Tok<'_>) -> Result<ElementFormat> {
        match self.script.buffer(t.text) {
            Some(b) => Ok(b.format),
            None => err(
                t.pos,
                ErrorKind::Unknown {
                    kind: "buffer",
                    name: t.text.to_string(),
                },
            ),
        }
    }

    fn check_new(&self, t: Tok<'_>, kind: &'static str) -> Result<()> {
        let dup = match kind {
            "shader" => self.script.shader(t.text).is_some(),
            "buffer" => self.script.buffer(t.text).is_some(),
            "pipeline" => self.script.pipeline(t.text).is_some(),
            _ => self.script.virtual_files.iter().any(|(p, _)| p == t.text),
        };
        if dup {
            return err(
                t.pos,
                ErrorKind::Duplicate {
                    kind,
                    name: t.text.to_string(),
                },
            );
        }
        Ok(())
    }

    /// One top-level statement; declarations return `None`.
    fn command(&mut self, t: Tok<'a>) -> Result<Option<Command>> {
        match t.text {
            "SHADER" => self.shader(t).map(|_| None),
            "BUFFER" => self.buffer(t).map(|_| None),
            "PIPELINE" => self.pipeline(t, None).map(|_| None),
            "DERIVE_PIPELINE" => self.derive_pipeline(t).map(|_| None),
            "VIRTUAL_FILE" => self.virtual_file().map(|_| None),
            "DEVICE_FEATURE" | "DEVICE_PROPERTY" | "DEVICE_EXTENSION" | "INSTANCE_EXTENSION" => {
                let name = self.word("a name")?.text.to_string();
                self.end_of_statement()?;
                let list = match t.text {
                    "DEVICE_FEATURE" => &mut self.script.device_features,
                    "DEVICE_PROPERTY" => &mut self.script.device_properties,
                    "DEVICE_EXTENSION" => &mut self.script.device_extensions,
                    _ => &mut self.script.instance_extensions,
                };
                list.push(name);
                Ok(None)
            }
            "SET" => {
                self.keyword("ENGINE_DATA")?;
                let key = self.word("an engine data name")?;
                if key.text != "fence_timeout_ms" {
                    return unsupported(
                        key,
                        "is not an engine data setting (only fence_timeout_ms)",
                    );
                }
                self.script.fence_timeout_ms = Some(self.u32("fence_timeout_ms value")?);
                self.end_of_statement()?;
                Ok(None)
            }
            _ => self.runtime_command(t).map(Some),
        }
    }
}
