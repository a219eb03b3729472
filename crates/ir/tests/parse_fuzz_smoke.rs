//! Mutation smoke run of the IR text parser: 10,000 mutated texts, derived from the
//! filetests, must each parse or give a positioned error — never a panic. Texts that parse
//! are also verified (in both forms) and printed, so those see odd modules too, and the
//! valid ones go through the passes, which must leave them valid.

use std::path::Path;

use tangle_ir::pipeline::Pipeline;

fn seeds() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tir"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// Tokens worth splicing in: they lead the parser into its less travelled paths.
const PIECES: &[&str] = &[
    "v0",
    "v999",
    "b0",
    "b77",
    "c0",
    "c9",
    "g0",
    "t0",
    "t99",
    "f0",
    "f7",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    ",",
    ":",
    "=",
    "->",
    "|",
    "\"",
    "\"x\"",
    "-1",
    "0x",
    "1.5",
    "1e99",
    "u32x9",
    "ptr<",
    "phi",
    "br_if",
    "switch",
    "loop_merge",
    "selection_merge",
    "group_iadd[",
    "atomic_compare_exchange[",
    "\n",
    "; c\n",
    "return",
    "fn",
    "type",
    "const",
    "lowered",
    "token",
    "barrier",
    " conv(v0)",
    "conv(",
    "conv_entry",
    "conv_loop",
    "bar_set",
    "bar_sync v3",
    "bar_break",
    "exit",
];

fn mutate(rng: &mut fastrand::Rng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..1 + rng.usize(..4) {
        let n = chars.len().max(1);
        match rng.usize(..4) {
            0 => {
                let at = rng.usize(..n).min(chars.len());
                let len = rng.usize(..8).min(chars.len() - at);
                chars.drain(at..at + len);
            }
            1 => {
                let at = rng.usize(..=chars.len());
                let piece = PIECES[rng.usize(..PIECES.len())];
                for (k, c) in piece.chars().enumerate() {
                    chars.insert(at + k, c);
                }
            }
            2 => {
                if !chars.is_empty() {
                    let at = rng.usize(..chars.len());
                    chars[at] = char::from(rng.u8(32..127));
                }
            }
            _ => {
                // Swap two lines' worth of text: moves definitions after their uses.
                let lines: Vec<String> = chars
                    .iter()
                    .collect::<String>()
                    .lines()
                    .map(str::to_owned)
                    .collect();
                if lines.len() > 2 {
                    let (a, b) = (rng.usize(..lines.len()), rng.usize(..lines.len()));
                    let mut lines = lines;
                    lines.swap(a, b);
                    chars = lines.join("\n").chars().collect();
                }
            }
        }
    }
    chars.into_iter().collect()
}

#[test]
fn ten_thousand_mutated_texts_never_panic() {
    let seeds = seeds();
    let mut rng = fastrand::Rng::with_seed(0x7a9e_0002);
    let (mut parsed, mut valid) = (0, 0);
    for round in 0..10_000 {
        let text = mutate(&mut rng, &seeds[round % seeds.len()]);
        match tangle_ir::text::parse(&text) {
            Ok(module) => {
                parsed += 1;
                let printed = tangle_ir::text::print(&module);
                // Whatever parses must print to text that parses back to the same print.
                let again = tangle_ir::text::parse(&printed).expect("printed text parses");
                assert_eq!(tangle_ir::text::print(&again), printed);
                let _ = tangle_ir::verify::verify_as(&module, tangle_ir::Form::Lowered);
                let _ = tangle_ir::verify::verify_as(&module, tangle_ir::Form::Structured);
                if tangle_ir::verify::verify(&module).is_ok() {
                    valid += 1;
                    let mut passed = module.clone();
                    let mut pipeline =
                        Pipeline::parse("dead-code,reverse-post-order,dead-code").unwrap();
                    pipeline.verify_each = true;
                    if let Err(e) = pipeline.run(&mut passed, |_, _, _| {}) {
                        panic!("{e}\n{text}");
                    }
                }
            }
            Err(e) => assert!(e.pos.line >= 1 && e.pos.col >= 1, "{e}"),
        }
    }
    assert!(parsed > 0 && parsed < 10_000, "parsed {parsed} of 10000");
    eprintln!("mutated texts: 10000, parsed: {parsed}, valid: {valid}");
}
