//! AmberScript that amber accepts and real scripts use: integral float literals for
//! integer buffers, `\` line continuations, `SPIRV-BIN`, Vulkan format names after
//! `DATA_TYPE`, zero-size and timed `RUN`s, `float16` data and `FILE` initializers. Each
//! with its bytes derived by hand, and the bad forms refused at their line and column.

use tangle_amber::*;

fn buffer(decl: &str) -> Buffer {
    let s = parse(&format!("#!amber\n{decl}\n")).unwrap_or_else(|e| panic!("{e}"));
    s.buffers[0].clone()
}

fn fail(text: &str) -> AmberError {
    parse(text).expect_err("expected an error")
}

const SHADER: &str = "#!amber\nSHADER compute s GLSL\nvoid main() {}\nEND\n";

#[test]
fn fill_with_an_integral_float_literal_on_integer_buffers() {
    assert_eq!(
        buffer("BUFFER b DATA_TYPE vec2<int16> SIZE 2 FILL 0.0").initial_bytes(),
        [0; 8]
    );
    assert_eq!(
        buffer("BUFFER b DATA_TYPE int32 SIZE 1 FILL -2.0").initial_bytes(),
        (-2i32).to_le_bytes()
    );
    // A fraction is refused (amber would truncate it silently), at the value.
    let e = fail("#!amber\nBUFFER b DATA_TYPE uint32 SIZE 1 FILL 0.5\n");
    assert_eq!(e.pos, Pos::new(2, 39), "{e}");
    assert!(matches!(e.kind, ErrorKind::BadNumber { .. }), "{e}");
}

#[test]
fn line_continuations_join_lines() {
    let text = format!(
        "{SHADER}PIPELINE compute p\n  ATTACH s \\\n    SPECIALIZE 1 AS uint32 2 \\  \n    SPECIALIZE 2 AS uint32 3\nEND\n"
    );
    let s = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let specs: Vec<(u32, u64)> = s.pipelines[0].attachments[0]
        .specializations
        .iter()
        .map(|sp| (sp.id, sp.bits))
        .collect();
    assert_eq!(specs, [(1, 2), (2, 3)]);
    // A backslash followed by more text on its line is an ordinary word.
    let text = format!("{SHADER}PIPELINE compute p\n  ATTACH s \\ x\nEND\n");
    let e = fail(&text);
    assert_eq!(e.pos, Pos::new(6, 12), "{e}");
}

#[test]
fn spirv_bin_shaders_come_from_files() {
    let s = parse("#!amber\nSHADER compute s SPIRV-BIN FILE k.spv\n").unwrap();
    assert_eq!(s.shaders[0].format, ShaderFormat::SpirvBin);
    assert_eq!(
        s.shaders[0].source,
        ShaderSource::File {
            path: "k.spv".into(),
            binary: true
        }
    );
    let e = fail("#!amber\nSHADER compute s SPIRV-BIN\n03 02\nEND\n");
    assert_eq!(e.pos, Pos::new(2, 27), "{e}");
}

#[test]
fn vulkan_format_names_are_data_types() {
    let b = buffer("BUFFER b DATA_TYPE R32G32B32A32_SFLOAT DATA 1 2 3 4 END");
    assert_eq!(b.format.ty, DataType::from_name("vec4<float>").unwrap());
    assert_eq!(b.size_in_bytes(), 16);
    let b = buffer("BUFFER b DATA_TYPE R16_SFLOAT DATA 1.5 END");
    assert_eq!(b.format.ty, DataType::from_name("float16").unwrap());
}

#[test]
fn float16_data_is_rounded_to_binary16() {
    // 1.5 = 0x3e00, -2 = 0xc000, 65504 = 0x7bff (largest), 1/3 rounds to 0x3555.
    let b = buffer("BUFFER b DATA_TYPE vec2<float16> DATA 1.5 -2 65504 0.333333333 END");
    assert_eq!(
        b.initial_bytes(),
        [0x00, 0x3e, 0x00, 0xc0, 0xff, 0x7b, 0x55, 0x35]
    );
    assert_eq!(Scalar::F16.decode(&[0x00, 0x3e]), Num::Float(1.5));
}

