//! `PIPELINE` and `DERIVE_PIPELINE` blocks: `ATTACH`, `BIND`, `SUBGROUP`.

use super::*;

impl<'a> Parser<'a> {
    pub(super) fn derive_pipeline(&mut self, kw: Tok<'a>) -> Result<()> {
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

    pub(super) fn pipeline(&mut self, kw: Tok<'a>, derived: Option<Pipeline>) -> Result<()> {
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
                _ => {
                    return unsupported(
                        t,
                        &format!(
                            "is not a supported pipeline command{}",
                            crate::suggest::hint(t.text, crate::suggest::PIPELINE)
                        ),
                    )
                }
            }
        }
        self.script.pipelines.push(p);
        Ok(())
    }

    pub(super) fn attached_shader(&mut self, p: &Pipeline) -> Result<String> {
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

    pub(super) fn attach(&mut self, p: &mut Pipeline, kw: Tok<'a>) -> Result<()> {
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

    pub(super) fn bind(&mut self, p: &mut Pipeline) -> Result<()> {
        let what = self.word("`BUFFER` or `BUFFER_ARRAY`")?;
        let is_array = what.text == "BUFFER_ARRAY";
        if what.text != "BUFFER" && !is_array {
            if matches!(what.text, "SAMPLER" | "SAMPLER_ARRAY") {
                return unsupported(what, "bindings are not supported");
            }
            return expected(what, "`BUFFER` or `BUFFER_ARRAY`");
        }
        let b = self.word("a buffer name")?;
        self.buffer_format(b)?;
        // `BUFFER_ARRAY a b ... AS`: the buffers of the descriptor array's elements.
        let mut names = vec![b];
        if is_array {
            loop {
                let t = self.word("a buffer name or `AS`")?;
                if t.text == "AS" {
                    break;
                }
                self.buffer_format(t)?;
                names.push(t);
            }
        } else {
            self.keyword("AS")?;
        }
        let kind = self.word("`storage`, `uniform` or `push_constant`")?;
        let dynamic = matches!(kind.text, "storage_dynamic" | "uniform_dynamic");
        let kind = match kind.text {
            "storage" | "storage_dynamic" => DescriptorKind::Storage,
            "uniform" | "uniform_dynamic" => DescriptorKind::Uniform,
            "push_constant" if is_array => {
                return expected(kind, "`storage` or `uniform` (a descriptor array)")
            }
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
        // One window per element; each option gives one value per element.
        let mut windows = vec![Window::default(); names.len()];
        let binding_tok = t;
        loop {
            let t = self.lx.next();
            if t.is_end_of_statement() {
                break;
            }
            match t.text {
                "OFFSET" if dynamic => {
                    for w in &mut windows {
                        w.dynamic_offset = Some(self.u32("dynamic offset")?);
                    }
                }
                "DESCRIPTOR_OFFSET" => {
                    for w in &mut windows {
                        w.descriptor_offset = self.u32("descriptor offset")?;
                    }
                }
                "DESCRIPTOR_RANGE" => {
                    for w in &mut windows {
                        w.range = Some(self.u32("descriptor range")?);
                    }
                }
                "BASE_MIP_LEVEL" => return unsupported(t, "is for images, not supported"),
                _ if dynamic => {
                    return expected(
                        t,
                        "`OFFSET`, `DESCRIPTOR_OFFSET`, `DESCRIPTOR_RANGE` or end of line",
                    )
                }
                _ => return expected(t, "`DESCRIPTOR_OFFSET`, `DESCRIPTOR_RANGE` or end of line"),
            }
        }
        if dynamic && windows[0].dynamic_offset.is_none() {
            return err(
                binding_tok.pos,
                ErrorKind::Invalid("a dynamic buffer binding needs `OFFSET <bytes>`".into()),
            );
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
        let array = if is_array {
            names
                .iter()
                .zip(&windows)
                .map(|(n, w)| (n.text.to_string(), *w))
                .collect()
        } else {
            Vec::new()
        };
        p.bindings.push(Binding {
            buffer: b.text.to_string(),
            kind,
            set,
            binding,
            window: windows[0],
            array,
            pos: b.pos,
        });
        Ok(())
    }

    pub(super) fn subgroup(&mut self, p: &mut Pipeline, kw: Tok<'a>) -> Result<()> {
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
                        &format!(
                            "`FULLY_POPULATED`, `VARYING_SIZE`, `REQUIRED_SIZE`, `MIN_SIZE`, `MAX_SIZE` or `END`{}",
                            crate::suggest::hint(t.text, crate::suggest::SUBGROUP)
                        ),
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
    pub(super) fn require_feature(&self, t: Tok<'_>, feature: &str) -> Result<()> {
        if !self.script.device_features.iter().any(|f| f == feature) {
            return err(
                t.pos,
                ErrorKind::Invalid(format!("`{}` needs `DEVICE_FEATURE {feature}`", t.text)),
            );
        }
        Ok(())
    }

    pub(super) fn subgroup_size(&mut self, what: &str) -> Result<u32> {
        let t = self.lx.peek();
        let v = self.u32(&format!("{what} (a power of two from 1 to 128)"))?;
        if !v.is_power_of_two() || v > 128 {
            return bad_number(t, &format!("{what} (a power of two from 1 to 128)"));
        }
        Ok(v)
    }
}
