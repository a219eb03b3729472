//! Bytes that depend on the order of racing atomics against `EXPECT`s (`docs/interp.md`,
//! "Order-dependent values"): 32 invocations `atomicExchange(d[0], id)` and store what they
//! got at `got[id]`. Which invocation got which value, and which value `d[0]` keeps, is
//! open; `last[id] = id` is not.

use tangle_oracle::Tool;
use tangle_run::{run_script, Event, Report, ScriptOptions};

const TEST: &str = "order";

fn script(commands: &str) -> String {
    format!(
        "#!amber\nSHADER compute race GLSL\n#version 450\n\
         layout(local_size_x = 32) in;\n\
         layout(set = 0, binding = 0) buffer D {{ uint d[]; }};\n\
         layout(set = 0, binding = 1) buffer G {{ uint got[]; }};\n\
         layout(set = 0, binding = 2) buffer L {{ uint last[]; }};\n\
         void main() {{\n  uint id = gl_LocalInvocationIndex;\n\
         got[id] = atomicExchange(d[0], id + 100u);\n  last[id] = id;\n}}\nEND\n\
         BUFFER d DATA_TYPE uint32 SIZE 1 FILL 0\n\
         BUFFER got DATA_TYPE uint32 SIZE 32 FILL 7\n\
         BUFFER last DATA_TYPE uint32 SIZE 32 FILL 7\n\
         PIPELINE compute p\n  ATTACH race\n\
         BIND BUFFER d AS storage DESCRIPTOR_SET 0 BINDING 0\n\
         BIND BUFFER got AS storage DESCRIPTOR_SET 0 BINDING 1\n\
         BIND BUFFER last AS storage DESCRIPTOR_SET 0 BINDING 2\nEND\n\
         {commands}\n"
    )
}

fn run(commands: &str) -> Option<Report> {
    tangle_oracle::require(Tool::Glslang, TEST)?;
    let text = script(commands);
    let parsed = tangle_amber::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    Some(run_script(&parsed, &ScriptOptions::default()).unwrap_or_else(|e| panic!("{e}")))
}

/// The `ReadOrderDependent` events: (buffer, first byte, count, origin).
fn order_reads(r: &Report) -> Vec<(String, usize, usize, String)> {
    r.events
        .iter()
        .filter_map(|e| match e {
            Event::ReadOrderDependent {
                buffer,
                byte_offset,
                count,
                origin,
                ..
            } => Some((buffer.clone(), *byte_offset, *count, origin.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn an_expect_on_order_dependent_bytes_fails_and_says_so() {
    // The reference's order (lane order) gives got[0] = 0, got[1] = 100, ...: an EXPECT
    // written from it holds on that one schedule only.
    let Some(r) = run("RUN p 1 1 1\nEXPECT got IDX 4 EQ 100 101") else {
        return;
    };
    assert!(!r.passed(), "{:?}", r.events);
    let reads = order_reads(&r);
    assert_eq!(reads.len(), 1, "{:?}", r.events);
    let (buffer, byte, count, origin) = &reads[0];
    assert_eq!((buffer.as_str(), *byte, *count), ("got", 4, 8));
    assert!(
        origin.contains("racing atomic is at"),
        "names where they came from: {origin}"
    );
    assert!(
        !r.events.iter().any(|e| matches!(e, Event::Passed { .. })),
        "{:?}",
        r.events
    );
}

#[test]
fn an_expect_on_determined_bytes_passes() {
    let Some(r) = run("RUN p 1 1 1\nEXPECT last IDX 0 EQ 0 1 2 3") else {
        return;
    };
    assert!(r.passed(), "{:?}", r.events);
    let Some(Event::Ran {
        order_dependent, ..
    }) = r.events.iter().find(|e| matches!(e, Event::Ran { .. }))
    else {
        panic!("no RUN: {:?}", r.events);
    };
    // d (the last exchange wins) and got are order-dependent; last is not.
    assert_eq!(order_dependent, &vec![(0, 0), (0, 1)]);
}
