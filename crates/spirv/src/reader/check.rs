//! Whole-module checks on the parsed instructions, before lowering: the rules of the binary
//! form that lowering would otherwise have to skip or merge silently.
//!
//! - every result id is non-zero and below the header's id bound;
//! - every id an instruction names is defined somewhere in the module;
//! - module-level instructions come in the order of the logical layout (SPIR-V 2.4);
//! - types other than arrays, structs and pointers are declared once;
//! - no target has the same decoration twice;
//! - `OpMemberName` and `OpMemberDecorate` name a struct and one of its members;
//! - literals of integer types narrower than 32 bits are zero- or sign-extended, and those of
//!   16-bit floats have zero high bits (SPIR-V 2.2.1).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use rspirv::dr::{Instruction, Operand as RawOp};
use spirv::{Decoration, Op as SpvOp};

use super::binary::{Located, RawModule};
use super::{Position, ReadError, ReadErrorKind};

type Res = Result<(), ReadError>;

fn fail(pos: Position, kind: ReadErrorKind) -> Res {
    Err(ReadError {
        kind,
        pos: Some(pos),
    })
}

/// Runs every check; the first problem, in module order within each check, is the error.
pub(crate) fn check(raw: &RawModule) -> Res {
    let defs = result_ids(raw)?;
    references(raw, &defs)?;
    layout(raw)?;
    unique_types(raw)?;
    decorations(raw, &defs)?;
    literals(raw, &defs)
}

/// The defining instruction of every result id.
fn result_ids(raw: &RawModule) -> Result<HashMap<u32, &Instruction>, ReadError> {
    let mut defs = HashMap::default();
    for Located { inst, pos } in &raw.insts {
        let Some(id) = inst.result_id else { continue };
        if id == 0 {
            fail(*pos, ReadErrorKind::Malformed("result id 0".into()))?;
        }
        if id >= raw.bound {
            let bound = raw.bound;
            fail(
                *pos,
                ReadErrorKind::Malformed(format!(
                    "result id %{id} is not below the header's id bound {bound}"
                )),
            )?;
        }
        if defs.insert(id, inst).is_some() {
            fail(*pos, ReadErrorKind::Redefined(id))?;
        }
    }
    Ok(defs)
}

/// Every id operand and result type names a defined id (forward references included).
fn references(raw: &RawModule, defs: &HashMap<u32, &Instruction>) -> Res {
    for Located { inst, pos } in &raw.insts {
        let ids = inst
            .result_type
            .into_iter()
            .chain(inst.operands.iter().filter_map(|o| match o {
                RawOp::IdRef(id) | RawOp::IdScope(id) | RawOp::IdMemorySemantics(id) => Some(*id),
                _ => None,
            }));
        for id in ids {
            if !defs.contains_key(&id) {
                fail(*pos, ReadErrorKind::UndefinedId(id))?;
            }
        }
    }
    Ok(())
}

/// The logical layout section of a module-level instruction; `None` for those that may not
/// appear outside a function.
fn section(inst: &Instruction) -> Option<u8> {
    use SpvOp::*;
    let op = inst.class.opcode;
    Some(match op {
        Capability => 0,
        Extension => 1,
        ExtInstImport => 2,
        MemoryModel => 3,
        EntryPoint => 4,
        ExecutionMode | ExecutionModeId => 5,
        String | SourceExtension | Source | SourceContinued => 6,
        Name | MemberName => 7,
        ModuleProcessed => 8,
        Decorate | MemberDecorate | DecorationGroup | GroupDecorate | GroupMemberDecorate
        | DecorateId | DecorateString | MemberDecorateString => 9,
        Function => 11,
        Variable | Undef | Line | NoLine | ExtInst => 10,
        _ if is_type(inst) || is_constant(inst) => 10,
        _ => return None,
    })
}

fn is_type(inst: &Instruction) -> bool {
    inst.class.opname.starts_with("Type")
}

fn is_constant(inst: &Instruction) -> bool {
    inst.class.opname.starts_with("Constant") || inst.class.opname.starts_with("SpecConstant")
}

const SECTION_NAMES: [&str; 12] = [
    "capabilities",
    "extensions",
    "extended instruction set imports",
    "the memory model",
    "entry points",
    "execution modes",
    "debug sources and strings",
    "names",
    "module-processed notes",
    "annotations",
    "types, constants and global variables",
    "functions",
];

/// Module-level instructions in layout order, one memory model, and nothing but functions
/// after the first function.
fn layout(raw: &RawModule) -> Res {
    let mut current = 0u8;
    let mut memory_models = 0;
    let mut in_function = false;
    for Located { inst, pos } in &raw.insts {
        let op = inst.class.opcode;
        if in_function {
            in_function = op != SpvOp::FunctionEnd;
            continue;
        }
        // OpLine and OpNoLine may also stand between functions (glslang -g puts one before
        // each OpFunction; spirv-val accepts it): they do not move the layout back.
        if matches!(op, SpvOp::Line | SpvOp::NoLine) && current >= 10 {
            continue;
        }
        let Some(s) = section(inst) else {
            return fail(
                *pos,
                ReadErrorKind::Misplaced(format!("Op{op:?} outside a function")),
            );
        };
        if s < current {
            let (here, there) = (
                SECTION_NAMES[usize::from(s)],
                SECTION_NAMES[usize::from(current)],
            );
            return fail(
                *pos,
                ReadErrorKind::Misplaced(format!(
                    "Op{op:?} belongs with {here}, which come before {there} (SPIR-V 2.4)"
                )),
            );
        }
        current = s;
        if op == SpvOp::MemoryModel {
            memory_models += 1;
            if memory_models > 1 {
                return fail(
                    *pos,
                    ReadErrorKind::Misplaced("a second OpMemoryModel".into()),
                );
            }
        }
        in_function = op == SpvOp::Function;
    }
    Ok(())
}

