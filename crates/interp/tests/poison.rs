//! Undefined values as poison: for every rule under which SPIR-V leaves a *result*
//! undefined, (1) computing the value and discarding it runs to the end, (2) storing it
//! leaves exactly those bytes undefined in the outcome, and (3) branching on it stops the
//! run naming where the value was used and where it was born. The expected outcomes are
//! derived by hand from the rule (which lanes are hit, which bytes are written).

mod common;

use common::{module, out_words, word_flags};
use tangle_interp::{Config, InterpError, Interpreter, Outcome, UndefinedUse};

/// A program of 32 invocations (one subgroup of 32 unless configured otherwise): `v0` is
/// the subgroup lane, `v2` a zero read from the input buffer (so nothing can fold), `v3` an
/// uninitialized function variable, then
/// `rule` defines `v9: u32`, then `tail` (which may use `v9`).
fn program(rule: &str, tail: &str) -> String {
    format!(
        r#"spirv 1.4
memory_model GLSL450
capability Shader
capability GroupNonUniform
capability GroupNonUniformBallot
capability GroupNonUniformShuffle
capability GroupNonUniformShuffleRelative
capability GroupNonUniformQuad
capability GroupNonUniformArithmetic
extension "SPV_KHR_maximal_reconvergence"

type t0 = void
type t1 = u32
type t2 = bool
type t3 = i32
type t4 = f32
type t5 = rtarray<u32> [stride 4]
type t6 = struct "Buf" {{ t5 [offset 0, name "data"] }} [block]
type t7 = fn() -> void
type t8 = ptr<StorageBuffer, t6>
type t9 = ptr<Input, u32>
type t10 = ptr<StorageBuffer, u32>
type t11 = u32x4
type t12 = u32x2
type t13 = ptr<Function, u32>
type t14 = array<u32, 4> [stride 4]
type t15 = ptr<Workgroup, t14>
type t16 = ptr<Workgroup, u32>

const c0 u32 = 0
const c1 u32 = 1
const c2 u32 = 32
const c3 i32 = -2147483648
const c4 i32 = -1
const c5 f32 = 10000000000.0
const c6 f32 = -1.0
const c7 f32 = 0.0
const c8 f32 = 2.0
const c9 u32 = 7
const c10 bool = true
const c11 f32 = 0.5
const c12 u32 = 3
const c13 u32 = 40
const c14 i32 = 5
const c15 u32 = 30
const c16 bool = false
const c17 u32 = undef

global g0 ptr<StorageBuffer, t6> [set 0, binding 0, name "out"]
global g1 ptr<StorageBuffer, t6> [set 0, binding 1, name "in"]
global g2 ptr<Input, u32> [builtin SubgroupLocalInvocationId]
global g3 ptr<Workgroup, t14> [name "shared"]

entry GLCompute "main" f0 (g2, g0, g1, g3) [local_size 32 1 1, maximally_reconverges]

fn f0 "main"() -> void {{
b0:
  v3 = variable[Function] ptr<Function, u32>
  v0 = load u32 g2
  v1 = access_chain ptr<StorageBuffer, u32> g1, c0, c0
  v2 = load u32 v1
{rule}
{tail}
}}
"#
    )
}

/// Stores `v9` at out[lane].
const STORE: &str = "  v30 = access_chain ptr<StorageBuffer, u32> g0, c0, v0
  v31 = copy u32 c9
  store v30, v9
  return";

/// Branches on `v9 == 0`.
const BRANCH: &str = "  v30 = ieq bool v9, c0
  selection_merge b2
  br_if v30, b1, b2
b1:
  br b2
b2:
  return";

/// Only computes `v9`.
const DISCARD: &str = "  return";

fn run_with(text: &str, config: Config) -> Result<Outcome, InterpError> {
    let m = module(text);
    let mut it = Interpreter::new(&m, "main", config)?;
    it.bind_buffer(0, 0, vec![0xAB; 32 * 4]);
    it.bind_buffer(0, 1, vec![0; 4]);
    it.run()
}

fn run(text: &str) -> Result<Outcome, InterpError> {
    run_with(text, Config::default())
}

/// Which of the 32 output words the run left undefined.
fn undefined_words(o: &Outcome) -> Vec<bool> {
    match o.undefined.get(&(0, 0)) {
        None => vec![false; 32],
        Some(mask) => word_flags(mask),
    }
}

