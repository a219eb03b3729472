//! The probe kernels of `../shared/probes` (all seven files in one translation unit, with
//! a definition of `k_ext`'s external function), compiled by nvcc for every SM:
//! - under the model every runnable probe finishes under every policy without deadlock,
//!   livelock or fault, and the deterministic ones match references written here;
//! - probes that reach an instruction the SASS layer does not decode yet fail with exactly
//!   that error, listed in `KNOWN_GAPS` (empty since every probe runs on every SM: SM75's
//!   uniform-address stores, NANOSLEEP, SM90's VIADDMNMX and `k_icall`'s relocated
//!   function-pointer table closed them);
//! - under the rejected barrier rules they fail as `../shared/barrier-semantics.md`
//!   predicts: `k_sib` and `k_deep` deadlock, `k_brk` computes a wrong ballot.

mod common;

use std::path::PathBuf;

use common::{bytes_i32, compile_every_sm, i32s, policies, run};
use tangle_sass::Arch;
use tangle_sim::{Arg, BarrierModel, SimError};

fn probes_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/probes")
}

/// Compiles every probe for every SM; `None` when the probes or nvcc are missing outside CI.
/// The scratch directory (kept alive) and the cubin of every SM.
type Compiled = (Box<dyn std::any::Any>, Vec<(Arch, Vec<u8>)>);

fn cubins(test: &str) -> Option<Compiled> {
    let dir = probes_dir();
    if !dir.join("k1.cu").exists() {
        assert!(
            !tangle_oracle::oracles_mandatory(),
            "{test}: {} is missing",
            dir.display()
        );
        eprintln!("SKIPPED {test}: {} is missing", dir.display());
        return None;
    }
    let holder = tangle_oracle::scratch_dir();
    let src = holder.path().join("probes.cu");
    let mut text = String::new();
    for k in 1..=7 {
        text.push_str(&format!(
            "#include \"{}\"\n",
            dir.join(format!("k{k}.cu")).display()
        ));
    }
    text.push_str("__device__ int ext(int *a, int x) { return a[x & 63] + x; }\n");
    std::fs::write(&src, text).unwrap();
    let c = compile_every_sm(&src, test)?;
    Some((Box::new(holder), c))
}

/// `a[i] = f(i)` for `n` entries.
fn ints(n: usize, f: impl Fn(i32) -> i32) -> Vec<i32> {
    (0..n as i32).map(f).collect()
}

fn ballot(pred: impl Fn(usize) -> bool) -> i32 {
    (0..32).fold(0u32, |m, l| if pred(l) { m | 1 << l } else { m }) as i32
}

fn input_small() -> Vec<i32> {
    ints(4096, |i| (i * 7 + 3) % 11 - 1)
}

fn input_deep() -> Vec<i32> {
    ints(256, |i| (i * 97) % 60)
}

/// `k_shdiff`: both arms' full-mask shuffles meet in one warp-wide exchange (ptxas routes
/// them through one shared `WARPSYNC; SHFL` subroutine on SM75-89), so lane `t` reads
/// what its source lane offered in *its* arm: `a[l]` in the odd arm, `a[l + 32]` in the
/// even one.
fn ref_shdiff(a: &[i32]) -> Vec<i32> {
    let mut out = a.to_vec();
    let offered = |l: usize| if a[l] & 1 != 0 { a[l] } else { a[l + 32] };
    for (t, o) in out.iter_mut().enumerate().take(32) {
        *o = if a[t] & 1 != 0 {
            offered(0) + 1
        } else {
            offered(1) * 2
        };
    }
    out
}

fn ref_ifelse(a: &[i32], n: i32) -> Vec<i32> {
    let mut a = a.to_vec();
    let mut v = [0i32; 32];
    for t in 0..32 {
        if a[t] > n {
            v[t] = a[t + 32] * 3;
            a[t + 64] = v[t];
        } else {
            v[t] = a[t + 96] + 7;
            a[t + 128] = v[t];
        }
    }
    let b = ballot(|t| v[t] > 5);
    a[..32].fill(b);
    a
}