/// Non-aggregate types (all but arrays, structs and pointers) declared at most once.
fn unique_types(raw: &RawModule) -> Res {
    let mut seen: HashMap<(SpvOp, &[RawOp]), u32> = HashMap::default();
    for Located { inst, pos } in &raw.insts {
        let op = inst.class.opcode;
        let aggregate = matches!(
            op,
            SpvOp::TypeArray | SpvOp::TypeRuntimeArray | SpvOp::TypeStruct | SpvOp::TypePointer
        );
        if aggregate || !is_type(inst) {
            continue;
        }
        let id = inst.result_id.unwrap_or(0);
        if let Some(first) = seen.insert((op, inst.operands.as_slice()), id) {
            return fail(
                *pos,
                ReadErrorKind::Duplicate(format!(
                    "Op{op:?} %{id} declares the same type as %{first}"
                )),
            );
        }
    }
    Ok(())
}

/// No decoration twice on one target or member; member names and decorations on struct
/// members that exist.
fn decorations(raw: &RawModule, defs: &HashMap<u32, &Instruction>) -> Res {
    let mut seen: HashSet<(u32, Option<u32>, Decoration)> = HashSet::default();
    for Located { inst, pos } in &raw.insts {
        let op = inst.class.opcode;
        let (target, member, deco) = match (op, inst.operands.as_slice()) {
            (SpvOp::Decorate, [RawOp::IdRef(t), RawOp::Decoration(d), ..]) => (*t, None, Some(*d)),
            (
                SpvOp::MemberDecorate,
                [RawOp::IdRef(t), RawOp::LiteralBit32(m), RawOp::Decoration(d), ..],
            ) => (*t, Some(*m), Some(*d)),
            (SpvOp::MemberName, [RawOp::IdRef(t), RawOp::LiteralBit32(m), ..]) => {
                (*t, Some(*m), None)
            }
            _ => continue,
        };
        if let Some(m) = member {
            let Some(def) = defs.get(&target) else {
                continue;
            };
            if def.class.opcode != SpvOp::TypeStruct {
                return fail(
                    *pos,
                    ReadErrorKind::WrongId {
                        id: target,
                        expected: "a struct type",
                    },
                );
            }
            let count = def.operands.len();
            if m as usize >= count {
                return fail(
                    *pos,
                    ReadErrorKind::Malformed(format!(
                        "Op{op:?} names member {m} of %{target}, which has {count} members"
                    )),
                );
            }
        }
        if let Some(d) = deco {
            if !seen.insert((target, member, d)) {
                let what = match member {
                    Some(m) => format!("member {m} of %{target}"),
                    None => format!("%{target}"),
                };
                return fail(
                    *pos,
                    ReadErrorKind::Duplicate(format!("{what} is decorated {d:?} twice")),
                );
            }
        }
    }
    Ok(())
}

/// Literals of narrow integer and 16-bit float types carry no stray high bits.
fn literals(raw: &RawModule, defs: &HashMap<u32, &Instruction>) -> Res {
    // (width, signed) of the scalar type `ty`, if it is narrower than 32 bits.
    let narrow = |ty: u32| -> Option<(u32, bool)> {
        let def = defs.get(&ty)?;
        match (def.class.opcode, def.operands.as_slice()) {
            (SpvOp::TypeInt, [RawOp::LiteralBit32(w @ (8 | 16)), RawOp::LiteralBit32(s)]) => {
                Some((*w, *s != 0))
            }
            (SpvOp::TypeFloat, [RawOp::LiteralBit32(16), ..]) => Some((16, false)),
            _ => None,
        }
    };
    for Located { inst, pos } in &raw.insts {
        let (ty, lits): (Option<u32>, Vec<u32>) = match inst.class.opcode {
            SpvOp::Constant | SpvOp::SpecConstant => (inst.result_type, lit32(&inst.operands)),
            SpvOp::Switch => {
                let selector = match inst.operands.first() {
                    Some(RawOp::IdRef(id)) => defs.get(id).and_then(|d| d.result_type),
                    _ => None,
                };
                let cases = inst
                    .operands
                    .iter()
                    .skip(2)
                    .step_by(2)
                    .cloned()
                    .collect::<Vec<_>>();
                (selector, lit32(&cases))
            }
            _ => continue,
        };
        let Some((width, signed)) = ty.and_then(narrow) else {
            continue;
        };
        for v in lits {
            let high = v >> width;
            let sign = (v >> (width - 1)) & 1;
            let ok = if signed && sign == 1 {
                high == u32::MAX >> width
            } else {
                high == 0
            };
            if !ok {
                return fail(
                    *pos,
                    ReadErrorKind::Malformed(format!(
                        "literal {v:#x} of a {width}-bit type has stray high-order bits \
                         (they must be {}; SPIR-V 2.2.1)",
                        if signed { "the sign extension" } else { "zero" }
                    )),
                );
            }
        }
    }
    Ok(())
}

fn lit32(ops: &[RawOp]) -> Vec<u32> {
    ops.iter()
        .filter_map(|o| match o {
            RawOp::LiteralBit32(v) => Some(*v),
            _ => None,
        })
        .collect()
}
