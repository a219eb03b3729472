//! Buffer layout and initial bytes, against the tables of amber's docs/memory_layout.md.

use tangle_amber::*;

fn buffer(decl: &str) -> Buffer {
    let s = parse(&format!("#!amber\n{decl}\n")).unwrap();
    s.buffers[0].clone()
}

fn stride(ty: &str, layout: Layout) -> usize {
    ElementFormat {
        ty: DataType::from_name(ty).unwrap(),
        layout,
    }
    .stride()
}

#[test]
fn strides_match_amber_memory_layout() {
    use Layout::*;
    let table = [
        ("int8", 1, 16),
        ("int16", 2, 16),
        ("int32", 4, 16),
        ("int64", 8, 16),
        ("float", 4, 16),
        ("double", 8, 16),
        ("vec2<float>", 8, 16),
        ("vec3<float>", 16, 16),
        ("vec4<float>", 16, 16),
        ("vec2<int8>", 2, 16),
        ("vec2<int16>", 4, 16),
        ("vec3<int8>", 4, 16),
        ("vec3<int16>", 8, 16),
        ("vec3<int32>", 16, 16),
        ("vec4<int8>", 4, 16),
        ("vec4<int16>", 8, 16),
        ("vec3<double>", 32, 32),
        ("vec4<uint64>", 32, 32),
    ];
    for (ty, s430, s140) in table {
        assert_eq!(stride(ty, Std430), s430, "{ty} std430");
        assert_eq!(stride(ty, Std140), s140, "{ty} std140");
    }
    assert_eq!(stride("vec3<float>", Packed), 12);
}

#[test]
fn vec3_data_is_padded_in_std430_by_default() {
    let b = buffer("BUFFER v DATA_TYPE vec3<int32> DATA\n1 2 3\n4 5 6\nEND");
    assert_eq!(b.format.layout, Layout::Std430);
    let mut want = Vec::new();
    for v in [1i32, 2, 3, 0, 4, 5, 6, 0] {
        want.extend_from_slice(&v.to_le_bytes());
    }
    assert_eq!(b.initial_bytes(), want);
}

#[test]
fn vec3_int8_and_int16_padding() {
    let b = buffer("BUFFER v DATA_TYPE vec3<int8> DATA -1 2 3 4 5 6 END");
    assert_eq!(b.initial_bytes(), [0xff, 2, 3, 0, 4, 5, 6, 0]);
    let b = buffer("BUFFER v DATA_TYPE vec3<uint16> SIZE 1 FILL 0x1234");
    assert_eq!(
        b.initial_bytes(),
        [0x34, 0x12, 0x34, 0x12, 0x34, 0x12, 0, 0]
    );
}

#[test]
fn std140_scalar_array_stride_16() {
    let b = buffer("BUFFER u DATA_TYPE int32 STD140 DATA 1 2 END");
    let mut want = vec![0u8; 32];
    want[0] = 1;
    want[16] = 2;
    assert_eq!(b.initial_bytes(), want);
}

#[test]
fn fill_every_component() {
    let b = buffer("BUFFER f DATA_TYPE vec2<float> SIZE 3 FILL 1.5");
    let bytes = b.initial_bytes();
    assert_eq!(bytes.len(), 24);
    for c in bytes.chunks(4) {
        assert_eq!(c, 1.5f32.to_le_bytes());
    }
    let b = buffer("BUFFER f DATA_TYPE double SIZE 2 FILL -2");
    assert_eq!(&b.initial_bytes()[8..], &(-2.0f64).to_le_bytes());
}