fn ref_brk(a: &[i32], n: i32) -> Vec<i32> {
    let mut out = a.to_vec();
    let mut s = [0i32; 32];
    for (t, st) in s.iter_mut().enumerate() {
        for i in 0..n as usize {
            let x = a[i * 32 + t];
            if x == 0 {
                continue;
            }
            if x < 0 {
                break;
            }
            *st += x;
        }
    }
    out[..32].fill(ballot(|t| s[t] > 3));
    out
}

fn ref_sib(a: &[i32], n: i32) -> Vec<i32> {
    let mut out = a.to_vec();
    let mut s = [0i32; 32];
    for (t, st) in s.iter_mut().enumerate() {
        if a[t] & 1 != 0 {
            for i in 0..n as usize {
                let x = a[i * 32 + t];
                if x == 3 {
                    continue;
                }
                if x < 0 {
                    break;
                }
                *st += x;
            }
            *st *= 3;
        } else {
            for i in 0..n as usize {
                let x = a[i * 64 + t];
                if x == 4 {
                    continue;
                }
                if x > 100 {
                    break;
                }
                *st ^= x;
            }
            *st += 7;
        }
    }
    out[..32].fill(ballot(|t| s[t] > 3));
    out
}

fn ref_deep(a: &[i32]) -> Vec<i32> {
    let mut out = a.to_vec();
    let entered = |t: usize, x: usize| (1..=x).all(|j| a[t + j] > j as i32);
    let inner = ballot(|t| entered(t, 18));
    for (t, o) in out.iter_mut().enumerate().take(32) {
        if entered(t, 18) {
            *o = inner;
        }
    }
    for x in (1..=18).rev() {
        let m = ballot(|t| entered(t, x));
        for t in 0..32 {
            if entered(t, x) {
                out[t + 100 + x] = m.count_ones() as i32;
            }
        }
    }
    out
}

fn ref_nl(a: &[i32], n: i32, m: i32) -> Vec<i32> {
    let mut out = a.to_vec();
    let mut s = [0i32; 32];
    for j in 0..m as usize {
        for (t, st) in s.iter_mut().enumerate() {
            for i in 0..n as usize {
                let x = a[i * 32 + t + j];
                if x == 3 {
                    continue;
                }
                if x < 0 {
                    break;
                }
                *st += x;
            }
        }
        let prev = s;
        for t in 0..32 {
            s[t] = prev[t ^ 1];
        }
    }
    out[..32].copy_from_slice(&s);
    out
}

fn ref_loop(a: &[i32], n: i32) -> Vec<i32> {
    let mut out = a.to_vec();
    let s: Vec<i32> = (0..32)
        .map(|t| (0..a[t].max(0)).map(|i| a[(i + n) as usize]).sum())
        .collect();
    for t in 0..32 {
        out[t] = s[t ^ 1];
    }
    out
}

/// What a probe run is checked against.
enum Check {
    /// The final buffer 0 must equal this.
    Equal(Vec<i32>),
    /// It must finish; its result depends on the schedule (or is not modelled here).
    Finishes,
    /// Buffer 0 word 0 must be this, and buffer 1 word 0 that (spin locks).
    Counters(i32, i32),
    /// These words of buffer 0 must have these values (the rest depends on the schedule).
    Words(Vec<(usize, i32)>),
}

struct Probe {
    kernel: &'static str,
    args: Vec<Arg>,
    check: Check,
}

