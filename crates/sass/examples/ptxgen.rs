//! Writes the generated PTX corpus (`tests/ptxgen/`) to a directory, one module per target
//! (`gen-sm_75.ptx` .. `gen-sm_90a.ptx`), or prints its coverage of the PTX ISA.
//!
//! `cargo run -p tangle-sass --example ptxgen -- DIR` writes the modules;
//! `cargo run -p tangle-sass --example ptxgen -- --coverage` prints the coverage table
//! (markdown: every instruction of the ISA's list, its kernels per target or the reason
//! it is left out).

#[path = "../tests/ptxgen/mod.rs"]
mod ptxgen;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let kernels = ptxgen::kernels();
    match args.first().map(String::as_str) {
        Some("--coverage") => {
            println!("| section | instruction | kernels (sm_75 / sm_80 / sm_86 / sm_89 / sm_90 / sm_90a) | excluded because |");
            println!("|---|---|---|---|");
            for (section, name, why) in ptxgen::ISA {
                let counts: Vec<String> = ptxgen::TARGETS
                    .iter()
                    .map(|t| {
                        kernels
                            .iter()
                            .filter(|k| k.isa == *name && t.accepts(k))
                            .count()
                            .to_string()
                    })
                    .collect();
                let counts = if why.is_some() {
                    "-".to_string()
                } else {
                    counts.join(" / ")
                };
                println!(
                    "| {section} | `{name}` | {counts} | {} |",
                    why.unwrap_or("")
                );
            }
        }
        Some(dir) => {
            std::fs::create_dir_all(dir).expect("create the output directory");
            for t in ptxgen::TARGETS {
                let path = std::path::Path::new(dir).join(format!("gen-{}.ptx", t.name()));
                std::fs::write(&path, ptxgen::module(t, &kernels)).expect("write a module");
                println!("{}", path.display());
            }
        }
        None => {
            eprintln!("usage: ptxgen DIR | --coverage");
            std::process::exit(2);
        }
    }
}
