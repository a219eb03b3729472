//! CPU time of the lowering per instruction on the generated entry points of the `lower`
//! bench (about 10k, 25k, 50k and 100k instructions), for the table in docs/lowering.md
//! ("Speed"). Wall-clock time on a shared machine measures the neighbours; this reads the
//! thread's own run time from `/proc/thread-self/schedstat` (nanoseconds on the CPU) and
//! keeps the least of several lowerings per size.
//!
//! `cargo run --release -p tangle-reconverge --example lower_speed [REPEATS] [UNITS]`
//! (both entries: `lower_module`, which clones, and `lower_module_owned`, which does not)
//! (UNITS: one size only, in the generator's units of about 17 instructions; for
//! profiling one size at a time). A third argument, `borrowed` or `owned`, runs only that
//! entry (for valgrind, whose counts would otherwise add both).

// An example's `main` and helpers need no public documentation.
#![allow(missing_docs)]

use tangle_reconverge::{lower_module, lower_module_owned, LowerOptions};

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
    println!("| instructions | per lowering | per instruction | owned: per lowering | owned: per instruction |");
    println!("|---|---|---|---|---|");
    let sizes: Vec<usize> = match std::env::args().nth(2).and_then(|a| a.parse().ok()) {
        Some(units) => vec![units],
        None => vec![588, 1470, 2940, 5880],
    };
    let only = std::env::args().nth(3);
    let only = only.as_deref();
    for units in sizes {
        // `lower_module` borrows the module and lowers a clone (the clone inside the
        // span); `lower_module_owned` is handed the module and lowers it in place. Each
        // lowering gets a module generated for it just before (outside the span, the same
        // module every time), so neither finds the other's input in the cache, and in the
        // owned runs no copy of the input stays alive beside the lowering. (The first
        // lowering of a size runs on a heap nothing has used before, as the example did
        // before it had two entries: valgrind's counts of one lowering see the same.)
        let mut insts = 0;
        let (mut borrowed, mut owned) = (u64::MAX, u64::MAX);
        for _ in 0..repeats {
            if only != Some("owned") {
                let (module, n) = generated::generated(units);
                insts = n;
                let spent = cpu_of(|| lower_module(&module, &LowerOptions::default()));
                borrowed = borrowed.min(spent);
            }
            if only != Some("borrowed") {
                let (module, n) = generated::generated(units);
                insts = n;
                let spent = cpu_of(move || lower_module_owned(module, &LowerOptions::default()));
                owned = owned.min(spent);
            }
        }
        let show = |ns: u64| match ns {
            u64::MAX => "| - | - ".to_string(),
            ns => format!(
                "| {:.0} ms | {:.2} µs ",
                ns as f64 / 1e6,
                ns as f64 / 1e3 / insts as f64
            ),
        };
        println!("| {insts} {}{}|", show(borrowed), show(owned));
    }
}

/// The CPU time of one lowering, the result dropped outside the measured span (dropping
/// it is part of a lowering's cost in a compiler, but not of the pass).
fn cpu_of<E: std::fmt::Debug>(lower: impl FnOnce() -> Result<tangle_ir::Module, E>) -> u64 {
    let start = cpu_ns().unwrap_or(0);
    let lowered = lower();
    let spent = cpu_ns().unwrap_or(0).saturating_sub(start);
    drop(lowered.expect("the generated module lowers"));
    spent
}