/// Checks one rule: `rule` defines `v9` (undefined exactly in the lanes `undefined_in`,
/// for the reason `why`, born at instruction `born`).
fn check_rule(rule: &str, undefined_in: impl Fn(u32) -> bool, why: &str) {
    run(&program(rule, DISCARD)).unwrap_or_else(|e| panic!("discarded: {e}\n{rule}"));

    let o = run(&program(rule, STORE)).unwrap_or_else(|e| panic!("stored: {e}\n{rule}"));
    let want: Vec<bool> = (0..32).map(&undefined_in).collect();
    assert_eq!(
        undefined_words(&o),
        want,
        "undefined words after storing\n{rule}"
    );

    let e = run(&program(rule, BRANCH)).expect_err("a branch on an undefined value fails");
    let InterpError::UndefinedValue(u) = &e else {
        panic!("expected UndefinedValue, got {e}");
    };
    let UndefinedUse {
        at,
        lane,
        what,
        born,
    } = &**u;
    assert!(at.inst.is_none(), "used at the terminator: {e}");
    assert_eq!(what, "branch condition", "{e}");
    let first = (0..32).find(|l| undefined_in(*l)).expect("some lane");
    assert_eq!(*lane, first, "the first undefined lane: {e}");
    assert!(born.starts_with("born at f0 b0 i"), "born position: {e}");
    assert!(born.contains(why), "reason {why:?}: {e}");
    let text = e.to_string();
    assert!(
        text.contains("f0 b0 terminator") && text.contains("born at f0 b0 i"),
        "{text}"
    );

    // --strict-undefined stops where the value is born.
    let strict = Config {
        strict_undefined: true,
        ..Config::default()
    };
    let e = run_with(&program(rule, DISCARD), strict).expect_err("strict mode stops");
    let InterpError::UndefinedValue(u) = &e else {
        panic!("expected UndefinedValue, got {e}");
    };
    let (at, born) = (&u.at, &u.born);
    assert!(
        at.inst.is_some(),
        "strict mode stops at an instruction: {e}"
    );
    assert!(born.contains(why), "{e}");
}

const ALL: fn(u32) -> bool = |_| true;

#[test]
fn integer_division_and_remainder_by_zero() {
    for op in ["udiv", "umod"] {
        check_rule(
            &format!("  v9 = {op} u32 c9, v2"),
            ALL,
            "integer division by zero",
        );
    }
    for op in ["sdiv", "srem", "smod"] {
        check_rule(
            &format!("  v8 = bitcast i32 v2\n  v7 = {op} i32 c14, v8\n  v9 = bitcast u32 v7"),
            ALL,
            "integer division by zero",
        );
    }
    // Only lane 0 divides by zero: the others are defined.
    check_rule(
        "  v9 = udiv u32 c9, v0",
        |l| l == 0,
        "integer division by zero",
    );
}

#[test]
fn signed_division_of_int_min_by_minus_one() {
    for op in ["sdiv", "srem", "smod"] {
        check_rule(
            &format!("  v7 = {op} i32 c3, c4\n  v9 = bitcast u32 v7"),
            ALL,
            "signed division overflow",
        );
    }
}

#[test]
fn shifts_by_the_bit_width_or_more() {
    for op in ["shl", "shr_logical", "shr_arith"] {
        check_rule(
            &format!("  v9 = {op} u32 c1, c2"),
            ALL,
            "shift by at least the bit width",
        );
    }
    // Lane-dependent: lanes shift by lane + 30; lanes 2.. shift by 32 or more.
    check_rule(
        "  v8 = iadd u32 v0, c15\n  v9 = shl u32 c1, v8",
        |l| l + 30 >= 32,
        "shift by at least the bit width",
    );
}

#[test]
fn bit_fields_outside_the_operand() {
    check_rule(
        "  v9 = bitfield_uextract u32 c9, c15, c12",
        ALL,
        "bit field outside the operand",
    );
    check_rule(
        "  v9 = bitfield_insert u32 c9, c1, c15, c12",
        ALL,
        "bit field outside the operand",
    );
}

#[test]
fn float_to_integer_conversions_out_of_range() {
    check_rule(
        "  v7 = f_to_s i32 c5\n  v9 = bitcast u32 v7",
        ALL,
        "float to signed conversion out of range",
    );
    check_rule(
        "  v9 = f_to_u u32 c6",
        ALL,
        "float to unsigned conversion out of range",
    );
    // NaN (0/0) converts to an undefined value too.
    check_rule(
        "  v8 = fdiv f32 c7, c7\n  v9 = f_to_u u32 v8",
        ALL,
        "float to unsigned conversion out of range",
    );
}

