//! A SPIR-V disassembler whose text equals spirv-dis's (SPIRV-Tools 2025.5): the header
//! comments, instructions indented so that `=` lines up, ids by their friendly names
//! ([`names`]) or raw (`--raw-id`), numbers by their type ([`numbers`]), enumerants and
//! masks by their grammar names, extended instructions by name. Its output goes back
//! through [`crate::assemble`] (and spirv-as) to the same words.
//!
//! Decoding uses rspirv's binary parser, which types every operand from the grammar
//! (including context-dependent literals, whose width it tracks); what is written here is
//! how spirv-dis prints them.

mod names;
mod numbers;

use std::collections::HashMap;
use std::fmt::Write as _;

use rspirv::binary::{Consumer, Disassemble, ParseAction};
use rspirv::dr::{self, Operand};
use spirv::Op;

use crate::grammar::ExtInstSet;

/// How the text is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DisOptions {
    /// The `; SPIR-V`, version, generator, bound and schema comments (spirv-dis's default;
    /// `--no-header` leaves them out).
    pub header: bool,
    /// Instructions indented so that result ids end in column 12 (spirv-dis's default;
    /// `--no-indent` leaves it out).
    pub indent: bool,
    /// Ids as numbers (`--raw-id`) rather than spirv-dis's friendly names.
    pub raw_ids: bool,
}

impl Default for DisOptions {
    fn default() -> Self {
        Self {
            header: true,
            indent: true,
            raw_ids: false,
        }
    }
}

/// A module the disassembler cannot read.
#[derive(Debug, thiserror::Error)]
#[error("cannot disassemble: {0}")]
pub struct DisError(String);

/// The text of the module `words`, as spirv-dis prints it with `options`.
pub fn disassemble(words: &[u32], options: DisOptions) -> Result<String, DisError> {
    let mut collected = Collected::default();
    rspirv::binary::parse_words(words, &mut collected).map_err(|e| DisError(e.to_string()))?;
    if collected.header.is_none() || words.len() < 5 {
        return Err(DisError("no module header".into()));
    }
    // The header as written (rspirv's parser reports a header of its own making).
    let (version, generator, bound, schema) = (words[1], words[2], words[3], words[4]);
    let mut out = String::new();
    if options.header {
        let _ = writeln!(out, "; SPIR-V");
        let _ = writeln!(
            out,
            "; Version: {}.{}",
            version >> 16 & 0xff,
            version >> 8 & 0xff
        );
        let _ = writeln!(
            out,
            "; Generator: {}; {}",
            generator_name(generator >> 16),
            generator & 0xffff
        );
        let _ = writeln!(out, "; Bound: {bound}");
        let _ = writeln!(out, "; Schema: {schema}");
    }
    let mut context = Context::default();
    if !options.raw_ids {
        let mut naming = Context::default();
        context.names = names::Names::of(&collected.instructions, |inst| {
            naming.learn(inst);
            match inst.operands.first() {
                Some(Operand::LiteralBit32(v)) => {
                    Some(naming.literal(u64::from(*v), inst.result_type))
                }
                Some(Operand::LiteralBit64(v)) => Some(naming.literal(*v, inst.result_type)),
                _ => None,
            }
        });
    }
    for inst in &collected.instructions {
        context.learn(inst);
        let text = context.instruction(inst);
        match (inst.result_id, options.indent) {
            (Some(id), true) => {
                let _ = writeln!(out, "{:>12} = {text}", context.id(id));
            }
            (Some(id), false) => {
                let _ = writeln!(out, "{} = {text}", context.id(id));
            }
            (None, true) => {
                let _ = writeln!(out, "{:15}{text}", "");
            }
            (None, false) => {
                let _ = writeln!(out, "{text}");
            }
        }
    }
    Ok(out)
}

/// The instructions of a module in order, as rspirv's parser decodes them.
#[derive(Default)]
struct Collected {
    header: Option<dr::ModuleHeader>,
    instructions: Vec<dr::Instruction>,
}

