//! How a `RUN` binds its pipeline's buffers: which bytes go to the engines as memory, and
//! which descriptors view them.
//!
//! A buffer bound at one plain descriptor is bound as the bytes its window sees (the
//! descriptor's own memory, written back to the window after the run). A buffer seen
//! through several descriptors (one buffer at two bindings, or at two elements of
//! `BUFFER_ARRAY`s), and every element of a descriptor array, is bound whole, once, and
//! each descriptor views it from its window's first byte: every view shares its memory,
//! as on a device. Such a view sees the buffer up to its end; a `DESCRIPTOR_RANGE` that
//! stops short of the end cannot be made exact when the shader asks `OpArrayLength`,
//! which is refused.

use std::collections::{BTreeMap, HashMap};

use rustc_hash::FxHashMap;
use std::ops::Range;

use tangle_amber::{Binding, Pipeline, Pos, Script, Window};
use tangle_interp::descriptors::{is_descriptor_array, Views};
use tangle_ir::{Module, Op, TypeData};

use super::{ScriptError, ScriptErrorKind};

/// Bytes of a buffer bound as one memory of a dispatch.
#[derive(Clone, Debug)]
pub(super) struct Memory {
    /// The key it is bound at: the descriptor's (set, binding) for a buffer bound alone;
    /// `(u32::MAX, n)` for the `n`-th buffer of the script bound whole for views.
    pub key: (u32, u32),
    /// The buffer.
    pub buffer: String,
    /// The bytes of the buffer bound (and written back).
    pub window: Range<usize>,
}

/// The memories of one `RUN` and the descriptors that view them.
#[derive(Clone, Debug, Default)]
pub(super) struct Plan {
    /// The memories, each bound once.
    pub memories: Vec<Memory>,
    /// The descriptors bound as views (`tangle_lanes::descriptors`).
    pub views: Views,
}

/// One element of a binding: the buffer and the bytes it sees.
fn elements(b: &Binding) -> Vec<(&str, Window)> {
    if b.array.is_empty() {
        vec![(b.buffer.as_str(), b.window)]
    } else {
        b.array.iter().map(|(n, w)| (n.as_str(), *w)).collect()
    }
}

fn pipeline_error(pos: Pos, message: String) -> ScriptError {
    ScriptError::new(pos, ScriptErrorKind::Pipeline(message))
}

/// Plans the bindings of `pipeline` (running `module`) over the current `buffers`.
pub(super) fn plan(
    script: &Script,
    pipeline: &Pipeline,
    module: &Module,
    buffers: &FxHashMap<String, Vec<u8>>,
) -> Result<Plan, ScriptError> {
    let types = &module.types;
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for b in &pipeline.bindings {
        for (name, _) in elements(b) {
            *uses.entry(name).or_default() += 1;
        }
    }
    let uses_array_length = module.funcs.iter().any(|(_, f)| {
        f.insts
            .iter()
            .any(|(_, i)| matches!(i.op, Op::ArrayLength(_)))
    });
    let mut plan = Plan::default();
    let mut shared: BTreeMap<&str, (u32, u32)> = BTreeMap::new();
    for b in &pipeline.bindings {
        let declared = module.globals.iter().find_map(|(_, g)| {
            (g.decorations.set == Some(b.set) && g.decorations.binding == Some(b.binding))
                .then(|| types.pointer(g.ty).map(|(_, p)| p))
                .flatten()
        });
        let array_len = match declared.map(|p| (p, types.get(p))) {
            Some((p, TypeData::Array { len, .. })) if is_descriptor_array(types, p) => Some(*len),
            Some((p, TypeData::RuntimeArray { .. })) if is_descriptor_array(types, p) => {
                return Err(pipeline_error(
                    b.pos,
                    format!(
                        "the shader declares a runtime-sized descriptor array at set {} binding \
                         {}, which is not supported",
                        b.set, b.binding
                    ),
                ))
            }
            _ => None,
        };
        let elems = elements(b);
        match array_len {
            Some(n) if n as usize != elems.len() => {
                return Err(pipeline_error(
                    b.pos,
                    format!(
                        "the shader declares a descriptor array of {n} at set {} binding {}, but \
                         the pipeline binds {} buffer(s) there",
                        b.set,
                        b.binding,
                        elems.len()
                    ),
                ))
            }
            None if !b.array.is_empty() && declared.is_some() => {
                return Err(pipeline_error(
                    b.pos,
                    format!(
                        "`BUFFER_ARRAY` of {} at set {} binding {}, but the shader declares a \
                         single buffer there",
                        elems.len(),
                        b.set,
                        b.binding
                    ),
                ))
            }
            _ => {}
        }
        let mut views = Vec::new();
        for (name, window) in elems {
            let bytes = &buffers[name];
            let Some(range) = window.bytes(bytes.len()) else {
                return Err(pipeline_error(
                    b.pos,
                    format!(
                        "buffer `{name}` at set {} binding {}: the descriptor's bytes {}..{} do \
                         not fit its {} bytes",
                        b.set,
                        b.binding,
                        window.start(),
                        window.range.map_or("the end".to_string(), |r| {
                            (window.start() + r as usize).to_string()
                        }),
                        bytes.len()
                    ),
                ));
            };
            if array_len.is_none() && uses[name] == 1 {
                plan.memories.push(Memory {
                    key: (b.set, b.binding),
                    buffer: name.to_string(),
                    window: range,
                });
                continue;
            }
            if range.end != bytes.len() && uses_array_length {
                return Err(pipeline_error(
                    b.pos,
                    format!(
                        "buffer `{name}` is seen through several descriptors (or a descriptor \
                         array) and its descriptor at set {} binding {} stops at byte {} of {}: \
                         the views share the whole buffer, so the shader's OpArrayLength cannot \
                         be computed exactly",
                        b.set,
                        b.binding,
                        range.end,
                        bytes.len()
                    ),
                ));
            }
            let next = shared.len();
            let key = *shared.entry(name).or_insert_with(|| {
                let index = script
                    .buffers
                    .iter()
                    .position(|x| x.name == name)
                    .unwrap_or(next);
                (u32::MAX, index as u32)
            });
            if !plan.memories.iter().any(|m| m.key == key) {
                plan.memories.push(Memory {
                    key,
                    buffer: name.to_string(),
                    window: 0..bytes.len(),
                });
            }
            views.push((key, range.start as u64));
        }
        if !views.is_empty() {
            plan.views.insert((b.set, b.binding), views);
        }
    }
    Ok(plan)
}
