//! Undefined values reaching buffers: `EXPECT`s that read undefined bytes fail and say so,
//! those that do not read them pass, and undefined bytes travel with `COPY` and into the
//! next `RUN`. The shader (`data/divide.spvasm`) stores `100 / in[x]`; `in` = 0, 1, 2, 5, so
//! out[0] is undefined (zero underneath, so an `EQ 0` would pass if the check looked only
//! at the bytes) and out[1..4] = 100, 50, 20.

use tangle_run::{run_script, Event, Report, ScriptOptions};

const DIVIDE: &str = include_str!("data/divide.spvasm");

fn script(commands: &str) -> String {
    format!(
        "#!amber\nSHADER compute divide SPIRV-ASM TARGET_ENV spv1.3\n{DIVIDE}END\n\
         BUFFER in DATA_TYPE uint32 DATA 0 1 2 5 END\n\
         BUFFER out DATA_TYPE uint32 SIZE 4 FILL 9\n\
         BUFFER saved DATA_TYPE uint32 SIZE 4 FILL 0\n\
         BUFFER expected DATA_TYPE uint32 DATA 0 100 50 20 END\n\
         PIPELINE compute p\n  ATTACH divide\n\
         BIND BUFFER in AS storage DESCRIPTOR_SET 0 BINDING 0\n\
         BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 1\nEND\n\
         PIPELINE compute again\n  ATTACH divide\n\
         BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 0\n\
         BIND BUFFER saved AS storage DESCRIPTOR_SET 0 BINDING 1\nEND\n\
         {commands}\n"
    )
}

fn run(commands: &str) -> Report {
    let text = script(commands);
    let parsed = tangle_amber::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    run_script(&parsed, &ScriptOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// The line of the script (from `commands`) that starts with `needle`.
fn line_of(commands: &str, needle: &str) -> u32 {
    let text = script(commands);
    1 + text
        .lines()
        .position(|l| l.starts_with(needle))
        .expect("line in the script") as u32
}

/// The `ReadUndefined` events: (line, buffer, first byte, count).
fn undefined_reads(r: &Report) -> Vec<(u32, String, usize, usize)> {
    r.events
        .iter()
        .filter_map(|e| match e {
            Event::ReadUndefined {
                pos,
                buffer,
                byte_offset,
                count,
            } => Some((pos.line, buffer.clone(), *byte_offset, *count)),
            _ => None,
        })
        .collect()
}

#[test]
fn expect_on_defined_bytes_passes() {
    let r = run("RUN p 1 1 1\nEXPECT out IDX 4 EQ 100 50 20");
    assert!(r.passed(), "{:?}", r.events);
    assert_eq!(
        r.undefined["out"],
        [[true; 4], [false; 4], [false; 4], [false; 4]].concat()
    );
    assert_eq!(&r.buffers["out"][..4], &[0, 0, 0, 0]);
}

#[test]
fn expect_on_undefined_bytes_fails_and_says_so() {
    let c = "RUN p 1 1 1\nEXPECT out IDX 0 EQ 0 100";
    let r = run(c);
    assert!(!r.passed());
    let line = line_of(c, "EXPECT");
    assert_eq!(undefined_reads(&r), vec![(line, "out".into(), 0, 4)]);
    assert_eq!(r.counts(), (1, 0, 1));
    // The other check forms read the whole buffer.
    let c = "RUN p 1 1 1\nEXPECT out EQ_BUFFER expected";
    let r = run(c);
    assert_eq!(undefined_reads(&r), vec![(line, "out".into(), 0, 4)]);
}

#[test]
fn undefined_bytes_travel_with_copy_and_into_the_next_run() {
    let c = "RUN p 1 1 1\nCOPY out TO saved\nEXPECT saved IDX 0 EQ 0";
    let r = run(c);
    let line = line_of(c, "EXPECT");
    assert_eq!(undefined_reads(&r), vec![(line, "saved".into(), 0, 4)]);
    // `again` divides 100 by out[x]: out[0] is undefined, so saved[0] is too, while
    // saved[1] = 100 / 100 = 1, saved[2] = 100 / 50 = 2, saved[3] = 100 / 20 = 5.
    let c = "RUN p 1 1 1\nRUN again 1 1 1\nEXPECT saved IDX 4 EQ 1 2 5\nEXPECT saved IDX 0 EQ 0";
    let r = run(c);
    let line = line_of(c, "EXPECT saved IDX 0");
    assert_eq!(undefined_reads(&r), vec![(line, "saved".into(), 0, 4)]);
    assert_eq!(r.counts(), (2, 1, 1));
    // A defined store over undefined bytes makes them defined: `p` again rewrites out.
    let r = run("RUN p 1 1 1\nRUN again 1 1 1\nRUN p 1 1 1\nEXPECT out IDX 4 EQ 100 50 20");
    assert!(r.passed(), "{:?}", r.events);
}

/// The CTS's `crash_test/divbyzero_comp.amber` divides by zero, converts infinities and NaNs
/// to integers and stores the undefined results; only `data[0] = 42` is checked.
#[test]
fn cts_divbyzero_passes() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../../shared/conformance/amber/VK-GL-CTS/external/vulkancts/data/vulkan/amber/crash_test/divbyzero_comp.amber",
    );
    if !path.exists() {
        eprintln!("skipped: {} is absent", path.display());
        return;
    }
    if tangle_oracle::require(tangle_oracle::Tool::Glslang, "cts_divbyzero_passes").is_none() {
        return;
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let r = run_script(
        &tangle_amber::parse(&text).unwrap(),
        &ScriptOptions::default(),
    )
    .unwrap();
    assert!(r.passed(), "{:?}", r.events);
    // data[1..20] hold undefined values (7 / 0, int(inf), int(NaN), ...), data[0] does not.
    let mask = &r.undefined["ssbo_buffer"];
    assert!(mask[..4].iter().all(|u| !u));
    assert!(mask[4..8].iter().all(|u| *u), "7 / 0 is undefined");
}
