//! Bad inputs: each must fail with the right kind of error at the exact line:column.

use tangle_amber::*;

const PRELUDE: &str = "#!amber
DEVICE_FEATURE SubgroupSizeControl.subgroupSizeControl
DEVICE_FEATURE SubgroupSizeControl.computeFullSubgroups
SHADER compute s GLSL
void main() {}
END
BUFFER buf DATA_TYPE uint32 SIZE 4 FILL 0
PIPELINE compute p
  ATTACH s
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
";

/// Parses `PRELUDE + tail` (so the tail starts on line 12) and returns the error.
fn fail(tail: &str) -> AmberError {
    let text = format!("{PRELUDE}{tail}");
    match parse(&text) {
        Ok(_) => panic!("expected an error for:\n{tail}"),
        Err(e) => e,
    }
}

fn at(e: &AmberError, line: u32, column: u32) {
    assert_eq!(e.pos, Pos::new(line, column), "{e}");
}

#[test]
fn missing_header() {
    let e = parse("SHADER compute s GLSL\nEND\n").unwrap_err();
    assert_eq!(e.kind, ErrorKind::MissingHeader);
    at(&e, 1, 1);
}

#[test]
fn unknown_top_level_command() {
    let e = fail("  FROBNICATE p\n");
    at(&e, 12, 3);
    assert!(matches!(e.kind, ErrorKind::Unsupported(_)), "{e}");
    assert_eq!(
        e.to_string(),
        "12:3: unsupported command: `FROBNICATE` is not an AmberScript command this crate knows"
    );
}

#[test]
fn graphics_pipeline_refused() {
    let e = fail("PIPELINE graphics g\nEND\n");
    at(&e, 12, 10);
    assert!(matches!(e.kind, ErrorKind::Unsupported(_)));
}

#[test]
fn vertex_shader_refused() {
    let e = fail("SHADER vertex v PASSTHROUGH\n");
    at(&e, 12, 8);
    assert!(matches!(e.kind, ErrorKind::Unsupported(_)));
}

#[test]
fn clear_refused() {
    let e = fail("CLEAR p\n");
    at(&e, 12, 1);
    assert!(matches!(e.kind, ErrorKind::Unsupported(_)));
}

#[test]
fn shader_without_end() {
    let e = fail("SHADER compute t GLSL\nvoid main() {}\n// ENDING is not END\n");
    at(&e, 12, 1);
    assert_eq!(e.kind, ErrorKind::MissingEnd("SHADER".into()));
}

#[test]
fn unknown_buffer_in_bind() {
    let e = fail("PIPELINE compute q\n  ATTACH s\n  BIND BUFFER nope AS storage BINDING 1\nEND\n");
    at(&e, 14, 15);
    assert_eq!(
        e.kind,
        ErrorKind::Unknown {
            kind: "buffer",
            name: "nope".into()
        }
    );
}

#[test]
fn unknown_shader_in_attach() {
    let e = fail("PIPELINE compute q\n  ATTACH t\nEND\n");
    at(&e, 13, 10);
    assert_eq!(
        e.kind,
        ErrorKind::Unknown {
            kind: "shader",
            name: "t".into()
        }
    );
}

#[test]
fn unknown_pipeline_in_run() {
    let e = fail("RUN q 1 1 1\n");
    at(&e, 12, 5);
    assert_eq!(
        e.kind,
        ErrorKind::Unknown {
            kind: "pipeline",
            name: "q".into()
        }
    );
}

#[test]
fn duplicate_buffer() {
    let e = fail("BUFFER buf DATA_TYPE int32 SIZE 1 FILL 0\n");
    at(&e, 12, 8);
    assert_eq!(
        e.kind,
        ErrorKind::Duplicate {
            kind: "buffer",
            name: "buf".into()
        }
    );
}

#[test]
fn bad_data_type() {
    let e = fail("BUFFER b2 DATA_TYPE vec5<float> SIZE 1 FILL 0\n");
    at(&e, 12, 21);
    assert!(matches!(e.kind, ErrorKind::Expected { .. }));
}

