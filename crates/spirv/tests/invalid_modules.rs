//! Invalid modules (`tests/invalid/*.spvasm`, each a mutation of a valid shader with a
//! `; rule: <category>` first line): `tangle validate` and spirv-val must both reject every
//! one, and agree about which kind of rule is broken. spirv-val's message is mapped to a
//! category by the keyword table below; tangle's category is the verifier's `Rule`, or, for
//! a module the reader refuses, `reference` (ids that do not exist or are of the wrong kind)
//! or `unreadable` (the rest of the binary form: layout order, duplicates, member indices).

use std::path::{Path, PathBuf};

use tangle_oracle::{require, scratch_dir, Tool};
use tangle_spirv::reader::{read_binary, ReadErrorKind};

/// The category of rule a spirv-val message is about.
fn spirv_val_category(message: &str) -> &'static str {
    let table: &[(&str, &str)] = &[
        // The binary form: what tangle's reader refuses as unreadable.
        ("Duplicate non-aggregate type", "unreadable"),
        ("multiple times is not allowed", "unreadable"),
        ("invalid layout section", "unreadable"),
        ("index is larger than", "unreadable"),
        ("have not been defined", "reference"),
        ("is not a struct type", "reference"),
        // The Vulkan environment and SPIR-V versions.
        ("in Vulkan environment", "module"),
        ("According to the Vulkan spec BuiltIn", "module"),
        ("Vulkan spec does not allow BuiltIn", "module"),
        ("Vulkan spec allows BuiltIn", "module"),
        ("is not allowed by Vulkan", "module"),
        ("duplicate input variables", "module"),
        ("must be a constant for WorkgroupSize", "module"),
        ("requires Fragment execution model", "module"),
        ("OpEntryPoint interfaces must be", "module"),
        ("requires SPIR-V version", "module"),
        ("non-relaxed memory order", "module"),
        ("static product of zero", "module"),
        ("is not a power of two", "type"),
        ("Result must be an unsigned", "type"),
        ("must be a constant instruction", "type"),
        ("must not both be specified", "module"),
        ("MaximallyReconvergesKHR", "maximal-reconvergence"),
        ("merge block", "structure"),
        ("Back-edge", "structure"),
        ("back-edge", "structure"),
        ("must be structured", "structure"),
        ("must be preceded by an OpSelectionMerge", "structure"),
        ("OpSelectionMerge must immediately precede", "structure"),
        ("structurally dominate", "structure"),
        ("loop construct", "structure"),
        ("continue target", "structure"),
        ("selection construct", "structure"),
        ("Case construct", "structure"),
        ("before its dominator", "block-order"),
        ("does not dominate its use", "ssa"),
        ("OpPhi", "ssa"),
        (
            "OpVariable instructions in a function must be the first",
            "ssa",
        ),
        ("has not been defined", "reference"),
        ("Offset decoration", "layout"),
        ("explicitly laid out", "layout"),
        ("layout rules", "layout"),
        ("missing Block decoration", "layout"),
        ("requires one of these capabilities", "module"),
        ("capability", "module"),
        ("LocalSize", "module"),
        ("type", "type"),
        ("Type", "type"),
        ("out of bounds", "type"),
        ("Expected", "type"),
    ];
    table
        .iter()
        .find(|(key, _)| message.contains(key))
        .map_or("unknown", |(_, cat)| cat)
}

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/invalid");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "spvasm"))
        .collect();
    v.sort();
    v
}

#[test]
fn tangle_and_spirv_val_agree_on_invalid_modules() {
    let test = "tangle_and_spirv_val_agree_on_invalid_modules";
    let (Some(spirv_as), Some(spirv_val)) =
        (require(Tool::SpirvAs, test), require(Tool::SpirvVal, test))
    else {
        return;
    };
    let dir = scratch_dir();
    let cases = cases();
    let count = |rule: &str| {
        cases
            .iter()
            .filter(|p| {
                std::fs::read_to_string(p)
                    .unwrap()
                    .starts_with(&format!("; rule: {rule}\n"))
            })
            .count()
    };
    assert!(cases.len() >= 60, "{} invalid modules", cases.len());
    assert!(count("structure") + count("maximal-reconvergence") >= 10);
    let mut disagreements = Vec::new();
    for path in &cases {
        let text = std::fs::read_to_string(path).unwrap();
        let expected = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("; rule: "))
            .expect("first line names the rule");
        let spv = dir.path().join("m.spv");
        spirv_as.run_ok([
            "--target-env".as_ref(),
            "vulkan1.1".as_ref(),
            path.as_os_str(),
            "-o".as_ref(),
            spv.as_os_str(),
        ]);
        let val = spirv_val.run([
            "--target-env".as_ref(),
            "vulkan1.1".as_ref(),
            spv.as_os_str(),
        ]);
        let val_message = String::from_utf8_lossy(&val.stderr).into_owned();
        let val_category = spirv_val_category(&val_message);
        let ours: Vec<&'static str> = match read_binary(&std::fs::read(&spv).unwrap()) {
            Err(e) => match e.kind {
                ReadErrorKind::UndefinedId(_)
                | ReadErrorKind::WrongId { .. }
                | ReadErrorKind::Redefined(_) => vec!["reference"],
                _ => vec!["unreadable"],
            },
            Ok(module) => match tangle_ir::verify::verify(&module) {
                Ok(()) => vec![],
                Err(errors) => errors.0.iter().map(|e| e.rule.name()).collect(),
            },
        };
        let name = path.file_name().unwrap().to_string_lossy();
        if val.status.success() {
            disagreements.push(format!("{name}: spirv-val accepts it"));
        } else if val_category != expected {
            disagreements.push(format!(
                "{name}: spirv-val's message is about {val_category}, not {expected}: {val_message}"
            ));
        }
        if !ours.contains(&expected) {
            disagreements.push(format!("{name}: tangle reports {ours:?}, not {expected}"));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

/// The same modules without the mutation are valid for both: the cases differ from a valid
/// shader only where they say.
#[test]
fn the_unmutated_base_is_valid_for_both() {
    let test = "the_unmutated_base_is_valid_for_both";
    let (Some(spirv_as), Some(spirv_val)) =
        (require(Tool::SpirvAs, test), require(Tool::SpirvVal, test))
    else {
        return;
    };
    let base = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/invalid/iadd_float_operand.spvasm"),
    )
    .unwrap()
    .replace("OpIAdd %uint %id %float_1", "OpIAdd %uint %id %uint_1");
    let dir = scratch_dir();
    let src = dir.path().join("base.spvasm");
    let spv = dir.path().join("base.spv");
    std::fs::write(&src, base).unwrap();
    spirv_as.run_ok([
        "--target-env".as_ref(),
        "vulkan1.1".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        spv.as_os_str(),
    ]);
    spirv_val.run_ok([
        "--target-env".as_ref(),
        "vulkan1.1".as_ref(),
        spv.as_os_str(),
    ]);
    let module = read_binary(&std::fs::read(&spv).unwrap()).unwrap();
    tangle_ir::verify::verify(&module).unwrap();
}