#[test]
fn timed_and_zero_size_runs() {
    let text = format!(
        "{SHADER}PIPELINE compute p\n  ATTACH s\nEND\nRUN TIMED_EXECUTION p 1 1 1\nRUN p 0 1 1\n"
    );
    let s = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let runs: Vec<(bool, [u32; 3])> = s
        .commands
        .iter()
        .map(|c| match c {
            Command::Run(r) => (r.timed_execution, r.groups),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(runs, [(true, [1, 1, 1]), (false, [0, 1, 1])]);
}

#[test]
fn file_initializers_text_and_binary() {
    let b = buffer("BUFFER b DATA_TYPE vec2<uint32> SIZE 1 FILE TEXT data.txt");
    assert_eq!(
        b.init,
        Initializer::File {
            path: "data.txt".into(),
            binary: false
        }
    );
    // Values as DATA has them, with comments; more than SIZE grows the buffer.
    let bytes = file_initial_bytes(&b, b"# header\n1 0x2\n3 4 # four\n", false).unwrap();
    let words: Vec<u32> = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(words, [1, 2, 3, 4]);
    // Fewer leaves zeros.
    let b3 = buffer("BUFFER b DATA_TYPE uint32 SIZE 3 FILE TEXT data.txt");
    assert_eq!(
        file_initial_bytes(&b3, b"7", false).unwrap(),
        [7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
    // A bad value is reported at its line and column in the data file.
    let e = file_initial_bytes(&b, b"1 2\n  x3\n", false).unwrap_err();
    assert_eq!(e.pos, Pos::new(2, 3), "{e}");
    // An odd number of values for vec2 elements.
    assert!(file_initial_bytes(&b, b"1 2 3", false).is_err());
    // Binary: the bytes as laid out.
    let b = buffer("BUFFER b DATA_TYPE float SIZE 1 FILE BINARY data.bin");
    assert_eq!(
        file_initial_bytes(&b, &[0, 0, 0x80, 0x3f, 0, 0, 0, 0x40], true).unwrap(),
        [0, 0, 0x80, 0x3f, 0, 0, 0, 0x40]
    );
    // PNG files are images: out of scope, refused at the word.
    let e = fail("#!amber\nBUFFER b DATA_TYPE uint32 SIZE 1 FILE PNG a.png\n");
    assert_eq!(e.pos, Pos::new(2, 39), "{e}");
    assert!(matches!(e.kind, ErrorKind::Unsupported(_)), "{e}");
}

#[test]
fn mistyped_keywords_get_a_suggestion_at_their_position() {
    let e = fail(&format!("{SHADER}PIPELNE compute p\n  ATTACH s\nEND\n"));
    assert_eq!(e.pos, Pos::new(5, 1), "{e}");
    assert!(e.to_string().ends_with("(did you mean `PIPELINE`?)"), "{e}");
    let e = fail(&format!("{SHADER}PIPELINE compute p\n  ATACH s\nEND\n"));
    assert_eq!(e.pos, Pos::new(6, 3), "{e}");
    assert!(e.to_string().ends_with("(did you mean `ATTACH`?)"), "{e}");
    let e = fail(&format!("{SHADER}run p 1 1 1\n"));
    assert!(e.to_string().ends_with("(did you mean `RUN`?)"), "{e}");
    // Nothing close: no suggestion.
    let e = fail(&format!("{SHADER}FROBNICATE\n"));
    assert!(!e.to_string().contains("did you mean"), "{e}");
}

#[test]
fn a_misspelt_end_is_reported_at_its_line() {
    // The shader's END is misspelt: the error names that line, not a later command.
    let text = "#!amber\nSHADER compute s GLSL\nvoid main() {}\n  ENDD\n\
                BUFFER b DATA_TYPE uint32 SIZE 1 FILL 0\nPIPELINE compute p\n  ATTACH s\nEND\n";
    let e = fail(text);
    assert_eq!(e.pos, Pos::new(4, 3), "{e}");
    assert!(
        e.to_string()
            .contains("`ENDD` does not close the SHADER block opened at 2:1 (did you mean `END`?)"),
        "{e}"
    );
    // A missing END before the next command is reported at that command.
    let text =
        "#!amber\nSHADER compute s GLSL\nvoid main() {}\nBUFFER b DATA_TYPE uint32 SIZE 1 FILL 0\n";
    let e = fail(text);
    assert_eq!(e.pos, Pos::new(4, 1), "{e}");
    assert!(
        e.to_string()
            .contains("`BUFFER` inside the SHADER block opened at 2:1: its `END` is missing"),
        "{e}"
    );
    // At the end of the file with no END at all: the opener.
    let e = fail("#!amber\nSHADER compute s GLSL\nvoid main() {}\n");
    assert_eq!(e.pos, Pos::new(2, 1), "{e}");
}

#[test]
fn dynamic_bindings_and_descriptor_windows() {
    let text = format!(
        "{SHADER}BUFFER b DATA_TYPE uint32 SIZE 64 FILL 0\nBUFFER u DATA_TYPE uint32 SIZE 64 FILL 0\n\
         PIPELINE compute p\n  ATTACH s\n\
         BIND BUFFER b AS storage_dynamic DESCRIPTOR_SET 0 BINDING 0 OFFSET 16 DESCRIPTOR_OFFSET 32\n\
         BIND BUFFER u AS uniform DESCRIPTOR_SET 0 BINDING 1 DESCRIPTOR_OFFSET 4 DESCRIPTOR_RANGE 8\nEND\n"
    );
    let s = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let [b, u] = s.pipelines[0].bindings.as_slice() else {
        panic!()
    };
    assert_eq!(b.kind, DescriptorKind::Storage);
    assert_eq!(b.window.bytes(256), Some(48..256));
    assert_eq!(u.kind, DescriptorKind::Uniform);
    assert_eq!(u.window.bytes(256), Some(4..12));
    assert_eq!(u.window.bytes(10), None);
    // A dynamic binding needs its OFFSET, reported at BINDING.
    let text = format!(
        "{SHADER}BUFFER b DATA_TYPE uint32 SIZE 4 FILL 0\nPIPELINE compute p\n  ATTACH s\n\
         BIND BUFFER b AS uniform_dynamic DESCRIPTOR_SET 0 BINDING 0\nEND\n"
    );
    let e = fail(&text);
    assert_eq!(e.pos, Pos::new(8, 51), "{e}");
    assert!(e.to_string().contains("needs `OFFSET <bytes>`"), "{e}");
}
