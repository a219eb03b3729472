//! The data model a parsed script produces: shaders, buffers (with their memory layout and
//! initial bytes), pipelines and the ordered command list.

mod data;

pub use data::*;

use std::sync::Arc;

use crate::error::Pos;

/// How a buffer's contents start out.
#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    /// `FORMAT` buffer with no data: zero elements.
    Empty,
    /// `SIZE n FILL v`: every component is `v` (bit pattern of the scalar type).
    Fill(u64),
    /// `SIZE n SERIES_FROM start INC_BY inc` on a scalar type.
    Series {
        /// First value.
        start: SeriesNum,
        /// Step.
        inc: SeriesNum,
    },
    /// `DATA ... END`: bit patterns, component by component.
    Data(Vec<u64>),
    /// `SIZE n FILE [TEXT|BINARY] path`: loaded by the runner, relative to the script
    /// ([`crate::file_initial_bytes`]); until then the buffer is `n` zero elements.
    File {
        /// The path as written.
        path: String,
        /// `BINARY` (the buffer's bytes) rather than `TEXT` (values, as `DATA` has them).
        binary: bool,
    },
}

/// A `SERIES_FROM` number: integer types add with wrap-around, float types in double
/// precision (rounded to `float` per element), as amber's parser does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SeriesNum {
    /// For integer types (two's complement bits).
    Int(u64),
    /// For `float`/`double`.
    Float(f64),
}

/// A `BUFFER`.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    /// Name.
    pub name: String,
    /// Where it is declared.
    pub pos: Pos,
    /// Element type and layout.
    pub format: ElementFormat,
    /// The Vulkan format name for `BUFFER ... FORMAT`.
    pub vk_format: Option<String>,
    /// Number of elements.
    pub element_count: usize,
    /// How it starts.
    pub init: Initializer,
}

impl Buffer {
    /// Size in bytes: element count times stride.
    pub fn size_in_bytes(&self) -> usize {
        self.element_count * self.format.stride()
    }

    /// The buffer's initial contents, padding zeroed, little-endian.
    pub fn initial_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.size_in_bytes()];
        let scalar = self.format.ty.scalar;
        let s = scalar.size();
        let count = self.element_count * self.format.ty.values_per_element();
        let mut put = |i: usize, bits: u64| {
            let at = self.format.value_offset(i);
            out[at..at + s].copy_from_slice(&bits.to_le_bytes()[..s]);
        };
        match &self.init {
            Initializer::Empty | Initializer::File { .. } => {}
            // All zero already: the common `FILL 0` costs nothing per value.
            Initializer::Fill(0) => {}
            Initializer::Fill(bits) => (0..count).for_each(|i| put(i, *bits)),
            Initializer::Data(values) => {
                values.iter().enumerate().for_each(|(i, b)| put(i, *b));
            }
            Initializer::Series { start, inc } => match (start, inc) {
                (SeriesNum::Float(a), SeriesNum::Float(d)) => {
                    let mut v = *a;
                    for i in 0..count {
                        put(i, scalar.encode_f64(v));
                        v += d;
                    }
                }
                (SeriesNum::Int(a), SeriesNum::Int(d)) => {
                    let mut v = *a;
                    for i in 0..count {
                        put(i, v);
                        v = v.wrapping_add(*d);
                    }
                }
                _ => unreachable!("the parser makes both series numbers the same kind"),
            },
        }
        out
    }
}

/// Where a shader's text comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum ShaderSource {
    /// Inline between the `SHADER` line and `END`, verbatim (each line with its newline).
    Inline(String),
    /// `VIRTUAL_FILE <path>`: the text of a `VIRTUAL_FILE` block declared earlier.
    VirtualFile {
        /// The virtual path.
        path: String,
        /// Its text.
        text: String,
    },
    /// `FILE [TEXT|BINARY] <path>`: for the runner to load, relative to the script.
    File {
        /// Path as written.
        path: String,
        /// `BINARY` (a SPIR-V binary) rather than text.
        binary: bool,
    },
}

/// The language of a shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShaderFormat {
    /// `GLSL`
    Glsl,
    /// `SPIRV-ASM`
    SpirvAsm,
    /// `SPIRV-HEX`
    SpirvHex,
    /// `SPIRV-BIN` (only from `FILE BINARY`)
    SpirvBin,
}

/// A `SHADER compute ...`.
#[derive(Clone, Debug, PartialEq)]
pub struct Shader {
    /// Name.
    pub name: String,
    /// Where it is declared.
    pub pos: Pos,
    /// Language.
    pub format: ShaderFormat,
    /// `TARGET_ENV`, e.g. `spv1.3` or `vulkan1.1`, as written.
    pub target_env: Option<String>,
    /// The text.
    pub source: ShaderSource,
}

/// A `SPECIALIZE <id> AS <type> <value>` on an `ATTACH`.
#[derive(Clone, Debug, PartialEq)]
pub struct Specialization {
    /// The SpecId.
    pub id: u32,
    /// `uint32`, `int32` or `float`.
    pub ty: Scalar,
    /// The value's bit pattern.
    pub bits: u64,
}