#[test]
fn bad_matrix_types() {
    // Integer matrices, 5 columns and a missing `x` are no amber data types.
    for (text, col) in [
        ("BUFFER b2 DATA_TYPE mat2x2<int32> SIZE 1 FILL 0\n", 21),
        ("BUFFER b2 DATA_TYPE mat5x2<float> SIZE 1 FILL 0\n", 21),
        ("BUFFER b2 DATA_TYPE mat22<float> SIZE 1 FILL 0\n", 21),
    ] {
        let e = fail(text);
        at(&e, 12, col);
        assert!(
            matches!(e.kind, ErrorKind::Expected { .. }),
            "{text}: {e:?}"
        );
    }
}

#[test]
fn value_out_of_range() {
    let e = fail("BUFFER b2 DATA_TYPE uint8 DATA\n1 2\n  256\nEND\n");
    at(&e, 14, 3);
    assert_eq!(
        e.kind,
        ErrorKind::BadNumber {
            what: "uint8 value".into(),
            text: "256".into()
        }
    );
}

#[test]
fn float_for_integer_buffer() {
    let e = fail("BUFFER b2 DATA_TYPE int32 SIZE 2 FILL 1.5\n");
    at(&e, 12, 39);
    assert!(matches!(e.kind, ErrorKind::BadNumber { .. }));
}

#[test]
fn partial_vector_data() {
    let e = fail("BUFFER b2 DATA_TYPE vec3<int32> DATA\n1 2 3 4\nEND\n");
    at(&e, 13, 7);
    assert!(matches!(e.kind, ErrorKind::Invalid(_)));
}

#[test]
fn series_on_vector() {
    let e = fail("BUFFER b2 DATA_TYPE vec2<int32> SIZE 2 SERIES_FROM 0 INC_BY 1\n");
    at(&e, 12, 40);
    assert!(matches!(e.kind, ErrorKind::Invalid(_)));
}

#[test]
fn series_without_inc_by() {
    let e = fail("BUFFER b2 DATA_TYPE int32 SIZE 2 SERIES_FROM 0 STEP 1\n");
    at(&e, 12, 48);
    assert!(matches!(e.kind, ErrorKind::Expected { .. }));
}

#[test]
fn data_without_end() {
    let e = fail("BUFFER b2 DATA_TYPE int32 DATA\n1 2 3\n");
    at(&e, 12, 27);
    assert_eq!(e.kind, ErrorKind::MissingEnd("DATA".into()));
}

#[test]
fn expect_misaligned_byte_offset() {
    let e = fail("EXPECT buf IDX 2 EQ 0\n");
    at(&e, 12, 16);
    assert!(matches!(e.kind, ErrorKind::Invalid(_)));
}

#[test]
fn expect_without_comparator() {
    let e = fail("EXPECT buf IDX 0 IS 0\n");
    at(&e, 12, 18);
    assert!(matches!(e.kind, ErrorKind::Expected { .. }));
}

#[test]
fn expect_without_values() {
    let e = fail("EXPECT buf IDX 0 EQ\n");
    at(&e, 12, 20);
    assert!(matches!(e.kind, ErrorKind::Expected { .. }));
}

#[test]
fn tolerance_with_lt() {
    let e = fail("EXPECT buf IDX 0 TOLERANCE 1 LT 3\n");
    at(&e, 12, 30);
    assert!(matches!(e.kind, ErrorKind::Invalid(_)));
}

#[test]
fn image_probe_refused() {
    let e = fail("EXPECT buf IDX 0 0 SIZE 1 1 EQ_RGB 0 0 0\n");
    at(&e, 12, 18);
    assert!(matches!(e.kind, ErrorKind::Unsupported(_)));
}

#[test]
fn run_needs_three_counts() {
    let e = fail("RUN p 1 1\n");
    at(&e, 12, 10);
    assert!(matches!(e.kind, ErrorKind::Expected { .. }), "{e}");
}

#[test]
fn run_draw_refused() {
    let e = fail("RUN p DRAW_RECT POS 0 0 SIZE 1 1\n");
    at(&e, 12, 7);
    assert!(matches!(e.kind, ErrorKind::Unsupported(_)));
}

