//! Function-variable memory is reused per call: a call in a loop does not grow memory.

mod common;
use common::*;

/// main loops `n` times calling f1, whose local array of 256 words is written and read.
fn program(n: &str) -> String {
    prelude(32, &[("main", 0)])
        + &format!(
            r#"fn f0 "main"() -> void {{
b0:
  br b1
b1:
  v1 = phi u32 [c0, b0], [v3, b3]
  v8 = phi u32 [c0, b0], [v5, b3]
  loop_merge b4, b3
  br b2
b2:
  v2 = ult bool v1, {n}
  selection_merge b5
  br_if v2, b5, b4
b5:
  v5 = call[f1] u32 v1
  br b3
b3:
  v3 = iadd u32 v1, c1
  br b1
b4:
  v6 = load u32 g2
  v7 = access_chain ptr<StorageBuffer, u32> g0, c0, v6
  store v7, v8
  return
}}

fn f1 "f1"(v0: u32) -> u32 {{
b0:
  v1 = variable[Function] ptr<Function, t12>
  v2 = umod u32 v0, c15
  v3 = access_chain ptr<Function, u32> v1, v2
  store v3, v0
  v4 = load u32 v3
  return v4
}}
"#
        )
}

#[test]
fn a_call_in_a_loop_does_not_grow_memory() {
    let ten = module(&program("c10"));
    let thousand = module(&program("c19"));
    let o10 = run(&ten, "main", cfg(32), 32, &[]).unwrap();
    let o1000 = run(&thousand, "main", cfg(32), 32, &[]).unwrap();
    // The last call's result is stored: 9 and 999 (checks the loop really ran).
    assert_eq!(out_words(&o10)[0], 9);
    assert_eq!(out_words(&o1000)[0], 999);
    assert_eq!(o10.memory_bytes, o1000.memory_bytes);
    // 32 lanes × one 1 KiB array each, plus buffers, shared and per-lane globals: well
    // under what a region per call (32 × 1000 KiB) would take.
    assert!(o1000.memory_bytes < 32 * 1024 * 4, "{}", o1000.memory_bytes);
}

/// The engine keeps one frame of values per function and lane, which SPIR-V's ban on
/// recursion makes enough: a recursive entry point is refused up front with a typed
/// error, never run with frames that overwrite each other.
#[test]
fn recursion_is_a_config_error() {
    let text = prelude(32, &[("main", 0)])
        + r#"fn f0 "main"() -> void {
b0:
  v1 = call[f1] u32 c1
  return
}

fn f1 "f1"(v0: u32) -> u32 {
b0:
  v1 = ieq bool v0, c0
  selection_merge b2
  br_if v1, b2, b1
b1:
  v2 = isub u32 v0, c1
  v3 = call[f1] u32 v2
  br b2
b2:
  return v0
}
"#;
    let m = tangle_ir::text::parse(&text).unwrap_or_else(|e| panic!("parse: {e}"));
    match tangle_interp::Interpreter::new(&m, "main", cfg(32)) {
        Err(tangle_interp::InterpError::Config(msg)) => {
            assert!(msg.contains("recursive"), "{msg}")
        }
        Err(e) => panic!("expected a configuration error, got {e}"),
        Ok(_) => panic!("a recursive entry point was accepted"),
    }
}
