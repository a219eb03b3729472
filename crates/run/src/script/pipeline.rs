//! Preparing a pipeline: its shader loaded, optimized and verified, its bindings checked
//! against the shader and the device.

use std::path::Path;

use tangle_amber::{DescriptorKind, Pipeline, ShaderFormat, ShaderSource};
use tangle_ir::Module;
use tangle_spirv::reader::Origins;

use super::{module_key, Runner, ScriptError, ScriptErrorKind};
use crate::source::{load_shader_with_origins, ShaderKind, SourceError};

impl Runner<'_> {
    /// Loads the pipeline's shader and checks its bindings against it.
    pub(super) fn prepare(&mut self, pipeline: &Pipeline) -> Result<(), ScriptError> {
        let err = |kind| ScriptError::new(pipeline.pos, kind);
        let [attach] = pipeline.attachments.as_slice() else {
            return Err(err(ScriptErrorKind::Pipeline(format!(
                "compute pipeline `{}` needs exactly one attached shader, has {}",
                pipeline.name,
                pipeline.attachments.len()
            ))));
        };
        let key = module_key(pipeline, &attach.shader);
        if !self.modules.contains_key(&key) {
            let module = self.load(&attach.shader, &key.1)?;
            self.modules.insert(key.clone(), module);
        }
        let module = &self.modules[&key].0;
        for b in &pipeline.bindings {
            let declared = module.globals.iter().find(|(_, g)| {
                g.decorations.set == Some(b.set) && g.decorations.binding == Some(b.binding)
            });
            if let Some((_, g)) = declared {
                let wanted = crate::resources::descriptor_kind(module, g);
                if wanted != Some(b.kind) {
                    return Err(ScriptError::new(
                        b.pos,
                        ScriptErrorKind::Pipeline(format!(
                            "buffer `{}` is bound as {} at set {} binding {}, but the shader \
                             declares a {:?} variable there",
                            b.buffer,
                            kind_name(b.kind),
                            b.set,
                            b.binding,
                            g.storage
                        )),
                    ));
                }
            }
        }
        for used in crate::resources::used_descriptors(module) {
            if !pipeline
                .bindings
                .iter()
                .any(|b| (b.set, b.binding) == (used.set, used.binding))
            {
                return Err(err(ScriptErrorKind::Pipeline(format!(
                    "shader `{}` uses the {used}, but pipeline `{}` binds no buffer there",
                    attach.shader, pipeline.name
                ))));
            }
        }
        if pipeline.push_constant.is_none() && crate::resources::uses_push_constants(module) {
            return Err(err(ScriptErrorKind::Pipeline(format!(
                "shader `{}` reads push constants, but pipeline `{}` binds no push_constant buffer",
                attach.shader, pipeline.name
            ))));
        }
        if let Some(pc) = &pipeline.push_constant {
            self.options
                .device
                .check_push_constants(self.buffers[pc].len())
                .map_err(|e| err(e.into()))?;
        }
        Ok(())
    }

    /// Loads one script shader, runs spirv-opt with `passes` on it (none: not run), and
    /// verifies it.
    fn load(&self, name: &str, passes: &[String]) -> Result<(Module, Origins), ScriptError> {
        let shader = self
            .script
            .shader(name)
            .expect("the parser checks that attached shaders exist");
        let err = |kind| ScriptError::new(shader.pos, kind);
        let kind = match shader.format {
            ShaderFormat::Glsl => ShaderKind::Glsl,
            ShaderFormat::SpirvAsm => ShaderKind::SpirvAsm,
            ShaderFormat::SpirvHex => ShaderKind::SpirvHex,
            ShaderFormat::SpirvBin => ShaderKind::SpirvBinary,
        };
        let bytes = match &shader.source {
            ShaderSource::Inline(text) | ShaderSource::VirtualFile { text, .. } => {
                text.clone().into_bytes()
            }
            ShaderSource::File { path, .. } => {
                let full = self.options.base_dir.join(path);
                std::fs::read(&full).map_err(|error| {
                    err(ScriptErrorKind::File {
                        shader: name.into(),
                        path: full.display().to_string(),
                        error,
                    })
                })?
            }
        };
        let env = match shader.target_env.as_deref() {
            Some(env) => env,
            // As the CTS does: a script that asks for `VK_KHR_spirv_1_4` may use SPIR-V 1.4
            // on a Vulkan 1.1 device, and its shaders without `TARGET_ENV` are built for it.
            None if self.options.target_env == "vulkan1.1"
                && self
                    .script
                    .device_extensions
                    .iter()
                    .any(|e| e == "VK_KHR_spirv_1_4") =>
            {
                "vulkan1.1spv1.4"
            }
            None => &self.options.target_env,
        };
        let (module, mut origins) = load_shader_with_origins(kind, &bytes, name, env, passes)
            .map_err(|error| {
                // glslang counts lines from the shader's text; an inline shader's text starts on
                // the line after `SHADER`, so its messages are moved to the script's lines.
                let error = match (error, &shader.source) {
                    (
                        SourceError::Glsl(n, tangle_spirv::glslang::GlslError::Compile(text)),
                        ShaderSource::Inline(_),
                    ) => SourceError::Glsl(
                        n,
                        tangle_spirv::glslang::GlslError::Compile(shift_glslang_lines(
                            &text,
                            name,
                            shader.pos.line,
                        )),
                    ),
                    (error, _) => error,
                };
                err(ScriptErrorKind::Shader {
                    shader: name.into(),
                    error,
                })
            })?;
        tangle_ir::verify::verify(&module).map_err(|errors| {
            err(ScriptErrorKind::InvalidModule {
                shader: name.into(),
                errors: errors
                    .0
                    .iter()
                    .map(|e| format!("  {e}"))
                    .collect::<Vec<_>>()
                    .join("\n"),
            })
        })?;
        if let ShaderSource::Inline(_) = shader.source {
            // Source lines of an inline shader, counted from the script's first line.
            for o in origins
                .insts
                .values_mut()
                .chain(origins.terminators.values_mut())
            {
                if let Some(l) = &mut o.line {
                    *l += shader.pos.line;
                }
            }
        }
        Ok((module, origins))
    }
}

