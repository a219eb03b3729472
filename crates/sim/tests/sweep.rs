//! The systematic sweep (issue 16): a generated CUDA kernel for every arithmetic,
//! conversion, atomic and warp intrinsic over the integer and float types
//! (`sweep/cases.rs`), compiled by nvcc at `-O3` and `-G` for every SM and run on the
//! simulator (hazard mode, round-robin). A run that stops at a word the decoder refuses or
//! an instruction the simulator does not execute is a *gap*; a checked case whose output
//! differs from the same expression compiled for the host with g++ (`sweep/host_shims.h`
//! for the CUDA functions) is a *wrong result*.
//!
//! CI runs a bounded slice (every 5th case, `-O3`, all five SMs; every 15th at `-G` on
//! sm_86) and fails on any gap or wrong result not in [`KNOWN_GAPS`]. The whole sweep runs
//! by hand with `TANGLE_SIM_SWEEP=full`; `TANGLE_SIM_SWEEP_REPORT=FILE` writes every
//! failure as a tab-separated line (mode, SM, case, what, word).

#[path = "sweep/cases.rs"]
mod cases;
#[path = "sweep/gen.rs"]
mod gen;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use cases::{Case, Check};
use gen::N;
use tangle_oracle::{oracles_mandatory, require, scratch_dir, Tool};
use tangle_sass::Arch;
use tangle_sim::{Arg, Dim3, Launch, Options, SimError};

/// Gaps the simulator still has in the CI slice: (case, SMs or all when empty, mode, a
/// piece of the error). Each is explained in `docs/sim.md` ("The sweep").
const KNOWN_GAPS: &[(&str, &[u32], &str, &str)] = &[
    // Half precision: F2FP.PACK_AB (0x23e, SM80+) is decoded (issue 12) but not simulated.
    // (SM75's widening back, `HADD2.F32 R, R.H0_H0, -RZ.H0_H0`, runs since the
    // half-precision forms.)
    ("f16_round_trip", &[80, 86, 89, 90], "-O3", "`F2FP."),
    // `__sad`: VABSDIFF (0x414), a video instruction not decoded.
    ("sad", &[], "-O3", "opcode bits 0x414"),
    // SM90's float reductions REDG.E.ADD.F64.RN (0x9a6; issue 12's 0x9a3/0x9a6 family).
    ("atomicAdd_f64_g", &[90], "-O3", "opcode bits 0x9a6"),
    // `-G`: I2F from a 16-bit source with bit 60 set, and generic ATOM.CAS (0x38b).
    ("cvt_f32_i16", &[86], "-G", "opcode bits 0x306"),
    ("atomicCAS_u64_g_ret", &[86], "-G", "opcode bits 0x38b"),
];

/// One compilation mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    O3,
    Debug,
}

impl Mode {
    fn flag(self) -> &'static str {
        match self {
            Mode::O3 => "-O3",
            Mode::Debug => "-G",
        }
    }
}

/// The outcome of one case on one SM.
enum Outcome {
    Pass,
    /// A word the decoder refuses or an instruction the simulator does not run.
    Gap(String, String),
    /// The output differs from the host's.
    Wrong(String),
    /// Any other error (fault, deadlock, hazard).
    Error(String),
}

fn compile(
    nvcc: &tangle_oracle::Oracle,
    dir: &Path,
    src: &Path,
    arch: Arch,
    mode: Mode,
) -> Vec<u8> {
    let cubin = dir.join(format!("sweep_{}_{:?}.cubin", arch.number(), mode));
    nvcc.run_ok([
        "-cubin".into(),
        mode.flag().into(),
        format!("-arch=sm_{}", arch.number()),
        "-o".into(),
        cubin.display().to_string(),
        src.display().to_string(),
    ]);
    std::fs::read(&cubin).expect("nvcc wrote the cubin")
}