impl Consumer for Collected {
    fn initialize(&mut self) -> ParseAction {
        ParseAction::Continue
    }
    fn finalize(&mut self) -> ParseAction {
        ParseAction::Continue
    }
    fn consume_header(&mut self, header: dr::ModuleHeader) -> ParseAction {
        self.header = Some(header);
        ParseAction::Continue
    }
    fn consume_instruction(&mut self, inst: dr::Instruction) -> ParseAction {
        self.instructions.push(inst);
        ParseAction::Continue
    }
}

/// A numeric type, for printing literals of its values.
#[derive(Clone, Copy)]
enum Numeric {
    Int { width: u32, signed: bool },
    Float { width: u32 },
}

/// What printing needs to know from earlier instructions.
#[derive(Default)]
struct Context {
    /// Numeric types by id.
    numeric: HashMap<u32, Numeric>,
    /// The type of each value by id.
    type_of: HashMap<u32, u32>,
    /// Extended instruction sets by import id.
    imports: HashMap<u32, Option<ExtInstSet>>,
    /// Friendly names (empty for raw ids).
    names: names::Names,
}

impl Context {
    /// `%name` or `%number`.
    fn id(&self, id: u32) -> String {
        match self.names.get(id) {
            Some(name) => format!("%{name}"),
            None => format!("%{id}"),
        }
    }

    fn learn(&mut self, inst: &dr::Instruction) {
        let (Some(id), ops) = (inst.result_id, &inst.operands) else {
            return;
        };
        if let Some(ty) = inst.result_type {
            self.type_of.insert(id, ty);
        }
        match (inst.class.opcode, ops.as_slice()) {
            (Op::TypeInt, [Operand::LiteralBit32(w), Operand::LiteralBit32(s)]) => {
                self.numeric.insert(
                    id,
                    Numeric::Int {
                        width: *w,
                        signed: *s != 0,
                    },
                );
            }
            (Op::TypeFloat, [Operand::LiteralBit32(w), ..]) => {
                self.numeric.insert(id, Numeric::Float { width: *w });
            }
            (Op::ExtInstImport, [Operand::LiteralString(name)]) => {
                self.imports.insert(id, ExtInstSet::from_import_name(name));
            }
            _ => {}
        }
    }

    /// `OpName <type> <operands>`, without the result id.
    fn instruction(&self, inst: &dr::Instruction) -> String {
        let opname = inst.class.opname;
        let mut text = format!("Op{}", older_spelling(opname).unwrap_or(opname));
        if let Some(ty) = inst.result_type {
            let _ = write!(text, " {}", self.id(ty));
        }
        let op = inst.class.opcode;
        let mut set = None;
        for (i, operand) in inst.operands.iter().enumerate() {
            text.push(' ');
            let typed_by = match op {
                Op::Constant | Op::SpecConstant if i == 0 => inst.result_type,
                // Selector, default, then (literal, label) pairs.
                Op::Switch if i >= 2 && i % 2 == 0 => match inst.operands.first() {
                    Some(Operand::IdRef(selector)) => self.type_of.get(selector).copied(),
                    _ => None,
                },
                _ => None,
            };
            match operand {
                Operand::IdRef(id) if op == Op::ExtInst && i == 0 => {
                    set = self.imports.get(id).copied().flatten();
                    text.push_str(&self.id(*id));
                }
                Operand::IdRef(id) | Operand::IdScope(id) | Operand::IdMemorySemantics(id) => {
                    text.push_str(&self.id(*id));
                }
                Operand::LiteralExtInstInteger(n) => match set.and_then(|s| s.name_of(*n)) {
                    Some(name) => text.push_str(name),
                    None => {
                        let _ = write!(text, "{n}");
                    }
                },
                Operand::LiteralSpecConstantOpInteger(o) => {
                    let _ = write!(text, "{o:?}");
                }
                Operand::LiteralString(s) => {
                    text.push('"');
                    for c in s.chars() {
                        if c == '"' || c == '\\' {
                            text.push('\\');
                        }
                        text.push(c);
                    }
                    text.push('"');
                }
                Operand::LiteralBit32(v) => text.push_str(&self.literal(u64::from(*v), typed_by)),
                Operand::LiteralBit64(v) => text.push_str(&self.literal(*v, typed_by)),
                other => {
                    let name = other.disassemble();
                    text.push_str(older_spelling(&name).unwrap_or(&name));
                }
            }
        }
        text
    }

