//! Fuzz programs compiled for every SM and run on the SASS simulator (hazard mode) against
//! the reference interpreter at subgroup size 32. `TANGLE_SASS_FUZZ=N` runs N programs
//! (default 6), `TANGLE_SASS_POLICIES` names the policies (default round-robin,
//! adversarial, random:1; `all` for every one).

mod common;

use tangle_fuzz::ast::{INPUT, RECORD_WORDS};
use tangle_fuzz::build::build_module;
use tangle_fuzz::compare::run_reference;
use tangle_fuzz::mask::simulate as mask_words;
use tangle_fuzz::{generate, GenConfig};
use tangle_interp::Variant;
use tangle_reconverge::Scheme;
use tangle_sass::Arch;

fn policies() -> Vec<tangle_sched::Policy> {
    let text = std::env::var("TANGLE_SASS_POLICIES")
        .unwrap_or_else(|_| "round-robin,adversarial,random:1".into());
    tangle_sched::expand(&text, "SASS simulator", &tangle_sim::SUPPORTED).unwrap()
}

#[test]
fn fuzz_programs_run_on_every_sm_as_the_reference_says() {
    let n: u64 = std::env::var("TANGLE_SASS_FUZZ")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6);
    let policies = policies();
    let mut runs = 0;
    for seed in 0..n {
        let config = GenConfig {
            nesting: 1 + (seed % 5) as u32,
            ..GenConfig::default()
        };
        let program = generate(seed, config);
        let module = build_module(&program);
        let words = mask_words(&program, 32).words.len();
        let reference = run_reference(&module, 32, words, Variant::Maximal)
            .unwrap_or_else(|e| panic!("seed {seed}: reference: {e}"));
        let input: Vec<u8> = INPUT.iter().flat_map(|w| w.to_le_bytes()).collect();
        for arch in Arch::ALL {
            let c = common::build(&module, arch, Scheme::Scopes);
            for &policy in &policies {
                let out = common::simulate(&c, &[vec![0; words.max(1) * 4], input.clone()], policy)
                    .unwrap_or_else(|e| panic!("seed {seed} {arch} {policy}: {e}"));
                assert_eq!(
                    out.hazards_total,
                    0,
                    "seed {seed} {arch} {policy}: hazards {:?}",
                    out.hazards.first()
                );
                let got = common::buffer(&c, &out, 0);
                for (i, want) in reference.iter().enumerate() {
                    let g = u32::from_le_bytes(got[4 * i..4 * i + 4].try_into().unwrap());
                    assert_eq!(
                        g,
                        *want,
                        "seed {seed} {arch} {policy}: word {i} (invocation {})",
                        i / RECORD_WORDS as usize % program.local_size as usize
                    );
                }
                runs += 1;
            }
        }
    }
    println!("{n} fuzz programs, {runs} simulated runs agree with the reference");
}
