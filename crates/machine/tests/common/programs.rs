//! The test programs, each as a structured function (for the reference interpreter) and a
//! hand-written lowered form (for the machine). `rec(k)` records the ballot of the lanes
//! executing it; `store(k)` writes the record to `out[LocalInvocationIndex]`.
#![allow(dead_code)]

use super::{prelude, rec, store, START};

/// The `k_brk` pattern of `../shared/barrier-semantics.md` §(c)2: a loop whose lanes
/// leave in iteration `lid % 3` by breaking a *subset* out of the continue barrier
/// (`bar_break`, rule 3) and jumping straight to the outer `bar_sync`.
///
/// ```text
/// for (i = 0;; i++) { rec0; if (i == lid % 3) break; rec1 /* continue target */ }  rec2
/// ```
pub fn k_brk(local: u32) -> (String, String) {
    let structured = format!(
        "{p}fn f0 \"main\"() -> void {{
b0:
{START}  v2 = umod u32 v901, c3
  br b1
b1:
  v3 = phi u32 [c0, b0], [v5, b3]
  loop_merge b4, b3
  br b2
b2:
{r0}  v4 = ieq bool v3, v2
  br_if v4, b4, b3
b3:
{r1}  v5 = iadd u32 v3, c1
  br b1
b4:
{r2}{s0}  return
}}
",
        p = prelude(local),
        r0 = rec(0),
        r1 = rec(1),
        r2 = rec(2),
        s0 = store(0),
    );
    let lowered = format!(
        "{p}fn f0 \"main\"() -> void lowered {{
b0:
{START}  v2 = umod u32 v901, c3
  v10 = bar_set barrier
  br b1
b1:
  v3 = phi u32 [c0, b0], [v5, b3]
  v11 = bar_set barrier
{r0}  v4 = ieq bool v3, v2
  br_if v4, b5, b3
b5:
  bar_break v11, c12
  br b4
b3:
  bar_sync v11
{r1}  v5 = iadd u32 v3, c1
  br b1
b4:
  bar_sync v10
{r2}{s0}  return
}}
",
        p = prelude(local),
        r0 = rec(0),
        r1 = rec(1),
        r2 = rec(2),
        s0 = store(0),
    );
    (structured, lowered)
}

/// An early exit inside a barrier region: lanes with `lid & 3 == 1` enter the region's
/// arm, of which those with `lid & 4` set return (`exit`) from inside it; the region's
/// `bar_sync` must not wait for them (rule 2).
///
/// ```text
/// if ((lid & 3) == 1) { rec0; store; if (lid & 4) return; rec3 }  rec1; store
/// ```
pub fn early_exit(local: u32) -> (String, String) {
    let structured = format!(
        "{p}fn f0 \"main\"() -> void {{
b0:
{START}  v2 = and u32 v901, c3
  v3 = ieq bool v2, c1
  selection_merge b2
  br_if v3, b1, b2
b1:
{r0}{s0}  v4 = and u32 v901, c4
  v5 = ine bool v4, c0
  selection_merge b4
  br_if v5, b3, b4
b3:
  return
b4:
{r3}  br b2
b2:
{r1}{s1}  return
}}
",
        p = prelude(local),
        r0 = rec(0),
        r1 = rec(1),
        r3 = rec(3),
        s0 = store(0),
        s1 = store(1),
    );
    let lowered = format!(
        "{p}fn f0 \"main\"() -> void lowered {{
b0:
{START}  v2 = and u32 v901, c3
  v3 = ieq bool v2, c1
  v10 = bar_set barrier
  br_if v3, b1, b2
b1:
{r0}{s0}  v4 = and u32 v901, c4
  v5 = ine bool v4, c0
  exit v5
{r3}  br b2
b2:
  bar_sync v10
{r1}{s1}  return
}}
",
        p = prelude(local),
        r0 = rec(0),
        r1 = rec(1),
        r3 = rec(3),
        s0 = store(0),
        s1 = store(1),
    );
    (structured, lowered)
}