/// Runs the host program; the expected output of every checked case.
fn host_outputs(dir: &Path, cases: &[Case]) -> Option<BTreeMap<String, Vec<u8>>> {
    let shims = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sweep/host_shims.h");
    std::fs::copy(shims, dir.join("host_shims.h")).unwrap();
    std::fs::write(dir.join("host.cpp"), gen::host_source(cases)).unwrap();
    for c in cases {
        std::fs::write(
            dir.join(format!("{}.a", c.name)),
            gen::input(c.a.0, c.a.1, 0),
        )
        .unwrap();
        std::fs::write(
            dir.join(format!("{}.b", c.name)),
            gen::input(c.b.0, c.b.1, 1),
        )
        .unwrap();
    }
    let exe = dir.join("host");
    let built = Command::new("g++")
        .args([
            "-std=c++20",
            "-O1",
            "-fwrapv",
            "-frounding-math",
            "-ffp-contract=off",
        ])
        .arg("-o")
        .arg(&exe)
        .arg(dir.join("host.cpp"))
        .output();
    match built {
        Ok(o) if o.status.success() => {}
        Ok(o) => panic!("g++ failed:\n{}", String::from_utf8_lossy(&o.stderr)),
        Err(e) => {
            assert!(!oracles_mandatory(), "sweep: g++ is missing: {e}");
            eprintln!("SKIPPED sweep: g++ is missing: {e}");
            return None;
        }
    }
    let ran = Command::new(&exe).arg(dir).output().unwrap();
    assert!(
        ran.status.success(),
        "host program: {}",
        String::from_utf8_lossy(&ran.stderr)
    );
    Some(
        cases
            .iter()
            .filter(|c| c.check != Check::RunOnly)
            .map(|c| {
                (
                    c.name.clone(),
                    std::fs::read(dir.join(format!("{}.want", c.name))).unwrap(),
                )
            })
            .collect(),
    )
}

/// The word at `pc` of kernel `name` in `bytes`, as hex.
fn word_at(bytes: &[u8], name: &str, pc: u32) -> String {
    let c = tangle_sass::cubin::read(bytes).unwrap();
    c.functions
        .iter()
        .find(|f| f.name == name)
        .and_then(|f| f.words.get(pc as usize / 16))
        .map(|w| format!("{w:?}"))
        .unwrap_or_default()
}

fn run_case(bytes: &[u8], case: &Case, want: Option<&Vec<u8>>, mode: Mode) -> Outcome {
    let name = format!("k_{}", case.name);
    let k = match tangle_sim::load(bytes, &name) {
        Ok(k) => k,
        Err(e) => return Outcome::Error(e.to_string()),
    };
    let launch = Launch {
        grid: Dim3::new(2, 1, 1),
        block: Dim3::new(64, 1, 1),
        dynamic_shared: 0,
        args: vec![
            Arg::Buffer(gen::input(case.a.0, case.a.1, 0)),
            Arg::Buffer(gen::input(case.b.0, case.b.1, 1)),
            Arg::Buffer(vec![0; (4 + N) * case.out.size()]),
        ],
    };
    let mut o = Options::new(tangle_sched::Policy::RoundRobin);
    o.step_budget = 2_000_000;
    // `-G` code's control codes do not follow the latency tables (an LDC reads its index
    // register 1 cycle after `MOV R2, RZ`): hazard mode checks `-O3` code only.
    o.hazards = mode == Mode::O3;
    match tangle_sim::run(&k, &launch, &o) {
        Ok(out) if !out.hazards.is_empty() => {
            Outcome::Error(format!("hazard: {:?}", out.hazards[0]))
        }
        Ok(out) => {
            let got = out.buffers[2].as_ref().unwrap();
            match want {
                Some(w) => match gen::compare(case.out, case.check, got, w) {
                    None => Outcome::Pass,
                    Some(i) => {
                        let n = case.out.size();
                        Outcome::Wrong(format!(
                            "element {i}: got {:02x?}, want {:02x?}",
                            &got[i * n..i * n + n],
                            &w[i * n..i * n + n]
                        ))
                    }
                },
                None => Outcome::Pass,
            }
        }
        Err(e @ SimError::Refused { .. }) => {
            let SimError::Refused { site, .. } = &e else {
                unreachable!()
            };
            Outcome::Gap(e.to_string(), word_at(bytes, &name, site.pc))
        }
        Err(e @ SimError::Unsupported { .. }) => {
            let SimError::Unsupported { site, .. } = &e else {
                unreachable!()
            };
            Outcome::Gap(e.to_string(), word_at(bytes, &name, site.pc))
        }
        Err(e) => Outcome::Error(e.to_string()),
    }
}

fn known(case: &str, arch: Arch, mode: Mode, what: &str) -> bool {
    KNOWN_GAPS.iter().any(|(c, sms, m, text)| {
        *c == case
            && (sms.is_empty() || sms.contains(&arch.number()))
            && (m.is_empty() || *m == mode.flag())
            && what.contains(text)
    })
}

