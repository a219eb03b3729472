//! Bounded fuzz smoke run inside `cargo test`: 12,000 mutations of the hand-written corpus
//! (deterministic seed) go through `asm::fuzz::check`, which assembles each one and checks
//! that nothing panics and the answer is well formed.

use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::cell::Cell;

use tangle_spirv::asm::fuzz::check;
use tangle_spirv::asm::{assemble, AsmOptions};

mod asm_mutate;
use asm_mutate::{apply, corpus, mutation};

#[test]
fn twelve_thousand_mutated_inputs_never_panic() {
    let texts = corpus();
    let config = Config {
        cases: 12_000,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[7u8; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let strategy = (0..texts.len(), proptest::collection::vec(mutation(), 1..6));
    let (accepted, rejected) = (Cell::new(0u32), Cell::new(0u32));
    runner
        .run(&strategy, |(file, mutations)| {
            let mut input = texts[file].as_bytes().to_vec();
            for m in &mutations {
                input = apply(&input, m);
            }
            check(&input);
            let counter = match assemble(&String::from_utf8_lossy(&input), AsmOptions::default()) {
                Ok(_) => &accepted,
                Err(_) => &rejected,
            };
            counter.set(counter.get() + 1);
            Ok(())
        })
        .unwrap();
    eprintln!(
        "mutated inputs: {} accepted, {} rejected",
        accepted.get(),
        rejected.get()
    );
    // The mutations must exercise both outcomes, or the run proves little.
    let (a, r) = (accepted.get(), rejected.get());
    assert!(a + r >= 10_000, "{a} + {r} inputs");
    assert!(a >= 1_000 && r >= 1_000, "{a} accepted, {r} rejected");
}

#[test]
fn unmutated_corpus_passes_the_check() {
    for text in corpus() {
        check(text.as_bytes());
    }
}
