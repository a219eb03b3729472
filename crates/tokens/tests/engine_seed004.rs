//! Seed 004's shape on the token engine: two natural loops (headers A and C) inside one
//! irreducible cycle, entered from E at either loop. `infer-tokens-cfg` gives each loop a
//! preheader with an anchor and a heart on it; the seed argues that then, relative to the
//! convergence at the anchor (implementation-defined), the iterations of each loop converge
//! by the virtual loop counter. Checked here, under every policy, from the buffers alone:
//! each lane records the ballot of every iteration of each loop, and
//!
//! - the first iteration's ballots partition the lanes that entered (the anchor's groups);
//! - iteration `n`'s ballot is exactly the lanes of the lane's anchor group whose trip
//!   count reaches `n` (a brute-force statement of the heart rule, from the trip counts);
//! - the anchor groups are the maximal choice the engine documents: even lanes enter A
//!   first together, then all lanes run C together, then the odd lanes run A together.
//!
//! And the checks fail when they should: with the hearts replaced by anchors, the per-
//! iteration rule breaks.

use tangle_ir::module::Module;
use tangle_ir::ops::{Op, TangleOp};
use tangle_machine::{Convergence, Machine, MachineConfig, Policy, SUPPORTED_POLICIES};

const LANES: u32 = 16;
/// Words per lane: iterations 1..=4 of loop A (first visit), of loop C, and of A again
/// (a lane runs A at most once, so the third group stays zero for even lanes).
const SLOTS: u32 = 8;

fn trip_a(id: u32) -> u32 {
    id % 3 + 1
}

fn trip_c(id: u32) -> u32 {
    id % 4 + 1
}

/// E branches to A (even lanes) or C (odd); A loops `trip_a` times, then goes on to C
/// unless the lane has been in C; C loops `trip_c` times, then goes to A unless the lane has
/// been in A; both leave to X. Each iteration stores its ballot at `out[id*8 + slot]`.
fn program() -> String {
    format!(
        r#"spirv 1.4
memory_model GLSL450
capability Shader
capability GroupNonUniform
capability GroupNonUniformBallot
extension "SPV_KHR_maximal_reconvergence"

type t0 = void
type t1 = u32
type t2 = bool
type t3 = u32x4
type t4 = rtarray<u32> [stride 4]
type t5 = struct "Buf" {{ t4 [offset 0, name "data"] }} [block]

const c0 u32 = 0
const c1 u32 = 1
const c2 u32 = 3
const c3 u32 = 4
const c4 u32 = {SLOTS}
const c5 bool = true

global g0 ptr<StorageBuffer, t5> [set 0, binding 0, name "out"]
global g1 ptr<Input, u32> [builtin LocalInvocationIndex]

entry GLCompute "main" f0 (g1, g0) [local_size {LANES} 1 1, maximally_reconverges]

fn f0 "main"() -> void lowered {{
b0:
  v1 = variable[Function] ptr<Function, u32> c0
  v2 = variable[Function] ptr<Function, u32> c0
  v3 = variable[Function] ptr<Function, u32> c0
  v4 = variable[Function] ptr<Function, u32> c0
  v5 = load u32 g1
  v6 = and u32 v5, c1
  v7 = ieq bool v6, c0
  v8 = umod u32 v5, c2
  v9 = iadd u32 v8, c1
  v10 = umod u32 v5, c3
  v11 = iadd u32 v10, c1
  v12 = imul u32 v5, c4
  br_if v7, b1, b3
b1:
  v20 = load u32 v1
  v21 = iadd u32 v20, c1
  store v1, v21
  v22 = group_ballot[subgroup] u32x4 c5
  v23 = composite_extract[0] u32 v22
  v24 = isub u32 v21, c1
  v25 = iadd u32 v12, v24
  v26 = access_chain ptr<StorageBuffer, u32> g0, c0, v25
  store v26, v23
  v27 = ult bool v21, v9
  br_if v27, b1, b2
b2:
  store v3, c1
  v30 = load u32 v4
  v31 = ieq bool v30, c0
  br_if v31, b3, b5
b3:
  v40 = load u32 v2
  v41 = iadd u32 v40, c1
  store v2, v41
  v42 = group_ballot[subgroup] u32x4 c5
  v43 = composite_extract[0] u32 v42
  v44 = iadd u32 v41, c2
  v45 = iadd u32 v12, v44
  v46 = access_chain ptr<StorageBuffer, u32> g0, c0, v45
  store v46, v43
  v47 = ult bool v41, v11
  br_if v47, b3, b4
b4:
  store v4, c1
  v50 = load u32 v3
  v51 = ieq bool v50, c0
  br_if v51, b1, b5
b5:
  return
}}
"#
    )
}

/// The module after `infer-tokens-cfg`, verified.
fn with_tokens() -> Module {
    let mut m = tangle_ir::text::parse(&program()).expect("the program parses");
    tangle_ir::verify::verify(&m).expect("the program verifies");
    assert!(
        tangle_tokens::preheader::run(&mut m),
        "the pass places tokens"
    );
    tangle_ir::verify::verify(&m)
        .unwrap_or_else(|e| panic!("the result verifies: {e}\n{}", tangle_ir::text::print(&m)));
    m
}

