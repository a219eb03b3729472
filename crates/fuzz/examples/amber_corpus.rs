//! Writes generated programs as AmberScript files whose EXPECTs hold the reference
//! interpreter's results, at subgroup size 32 (the back end's), nesting cycling 1-6: a
//! corpus for `tangle run --engine gpu` on a machine with a GPU (`tools/gpu/bundle.sh`).
//!
//! `cargo run --release -p tangle-fuzz --example amber_corpus -- DIR COUNT`

use tangle_fuzz::{amber::to_amber, build::build_module, compare::run_reference};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(dir), Some(Ok(count))) = (args.get(1), args.get(2).map(|n| n.parse::<u64>())) else {
        eprintln!("usage: amber_corpus DIR COUNT");
        std::process::exit(2);
    };
    let dir = std::path::PathBuf::from(dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("cannot create {}: {e}", dir.display());
        std::process::exit(2);
    }
    let mut written = 0;
    for seed in 0..count {
        let config = tangle_fuzz::GenConfig {
            nesting: 1 + (seed % 6) as u32,
            size_budget: 40,
        };
        let program = tangle_fuzz::generate(seed, config);
        let words = tangle_fuzz::mask::simulate(&program, 32).words;
        let module = build_module(&program);
        let expect = match run_reference(&module, 32, words.len(), tangle_interp::Variant::Maximal)
        {
            Ok(e) => e,
            Err(e) => {
                eprintln!("seed {seed}: the reference refused it: {e}");
                continue;
            }
        };
        let path = dir.join(format!("seed{seed:05}.amber"));
        if let Err(e) = std::fs::write(&path, to_amber(&program, 32, &expect)) {
            eprintln!("cannot write {}: {e}", path.display());
            std::process::exit(2);
        }
        written += 1;
    }
    eprintln!("{written} scripts written to {}", dir.display());
}