fn probes() -> Vec<Probe> {
    let small = input_small();
    let deep = input_deep();
    let buf = |v: &[i32]| Arg::Buffer(bytes_i32(v));
    let zero = |n: usize| Arg::Buffer(vec![0; n]);
    let q = ints(4096, |i| i % 4);
    let p = |kernel, args, check| Probe {
        kernel,
        args,
        check,
    };
    vec![
        p(
            "k_ifelse",
            vec![buf(&small), Arg::I32(2)],
            Check::Equal(ref_ifelse(&small, 2)),
        ),
        p(
            "k_loop",
            vec![buf(&small), Arg::I32(3)],
            Check::Equal(ref_loop(&small, 3)),
        ),
        p(
            "k_brk",
            vec![buf(&small), Arg::I32(5)],
            Check::Equal(ref_brk(&small, 5)),
        ),
        p(
            "k_sib",
            vec![buf(&small), Arg::I32(3)],
            Check::Equal(ref_sib(&small, 3)),
        ),
        p("k_deep", vec![buf(&deep)], Check::Equal(ref_deep(&deep))),
        p(
            "k_nl",
            vec![buf(&small), Arg::I32(3), Arg::I32(2)],
            Check::Equal(ref_nl(&small, 3, 2)),
        ),
        p("k_ret", vec![buf(&small), Arg::I32(3)], Check::Finishes),
        p("k_nested", vec![buf(&small), Arg::I32(3)], Check::Finishes),
        p("k_call", vec![buf(&small), Arg::I32(3)], Check::Finishes),
        p(
            "k_spin",
            vec![zero(16), zero(1024)],
            Check::Counters(0, 496),
        ),
        p("k_flag", vec![zero(16), zero(1024)], Check::Finishes),
        p("k_syncwarp", vec![buf(&small)], Check::Finishes),
        p("k_elect", vec![buf(&q), zero(4096)], Check::Finishes),
        p("k_switch", vec![buf(&small)], Check::Finishes),
        p("k_ext", vec![buf(&small), Arg::I32(3)], Check::Finishes),
        p("k_rec", vec![buf(&q)], Check::Finishes),
        p("k_lock", vec![zero(16), zero(1024)], Check::Counters(0, 32)),
        p("k_exitin", vec![buf(&small), Arg::I32(3)], Check::Finishes),
        p("k_cg", vec![buf(&small)], Check::Finishes),
        p("k_swloop", vec![buf(&small)], Check::Finishes),
        // `a[t] = tab[a[t] & 1](a[t + 32])` through the relocated function-pointer table:
        // lanes with an even `a[t]` call `f1(x) = x + 1` (the `f2` lanes' ballot depends on
        // which of them run together).
        p(
            "k_icall",
            vec![buf(&small)],
            Check::Words(
                (0..32)
                    .filter(|&t| small[t] & 1 == 0)
                    .map(|t| (t, small[t + 32] + 1))
                    .collect(),
            ),
        ),
        p("k_jt", vec![buf(&q)], Check::Finishes),
        p("k_ucall", vec![buf(&small)], Check::Finishes),
        p("k_retloop", vec![buf(&small), Arg::I32(3)], Check::Finishes),
        p("k_sibspin", vec![zero(16), zero(1024)], Check::Finishes),
        p("k_swdiff", vec![buf(&small)], Check::Finishes),
        p(
            "k_shdiff",
            vec![buf(&small)],
            Check::Equal(ref_shdiff(&small)),
        ),
        p("k_wt", vec![buf(&q), zero(1024)], Check::Finishes),
    ]
}

/// Probes that stop at something the simulator's inputs do not model yet, per SM (all SMs
/// when the list is empty), with a piece of the expected error text.
const KNOWN_GAPS: &[(&str, &[u32], &str)] = &[];

fn known_gap(kernel: &str, arch: Arch) -> Option<&'static str> {
    KNOWN_GAPS
        .iter()
        .find(|(k, sms, _)| *k == kernel && (sms.is_empty() || sms.contains(&arch.number())))
        .map(|g| g.2)
}

