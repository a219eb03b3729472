//! `BUFFER` declarations: element types, layouts and initializers.

use super::*;

impl<'a> Parser<'a> {
    pub(super) fn buffer(&mut self, kw: Tok<'a>) -> Result<()> {
        let name = self.word("a buffer name")?;
        self.check_new(name, "buffer")?;
        let how = self.word("`DATA_TYPE` or `FORMAT`")?;
        let buffer = match how.text {
            "DATA_TYPE" => self.data_type_buffer(kw, name)?,
            "FORMAT" => {
                let f = self.word("a Vulkan format name")?;
                let Some(ty) = vk_format(f.text) else {
                    return unsupported(f, "is not a supported buffer format (plain R/RG/RGB/RGBA of UINT, SINT or SFLOAT components of one width)");
                };
                let t = self.lx.next();
                if !t.is_end_of_statement() {
                    return unsupported(t, "after `BUFFER ... FORMAT` is not supported");
                }
                Buffer {
                    name: name.text.to_string(),
                    pos: kw.pos,
                    format: ElementFormat {
                        ty,
                        layout: Layout::Packed,
                    },
                    vk_format: Some(f.text.to_string()),
                    element_count: 0,
                    init: Initializer::Empty,
                }
            }
            _ => return expected(how, "`DATA_TYPE` or `FORMAT`"),
        };
        self.script.buffers.push(buffer);
        Ok(())
    }

    pub(super) fn data_type_buffer(&mut self, kw: Tok<'a>, name: Tok<'a>) -> Result<Buffer> {
        let tt = self.word("a data type")?;
        // amber also takes a Vulkan format name as the data type (`R32G32B32A32_SFLOAT`).
        let Some(ty) = DataType::from_name(tt.text).or_else(|| vk_format(tt.text)) else {
            return expected(
                tt,
                "a data type (`int8`..`uint64`, `float16`, `float`, `double`, `vecN<...>`, `matCxR<float16|float|double>`)",
            );
        };
        let mut layout = Layout::Std430;
        let mut t = self.word("`SIZE` or `DATA`")?;
        if t.text == "STD140" || t.text == "STD430" {
            layout = if t.text == "STD140" {
                Layout::Std140
            } else {
                Layout::Std430
            };
            t = self.word("`SIZE` or `DATA`")?;
        }
        let format = ElementFormat { ty, layout };
        let n = ty.values_per_element();
        let (element_count, init) = match t.text {
            "SIZE" => {
                let count = self.u32("buffer size")? as usize;
                let how = self.word("`FILL` or `SERIES_FROM`")?;
                let init = match how.text {
                    "FILL" => Initializer::Fill(self.value(ty.scalar, "fill value")?),
                    "SERIES_FROM" => {
                        if n != 1 {
                            return err(
                                how.pos,
                                ErrorKind::Invalid(
                                    "SERIES_FROM needs a scalar data type (amber refuses vectors)"
                                        .into(),
                                ),
                            );
                        }
                        let start = self.series_num(ty.scalar, "SERIES_FROM value")?;
                        self.keyword("INC_BY")?;
                        let inc = self.series_num(ty.scalar, "INC_BY value")?;
                        Initializer::Series { start, inc }
                    }
                    "FILE" => {
                        let mut p = self.word("`TEXT`, `BINARY` or a file name")?;
                        let mut binary = false;
                        match p.text {
                            "TEXT" | "BINARY" => {
                                binary = p.text == "BINARY";
                                p = self.word("a file name")?;
                            }
                            "PNG" => {
                                return unsupported(p, "buffer files are not supported (images)")
                            }
                            _ => {}
                        }
                        Initializer::File {
                            path: p.text.to_string(),
                            binary,
                        }
                    }
                    _ => return expected(how, "`FILL`, `SERIES_FROM` or `FILE`"),
                };
                self.end_of_statement()?;
                (count, init)
            }
            "DATA" => {
                // Values may start on the DATA line and span lines, as in amber.
                let mut values = Vec::new();
                let mut last = t;
                loop {
                    let v = self.lx.next_skip_eol();
                    if v.is("END") {
                        break;
                    }
                    if v.kind == TokKind::Eof {
                        return err(t.pos, ErrorKind::MissingEnd("DATA".into()));
                    }
                    values.push(self.value_of(v, ty.scalar, "value")?);
                    last = v;
                }
                self.end_of_statement()?;
                if values.len() % n != 0 {
                    return err(
                        last.pos,
                        ErrorKind::Invalid(format!(
                            "{} values do not make whole {ty} elements ({n} components each)",
                            values.len()
                        )),
                    );
                }
                (values.len() / n, Initializer::Data(values))
            }
            "WIDTH" | "FILE" => return unsupported(t, "buffers are not supported"),
            _ => return expected(t, "`SIZE` or `DATA`"),
        };
        Ok(Buffer {
            name: name.text.to_string(),
            pos: kw.pos,
            format,
            vk_format: None,
            element_count,
            init,
        })
    }

    pub(super) fn series_num(&mut self, scalar: Scalar, what: &str) -> Result<SeriesNum> {
        let t = self.lx.next();
        let lit = Literal::parse(t.text);
        if scalar.is_float() {
            match lit {
                Some(Literal::Int(v)) => return Ok(SeriesNum::Float(v as f64)),
                Some(Literal::Float(v)) => return Ok(SeriesNum::Float(v)),
                _ => {}
            }
        } else if let Some(l @ (Literal::Int(_) | Literal::Hex(_))) = lit {
            if let Some(b) = scalar.encode(l) {
                // Sign-extend so a negative step wraps correctly in 64 bits.
                let v = match scalar.from_bits(b) {
                    Num::Int(v) => v as u64,
                    Num::Float(_) => b,
                };
                return Ok(SeriesNum::Int(v));
            }
        }
        bad_number(t, &format!("{} {what}", scalar.name()))
    }
}

/// Maps the simple Vulkan formats (`R32_UINT`, `R8G8B8A8_SINT`, `R32G32B32A32_SFLOAT`, ...)
/// to an element type.
fn vk_format(s: &str) -> Option<DataType> {
    let (comps, kind) = s.rsplit_once('_')?;
    let mut rest = comps;
    let mut width = None;
    let mut n = 0u8;
    for ch in ['R', 'G', 'B', 'A'] {
        let Some(r) = rest.strip_prefix(ch) else {
            break;
        };
        let digits = r.bytes().take_while(u8::is_ascii_digit).count();
        let w: u32 = r[..digits].parse().ok()?;
        if *width.get_or_insert(w) != w {
            return None;
        }
        n += 1;
        rest = &r[digits..];
    }
    if !rest.is_empty() || n == 0 {
        return None;
    }
    let scalar = match (kind, width?) {
        ("UINT", 8) => Scalar::U8,
        ("UINT", 16) => Scalar::U16,
        ("UINT", 32) => Scalar::U32,
        ("UINT", 64) => Scalar::U64,
        ("SINT", 8) => Scalar::I8,
        ("SINT", 16) => Scalar::I16,
        ("SINT", 32) => Scalar::I32,
        ("SINT", 64) => Scalar::I64,
        ("SFLOAT", 16) => Scalar::F16,
        ("SFLOAT", 32) => Scalar::F32,
        ("SFLOAT", 64) => Scalar::F64,
        _ => return None,
    };
    Some(DataType::vector(scalar, n))
}
