//! Shared helpers: a prelude of types, constants and globals, and runners.
#![allow(dead_code)]

use tangle_interp::{Config, InterpError, Interpreter, Mask, Outcome};
use tangle_ir::{Module, Op};

/// Types t0..t11, constants c0..c20 and globals g0..g3 every test program can use.
///
/// - g0: `out` (set 0, binding 0), g1: `in` (set 0, binding 1), both `rtarray<u32>`;
/// - g2: LocalInvocationIndex, g3: SubgroupLocalInvocationId, g4: `shared` (array<u32, 256>
///   in Workgroup memory), g5: SubgroupId.
pub fn prelude(local_size: u32, entries: &[(&str, u32)]) -> String {
    let mut s = String::from(
        r#"spirv 1.4
memory_model GLSL450
capability Shader
capability GroupNonUniform
capability GroupNonUniformVote
capability GroupNonUniformBallot
capability GroupNonUniformArithmetic
capability GroupNonUniformShuffle
capability GroupNonUniformShuffleRelative
capability GroupNonUniformClustered
extension "SPV_KHR_maximal_reconvergence"

type t0 = void
type t1 = u32
type t2 = bool
type t3 = u32x4
type t4 = rtarray<u32> [stride 4]
type t5 = struct "Buf" { t4 [offset 0, name "data"] } [block]
type t6 = fn() -> void
type t7 = fn(u32) -> u32
type t8 = ptr<StorageBuffer, t5>
type t9 = ptr<Input, u32>
type t10 = ptr<StorageBuffer, u32>
type t11 = fn(u32) -> void
type t12 = array<u32, 256> [stride 4]
type t13 = ptr<Workgroup, t12>
type t14 = ptr<Workgroup, u32>

const c0 u32 = 0
const c1 u32 = 1
const c2 u32 = 2
const c3 u32 = 3
const c4 u32 = 4
const c5 u32 = 5
const c6 u32 = 6
const c7 u32 = 7
const c8 u32 = 8
const c9 u32 = 9
const c10 u32 = 10
const c11 u32 = 32
const c12 u32 = 200
const c13 bool = true
const c14 u32 = 128
const c15 u32 = 256
const c16 u32 = 384
const c17 u32 = 16
const c18 u32 = 64
const c19 u32 = 1000
const c20 bool = false

global g0 ptr<StorageBuffer, t5> [set 0, binding 0, name "out"]
global g1 ptr<StorageBuffer, t5> [set 0, binding 1, name "in"]
global g2 ptr<Input, u32> [builtin LocalInvocationIndex]
global g3 ptr<Input, u32> [builtin SubgroupLocalInvocationId]
global g4 ptr<Workgroup, t12> [name "shared"]
global g5 ptr<Input, u32> [builtin SubgroupId]

"#,
    );
    for (name, f) in entries {
        s.push_str(&format!(
            "entry GLCompute \"{name}\" f{f} (g2, g3, g5, g0, g1, g4) [local_size {local_size} 1 1, maximally_reconverges]\n"
        ));
    }
    s.push('\n');
    s
}

/// Parses and verifies a module.
pub fn module(text: &str) -> Module {
    let m = tangle_ir::text::parse(text).unwrap_or_else(|e| panic!("parse: {e}\n{text}"));
    if let Err(e) = tangle_ir::verify::verify(&m) {
        panic!("verify: {e}\n{text}");
    }
    m
}

/// Runs `entry` with an output buffer of `out_words` zeros and the given input words.
pub fn run(
    m: &Module,
    entry: &str,
    config: Config,
    out_words: usize,
    input: &[u32],
) -> Result<Outcome, InterpError> {
    let mut it = Interpreter::new(m, entry, config)?;
    it.bind_buffer(0, 0, vec![0; out_words * 4]);
    let mut bytes = Vec::new();
    for w in input {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    if bytes.is_empty() {
        bytes = vec![0; 4];
    }
    it.bind_buffer(0, 1, bytes);
    it.run()
}

/// The output buffer as words.
pub fn out_words(o: &Outcome) -> Vec<u32> {
    words(&o.buffers[&(0, 0)])
}

/// Little-endian bytes as 32-bit words.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A per-byte flag (undefined, order-dependent) as one flag per 32-bit word; panics where
/// the four bytes of a word differ, since the tests write and expect whole words.
pub fn word_flags(bytes: &[bool]) -> Vec<bool> {
    bytes
        .chunks(4)
        .map(|w| {
            assert!(w.iter().all(|b| *b == w[0]), "a word split: {w:?}");
            w[0]
        })
        .collect()
}

/// The tangles that executed the instruction defining value `vN` of function `fN`, in
/// trace order (all subgroups).
pub fn masks(m: &Module, o: &Outcome, func: u32, value: u32) -> Vec<Mask> {
    let f = tangle_ir::Func::from_u32(func);
    let inst = m.funcs[f]
        .insts
        .iter()
        .find(|(_, d)| d.result.map(|v| v.as_u32()) == Some(value) && !matches!(d.op, Op::Phi(_)))
        .map(|(i, _)| i)
        .expect("instruction defining the value");
    o.trace
        .iter()
        .filter(|e| e.func == f && e.inst == inst)
        .map(|e| e.mask)
        .collect()
}

/// Like [`masks`], sorted.
pub fn sorted_masks(m: &Module, o: &Outcome, func: u32, value: u32) -> Vec<Mask> {
    let mut v = masks(m, o, func, value);
    v.sort();
    v
}

/// A config with subgroup size `s`.
pub fn cfg(s: u32) -> Config {
    Config {
        subgroup_size: s,
        ..Config::default()
    }
}
