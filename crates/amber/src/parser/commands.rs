//! The commands a runner executes: `RUN`, `EXPECT`, `COPY`, `REPEAT`.

use super::*;

impl<'a> Parser<'a> {
    /// A command that may also appear inside `REPEAT`.
    pub(super) fn runtime_command(&mut self, t: Tok<'a>) -> Result<Command> {
        match t.text {
            "RUN" => self.run(t),
            "EXPECT" => self.expect(t),
            "COPY" => {
                let from = self.word("a buffer name")?;
                let ff = self.buffer_format(from)?;
                self.keyword("TO")?;
                let to = self.word("a buffer name")?;
                let tf = self.buffer_format(to)?;
                if from.text == to.text {
                    return err(
                        to.pos,
                        ErrorKind::Invalid(
                            "COPY origin and destination are the same buffer".into(),
                        ),
                    );
                }
                if ff != tf {
                    return err(
                        to.pos,
                        ErrorKind::Invalid(format!(
                            "COPY needs buffers of the same type and layout: `{}` holds {} {:?}, `{}` holds {} {:?}",
                            from.text, ff.ty, ff.layout, to.text, tf.ty, tf.layout
                        )),
                    );
                }
                self.end_of_statement()?;
                Ok(Command::Copy {
                    from: from.text.into(),
                    to: to.text.into(),
                    pos: t.pos,
                })
            }
            "REPEAT" => {
                let count_tok = self.lx.peek();
                let count = self.u32("REPEAT count")?;
                if count == 0 {
                    return bad_number(count_tok, "REPEAT count (must be > 0)");
                }
                self.end_of_statement()?;
                let mut commands = Vec::new();
                loop {
                    let c = self.lx.next_skip_eol();
                    if c.is("END") {
                        self.end_of_statement()?;
                        break;
                    }
                    if c.kind == TokKind::Eof {
                        return err(t.pos, ErrorKind::MissingEnd("REPEAT".into()));
                    }
                    match c.text {
                        "RUN" | "EXPECT" | "COPY" | "REPEAT" => {
                            commands.push(self.runtime_command(c)?)
                        }
                        _ => return unsupported(c, "cannot appear inside REPEAT"),
                    }
                }
                Ok(Command::Repeat {
                    count,
                    commands,
                    pos: t.pos,
                })
            }
            "CLEAR" | "CLEAR_COLOR" | "CLEAR_DEPTH" | "CLEAR_STENCIL" => {
                unsupported(t, "is for graphics pipelines, which are not supported")
            }
            "STRUCT" | "IMAGE" | "SAMPLER" | "DEBUG" => unsupported(t, "is not supported"),
            "END" => err(
                t.pos,
                ErrorKind::Invalid("`END` without an open block".into()),
            ),
            _ => unsupported(
                t,
                &format!(
                    "is not an AmberScript command this crate knows{}",
                    crate::suggest::hint(t.text, crate::suggest::TOP_LEVEL)
                ),
            ),
        }
    }

    pub(super) fn run(&mut self, kw: Tok<'a>) -> Result<Command> {
        let mut name = self.word("a pipeline name")?;
        let timed_execution = name.text == "TIMED_EXECUTION";
        if timed_execution {
            name = self.word("a pipeline name")?;
        }
        let Some(p) = self.script.pipeline(name.text) else {
            return err(
                name.pos,
                ErrorKind::Unknown {
                    kind: "pipeline",
                    name: name.text.into(),
                },
            );
        };
        if p.attachments.is_empty() {
            return err(
                name.pos,
                ErrorKind::Invalid(format!("pipeline `{}` has no shader attached", name.text)),
            );
        }
        let first = self.lx.peek();
        if first.kind == TokKind::Word && first.text.starts_with("DRAW_") {
            return unsupported(first, "is for graphics pipelines, which are not supported");
        }
        let x = self.u32("workgroup count")?;
        let y = self.u32("workgroup count")?;
        let z = self.u32("workgroup count")?;
        self.end_of_statement()?;
        Ok(Command::Run(Run {
            pipeline: name.text.to_string(),
            groups: [x, y, z],
            timed_execution,
            pos: kw.pos,
        }))
    }

    pub(super) fn expect(&mut self, kw: Tok<'a>) -> Result<Command> {
        let a = self.word("a buffer name")?;
        let format = self.buffer_format(a)?;
        let t = self.word("`IDX`, `EQ_BUFFER`, `RMSE_BUFFER` or `EQ_HISTOGRAM_EMD_BUFFER`")?;
        let kind = match t.text {
            "IDX" => self.expect_values(a, format)?,
            "EQ_BUFFER" | "RMSE_BUFFER" | "EQ_HISTOGRAM_EMD_BUFFER" => {
                let b = self.word("a buffer name")?;
                let format_b = self.buffer_format(b)?;
                let (a, b) = (a.text.to_string(), b.text.to_string());
                if t.text == "EQ_BUFFER" {
                    ExpectKind::EqBuffer {
                        a,
                        b,
                        format_a: format,
                        format_b,
                    }
                } else {
                    self.keyword("TOLERANCE")?;
                    let tt = self.lx.next();
                    let tolerance = match Literal::parse(tt.text) {
                        Some(Literal::Int(v)) if v >= 0 => v as f64,
                        Some(Literal::Float(v)) if v >= 0.0 => v,
                        _ => return bad_number(tt, "tolerance"),
                    };
                    if t.text == "RMSE_BUFFER" {
                        ExpectKind::RmseBuffer {
                            a,
                            b,
                            format_a: format,
                            format_b,
                            tolerance,
                        }
                    } else {
                        ExpectKind::HistogramEmdBuffer {
                            a,
                            b,
                            format_a: format,
                            format_b,
                            tolerance,
                        }
                    }
                }
            }
            "RGB" | "RGBA" => return unsupported(t, "probes are for images, not supported"),
            _ => {
                return expected(
                    t,
                    "`IDX`, `EQ_BUFFER`, `RMSE_BUFFER` or `EQ_HISTOGRAM_EMD_BUFFER`",
                )
            }
        };
        self.end_of_statement()?;
        Ok(Command::Expect(Expect { pos: kw.pos, kind }))
    }

