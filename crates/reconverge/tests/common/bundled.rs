//! The compute pipelines of bundled AmberScript scripts, loaded as the runner loads them, for
//! the tests that run every bundled shader (the uniformity check, the lowering on the machine).

use std::path::Path;

use tangle_amber::{ShaderFormat, ShaderSource};
use tangle_ir::Module;
use tangle_run::source::{load_shader, ShaderKind};

/// One pipeline of a script: its module, entry point, buffers and specialization.
pub struct Pipeline {
    /// `<script path> <pipeline name>`.
    pub name: String,
    /// The attached shader, loaded.
    pub module: Module,
    /// The entry point.
    pub entry: String,
    /// Each bound buffer's initial bytes by (set, binding).
    pub buffers: Vec<((u32, u32), Vec<u8>)>,
    /// Specialization constants by id.
    pub spec: Vec<(u32, u64)>,
}

/// Every pipeline of every `.amber` script directly under `dir`, scripts in name order.
pub fn amber_pipelines(dir: &Path) -> Vec<Pipeline> {
    let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .expect("bundled directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "amber"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).expect("script");
        let script = tangle_amber::parse(&text).expect("bundled scripts parse");
        for pipe in &script.pipelines {
            for attach in &pipe.attachments {
                let shader = script
                    .shaders
                    .iter()
                    .find(|s| s.name == attach.shader)
                    .expect("attached shader");
                let bytes = match &shader.source {
                    ShaderSource::Inline(t) => t.clone().into_bytes(),
                    ShaderSource::VirtualFile { text, .. } => text.clone().into_bytes(),
                    ShaderSource::File { path: p, .. } => {
                        std::fs::read(path.parent().expect("dir").join(p)).expect("file")
                    }
                };
                let kind = match shader.format {
                    ShaderFormat::Glsl => ShaderKind::Glsl,
                    ShaderFormat::SpirvAsm => ShaderKind::SpirvAsm,
                    ShaderFormat::SpirvHex => ShaderKind::SpirvHex,
                    ShaderFormat::SpirvBin => ShaderKind::SpirvBinary,
                };
                let env = shader.target_env.clone().unwrap_or("vulkan1.1".into());
                let module = load_shader(kind, &bytes, &shader.name, &env)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let buffers = pipe
                    .bindings
                    .iter()
                    .filter_map(|b| {
                        let buf = script.buffers.iter().find(|x| x.name == b.buffer)?;
                        Some(((b.set, b.binding), buf.initial_bytes()))
                    })
                    .collect();
                out.push(Pipeline {
                    name: format!("{} {}", path.display(), pipe.name),
                    module,
                    entry: attach.entry_point.clone(),
                    buffers,
                    spec: attach
                        .specializations
                        .iter()
                        .map(|s| (s.id, s.bits))
                        .collect(),
                });
            }
        }
    }
    out
}