/// An `ATTACH` in a pipeline.
#[derive(Clone, Debug, PartialEq)]
pub struct Attach {
    /// The shader.
    pub shader: String,
    /// `ENTRY_POINT`, `main` unless given.
    pub entry_point: String,
    /// Specialization constants, in script order.
    pub specializations: Vec<Specialization>,
    /// Where.
    pub pos: Pos,
}

/// Descriptor kind in a `BIND BUFFER ... AS <kind>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DescriptorKind {
    /// `storage`
    Storage,
    /// `uniform`
    Uniform,
}

/// A `BIND BUFFER <b> AS storage|uniform DESCRIPTOR_SET d BINDING n`.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    /// The buffer.
    pub buffer: String,
    /// Storage or uniform.
    pub kind: DescriptorKind,
    /// Descriptor set (0 when the script leaves it out, as amber does).
    pub set: u32,
    /// Binding number.
    pub binding: u32,
    /// The bytes of the buffer the descriptor sees.
    pub window: Window,
    /// For `BIND BUFFER_ARRAY`, every element's buffer and window in order (the first is
    /// `buffer` and `window`); empty for `BIND BUFFER`.
    pub array: Vec<(String, Window)>,
    /// Where.
    pub pos: Pos,
}

/// The part of a buffer a descriptor sees: from `DESCRIPTOR_OFFSET` plus the dynamic
/// `OFFSET` (`storage_dynamic`/`uniform_dynamic`), `DESCRIPTOR_RANGE` bytes or to the end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Window {
    /// `OFFSET` of a dynamic binding, in bytes; `None` for a plain one.
    pub dynamic_offset: Option<u32>,
    /// `DESCRIPTOR_OFFSET`, in bytes.
    pub descriptor_offset: u32,
    /// `DESCRIPTOR_RANGE`, in bytes; `None` for the rest of the buffer.
    pub range: Option<u32>,
}

impl Window {
    /// The first byte the descriptor sees.
    pub fn start(&self) -> usize {
        self.descriptor_offset as usize + self.dynamic_offset.unwrap_or(0) as usize
    }

    /// The byte range of a buffer of `len` bytes the descriptor sees, or `None` when it
    /// does not fit in the buffer.
    pub fn bytes(&self, len: usize) -> Option<std::ops::Range<usize>> {
        let start = self.start();
        let end = match self.range {
            Some(r) => start.checked_add(r as usize)?,
            None => len,
        };
        (start <= end && end <= len).then_some(start..end)
    }
}

/// `REQUIRED_SIZE` in a `SUBGROUP` block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequiredSize {
    /// A power of two.
    Size(u32),
    /// `MIN`: the device's minimum subgroup size.
    Min,
    /// `MAX`: the device's maximum subgroup size.
    Max,
}

/// A `SUBGROUP <shader> ... END` block.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Subgroup {
    /// The attached shader it applies to.
    pub shader: String,
    /// `FULLY_POPULATED on`: every subgroup is full (workgroup x size a multiple of it).
    pub fully_populated: bool,
    /// `VARYING_SIZE on`: the subgroup size may vary.
    pub varying_size: bool,
    /// `REQUIRED_SIZE`.
    pub required_size: Option<RequiredSize>,
    /// `MIN_SIZE`.
    pub min_size: Option<u32>,
    /// `MAX_SIZE`.
    pub max_size: Option<u32>,
    /// Where.
    pub pos: Pos,
}

/// A `PIPELINE compute ...` (or `DERIVE_PIPELINE`, flattened).
#[derive(Clone, Debug, PartialEq)]
pub struct Pipeline {
    /// Name.
    pub name: String,
    /// Where.
    pub pos: Pos,
    /// Attached shaders (one compute shader in practice).
    pub attachments: Vec<Attach>,
    /// Descriptor bindings.
    pub bindings: Vec<Binding>,
    /// The `BIND BUFFER <b> AS push_constant` buffer.
    pub push_constant: Option<String>,
    /// Subgroup size control, per shader.
    pub subgroups: Vec<Subgroup>,
    /// `SHADER_OPTIMIZATION <shader> <pass>... END`, recorded.
    pub optimizations: Vec<(String, Vec<String>)>,
}

/// A comparator of `EXPECT <buf> IDX ...`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparator {
    /// `EQ` (floats: within a relative 1e-8, as amber's verifier does)
    Eq,
    /// `NE`
    Ne,
    /// `LT`
    Lt,
    /// `LE`
    Le,
    /// `GT`
    Gt,
    /// `GE`
    Ge,
    /// `EQ` with `TOLERANCE`.
    FuzzyEq,
}

impl Comparator {
    /// The operator in failure messages, as amber prints it.
    pub fn symbol(self) -> &'static str {
        match self {
            Comparator::Eq => "==",
            Comparator::Ne => "!=",
            Comparator::Lt => "<",
            Comparator::Le => "<=",
            Comparator::Gt => ">",
            Comparator::Ge => ">=",
            Comparator::FuzzyEq => "~=",
        }
    }
}