    fn literal(&self, bits: u64, ty: Option<u32>) -> String {
        match ty.and_then(|t| self.numeric.get(&t)) {
            Some(Numeric::Int { width, signed }) => numbers::integer(bits, *width, *signed),
            Some(Numeric::Float { width }) => numbers::float(bits, *width),
            None => bits.to_string(),
        }
    }
}

/// Where spirv-dis (SPIRV-Tools 2025.5) still prints an enumerant or opcode by an older
/// alias than the grammar rspirv carries (SDK 1.4.341), the name it prints.
fn older_spelling(name: &str) -> Option<&'static str> {
    match name {
        "GroupNonUniformPartitionedEXT" => Some("GroupNonUniformPartitionedNV"),
        "GroupNonUniformPartitionEXT" => Some("GroupNonUniformPartitionNV"),
        "PartitionedReduceEXT" => Some("PartitionedReduceNV"),
        "PartitionedInclusiveScanEXT" => Some("PartitionedInclusiveScanNV"),
        "PartitionedExclusiveScanEXT" => Some("PartitionedExclusiveScanNV"),
        _ => None,
    }
}

/// The generator's name as spirv-dis prints it, from the tool ids of the SPIR-V registry
/// (`spir-v.xml`): the vendor, then the tool where one is registered.
fn generator_name(tool: u32) -> String {
    const TOOLS: &[(u32, &str)] = &[
        (0, "Khronos"),
        (1, "LunarG"),
        (2, "Valve"),
        (3, "Codeplay"),
        (4, "NVIDIA"),
        (5, "ARM"),
        (6, "Khronos LLVM/SPIR-V Translator"),
        (7, "Khronos SPIR-V Tools Assembler"),
        (8, "Khronos Glslang Reference Front End"),
        (9, "Qualcomm"),
        (10, "AMD"),
        (11, "Intel"),
        (12, "Imagination"),
        (13, "Google Shaderc over Glslang"),
        (14, "Google spiregg"),
        (15, "Google rspirv"),
        (16, "X-LEGEND Mesa-IR/SPIR-V Translator"),
        (17, "Khronos SPIR-V Tools Linker"),
        (18, "Wine VKD3D Shader Compiler"),
        (19, "Tellusim Clay Shader Compiler"),
        (20, "W3C WebGPU Group WHLSL Shader Translator"),
        (21, "Google Clspv"),
        (22, "LLVM MLIR SPIR-V Serializer"),
        (23, "Google Tint Compiler"),
        (24, "Google ANGLE Shader Compiler"),
        (25, "Netease Games Messiah Shader Compiler"),
        (26, "Xenia Xenia Emulator Microcode Translator"),
        (27, "Embark Studios Rust GPU Compiler Backend"),
        (28, "gfx-rs community Naga"),
        (29, "Mikkosoft Productions MSP Shader Compiler"),
        (30, "SpvGenTwo community SpvGenTwo SPIR-V IR Tools"),
        (31, "Google Skia SkSL"),
        (32, "TornadoVM Beehive SPIRV Toolkit"),
        (33, "DragonJoker ShaderWriter"),
        (34, "Rayan Hatout SPIRVSmith"),
        (35, "Saarland University Shady"),
        (36, "Taichi Graphics Taichi"),
        (37, "heroseh Hero C Compiler"),
        (38, "Meta SparkSL"),
        (39, "SirLynix Nazara ShaderLang Compiler"),
        (40, "Khronos Slang Compiler"),
        (41, "Zig Software Foundation Zig Compiler"),
        (42, "Rendong Liang spq"),
        (43, "LLVM LLVM SPIR-V Backend"),
        (44, "Robert Konrad Kongruent"),
        (45, "Kitsunebi Games Nuvk SPIR-V Emitter and DLSL compiler"),
        (46, "Nintendo"),
        (47, "ARM"),
        (48, "Goopax"),
        (49, "Icyllis Milica Arc3D Shader Compiler"),
    ];
    TOOLS
        .iter()
        .find(|(id, _)| *id == tool)
        .map_or_else(|| format!("Unknown({tool})"), |(_, name)| name.to_string())
}
