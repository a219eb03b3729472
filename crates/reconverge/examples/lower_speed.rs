//! CPU time of the lowering per instruction on the generated entry points of the `lower`
//! bench (about 10k, 25k, 50k and 100k instructions), for the table in docs/lowering.md
//! ("Speed"). Wall-clock time on a shared machine measures the neighbours; this reads the
//! thread's own run time from `/proc/thread-self/schedstat` (nanoseconds on the CPU) and
//! keeps the least of several lowerings per size.
//!
//! `cargo run --release -p tangle-reconverge --example lower_speed [REPEATS] [UNITS]`
//! (UNITS: one size only, in the generator's units of about 17 instructions; for
//! profiling one size at a time).

// An example's `main` and helpers need no public documentation.
#![allow(missing_docs)]

use tangle_reconverge::{lower_module, LowerOptions};

#[path = "../benches/generated/mod.rs"]
mod generated;

/// Nanoseconds this thread has run on a CPU, if the kernel says.
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn main() {
    let repeats: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    if cpu_ns().is_none() {
        eprintln!("no /proc/thread-self/schedstat: cannot read CPU time");
        std::process::exit(2);
    }
    println!("| instructions | per lowering | per instruction |");
    println!("|---|---|---|");
    let sizes: Vec<usize> = match std::env::args().nth(2).and_then(|a| a.parse().ok()) {
        Some(units) => vec![units],
        None => vec![588, 1470, 2940, 5880],
    };
    for units in sizes {
        let (module, insts) = generated::generated(units);
        let mut best = u64::MAX;
        for _ in 0..repeats {
            let start = cpu_ns().unwrap_or(0);
            let lowered = lower_module(&module, &LowerOptions::default());
            let spent = cpu_ns().unwrap_or(0).saturating_sub(start);
            // Dropping the result is part of a lowering's cost in a compiler, but not of
            // the pass: it is freed outside the measured span.
            drop(lowered.expect("the generated module lowers"));
            best = best.min(spent);
        }
        println!(
            "| {insts} | {:.0} ms | {:.2} µs |",
            best as f64 / 1e6,
            best as f64 / 1e3 / insts as f64
        );
    }
}