/// One `TOLERANCE` value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// The amount.
    pub value: f64,
    /// Written with `%`: relative to the expected value.
    pub percent: bool,
}

/// What an `EXPECT` checks.
#[derive(Clone, Debug, PartialEq)]
pub enum ExpectKind {
    /// `EXPECT <buf> IDX <byte offset> [TOLERANCE t...] <cmp> <value>+`
    Values {
        /// The buffer. Shared: the `EXPECT`s of a script that name the same buffer one after
        /// another hold one copy of its name.
        buffer: Arc<str>,
        /// Its element format (copied from the declaration).
        format: ElementFormat,
        /// Byte offset (must be a multiple of the element stride).
        offset: usize,
        /// Comparator.
        cmp: Comparator,
        /// `TOLERANCE` values (1–4; only the first is used for buffers, as in amber).
        tolerance: Vec<Tolerance>,
        /// Expected values, component by component, as bit patterns of the scalar type.
        values: Vec<u64>,
    },
    /// `EXPECT <a> EQ_BUFFER <b>`: same format, same size, same bytes.
    EqBuffer {
        /// Actual.
        a: String,
        /// Reference.
        b: String,
        /// Format of `a`.
        format_a: ElementFormat,
        /// Format of `b`.
        format_b: ElementFormat,
    },
    /// `EXPECT <a> RMSE_BUFFER <b> TOLERANCE t`: root mean square error of all components
    /// at most `t`.
    RmseBuffer {
        /// Actual.
        a: String,
        /// Reference.
        b: String,
        /// Format of `a`.
        format_a: ElementFormat,
        /// Format of `b`.
        format_b: ElementFormat,
        /// Largest allowed RMSE.
        tolerance: f64,
    },
    /// `EXPECT <a> EQ_HISTOGRAM_EMD_BUFFER <b> TOLERANCE t`: 8-bit component histograms with
    /// earth mover's distance at most `t`.
    HistogramEmdBuffer {
        /// Actual.
        a: String,
        /// Reference.
        b: String,
        /// Format of `a`.
        format_a: ElementFormat,
        /// Format of `b`.
        format_b: ElementFormat,
        /// Largest allowed distance.
        tolerance: f64,
    },
}

/// An `EXPECT` command.
#[derive(Clone, Debug, PartialEq)]
pub struct Expect {
    /// Where (the `EXPECT` keyword).
    pub pos: Pos,
    /// What it checks.
    pub kind: ExpectKind,
}

/// A `RUN <pipeline> x y z`.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The pipeline.
    pub pipeline: String,
    /// Workgroup counts. A zero count is a dispatch that runs nothing (amber accepts it).
    pub groups: [u32; 3],
    /// `RUN TIMED_EXECUTION`: amber times the dispatch; tangle accepts it and times nothing.
    pub timed_execution: bool,
    /// Where.
    pub pos: Pos,
}

/// One command, in script order.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Dispatch.
    Run(Run),
    /// Check.
    Expect(Expect),
    /// `COPY <from> TO <to>`: the destination becomes a byte copy of the origin, size
    /// included (amber mirrors the element count); same element type checked by the parser.
    Copy {
        /// Source.
        from: String,
        /// Destination.
        to: String,
        /// Where.
        pos: Pos,
    },
    /// `REPEAT n ... END`.
    Repeat {
        /// How many times.
        count: u32,
        /// The body.
        commands: Vec<Command>,
        /// Where.
        pos: Pos,
    },
}

/// A parsed script.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Script {
    /// Shaders, in declaration order.
    pub shaders: Vec<Shader>,
    /// Buffers, in declaration order.
    pub buffers: Vec<Buffer>,
    /// Pipelines, in declaration order.
    pub pipelines: Vec<Pipeline>,
    /// The commands to execute, in order.
    pub commands: Vec<Command>,
    /// `DEVICE_FEATURE` names.
    pub device_features: Vec<String>,
    /// `DEVICE_PROPERTY` names.
    pub device_properties: Vec<String>,
    /// `DEVICE_EXTENSION` names.
    pub device_extensions: Vec<String>,
    /// `INSTANCE_EXTENSION` names.
    pub instance_extensions: Vec<String>,
    /// `SET ENGINE_DATA fence_timeout_ms n`.
    pub fence_timeout_ms: Option<u32>,
    /// `VIRTUAL_FILE <path> ... END` blocks.
    pub virtual_files: Vec<(String, String)>,
}

impl Script {
    /// The shader called `name`.
    pub fn shader(&self, name: &str) -> Option<&Shader> {
        self.shaders.iter().find(|s| s.name == name)
    }

    /// The buffer called `name`.
    pub fn buffer(&self, name: &str) -> Option<&Buffer> {
        self.buffers.iter().find(|b| b.name == name)
    }

    /// The pipeline called `name`.
    pub fn pipeline(&self, name: &str) -> Option<&Pipeline> {
        self.pipelines.iter().find(|p| p.name == name)
    }
}