/// Nested scopes with the escape cascade: a break two `if`s deep in a loop. The lowered
/// form has a barrier per scope (loop, iteration, outer if, inner if); the break sets the
/// escape register (`1`) and goes to the inner if's sync, and after each sync the lanes
/// with a non-zero escape go on to the next scope's sync (the cascade), up to the loop's.
///
/// ```text
/// for (i = 0; i < 4; i++) {
///   rec0
///   if ((lid & 7) < 6) { rec1; if (i == lid % 3) { rec2; break; } rec3 }
///   rec4
/// } // continue target: rec5
/// rec6
/// ```
pub fn cascade(local: u32) -> (String, String) {
    let structured = format!(
        "{p}fn f0 \"main\"() -> void {{
b0:
{START}  v2 = umod u32 v901, c3
  v6 = and u32 v901, c7
  v7 = ult bool v6, c6
  br b1
b1:
  v3 = phi u32 [c0, b0], [v20, b7]
  loop_merge b8, b7
  br b2
b2:
{r0}  selection_merge b6
  br_if v7, b3, b6
b3:
{r1}  v4 = ieq bool v3, v2
  selection_merge b5
  br_if v4, b4, b5
b4:
{r2}  br b8
b5:
{r3}  br b6
b6:
{r4}  br b7
b7:
{r5}  v20 = iadd u32 v3, c1
  v21 = ult bool v20, c4
  br_if v21, b1, b8
b8:
{r6}{s0}  return
}}
",
        p = prelude(local),
        r0 = rec(0),
        r1 = rec(1),
        r2 = rec(2),
        r3 = rec(3),
        r4 = rec(4),
        r5 = rec(5),
        r6 = rec(6),
        s0 = store(0),
    );
    let lowered = format!(
        "{p}fn f0 \"main\"() -> void lowered {{
b0:
{START}  v2 = umod u32 v901, c3
  v6 = and u32 v901, c7
  v7 = ult bool v6, c6
  v10 = bar_set barrier
  br b1
b1:
  v3 = phi u32 [c0, b0], [v20, b7]
  v11 = bar_set barrier
{r0}  v12 = bar_set barrier
  br_if v7, b3, b6
b3:
{r1}  v4 = ieq bool v3, v2
  v13 = bar_set barrier
  br_if v4, b4, b5
b4:
{r2}  br b5
b5:
  v30 = phi u32 [c1, b4], [c0, b3]
  bar_sync v13
  v31 = ine bool v30, c0
  br_if v31, b6, b9
b9:
{r3}  br b6
b6:
  v40 = phi u32 [c0, b1], [v30, b5], [c0, b9]
  bar_sync v12
  v41 = ine bool v40, c0
  br_if v41, b10, b11
b11:
{r4}  br b10
b10:
  v50 = phi u32 [v40, b6], [c0, b11]
  bar_sync v11
  v51 = ine bool v50, c0
  br_if v51, b8, b7
b7:
{r5}  v20 = iadd u32 v3, c1
  v21 = ult bool v20, c4
  br_if v21, b1, b8
b8:
  bar_sync v10
{r6}{s0}  return
}}
",
        p = prelude(local),
        r0 = rec(0),
        r1 = rec(1),
        r2 = rec(2),
        r3 = rec(3),
        r4 = rec(4),
        r5 = rec(5),
        r6 = rec(6),
        s0 = store(0),
    );
    (structured, lowered)
}

/// Seed 000's first design, kept as the baseline: one barrier around the loop broken at
/// the break (`bar_break` at each level left), a barrier around the `if` broken by the
/// `continue` inside it, and no sync at the continue target.
///
/// ```text
/// for (i = 0;; i++) {
///   rec0
///   if (i < (lid & 1)) continue;   // odd lanes, first iteration only
///   rec1
///   if (i >= 2) break;
/// } // continue target: rec2
/// rec3
/// ```
///
/// The lowered form is the flawed one; the structured one is what it should mean.
pub fn seed000_baseline(local: u32) -> (String, String) {
    let structured = format!(
        "{p}fn f0 \"main\"() -> void {{
b0:
{START}  v2 = and u32 v901, c1
  br b1
b1:
  v3 = phi u32 [c0, b0], [v20, b5]
  loop_merge b6, b5
  br b2
b2:
{r0}  v4 = ult bool v3, v2
  selection_merge b4
  br_if v4, b3, b4
b3:
  br b5
b4:
{r1}  v5 = uge bool v3, c2
  br_if v5, b6, b5
b5:
{r2}  v20 = iadd u32 v3, c1
  br b1
b6:
{r3}{s0}  return
}}
",
        p = prelude(local),
        r0 = rec(0),
        r1 = rec(1),
        r2 = rec(2),
        r3 = rec(3),
        s0 = store(0),
    );
    let lowered = format!(
        "{p}fn f0 \"main\"() -> void lowered {{
b0:
{START}  v2 = and u32 v901, c1
  v10 = bar_set barrier
  br b1
b1:
  v3 = phi u32 [c0, b0], [v20, b5]
{r0}  v4 = ult bool v3, v2
  v11 = bar_set barrier
  br_if v4, b3, b4
b3:
  bar_break v11, c12
  br b5
b4:
  bar_sync v11
{r1}  v5 = uge bool v3, c2
  bar_break v10, v5
  br_if v5, b6, b5
b5:
{r2}  v20 = iadd u32 v3, c1
  br b1
b6:
  bar_sync v10
{r3}{s0}  return
}}
",
        p = prelude(local),
        r0 = rec(0),
        r1 = rec(1),
        r2 = rec(2),
        r3 = rec(3),
        s0 = store(0),
    );
    (structured, lowered)
}

