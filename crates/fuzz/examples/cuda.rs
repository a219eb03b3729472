//! Prints the CUDA translation unit of the fuzz programs of seeds `A..B` (default `0..1`)
//! at nesting `N` (default 4), as the `ptxas` engine writes it:
//! `cargo run -p tangle-fuzz --example cuda -- 0..10 4 > fuzz.cu`.

use tangle_fuzz::cuda::translation_unit;
use tangle_fuzz::ptxas::options_of;
use tangle_fuzz::{generate, GenConfig};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let range = args.first().map_or("0..1", String::as_str);
    let (a, b) = range.split_once("..").unwrap_or((range, range));
    let a: u64 = a.parse().unwrap_or(0);
    let b: u64 = b.parse::<u64>().unwrap_or(a).max(a + 1);
    let nesting = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(4);
    let programs: Vec<_> = (a..b)
        .map(|s| {
            let config = GenConfig {
                nesting,
                ..GenConfig::default()
            };
            (s, generate(s, config))
        })
        .collect();
    print!(
        "{}",
        translation_unit(programs.iter().map(|(s, p)| (*s, p, options_of(*s))))
    );
}
