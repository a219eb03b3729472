//! `SHADER` and `VIRTUAL_FILE` blocks.

use super::*;

impl<'a> Parser<'a> {
    pub(super) fn virtual_file(&mut self) -> Result<()> {
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

    pub(super) fn shader(&mut self, kw: Tok<'a>) -> Result<()> {
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
            "SPIRV-BIN" => ShaderFormat::SpirvBin,
            "HLSL" | "OPENCL-C" | "PASSTHROUGH" => {
                return unsupported(f, "shaders are not supported")
            }
            _ => return expected(f, "`GLSL`, `SPIRV-ASM`, `SPIRV-HEX` or `SPIRV-BIN`"),
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
            if binary || format == ShaderFormat::SpirvBin {
                format = ShaderFormat::SpirvBin;
                binary = true;
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
            if format == ShaderFormat::SpirvBin {
                return expected(t, "`FILE` (a SPIRV-BIN shader is read from a file)");
            }
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
}
