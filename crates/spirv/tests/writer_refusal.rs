//! What the writer refuses (lowered functions, tangle-only operations and types,
//! convergence-control operands), and SPIR-V's block order checked against spirv-val.

use tangle_ir::verify::{Location, Point, Rule};
use tangle_ir::{Block, Func, Value};
use tangle_oracle::{require, scratch_dir, Tool};
use tangle_spirv::writer::{write, WriteError};

const LOWERED: &str = include_str!("../../ir/tests/modules/lowered_barriers.tir");

const HEADER: &str = "spirv 1.3\nmemory_model GLSL450\ncapability Shader\n\
    capability GroupNonUniform\ntype t0 = void\ntype t1 = bool\nconst c0 bool = true\n\
    entry GLCompute \"main\" f0 () [local_size 1 1 1]\n";

fn module(body: &str) -> tangle_ir::Module {
    tangle_ir::text::parse(&format!("{HEADER}fn f0() -> void {{\n{body}}}\n")).unwrap()
}

#[test]
fn the_writer_refuses_a_lowered_function() {
    let m = tangle_ir::text::parse(LOWERED).unwrap();
    tangle_ir::verify::verify(&m).unwrap();
    // The module declares `token` (t4) before anything else SPIR-V lacks.
    assert_eq!(
        write(&m),
        Err(WriteError::TangleOnlyType {
            ty: tangle_ir::Type::from_u32(4),
            name: "token".into()
        })
    );
    // Without the tangle-only types, the lowered form itself is refused.
    let mut m = module("b0:\n  br_if c0, b1, b2\nb1:\n  br b2\nb2:\n  return\n");
    m.funcs[Func::from_u32(0)].form = tangle_ir::Form::Lowered;
    tangle_ir::verify::verify(&m).unwrap();
    let e = write(&m).unwrap_err();
    assert_eq!(
        e,
        WriteError::LoweredFunction {
            func: Func::from_u32(0)
        }
    );
    assert!(e
        .to_string()
        .starts_with("f0: a lowered function has no SPIR-V form"));
}

#[test]
fn the_writer_refuses_tangle_only_ops_and_convergence_control_with_their_position() {
    // `exit` needs no tangle-only type; the writer refuses it even in a structured function.
    let m = module("b0:\n  br b1\nb1:\n  exit c0\n  return\n");
    let e = write(&m).unwrap_err();
    let at = Location {
        func: Some(Func::from_u32(0)),
        block: Some(Block::from_u32(1)),
        point: Some(Point::Inst(0)),
        value: None,
    };
    assert_eq!(
        e,
        WriteError::TangleOnlyOp {
            loc: at,
            op: "exit"
        }
    );
    assert_eq!(e.to_string(), "f0 b1 #0: `exit` has no SPIR-V opcode");
    // A convergence-control operand on a subgroup operation, made without a token type
    // (the writer must look at the operand, not only at the types).
    let mut m =
        module("b0:\n  v0 = group_elect[subgroup] t1\n  v1 = group_elect[subgroup] t1\n  return\n");
    let f = &mut m.funcs[Func::from_u32(0)];
    let second = f.blocks[Block::from_u32(0)].insts[1];
    f.insts[second].conv = Some(Value::from_u32(0));
    assert_eq!(
        write(&m),
        Err(WriteError::ConvergenceControl {
            loc: Location {
                func: Some(Func::from_u32(0)),
                block: Some(Block::from_u32(0)),
                point: Some(Point::Inst(1)),
                value: Some(Value::from_u32(1)),
            }
        })
    );
}

/// The example: blocks laid out b0, b1, b2 with edges b0 -> b2 -> b1. The verifier
/// and spirv-val must agree that it is invalid, and that the reverse post-order layout of
/// the same graph is valid.
#[test]
fn block_order_agrees_with_spirv_val() {
    let test = "block_order_agrees_with_spirv_val";
    let misordered = module("b0:\n  br b2\nb1:\n  return\nb2:\n  br b1\n");
    let ordered = module("b0:\n  br b2\nb2:\n  br b1\nb1:\n  return\n");
    let e = tangle_ir::verify::verify(&misordered).unwrap_err();
    assert!(e.breaks(Rule::BlockOrder), "{e}");
    assert_eq!(e.0.len(), 1, "{e}");
    tangle_ir::verify::verify(&ordered).unwrap();
    let Some(val) = require(Tool::SpirvVal, test) else {
        return;
    };
    let dir = scratch_dir();
    let mut verdicts = Vec::new();
    for (name, m) in [("misordered", &misordered), ("ordered", &ordered)] {
        // The writer writes what it is given; spirv-val is the independent judge.
        let words = write(m).unwrap();
        let path = dir.path().join(format!("{name}.spv"));
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        let out = val.run([
            "--target-env".as_ref(),
            "vulkan1.1".as_ref(),
            path.as_os_str(),
        ]);
        verdicts.push((
            name,
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    let (_, ok, stderr) = &verdicts[0];
    assert!(!ok, "spirv-val accepts the misordered module");
    assert!(
        stderr.contains("before its dominator"),
        "spirv-val rejects the misordered module for another reason: {stderr}"
    );
    let (_, ok, stderr) = &verdicts[1];
    assert!(ok, "spirv-val rejects the ordered module: {stderr}");
}
