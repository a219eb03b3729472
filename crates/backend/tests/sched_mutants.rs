//! The scheduled control codes against the hazard checker, mutant by mutant (issue 17's
//! "stalls cut short" item): on the bundled example and fuzz programs, on every SM, the
//! scheduled code is hazard-free, and each control code that enforces a dependence is
//! needed — cutting the stall that makes a fixed-latency gap by one cycle, clearing a wait
//! bit that guards a read (or an overwrite of a source still being read), or moving a
//! producer to a scoreboard its reader does not wait on, is flagged by the hazard checker
//! wherever the mutated code runs. The conservative codes (`Sched::None`) are hazard-free
//! too, and the scheduled code takes no more simulated cycles than they do.

use std::collections::HashSet;

use tangle_backend::sched::is_fence;
use tangle_backend::sched::scoreboard::{Dep, Need};
use tangle_backend::{compile, CompileOptions, Compiled, Sched};
use tangle_fuzz::ast::INPUT;
use tangle_fuzz::build::build_module;
use tangle_fuzz::mask::simulate as mask_words;
use tangle_fuzz::{generate, GenConfig};
use tangle_ir::Module;
use tangle_sass::latency::{self, Kind};
use tangle_sass::typed::Loc;
use tangle_sass::Arch;
use tangle_sched::Policy;
use tangle_sim::{Arg, Dim3, Kernel, Launch, Options, RunOutput};

fn compile_with(module: &Module, arch: Arch, sched: Sched) -> Compiled {
    let opts = CompileOptions {
        sched,
        ..CompileOptions::new(arch)
    };
    compile(module, "main", &opts).unwrap_or_else(|e| panic!("{arch}: {e}"))
}

/// Runs `c` (words as given) on the fuzz buffers, hazard mode, round-robin, with a trace
/// when asked.
fn run(c: &Compiled, words: usize, trace: bool) -> RunOutput {
    let kernel = Kernel::from_words(c.arch, &c.name, &c.code.words, &c.abi.sizes());
    let input: Vec<u8> = INPUT.iter().flat_map(|w| w.to_le_bytes()).collect();
    let buffers = [vec![0u8; words.max(1) * 4], input];
    let args = c
        .abi
        .params
        .iter()
        .map(|p| match *p {
            tangle_backend::Param::Buffer { binding, .. } => {
                Arg::Buffer(buffers.get(binding as usize).cloned().unwrap_or_default())
            }
            tangle_backend::Param::BufferBytes { binding, .. } => {
                Arg::U32(buffers.get(binding as usize).map_or(0, |b| b.len() as u32))
            }
            tangle_backend::Param::PushWord(_) => Arg::U32(0),
        })
        .collect();
    let [x, y, z] = c.workgroup_size;
    let launch = Launch {
        grid: Dim3::new(1, 1, 1),
        block: Dim3::new(x, y, z),
        dynamic_shared: 0,
        args,
    };
    let mut o = Options::new(Policy::RoundRobin);
    o.hazards = true;
    o.trace = trace;
    tangle_sim::run(&kernel, &launch, &o).unwrap_or_else(|e| panic!("{}: {e}", c.arch))
}

/// The instruction indices the run issued.
fn executed(out: &RunOutput) -> HashSet<usize> {
    out.trace
        .iter()
        .filter_map(|l| {
            let pc = l.split(" pc ").nth(1)?.split_whitespace().next()?;
            usize::from_str_radix(pc.trim_start_matches("0x"), 16)
                .ok()
                .map(|a| a / 16)
        })
        .collect()
}

/// The latency the hazard checker holds a register file to: the smallest fixed latency of
/// the table for it (`crates/sim/src/hazard.rs`); uniform files are not checked.
fn checker_latency(arch: Arch, l: Loc) -> Option<u32> {
    let file = match l {
        Loc::R(_) => "R",
        Loc::P(_) => "P",
        _ => return None,
    };
    latency::table(arch)
        .rows
        .iter()
        .filter(|m| m.file == file && m.kind == Kind::Fixed)
        .filter_map(|m| m.min)
        .min()
}

fn reencode(c: &mut Compiled) {
    c.code.words = tangle_backend::sched::encode(c.arch, &c.code.insts).unwrap();
}

fn cycles(out: &RunOutput) -> u64 {
    out.cycles.iter().map(|w| w.cycles).sum()
}

/// Mutated dependences per program and SM: `TANGLE_SCHED_MUTANTS=N` (default 8; `all`).
fn per_build() -> usize {
    match std::env::var("TANGLE_SCHED_MUTANTS").as_deref() {
        Ok("all") => usize::MAX,
        Ok(n) => n.parse().unwrap_or(8),
        Err(_) => 8,
    }
}