#[test]
fn series_integer_wraps_and_float_accumulates() {
    let b = buffer("BUFFER s DATA_TYPE uint8 SIZE 4 SERIES_FROM 254 INC_BY 1");
    assert_eq!(b.initial_bytes(), [254, 255, 0, 1]);
    let b = buffer("BUFFER s DATA_TYPE int16 SIZE 3 SERIES_FROM 1 INC_BY -2");
    let v: Vec<i16> = b
        .initial_bytes()
        .chunks(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(v, [1, -1, -3]);
    let b = buffer("BUFFER s DATA_TYPE float SIZE 3 SERIES_FROM 0.5 INC_BY 0.25");
    let v: Vec<f32> = b
        .initial_bytes()
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(v, [0.5, 0.75, 1.0]);
    let b = buffer("BUFFER s DATA_TYPE int64 STD140 SIZE 2 SERIES_FROM -1 INC_BY 1");
    let bytes = b.initial_bytes();
    assert_eq!(bytes.len(), 32);
    assert_eq!(&bytes[..8], &(-1i64).to_le_bytes());
    assert_eq!(&bytes[16..24], &0i64.to_le_bytes());
}

#[test]
fn data_literals_per_type() {
    let b = buffer("BUFFER d DATA_TYPE uint64 DATA 0xffffffffffffffff 18446744073709551615 END");
    assert_eq!(b.initial_bytes(), [0xff; 16]);
    // A hex literal for a float type is its bit pattern; a decimal integer is a number.
    let b = buffer("BUFFER d DATA_TYPE float DATA 0x3f800000 1 1e1 END");
    let v: Vec<f32> = b
        .initial_bytes()
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(v, [1.0, 1.0, 10.0]);
    // -1 and 0xffffffff are the same int32 and uint32 bits (amber casts).
    let b = buffer("BUFFER d DATA_TYPE int32 DATA -1 0xffffffff END");
    assert_eq!(b.initial_bytes(), [0xff; 8]);
}

#[test]
fn format_buffers_are_packed_and_empty() {
    let b = buffer("BUFFER img FORMAT R32G32B32_SFLOAT");
    assert_eq!(b.format.stride(), 12);
    assert_eq!(b.element_count, 0);
    assert!(b.initial_bytes().is_empty());
    let b = buffer("BUFFER img FORMAT R8G8B8A8_UINT");
    assert_eq!(b.format.ty, DataType::vector(Scalar::U8, 4));
    let e = parse("#!amber\nBUFFER img FORMAT B8G8R8A8_UNORM\n").unwrap_err();
    assert_eq!(e.pos, Pos::new(2, 19));
    assert!(matches!(e.kind, ErrorKind::Unsupported(_)));
}

/// Matrix data types lay out each column as the vector it is (std430: a 3-row column takes
/// 16 bytes; std140 rounds every column to 16), columns in order, values listed column by
/// column: offsets derived by hand.
#[test]
fn matrix_buffers_lay_out_columns() {
    let b = buffer("BUFFER m DATA_TYPE mat2x3<float> DATA\n1 2 3 4 5 6\n7 8 9 10 11 12\nEND");
    assert_eq!(b.format.ty.to_string(), "mat2x3<float>");
    assert_eq!(b.element_count, 2);
    // Two columns of 16 bytes each per matrix.
    assert_eq!(b.format.stride(), 32);
    let bytes = b.initial_bytes();
    assert_eq!(bytes.len(), 64);
    let f = |o: usize| f32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    // Matrix 0: column 0 = 1 2 3 at 0, 4, 8; column 1 = 4 5 6 at 16, 20, 24.
    assert_eq!(
        [f(0), f(4), f(8), f(16), f(20), f(24)],
        [1., 2., 3., 4., 5., 6.]
    );
    // Matrix 1 starts at 32 (its column 1 at 48); padding stays zero.
    assert_eq!([f(32), f(48), f(52), f(12), f(28)], [7., 10., 11., 0., 0.]);
    // mat2x2<double>: 16-byte columns, 32-byte matrices; in std140 still 16 per column.
    let d = buffer("BUFFER d DATA_TYPE mat2x2<double> STD140 SIZE 3 FILL 1.5");
    assert_eq!(d.format.stride(), 32);
    assert_eq!(d.initial_bytes().len(), 96);
    // mat2x2<float> in std140: columns rounded to 16 bytes.
    let s = buffer("BUFFER s DATA_TYPE mat2x2<float> STD140 DATA\n1 2 3 4\nEND");
    assert_eq!(s.format.stride(), 32);
    assert_eq!(s.format.value_offset(2), 16);
    assert_eq!(s.format.value_offset(5), 32 + 4);
}