#[test]
fn probes_run_without_deadlock_under_every_policy_and_match_their_references() {
    let Some((_dir, cubins)) = cubins("probes") else {
        return;
    };
    let mut failures = Vec::new();
    let mut runs = 0;
    for (arch, bytes) in &cubins {
        for probe in probes() {
            let k = tangle_sim::load(bytes, probe.kernel).unwrap();
            let gap = known_gap(probe.kernel, *arch);
            for p in policies() {
                runs += 1;
                let r = run(&k, 1, 32, probe.args.clone(), p, BarrierModel::PerLane);
                let what = format!("{arch} {} {p}", probe.kernel);
                match (r, gap) {
                    (Err(e), Some(text)) if e.to_string().contains(text) => {}
                    (r, Some(text)) => failures.push(format!(
                        "{what}: expected the known gap `{text}`, got {:?}",
                        r.map(|_| "success")
                    )),
                    (Err(e), None) => failures.push(format!("{what}: {e}")),
                    (Ok(out), None) => {
                        let b0 = i32s(out.buffers[0].as_ref().unwrap());
                        match &probe.check {
                            Check::Equal(want) if &b0 != want => {
                                let i = (0..want.len()).find(|&i| b0[i] != want[i]).unwrap();
                                failures
                                    .push(format!("{what}: word {i} is {} not {}", b0[i], want[i]));
                            }
                            Check::Counters(lock, value) => {
                                let b1 = i32s(out.buffers[1].as_ref().unwrap());
                                if b0[0] != *lock || b1[0] != *value {
                                    failures.push(format!(
                                        "{what}: lock {} counter {} (want {lock}, {value})",
                                        b0[0], b1[0]
                                    ));
                                }
                            }
                            Check::Words(want) => {
                                for &(k, v) in want {
                                    if b0[k] != v {
                                        failures
                                            .push(format!("{what}: word {k} is {} not {v}", b0[k]));
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
    }
    eprintln!("probes: {runs} runs, {} failures", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Runs `kernel` under every policy with `model`; the errors and outputs.
fn under(
    bytes: &[u8],
    kernel: &str,
    args: &[Arg],
    model: BarrierModel,
) -> Vec<Result<Vec<i32>, SimError>> {
    let k = tangle_sim::load(bytes, kernel).unwrap();
    policies()
        .into_iter()
        .map(|p| {
            run(&k, 1, 32, args.to_vec(), p, model).map(|o| i32s(o.buffers[0].as_ref().unwrap()))
        })
        .collect()
}

#[test]
fn rejected_barrier_rules_fail_the_probes_as_the_model_predicts() {
    let Some((_dir, cubins)) = cubins("rejected_rules") else {
        return;
    };
    let small = input_small();
    let deep = input_deep();
    let deadlocks = |rs: &[Result<Vec<i32>, SimError>]| {
        rs.iter()
            .any(|r| matches!(r, Err(SimError::Deadlock { .. })))
    };
    let mut failures = Vec::new();
    for (arch, bytes) in &cubins {
        let sib = [Arg::Buffer(bytes_i32(&small)), Arg::I32(3)];
        let deep_args = [Arg::Buffer(bytes_i32(&deep))];
        // Under the model none of them deadlocks (the other test checks their results).
        for (k, args) in [("k_sib", &sib[..]), ("k_deep", &deep_args[..])] {
            if deadlocks(&under(bytes, k, args, BarrierModel::PerLane)) {
                failures.push(format!("{arch} {k} deadlocks under the model"));
            }
        }
        if !deadlocks(&under(bytes, "k_sib", &sib, BarrierModel::PerWarp)) {
            failures.push(format!(
                "{arch} k_sib does not deadlock with per-warp barriers"
            ));
        }
        for model in [BarrierModel::PerWarp, BarrierModel::NotInOwnCopy] {
            if !deadlocks(&under(bytes, "k_deep", &deep_args, model)) {
                failures.push(format!(
                    "{arch} k_deep does not deadlock under {}",
                    model.name()
                ));
            }
        }
        let want = ref_brk(&small, 5);
        let brk = under(
            bytes,
            "k_brk",
            &[Arg::Buffer(bytes_i32(&small)), Arg::I32(5)],
            BarrierModel::BlockedAnywhere,
        );
        if !brk
            .iter()
            .any(|r| matches!(r, Ok(v) if v[..32] != want[..32]))
        {
            failures.push(format!(
                "{arch} k_brk's ballot is right under every policy with blocked-anywhere"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
