//! `tangle disasm` against `nvdisasm -c` on the same cubins, side by side in one run (issue
//! 12, "Show": disassembly throughput against the peer).
//!
//! The cubins are ptxas's: the generated PTX corpus (`crates/sass/tests/ptxgen`, PTX for the
//! PTX ISA's instructions, about 5,000 instructions per SM) compiled once per SM. Per SM the
//! bench group `cubin/<sm>` times
//! - `nvdisasm`: the `nvdisasm -c FILE` process, its output read through a pipe;
//! - `tangle-disasm`: the `tangle disasm FILE` process, the same way (the same job for a user:
//!   both print the same listing, see below);
//! - `tangle-in-process`: reading the cubin and building the listing inside this process
//!   (`tangle_sass::listing::cubin_listing`), what a library user pays, without process
//!   start-up.
//!
//! Before timing, the set-up checks that both listings describe the same code: it counts the
//! lines of tangle's listing equal to nvdisasm's (they differ only where tangle refuses a word
//! the corpus holds; those are listed in `crates/sass/tests/generated-refusals.tsv`), as
//! multisets of lines, and prints the count, so a figure never compares a listing with an error message.
//!
//! `cargo bench -p tangle-cli --bench disasm_vs_nvdisasm` measures all five SMs; `cargo test`
//! runs it once in criterion's test mode (sm_86 only, to keep CI's budget), so CI keeps it
//! working. Needs ptxas and nvdisasm (`tools/install-oracles.sh`); without them the bench says
//! so and measures nothing. Figures: docs/sass.md, "Throughput".

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

// The corpus module's coverage table (`ISA`) is not used here.
#[allow(unused_imports)]
#[path = "../../sass/tests/ptxgen/mod.rs"]
mod ptxgen;

use std::collections::HashMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tangle_oracle::{require, Oracle, Tool};
use tangle_sass::{cubin, listing, Arch};

/// The tangle executable cargo built for this bench.
const TANGLE: &str = env!("CARGO_BIN_EXE_tangle");

/// Runs `program args...` and returns its standard output (whatever its exit status: tangle
/// exits 1 when a word was refused, which the set-up reports).
fn stdout_of(program: &Path, args: &[&Path]) -> Vec<u8> {
    let out = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
    out.stdout
}

/// Compiles the generated PTX corpus for `arch` with ptxas into `dir`; returns the cubin.
fn cubin_for(ptxas: &Oracle, arch: Arch, dir: &Path) -> PathBuf {
    let target = ptxgen::TARGETS
        .iter()
        .copied()
        .find(|t| t.sm == arch.number() && !t.arch_specific)
        .expect("a target per SM");
    let ptx = dir.join(format!("{}.ptx", target.name()));
    let out = dir.join(format!("{}.cubin", target.name()));
    std::fs::write(&ptx, ptxgen::module(target, &ptxgen::kernels())).expect("write the PTX");
    let arch_flag = format!("-arch={}", target.name());
    ptxas.run_ok([
        arch_flag.as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
        ptx.as_os_str(),
    ]);
    out
}

fn side_by_side(c: &mut Criterion) {
    let (Some(ptxas), Some(nvdisasm)) = (
        require(Tool::Ptxas, "disasm_vs_nvdisasm"),
        require(Tool::Nvdisasm, "disasm_vs_nvdisasm"),
    ) else {
        return;
    };
    // `cargo bench` passes `--bench`; criterion's test mode under `cargo test` does not.
    let full = std::env::args().any(|a| a == "--bench");
    let arches: Vec<Arch> = if full {
        Arch::ALL.to_vec()
    } else {
        vec![Arch::Sm86]
    };
    let dir = tangle_oracle::scratch_dir();
    let mut g = c.benchmark_group("cubin");
    for arch in arches {
        let path = cubin_for(&ptxas, arch, dir.path());
        let bytes = std::fs::read(&path).expect("read the cubin");
        let parsed = cubin::read(&bytes).expect("ptxas's cubin reads");
        let instructions: usize = parsed.functions.iter().map(|f| f.words.len()).sum();

        let theirs = String::from_utf8(stdout_of(&nvdisasm.path, &["-c".as_ref(), &path]))
            .expect("nvdisasm prints text");
        let ours = String::from_utf8(stdout_of(Path::new(TANGLE), &["disasm".as_ref(), &path]))
            .expect("tangle prints text");
        let theirs_lines: Vec<&str> = theirs.lines().collect();
        let ours_lines: Vec<&str> = ours.lines().collect();
        // Lines of nvdisasm's listing that tangle's has too, counted as multisets (a refused
        // word can take another number of lines than nvdisasm's text of it).
        let mut ours_count: HashMap<&str, usize> = HashMap::new();
        for l in &ours_lines {
            *ours_count.entry(l).or_default() += 1;
        }
        let equal = theirs_lines
            .iter()
            .filter(|l| {
                ours_count.get_mut(*l).is_some_and(|n| {
                    *n > 0 && {
                        *n -= 1;
                        true
                    }
                })
            })
            .count();
        eprintln!(
            "cubin/{arch}: {instructions} instructions, {} bytes; listings: nvdisasm {} lines, \
             tangle {} lines, {equal} of nvdisasm's lines also in tangle's",
            bytes.len(),
            theirs_lines.len(),
            ours_lines.len()
        );
        assert!(
            equal * 100 >= theirs_lines.len() * 99,
            "cubin/{arch}: the two listings differ in more than 1% of the lines; \
             the timings would not compare the same work"
        );

        g.throughput(Throughput::Elements(instructions as u64));
        g.bench_function(format!("{arch}/nvdisasm"), |b| {
            b.iter(|| black_box(stdout_of(&nvdisasm.path, &["-c".as_ref(), &path]).len()))
        });
        g.bench_function(format!("{arch}/tangle-disasm"), |b| {
            b.iter(|| black_box(stdout_of(Path::new(TANGLE), &["disasm".as_ref(), &path]).len()))
        });
        g.bench_function(format!("{arch}/tangle-in-process"), |b| {
            b.iter(|| {
                let c = cubin::read(black_box(&bytes)).expect("reads");
                let l = listing::cubin_listing(&c, arch, false);
                black_box(l.lines.iter().map(String::len).sum::<usize>())
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = side_by_side
}
criterion_main!(benches);
