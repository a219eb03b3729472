//! The mask oracle's records as the comparison uses them (`mask::simulate_in` in a scratch
//! kept between programs, `MaskRecords::check` against a buffer in place) against the
//! general path: a fresh simulation's laid-out words, compared word by word.

use tangle_fuzz::ast::Program;
use tangle_fuzz::mask::{simulate_in, simulate_with, Fallthrough, MaskScratch};
use tangle_fuzz::{generate, GenConfig};

/// The programs of `seeds` at nesting 1..=8, each with a subgroup size and a fallthrough
/// grouping that change from one program to the next.
fn programs(seeds: std::ops::Range<u64>) -> Vec<(Program, u32, Fallthrough)> {
    let mut out = Vec::new();
    for nesting in 1..=8 {
        for seed in seeds.clone() {
            let config = GenConfig {
                nesting,
                size_budget: 40,
            };
            let k = (seed as usize + nesting as usize) % 5;
            let size = [1, 4, 32, 64, 128][k];
            let fallthrough = if seed % 3 == 0 {
                Fallthrough::Merge
            } else {
                Fallthrough::Independent
            };
            out.push((generate(seed, config), size, fallthrough));
        }
    }
    out
}

fn le_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// One scratch for every program, in an order that makes each run follow a different
/// program, size and grouping: its records lay out the same words as a fresh simulation.
#[test]
fn a_kept_scratch_gives_what_a_fresh_simulation_gives() {
    let mut scratch = MaskScratch::default();
    let mut checked = 0;
    for (program, size, fallthrough) in programs(0..40) {
        let fresh = simulate_with(&program, size, fallthrough);
        let kept = simulate_in(&mut scratch, &program, size, fallthrough);
        assert_eq!(kept.max_records(), fresh.max_records);
        assert_eq!(kept.word_count(), fresh.words.len());
        assert_eq!(kept.words(), fresh.words);
        checked += usize::from(!fresh.words.is_empty());
    }
    assert!(checked > 250, "{checked} programs wrote records");
}

/// `check` says `Ok` exactly when the buffer begins with the laid-out words, and on `Err`
/// hands the buffer back as it was: on the exact buffer, a longer one, a shorter one, one
/// with a bit flipped anywhere (in a record or where none was written), and one with two
/// records swapped.
#[test]
fn check_agrees_with_the_laid_out_words() {
    let mut scratch = MaskScratch::default();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut agreed, mut differed) = (0, 0);
    for (program, size, fallthrough) in programs(0..25) {
        let records = simulate_in(&mut scratch, &program, size, fallthrough);
        let words = records.words();
        let exact = le_bytes(&words);
        let mut cases = vec![exact.clone()];
        let mut longer = exact.clone();
        longer.extend((0..1 + next() % 40).map(|_| next() as u8));
        cases.push(longer);
        if !exact.is_empty() {
            let mut shorter = exact.clone();
            shorter.truncate((next() as usize) % exact.len());
            cases.push(shorter);
            for _ in 0..4 {
                let mut flipped = exact.clone();
                let i = (next() as usize) % flipped.len();
                flipped[i] ^= 1 << (next() % 8);
                cases.push(flipped);
            }
            // A nonzero byte where no record was written, if there is such a place.
            if let Some(i) = exact.iter().position(|&b| b == 0) {
                let mut stray = exact.clone();
                stray[i] = 0x80;
                cases.push(stray);
            }
            // Two records swapped: every word is still somewhere in the buffer.
            let records_in = exact.len() / 20;
            if records_in >= 2 {
                let mut swapped = exact.clone();
                let (a, b) = (
                    (next() as usize) % records_in,
                    (next() as usize) % records_in,
                );
                for k in 0..20 {
                    swapped.swap(20 * a + k, 20 * b + k);
                }
                cases.push(swapped);
            }
        }
        for (case, bytes) in cases.into_iter().enumerate() {
            let what = format!(
                "case {case}: {} bytes against {} words",
                bytes.len(),
                words.len()
            );
            let equal = bytes.len() >= exact.len() && bytes[..exact.len()] == exact[..];
            match records.check(bytes.clone()) {
                Ok(()) => {
                    assert!(equal, "check said equal, {what}");
                    agreed += 1;
                }
                Err(back) => {
                    assert!(!equal, "check said different, {what}");
                    assert!(back == bytes, "the buffer comes back as it was, {what}");
                    differed += 1;
                }
            }
        }
    }
    assert!(
        agreed > 300 && differed > 1000,
        "{agreed} agreed, {differed} differed"
    );
}
