//! `check_expect` against hand-made buffer contents.

use tangle_amber::*;

/// Parses a script with the given declarations and one EXPECT as the last command; returns
/// the script and that EXPECT.
fn setup(decls: &str, expect: &str) -> (Script, Expect) {
    let s = parse(&format!("#!amber\n{decls}\n{expect}\n")).unwrap();
    let Some(Command::Expect(e)) = s.commands.last().cloned() else {
        panic!()
    };
    (s, e)
}

fn check(e: &Expect, bufs: &[(&str, Vec<u8>)]) -> Result<(), ExpectFailure> {
    let get = |n: &str| {
        bufs.iter()
            .find(|(m, _)| *m == n)
            .map(|(_, v)| v.as_slice())
    };
    check_expect(e, &get)
}

fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn first_mismatch_reports_index_and_offset() {
    let (_, e) = setup(
        "BUFFER b DATA_TYPE uint32 SIZE 8 FILL 0",
        "EXPECT b IDX 8 EQ 2 3 4 5",
    );
    check(&e, &[("b", u32s(&[0, 0, 2, 3, 4, 5, 0, 0]))]).unwrap();
    let f = check(&e, &[("b", u32s(&[0, 0, 2, 3, 9, 7, 0, 0]))]).unwrap_err();
    assert_eq!(f.line, 3);
    assert_eq!(
        f.kind,
        FailureKind::Mismatch {
            comparator: Comparator::Eq,
            value_index: 2,
            element_index: 4,
            component: 0,
            byte_offset: 16,
            expected: "4".into(),
            actual: "9".into(),
        }
    );
    assert_eq!(
        f.to_string(),
        "Line 3: 9 == 4 fails at value 2 (element 4, component 0, byte offset 16)"
    );
}

#[test]
fn vec3_values_skip_padding() {
    let (_, e) = setup(
        "BUFFER v DATA_TYPE vec3<float> SIZE 2 FILL 0",
        "EXPECT v IDX 16 EQ 4 5 6",
    );
    let mem = f32s(&[1.0, 2.0, 3.0, 99.0, 4.0, 5.0, 6.0, 99.0]);
    check(&e, &[("v", mem.clone())]).unwrap();
    let mut bad = mem;
    bad[24..28].copy_from_slice(&7.5f32.to_le_bytes());
    let f = check(&e, &[("v", bad)]).unwrap_err();
    let FailureKind::Mismatch {
        element_index,
        component,
        byte_offset,
        actual,
        ..
    } = f.kind
    else {
        panic!()
    };
    assert_eq!((element_index, component, byte_offset), (1, 2, 24));
    assert_eq!(actual, "7.5");
}

#[test]
fn signed_comparisons() {
    let decl = "BUFFER b DATA_TYPE int32 DATA -5 0 7 END";
    let mem = u32s(&[-5i32 as u32, 0, 7]);
    for (exp, ok) in [
        ("EXPECT b IDX 0 LT -4", true),
        ("EXPECT b IDX 0 LT -5", false),
        ("EXPECT b IDX 0 LE -5 0 7", true),
        ("EXPECT b IDX 4 GT -1 6", true),
        ("EXPECT b IDX 4 GE 1", false),
        ("EXPECT b IDX 0 NE 5 1 8", true),
        ("EXPECT b IDX 8 NE 7", false),
        ("EXPECT b IDX 0 EQ 0xfffffffb", true),
    ] {
        let (_, e) = setup(decl, exp);
        assert_eq!(check(&e, &[("b", mem.clone())]).is_ok(), ok, "{exp}");
    }
}

#[test]
fn float_equality_and_tolerance() {
    let decl = "BUFFER f DATA_TYPE float DATA 0 END";
    let mem = f32s(&[0.1]);
    for (exp, ok) in [
        // The expected value is rounded to float first, as amber does.
        ("EXPECT f IDX 0 EQ 0.1", true),
        ("EXPECT f IDX 0 EQ 0.1001", false),
        ("EXPECT f IDX 0 TOLERANCE 0.001 EQ 0.1001", true),
        ("EXPECT f IDX 0 TOLERANCE 0.1% EQ 0.1001", true),
        ("EXPECT f IDX 0 TOLERANCE 0.01 % EQ 0.1001", false),
        ("EXPECT f IDX 0 EQ 0.1001 TOLERANCE 0.001", true),
        ("EXPECT f IDX 0 NE 0.2", true),
        ("EXPECT f IDX 0 GT 0.05", true),
        ("EXPECT f IDX 0 LT 0.05", false),
    ] {
        let (_, e) = setup(decl, exp);
        assert_eq!(check(&e, &[("f", mem.clone())]).is_ok(), ok, "{exp}");
    }
    let (_, e) = setup(decl, "EXPECT f IDX 0 TOLERANCE 0.001 EQ 0.2");
    let f = check(&e, &[("f", mem)]).unwrap_err();
    assert!(f.to_string().contains("~="), "{f}");
}

#[test]
fn out_of_bounds_and_missing_buffer() {
    let (_, e) = setup(
        "BUFFER b DATA_TYPE uint32 SIZE 2 FILL 0",
        "EXPECT b IDX 4 EQ 0 0",
    );
    let f = check(&e, &[("b", u32s(&[0, 0]))]).unwrap_err();
    assert_eq!(
        f.kind,
        FailureKind::OutOfBounds {
            buffer: "b".into(),
            end: 12,
            size: 8
        }
    );
    let f = check(&e, &[]).unwrap_err();
    assert_eq!(f.kind, FailureKind::MissingBuffer("b".into()));
}