/// A program whose result depends on groups staying apart: odd lanes leave the loop in
/// iteration 0 and even lanes in iteration 1, each through the break block (which records
/// its ballot), and the lowered form puts no barrier anywhere. Groups meet at the break
/// block only in different iterations, so every policy that merges only at barriers gives
/// the reference's ballots, and `opportunistic`, which merges groups at one point, does not.
///
/// ```text
/// for (i = 0;; i++) { if (i + (lid & 1) == 1) { rec0; break; } }  store
/// ```
pub fn apart(local: u32) -> (String, String) {
    let structured = format!(
        "{p}fn f0 \"main\"() -> void {{
b0:
{START}  v2 = and u32 v901, c1
  br b1
b1:
  v3 = phi u32 [c0, b0], [v20, b3]
  loop_merge b4, b3
  br b2
b2:
  v5 = iadd u32 v3, v2
  v6 = ieq bool v5, c1
  selection_merge b6
  br_if v6, b5, b6
b5:
{r0}  br b4
b6:
  br b3
b3:
  v20 = iadd u32 v3, c1
  br b1
b4:
{s0}  return
}}
",
        p = prelude(local),
        r0 = rec(0),
        s0 = store(0),
    );
    let lowered = format!(
        "{p}fn f0 \"main\"() -> void lowered {{
b0:
{START}  v2 = and u32 v901, c1
  br b1
b1:
  v3 = phi u32 [c0, b0], [v20, b3]
  v5 = iadd u32 v3, v2
  v6 = ieq bool v5, c1
  br_if v6, b5, b3
b5:
{r0}{s0}  return
b3:
  v20 = iadd u32 v3, c1
  br b1
}}
",
        p = prelude(local),
        r0 = rec(0),
        s0 = store(0),
    );
    (structured, lowered)
}

/// A deadlock: the two arms of a divergent branch sync on the same barrier at two
/// different `bar_sync`s, so each waits for lanes that wait elsewhere (rule 1 needs the
/// same program point).
pub fn deadlock(local: u32) -> String {
    format!(
        "{p}fn f0 \"main\"() -> void lowered {{
b0:
{START}  v2 = and u32 v901, c1
  v3 = ieq bool v2, c0
  v10 = bar_set barrier
  br_if v3, b1, b2
b1:
  bar_sync v10
  br b3
b2:
  bar_sync v10
  br b3
b3:
{s0}  return
}}
",
        p = prelude(local),
        s0 = store(0),
    )
}

/// A livelock: lane 0 spins until `out[0]` becomes 1, which the other lanes would write
/// only after the barrier that waits for lane 0.
pub fn livelock(local: u32) -> String {
    format!(
        "{p}fn f0 \"main\"() -> void lowered {{
b0:
{START}  v3 = ieq bool v901, c0
  v4 = access_chain ptr<StorageBuffer, u32> g0, c0, c0
  v10 = bar_set barrier
  br_if v3, b1, b2
b1:
  v5 = load u32 v4
  v6 = ieq bool v5, c0
  br_if v6, b1, b3
b2:
  bar_sync v10
  store v4, c1
  br b3
b3:
  return
}}
",
        p = prelude(local),
    )
}

/// Workgroup memory across subgroups: every lane writes `shared[lid]`, a workgroup
/// barrier, then reads its neighbour's slot inside a divergent region with a barrier.
pub fn workgroup_barrier(local: u32) -> (String, String) {
    let body = |lowered: bool| {
        let (set, sync) = if lowered {
            ("  v10 = bar_set barrier\n", "  bar_sync v10\n")
        } else {
            ("", "")
        };
        let header = if lowered {
            ""
        } else {
            "  selection_merge b2\n"
        };
        format!(
            "b0:
{START}  v2 = access_chain ptr<Workgroup, u32> g3, v901
  v3 = imul u32 v901, c3
  store v2, v3
  control_barrier[workgroup, workgroup, acquire_release|workgroup_memory]
  v4 = iadd u32 v901, c1
  v5 = umod u32 v4, c{local_const}
  v6 = access_chain ptr<Workgroup, u32> g3, v5
  v7 = load u32 v6
  v8 = and u32 v7, c1
  v9 = ieq bool v8, c0
{set}{header}  br_if v9, b1, b2
b1:
{r0}  br b2
b2:
{sync}  v11 = load u32 v900
  v12 = iadd u32 v11, v7
  store v900, v12
{s0}  return
",
            local_const = match local {
                8 => 8,
                _ => panic!("workgroup_barrier is written for 8 lanes"),
            },
            r0 = rec(0),
            s0 = store(0),
        )
    };
    (
        format!(
            "{}fn f0 \"main\"() -> void {{\n{}}}\n",
            prelude(local),
            body(false)
        ),
        format!(
            "{}fn f0 \"main\"() -> void lowered {{\n{}}}\n",
            prelude(local),
            body(true)
        ),
    )
}