#[test]
fn undef_instruction_and_constant() {
    check_rule("  v9 = undef u32", ALL, "OpUndef");
    // An OpUndef constant is born at the constant; the branch names it.
    run(&program("  v9 = copy u32 c17", DISCARD)).unwrap();
    let e = run(&program("  v9 = copy u32 c17", BRANCH)).unwrap_err();
    assert!(
        e.to_string().contains("born at constant c17: OpUndef"),
        "{e}"
    );
}

#[test]
fn shuffles_reading_lanes_outside_the_subgroup() {
    let why = "which is not an active lane of the subgroup";
    check_rule("  v9 = group_shuffle[subgroup] u32 v0, c13", ALL, why);
    check_rule(
        "  v9 = group_shuffle_up[subgroup] u32 v0, c12",
        |l| l < 3,
        why,
    );
    check_rule(
        "  v9 = group_shuffle_down[subgroup] u32 v0, c12",
        |l| l >= 29,
        why,
    );
    check_rule("  v9 = group_shuffle_xor[subgroup] u32 v0, c2", ALL, why);
    check_rule("  v9 = group_broadcast[subgroup] u32 v0, c13", ALL, why);
    check_rule("  v9 = group_quad_broadcast[subgroup] u32 v0, c9", ALL, why);
}

#[test]
fn ballot_find_lsb_and_msb_of_an_empty_ballot() {
    for op in ["group_ballot_find_lsb", "group_ballot_find_msb"] {
        check_rule(
            &format!("  v8 = group_ballot[subgroup] u32x4 c16\n  v9 = {op}[subgroup] u32 v8"),
            ALL,
            "find lsb/msb of an empty ballot",
        );
    }
}

#[test]
fn glsl_results_left_undefined() {
    let cases = [
        ("Sqrt", "c6", "sqrt of x < 0"),
        ("InverseSqrt", "c7", "inversesqrt of x <= 0"),
        ("Log", "c7", "log of x <= 0"),
        ("Log2", "c6", "log2 of x <= 0"),
        ("Asin", "c8", "asin of |x| > 1"),
        ("Acos", "c8", "acos of |x| > 1"),
        ("Acosh", "c11", "acosh of x < 1"),
        ("Atanh", "c6", "atanh of |x| >= 1"),
    ];
    for (op, x, why) in cases {
        check_rule(
            &format!("  v8 = glsl[{op}] f32 {x}\n  v9 = bitcast u32 v8"),
            ALL,
            why,
        );
    }
    check_rule(
        "  v8 = glsl[Pow] f32 c6, c11\n  v9 = bitcast u32 v8",
        ALL,
        "pow with x < 0",
    );
    check_rule(
        "  v8 = glsl[Atan2] f32 c7, c7\n  v9 = bitcast u32 v8",
        ALL,
        "atan2 with x and y both 0",
    );
    check_rule(
        "  v8 = glsl[FClamp] f32 c11, c8, c6\n  v9 = bitcast u32 v8",
        ALL,
        "clamp with minVal > maxVal",
    );
    check_rule(
        "  v9 = glsl[UClamp] u32 v0, c9, c12",
        ALL,
        "clamp with minVal > maxVal",
    );
    check_rule(
        "  v8 = glsl[SmoothStep] f32 c8, c11, c11\n  v9 = bitcast u32 v8",
        ALL,
        "smoothstep with edge0 >= edge1",
    );
}

#[test]
fn vector_shuffle_component_without_source() {
    check_rule(
        "  v8 = composite_construct u32x2 v0, v0\n  v7 = vector_shuffle[0, 4294967295] u32x2 v8, v8\n  v9 = composite_extract[1] u32 v7",
        ALL,
        "has no source",
    );
    // The other component is defined.
    let o = run(&program(
        "  v8 = composite_construct u32x2 v0, v0\n  v7 = vector_shuffle[0, 4294967295] u32x2 v8, v8\n  v9 = composite_extract[0] u32 v7",
        BRANCH,
    ));
    assert!(o.is_ok(), "{:?}", o.err());
}

#[test]
fn uninitialized_variables_read_undefined() {
    check_rule("  v9 = load u32 v3", ALL, "no initializer");
    let e = run(&program(
        "  v8 = access_chain ptr<Workgroup, u32> g3, c1\n  v9 = load u32 v8",
        BRANCH,
    ))
    .unwrap_err();
    assert!(e.to_string().contains("born in variable g3"), "{e}");
    // Written first, then read: defined.
    run(&program("  store v3, v0\n  v9 = load u32 v3", BRANCH)).unwrap();
}

