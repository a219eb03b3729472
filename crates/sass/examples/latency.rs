//! Measures latencies from ptxas's scheduling: compiles the probe kernels
//! (`tangle_sass::latency::probe`) with ptxas for every SM, decodes the code with the
//! crate's own decoder and derives, per latency class and register file, the fewest cycles
//! ptxas leaves between a result and its first reader, and which classes set scoreboards.
//!
//! `cargo run -p tangle-sass --example latency` prints the tables;
//! `-- --write` rewrites `crates/sass/data/latency-sm_XX.tsv`; `-- --ptx DIR` keeps the
//! probe PTX and cubins in DIR. Needs ptxas (`TANGLE_ORACLES`).

use std::path::PathBuf;

use tangle_oracle::{locate, Tool};
use tangle_sass::latency::measure::measure;
use tangle_sass::Arch;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let write = args.iter().any(|a| a == "--write");
    let keep = args
        .iter()
        .position(|a| a == "--ptx")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from);
    let ptxas = locate(Tool::Ptxas).unwrap_or_else(|e| {
        eprintln!("latency: {e}");
        std::process::exit(2)
    });
    let tmp = tangle_oracle::scratch_dir();
    let dir = keep.unwrap_or_else(|| tmp.path().to_path_buf());
    std::fs::create_dir_all(&dir).expect("output directory");
    for arch in Arch::ALL {
        let table = measure(&ptxas, arch, &dir).unwrap_or_else(|e| {
            eprintln!("latency: {e}");
            std::process::exit(1)
        });
        print!("{}", table.to_tsv());
        if write {
            let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("data")
                .join(format!("latency-{arch}.tsv"));
            std::fs::write(&path, table.to_tsv()).expect("write the table");
            eprintln!("wrote {}", path.display());
        }
    }
}