fn programs() -> Vec<(String, Module, usize)> {
    let mut v = Vec::new();
    for seed in 0..4u64 {
        let program = generate(
            seed,
            GenConfig {
                nesting: 1 + seed as u32 % 4,
                ..GenConfig::default()
            },
        );
        let words = mask_words(&program, 32).words.len();
        v.push((format!("seed {seed}"), build_module(&program), words));
    }
    v
}

#[test]
fn every_stall_and_wait_the_schedule_needs_is_flagged_when_cut() {
    let (mut stalls, mut waits, mut swaps, mut skipped) = (0, 0, 0, 0);
    for (name, module, words) in programs() {
        for arch in Arch::ALL {
            let none = compile_with(&module, arch, Sched::None);
            let base = run(&none, words, false);
            assert_eq!(
                base.hazards_total,
                0,
                "{name} {arch} conservative: {:?}",
                base.hazards.first()
            );
            let c = compile_with(&module, arch, Sched::List);
            let out = run(&c, words, true);
            assert_eq!(
                out.hazards_total,
                0,
                "{name} {arch}: {:?}",
                out.hazards.first()
            );
            assert_eq!(
                out.buffers, base.buffers,
                "{name} {arch}: results differ from the conservative code's"
            );
            assert!(
                cycles(&out) <= cycles(&base),
                "{name} {arch}: scheduled {} cycles, conservative {}",
                cycles(&out),
                cycles(&base)
            );
            let ran = executed(&out);
            let notes = c.notes.clone().expect("scheduled code has notes");
            let insts = &c.code.insts;
            // The mutant must run, the producer write for every lane (no guard), and
            // nothing between them may merge lanes or add cycles the schedule did not.
            let (checkable, rest): (Vec<&Dep>, Vec<&Dep>) = notes.deps.iter().partition(|d| {
                let (p, k) = (d.producer, d.consumer);
                ran.contains(&p)
                    && ran.contains(&k)
                    && insts[p].guard.pred == 7
                    && (p + 1..k).all(|j| !is_fence(&insts[j]))
            });
            skipped += rest.len();
            let step = checkable.len().div_ceil(per_build()).max(1);
            for d in checkable.into_iter().step_by(step) {
                let (p, k) = (d.producer, d.consumer);
                let mut bad = c.clone();
                let what = match d.need {
                    Need::Stall { latency } => {
                        if checker_latency(arch, d.loc) != Some(latency) {
                            // A longer latency than the checker's coarse per-file figure
                            // (IADD3's carry, ULDC): one cycle less is not a hazard to it.
                            skipped += 1;
                            continue;
                        }
                        bad.code.insts[k - 1].control.stall -= 1;
                        stalls += 1;
                        format!("stall of {} cut by one", k - 1)
                    }
                    Need::Wait { sb } | Need::ReadWait { sb } => {
                        bad.code.insts[k].control.wait &= !(1 << sb);
                        waits += 1;
                        format!("wait on SB{sb} cleared at {k}")
                    }
                };
                reencode(&mut bad);
                let m = run(&bad, words, false);
                assert!(
                    m.hazards_total > 0,
                    "{name} {arch}: {what} ({d:?}): not flagged"
                );
                // The producer on a scoreboard its consumer does not wait on.
                if let Need::Wait { sb } = d.need {
                    let waited: u8 = (p + 1..=k).fold(0, |m, j| m | insts[j].control.wait);
                    if let Some(other) = (0..6).find(|&s| waited >> s & 1 == 0 && s != sb) {
                        let mut bad = c.clone();
                        bad.code.insts[p].control.write_sb = Some(other);
                        if bad.code.insts[p].control.read_sb == Some(other) {
                            continue;
                        }
                        reencode(&mut bad);
                        let m = run(&bad, words, false);
                        assert!(
                            m.hazards_total > 0,
                            "{name} {arch}: SB{sb} of {p} swapped for SB{other}: not flagged"
                        );
                        swaps += 1;
                    }
                }
            }
        }
    }
    println!(
        "flagged: {stalls} stalls cut by one, {waits} waits cleared, {swaps} scoreboards swapped; \
         {skipped} dependences not run, guarded or across a fence, or a latency above the checker's"
    );
    assert!(
        stalls >= 10 && waits >= 10 && swaps >= 10,
        "too few mutants: {stalls} {waits} {swaps}"
    );
}
