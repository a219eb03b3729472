//! The analysis on modules that do not verify (wrong structure, SSA or types) and on lowered
//! functions: it must answer, never panic. Each IR filetest that parses is analysed and
//! annotated.

use std::path::Path;

use tangle_reconverge::{annotate, Uniformity};

#[test]
fn every_parsed_filetest_is_analysed_without_panicking() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ir/tests/filetests");
    let mut analysed = 0;
    let mut invalid = 0;
    let mut lowered = 0;
    for entry in std::fs::read_dir(dir).expect("filetests") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|x| x != "tir") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("file");
        let Ok(module) = tangle_ir::text::parse(&text) else {
            continue;
        };
        let u = Uniformity::analyse(&module);
        let listing = annotate(&module, &u);
        assert!(listing.lines().count() >= tangle_ir::text::print(&module).lines().count());
        analysed += 1;
        invalid += usize::from(tangle_ir::verify::verify(&module).is_err());
        lowered += usize::from(
            module
                .funcs
                .iter()
                .any(|(_, f)| f.form == tangle_ir::Form::Lowered),
        );
    }
    assert!(
        analysed >= 10 && invalid >= 3 && lowered >= 1,
        "{analysed} {invalid} {lowered}"
    );
}

/// In a lowered function (no constructs) a loop with a divergent exit is found by the
/// coarse rule, and what is read after it is divergent.
#[test]
fn a_lowered_loop_with_a_divergent_exit() {
    let text = r#"spirv 1.3
memory_model GLSL450
capability Shader
capability GroupNonUniform
capability GroupNonUniformBallot

type t0 = void
type t1 = u32
type t2 = bool

const c0 u32 = 0
const c1 u32 = 1

global g0 ptr<Input, u32> [builtin LocalInvocationIndex]

entry GLCompute "main" f0 (g0) [local_size 32 1 1]

fn f0 "main"() -> void lowered {
b0:
  v0 = load u32 g0
  br b1
b1:
  v1 = phi u32 [c0, b0], [v2, b1]
  v2 = iadd u32 v1, c1
  v3 = ult bool v2, v0
  br_if v3, b1, b2
b2:
  v4 = iadd u32 v2, c1
  return
}
"#;
    let module = tangle_ir::text::parse(text).expect("parses");
    tangle_ir::verify::verify(&module).expect("verifies");
    let u = Uniformity::analyse(&module);
    let f = u.function(tangle_ir::Func::from_u32(0)).expect("f0");
    let (b1, b2) = (tangle_ir::Block::from_u32(1), tangle_ir::Block::from_u32(2));
    assert!(!f.branch_is_uniform(b1));
    assert!(f.has_divergent_exits(b1));
    assert!(!f.is_uniform_at(tangle_ir::Value::from_u32(2), b2));
    assert!(!f.is_uniform(tangle_ir::Value::from_u32(4)));
}
