//! The two function forms, the tangle-only operations with their typing, the
//! convergence-control operand, and SPIR-V's block order.
//!
//! Each expectation is written out by hand from the rule it checks (which operation, which
//! form, which position), not taken from the verifier's own output.

use tangle_ir::text::{parse, print};
use tangle_ir::verify::{verify, verify_as, Rule, VerifyErrors};
use tangle_ir::{Form, Func};

const LOWERED: &str = include_str!("modules/lowered_barriers.tir");

/// The module's header with types and globals for small bodies.
const HEADER: &str = "spirv 1.3\nmemory_model GLSL450\ncapability Shader\n\
    capability GroupNonUniform\ncapability GroupNonUniformBallot\n\
    type t0 = void\ntype t1 = u32\ntype t2 = bool\ntype t3 = token\ntype t4 = barrier\n\
    const c0 u32 = 0\nconst c1 bool = true\n\
    entry GLCompute \"main\" f0 () [local_size 1 1 1]\n";

fn module(form: &str, body: &str) -> tangle_ir::Module {
    let text = format!("{HEADER}fn f0() -> void {form} {{\n{body}}}\n");
    parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The errors as `location: [rule] message` lines.
fn lines(e: &VerifyErrors) -> Vec<String> {
    e.0.iter().map(ToString::to_string).collect()
}

#[test]
fn lowered_function_with_tangle_only_ops_round_trips_and_verifies_as_lowered() {
    let m = parse(LOWERED).unwrap();
    assert_eq!(m.funcs[Func::from_u32(0)].form, Form::Lowered);
    assert_eq!(print(&m), LOWERED, "the text form round-trips exactly");
    verify(&m).unwrap();
    verify_as(&m, Form::Lowered).unwrap();
}

#[test]
fn lowered_function_is_rejected_as_structured_with_positioned_errors() {
    let m = parse(LOWERED).unwrap();
    let errors = verify_as(&m, Form::Structured).unwrap_err();
    let got = lines(&errors);
    // bar_set defines v3 in b0; bar_break and exit are instructions 2 and 3 of b1;
    // bar_sync is instruction 0 of b2.
    for want in [
        "f0 b0 v3: [form] `bar_set` is allowed only in lowered functions",
        "f0 b1 #2: [form] `bar_break` is allowed only in lowered functions",
        "f0 b1 #3: [form] `exit` is allowed only in lowered functions",
        "f0 b2 #0: [form] `bar_sync` is allowed only in lowered functions",
        "f0 b0 terminator: [structure] a conditional branch outside a header must have a break or continue target",
    ] {
        assert!(got.iter().any(|g| g == want), "missing {want:?} in {got:#?}");
    }
    // The token operations and the convergence-control operands are allowed in both forms.
    assert!(
        !got.iter().any(|g| g.contains("conv")),
        "tokens are not a form error: {got:#?}"
    );
    // Declared structured, the same text fails the same way under plain `verify`.
    let structured = parse(&LOWERED.replace("-> void lowered {", "-> void {")).unwrap();
    assert_eq!(verify(&structured).unwrap_err(), errors);
}

#[test]
fn merge_annotations_are_a_form_error_in_lowered_functions() {
    let body = "b0:\n  selection_merge b2\n  br_if c1, b1, b2\nb1:\n  br b2\nb2:\n  return\n";
    verify(&module("", body)).unwrap();
    let e = verify(&module("lowered", body)).unwrap_err();
    assert_eq!(
        lines(&e),
        ["f0 b0 terminator: [form] a lowered function has no merge annotations"]
    );
}

#[test]
fn unstructured_branches_are_fine_in_lowered_functions_only() {
    // b1 -> b1 is a back edge to a block that is no loop header; b0 -> b2 skips b1.
    let body = "b0:\n  br_if c1, b1, b2\nb1:\n  br_if c1, b1, b2\nb2:\n  return\n";
    verify(&module("lowered", body)).unwrap();
    let e = verify(&module("structured", body)).unwrap_err();
    assert!(e.breaks(Rule::Structure), "{e}");
}

#[test]
fn tangle_only_ops_are_typed_by_their_table_entry() {
    let cases = [
        (
            "b0:\n  v0 = bar_set u32\n  return\n",
            "f0 b0 v0: [type] bar_set: the result must be a barrier, not u32",
        ),
        (
            "b0:\n  bar_sync c0\n  return\n",
            "f0 b0 #0: [type] bar_sync: operand 0 must be a barrier, not u32",
        ),
        (
            "b0:\n  v0 = bar_set barrier\n  bar_break v0, c0\n  return\n",
            "f0 b0 #1: [type] bar_break: operand 1 must be a bool, not u32",
        ),
        (
            "b0:\n  exit c0\n  return\n",
            "f0 b0 #0: [type] exit: operand 0 must be a bool, not u32",
        ),
        (
            "b0:\n  v0 = conv_entry bool\n  return\n",
            "f0 b0 v0: [type] conv_entry: the result must be a token, not bool",
        ),
        (
            "b0:\n  v0 = bar_set barrier\n  v1 = copy barrier v0\n  return\n",
            "f0 b0 v1: [type] `copy` cannot take or give a barrier",
        ),
        (
            "b0:\n  v0 = conv_anchor token\n  v1 = phi token [v0, b0]\n  return\n",
            "f0 b0 v1: [type] `phi` cannot take or give a token",
        ),
    ];
    for (body, want) in cases {
        let e = verify(&module("lowered", body)).unwrap_err();
        assert!(
            lines(&e).iter().any(|l| l == want),
            "{body}: want {want:?}, got {:#?}",
            lines(&e)
        );
    }
    // Well-typed uses of every tangle-only operation (`conv_loop` in a block of its own:
    // it must precede every other convergent operation of its block).
    let ok = "b0:\n  v0 = conv_entry token\n  v1 = conv_anchor token\n  br b1\nb1:\n  \
              v2 = conv_loop token conv(v1)\n  v3 = bar_set barrier\n  bar_break v3, c1\n  \
              bar_sync v3\n  exit c1\n  return\n";
    verify(&module("lowered", ok)).unwrap();
}

#[test]
fn the_convergence_control_operand_is_checked() {
    let cases = [
        (
            // Not convergent: iadd takes no token.
            "b0:\n  v0 = conv_entry token\n  v1 = iadd u32 c0, c0 conv(v0)\n  return\n",
            "f0 b0 v1: [type] `iadd` takes no convergence-control operand",
        ),
        (
            // The token operations that make a token from nothing take none.
            "b0:\n  v0 = conv_entry token\n  v1 = conv_anchor token conv(v0)\n  return\n",
            "f0 b0 v1: [type] `conv_anchor` takes no convergence-control operand",
        ),
        (
            "b0:\n  v0 = conv_loop token\n  return\n",
            "f0 b0 v0: [type] `conv_loop` needs a convergence-control operand",
        ),
        (
            "b0:\n  v0 = iadd u32 c0, c0\n  v1 = group_elect[subgroup] bool conv(v0)\n  return\n",
            "f0 b0 v1: [type] the convergence-control operand v0 must be a token, not u32",
        ),
        (
            // The token must dominate its use like any operand.
            "b0:\n  v1 = group_elect[subgroup] bool conv(v0)\n  v0 = conv_entry token\n  return\n",
            "f0 b0 v1: [ssa] v0 does not dominate this use",
        ),
    ];
    for form in ["", "lowered"] {
        for (body, want) in cases {
            let e = verify(&module(form, body)).unwrap_err();
            assert!(
                lines(&e).iter().any(|l| l == want),
                "{form} {body}: want {want:?}, got {:#?}",
                lines(&e)
            );
        }
    }
    // Allowed on subgroup operations, calls and barriers, in both forms.
    let ok = "b0:\n  v0 = conv_entry token\n  v1 = group_elect[subgroup] bool conv(v0)\n  \
              control_barrier[workgroup, workgroup, acquire_release|workgroup_memory] conv(v0)\n  \
              return\n";
    for form in ["", "lowered"] {
        let m = module(form, ok);
        verify(&m).unwrap();
        assert_eq!(print(&parse(&print(&m)).unwrap()), print(&m));
    }
}

#[test]
fn tokens_and_barriers_are_values_only() {
    let text = format!(
        "{HEADER}type t5 = array<t3, 2> [stride 4]\nfn f0(v0: barrier) -> void {{\nb0:\n  return\n}}\n"
    );
    let e = verify(&parse(&text).unwrap()).unwrap_err();
    let got = lines(&e);
    for want in [
        "module: [type] t5: a token cannot be part of another type",
        "f0: [type] a parameter or return value cannot be a barrier",
    ] {
        assert!(
            got.iter().any(|g| g == want),
            "missing {want:?} in {got:#?}"
        );
    }
}

#[test]
fn a_block_before_its_dominator_breaks_the_block_order() {
    // The example: laid out b0, b1, b2 with edges b0 -> b2 -> b1.
    let misordered = "b0:\n  br b2\nb1:\n  return\nb2:\n  br b1\n";
    for form in ["", "lowered"] {
        let e = verify(&module(form, misordered)).unwrap_err();
        assert_eq!(
            lines(&e),
            ["f0 b1: [block-order] b1 appears before its dominator b2"]
        );
    }
    // Laid out in reverse post-order, the same graph is valid.
    verify(&module("", "b0:\n  br b2\nb2:\n  br b1\nb1:\n  return\n")).unwrap();
    // Unreachable blocks have no dominator and may be anywhere, also before a block they
    // branch to.
    verify(&module("", "b0:\n  br b2\nb1:\n  br b2\nb2:\n  return\n")).unwrap();
    verify(&module("", "b0:\n  return\nb1:\n  br b0\n")).unwrap();
}

#[test]
fn the_form_keyword_is_checked_when_parsed() {
    let text = format!("{HEADER}fn f0() -> void unstructured {{\nb0:\n  return\n}}\n");
    let e = parse(&text).unwrap_err();
    assert!(
        e.message.contains(
            "expected `{`, `structured`, `lowered` or `non_convergent`, found `unstructured`"
        ),
        "{e}"
    );
    // `structured` is accepted and not printed: it is the default.
    let m = module("structured", "b0:\n  return\n");
    assert!(!print(&m).contains("structured"));
}