/// Undefined values propagate through every value op and are used only when observed.
#[test]
fn propagation_and_observable_uses() {
    let div = "  v8 = udiv u32 c9, v2\n";
    // Through arithmetic, comparison, select's chosen operand, a composite.
    let through = [
        "  v9 = iadd u32 v8, c1",
        "  v7 = ult bool v8, c1\n  v9 = select u32 v7, c1, c0",
        "  v7 = composite_construct u32x2 v8, v0\n  v9 = composite_extract[0] u32 v7",
        "  v7 = group_iadd[subgroup, reduce] u32 v8\n  v9 = copy u32 v7",
    ];
    for rule in through {
        let rule = format!("{div}{rule}");
        check_rule(&rule, ALL, "integer division by zero");
    }
    // Not through select's other operand, nor the other component of a composite.
    for rule in [
        "  v9 = select u32 c10, v0, v8",
        "  v7 = composite_construct u32x2 v8, v0\n  v9 = composite_extract[1] u32 v7",
    ] {
        let rule = format!("{div}{rule}");
        run(&program(&rule, BRANCH)).unwrap_or_else(|e| panic!("{e}\n{rule}"));
    }
    // An index, a switch selector and an atomic operand are observable uses.
    let uses = [
        (
            "  v9 = copy u32 c0\n  v10 = access_chain ptr<StorageBuffer, u32> g0, c0, v8\n  store v10, v0",
            "access chain index",
        ),
        (
            "  v9 = copy u32 c0\n  v10 = access_chain ptr<StorageBuffer, u32> g0, c0, v0\n  v11 = atomic_iadd[device, relaxed] u32 v10, v8",
            "atomic operand",
        ),
    ];
    for (rule, what) in uses {
        let rule = format!("{div}{rule}");
        let e = run(&program(&rule, DISCARD)).unwrap_err();
        assert!(
            matches!(&e, InterpError::UndefinedValue(u) if u.what == what),
            "{e}"
        );
    }
    let e = run(&program(
        div.trim_end(),
        "  v9 = copy u32 c0\n  selection_merge b2\n  switch v8, b2 [0: b1]\nb1:\n  br b2\nb2:\n  return",
    ))
    .unwrap_err();
    assert!(e.to_string().contains("switch selector"), "{e}");
}

/// The scan idiom: `lane >= d ? subgroupShuffleUp(v, d) : x` reads undefined lanes and
/// throws them away, both as a select and as a branch.
#[test]
fn scan_idiom_passes() {
    let select = "  v8 = group_shuffle_up[subgroup] u32 v0, c12
  v7 = uge bool v0, c12
  v9 = select u32 v7, v8, v0";
    let o = run(&program(select, STORE)).unwrap();
    let words = out_words(&o);
    let want: Vec<u32> = (0..32).map(|l| if l >= 3 { l - 3 } else { l }).collect();
    assert_eq!(words, want);
    assert!(o.undefined.is_empty());
    run(&program(select, BRANCH)).unwrap();
}

/// A broadcast from a lane that is inactive (divergent control flow) is undefined; the
/// lanes that read an active lane are not.
#[test]
fn broadcast_from_an_inactive_lane() {
    let rule = "  v7 = ult bool v0, c12
  selection_merge b3
  br_if v7, b4, b3
b4:
  v6 = group_broadcast[subgroup] u32 v0, c9
  v5 = access_chain ptr<StorageBuffer, u32> g0, c0, v0
  store v5, v6
  br b3
b3:
  v9 = copy u32 c0";
    let o = run(&program(rule, DISCARD)).unwrap();
    let undefined = undefined_words(&o);
    assert_eq!(undefined, (0..32).map(|l| l < 3).collect::<Vec<_>>());
}

/// Buffer bytes left undefined by one dispatch stay undefined in the next.
#[test]
fn undefined_buffer_bytes_carry_into_the_next_dispatch() {
    let m = module(&program("  v9 = copy u32 c0", DISCARD));
    let mut it = Interpreter::new(&m, "main", Config::default()).unwrap();
    let mut undefined = vec![false; 4];
    undefined[0] = true;
    it.bind_buffer(0, 0, vec![0; 32 * 4]);
    it.bind_buffer_with_undefined(0, 1, vec![0; 4], &undefined);
    // v2 is loaded from the undefined in[0] and discarded: fine.
    it.run().unwrap();
    let m = module(&program("  v9 = copy u32 v2", BRANCH));
    let mut it = Interpreter::new(&m, "main", Config::default()).unwrap();
    it.bind_buffer(0, 0, vec![0; 32 * 4]);
    it.bind_buffer_with_undefined(0, 1, vec![0; 4], &undefined);
    let e = it.run().unwrap_err();
    assert!(
        e.to_string().contains("undefined on entry to the dispatch"),
        "{e}"
    );
}