#[test]
fn subgroup_size_not_power_of_two() {
    let e =
        fail("PIPELINE compute q\n  ATTACH s\n  SUBGROUP s\n    REQUIRED_SIZE 24\n  END\nEND\n");
    at(&e, 15, 19);
    assert!(matches!(e.kind, ErrorKind::BadNumber { .. }));
}

#[test]
fn subgroup_for_unattached_shader() {
    let e = fail("PIPELINE compute q\n  SUBGROUP s\n  END\nEND\n");
    at(&e, 13, 12);
    assert!(matches!(e.kind, ErrorKind::Invalid(_)));
}

#[test]
fn subgroup_bad_switch() {
    let e =
        fail("PIPELINE compute q\n  ATTACH s\n  SUBGROUP s\n    FULLY_POPULATED yes\n  END\nEND\n");
    at(&e, 15, 21);
    assert!(matches!(e.kind, ErrorKind::Expected { .. }));
}

#[test]
fn subgroup_unknown_option() {
    let e = fail("PIPELINE compute q\n  ATTACH s\n  SUBGROUP s\n    SIZE 32\n  END\nEND\n");
    at(&e, 15, 5);
    assert!(matches!(e.kind, ErrorKind::Expected { .. }));
}

#[test]
fn pipeline_without_end() {
    let e = fail("PIPELINE compute q\n  ATTACH s\n");
    at(&e, 12, 1);
    assert_eq!(e.kind, ErrorKind::MissingEnd("PIPELINE".into()));
}

#[test]
fn unsupported_pipeline_command() {
    let e = fail("PIPELINE compute q\n  ATTACH s\n  FRAMEBUFFER_SIZE 8 8\nEND\n");
    at(&e, 14, 3);
    assert!(matches!(e.kind, ErrorKind::Unsupported(_)));
}

#[test]
fn duplicate_binding() {
    let e = fail(
        "BUFFER b2 DATA_TYPE int32 SIZE 1 FILL 0\nPIPELINE compute q\n  ATTACH s\n  BIND BUFFER buf AS storage BINDING 0\n  BIND BUFFER b2 AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n",
    );
    at(&e, 16, 15);
    assert!(matches!(e.kind, ErrorKind::Invalid(_)));
}

#[test]
fn specialize_bad_type() {
    let e = fail("PIPELINE compute q\n  ATTACH s SPECIALIZE 0 AS double 1\nEND\n");
    at(&e, 13, 28);
    assert!(matches!(e.kind, ErrorKind::Expected { .. }));
}

#[test]
fn trailing_garbage_after_run() {
    let e = fail("RUN p 1 1 1 extra\n");
    at(&e, 12, 13);
    assert!(matches!(e.kind, ErrorKind::Expected { .. }));
}

#[test]
fn repeat_refuses_declarations() {
    let e = fail("REPEAT 2\n  BUFFER x DATA_TYPE int32 SIZE 1 FILL 0\nEND\n");
    at(&e, 13, 3);
    assert!(matches!(e.kind, ErrorKind::Unsupported(_)));
}

#[test]
fn copy_between_different_types() {
    let e = fail("BUFFER f DATA_TYPE float SIZE 4 FILL 0\nCOPY buf TO f\n");
    at(&e, 13, 13);
    assert!(matches!(e.kind, ErrorKind::Invalid(_)));
}

#[test]
fn unknown_engine_data() {
    let e = fail("SET ENGINE_DATA warp_speed 9\n");
    at(&e, 12, 17);
    assert!(matches!(e.kind, ErrorKind::Unsupported(_)));
}

#[test]
fn stray_end() {
    let e = fail("END\n");
    at(&e, 12, 1);
}

#[test]
fn subgroup_needs_device_feature() {
    let text = "#!amber\nSHADER compute s GLSL\nEND\nPIPELINE compute p\n  ATTACH s\n  SUBGROUP s\n    FULLY_POPULATED on\n  END\nEND\n";
    let e = parse(text).unwrap_err();
    assert_eq!(e.pos, Pos::new(7, 5));
    assert!(
        e.to_string()
            .contains("SubgroupSizeControl.computeFullSubgroups"),
        "{e}"
    );
}