#[test]
fn eq_buffer_reports_first_difference() {
    let decls = "BUFFER a DATA_TYPE vec2<uint32> SIZE 3 FILL 0\nBUFFER b DATA_TYPE vec2<uint32> SIZE 3 FILL 0";
    let (_, e) = setup(decls, "EXPECT a EQ_BUFFER b");
    let same = u32s(&[1, 2, 3, 4, 5, 6]);
    check(&e, &[("a", same.clone()), ("b", same.clone())]).unwrap();
    let other = u32s(&[1, 2, 3, 9, 5, 8]);
    let f = check(&e, &[("a", other), ("b", same.clone())]).unwrap_err();
    assert_eq!(
        f.kind,
        FailureKind::BuffersDiffer {
            differing: 2,
            element_index: 1,
            component: 1,
            byte_offset: 12,
            actual: "9".into(),
            expected: "4".into(),
        }
    );
    let f = check(&e, &[("a", u32s(&[1, 2])), ("b", same)]).unwrap_err();
    assert!(matches!(f.kind, FailureKind::SizeMismatch { .. }));
}

#[test]
fn eq_buffer_ignores_vec3_padding() {
    let decls = "BUFFER a DATA_TYPE vec3<int32> SIZE 1 FILL 0\nBUFFER b DATA_TYPE vec3<int32> SIZE 1 FILL 0";
    let (_, e) = setup(decls, "EXPECT a EQ_BUFFER b");
    check(
        &e,
        &[("a", u32s(&[1, 2, 3, 77])), ("b", u32s(&[1, 2, 3, 0]))],
    )
    .unwrap();
}

#[test]
fn eq_buffer_format_mismatch() {
    let decls = "BUFFER a DATA_TYPE int32 SIZE 1 FILL 0\nBUFFER b DATA_TYPE float SIZE 1 FILL 0";
    let (_, e) = setup(decls, "EXPECT a EQ_BUFFER b");
    let f = check(&e, &[("a", vec![0; 4]), ("b", vec![0; 4])]).unwrap_err();
    assert!(matches!(f.kind, FailureKind::FormatMismatch { .. }));
}

#[test]
fn rmse_and_histogram() {
    let decls = "BUFFER a DATA_TYPE uint8 SIZE 4 FILL 0\nBUFFER b DATA_TYPE uint8 SIZE 4 FILL 0";
    let (_, e) = setup(decls, "EXPECT a RMSE_BUFFER b TOLERANCE 1");
    // Differences 0, 0, 0, 2: RMSE = sqrt(4/4) = 1.
    check(&e, &[("a", vec![1, 2, 3, 6]), ("b", vec![1, 2, 3, 4])]).unwrap();
    let f = check(&e, &[("a", vec![1, 2, 3, 7]), ("b", vec![1, 2, 3, 4])]).unwrap_err();
    assert!(matches!(f.kind, FailureKind::Rmse { .. }));

    let (_, e) = setup(decls, "EXPECT a EQ_HISTOGRAM_EMD_BUFFER b TOLERANCE 0.005");
    // Same multiset in another order: distance 0.
    check(&e, &[("a", vec![4, 3, 2, 1]), ("b", vec![1, 2, 3, 4])]).unwrap();
    let f = check(&e, &[("a", vec![255, 255, 255, 255]), ("b", vec![0; 4])]).unwrap_err();
    let FailureKind::HistogramEmd { emd, .. } = f.kind else {
        panic!()
    };
    assert!((emd - 255.0 / 256.0).abs() < 1e-12);

    let decls = "BUFFER a DATA_TYPE uint32 SIZE 1 FILL 0\nBUFFER b DATA_TYPE uint32 SIZE 1 FILL 0";
    let (_, e) = setup(decls, "EXPECT a EQ_HISTOGRAM_EMD_BUFFER b TOLERANCE 0.1");
    let f = check(&e, &[("a", vec![0; 4]), ("b", vec![0; 4])]).unwrap_err();
    assert!(matches!(f.kind, FailureKind::NotEightBit(_)));
}

#[test]
fn int64_and_uint64_extremes() {
    let (_, e) = setup(
        "BUFFER b DATA_TYPE int64 SIZE 1 FILL 0",
        "EXPECT b IDX 0 EQ -9223372036854775808",
    );
    check(&e, &[("b", i64::MIN.to_le_bytes().to_vec())]).unwrap();
    let (_, e) = setup(
        "BUFFER b DATA_TYPE uint64 SIZE 1 FILL 0",
        "EXPECT b IDX 0 GT 9223372036854775807",
    );
    check(&e, &[("b", u64::MAX.to_le_bytes().to_vec())]).unwrap();
}

/// A `uint32` value list (the run compared as a whole) against contents differing in one
/// bit of one value, for every length up to 70 and every position: the check fails at
/// exactly that value, and passes on the equal contents.
#[test]
fn uint32_runs_fail_at_each_single_difference() {
    for len in 1..=70u32 {
        let values: Vec<u32> = (0..len).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
        let list: Vec<String> = values.iter().map(|v| format!("{v:#x}")).collect();
        let (_, e) = setup(
            "BUFFER b DATA_TYPE uint32 SIZE 80 FILL 0",
            &format!("EXPECT b IDX 4 EQ {}", list.join(" ")),
        );
        let mut contents = vec![7u32; 80];
        contents[1..=len as usize].copy_from_slice(&values);
        check(&e, &[("b", u32s(&contents))]).unwrap();
        for at in 0..len as usize {
            let mut changed = contents.clone();
            changed[1 + at] ^= 1 << (at % 32);
            let f = check(&e, &[("b", u32s(&changed))]).unwrap_err();
            match f.kind {
                FailureKind::Mismatch { value_index, .. } => assert_eq!(value_index, at),
                other => panic!("{other:?}"),
            }
        }
    }
}
