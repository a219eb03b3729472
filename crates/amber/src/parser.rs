//! The AmberScript parser for the compute subset.

use crate::error::{AmberError, ErrorKind, Pos};
use crate::lexer::{Lexer, Tok, TokKind};
use crate::model::*;

type Result<T> = std::result::Result<T, AmberError>;

/// Parses a whole script.
pub fn parse(text: &str) -> Result<Script> {
    if !text.starts_with("#!amber") {
        return Err(AmberError::new(Pos::new(1, 1), ErrorKind::MissingHeader));
    }
    let mut p = Parser {
        lx: Lexer::new(text),
        script: Script::default(),
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

    /// A command that may also appear inside `REPEAT`.
    fn runtime_command(&mut self, t: Tok<'a>) -> Result<Command> {
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
            _ => unsupported(t, "is not an AmberScript command this crate knows"),
        }
    }

    fn virtual_file(&mut self) -> Result<()> {
        let path = self.word("a virtual file path")?;
        self.check_new(path, "virtual file")?;
        self.end_of_statement()?;
        let (text, _) = self.lx.raw_block("VIRTUAL_FILE", path.pos)?;
        self.end_of_statement()?;
        self.script
            .virtual_files
            .push((path.text.to_string(), text));
        Ok(())
    }

    fn shader(&mut self, kw: Tok<'a>) -> Result<()> {
        let ty = self.word("a shader type")?;
        match ty.text {
            "compute" => {}
            "vertex"
            | "fragment"
            | "geometry"
            | "tessellation_evaluation"
            | "tessellation_control"
            | "multi" => return unsupported(ty, "shaders are not supported (compute only)"),
            _ => return expected(ty, "a shader type (`compute`)"),
        }
        let name = self.word("a shader name")?;
        self.check_new(name, "shader")?;
        let f = self.word("a shader format")?;
        let mut format = match f.text {
            "GLSL" => ShaderFormat::Glsl,
            "SPIRV-ASM" => ShaderFormat::SpirvAsm,
            "SPIRV-HEX" => ShaderFormat::SpirvHex,
            "HLSL" | "OPENCL-C" | "PASSTHROUGH" => {
                return unsupported(f, "shaders are not supported")
            }
            _ => return expected(f, "`GLSL`, `SPIRV-ASM` or `SPIRV-HEX`"),
        };
        let mut target_env = None;
        let mut t = self.lx.next();
        if t.is("TARGET_ENV") {
            target_env = Some(self.word("a target environment")?.text.to_string());
            t = self.lx.next();
        }
        let source = if t.is("FILE") {
            let mut p = self.word("a file name")?;
            let mut binary = false;
            if p.text == "TEXT" || p.text == "BINARY" {
                binary = p.text == "BINARY";
                p = self.word("a file name")?;
            }
            if binary {
                format = ShaderFormat::SpirvBin;
            }
            self.end_of_statement()?;
            ShaderSource::File {
                path: p.text.to_string(),
                binary,
            }
        } else if t.is("VIRTUAL_FILE") {
            let p = self.word("a virtual file path")?;
            let Some((_, text)) = self.script.virtual_files.iter().find(|(q, _)| q == p.text)
            else {
                return err(
                    p.pos,
                    ErrorKind::Unknown {
                        kind: "virtual file",
                        name: p.text.into(),
                    },
                );
            };
            let text = text.clone();
            self.end_of_statement()?;
            ShaderSource::VirtualFile {
                path: p.text.to_string(),
                text,
            }
        } else {
            if t.kind != TokKind::Eol {
                return expected(t, "end of line, `TARGET_ENV`, `FILE` or `VIRTUAL_FILE`");
            }
            let (text, _) = self.lx.raw_block("SHADER", kw.pos)?;
            self.end_of_statement()?;
            ShaderSource::Inline(text)
        };
        self.script.shaders.push(Shader {
            name: name.text.to_string(),
            pos: kw.pos,
            format,
            target_env,
            source,
        });
        Ok(())
    }

    fn buffer(&mut self, kw: Tok<'a>) -> Result<()> {
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

    fn data_type_buffer(&mut self, kw: Tok<'a>, name: Tok<'a>) -> Result<Buffer> {
        let tt = self.word("a data type")?;
        let Some(ty) = DataType::from_name(tt.text) else {
            if tt.text.starts_with("mat") || tt.text == "float16" {
                return unsupported(tt, "data type is not supported");
            }
            return expected(
                tt,
                "a data type (`int8`..`uint64`, `float`, `double`, `vecN<...>`)",
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
        let n = ty.components as usize;
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
                    "FILE" => return unsupported(how, "buffer initializers are not supported"),
                    _ => return expected(how, "`FILL` or `SERIES_FROM`"),
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

    fn series_num(&mut self, scalar: Scalar, what: &str) -> Result<SeriesNum> {
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

    fn derive_pipeline(&mut self, kw: Tok<'a>) -> Result<()> {
        let name = self.word("a pipeline name")?;
        self.check_new(name, "pipeline")?;
        self.keyword("FROM")?;
        let parent = self.word("a pipeline name")?;
        let Some(p) = self.script.pipeline(parent.text) else {
            return err(
                parent.pos,
                ErrorKind::Unknown {
                    kind: "pipeline",
                    name: parent.text.into(),
                },
            );
        };
        let mut base = p.clone();
        base.name = name.text.to_string();
        base.pos = kw.pos;
        self.pipeline(kw, Some(base))
    }

    fn pipeline(&mut self, kw: Tok<'a>, derived: Option<Pipeline>) -> Result<()> {
        let mut p = match derived {
            Some(p) => p,
            None => {
                let ty = self.word("a pipeline type")?;
                match ty.text {
                    "compute" => {}
                    "graphics" | "raytracing" => {
                        return unsupported(ty, "pipelines are not supported (compute only)")
                    }
                    _ => return expected(ty, "`compute`"),
                }
                let name = self.word("a pipeline name")?;
                self.check_new(name, "pipeline")?;
                Pipeline {
                    name: name.text.to_string(),
                    pos: kw.pos,
                    attachments: vec![],
                    bindings: vec![],
                    push_constant: None,
                    subgroups: vec![],
                    optimizations: vec![],
                }
            }
        };
        self.end_of_statement()?;
        loop {
            let t = self.lx.next_skip_eol();
            match t.text {
                _ if t.kind == TokKind::Eof => {
                    return err(kw.pos, ErrorKind::MissingEnd(kw.text.into()))
                }
                "END" => {
                    self.end_of_statement()?;
                    break;
                }
                "ATTACH" => self.attach(&mut p, t)?,
                "BIND" => self.bind(&mut p)?,
                "SUBGROUP" => self.subgroup(&mut p, t)?,
                "COMPILE_OPTIONS" => {
                    return unsupported(t, "is only for OPENCL-C shaders, which are not supported")
                }
                "SHADER_OPTIMIZATION" => {
                    let s = self.attached_shader(&p)?;
                    self.end_of_statement()?;
                    let mut items = Vec::new();
                    loop {
                        let o = self.lx.next_skip_eol();
                        if o.is("END") {
                            break;
                        }
                        if o.kind == TokKind::Eof {
                            return err(t.pos, ErrorKind::MissingEnd(t.text.into()));
                        }
                        items.push(o.text.to_string());
                    }
                    self.end_of_statement()?;
                    p.optimizations.push((s, items));
                }
                "FRAMEBUFFER_SIZE"
                | "VERTEX_DATA"
                | "INDEX_DATA"
                | "POLYGON_MODE"
                | "DEPTH"
                | "STENCIL"
                | "BLEND"
                | "VIEWPORT"
                | "PATCH_CONTROL_POINTS" => {
                    return unsupported(t, "is for graphics pipelines, which are not supported")
                }
                _ => return unsupported(t, "is not a supported pipeline command"),
            }
        }
        self.script.pipelines.push(p);
        Ok(())
    }

    fn attached_shader(&mut self, p: &Pipeline) -> Result<String> {
        let s = self.word("a shader name")?;
        if !p.attachments.iter().any(|a| a.shader == s.text) {
            return err(
                s.pos,
                ErrorKind::Invalid(format!(
                    "shader `{}` is not attached to the pipeline",
                    s.text
                )),
            );
        }
        Ok(s.text.to_string())
    }

    fn attach(&mut self, p: &mut Pipeline, kw: Tok<'a>) -> Result<()> {
        let s = self.word("a shader name")?;
        if self.script.shader(s.text).is_none() {
            return err(
                s.pos,
                ErrorKind::Unknown {
                    kind: "shader",
                    name: s.text.into(),
                },
            );
        }
        if p.attachments.iter().any(|a| a.shader == s.text) {
            return err(
                s.pos,
                ErrorKind::Invalid(format!("shader `{}` is already attached", s.text)),
            );
        }
        let mut a = Attach {
            shader: s.text.to_string(),
            entry_point: "main".to_string(),
            specializations: vec![],
            pos: kw.pos,
        };
        loop {
            let t = self.lx.next();
            match t.text {
                _ if t.is_end_of_statement() => break,
                "ENTRY_POINT" => a.entry_point = self.word("an entry point name")?.text.into(),
                "TYPE" => return unsupported(t, "(multi shaders) is not supported"),
                "SPECIALIZE" => {
                    let id = self.u32("SpecId")?;
                    self.keyword("AS")?;
                    let ty = self.word("`uint32`, `int32` or `float`")?;
                    let scalar = match ty.text {
                        "uint32" => Scalar::U32,
                        "int32" => Scalar::I32,
                        "float" => Scalar::F32,
                        _ => return expected(ty, "`uint32`, `int32` or `float`"),
                    };
                    let bits = self.value(scalar, "specialization value")?;
                    a.specializations.push(Specialization {
                        id,
                        ty: scalar,
                        bits,
                    });
                }
                _ => return expected(t, "`ENTRY_POINT`, `SPECIALIZE` or end of line"),
            }
        }
        p.attachments.push(a);
        Ok(())
    }

    fn bind(&mut self, p: &mut Pipeline) -> Result<()> {
        let what = self.word("`BUFFER`")?;
        if what.text != "BUFFER" {
            if matches!(what.text, "BUFFER_ARRAY" | "SAMPLER" | "SAMPLER_ARRAY") {
                return unsupported(what, "bindings are not supported");
            }
            return expected(what, "`BUFFER`");
        }
        let b = self.word("a buffer name")?;
        self.buffer_format(b)?;
        self.keyword("AS")?;
        let kind = self.word("`storage`, `uniform` or `push_constant`")?;
        let kind = match kind.text {
            "storage" => DescriptorKind::Storage,
            "uniform" => DescriptorKind::Uniform,
            "push_constant" => {
                if p.push_constant.is_some() {
                    return err(
                        kind.pos,
                        ErrorKind::Invalid(
                            "the pipeline already has a push constant buffer".into(),
                        ),
                    );
                }
                p.push_constant = Some(b.text.to_string());
                return self.end_of_statement();
            }
            "color"
            | "depth_stencil"
            | "storage_image"
            | "sampled_image"
            | "combined_image_sampler"
            | "uniform_texel_buffer"
            | "storage_texel_buffer"
            | "uniform_dynamic"
            | "storage_dynamic"
            | "resolve" => return unsupported(kind, "buffer bindings are not supported"),
            _ => return expected(kind, "`storage`, `uniform` or `push_constant`"),
        };
        let mut set = 0;
        let mut t = self.word("`DESCRIPTOR_SET` or `BINDING`")?;
        if t.text == "DESCRIPTOR_SET" {
            set = self.u32("descriptor set")?;
            t = self.word("`BINDING`")?;
        }
        if t.text != "BINDING" {
            return expected(t, "`BINDING`");
        }
        let binding = self.u32("binding number")?;
        let t = self.lx.next();
        if !t.is_end_of_statement() {
            if matches!(
                t.text,
                "DESCRIPTOR_OFFSET" | "DESCRIPTOR_RANGE" | "OFFSET" | "BASE_MIP_LEVEL"
            ) {
                return unsupported(t, "is not supported");
            }
            return expected(t, "end of line");
        }
        if let Some(old) = p
            .bindings
            .iter()
            .find(|x| x.set == set && x.binding == binding)
        {
            return err(
                b.pos,
                ErrorKind::Invalid(format!(
                    "descriptor set {set} binding {binding} is already bound to `{}`",
                    old.buffer
                )),
            );
        }
        p.bindings.push(Binding {
            buffer: b.text.to_string(),
            kind,
            set,
            binding,
            pos: b.pos,
        });
        Ok(())
    }

    fn subgroup(&mut self, p: &mut Pipeline, kw: Tok<'a>) -> Result<()> {
        let shader = self.attached_shader(p)?;
        self.end_of_statement()?;
        let mut s = Subgroup {
            shader,
            pos: kw.pos,
            ..Subgroup::default()
        };
        loop {
            let t = self.lx.next_skip_eol();
            match t.text {
                _ if t.kind == TokKind::Eof => {
                    return err(kw.pos, ErrorKind::MissingEnd("SUBGROUP".into()))
                }
                "END" => {
                    self.end_of_statement()?;
                    break;
                }
                "FULLY_POPULATED" => {
                    self.require_feature(t, "SubgroupSizeControl.computeFullSubgroups")?;
                    s.fully_populated = self.on_off("FULLY_POPULATED")?
                }
                "VARYING_SIZE" => {
                    self.require_feature(t, "SubgroupSizeControl.subgroupSizeControl")?;
                    s.varying_size = self.on_off("VARYING_SIZE")?
                }
                "REQUIRED_SIZE" => {
                    self.require_feature(t, "SubgroupSizeControl.subgroupSizeControl")?;
                    let v = self.lx.peek();
                    s.required_size = Some(match v.text {
                        "MIN" => {
                            self.lx.next();
                            RequiredSize::Min
                        }
                        "MAX" => {
                            self.lx.next();
                            RequiredSize::Max
                        }
                        _ => RequiredSize::Size(self.subgroup_size("REQUIRED_SIZE")?),
                    });
                }
                "MIN_SIZE" | "MAX_SIZE" => {
                    self.require_feature(t, "SubgroupSizeControl.subgroupSizeControl")?;
                    let v = Some(self.subgroup_size(t.text)?);
                    if t.text == "MIN_SIZE" {
                        s.min_size = v;
                    } else {
                        s.max_size = v;
                    }
                }
                _ => {
                    return expected(
                        t,
                        "`FULLY_POPULATED`, `VARYING_SIZE`, `REQUIRED_SIZE`, `MIN_SIZE`, `MAX_SIZE` or `END`",
                    )
                }
            }
        }
        if let (Some(lo), Some(hi)) = (s.min_size, s.max_size) {
            if lo > hi {
                return err(
                    kw.pos,
                    ErrorKind::Invalid(format!("SUBGROUP MIN_SIZE {lo} is above MAX_SIZE {hi}")),
                );
            }
        }
        if s.required_size.is_some() && (s.min_size.is_some() || s.max_size.is_some()) {
            return err(
                kw.pos,
                ErrorKind::Invalid("SUBGROUP REQUIRED_SIZE excludes MIN_SIZE/MAX_SIZE".into()),
            );
        }
        p.subgroups.retain(|x| x.shader != s.shader);
        p.subgroups.push(s);
        Ok(())
    }

    /// amber refuses subgroup size control unless the script asks for the device feature.
    fn require_feature(&self, t: Tok<'_>, feature: &str) -> Result<()> {
        if !self.script.device_features.iter().any(|f| f == feature) {
            return err(
                t.pos,
                ErrorKind::Invalid(format!("`{}` needs `DEVICE_FEATURE {feature}`", t.text)),
            );
        }
        Ok(())
    }

    fn subgroup_size(&mut self, what: &str) -> Result<u32> {
        let t = self.lx.peek();
        let v = self.u32(&format!("{what} (a power of two from 1 to 128)"))?;
        if !v.is_power_of_two() || v > 128 {
            return bad_number(t, &format!("{what} (a power of two from 1 to 128)"));
        }
        Ok(v)
    }

    fn run(&mut self, kw: Tok<'a>) -> Result<Command> {
        let name = self.word("a pipeline name")?;
        if name.text == "TIMED_EXECUTION" {
            return unsupported(name, "is not supported");
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
            pos: kw.pos,
        }))
    }

    fn expect(&mut self, kw: Tok<'a>) -> Result<Command> {
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

    fn tolerances(&mut self, out: &mut Vec<Tolerance>) -> Result<()> {
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

    fn expect_values(&mut self, a: Tok<'a>, format: ElementFormat) -> Result<ExpectKind> {
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
        let mut values = Vec::new();
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
            values.push(self.value_of(v, format.ty.scalar, "expected value")?);
        }
        if values.is_empty() {
            return expected(self.lx.peek(), "an expected value");
        }
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
            buffer: a.text.to_string(),
            format,
            offset,
            cmp,
            tolerance,
            values,
        })
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
        ("SFLOAT", 32) => Scalar::F32,
        ("SFLOAT", 64) => Scalar::F64,
        _ => return None,
    };
    Some(DataType {
        scalar,
        components: n,
    })
}