/// The `out` words of the token engine.
fn run(m: &Module, size: u32, policy: Policy) -> Vec<u32> {
    let config = MachineConfig {
        subgroup_size: size,
        policy,
        convergence: Convergence::Tokens,
        step_budget: 1_000_000,
        ..MachineConfig::default()
    };
    let mut machine = Machine::new(m, "main", config).expect("the machine takes the module");
    machine.bind_buffer(0, 0, vec![0; (LANES * SLOTS * 4) as usize]);
    let out = machine
        .run()
        .unwrap_or_else(|e| panic!("{policy} at {size}: {e}"));
    out.buffers[&(0, 0)]
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A loop visit: its first slot, its trip count, which lanes run it.
type Visit = (u32, fn(u32) -> u32, fn(u32) -> bool);

/// The failures of the heart rule in `words` at subgroup size `size`: for each loop visit
/// (A first, C, A second), the first iteration's ballots must partition the lanes that ran
/// it, and iteration `n` must be exactly the lanes of the first iteration's group whose
/// trip count reaches `n`.
fn heart_rule_failures(words: &[u32], size: u32) -> Vec<String> {
    let mut bad = Vec::new();
    let visits: [Visit; 3] = [
        (0, trip_a, |id| id % 2 == 0),
        (4, trip_c, |_| true),
        (0, trip_a, |id| id % 2 == 1),
    ];
    for (v, &(slot, trip, runs)) in visits.iter().enumerate() {
        for id in (0..LANES).filter(|&id| runs(id)) {
            let sub = id / size;
            let lane_bit = |j: u32| 1u32 << (j % size);
            let at = |j: u32, n: u32| words[(j * SLOTS + slot + n - 1) as usize];
            let group = at(id, 1);
            if group & lane_bit(id) == 0 {
                bad.push(format!(
                    "visit {v}: lane {id} is not in its own first ballot"
                ));
            }
            // The group: the lanes of this subgroup in the first ballot.
            let members: Vec<u32> = (0..LANES)
                .filter(|&j| j / size == sub && group & lane_bit(j) != 0)
                .collect();
            for &j in &members {
                if !runs(j) || at(j, 1) != group {
                    bad.push(format!(
                        "visit {v}: lanes {id} and {j} disagree on the first iteration's group"
                    ));
                }
            }
            for n in 2..=trip(id) {
                let want = members
                    .iter()
                    .filter(|&&j| trip(j) >= n)
                    .fold(0, |m, &j| m | lane_bit(j));
                if at(id, n) != want {
                    bad.push(format!(
                        "visit {v}: lane {id} iteration {n}: ballot {:#x}, heart rule {want:#x}",
                        at(id, n)
                    ));
                }
            }
        }
    }
    bad
}

fn all() -> Vec<Policy> {
    tangle_sched::expand("all", "token engine", &SUPPORTED_POLICIES).expect("`all` expands")
}

#[test]
fn the_preheader_transform_gives_each_loop_its_own_counter_under_every_policy() {
    let m = with_tokens();
    let f = &m.funcs[tangle_ir::module::Func::from_u32(0)];
    let count = |t: TangleOp| {
        f.insts
            .iter()
            .filter(|(_, d)| d.op == Op::Tangle(t))
            .count()
    };
    assert_eq!(count(TangleOp::ConvLoop), 2, "a heart per natural loop");
    assert!(count(TangleOp::ConvAnchor) >= 2, "an anchor per preheader");
    for size in [4, 8, 32] {
        let mut first: Option<Vec<u32>> = None;
        for policy in all() {
            let words = run(&m, size, policy);
            let bad = heart_rule_failures(&words, size);
            assert!(
                bad.is_empty(),
                "{policy} at size {size}:\n{}",
                bad.join("\n")
            );
            match &first {
                None => first = Some(words),
                Some(w) => assert_eq!(w, &words, "{policy} at size {size} differs from strict"),
            }
        }
        // The maximal anchor choice: at the start both anchors wait for each other's lanes;
        // the one holding lane 0 (A's) goes first with every even lane of the subgroup,
        // C then runs with every lane, and A again with every odd lane.
        let words = first.expect("policies ran");
        for id in 0..LANES {
            let base = id / size * size;
            let sub: u32 = (base..(base + size).min(LANES)).fold(0, |m, j| m | 1 << (j % size));
            let even = sub & 0x5555_5555;
            let odd = sub & 0xaaaa_aaaa;
            let a = words[(id * SLOTS) as usize];
            let c = words[(id * SLOTS + 4) as usize];
            assert_eq!(
                a,
                if id % 2 == 0 { even } else { odd },
                "size {size} lane {id}: A"
            );
            assert_eq!(c, sub, "size {size} lane {id}: C");
        }
    }
}

#[test]
fn hearts_replaced_by_anchors_break_the_heart_rule() {
    let mut m = with_tokens();
    let f = &mut m.funcs[tangle_ir::module::Func::from_u32(0)];
    let loops: Vec<_> = f
        .insts
        .iter()
        .filter(|(_, d)| d.op == Op::Tangle(TangleOp::ConvLoop))
        .map(|(i, _)| i)
        .collect();
    for i in loops {
        f.insts[i].op = Op::Tangle(TangleOp::ConvAnchor);
        f.insts[i].conv = None;
    }
    tangle_ir::verify::verify(&m).expect("anchors in the headers are valid");
    let caught = [4, 8, 32]
        .iter()
        .any(|&size| !heart_rule_failures(&run(&m, size, Policy::Strict), size).is_empty());
    assert!(
        caught,
        "anchors in the loop headers converge iterations the heart keeps apart"
    );
}