/// A buffer's initial bytes: its declared contents, or a `FILE`'s, read relative to
/// `base_dir` (the script's directory).
pub(super) fn initial_bytes(
    buffer: &tangle_amber::Buffer,
    base_dir: &Path,
) -> Result<Vec<u8>, ScriptError> {
    let tangle_amber::Initializer::File { path, binary } = &buffer.init else {
        return Ok(buffer.initial_bytes());
    };
    let full = base_dir.join(path);
    let fail = |error: String| {
        ScriptError::new(
            buffer.pos,
            ScriptErrorKind::BufferFile {
                buffer: buffer.name.clone(),
                path: full.display().to_string(),
                error,
            },
        )
    };
    let contents = std::fs::read(&full).map_err(|e| fail(e.to_string()))?;
    tangle_amber::file_initial_bytes(buffer, &contents, *binary).map_err(|e| fail(e.to_string()))
}

/// glslang's `ERROR: <name>:<line>:` messages with `offset` added to every line number (a
/// line of an inline shader's text is line `offset + line` of the script).
fn shift_glslang_lines(text: &str, name: &str, offset: u32) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let marker = format!(" {name}:");
        let shifted = line.find(&marker).and_then(|at| {
            let start = at + marker.len();
            let digits = line[start..].bytes().take_while(u8::is_ascii_digit).count();
            let n: u32 = line[start..start + digits].parse().ok()?;
            Some(format!(
                "{}{}{}",
                &line[..start],
                n + offset,
                &line[start + digits..]
            ))
        });
        out.push_str(shifted.as_deref().unwrap_or(line));
        out.push('\n');
    }
    out
}

fn kind_name(kind: DescriptorKind) -> &'static str {
    match kind {
        DescriptorKind::Storage => "storage",
        DescriptorKind::Uniform => "uniform",
    }
}