    /// `name` as an `EXPECT`'s buffer: the previous `EXPECT`'s name shared when it is the
    /// same, a new one (kept for the next) otherwise.
    pub(super) fn expect_buffer_name(&mut self, name: &str) -> Arc<str> {
        match &self.last_expect_buffer {
            Some(last) if **last == *name => Arc::clone(last),
            _ => {
                let new: Arc<str> = Arc::from(name);
                self.last_expect_buffer = Some(Arc::clone(&new));
                new
            }
        }
    }

    pub(super) fn tolerances(&mut self, out: &mut Vec<Tolerance>) -> Result<()> {
        loop {
            let t = self.lx.peek();
            let (num, pct) = match t.text.strip_suffix('%') {
                Some(n) => (n, true),
                None => (t.text, false),
            };
            let value = match Literal::parse(num) {
                Some(Literal::Int(v)) if v >= 0 => v as f64,
                Some(Literal::Float(v)) if v >= 0.0 => v,
                _ => break,
            };
            self.lx.next();
            let mut percent = pct;
            if !pct && self.lx.peek().is("%") {
                self.lx.next();
                percent = true;
            }
            if out.len() == 4 {
                return err(
                    t.pos,
                    ErrorKind::Invalid("TOLERANCE takes 1 to 4 values".into()),
                );
            }
            out.push(Tolerance { value, percent });
        }
        if out.is_empty() {
            return expected(self.lx.peek(), "a tolerance value after `TOLERANCE`");
        }
        Ok(())
    }

    pub(super) fn expect_values(
        &mut self,
        a: Tok<'a>,
        format: ElementFormat,
    ) -> Result<ExpectKind> {
        let off_tok = self.lx.peek();
        let offset = self.u32("byte offset")? as usize;
        let mut tolerance = Vec::new();
        let mut t = self.lx.next();
        if t.kind == TokKind::Word && Literal::parse(t.text).is_some() {
            return unsupported(
                t,
                "(a second IDX coordinate) belongs to image probes, not supported",
            );
        }
        if t.is("TOLERANCE") {
            self.tolerances(&mut tolerance)?;
            t = self.lx.next();
        }
        let mut cmp = match t.text {
            "EQ" if t.kind == TokKind::Word => Comparator::Eq,
            "NE" => Comparator::Ne,
            "LT" => Comparator::Lt,
            "LE" => Comparator::Le,
            "GT" => Comparator::Gt,
            "GE" => Comparator::Ge,
            "EQ_RGB" | "EQ_RGBA" | "SIZE" => {
                return unsupported(t, "belongs to image probes, not supported")
            }
            _ => return expected(t, "a comparator (`EQ`, `NE`, `LT`, `LE`, `GT`, `GE`)"),
        };
        let cmp_tok = t;
        // Sized as the previous list was (a script's value lists are mostly of one length,
        // 64 on the performance set): no scan of the line for its length, and no copy when
        // the guess holds; a longer list grows as usual. The 7 is room for `bits_run`'s
        // fixed writes of eight zeros, which would otherwise grow an exact list.
        let mut values = Vec::with_capacity(self.value_count_hint + 7);
        // Plain decimal and hexadecimal values (the common case) without a token each;
        // anything else, and any value the type cannot hold (for its error), goes through
        // the loop below.
        let scalar = format.ty.scalar;
        let (float, mask) = (scalar.is_float(), scalar.mask());
        if !float {
            // An integer type: the bit patterns straight into the list.
            self.lx.bits_run(mask, &mut values);
        }
        self.lx.number_run(|literal| {
            // A non-negative decimal for an integer type is its own bit pattern when it fits
            // (what `encode` gives); hexadecimals and floats go through `encode`.
            let bits = match literal {
                Literal::Int(v) if !float => {
                    let v = v as u64;
                    (v & !mask == 0).then_some(v)
                }
                literal => scalar.encode_expected(literal),
            };
            match bits {
                Some(bits) => {
                    values.push(bits);
                    true
                }
                None => false,
            }
        });
        loop {
            let v = self.lx.peek();
            if v.is_end_of_statement() {
                break;
            }
            if v.is("TOLERANCE") {
                self.lx.next();
                if !tolerance.is_empty() {
                    return err(v.pos, ErrorKind::Invalid("TOLERANCE given twice".into()));
                }
                self.tolerances(&mut tolerance)?;
                break;
            }
            self.lx.next();
            values.push(self.expected_value_of(v, format.ty.scalar)?);
        }
        if values.is_empty() {
            return expected(self.lx.peek(), "an expected value");
        }
        self.value_count_hint = values.len();
        if !tolerance.is_empty() {
            if cmp != Comparator::Eq {
                return err(
                    cmp_tok.pos,
                    ErrorKind::Invalid("TOLERANCE is only allowed with EQ".into()),
                );
            }
            cmp = Comparator::FuzzyEq;
        }
        if offset % format.stride() != 0 {
            return err(
                off_tok.pos,
                ErrorKind::Invalid(format!(
                    "IDX {offset} is a byte offset and must be a multiple of the element size ({} bytes for {} {:?})",
                    format.stride(),
                    format.ty,
                    format.layout
                )),
            );
        }
        Ok(ExpectKind::Values {
            buffer: self.expect_buffer_name(a.text),
            format,
            offset,
            cmp,
            tolerance,
            values,
        })
    }
}