#[test]
fn compile_options_refused() {
    let e = fail("PIPELINE compute q\n  ATTACH s\n  COMPILE_OPTIONS s\n  END\nEND\n");
    at(&e, 14, 3);
    assert!(matches!(e.kind, ErrorKind::Unsupported(_)));
}

#[test]
fn repeat_zero() {
    let e = fail("REPEAT 0\nEND\n");
    at(&e, 12, 8);
    assert!(matches!(e.kind, ErrorKind::BadNumber { .. }));
}

#[test]
fn copy_to_itself() {
    let e = fail("COPY buf TO buf\n");
    at(&e, 12, 13);
    assert!(matches!(e.kind, ErrorKind::Invalid(_)));
}

/// A bad value in an `EXPECT` list after a run of lone zeros (the lexer's fast path reads
/// those four at a time) is reported at its own line and column, with its text.
fn expect_value_error(values: &str, line: u32, column: u32, what: &str, text: &str) {
    let e = fail(&format!("RUN p 1 1 1\nEXPECT buf IDX 0 EQ {values}\n"));
    at(&e, line, column);
    assert_eq!(
        e.kind,
        ErrorKind::BadNumber {
            what: what.into(),
            text: text.into()
        },
        "{values}"
    );
}

#[test]
fn expect_decimal_overflow_after_zeros() {
    // uint32: 2^32 does not fit; column 21 is where the values start.
    expect_value_error(
        "0 0 0 0 0 0 0 0 0 4294967296",
        13,
        39,
        "uint32 expected value",
        "4294967296",
    );
    // Wider than u64 (20 digits).
    expect_value_error(
        "0 0 0 0 18446744073709551616",
        13,
        29,
        "uint32 expected value",
        "18446744073709551616",
    );
}

#[test]
fn expect_hex_wider_than_the_type_after_zeros() {
    expect_value_error(
        "0 0 0 0 0 0x100000000",
        13,
        31,
        "uint32 expected value",
        "0x100000000",
    );
    // Leading zeros do not count against the width, nine significant digits do.
    expect_value_error(
        "0x0 0 0 0 0 0x00000000000000001 0xfffffffff",
        13,
        53,
        "uint32 expected value",
        "0xfffffffff",
    );
}

#[test]
fn expect_bad_digits_after_zeros() {
    expect_value_error(
        "0 0 0 0 0 0 0 0 12a",
        13,
        37,
        "uint32 expected value",
        "12a",
    );
    expect_value_error("0 0 0 0 0x1G", 13, 29, "uint32 expected value", "0x1G");
    expect_value_error("0 0 0 0 0x", 13, 29, "uint32 expected value", "0x");
    expect_value_error(
        "0 0 0 0 00 0 0 0 0 1.5",
        13,
        40,
        "uint32 expected value",
        "1.5",
    );
    // A zero glued to a word is no lone zero.
    expect_value_error("0 0 0 0 0z 0 0 0 0", 13, 29, "uint32 expected value", "0z");
}

#[test]
fn expect_value_error_on_a_continued_line() {
    // `\` joins the next line: the bad value is at its own line there.
    expect_value_error(
        "0 0 0 0 \\\n  0 0 0 0 0 -x",
        14,
        13,
        "uint32 expected value",
        "-x",
    );
}

#[test]
fn expect_narrow_integer_widths() {
    let prelude = |ty: &str, values: &str| {
        format!("BUFFER n DATA_TYPE {ty} SIZE 16 FILL 0\nEXPECT n IDX 0 EQ 0 0 0 0 {values}\n")
    };
    for (ty, values, column, text) in [
        ("uint8", "255 256", 31, "256"),
        ("int8", "0xff 0x100", 32, "0x100"),
        ("uint16", "0xffff 0x10000", 34, "0x10000"),
        ("int16", "65535 65536", 33, "65536"),
    ] {
        let e = fail(&prelude(ty, values));
        at(&e, 13, column);
        assert_eq!(
            e.kind,
            ErrorKind::BadNumber {
                what: format!("{ty} expected value"),
                text: text.into()
            },
            "{ty} {values}"
        );
    }
}
