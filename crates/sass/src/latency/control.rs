//! The shortest stall ptxas ever gives certain control instructions, per SM.
//!
//! These instructions write no register a consumer could wait on, so the per-class latency
//! tables (which measure producer-to-consumer distances) say nothing about them; yet
//! ptxas never lets the next instruction issue sooner than this after them. Code that
//! does is wrong on hardware: on an H100 (sm_90, 2026-11-24) tangle's kernels with
//! `BSYNC` at stall 1 ran the instructions after the reconvergence point without the
//! lanes that were merging there (a constant they should have set was missing, so a
//! store went to a wrong address; `docs/gpu.md`). That stall 5 cures it is inferred from
//! ptxas's code and the sanitizer's report; a GPU has not yet rerun the fixed kernels.
//!
//! Measured as the minimum stall count over every occurrence in ptxas 13.5's `-O3` code
//! for the probe kernels of `../shared/probes` and the simulator's CUDA corpus
//! (`crates/sim/tests/cuda/corpus.cu`), 40-300 occurrences per opcode and SM; the test
//! `tests/control_stalls.rs` recomputes the minima from ptxas and checks this table.
//! `CALL` is not in it: ptxas gives it 5 in those kernels but 1 in fuzz programs' code
//! (`tangle fuzz --engines ref,ptxas --seeds 0..3 --arch sm_80`, seed 2), and tangle's
//! back end inlines calls.

use crate::Arch;

/// `(mnemonic, minimum stall on sm_75, sm_80, sm_86, sm_89, sm_90)`.
pub const MIN_STALLS: &[(&str, [u8; 5])] = &[
    ("BSYNC", [5, 5, 5, 5, 5]),
    ("EXIT", [5, 5, 5, 5, 5]),
    ("RET", [5, 5, 5, 5, 5]),
    ("BRX", [5, 5, 5, 5, 5]),
    ("WARPSYNC", [4, 1, 1, 1, 5]),
    ("BREAK", [1, 1, 1, 1, 5]),
    ("BMOV", [1, 1, 1, 1, 5]),
    ("YIELD", [1, 1, 1, 1, 5]),
];

/// The index of `arch` in [`MIN_STALLS`]' rows.
fn column(arch: Arch) -> usize {
    match arch.number() {
        75 => 0,
        80 => 1,
        86 => 2,
        89 => 3,
        _ => 4,
    }
}

/// The shortest stall ptxas gives an instruction of base mnemonic `name` (e.g. `BSYNC`)
/// on `arch`; 0 for instructions without such a rule.
pub fn min_stall(arch: Arch, name: &str) -> u8 {
    MIN_STALLS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(0, |(_, row)| row[column(arch)])
}