/// Runs `cases` compiled in `mode` for `arches`; every failure as (mode, SM, case, what,
/// word).
fn sweep(cases: &[Case], arches: &[Arch], mode: Mode, test: &str) -> Option<Vec<[String; 5]>> {
    let nvcc = require(Tool::Nvcc, test)?;
    let dir = scratch_dir();
    let want = host_outputs(dir.path(), cases)?;
    let cubins: Vec<(Arch, Vec<u8>)> = std::thread::scope(|s| {
        let hs: Vec<_> = arches
            .iter()
            .map(|&arch| {
                let (nvcc, dir) = (&nvcc, dir.path());
                s.spawn(move || {
                    let src = dir.join(format!("sweep_{}.cu", arch.number()));
                    std::fs::write(&src, gen::cuda_source(cases, arch.number())).unwrap();
                    (arch, compile(nvcc, dir, &src, arch, mode))
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut failures = Vec::new();
    let (mut runs, mut passed) = (0, 0);
    for (arch, bytes) in &cubins {
        for c in cases.iter().filter(|c| c.min_sm <= arch.number()) {
            runs += 1;
            let row = |what: String, word: String| {
                [
                    mode.flag().to_string(),
                    arch.to_string(),
                    c.name.clone(),
                    what,
                    word,
                ]
            };
            match run_case(bytes, c, want.get(&c.name), mode) {
                Outcome::Pass => passed += 1,
                Outcome::Gap(what, word) => failures.push(row(what, word)),
                Outcome::Wrong(what) => {
                    failures.push(row(format!("wrong result: {what}"), String::new()))
                }
                Outcome::Error(what) => failures.push(row(what, String::new())),
            }
        }
    }
    eprintln!(
        "sweep {}: {} cases, {runs} runs, {passed} passed, {} failed",
        mode.flag(),
        cases.len(),
        failures.len()
    );
    Some(failures)
}

fn report(rows: &[[String; 5]]) {
    if let Ok(path) = std::env::var("TANGLE_SIM_SWEEP_REPORT") {
        let text: String = rows.iter().map(|r| r.join("\t") + "\n").collect();
        std::fs::write(path, text).unwrap();
    }
}

#[test]
fn generated_kernels_run_on_the_simulator_and_match_the_host() {
    let all = cases::all();
    let full = std::env::var("TANGLE_SIM_SWEEP").is_ok_and(|v| v == "full");
    let mut rows = Vec::new();
    let plan: Vec<(Mode, Vec<Case>, Vec<Arch>)> = if full {
        vec![
            (Mode::O3, all.clone(), Arch::ALL.to_vec()),
            (Mode::Debug, all, Arch::ALL.to_vec()),
        ]
    } else {
        vec![
            (
                Mode::O3,
                all.iter().step_by(5).cloned().collect(),
                Arch::ALL.to_vec(),
            ),
            (
                Mode::Debug,
                all.iter().step_by(15).cloned().collect(),
                vec![Arch::Sm86],
            ),
        ]
    };
    let modes: Vec<String> = std::env::var("TANGLE_SIM_SWEEP_MODES")
        .map(|m| m.split(',').map(str::to_string).collect())
        .unwrap_or_else(|_| vec!["-O3".into(), "-G".into()]);
    for (mode, cases, arches) in plan {
        if !modes.iter().any(|m| m == mode.flag()) {
            continue;
        }
        // nvcc -G refuses `__dp4a` ("unsupported operation" in sm_61_intrinsics.hpp).
        let cases: Vec<Case> = cases
            .into_iter()
            .filter(|c| mode == Mode::O3 || c.name != "dp4a")
            .collect();
        let Some(r) = sweep(&cases, &arches, mode, "sweep") else {
            return;
        };
        for row in &r {
            eprintln!("{}", row.join("\t"));
        }
        rows.extend(r);
    }
    report(&rows);
    if full {
        return;
    }
    let unexpected: Vec<String> = rows
        .iter()
        .filter(|r| {
            let arch = Arch::ALL
                .iter()
                .find(|a| a.to_string() == r[1])
                .copied()
                .unwrap();
            let mode = if r[0] == "-G" { Mode::Debug } else { Mode::O3 };
            !known(&r[2], arch, mode, &r[3])
        })
        .map(|r| r.join(" "))
        .collect();
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}
