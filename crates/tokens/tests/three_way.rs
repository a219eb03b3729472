//! The verifier's token rules, the brute-force oracle and LLVM's `opt -passes=verify`
//! judge random token-annotated graphs alike: the verifier and the brute-force oracle rule
//! kind by rule kind, `opt` valid or not. `TANGLE_TOKEN_CASES=N` runs more (by hand,
//! thousands) and `TANGLE_TOKEN_BLOCKS=N` makes larger graphs; CI runs a smoke number.

use std::collections::BTreeSet;

use tangle_ir::verify::{verify, Rule};
use tangle_tokens::brute::{self, Broken};
use tangle_tokens::random::{token_cfg, Shape};

/// The graphs' size: at most `TANGLE_TOKEN_BLOCKS` blocks (7 unless set).
fn shape() -> Shape {
    let max_blocks = std::env::var("TANGLE_TOKEN_BLOCKS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(7);
    Shape { max_blocks }
}

fn cases(default: usize) -> usize {
    std::env::var("TANGLE_TOKEN_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// The rule kind of one of the verifier's token messages.
fn kind(message: &str) -> Broken {
    if message.contains("`conv_entry`") {
        Broken::EntryPlacement
    } else if message.contains("`conv_loop` must precede") {
        Broken::LoopPlacement
    } else if message.contains("uncontrolled convergent") {
        Broken::Mixing
    } else if message.contains("other than `conv_loop`") {
        Broken::UseInCycle
    } else if message.contains("at most one heart") {
        Broken::TwoHearts
    } else if message.contains("must dominate every block") {
        Broken::HeartDominance
    } else if message.contains("regions do not nest") {
        Broken::Nesting
    } else {
        Broken::Operand
    }
}

#[test]
fn verifier_and_brute_force_agree_rule_by_rule_on_random_graphs() {
    let mut rng = fastrand::Rng::with_seed(0x70c3);
    let n = cases(3000);
    let mut invalid = 0;
    let mut seen = BTreeSet::new();
    for case in 0..n {
        let (module, f) = token_cfg(&mut rng, shape());
        let want = brute::check(&module, f);
        let got: BTreeSet<Broken> = match verify(&module) {
            Ok(()) => BTreeSet::new(),
            Err(e) => {
                assert!(
                    e.0.iter().all(|x| x.rule == Rule::Tokens),
                    "case {case}: not only token errors:\n{e}\n{}",
                    tangle_ir::text::print(&module)
                );
                e.0.iter().map(|x| kind(&x.message)).collect()
            }
        };
        assert_eq!(
            got,
            want,
            "case {case}:\n{}\n{:?}",
            tangle_ir::text::print(&module),
            verify(&module)
        );
        invalid += usize::from(!want.is_empty());
        seen.extend(want);
    }
    // The generator must keep and break the rules.
    assert!(
        invalid > n / 10 && invalid < n * 9 / 10,
        "{invalid} of {n} invalid"
    );
    assert!(seen.len() >= 7, "rule kinds broken: {seen:?}");
}

/// What `opt -passes=verify` says of a module: `None` when valid, else its message.
fn opt_verdict(opt: &tangle_oracle::Oracle, text: &str) -> Option<String> {
    let dir = tempfile_dir();
    let path = dir.join(format!("case-{}.ll", std::process::id()));
    std::fs::write(&path, text).expect("write .ll");
    let out = opt.run([
        "-passes=verify".as_ref(),
        "-disable-output".as_ref(),
        path.as_os_str(),
    ]);
    let _ = std::fs::remove_file(&path);
    if out.status.success() {
        None
    } else {
        Some(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join("tangle-tokens-three-way");
    let _ = std::fs::create_dir_all(&dir);
    dir
}

#[test]
fn verifier_brute_force_and_opt_agree_on_validity() {
    let Some(opt) = tangle_oracle::require(
        tangle_oracle::Tool::Opt,
        "verifier_brute_force_and_opt_agree_on_validity",
    ) else {
        return;
    };
    let mut rng = fastrand::Rng::with_seed(0x0b7);
    let n = cases(150);
    let mut disagreements = Vec::new();
    for case in 0..n {
        let (module, f) = token_cfg(&mut rng, shape());
        let text = tangle_llvm::write(&module).expect("random graphs are writable");
        let ours = brute::check(&module, f);
        let theirs = opt_verdict(&opt, &text);
        if ours.is_empty() != theirs.is_none() {
            disagreements.push(format!(
                "case {case}: brute force {ours:?}, opt {theirs:?}\n{text}"
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} of {n} disagree; first:\n{}",
        disagreements.len(),
        disagreements[0]
    );
}

#[test]
fn random_graphs_survive_llvm_text_with_the_same_verdict() {
    let mut rng = fastrand::Rng::with_seed(0x11);
    for case in 0..cases(1000) {
        let (module, f) = token_cfg(&mut rng, shape());
        let text = tangle_llvm::write(&module).expect("writable");
        let back = tangle_llvm::read(&text).unwrap_or_else(|e| panic!("case {case}: {e}\n{text}"));
        let g = back.funcs.keys().next().expect("one function");
        assert_eq!(
            brute::check(&back, g),
            brute::check(&module, f),
            "case {case}:\n{text}"
        );
        assert_eq!(
            verify(&back).is_ok(),
            verify(&module).is_ok(),
            "case {case}:\n{text}"
        );
        let again = tangle_llvm::write(&back).expect("writable");
        let third =
            tangle_llvm::write(&tangle_llvm::read(&again).expect("readable")).expect("writable");
        assert_eq!(again, third, "case {case}: not stable after one round");
    }
}
